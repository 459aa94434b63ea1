// SPDX-License-Identifier: MIT
#include "VerifierPanel.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/FindingsModel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace splitscope {

namespace {

// The findings table shrinks to its header and this many lines (a hazard's row, its
// producers wrapped), then scrolls.
constexpr int kMinimumTableLines = 6;

} // namespace

VerifierPanel::VerifierPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new FindingsModel(document, this)),
      m_summary(new WrappedLabel(this)),
      m_table(new QTableView(this)), m_show(new QPushButton(tr("Sho&w in graph"), this))
{
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setTabKeyNavigation(false); // Tab goes on to the next widget; the arrows move between cells
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // Three columns that wrap, in rows that grow: a dock about 360 px wide shows both
    // producers of a hazard, where five one-line columns hid them behind a scroll bar.
    setWrappedCells(m_table);
    m_table->horizontalHeader()->setStretchLastSection(false); // fitColumns sets every column
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    onResize(m_table->viewport(), [this]() { fitColumns(); });
    m_show->setEnabled(false);
    m_show->setToolTip(tr("Select the reader and emphasise the producers and the edge (double-clicking a row or Enter does the same)"));

    // The table gives way first: it shrinks to a few rows and scrolls, the summary
    // keeps the panel's whole width and all its lines.
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height()
        + kMinimumTableLines * m_table->fontMetrics().lineSpacing() + m_table->verticalHeader()->defaultSectionSize()
        + 2 * m_table->frameWidth());
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_show);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    // Double-click or Enter (Qt's activation): Enter on a row did nothing.
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) { showRow(index.row()); });
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

void VerifierPanel::fitColumns()
{
    // The finding and the reader as wide as their longest line, up to 26 % and 34 % of
    // the table; the producers take the rest and wrap where that is not enough.
    QHeaderView *header = m_table->horizontalHeader();
    const int view = m_table->viewport()->width();
    if (view <= 0)
        return;
    const QAbstractItemView *cells = m_table; // sizeHintForColumn is public here
    const int margin = 2 * m_table->fontMetrics().averageCharWidth();
    const int shares[] = {26, 34};
    for (int column : {int(FindingsModel::KindColumn), int(FindingsModel::UnitColumn)}) {
        const int wanted = std::max(cells->sizeHintForColumn(column), header->sectionSizeHint(column)) + margin;
        header->resizeSection(column, std::min(wanted, view * shares[column] / 100));
    }
    header->resizeSection(FindingsModel::ProducerColumn,
        view - header->sectionSize(FindingsModel::KindColumn) - header->sectionSize(FindingsModel::UnitColumn));
}

void VerifierPanel::refresh()
{
    fitColumns();
    m_show->setEnabled(false);
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis) {
        m_summary->setText(tr("<i>No split yet.</i>"));
        return;
    }
    const int hazards = m_model->hazardCount() + m_model->lostGradientCount();
    const int violations = m_model->violationCount();
    const int frozen = m_model->frozenCount();
    const int declarations = m_model->declarationCount() - m_model->lostGradientCount();
    QString text;
    if (hazards == 0 && violations == 0)
        text = tr("<span style='color:%1'><b>✔ This split is exact:</b></span> every read in stage two and by "
                  "the loss sees the same producer as in one-stage training.")
                   .arg(theme::css(theme::Tone::Success, palette()));
    else
        text = tr("<span style='color:%1'><b>⚠ %2</b></span>: two-stage training would differ from "
                  "one-stage training.")
                   .arg(theme::css(theme::Tone::Hazard, palette()), countText(hazards, tr("%n hazard"), tr("%n hazards")));
    if (violations > 0)
        text += countText(violations, tr(" %n broken split condition."), tr(" %n broken split conditions."));
    if (hazards > 0 && analysis->split.mode == SplitMode::Seed) // the Split menu's Safe item, and its key
        text += tr(" The safe split avoids them (Split ▸ Safe, or %1).")
                    .arg(QKeySequence(Qt::ALT | Qt::Key_2).toString(QKeySequence::NativeText));
    if (frozen > 0)
        text += tr("<br><span style='color:%1'><b>%2</b> in stage one:</span> %3")
                    .arg(theme::css(theme::Tone::Warning, palette()),
                        countText(frozen, tr("%n stochastic unit"), tr("%n stochastic units")),
                        countText(frozen,
                            tr("its random draws are computed once and cached, so every epoch sees the same noise."),
                            tr("their random draws are computed once and cached, so every epoch sees the same "
                               "noise.")));
    if (declarations > 0)
        text += tr("<br><span style='color:%1'><b>%2</b></span> in process() bodies do what the declarations do not "
                   "say (read from the source).")
                    .arg(theme::css(theme::Tone::Warning, palette()),
                        countText(declarations, tr("%n finding"), tr("%n findings")));
    m_summary->setText(text);
}

QString VerifierPanel::summaryText() const
{
    return plainTextOf(m_summary->text());
}

} // namespace splitscope
