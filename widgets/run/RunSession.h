// SPDX-License-Identifier: MIT
#pragma once

#include "RunConfig.h"
#include "StageRun.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <deque>
#include <memory>
#include <vector>

namespace splitscope {

// One launch from the Run panel (a stage, both stages in a row, or the baseline):
// its configuration, its stages' StageRun records as they start, a bounded log,
// and summaries for the history and the comparison. The RunController fills the
// session that is running; finished sessions are immutable history entries.
class RunSession {
public:
    struct LogLine {
        enum class Level { Command, Info, Warning, Error, Note };
        double time = 0; // seconds since the launch began
        Level level = Level::Info;
        QString text;
    };

    static constexpr int kMaxLogLines = 5000; // older lines are dropped from the view's source
    static constexpr int kHistoryPoints = 1500; // points per series kept in the history file

    RunSession(RunKind kind, RunConfig config, bool resumed = false);
    // The same launch to be continued by Resume: its id, start, configuration, stages
    // (series included) and log, marked resumed. The controller reopens the stage that
    // did not finish, so that its curves go on where they stopped, and the history
    // replaces the launch's entry with it when it ends.
    std::shared_ptr<RunSession> continuation() const;

    QString id() const { return m_id; }
    QDateTime started() const { return m_started; }
    RunKind kind() const { return m_kind; }
    const RunConfig &config() const { return m_config; }
    bool resumed() const { return m_resumed; }

    const std::vector<StageRun> &stages() const { return m_stages; }
    std::vector<StageRun> &stages() { return m_stages; }
    StageRun &addStage(RunStage stage);
    StageRun *current() { return m_stages.empty() ? nullptr : &m_stages.back(); }
    const StageRun *current() const { return m_stages.empty() ? nullptr : &m_stages.back(); }
    const StageRun *stage(RunStage stage) const; // null when it did not run
    // The stage that trained (stage two or the baseline), null for a stage-one launch.
    const StageRun *trainingStage() const;

    // --- how it went ---
    // True from the start of the launch (before its first stage's process) to its end.
    bool isRunning() const;
    // The worst outcome of its stages (a launch that stopped early is not Finished;
    // one without a stage yet is Running).
    StageRun::Outcome outcome() const;
    void setIncomplete(bool incomplete) { m_incomplete = incomplete; } // later stages never started
    // Seconds the user waited: every process from start to exit.
    double totalSeconds() const;
    qint64 peakMemory() const;
    double finalLoss() const;
    QString summary() const; // "finished in 0:42, peak 612 MiB, final loss 0.123"

    // --- the log ---
    void addLog(LogLine::Level level, const QString &text, double time);
    const std::deque<LogLine> &log() const { return m_log; }
    qint64 logTotal() const { return m_logTotal; } // lines ever added (the view appends the new ones)

    // --- history ---
    QJsonObject toJson() const;
    // Null with `error` when `json` is not a session.
    static std::shared_ptr<RunSession> fromJson(const QJsonObject &json, QString *error = nullptr);

private:
    QString m_id;
    QDateTime m_started;
    RunKind m_kind;
    RunConfig m_config;
    bool m_resumed;
    bool m_incomplete = false;
    std::vector<StageRun> m_stages;
    std::deque<LogLine> m_log;
    qint64 m_logTotal = 0;
};

} // namespace splitscope
