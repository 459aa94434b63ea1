// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace splitscope {

// Runs the two commands of a plan one after the other, each as `/bin/sh -c COMMAND` in
// the plan's working folder with the user's environment, in a process group of its own:
// its output lines (stdout and stderr, tqdm's carriage-return updates split as lines),
// its progress as tqdm prints it ("42%|████      | 42/100 [...]"), and the resident
// memory of its whole process tree, sampled every kSampleMs. Stage two starts when stage
// one exits with status 0. cancel() sends SIGINT to the running stage's process group,
// as Ctrl+C in a terminal would (accelerate, torchrun and train.py stop on it), and
// SIGKILL after kKillAfterMs if it is still running.
//
// Lives in the GUI thread; every signal is emitted there.
class PlanRunner : public QObject {
    Q_OBJECT
public:
    static constexpr int kSampleMs = 500;
    static constexpr int kKillAfterMs = 10000;

    explicit PlanRunner(QObject *parent = nullptr);
    ~PlanRunner() override;

    // Starts stage one; false when a run is going on.
    bool start(const QStringList &commands, const QString &workingDirectory);
    void cancel();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    int stage() const { return m_stage; } // 0-based, -1 when none ran

    // The resident bytes of `pid` and every process under it (Linux /proc).
    static qint64 processTreeRss(qint64 pid);
    // tqdm's "n/total" in a line, or false.
    static bool parseProgress(const QString &line, qint64 &done, qint64 &total);

Q_SIGNALS:
    void stageStarted(int stage, const QString &command);
    void output(int stage, const QString &line);
    void progress(int stage, qint64 done, qint64 total);
    void memory(int stage, double seconds, qint64 bytes);
    // exitCode -1 with `crashed` for a signal (a cancel ends so too).
    void stageFinished(int stage, int exitCode, bool crashed);
    void finished(bool completed, bool cancelled);

private:
    void startStage();
    void readOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void sample();

    QProcess m_process;
    QStringList m_commands;
    QString m_workingDirectory;
    int m_stage = -1;
    bool m_cancelled = false;
    QString m_pending; // output after the last line break
    QTimer m_sampler;
    QTimer m_killer;
    QElapsedTimer m_clock;
};

} // namespace splitscope
