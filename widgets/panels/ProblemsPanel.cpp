// SPDX-License-Identifier: MIT
#include "ProblemsPanel.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/DiagnosticsModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace splitscope {

ProblemsPanel::ProblemsPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new DiagnosticsModel(document, this)),
      m_summary(new QLabel(this)), m_table(new QTableView(this))
{
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setTabKeyNavigation(false); // Tab goes on to the next widget; the arrows move between cells
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ProblemsPanel::refresh);
    onResize(m_table->viewport(), [this]() { fitColumns(); });
    refresh();
}

void ProblemsPanel::fitColumns()
{
    // The message, last, gets what the others leave: at 1280x720 the file and the
    // JSON path took the whole width and no message was in view.
    static const QList<ColumnLimit> limits = {{15, 7}, {30, 14}, {30, 16}};
    fitColumnWidths(m_table, m_contentWidths, limits);
}

void ProblemsPanel::refresh()
{
    m_contentWidths = measureColumnWidths(m_table);
    fitColumns();
    const Diagnostics &d = m_document->diagnostics();
    const auto errors = countSeverity(d, Severity::Error);
    const auto warnings = countSeverity(d, Severity::Warning);
    if (m_document->lastLoadFailed()) {
        m_summary->setText(tr("<span style='color:%4'><b>%1 could not be loaded</b></span> (%2). %3")
                               .arg(m_document->lastAttempt().toHtmlEscaped(),
                                   countText(static_cast<qint64>(errors), tr("%n error"), tr("%n errors")),
                                   m_document->hasPipeline()
                                       ? tr("The pipeline shown is still %1.")
                                             .arg(m_document->source().displayName().toHtmlEscaped())
                                       : tr("No pipeline is open."),
                                   theme::css(theme::Tone::Error, palette())));
    } else if (!m_document->hasPipeline()) {
        m_summary->setText(tr("No pipeline open."));
    } else if (d.empty()) {
        m_summary->setText(tr("<span style='color:%2'>✔ %1 loaded without problems.</span>")
                               .arg(m_document->source().displayName().toHtmlEscaped(),
                                   theme::css(theme::Tone::Success, palette())));
    } else {
        m_summary->setText(tr("%1 loaded: %2, %3.")
                               .arg(m_document->source().displayName().toHtmlEscaped(),
                                   countText(static_cast<qint64>(warnings), tr("%n warning"), tr("%n warnings")),
                                   countText(static_cast<qint64>(d.size() - warnings - errors), tr("%n note"),
                                       tr("%n notes"))));
    }
}

} // namespace splitscope
