// SPDX-License-Identifier: MIT
#pragma once

#include "ExecutablePipeline.h"
#include "RunConfig.h"
#include "RunSession.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

#include <memory>

namespace splitscope {

// Runs launches: each stage is a child process `splitscope-cli train ... --events
// jsonl` (the engine, with LibTorch, never enters the GUI process), started with
// QProcess and read without blocking. Its JSON Lines events (core/engine/Events.h)
// are folded into the RunSession, its standard error into the session's log and
// the StageRun's stderr tail.
//
// The event loop stays responsive however fast events come: stdout is parsed in
// slices of at most kParseSliceMs, and the views hear about new data through
// updated() at most every kUpdateIntervalMs (coalesced: one signal for any number
// of events), as heaptrack throttles its progress bar.
//
// cancel() sends SIGTERM: the worker finishes the sample or step at hand, keeps its
// work (stage one: finished shards; training: a checkpoint to resume from) and exits
// with status 4. A second cancel() kills it at once. A worker that crashes or is
// killed is reported with its exit status or signal and its last stderr lines; the
// controller is then idle and ready for the next launch.
//
// Lives on the GUI thread; one launch at a time.
class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Cancelling };

    static constexpr int kUpdateIntervalMs = 100; // views refresh at most ten times a second
    static constexpr int kParseSliceMs = 8;       // the longest stretch of parsing before the event loop runs
    static constexpr int kStderrTailLines = 12;   // kept for the error report
    static constexpr int kMemorySampleMs = 250;   // the GUI samples the worker's RSS between its memory events

    explicit RunController(QObject *parent = nullptr);
    ~RunController() override;

    // $SPLITSCOPE_CLI when set, else splitscope-cli beside this program (the build
    // and install layouts both put it there), else the one on PATH.
    static QString defaultWorkerProgram();
    QString workerProgram() const { return m_program; }
    void setWorkerProgram(const QString &program) { m_program = program; }

    // Starts `kind`. A launch that trains writes into config.runFolder; when that
    // is empty, into a new folder made under the output folder (with
    // settings.newFolderPerLaunch) or the output folder itself; the session's config
    // records it. `resume` continues a cancelled launch in its folder: stage one
    // resumes from its finished shards by itself; training stages get --resume when
    // their folder holds a resume state. False with `error` when a launch is going,
    // the worker program does not exist or the folder cannot be made. (The Run
    // panel validates the configuration first: validateRun().)
    bool start(RunKind kind, const RunConfig &config, const ExecutablePipeline &pipeline, bool resume = false,
        QString *error = nullptr);
    // Continues `launch` (cancelled or crashed) in its folder as the same launch: its
    // finished stages stay, the stage that stopped is reopened (its curves and time go
    // on), the stages after it run. The session keeps the launch's id, start and
    // stages, so that the history replaces the launch's entry when it ends and a
    // launch stays one row however often it was resumed. False with `error` as start().
    bool resume(const RunSession &launch, const ExecutablePipeline &pipeline, QString *error = nullptr);
    // First call: ask the worker to stop and keep its work (SIGTERM); second: kill it.
    void cancel();
    // Blocks until the launch is over or `msecs` passed (closing the window, tests).
    bool waitForIdle(int msecs);

    State state() const { return m_state; }
    bool isRunning() const { return m_state != State::Idle; }
    // The launch running now, or the last one (null before the first).
    std::shared_ptr<RunSession> session() const { return m_session; }
    qint64 workerPid() const;
    // The command line of the stage running now (or last), as a user would type it.
    QString currentCommand() const;

Q_SIGNALS:
    void stateChanged(splitscope::RunController::State state);
    void launchStarted();
    void stageStarted(splitscope::RunStage stage);
    // New data in session(): progress, series, log. Coalesced.
    void updated();
    // The unit the worker runs now changed ("" when none). Coalesced with updated().
    void unitChanged(const QString &unit);
    void stageFinished(splitscope::RunStage stage, splitscope::StageRun::Outcome outcome);
    // session() is over: finished, failed, cancelled or crashed.
    void launchFinished();
    // A training stage saved the LoRA (or weights) of epoch `epoch` (from 0) at `path`.
    void epochCheckpointSaved(const QString &path, int epoch);

private:
    // Whether a launch may start now: none is running and the worker exists; else the reason.
    bool readyToLaunch(QString *error) const;
    void startStage(RunStage stage);
    void readStdout();
    void readStderr();
    void drain();
    void processExited(int exitCode, QProcess::ExitStatus status);
    void processError(QProcess::ProcessError error);
    void finishStage();
    void finishLaunch();
    void sampleMemory();
    void markDirty();
    void flush();
    void setState(State state);
    double launchSeconds() const;

    QString m_program;
    State m_state = State::Idle;
    std::shared_ptr<RunSession> m_session;
    ExecutablePipeline m_pipeline;
    std::vector<RunStage> m_plan;
    std::size_t m_next = 0;
    bool m_resume = false;
    QString m_createdFolder; // the run folder this launch made (removed at its end if still empty)
    bool m_cancelRequested = false;

    QPointer<QProcess> m_process;
    QByteArray m_stdout;
    qsizetype m_stdoutOffset = 0;
    QByteArray m_stderr;
    bool m_stageActive = false; // a stage's process was started and its end not yet handled
    bool m_exited = false;
    int m_exitCode = 0;
    QProcess::ExitStatus m_exitStatus = QProcess::NormalExit;
    QString m_startError;
    bool m_drainScheduled = false;
    int m_badLines = 0;

    QElapsedTimer m_launchClock;
    bool m_launcherRuns = false; // the worker is the launcher of several ranks (--nproc_per_node)
    double m_launchOffset = 0; // a resumed launch: the seconds its earlier processes took
    QElapsedTimer m_stageClock;
    QTimer m_flushTimer;
    QTimer m_memoryTimer;
    QString m_shownUnit;
};

} // namespace splitscope
