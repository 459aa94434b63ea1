// SPDX-License-Identifier: MIT
#include "RunHistoryPanel.h"

#include "LossChartView.h"
#include "MemoryChartView.h"
#include "RunComparisonModel.h"
#include "RunCharts.h"
#include "RunFormat.h"
#include "RunHistory.h"
#include "RunHistoryModel.h"

#include "widgets/common/WidgetHelpers.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLayout>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QSplitter>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>
#include <vector>

namespace splitscope {

namespace {

bool isSplit(const RunSession &s)
{
    return s.kind() == RunKind::Both || s.kind() == RunKind::StageTwo;
}

bool finished(const RunSession &s)
{
    return s.outcome() == StageRun::Outcome::Finished;
}

// The configuration reads from its start ("LoRA on dit · seed split · 4 ep…") and
// wraps with the other cells in rows of two lines; the output folder is elided in the
// middle, which keeps the launch's own folder, and stays on one line (a path broken
// anywhere reads worse than a path shortened).
class ElideDelegate : public QStyledItemDelegate {
public:
    ElideDelegate(Qt::TextElideMode mode, bool oneLine, QObject *parent)
        : QStyledItemDelegate(parent), m_mode(mode), m_oneLine(oneLine)
    {
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = m_mode;
        if (m_oneLine)
            option->features &= ~QStyleOptionViewItem::WrapText;
    }

private:
    Qt::TextElideMode m_mode;
    bool m_oneLine;
};

// The width `text` needs on at most two lines broken at a space (the wider line at
// the best break), or on one line. The first line keeps its space: Qt's word wrap
// counts it when it decides what fits.
int twoLineAdvance(const QFontMetrics &metrics, const QString &text)
{
    int best = metrics.horizontalAdvance(text);
    for (qsizetype i = text.indexOf(QLatin1Char(' ')); i >= 0; i = text.indexOf(QLatin1Char(' '), i + 1))
        best = std::min(best,
            std::max(metrics.horizontalAdvance(text.left(i + 1)), metrics.horizontalAdvance(text.mid(i + 1))));
    return best;
}

// Below this width (in text lines, so that it follows the font) the charts are tabs:
// about 1000 pixels at the usual font, which makes the bottom dock of a 1280 and a
// 1600 pixel window compact and leaves the charts beside the tables at 1920.
constexpr int kCompactBelowLines = 68;
constexpr int kLeastChartLines = 16; // the width, in text lines, a chart beside the tables keeps

} // namespace

RunHistoryPanel::RunHistoryPanel(RunHistory *history, QWidget *parent)
    : QWidget(parent), m_history(history), m_model(new RunHistoryModel(history, this)),
      m_comparison(new RunComparisonModel(this)), m_table(new QTableView(this)), m_comparisonTable(new QTableView(this)),
      m_details(new QTabWidget(this)), m_summary(new QLabel(this)), m_status(new QLabel(this)),
      m_pair(new QPushButton(tr("&Baseline vs split"), this)), m_remove(new QPushButton(tr("Delete"), this)),
      m_open(new QPushButton(tr("Open o&utput folder"), this)), m_loss(new LossChartView(this)),
      m_memory(new MemoryChartView(this))
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    // The columns that say which launch it was and how it went always fit their
    // contents (fitColumns); the long configuration and output folder share what is
    // left, elided (the tooltip has the whole text). They hid the outcome and the loss
    // behind a scroll bar, even at 1920 pixels, and at 1280 pixels the date and the
    // launch read "…".
    m_table->setItemDelegateForColumn(RunHistoryModel::ConfigurationColumn,
        new ElideDelegate(Qt::ElideRight, false, m_table));
    m_table->setItemDelegateForColumn(RunHistoryModel::OutputColumn, new ElideDelegate(Qt::ElideMiddle, true, m_table));
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Fixed);
    header->setMinimumSectionSize(m_table->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 4);
    // Seen in this order: when and what, how it went, then the long details, so that
    // a table too narrow for all of it scrolls the details out of view, not the outcome.
    header->moveSection(header->visualIndex(RunHistoryModel::ConfigurationColumn),
        header->visualIndex(RunHistoryModel::LossColumn));
    m_table->viewport()->installEventFilter(this);
    connect(m_model, &QAbstractItemModel::modelReset, this, &RunHistoryPanel::fitColumns);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &RunHistoryPanel::fitColumns);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &RunHistoryPanel::fitColumns);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RunHistoryPanel::fitColumns);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setToolTip(tr("Select a run to see its curves, or two runs to compare them (the older is A); "
                           "Delete removes the selected runs from the history"));
    // Tab leaves the table (the arrows move between its cells).
    m_table->setTabKeyNavigation(false);
    auto *deleteKey = new QAction(tr("Delete from the history"), m_table);
    deleteKey->setShortcuts({QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
    deleteKey->setShortcutContext(Qt::WidgetShortcut);
    connect(deleteKey, &QAction::triggered, this, &RunHistoryPanel::removeSelected);
    m_table->addAction(deleteKey);

    m_comparisonTable->setModel(m_comparison);
    m_comparisonTable->verticalHeader()->hide();
    m_comparisonTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_comparisonTable->setTabKeyNavigation(false);
    m_comparisonTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_comparisonTable->horizontalHeader()->setStretchLastSection(true);
    m_comparisonTable->verticalHeader()->setDefaultSectionSize(m_comparisonTable->fontMetrics().height() + 4);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color:#c2255c"));
    m_pair->setToolTip(tr("Compare a finished one-stage baseline with a finished split launch of the same training "
                          "configuration (the newest such pair)"));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_pair);
    buttons->addStretch(1);
    buttons->addWidget(m_open);
    buttons->addWidget(m_remove);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(4, 4, 4, 4);
    leftLayout->addLayout(buttons);
    m_tables = new QSplitter(Qt::Vertical, left);
    m_tables->addWidget(m_table);
    auto *comparisonBox = new QWidget(m_details);
    auto *comparisonLayout = new QVBoxLayout(comparisonBox);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->addWidget(m_summary);
    comparisonLayout->addWidget(m_comparisonTable, 1);
    // The comparison is the only tab of a wide panel (no tab bar then); a compact one
    // adds the charts.
    m_details->setDocumentMode(true);
    m_details->setTabBarAutoHide(true);
    m_details->addTab(comparisonBox, tr("Comparison"));
    m_details->setTabToolTip(0, tr("The selected runs, and two compared: B relative to A"));
    m_tables->addWidget(m_details);
    m_tables->setStretchFactor(0, 2);
    m_tables->setStretchFactor(1, 3);
    leftLayout->addWidget(m_tables, 1);
    leftLayout->addWidget(m_status);

    m_charts = layOutWithCharts(this, left, m_loss, m_memory, 5);
    connect(m_charts, &QSplitter::splitterMoved, this, [this]() { m_chartsSizedByHand = true; });

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this]() {
        // Two rows the user selected are their comparison: a launch that ends does not replace it.
        m_chosenByHand = !m_selecting && m_table->selectionModel()->selectedRows().size() == 2;
        selectionChanged();
    });
    connect(m_pair, &QPushButton::clicked, this, [this]() { compareBaselineAndSplit(); });
    connect(m_remove, &QPushButton::clicked, this, &RunHistoryPanel::removeSelected);
    connect(m_open, &QPushButton::clicked, this, &RunHistoryPanel::openOutput);
    connect(history, &RunHistory::reset, this, &RunHistoryPanel::historyChanged);
    connect(history, &RunHistory::added, this, &RunHistoryPanel::historyChanged);
    connect(history, &RunHistory::removed, this, &RunHistoryPanel::historyChanged);
    connect(history, &RunHistory::saveFailed, this, [this](const QString &error) {
        m_status->setText(tr("The run history could not be saved: %1").arg(error));
    });
    historyChanged();
    clearComparison();
    arrange();
}

