// SPDX-License-Identifier: MIT
#include "PlanRunner.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <csignal>
#include <map>
#include <unistd.h>

namespace splitscope {

PlanRunner::PlanRunner(QObject *parent) : QObject(parent)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    // A process group of its own: a cancel reaches the launcher and every worker it starts.
    // Ctrl+C's signal is reset in case the app was started with it ignored (as under
    // nohup): Python would then never raise KeyboardInterrupt on a cancel.
    m_process.setChildProcessModifier([] {
        ::setpgid(0, 0);
        ::signal(SIGINT, SIG_DFL);
    });
    connect(&m_process, &QProcess::readyRead, this, &PlanRunner::readOutput);
    connect(&m_process, &QProcess::finished, this, &PlanRunner::onFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) // /bin/sh missing: reported as a failed stage
            onFinished(127, QProcess::NormalExit);
    });
    m_sampler.setInterval(kSampleMs);
    connect(&m_sampler, &QTimer::timeout, this, &PlanRunner::sample);
    m_killer.setSingleShot(true);
    m_killer.setInterval(kKillAfterMs);
    connect(&m_killer, &QTimer::timeout, this, [this] {
        if (isRunning())
            ::kill(-static_cast<pid_t>(m_process.processId()), SIGKILL);
    });
}

PlanRunner::~PlanRunner()
{
    if (isRunning()) {
        ::kill(-static_cast<pid_t>(m_process.processId()), SIGKILL);
        m_process.waitForFinished(3000);
    }
}

bool PlanRunner::start(const QStringList &commands, const QString &workingDirectory)
{
    if (isRunning() || commands.isEmpty())
        return false;
    m_commands = commands;
    m_workingDirectory = workingDirectory;
    m_cancelled = false;
    m_stage = 0;
    startStage();
    return true;
}

void PlanRunner::startStage()
{
    m_pending.clear();
    m_process.setWorkingDirectory(m_workingDirectory);
    Q_EMIT stageStarted(m_stage, m_commands[m_stage]);
    m_clock.start();
    m_process.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), m_commands[m_stage]});
    m_sampler.start();
}

void PlanRunner::cancel()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    ::kill(-static_cast<pid_t>(m_process.processId()), SIGINT);
    m_killer.start();
}

bool PlanRunner::parseProgress(const QString &line, qint64 &done, qint64 &total)
{
    // tqdm: "desc: 42%|████▏     | 42/100 [00:01<00:02, 20.00it/s]"
    static const QRegularExpression kTqdm(QStringLiteral(R"((\d+)%\|[^|]*\|\s*(\d+)/(\d+))"));
    const QRegularExpressionMatch m = kTqdm.match(line);
    if (!m.hasMatch())
        return false;
    done = m.captured(2).toLongLong();
    total = m.captured(3).toLongLong();
    return total > 0;
}

void PlanRunner::readOutput()
{
    m_pending += QString::fromUtf8(m_process.readAll());
    // tqdm rewrites its line with a carriage return: each rewrite counts as a line.
    static const QRegularExpression kBreak(QStringLiteral("[\r\n]"));
    for (int at = m_pending.indexOf(kBreak); at >= 0; at = m_pending.indexOf(kBreak)) {
        const QString line = m_pending.left(at);
        m_pending.remove(0, at + 1);
        if (line.trimmed().isEmpty())
            continue;
        Q_EMIT output(m_stage, line);
        qint64 done = 0, total = 0;
        if (parseProgress(line, done, total))
            Q_EMIT progress(m_stage, done, total);
    }
}

void PlanRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    readOutput();
    if (!m_pending.trimmed().isEmpty())
        Q_EMIT output(m_stage, m_pending);
    m_pending.clear();
    m_sampler.stop();
    m_killer.stop();
    const bool crashed = status == QProcess::CrashExit;
    Q_EMIT stageFinished(m_stage, crashed ? -1 : exitCode, crashed);
    if (!crashed && exitCode == 0 && !m_cancelled && m_stage + 1 < m_commands.size()) {
        ++m_stage;
        startStage();
        return;
    }
    Q_EMIT finished(!crashed && exitCode == 0 && !m_cancelled && m_stage + 1 == m_commands.size(), m_cancelled);
}

void PlanRunner::sample()
{
    if (!isRunning())
        return;
    const qint64 bytes = processTreeRss(m_process.processId());
    if (bytes > 0)
        Q_EMIT memory(m_stage, static_cast<double>(m_clock.elapsed()) / 1000.0, bytes);
}

qint64 PlanRunner::processTreeRss(qint64 root)
{
    // /proc/PID/stat: "PID (comm) state PPID ..."; the RSS in pages is field 24.
    std::multimap<qint64, qint64> children;
    std::map<qint64, qint64> rss;
    const long page = ::sysconf(_SC_PAGESIZE);
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QString text = QString::fromLatin1(stat.readAll());
        const int close = text.lastIndexOf(QLatin1Char(')')); // the command name may hold spaces
        const QStringList fields = text.mid(close + 2).split(QLatin1Char(' '));
        if (close < 0 || fields.size() < 22)
            continue;
        children.emplace(fields[1].toLongLong(), pid);
        rss[pid] = fields[21].toLongLong() * page;
    }
    qint64 total = 0;
    std::vector<qint64> pending{root};
    while (!pending.empty()) {
        const qint64 pid = pending.back();
        pending.pop_back();
        total += rss.count(pid) ? rss[pid] : 0;
        const auto range = children.equal_range(pid);
        for (auto it = range.first; it != range.second; ++it)
            pending.push_back(it->second);
    }
    return total;
}

} // namespace splitscope
