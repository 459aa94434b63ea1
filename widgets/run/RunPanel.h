// SPDX-License-Identifier: MIT
#pragma once

#include "ExecutablePipeline.h"
#include "RunChecks.h"
#include "RunConfig.h"

#include <QHash>
#include <QJsonObject>
#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTimer;

namespace splitscope {

class CliTask;
class RunController;
class RunHistory;
class RunSession;
class SplitDocument;

// The Run panel: launches the open pipeline's training when the engine can run it
// (its built-in executable pipelines; a description-only pipeline gets a sentence
// saying it can be inspected but not run, and why).
//
// Fields: the dataset (with "Generate…": `splitscope-cli make-dataset`), the models
// root (with "Create…": `init-models`), the stage-one cache and the output folder
// (by default each launch gets a new folder in it), epochs, dataset repeat,
// learning rate, LoRA rank and target modules, seed, threads and cache shard size.
// The trainable models, the LoRA base model and the split algorithm come from the
// document (the Training configuration panel); the panel remembers the last
// choice per executable pipeline (trainingChoices()), because a cache is made for
// one. Everything is checked as the user types (validateRun). A field with a
// problem gets a red frame, a warning icon and the problem as its tooltip; the
// folders' line under them (always there: what is found, or the problem) says it
// in words. The number fields get no line while the user types, so that nothing
// below them moves as they type: after a refused launch, each gets a line for its
// problem, kept until a launch starts, and the refusal lists every problem at the
// end of the form until they are fixed.
// In the scrolling form, spin and combo boxes take the mouse wheel only when
// focused: elsewhere the wheel scrolls the form.
//
// Actions: stage one, stage two, both, the one-stage baseline, cancel, and resume
// (after a cancelled or crashed launch: this session's, or with setHistory() the
// newest launch of the history, also after a restart). The command of each stage
// is shown as a `splitscope-cli train ...` line to copy; while a stage runs, it is
// that stage's.
class RunPanel : public QWidget {
    Q_OBJECT
public:
    RunPanel(SplitDocument *document, RunController *controller, QWidget *parent = nullptr);
    ~RunPanel() override;

    // The history the launches go to (the window adds them): after a restart, its
    // newest launch, if it was cancelled or crashed, is what Resume continues.
    void setHistory(RunHistory *history);
    // The launch Resume would continue, or null.
    std::shared_ptr<const RunSession> resumableLaunch() const;

    // The training choice last made for each executable pipeline, as JSON
    // ({"tiny-qwen-image": {"trainable_models": [...], "lora_base_model": "dit",
    // "split_mode": "safe"}}), to keep with the settings: opening that pipeline
    // again restores its choice, so that the restored cache still fits it.
    QJsonObject trainingChoices() const { return m_choices; }
    void setTrainingChoices(const QJsonObject &choices);

    // Defaults under the app's data folder (<data>/tiny-qwen-image/{dataset,models,cache,output}).
    static RunSettings defaultSettings();
    RunSettings settings() const;
    void setSettings(const RunSettings &settings);

    // What a launch would run now: the document's choice and split with the fields.
    RunConfig config() const;
    const Executability &executability() const { return m_executability; }
    // The problems shown now (validation of `Both`, or of the launch last refused).
    const QList<RunIssue> &issues() const { return m_issues; }
    // What is said of a field now, under it or in its tooltip: its problems, else the
    // information about it ("" when none).
    QString fieldMessage(RunField field) const;
    // The line under `field`, null for one that has none.
    QLabel *fieldLine(RunField field) const { return m_messages.value(static_cast<int>(field)); }

