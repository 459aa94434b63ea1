// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
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

public Q_SLOTS:
    // Compares two runs of the history by id; false when either is missing.
    bool compare(const QString &idA, const QString &idB);
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

private:
    // Outcome, time, peak memory and final loss always whole; the started date and
    // the launch whole when there is room; configuration and output folder share the
    // rest, elided. Everything shrinks before those four do.
    void fitColumns();
    void selectionChanged();
    void selectIds(const QStringList &ids);
    void openOutput();
    void historyChanged();

    RunHistory *m_history;
    RunHistoryModel *m_model;
    RunComparisonModel *m_comparison;
    QTableView *m_table;
    QTableView *m_comparisonTable;
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
};

} // namespace splitscope
