// SPDX-License-Identifier: MIT
#include "RunHistoryPanel.h"

#include "LossChartView.h"
#include "MemoryChartView.h"
#include "RunComparisonModel.h"
#include "RunCharts.h"
#include "RunFormat.h"
#include "RunHistory.h"
#include "RunHistoryModel.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

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

} // namespace

RunHistoryPanel::RunHistoryPanel(RunHistory *history, QWidget *parent)
    : QWidget(parent), m_history(history), m_model(new RunHistoryModel(history, this)),
      m_comparison(new RunComparisonModel(this)), m_table(new QTableView(this)), m_comparisonTable(new QTableView(this)),
      m_summary(new QLabel(this)), m_status(new QLabel(this)),
      m_pair(new QPushButton(tr("&Baseline vs split"), this)), m_remove(new QPushButton(tr("&Delete"), this)),
      m_open(new QPushButton(tr("&Open output folder"), this)), m_loss(new LossChartView(this)),
      m_memory(new MemoryChartView(this))
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setToolTip(tr("Select two runs to compare them (the older is A)"));

    m_comparisonTable->setModel(m_comparison);
    m_comparisonTable->verticalHeader()->hide();
    m_comparisonTable->setSelectionMode(QAbstractItemView::NoSelection);
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
    auto *tables = new QSplitter(Qt::Vertical, left);
    tables->addWidget(m_table);
    auto *comparisonBox = new QWidget(tables);
    auto *comparisonLayout = new QVBoxLayout(comparisonBox);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->addWidget(m_summary);
    comparisonLayout->addWidget(m_comparisonTable, 1);
    tables->addWidget(comparisonBox);
    tables->setStretchFactor(0, 2);
    tables->setStretchFactor(1, 3);
    leftLayout->addWidget(tables, 1);
    leftLayout->addWidget(m_status);

    layOutWithCharts(this, left, m_loss, m_memory, 5);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunHistoryPanel::selectionChanged);
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
    if (rows.size() == 2) {
        // Rows are newest first: the lower row is the older run, A.
        const int older = std::max(rows[0].row(), rows[1].row());
        const int newer = std::min(rows[0].row(), rows[1].row());
        compare(m_model->index(older, 0).data(RunHistoryModel::IdRole).toString(),
            m_model->index(newer, 0).data(RunHistoryModel::IdRole).toString());
    }
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
    m_summary->setText(QStringLiteral("<b>A</b> %1 · %2 &nbsp; <b>B</b> %3 · %4<br>%5")
                           .arg(runKindTitle(runA->kind()).toHtmlEscaped(),
                               tr("%1 · %2").arg(runA->config().label(), runA->config().numbersLabel()).toHtmlEscaped(),
                               runKindTitle(runB->kind()).toHtmlEscaped(),
                               tr("%1 · %2").arg(runB->config().label(), runB->config().numbersLabel()).toHtmlEscaped(),
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
        clearComparison();
        m_pairingProblem = why;
        m_summary->setText(why.toHtmlEscaped());
        return false;
    }
    m_pairingProblem.clear();
    // A is the baseline, B the split.
    const QString baseline = anchor->kind() == RunKind::Baseline ? anchor->id() : partner->id();
    const QString split = anchor->kind() == RunKind::Baseline ? partner->id() : anchor->id();
    // Show the pair selected, so that the table says what is compared.
    m_table->selectionModel()->blockSignals(true);
    m_table->clearSelection();
    for (const QString &id : {baseline, split}) {
        const int row = m_model->rowOf(m_history->indexOf(id));
        m_table->selectionModel()->select(m_model->index(row, 0),
            QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    m_table->selectionModel()->blockSignals(false);
    m_remove->setEnabled(true);
    m_open->setEnabled(false);
    return compare(baseline, split);
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
    QDesktopServices::openUrl(QUrl::fromLocalFile(path));
}

} // namespace splitscope
