// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace splitscope {

// One short `splitscope-cli` command run in the background (make-dataset,
// init-models) for the Run panel's "generate" and "create" buttons: the GUI stays
// responsive, and the result comes back as finished() with the command's own
// message on failure. One command at a time.
class CliTask : public QObject {
    Q_OBJECT
public:
    explicit CliTask(QObject *parent = nullptr);
    ~CliTask() override;

    void setProgram(const QString &program) { m_program = program; }
    QString program() const { return m_program; }
    bool isRunning() const { return !m_process.isNull(); }
    QString title() const { return m_title; }

    // Starts `splitscope-cli ARGUMENTS`; false when one is running.
    bool start(const QString &title, const QStringList &arguments);

Q_SIGNALS:
    // `ok`: exit status 0. `message`: its standard error on failure (the CLI names
    // the flag or path that is wrong), else the last line of its standard output.
    void finished(bool ok, const QString &message);

private:
    QString m_program;
    QString m_title;
    QPointer<QProcess> m_process;
};

} // namespace splitscope
