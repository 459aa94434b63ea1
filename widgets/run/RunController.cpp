// SPDX-License-Identifier: MIT
#include "RunController.h"

#include "RunEvent.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <cmath>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace splitscope {

namespace {

constexpr const char *kWorkerName = "splitscope-cli";
constexpr const char *kWorkerEnv = "SPLITSCOPE_CLI";
constexpr int kExitCancelled = 4; // Events.h: cancelled by SIGINT/SIGTERM, finished work kept
constexpr int kKillWaitMs = 3000; // how long a closing controller lets a worker stop before killing it

QString tr(const char *text)
{
    return QCoreApplication::translate("RunController", text);
}

QString signalName(int signal)
{
    switch (signal) {
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    case SIGINT:
        return QStringLiteral("SIGINT");
    case SIGSEGV:
        return QStringLiteral("SIGSEGV");
    case SIGABRT:
        return QStringLiteral("SIGABRT");
    case SIGBUS:
        return QStringLiteral("SIGBUS");
    default:
        break;
    }
    return QString::fromLocal8Bit(strsignal(signal));
}

// What an exit status means for a stage (Events.h lists them).
QString exitMeaning(int status)
{
    switch (status) {
    case 1:
        return tr("it failed");
    case 2:
        return tr("bad flags or inputs, or a cache that does not match");
    case 3:
        return tr("the split has hazards; refused");
    default:
        break;
    }
    return tr("unexpected exit status");
}

} // namespace

RunController::RunController(QObject *parent) : QObject(parent), m_program(defaultWorkerProgram())
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kUpdateIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunController::flush);
    m_memoryTimer.setInterval(kMemorySampleMs);
    connect(&m_memoryTimer, &QTimer::timeout, this, &RunController::sampleMemory);
}

RunController::~RunController()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        // Closing mid-run: give the worker the chance to keep its work, then insist.
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(kKillWaitMs)) {
            m_process->kill();
            m_process->waitForFinished(kKillWaitMs);
        }
    }
}

QString RunController::defaultWorkerProgram()
{
    const QString fromEnvironment = qEnvironmentVariable(kWorkerEnv);
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QLatin1String(kWorkerName));
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QLatin1String(kWorkerName));
    return onPath.isEmpty() ? beside : onPath;
}

bool RunController::readyToLaunch(QString *error) const
{
    if (isRunning()) {
        if (error)
            *error = tr("A run is going: cancel it first.");
        return false;
    }
    if (!QFileInfo(m_program).isExecutable()) {
        if (error)
            *error = tr("The worker program %1 is missing or not executable (it is built as splitscope-cli next to "
                        "splitscope; set SPLITSCOPE_CLI to use another).")
                         .arg(QDir::toNativeSeparators(m_program));
        return false;
    }
    return true;
}

bool RunController::start(RunKind kind, const RunConfig &config, const ExecutablePipeline &pipeline, bool resume,
    QString *error)
{
    if (!readyToLaunch(error))
        return false;
    RunConfig launched = config;
    QString createdFolder;
    if (!resume && kind != RunKind::StageOne && launched.runFolder.isEmpty()) {
        // Each launch gets its own output folder: a later run never overwrites or mixes
        // with an earlier one's checkpoints, loss.csv and resume state. A resumed launch
        // continues in the folder its config records.
        const RunSettings &s = launched.settings;
        if (s.newFolderPerLaunch) {
            QString why;
            launched.runFolder = createRunFolder(s.outputPath, kind, QDateTime::currentDateTime(), &why);
            if (launched.runFolder.isEmpty()) {
                if (error)
                    *error = why;
                return false;
            }
            createdFolder = launched.runFolder;
        } else {
            launched.runFolder = s.outputPath;
        }
    }
    m_session = std::make_shared<RunSession>(kind, launched, resume);
    m_createdFolder = createdFolder;
    m_pipeline = pipeline;
    m_plan = stagesOf(kind);
    m_next = 0;
    m_resume = resume;
    m_cancelRequested = false;
    m_shownUnit.clear();
    m_launchOffset = 0;
    m_launchClock.start();
    setState(State::Running);
    Q_EMIT launchStarted();
    startStage(m_plan[m_next++]);
    return true;
}

