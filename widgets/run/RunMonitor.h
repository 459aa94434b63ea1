// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QWidget>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QSplitter;

namespace splitscope {

class LossChartView;
class MemoryChartView;
class RunController;
class RunHistory;
class RunSession;

// The live view of a launch: a progress strip (stage, epoch, step or sample, ETA,
// samples per second, elapsed time, cache bytes written and read, the unit
// running now, resident memory and the loaded models' bytes), the loss chart
// (raw and smoothed), the memory chart (RSS over time with each loaded model's
// bytes), and the log (the commands, the worker's standard error, how each stage
// ended). It follows the controller's session and refreshes on its coalesced
// updated() signal, so a fast worker costs the GUI ten refreshes a second.
class RunMonitor : public QWidget {
    Q_OBJECT
public:
    explicit RunMonitor(RunController *controller, QWidget *parent = nullptr);

    // Before the first launch of this session (after a restart), the monitor shows
    // the newest launch of `history`: its curves, how it ended and its log.
    void setHistory(RunHistory *history);
    // The launch shown: the controller's, else the history's newest; null when none.
    std::shared_ptr<const RunSession> shownSession() const;

    LossChartView *lossChart() const { return m_loss; }
    MemoryChartView *memoryChart() const { return m_memory; }
    QPlainTextEdit *logView() const { return m_log; }
    QProgressBar *progressBar() const { return m_bar; }
    QLabel *titleLabel() const { return m_title; }
    QLabel *detailsLabel() const { return m_details; }
    QLabel *stagesLabel() const { return m_stages; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void sizeColumns();
    void launchStarted();
    void refresh();
    void showSession(const std::shared_ptr<const RunSession> &session);
    void setBarText(const QString &text);

    RunController *m_controller;
    RunHistory *m_history = nullptr;
    std::shared_ptr<const RunSession> m_charted; // the launch the charts and the log follow
    QLabel *m_title;
    QLabel *m_stages;
    QProgressBar *m_bar;
    QLabel *m_details;
    QPlainTextEdit *m_log;
    LossChartView *m_loss;
    MemoryChartView *m_memory;
    QSplitter *m_columns; // the log, the loss chart and the memory chart
    bool m_columnsSizedByHand = false; // the user moved the splitter
    qint64 m_logShown = 0; // session log lines already in the view
    bool m_followLog = true; // the log scrolls to its end until the user scrolls up
    QElapsedTimer m_chartClock; // since the charts last redrew
};

} // namespace splitscope