    QAction *launchAction(RunKind kind) const;
    QAction *cancelAction() const { return m_cancel; }
    QAction *resumeAction() const { return m_resume; }
    QAction *saveSettingsAction() const { return m_saveSettings; }
    QAction *loadSettingsAction() const { return m_loadSettings; }
    QLineEdit *datasetEdit() const { return m_dataset; }
    QLineEdit *modelsEdit() const { return m_models; }
    QLineEdit *cacheEdit() const { return m_cache; }
    QLineEdit *outputEdit() const { return m_output; }
    QLineEdit *learningRateEdit() const { return m_learningRate; }
    QCheckBox *newFolderPerLaunchBox() const { return m_perLaunch; }
    QSpinBox *epochsSpin() const { return m_epochs; }
    QSpinBox *rankSpin() const { return m_rank; }
    QPlainTextEdit *commandView() const { return m_command; }
    QComboBox *commandStage() const { return m_commandStage; }
    QLabel *banner() const { return m_banner; }
    QLabel *statusLabel() const { return m_status; }
    CliTask *tools() const { return m_tools; }

public Q_SLOTS:
    // Validates `kind` and starts it; false (problems shown) when it cannot start.
    // An output folder that holds a run (without a new folder per launch) is
    // refused unless `replaceRun`: its run's files are then deleted first.
    bool launch(splitscope::RunKind kind, bool replaceRun = false);
    // As the panel's buttons and the Run menu launch: like launch(), but when the
    // only problem is a run in the output folder, asks whether to replace it.
    bool launchAsking(splitscope::RunKind kind);
    // Continues the last launch if it was cancelled or crashed.
    bool resume();
    void cancel();
    // `splitscope-cli make-dataset DATASET --count N --width S --height S [--edit]`
    // and `init-models --root MODELS [--preset P] [--overwrite]`, in the background.
    // `overwrite`: replace a dataset already there (make-dataset refuses to otherwise).
    bool generateDataset(int count, int size, bool edit, bool overwrite = false);
    bool createModels(const QString &preset, bool overwrite);
    void copyCommand();
    // The fields as a run settings file (the JSON that --run-settings reads), written
    // atomically; false with `error` naming the file.
    bool saveSettingsFile(const QString &path, QString *error);
    // Fills the fields from a run settings file, checked as --run-settings checks it;
    // false with one line per problem in `errors` ("s.json: num_epochs: ..."), the
    // fields unchanged.
    bool loadSettingsFile(const QString &path, QStringList *errors);

Q_SIGNALS:
    // A launch started from this panel (the window shows the monitor).
    void launched(splitscope::RunKind kind);
    // A background command (make-dataset, init-models) ended.
    void toolFinished(bool ok, const QString &message);
    // Something to say in the window's status bar (a refused launch).
    void message(const QString &text);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void createActions();
    void buildLayout();
    QWidget *buildPathsBox();
    QWidget *buildTrainingBox();
    QGridLayout *buildLaunchButtons(QWidget *&tabBefore);
    QHBoxLayout *buildCommandHeader(QWidget *tabBefore);
    void buildHazardsRow();
    void connectFields();
    void connectDocument(SplitDocument *document, RunController *controller);
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
    // The checks of `kind` with the panel's own (the learning rate's text).
    QList<RunIssue> checks(RunKind kind) const;
    void showRefusal(RunKind kind, const QList<RunIssue> &issues);
    void revealStatus();
    void restoreTrainingChoice();
    void recordTrainingChoice();
    bool learningRate(double *value) const;
    void askGenerateDataset();
    void askCreateModels();
    void askSaveSettings();
    void askLoadSettings();

    SplitDocument *m_document;
    RunController *m_controller;
    RunHistory *m_history = nullptr;
    CliTask *m_tools;
    Executability m_executability;
    ExecutablePipeline m_pipeline;
    QList<RunIssue> m_issues;
    QHash<int, QLabel *> m_messages; // RunField -> label under the field
    QHash<int, QString> m_info;      // RunField -> information shown when there is no problem
    QHash<int, QString> m_said;      // RunField -> fieldMessage()
    QHash<int, QAction *> m_problemIcons; // RunField -> the warning icon in its line edit
    // After a refused launch, the number fields' lines stay (empty once fixed) until a
    // launch starts: they appear when the user pressed a button, not while typing.
    bool m_reserveLines = false;

    QLabel *m_banner;
    QLabel *m_training;
    QWidget *m_form;
    QLineEdit *m_dataset;
    QLineEdit *m_models;
    QLineEdit *m_cache;
    QLineEdit *m_output;
    QCheckBox *m_perLaunch;
    QPushButton *m_generate;
    QPushButton *m_create;
    QSpinBox *m_epochs;
    QSpinBox *m_repeat;
    QLineEdit *m_learningRate;
    QSpinBox *m_rank;
    QLineEdit *m_targets;
    QSpinBox *m_seed;
    QSpinBox *m_threads;
    QSpinBox *m_processes;
    QSpinBox *m_shardSize;
    QCheckBox *m_allowHazards;
    QWidget *m_hazardsRow = nullptr; // the check box and its explanation
    QComboBox *m_commandStage;
    QPlainTextEdit *m_command;
    QLabel *m_status;
    QScrollArea *m_scroll = nullptr; // around the form
    QHash<int, QAction *> m_launch; // RunKind -> action
    QAction *m_cancel;
    QAction *m_resume;
    QAction *m_saveSettings;
    QAction *m_loadSettings;
    QTimer *m_validation;
    // The launch last refused: its problems stay in the status line, updated as the
    // fields change, until they are fixed or another launch starts.
    std::optional<RunKind> m_refused;
    QJsonObject m_choices; // pipeline name -> training choice (see trainingChoices())
};

} // namespace splitscope