bool RunHistoryPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

void RunHistoryPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrange();
}

void RunHistoryPanel::arrange()
{
    const bool compact = width() < kCompactBelowLines * fontMetrics().height();
    if (m_arranged && compact == m_compact)
        return;
    m_arranged = true;
    m_compact = compact;
    if (compact) {
        // The charts as wide as the panel, one at a time; the comparison stays in front.
        m_details->addTab(m_loss, tr("Loss"));
        m_details->setTabToolTip(1, tr("The loss per optimizer step of the selected runs"));
        m_details->addTab(m_memory, tr("Memory"));
        m_details->setTabToolTip(2, tr("The resident memory over time of the selected runs"));
    } else {
        while (m_details->count() > 1)
            m_details->removeTab(m_details->count() - 1);
        m_details->setCurrentIndex(0);
        m_charts->addWidget(m_loss);
        m_charts->addWidget(m_memory);
        // The tab that was not in front was hidden by the tab widget.
        m_loss->show();
        m_memory->show();
        m_charts->setStretchFactor(1, 3);
        m_charts->setStretchFactor(2, 3);
    }
    fitColumns();
    sizeCharts();
}

void RunHistoryPanel::sizeCharts()
{
    if (m_compact || m_chartsSizedByHand)
        return;
    // The table as wide as its rows on one line with the long columns readable, the
    // charts not narrower than a chart can be read at; they share the rest.
    const int room = std::max(0, m_charts->width() - 2 * m_charts->handleWidth());
    const int leastChart = kLeastChartLines * fontMetrics().height();
    const int table = std::max(room * 5 / 11, std::min(m_wideTableWidth, room - 2 * leastChart));
    const int chart = (room - table) / 2;
    m_charts->setSizes({table, chart, room - table - chart});
}