bool RunController::resume(const RunSession &launch, const ExecutablePipeline &pipeline, QString *error)
{
    if (!readyToLaunch(error))
        return false;
    // The stages still to do: the one that stopped and those after it.
    std::vector<RunStage> plan;
    for (RunStage stage : stagesOf(launch.kind())) {
        const StageRun *run = launch.stage(stage);
        if (!run || run->outcome != StageRun::Outcome::Finished)
            plan.push_back(stage);
    }
    if (plan.empty()) {
        if (error)
            *error = tr("That launch finished: there is nothing to resume.");
        return false;
    }
    double offset = 0;
    for (const StageRun &run : launch.stages())
        offset = std::max(offset, run.startOffset + std::max(0.0, run.processSeconds));
    m_session = launch.continuation();
    m_createdFolder.clear();
    m_pipeline = pipeline;
    m_plan = plan;
    m_next = 0;
    m_resume = true;
    m_cancelRequested = false;
    m_shownUnit.clear();
    m_launchOffset = offset;
    m_launchClock.start();
    setState(State::Running);
    Q_EMIT launchStarted();
    startStage(m_plan[m_next++]);
    return true;
}

void RunController::startStage(RunStage stage)
{
    const RunConfig &config = m_session->config();
    const QString output = stageOutputPath(config, stage);
    // --resume needs a state to resume from: a stage cancelled before its first
    // epoch ended has none, and starts over.
    const bool resume = m_resume
        && QFileInfo::exists(QDir(output).filePath(QStringLiteral("resume.safetensors")));
    const QStringList arguments = trainArguments(config, m_pipeline, stage, resume);

    // A resumed launch goes on in the stage that stopped (the last one it ran).
    StageRun *last = m_session->current();
    const bool reopen = m_resume && last && last->stage == stage && !last->isRunning()
        && last->outcome != StageRun::Outcome::Finished;
    if (reopen)
        last->reopen();
    StageRun &run = reopen ? *last : m_session->addStage(stage);
    run.command = shellCommand(m_program, arguments);
    m_launcherRuns = arguments.contains(QStringLiteral("--nproc_per_node"));
    if (!reopen)
        run.startOffset = launchSeconds();
    if (reopen)
        m_session->addLog(RunSession::LogLine::Level::Note, tr("Resumed."), launchSeconds());
    m_session->addLog(RunSession::LogLine::Level::Command, QStringLiteral("$ ") + run.command, launchSeconds());

    m_stdout.clear();
    m_stdoutOffset = 0;
    m_stderr.clear();
    m_exited = false;
    m_exitCode = 0;
    m_exitStatus = QProcess::NormalExit;
    m_startError.clear();
    m_badLines = 0;
    m_stageActive = true;

    auto *process = new QProcess(this);
    m_process = process;
    process->setProgram(m_program);
    process->setArguments(arguments + QStringList{QStringLiteral("--events"), QStringLiteral("jsonl")});
    connect(process, &QProcess::readyReadStandardOutput, this, &RunController::readStdout);
    connect(process, &QProcess::readyReadStandardError, this, &RunController::readStderr);
    connect(process, &QProcess::finished, this, &RunController::processExited);
    connect(process, &QProcess::errorOccurred, this, &RunController::processError);
    m_stageClock.start();
    Q_EMIT stageStarted(stage);
    process->start();
    m_memoryTimer.start();
    markDirty();
}

void RunController::readStdout()
{
    if (!m_process)
        return;
    m_stdout += m_process->readAllStandardOutput();
    drain();
}

void RunController::readStderr()
{
    if (!m_process)
        return;
    m_stderr += m_process->readAllStandardError();
    StageRun *run = m_session->current();
    qsizetype start = 0;
    for (qsizetype end = m_stderr.indexOf('\n'); end >= 0; end = m_stderr.indexOf('\n', start)) {
        const QString line = QString::fromUtf8(m_stderr.constData() + start, end - start).trimmed();
        start = end + 1;
        if (line.isEmpty())
            continue;
        run->stderrTail.append(line);
        if (run->stderrTail.size() > kStderrTailLines)
            run->stderrTail.removeFirst();
        const bool bad = line.contains(QLatin1String("error"), Qt::CaseInsensitive)
            || line.contains(QLatin1String("failed"), Qt::CaseInsensitive);
        const bool warn = line.contains(QLatin1String("warning"), Qt::CaseInsensitive);
        m_session->addLog(bad    ? RunSession::LogLine::Level::Error
                : warn ? RunSession::LogLine::Level::Warning
                       : RunSession::LogLine::Level::Info,
            line, launchSeconds());
    }
    m_stderr.remove(0, start);
    markDirty();
}

