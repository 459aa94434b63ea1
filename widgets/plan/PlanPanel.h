// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <functional>

class QChartView;
class QLabel;
class QLineSeries;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QValueAxis;

namespace splitscope {

class PlanController;
class PlanModelsModel;

// The Plan panel: what a plan for a one-stage DiffSynth command decided (the model
// entries and what each stage does with them, the two commands with Copy and Save as
// .sh, the hazards of DiffSynth's split and the warnings), and Run plan: the two
// commands run one after the other (PlanRunner), after the user has seen them exactly
// and confirmed, with their output, tqdm's progress, the memory of the process tree
// over time, and Cancel.
class PlanPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlanPanel(PlanController *controller, QWidget *parent = nullptr);

    // Asks before running: gets the text of both commands, returns whether to run them.
    // The default shows a dialog; tests replace it.
    void setConfirmation(std::function<bool(const QString &commands)> confirm) { m_confirm = std::move(confirm); }

    bool runPlan();
    bool saveShell(const QString &path);
    void copyCommand(int stage);

    // For tests.
    QString headerText() const;
    QString commandText(int stage) const;
    QString notesText() const;
    QString statusText() const;
    QString logText() const;
    int progressValue() const;
    int progressMaximum() const;
    int memoryPoints() const;
    QTableView *modelsTable() const { return m_models; }

private:
    void refresh();
    void onStageStarted(int stage, const QString &command);
    void onOutput(int stage, const QString &line);
    void onProgress(int stage, qint64 done, qint64 total);
    void onMemory(int stage, double seconds, qint64 bytes);
    void onStageFinished(int stage, int exitCode, bool crashed);
    void onFinished(bool completed, bool cancelled);
    void updateButtons();

    PlanController *m_controller;
    PlanModelsModel *m_modelsModel;
    QLabel *m_header;
    QTableView *m_models;
    QLabel *m_stageLabel[2];
    QPlainTextEdit *m_command[2];
    QPushButton *m_copy[2];
    QPushButton *m_save;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QLabel *m_notes;
    QWidget *m_runArea;
    QLabel *m_status;
    QProgressBar *m_progress;
    QChartView *m_chart;
    QLineSeries *m_rss[2];
    QValueAxis *m_x;
    QValueAxis *m_y;
    double m_stageOneSeconds = 0; // stage two's times continue after stage one's
    double m_lastSeconds = 0;
    qint64 m_peak = 0;
    QPlainTextEdit *m_log;
    std::function<bool(const QString &)> m_confirm;
};

} // namespace splitscope