void RunHistoryPanel::fitColumns()
{
    QHeaderView *header = m_table->horizontalHeader();
    const int count = RunHistoryModel::ColumnCount;
    const QFontMetrics metrics(m_table->font());
    // What each column needs on one line and on two (the header always on one): the
    // date and time, the launch ("One-stage / baseline"), a last loss ("1.82812 /
    // (last)") and the configuration may wrap; numbers with their unit do not.
    const int mayWrap[] = {RunHistoryModel::StartedColumn, RunHistoryModel::LaunchColumn,
        RunHistoryModel::ConfigurationColumn, RunHistoryModel::LossColumn};
    std::vector<int> oneLine(count);
    std::vector<int> twoLines(count);
    for (int c = 0; c < count; ++c) {
        const bool wraps = std::find(std::begin(mayWrap), std::end(mayWrap), c) != std::end(mayWrap);
        QAbstractItemDelegate *delegate = m_table->itemDelegateForColumn(c);
        if (!delegate)
            delegate = m_table->itemDelegate();
        const int head = header->sectionSizeHint(c);
        int one = 0;
        int two = 0;
        for (int row = 0; row < m_model->rowCount(); ++row) {
            const QModelIndex index = m_model->index(row, c);
            const QString text = index.data().toString();
            QStyleOptionViewItem option;
            option.initFrom(m_table->viewport());
            option.font = m_table->font();
            // The item's own margins, as the style counts them, and a pixel for rounding.
            const int width = delegate->sizeHint(option, index).width() + 1;
            one = std::max(one, width);
            two = std::max(two, wraps ? width - metrics.horizontalAdvance(text) + twoLineAdvance(metrics, text) : width);
        }
        oneLine[c] = std::max(head, one);
        twoLines[c] = std::max(head, two);
    }
    const int available = m_table->viewport()->width();
    const int least = header->minimumSectionSize();
    const int whole[] = {RunHistoryModel::StartedColumn, RunHistoryModel::LaunchColumn, RunHistoryModel::OutcomeColumn,
        RunHistoryModel::TimeColumn, RunHistoryModel::PeakColumn, RunHistoryModel::LossColumn};
    const int longOnes[] = {RunHistoryModel::ConfigurationColumn, RunHistoryModel::OutputColumn};
    auto sum = [&whole](const std::vector<int> &widths) {
        int total = 0;
        for (int c : whole)
            total += widths[c];
        return total;
    };
    // Never so narrow that those leave the view, even on two lines (the panel scrolls
    // sideways in a dock narrower still).
    const int chrome = 2 * m_table->frameWidth()
        + m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_table);
    const int needed = sum(twoLines) + 2 * least + chrome;
    if (m_table->minimumWidth() != needed)
        m_table->setMinimumWidth(needed);
    // One line while the two long columns keep a useful width beside them (a dozen
    // characters each), else two.
    const int useful = 2 * std::max(least, std::min(12 * metrics.horizontalAdvance(QLatin1Char('x')),
                                               oneLine[longOnes[0]]));
    const bool twoLineRows = sum(oneLine) + useful > available;
    // What the tables would like beside the charts: their rows on one line.
    const QMargins margins = m_tables->parentWidget()->layout()->contentsMargins();
    const int wide = sum(oneLine) + useful + chrome + margins.left() + margins.right();
    if (wide != m_wideTableWidth) {
        m_wideTableWidth = wide;
        sizeCharts();
    }
    std::vector<int> width = twoLineRows ? twoLines : oneLine;
    // The configuration and the output folder share what is left: half each, or what
    // one does not need to the other; room over goes to the output, so that the table
    // ends at the view's edge.
    const int left = std::max(2 * least, available - sum(width));
    const int config = std::min(oneLine[longOnes[0]], std::max(left / 2, left - oneLine[longOnes[1]]));
    width[longOnes[0]] = std::max(least, config);
    width[longOnes[1]] = std::max(least, left - width[longOnes[0]]);
    if (m_table->wordWrap() != twoLineRows) {
        m_table->setWordWrap(twoLineRows);
        m_table->verticalHeader()->setDefaultSectionSize(
            (twoLineRows ? metrics.lineSpacing() + metrics.height() : metrics.height()) + 6);
    }
    for (int c = 0; c < count; ++c)
        header->resizeSection(c, width[c]);
}

