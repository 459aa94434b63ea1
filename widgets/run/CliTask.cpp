// SPDX-License-Identifier: MIT
#include "CliTask.h"

namespace splitscope {

namespace {

constexpr int kStopWaitMs = 2000; // a command still going when the window closes

} // namespace

CliTask::CliTask(QObject *parent) : QObject(parent) {}

CliTask::~CliTask()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(kStopWaitMs);
    }
}

bool CliTask::start(const QString &title, const QStringList &arguments)
{
    if (m_process)
        return false;
    m_title = title;
    auto *process = new QProcess(this);
    m_process = process;
    connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
        const QString out = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(process->readAllStandardError()).trimmed();
        const bool ok = status == QProcess::NormalExit && code == 0;
        process->deleteLater();
        m_process = nullptr;
        QString message = ok ? out.section(QLatin1Char('\n'), -1) : err;
        if (!ok && message.isEmpty())
            message = status == QProcess::CrashExit ? tr("it crashed (signal %1)").arg(code)
                                                    : tr("exit status %1").arg(code);
        Q_EMIT finished(ok, message);
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString message = tr("cannot start %1: %2").arg(m_program, process->errorString());
        process->deleteLater();
        m_process = nullptr;
        Q_EMIT finished(false, message);
    });
    process->start(m_program, arguments);
    return true;
}

} // namespace splitscope
