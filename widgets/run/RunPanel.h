// SPDX-License-Identifier: MIT
#pragma once

#include "ExecutablePipeline.h"
#include "RunChecks.h"
#include "RunConfig.h"

#include <QHash>
#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace splitscope {

class CliTask;
class RunController;
class SplitDocument;

// The Run panel: launches the open pipeline's training when the engine can run it
// (its built-in executable pipelines; a description-only pipeline gets a sentence
// saying it can be inspected but not run, and why).
//
// Fields: the dataset (with "Generate…": `splitscope-cli make-dataset`), the models
// root (with "Create…": `init-models`), the stage-one cache and the output folder,
// epochs, dataset repeat, learning rate, LoRA rank and target modules, seed,
// threads and cache shard size. The trainable models, the LoRA base model and the
// split algorithm come from the document (the Training configuration panel).
// Everything is checked before a launch (validateRun) and each problem is shown
// under its field.
//
// Actions: stage one, stage two, both, the one-stage baseline, cancel, and resume
// (after a cancelled or crashed launch). The command of each stage is shown as a
// `splitscope-cli train ...` line to copy; while a stage runs, it is that stage's.
class RunPanel : public QWidget {
    Q_OBJECT
public:
    RunPanel(SplitDocument *document, RunController *controller, QWidget *parent = nullptr);
    ~RunPanel() override;

    // Defaults under the app's data folder (<data>/tiny-qwen-image/{dataset,models,cache,output}).
    static RunSettings defaultSettings();
    RunSettings settings() const;
    void setSettings(const RunSettings &settings);

    // What a launch would run now: the document's choice and split with the fields.
    RunConfig config() const;
    const Executability &executability() const { return m_executability; }
    // The problems shown now (validation of `Both`, or of the launch last refused).
    const QList<RunIssue> &issues() const { return m_issues; }
    // The message under a field ("" when none).
    QString fieldMessage(RunField field) const;

    QAction *launchAction(RunKind kind) const;
    QAction *cancelAction() const { return m_cancel; }
    QAction *resumeAction() const { return m_resume; }
    QLineEdit *datasetEdit() const { return m_dataset; }
    QLineEdit *modelsEdit() const { return m_models; }
    QLineEdit *cacheEdit() const { return m_cache; }
    QLineEdit *outputEdit() const { return m_output; }
    QLineEdit *learningRateEdit() const { return m_learningRate; }
    QSpinBox *epochsSpin() const { return m_epochs; }
    QPlainTextEdit *commandView() const { return m_command; }
    QComboBox *commandStage() const { return m_commandStage; }
    QLabel *banner() const { return m_banner; }
    QLabel *statusLabel() const { return m_status; }
    CliTask *tools() const { return m_tools; }

public Q_SLOTS:
    // Validates `kind` and starts it; false (problems shown) when it cannot start.
    bool launch(splitscope::RunKind kind);
    // Continues the last launch if it was cancelled or crashed.
    bool resume();
    void cancel();
    // `splitscope-cli make-dataset DATASET --count N --width S --height S [--edit]`
    // and `init-models --root MODELS [--preset P] [--overwrite]`, in the background.
    // `overwrite`: replace a dataset already there (make-dataset refuses to otherwise).
    bool generateDataset(int count, int size, bool edit, bool overwrite = false);
    bool createModels(const QString &preset, bool overwrite);
    void copyCommand();

Q_SIGNALS:
    // A launch started from this panel (the window shows the monitor).
    void launched(splitscope::RunKind kind);
    // A background command (make-dataset, init-models) ended.
    void toolFinished(bool ok, const QString &message);

private:
    QWidget *pathRow(QLineEdit *edit, const QString &dialogTitle, QPushButton *extra);
    QLabel *messageLabel(RunField field);
    void pipelineChanged();
    void scheduleValidation();
    void validate();
    void showIssues(const QList<RunIssue> &issues);
    void updateInfo();
    void updateActions();
    void updateCommand();
    void updateStatus();
    bool learningRate(double *value) const;
    void askGenerateDataset();
    void askCreateModels();

    SplitDocument *m_document;
    RunController *m_controller;
    CliTask *m_tools;
    Executability m_executability;
    ExecutablePipeline m_pipeline;
    QList<RunIssue> m_issues;
    QHash<int, QLabel *> m_messages; // RunField -> label under the field
    QHash<int, QString> m_info;      // RunField -> information shown when there is no problem

    QLabel *m_banner;
    QLabel *m_training;
    QWidget *m_form;
    QLineEdit *m_dataset;
    QLineEdit *m_models;
    QLineEdit *m_cache;
    QLineEdit *m_output;
    QPushButton *m_generate;
    QPushButton *m_create;
    QSpinBox *m_epochs;
    QSpinBox *m_repeat;
    QLineEdit *m_learningRate;
    QSpinBox *m_rank;
    QLineEdit *m_targets;
    QSpinBox *m_seed;
    QSpinBox *m_threads;
    QSpinBox *m_shardSize;
    QCheckBox *m_allowHazards;
    QComboBox *m_commandStage;
    QPlainTextEdit *m_command;
    QLabel *m_status;
    QHash<int, QAction *> m_launch; // RunKind -> action
    QAction *m_cancel;
    QAction *m_resume;
    QTimer *m_validation;
};

} // namespace splitscope