void RunHistoryPanel::historyChanged()
{
    m_status->setText(m_history->saveError());
    bool baseline = false;
    bool split = false;
    for (const auto &run : m_history->runs()) {
        baseline = baseline || (run->kind() == RunKind::Baseline && finished(*run));
        split = split || (isSplit(*run) && finished(*run));
    }
    m_pair->setEnabled(baseline && split);
    // A comparison of a run that is gone is over.
    if ((m_comparison->runA() && m_history->indexOf(m_comparison->runA()->id()) < 0)
        || (m_comparison->runB() && m_history->indexOf(m_comparison->runB()->id()) < 0))
        clearComparison();
    selectionChanged();
}

void RunHistoryPanel::selectionChanged()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    m_remove->setEnabled(!rows.isEmpty());
    m_open->setEnabled(rows.size() == 1);
    // What is shown follows the selection: nothing, one run's curves, or the two compared.
    if (rows.size() == 2) {
        // Rows are newest first: the lower row is the older run, A.
        const int older = std::max(rows[0].row(), rows[1].row());
        const int newer = std::min(rows[0].row(), rows[1].row());
        compare(m_model->index(older, 0).data(RunHistoryModel::IdRole).toString(),
            m_model->index(newer, 0).data(RunHistoryModel::IdRole).toString());
    } else if (rows.size() == 1) {
        showRun(rows.front().data(RunHistoryModel::IdRole).toString());
    } else if (rows.size() > 2 && rows.size() <= kMaxOverlaidRuns) {
        // Oldest first, as A and B are: A, B, C, ...
        QList<int> order;
        for (const QModelIndex &row : rows)
            order << row.row();
        std::sort(order.begin(), order.end(), std::greater<int>());
        QStringList ids;
        for (const int row : order)
            ids << m_model->index(row, 0).data(RunHistoryModel::IdRole).toString();
        overlay(ids);
    } else {
        clearComparison();
        if (rows.size() > kMaxOverlaidRuns)
            m_summary->setText(tr("%1 runs selected: the charts overlay up to %2; two are compared in the table.")
                                   .arg(rows.size())
                                   .arg(kMaxOverlaidRuns));
    }
}