void RunController::drain()
{
    m_drainScheduled = false;
    StageRun *run = m_session ? m_session->current() : nullptr;
    if (!run)
        return;
    QElapsedTimer slice;
    slice.start();
    bool more = false;
    qsizetype end = m_stdout.indexOf('\n', m_stdoutOffset);
    while (end >= 0) {
        const QByteArrayView line(m_stdout.constData() + m_stdoutOffset, end - m_stdoutOffset);
        m_stdoutOffset = end + 1;
        if (!line.trimmed().isEmpty()) {
            QString error;
            if (const auto event = RunEvent::parse(line, &error)) {
                if (!std::isfinite(run->clockOffset))
                    run->clockOffset = launchSeconds() - event->time;
                run->apply(*event);
                if (event->kind == RunEvent::Kind::Checkpoint && event->text("kind") == QLatin1String("epoch")
                    && event->integer("rank", 0) == 0)
                    Q_EMIT epochCheckpointSaved(event->text("path"), static_cast<int>(event->integer("epoch")));
            } else if (++m_badLines <= 3) {
                // The worker writes only events on stdout; anything else is shown, not fatal.
                m_session->addLog(RunSession::LogLine::Level::Warning,
                    tr("worker stdout: %1: %2").arg(error, QString::fromUtf8(line.first(std::min<qsizetype>(line.size(), 200)))), launchSeconds());
            }
        }
        end = m_stdout.indexOf('\n', m_stdoutOffset);
        if (end >= 0 && slice.elapsed() >= kParseSliceMs) {
            more = true;
            break;
        }
    }
    // Keep the unparsed tail only.
    if (m_stdoutOffset > 0 && (m_stdoutOffset > (1 << 16) || !more)) {
        m_stdout.remove(0, m_stdoutOffset);
        m_stdoutOffset = 0;
    }
    markDirty();
    if (more) {
        // Let the event loop run (input, paint, timers) before the next slice.
        m_drainScheduled = true;
        QTimer::singleShot(0, this, &RunController::drain);
        return;
    }
    if (m_exited)
        finishStage();
}

void RunController::processExited(int exitCode, QProcess::ExitStatus status)
{
    if (sender() != m_process)
        return;
    // Everything the worker wrote is in the pipes now.
    m_stdout += m_process->readAllStandardOutput();
    readStderr();
    m_exited = true;
    m_exitCode = exitCode;
    m_exitStatus = status;
    if (!m_drainScheduled)
        drain();
}

void RunController::processError(QProcess::ProcessError error)
{
    if (sender() != m_process || error != QProcess::FailedToStart)
        return; // crashes and exits come through finished()
    m_startError = m_process->errorString();
    m_exited = true;
    m_exitCode = -1;
    m_exitStatus = QProcess::CrashExit;
    finishStage();
}

void RunController::finishStage()
{
    StageRun *run = m_session->current();
    if (!run || !m_stageActive)
        return;
    m_stageActive = false;
    m_memoryTimer.stop();
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    if (!m_stderr.isEmpty()) {
        m_stderr += '\n';
        readStderr();
    }
    run->processSeconds = run->priorSeconds + m_stageClock.elapsed() / 1000.0;
    const QString stage = runStageTitle(run->stage);
    const QString tail = run->stderrTail.isEmpty()
        ? tr("(it wrote nothing on standard error)")
        : run->stderrTail.mid(std::max<qsizetype>(0, run->stderrTail.size() - 6)).join(QLatin1Char('\n'));

    if (!m_startError.isEmpty()) {
        run->outcome = StageRun::Outcome::Failed;
        run->failure = tr("%1 could not start %2: %3").arg(stage, QDir::toNativeSeparators(m_program), m_startError);
    } else if (m_exitStatus == QProcess::CrashExit && run->isRunning()) {
        // No `done` event: the process died (killed, out of memory, a crash). Qt
        // gives the signal as the exit code of a crashed process.
        run->outcome = StageRun::Outcome::Crashed;
        run->exitCode = m_exitCode;
        run->failure = tr("%1 stopped without finishing: the worker (pid %2) was killed by signal %3 (%4). %5\n"
                          "Last lines of its error output:\n%6")
                           .arg(stage)
                           .arg(run->pid)
                           .arg(m_exitCode)
                           .arg(signalName(m_exitCode),
                               run->stage == RunStage::StageOne
                                   ? tr("Finished shards are kept: Resume continues from them.")
                                   : tr("Resume continues from the last state saved (one is written every minute of training, "
                                         "at each epoch end and at each --save_steps checkpoint), if one was."),
                               tail);
    } else {
        if (run->isRunning()) {
            // Exited without its `done` event (an old or broken worker): the status decides.
            run->exitCode = m_exitCode;
            run->outcome = m_exitCode == 0 ? StageRun::Outcome::Finished
                : m_exitCode == kExitCancelled ? StageRun::Outcome::Cancelled
                                               : StageRun::Outcome::Failed;
        }
        if (run->outcome == StageRun::Outcome::Failed) {
            const QString why = run->errors.isEmpty() ? tail : run->errors.join(QLatin1Char('\n'));
            run->failure = tr("%1 failed with exit status %2 (%3):\n%4")
                               .arg(stage)
                               .arg(run->exitCode)
                               .arg(exitMeaning(run->exitCode), why);
        } else if (run->outcome == StageRun::Outcome::Cancelled) {
            run->failure = run->stage == RunStage::StageOne
                ? tr("%1 cancelled: %2 of %3 samples are cached in finished shards; Resume continues from them.")
                      .arg(stage)
                      .arg(run->done)
                      .arg(run->total)
                : tr("%1 cancelled at step %2 of %3: a checkpoint to resume from was written; Resume continues.")
                      .arg(stage)
                      .arg(run->done)
                      .arg(run->total);
        }
    }
    using Level = RunSession::LogLine::Level;
    const Level level = run->outcome == StageRun::Outcome::Finished ? Level::Note
        : run->outcome == StageRun::Outcome::Cancelled               ? Level::Warning
                                                                     : Level::Error;
    m_session->addLog(level,
        run->outcome == StageRun::Outcome::Finished
            ? tr("%1 finished in %2 s").arg(stage).arg(run->processSeconds, 0, 'f', 1)
            : run->failure,
        launchSeconds());
    run->unit.clear();
    flush();
    Q_EMIT stageFinished(run->stage, run->outcome);

    if (run->outcome == StageRun::Outcome::Finished && m_next < m_plan.size() && !m_cancelRequested) {
        startStage(m_plan[m_next++]);
        return;
    }
    if (m_next < m_plan.size())
        m_session->setIncomplete(true);
    finishLaunch();
}

