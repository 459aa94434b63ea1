// SPDX-License-Identifier: MIT
#include "VerifierPanel.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/FindingsModel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kMinimumTableRows = 2; // the findings table shrinks to its header and this many rows, then scrolls

// A word-wrapped label that is never shorter than its text at its width. A layout
// takes a wrapped label's height for its width as a wish, not a minimum: when the
// panel is short (a dock at 1280x800), the label was squeezed and its lines ran under
// the table below it. With the wrapped height as its minimum, the panel asks for that
// room, and the dock's scroll area scrolls the panel instead of clipping the text.
class WrappedLabel : public QLabel {
public:
    using QLabel::QLabel;

    QSize minimumSizeHint() const override
    {
        QSize size = QLabel::minimumSizeHint();
        if (wordWrap() && width() > 0)
            size.setHeight(std::max(size.height(), heightForWidth(width())));
        return size;
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QLabel::resizeEvent(event);
        if (event->size().width() != event->oldSize().width())
            updateGeometry(); // the minimum height follows the width
    }
};

} // namespace

VerifierPanel::VerifierPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new FindingsModel(document, this)),
      m_summary(new WrappedLabel(this)),
      m_table(new QTableView(this)), m_show(new QPushButton(tr("&Show in graph"), this))
{
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setTabKeyNavigation(false); // Tab goes on to the next widget; the arrows move between cells
    m_show->setEnabled(false);
    m_show->setToolTip(tr("Select the reader and emphasise the producers and the edge (double-click a row does the same)"));

    // The table gives way first: it shrinks to a few rows and scrolls, the summary
    // keeps the panel's whole width and all its lines.
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height()
        + kMinimumTableRows * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth());
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_show);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) { showRow(index.row()); });
    connect(m_show, &QPushButton::clicked, this, [this]() {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            showRow(rows.front().row());
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &VerifierPanel::refresh);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        [this]() { m_show->setEnabled(m_table->selectionModel()->hasSelection()); });
    refresh();
}

void VerifierPanel::showRow(int row)
{
    const QModelIndex index = m_model->index(row, 0);
    if (!index.isValid())
        return;
    const auto kind = static_cast<FindingsModel::Kind>(index.data(FindingsModel::kKindRole).toInt());
    if (kind == FindingsModel::Kind::Hazard)
        Q_EMIT hazardRequested(index.data(FindingsModel::kIndexRole).toInt());
    else
        Q_EMIT unitRequested(index.data(FindingsModel::kUnitRole).toInt());
}

void VerifierPanel::refresh()
{
    m_table->resizeColumnsToContents();
    m_show->setEnabled(false);
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis) {
        m_summary->setText(tr("<i>No split yet.</i>"));
        return;
    }
    const int hazards = m_model->hazardCount();
    const int violations = m_model->violationCount();
    const int frozen = m_model->frozenCount();
    QString text;
    if (hazards == 0 && violations == 0)
        text = tr("<span style='color:#2b8a3e'><b>✔ This split is exact:</b></span> every read in stage two and by "
                  "the loss sees the same producer as in one-stage training.");
    else
        text = tr("<span style='color:#c2255c'><b>⚠ %n hazard(s)</b></span>: two-stage training would differ from "
                  "one-stage training.",
            nullptr, hazards);
    if (violations > 0)
        text += tr(" %n broken split condition(s).", nullptr, violations);
    if (hazards > 0 && analysis->split.mode == SplitMode::Seed)
        text += tr(" The safe split avoids them (Training panel: Safe).");
    if (frozen > 0)
        text += tr("<br><span style='color:#b35c00'><b>%n stochastic unit(s)</b> in stage one:</span> their random "
                   "draws are computed once and cached, so every epoch sees the same noise.",
            nullptr, frozen);
    m_summary->setText(text);
}

QString VerifierPanel::summaryText() const
{
    return plainTextOf(m_summary->text());
}

} // namespace splitscope