bool RunHistoryPanel::overlay(const QStringList &ids)
{
    m_comparison->setRuns(nullptr, nullptr);
    m_loss->clearRuns();
    m_memory->clearRuns();
    QStringList lines;
    for (int i = 0; i < ids.size(); ++i) {
        const int index = m_history->indexOf(ids[i]);
        if (index < 0)
            continue;
        const auto run = m_history->run(index);
        const QString letter = QString(QChar(u'A' + i));
        m_loss->addRun(run, letter, comparisonColor(i));
        m_memory->addRun(run, letter, comparisonColor(i), false);
        lines << QStringLiteral("<b>%1</b> %2 · %3 · %4")
                     .arg(letter, runKindTitle(run->kind()).toHtmlEscaped(),
                         tr("%1 · %2").arg(run->config().label(), run->config().numbersLabel()).toHtmlEscaped(),
                         run->summary().toHtmlEscaped());
    }
    m_loss->refresh();
    m_memory->refresh();
    m_summary->setText(lines.join(QStringLiteral("<br>"))
        + QStringLiteral("<br>") + tr("Overlaid in the charts; select two to compare them in the table.").toHtmlEscaped());
    return m_loss->runCount() == ids.size();
}

void RunHistoryPanel::selectIds(const QStringList &ids)
{
    // Shown as a whole once selected (not row by row), and not taken for the user's choice.
    m_selecting = true;
    QItemSelection selection;
    for (const QString &id : ids) {
        const int index = m_history->indexOf(id);
        if (index < 0)
            continue;
        const int row = m_model->rowOf(index);
        selection.select(m_model->index(row, 0), m_model->index(row, RunHistoryModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!ids.isEmpty() && !selection.isEmpty())
        m_table->scrollTo(selection.indexes().front());
    selectionChanged();
    m_selecting = false;
}

bool RunHistoryPanel::showRun(const QString &id)
{
    const int index = m_history->indexOf(id);
    if (index < 0)
        return false;
    const auto run = m_history->run(index);
    m_comparison->setRuns(nullptr, nullptr);
    m_loss->clearRuns();
    m_memory->clearRuns();
    m_loss->addRun(run, runKindTitle(run->kind()), comparisonColor(0));
    m_memory->addRun(run, QString(), comparisonColor(0), false); // its lines say which stage
    m_loss->refresh();
    m_memory->refresh();
    m_summary->setText(QStringLiteral("<b>%1</b> · %2 · %3<br>%4")
                           .arg(runKindTitle(run->kind()).toHtmlEscaped(),
                               tr("%1 · %2").arg(run->config().label(), run->config().numbersLabel()).toHtmlEscaped(),
                               run->summary().toHtmlEscaped(),
                               tr("Select a second run to compare them.").toHtmlEscaped()));
    return true;
}

bool RunHistoryPanel::compare(const QString &idA, const QString &idB)
{
    const int a = m_history->indexOf(idA);
    const int b = m_history->indexOf(idB);
    if (a < 0 || b < 0 || a == b)
        return false;
    const auto runA = m_history->run(a);
    const auto runB = m_history->run(b);
    m_comparison->setRuns(runA, runB);
    // Short legends: the table and the summary say what A and B are.
    m_loss->clearRuns();
    m_memory->clearRuns();
    m_loss->addRun(runA, QStringLiteral("A"), comparisonColor(0));
    m_loss->addRun(runB, QStringLiteral("B"), comparisonColor(1));
    m_memory->addRun(runA, QStringLiteral("A"), comparisonColor(0), false);
    m_memory->addRun(runB, QStringLiteral("B"), comparisonColor(1), false);
    // Two runs trained alike (the usual pair) name their configuration once: in a
    // narrow dock the line took two lines of the comparison's room.
    const QString configA = tr("%1 · %2").arg(runA->config().label(), runA->config().numbersLabel());
    const QString configB = tr("%1 · %2").arg(runB->config().label(), runB->config().numbersLabel());
    if (configA == configB)
        m_summary->setText(QStringLiteral("<b>A</b> %1 vs <b>B</b> %2, both %3<br>%4")
                               .arg(runKindTitle(runA->kind()).toHtmlEscaped(), runKindTitle(runB->kind()).toHtmlEscaped(),
                                   configA.toHtmlEscaped(), m_comparison->summary().toHtmlEscaped()));
    else
        m_summary->setText(QStringLiteral("<b>A</b> %1 · %2 &nbsp; <b>B</b> %3 · %4<br>%5")
                               .arg(runKindTitle(runA->kind()).toHtmlEscaped(), configA.toHtmlEscaped(),
                                   runKindTitle(runB->kind()).toHtmlEscaped(), configB.toHtmlEscaped(),
                                   m_comparison->summary().toHtmlEscaped()));
    return true;
}

bool RunHistoryPanel::compareBaselineAndSplit(const QString &runId)
{
    const auto &runs = m_history->runs();
    auto comparable = [](const RunSession &run) {
        return finished(run) && (run.kind() == RunKind::Baseline || isSplit(run));
    };
    // The newest run of the other kind that trained the same way, or null.
    auto partnerOf = [&runs, &comparable](const RunSession &run) -> const RunSession * {
        const bool baseline = run.kind() == RunKind::Baseline;
        for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
            const RunSession &other = **it;
            if (comparable(other) && (other.kind() == RunKind::Baseline) != baseline
                && trainingDifferences(run.config(), other.config()).isEmpty())
                return &other;
        }
        return nullptr;
    };
    const RunSession *anchor = nullptr;
    const RunSession *partner = nullptr;
    if (!runId.isEmpty()) {
        const int index = m_history->indexOf(runId);
        if (index >= 0 && comparable(*m_history->run(index))) {
            anchor = m_history->run(index).get();
            partner = partnerOf(*anchor);
        }
    } else {
        for (auto it = runs.rbegin(); it != runs.rend() && !partner; ++it) {
            if (comparable(**it)) {
                anchor = it->get();
                partner = partnerOf(*anchor);
            }
        }
    }
    if (!anchor || !partner) {
        // Say plainly why: one kind is missing, or no pair trained the same way.
        const RunSession *newest[2] = {nullptr, nullptr}; // baseline, split
        for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
            const int i = (*it)->kind() == RunKind::Baseline ? 0 : 1;
            if (comparable(**it) && !newest[i])
                newest[i] = it->get();
        }
        if (anchor) // the launch asked about stands for its kind
            newest[anchor->kind() == RunKind::Baseline ? 0 : 1] = anchor;
        QString why;
        if (!newest[0] || !newest[1]) {
            why = tr("No comparison: the history has no finished %1.")
                      .arg(!newest[0] ? tr("one-stage baseline") : tr("split launch (both stages or stage two)"));
        } else {
            auto name = [](const RunSession *run) {
                return tr("%1 of %2").arg(runKindTitle(run->kind()),
                    QLocale().toString(run->started(), QLocale::ShortFormat));
            };
            why = tr("No comparison: no finished baseline and split launch were trained with the same configuration "
                     "(%1 and %2 differ in %3).")
                      .arg(name(newest[0]), name(newest[1]),
                          trainingDifferences(newest[0]->config(), newest[1]->config()).join(QStringLiteral("; ")));
        }
        // Nothing is compared, and nothing stays selected as if it were.
        selectIds({});
        clearComparison();
        m_pairingProblem = why;
        m_summary->setText(why.toHtmlEscaped());
        return false;
    }
    m_pairingProblem.clear();
    // A is the baseline, B the split; the pair is selected, so that the table says what is compared.
    const QString baseline = anchor->kind() == RunKind::Baseline ? anchor->id() : partner->id();
    const QString split = anchor->kind() == RunKind::Baseline ? partner->id() : anchor->id();
    selectIds({baseline, split});
    return compare(baseline, split);
}