void RunController::finishLaunch()
{
    // A launch that failed before it wrote anything leaves no empty folder behind.
    if (!m_createdFolder.isEmpty() && QDir(m_createdFolder).isEmpty())
        QDir().rmdir(m_createdFolder);
    m_createdFolder.clear();
    setState(State::Idle);
    flush();
    Q_EMIT launchFinished();
}

void RunController::cancel()
{
    if (m_state == State::Idle || !m_process)
        return;
    m_cancelRequested = true;
    if (m_state == State::Running) {
        setState(State::Cancelling);
        m_session->addLog(RunSession::LogLine::Level::Note,
            tr("Cancel: the worker finishes the sample or step at hand and keeps its work (Cancel again to stop at "
               "once)."),
            launchSeconds());
        m_process->terminate();
    } else {
        m_session->addLog(RunSession::LogLine::Level::Note, tr("Stopping the worker at once (SIGKILL)."),
            launchSeconds());
        m_process->kill();
    }
    markDirty();
}

bool RunController::waitForIdle(int msecs)
{
    QElapsedTimer waited;
    waited.start();
    while (isRunning() && waited.elapsed() < msecs)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
    return !isRunning();
}

qint64 RunController::workerPid() const
{
    return m_process ? m_process->processId() : 0;
}

QString RunController::currentCommand() const
{
    const StageRun *run = m_session ? m_session->current() : nullptr;
    return run ? run->command : QString();
}

void RunController::sampleMemory()
{
    StageRun *run = m_session ? m_session->current() : nullptr;
    // With several ranks the worker is their launcher (which holds no models): rank 0's
    // own process, once its start event names it (its memory events come meanwhile).
    const qint64 pid = m_launcherRuns ? (run ? run->pid : 0) : workerPid();
    if (!run || !run->isRunning() || pid <= 0)
        return;
    // /proc/PID/statm: sizes in pages; the second is the resident set (what the
    // worker's own rss_bytes reports). Elsewhere the worker's events suffice.
    QFile statm(QStringLiteral("/proc/%1/statm").arg(pid));
    if (!statm.open(QIODevice::ReadOnly))
        return;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    bool ok = false;
    const qint64 pages = fields.size() > 1 ? fields.at(1).toLongLong(&ok) : 0;
    if (!ok || pages <= 0)
        return;
    static const qint64 pageSize = ::sysconf(_SC_PAGESIZE);
    run->addMemorySample(launchSeconds(), pages * pageSize);
    markDirty();
}

void RunController::markDirty()
{
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RunController::flush()
{
    m_flushTimer.stop();
    if (!m_session)
        return;
    const StageRun *run = m_session->current();
    const QString unit = run && run->isRunning() ? run->unit : QString();
    Q_EMIT updated();
    if (unit != m_shownUnit) {
        m_shownUnit = unit;
        Q_EMIT unitChanged(unit);
    }
}

void RunController::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

double RunController::launchSeconds() const
{
    return m_launchOffset + (m_launchClock.isValid() ? m_launchClock.elapsed() / 1000.0 : 0.0);
}

} // namespace splitscope
