// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;

namespace splitscope {

class LossChartView;
class MemoryChartView;
class RunComparisonModel;
class RunHistory;
class RunHistoryModel;
class RunSession;

// The run history and the comparison of two runs. The table lists every launch
// (newest first); selecting one row shows its loss and memory curves, selecting two
// compares them (the selection and what is shown always agree): a table of time (as waited,
// per stage, per epoch), training speed, peak memory (whole launch and while
// training), final loss and steps with B relative to A, a one-line summary, and
// both runs' loss and memory charts overlaid. The older run is A. "Baseline vs
// split" picks a finished baseline and a finished split launch whose training
// configurations match (trainingDifferences: equal settings train equal weights),
// the newest such pair; when there is none it says so, and how the newest two
// differ: the promise of split training with the user's own numbers.
//
// In a narrow dock (the bottom dock of a 1280 or 1600 pixel window) the panel is
// compact: the table and the comparison take the whole width, and the two charts
// become tabs beside the comparison ("Comparison", "Loss", "Memory"): squeezed beside
// the tables they were a hundred pixels wide and cut the tables' columns to "…".
class RunHistoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunHistoryPanel(RunHistory *history, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    RunHistoryModel *historyModel() const { return m_model; }
    RunComparisonModel *comparison() const { return m_comparison; }
    LossChartView *lossChart() const { return m_loss; }
    MemoryChartView *memoryChart() const { return m_memory; }
    QLabel *summaryLabel() const { return m_summary; }
    // Why the last compareBaselineAndSplit() found no pair ("" when it found one).
    QString pairingProblem() const { return m_pairingProblem; }

    static constexpr int kMaxOverlaidRuns = 8; // overlay()

public Q_SLOTS:
    // Compares two runs of the history by id; false when either is missing.
    bool compare(const QString &idA, const QString &idB);
    // Overlays the loss and memory curves of 3 to kMaxOverlaidRuns runs (by id, named
    // A, B, C, ... in that order, each in its colour); false when one is missing. What
    // three or more selected rows show.
    bool overlay(const QStringList &ids);
    // A finished one-stage baseline against a finished split launch (both stages,
    // or stage two) with the same training configuration. With `runId` (a launch
    // that just ended), that launch and its newest match; without, the newest run
    // that has a match, and its newest match. False, with the reason in the summary
    // line, when there is no such pair.
    bool compareBaselineAndSplit(const QString &runId = QString());
    void clearComparison();
    // After a launch ended: the pair of compareBaselineAndSplit(runId), else that
    // launch alone, selected and shown; unless the user chose a comparison by hand,
    // which stays. True when the pair is shown.
    bool showFinishedLaunch(const QString &runId);
    // Whether the two runs compared now were selected by the user (not by a button).
    bool comparisonChosenByHand() const { return m_chosenByHand; }
    // Shows one run's curves (the selection is not changed).
    bool showRun(const QString &id);
    // Asks, default No, then removes the selected runs (also the Delete key).
    void removeSelected();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    // Which launch (started, launch) and how it went (outcome, time, peak memory,
    // final loss) always whole: on one line each where the table is wide enough,
    // else in rows of two lines; configuration and output folder share the rest,
    // elided (their tooltips have the whole text).
    void fitColumns();
    // The charts beside the tables (a wide panel) or as tabs beside the comparison.
    void arrange();
    // In the wide arrangement, until the user moves the splitter: the table as wide as
    // its one-line rows need, where the charts keep a readable width.
    void sizeCharts();
    void selectionChanged();
    void selectIds(const QStringList &ids);
    void openOutput();
    void historyChanged();

    RunHistory *m_history;
    RunHistoryModel *m_model;
    RunComparisonModel *m_comparison;
    QTableView *m_table;
    QTableView *m_comparisonTable;
    QSplitter *m_charts = nullptr; // the tables, the loss chart and the memory chart
    QSplitter *m_tables = nullptr; // the history over the comparison
    QTabWidget *m_details;
    QLabel *m_summary;
    QLabel *m_status;
    QPushButton *m_pair;
    QPushButton *m_remove;
    QPushButton *m_open;
    LossChartView *m_loss;
    MemoryChartView *m_memory;
    QString m_pairingProblem;
    bool m_selecting = false;    // the panel selects rows itself
    bool m_chosenByHand = false; // the two rows compared were selected by the user
    bool m_compact = false;           // the charts are tabs beside the comparison
    bool m_arranged = false;          // arrange() has placed the charts once
    bool m_chartsSizedByHand = false; // the user moved the splitter of the charts
    int m_wideTableWidth = 0;         // what the tables want beside the charts
};

} // namespace splitscope