bool RunHistoryPanel::showFinishedLaunch(const QString &runId)
{
    if (m_chosenByHand && m_comparison->runA() && m_comparison->runB())
        return false; // the user's own comparison stays
    const int index = m_history->indexOf(runId);
    if (index < 0)
        return false;
    const auto run = m_history->run(index);
    const bool pairable = finished(*run) && (run->kind() == RunKind::Baseline || isSplit(*run));
    if (pairable && compareBaselineAndSplit(runId))
        return true;
    selectIds({runId});
    return false;
}

void RunHistoryPanel::clearComparison()
{
    m_comparison->setRuns(nullptr, nullptr);
    m_loss->clearRuns();
    m_memory->clearRuns();
    m_summary->setText(m_history->count() < 2
            ? tr("Run the one-stage baseline and both stages with the same configuration, then compare them here.")
            : tr("Select two runs to compare them, or press <i>Baseline vs split</i>."));
}

void RunHistoryPanel::removeSelected()
{
    QList<int> indices;
    for (const QModelIndex &row : m_table->selectionModel()->selectedRows())
        indices << m_model->historyIndex(row.row());
    if (indices.isEmpty())
        return;
    // Deleting is not undone: ask, with No as the default.
    const QString what = indices.size() == 1
        ? tr("the run of %1 (%2)")
              .arg(QLocale().toString(m_history->run(indices.front())->started(), QLocale::ShortFormat),
                  runKindTitle(m_history->run(indices.front())->kind()))
        : tr("these %1 runs").arg(indices.size());
    if (QMessageBox::question(this, tr("Delete from the run history"),
            countText(static_cast<qint64>(indices.size()),
                tr("Delete %1 from the run history? Its record and curves go; its output folder stays on disk."),
                tr("Delete %1 from the run history? Their records and curves go; their output folders stay on disk."))
                .arg(what),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
        != QMessageBox::Yes)
        return;
    std::sort(indices.begin(), indices.end(), std::greater<int>());
    for (int index : indices)
        m_history->remove(index);
}

void RunHistoryPanel::openOutput()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 1)
        return;
    QString path = m_model->index(rows.front().row(), RunHistoryModel::OutputColumn).data().toString();
    if (QFileInfo(path).isFile())
        path = QFileInfo(path).absolutePath();
    if (!QFileInfo::exists(path)) {
        QMessageBox::warning(this, tr("Open output folder"),
            tr("%1 does not exist any more (it was moved or deleted).").arg(QDir::toNativeSeparators(path)));
        return;
    }
    if (QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        return;
    // No file manager to hand it to: say where it is, and offer the path.
    QMessageBox box(QMessageBox::Information, tr("Open output folder"),
        tr("No program to open folders with was found (xdg-open). The output folder is:\n\n%1")
            .arg(QDir::toNativeSeparators(path)),
        QMessageBox::Close, this);
    box.setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPushButton *copy = box.addButton(tr("&Copy path"), QMessageBox::ActionRole);
    box.exec();
    if (box.clickedButton() == copy)
        QApplication::clipboard()->setText(QDir::toNativeSeparators(path));
}

} // namespace splitscope
