// SPDX-License-Identifier: MIT
// The Run panel and its window without the real worker (a shell script stands in
// for it where a launch is needed): a description-only pipeline says why it cannot
// run; every field is checked on disk and its problem shown under it as the user
// types; the training choice of the configuration panel reaches the checks and the
// commands, and is restored with the fields; a missing worker program is a clear
// error; the Run menu; each launch writes into a folder of its own; Resume after a
// restart; a running launch says so; the wheel scrolls the form; settings, window
// layout and run history survive a restart.
#include "RunTestSupport.h"
#include "WidgetTestSupport.h"

#include "MainWindow.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/panels/TrainingPanel.h"
#include "widgets/run/LossChartView.h"
#include "widgets/run/RunCharts.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunHistoryModel.h"
#include "widgets/run/RunHistoryPanel.h"
#include "widgets/run/RunMonitor.h"
#include "widgets/run/RunPanel.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QAbstractItemView>
#include <QDir>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QValueAxis>
#include <QWheelEvent>

#include <memory>

using namespace splitscope;
using namespace splitscope::test;

namespace {

QAction *runMenuAction(QMainWindow &window, const QString &text)
{
    for (QAction *top : window.menuBar()->actions()) {
        if (top->text().remove(QLatin1Char('&')) != QLatin1String("Run"))
            continue;
        for (QAction *a : top->menu()->actions()) {
            if (a->text().remove(QLatin1Char('&')) == text)
                return a;
        }
    }
    return nullptr;
}

const ExecutablePipeline &tiny()
{
    return executablePipelines().front();
}

// Answers the next message box with `button` (from the event loop it runs in);
// `text` gets its text.
void answerNextMessageBox(QMessageBox::StandardButton button, QString *text)
{
    auto *poll = new QTimer;
    poll->setInterval(20);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, button, text]() {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        *text = box->text();
        poll->deleteLater();
        box->button(button)->click();
    });
    poll->start();
}

// What the window keeps between starts, for the Run panel: a document, the
// controller (with the stand-in worker), the history file and the panel. A new
// one is a restart.
struct RunApp {
    SplitDocument document;
    RunController controller;
    RunHistory history;
    std::unique_ptr<RunPanel> panel;

    RunApp(const QString &worker, const QString &historyPath, const RunSettings &settings)
    {
        document.openSource(QStringLiteral("tiny-qwen-image"));
        controller.setWorkerProgram(worker);
        history.open(historyPath);
        panel = std::make_unique<RunPanel>(&document, &controller);
        panel->setHistory(&history);
        panel->setSettings(settings);
        // As the window: every launch that ends goes to the history.
        QObject::connect(&controller, &RunController::launchFinished, &history,
            [this]() { history.add(controller.session()); });
    }
    ~RunApp() { panel.reset(); } // before what it observes
};

// Opens tiny-qwen-image in `window` with the fake worker of `dir` in `mode` ("wait": step
// 896 of 1600, then waits for SIGTERM), writes its dataset and models, and puts their
// paths in the Run panel: ready to launch. False when a file could not be written.
bool prepareFakeWorker(MainWindow &window, const QString &dir, const QByteArray &mode = "wait")
{
    const QString worker = writeFakeWorker(dir);
    if (worker.isEmpty() || !setFakeWorkerMode(dir, mode) || !window.openSource(QStringLiteral("tiny-qwen-image")))
        return false;
    window.runController()->setWorkerProgram(worker);
    const RunConfig c = tinyConfig(dir);
    if (!writeDataset(c.settings.datasetPath, 3) || !writeModelFiles(c.settings.modelsRoot, tiny()))
        return false;
    window.runPanel()->setSettings(c.settings);
    return true;
}

} // namespace

class TestRunPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void descriptionOnlyPipelineCannotRun();
    void fieldsAreCheckedWhereTheyAre();
    void trainingChoiceReachesTheChecksAndCommands();
    void missingWorkerIsAClearError();
    void runMenu();
    void formErrorsFollowTheFields();
    void cacheOfTheSameSplitIsTakenInEitherMode();
    void trainingChoiceIsRestoredWithTheFields();
    void eachLaunchWritesIntoItsOwnFolder();
    void resumeSurvivesARestart();
    void resumedLaunchIsOneLaunch();
    void trainingIsLockedWhileALaunchRuns();
    void keysAndQuestionsBehave();
    void aRunningLaunchSaysSo();
    void wheelScrollsTheFormNotTheFields();
    void settingsLayoutAndHistorySurviveARestart();
    void narrowDockKeepsTheButtonsInView();
    void smallWindowRunPanelFitsOrScrolls();
    void chartTickLabelsAreDistinct();
    void monitorFitsAShortWindow();
    void crashKeepsTheMonitorsHeaderShort();
    void pipelineThatCannotRunRaisesItsTabs();
    void typingMovesNoField();
    void runSettingsAreSavedAndLoaded();
};

void TestRunPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // never touch the user's settings or history
}

void TestRunPanel::descriptionOnlyPipelineCannotRun()
{
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("qwen_image")));
    RunPanel *panel = window.runPanel();
    QVERIFY(!panel->executability().runnable());
    const QString banner = plainTextOf(panel->banner()->text());
    QVERIFY2(banner.startsWith(QLatin1String("Inspect only")), qPrintable(banner));
    QVERIFY2(banner.contains(QLatin1String("qwen_image is a description only: it can be inspected, but Splitscope has "
                                           "no code for its units")),
        qPrintable(banner));
    QVERIFY(banner.contains(QString::fromUtf8("File ▸ Examples ▸ tiny-qwen-image")));
    for (RunKind kind : {RunKind::StageOne, RunKind::StageTwo, RunKind::Both, RunKind::Baseline}) {
        QVERIFY(!panel->launchAction(kind)->isEnabled());
        QVERIFY(!panel->launch(kind));
    }
    QVERIFY(panel->commandView()->toPlainText().isEmpty());
    // The executable example runs.
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QVERIFY(panel->executability().runnable());
    QVERIFY(plainTextOf(panel->banner()->text()).startsWith(QLatin1String("tiny-qwen-image runs here")));
    QVERIFY(panel->launchAction(RunKind::Both)->isEnabled());
}

void TestRunPanel::fieldsAreCheckedWhereTheyAre()
{
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    const RunConfig c = tinyConfig(dir.path());
    panel->setSettings(c.settings);
    QVERIFY2(panel->fieldMessage(RunField::Dataset).endsWith(QLatin1String("has no metadata.csv: choose a dataset folder "
                                                                           "or generate the example dataset.")),
        qPrintable(panel->fieldMessage(RunField::Dataset)));
    QVERIFY(panel->fieldMessage(RunField::ModelsRoot).startsWith(QLatin1String("No dit, text_encoder, vae weights under")));
    QVERIFY(panel->datasetEdit()->styleSheet().contains(QLatin1String("#c2255c"))); // framed in red
    QCOMPARE(panel->fieldMessage(RunField::Cache), QStringLiteral("no cache yet"));
    QVERIFY(!panel->launch(RunKind::Both));
    QVERIFY2(plainTextOf(panel->statusLabel()->text()).startsWith(QLatin1String("Both stages cannot start:")),
        qPrintable(panel->statusLabel()->text()));

    // Typing a path is checked once typing pauses.
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, executablePipelines().front()));
    panel->datasetEdit()->setText(c.settings.datasetPath + QLatin1Char('/'));
    QTRY_COMPARE(panel->fieldMessage(RunField::Dataset), QStringLiteral("3 images; columns image, prompt"));
    QVERIFY(panel->datasetEdit()->styleSheet().isEmpty());
    QVERIFY(panel->fieldMessage(RunField::ModelsRoot).startsWith(QLatin1String("dit, text_encoder, vae under")));
    QVERIFY(panel->issues().isEmpty());

    // Stage two wants a complete cache of this split.
    QVERIFY(!panel->launch(RunKind::StageTwo));
    QVERIFY2(plainTextOf(panel->statusLabel()->text()).contains(QLatin1String("run stage one first")),
        qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->fieldMessage(RunField::Cache).contains(QLatin1String("run stage one first")));
    QVERIFY(writeManifest(c.settings.cachePath, true, {QStringLiteral("vae")}));
    panel->cacheEdit()->setText(c.settings.cachePath + QLatin1Char('/'));
    QTRY_VERIFY2(panel->fieldMessage(RunField::Cache)
                     .contains(QLatin1String("models requiring backward: the cache has [vae], this run [dit]")),
        qPrintable(panel->fieldMessage(RunField::Cache)));

    // A learning rate that is not a number.
    panel->learningRateEdit()->setText(QStringLiteral("fast"));
    QVERIFY(!panel->launch(RunKind::Baseline));
    QVERIFY(plainTextOf(panel->statusLabel()->text())
                .contains(QString::fromUtf8("The learning rate “fast” is not a positive number")));
    QVERIFY(panel->learningRateEdit()->styleSheet().contains(QLatin1String("#c2255c")));
}

void TestRunPanel::trainingChoiceReachesTheChecksAndCommands()
{
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    SplitDocument *document = window.document();
    RunPanel *panel = window.runPanel();
    RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, executablePipelines().front()));
    panel->setSettings(c.settings);
    QVERIFY(panel->issues().isEmpty());

    // The file's training block: LoRA on the DiT; every unit is cached.
    QCOMPARE(panel->config().training.loraBase, std::optional<std::string>("dit"));
    QCOMPARE(panel->config().stageTwoModels, QStringList{"dit"});
    panel->commandStage()->setCurrentIndex(panel->commandStage()->findData(static_cast<int>(RunStage::StageOne)));
    QString command = panel->commandView()->toPlainText();
    QVERIFY2(command.contains(QLatin1String(" train --task sft:data_process --dataset_base_path ") + c.settings.datasetPath),
        qPrintable(command));
    QVERIFY(command.contains(QLatin1String("--offload_models 'Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors'")));
    QVERIFY(command.contains(QLatin1String("--output_path ") + c.settings.cachePath));
    panel->commandStage()->setCurrentIndex(panel->commandStage()->findData(static_cast<int>(RunStage::OneStage)));
    command = panel->commandView()->toPlainText();
    QVERIFY(command.contains(QLatin1String("--task sft --dataset_base_path")));
    // The folder a launch of the baseline would get now (each launch has its own).
    QVERIFY2(command.contains(QLatin1String("--output_path ") + c.settings.outputPath + QLatin1String("/baseline-")),
        qPrintable(command));
    QMetaObject::invokeMethod(panel, "copyCommand");
    QCOMPARE(QGuiApplication::clipboard()->text(), command);

    // Nothing to train.
    document->setLoraBase(std::nullopt);
    QTRY_VERIFY(panel->fieldMessage(RunField::Training).startsWith(QLatin1String("Nothing to train")));
    // The text encoder with a LoRA on the DiT: the seed split has a hazard.
    document->setLoraBase(std::string("dit"));
    document->setModelTrainable("text_encoder", true);
    QTRY_VERIFY(panel->fieldMessage(RunField::Hazards).startsWith(QLatin1String("The seed split has 1 hazard:")));
    QVERIFY(panel->fieldMessage(RunField::Training).isEmpty());
    QVERIFY(!panel->launch(RunKind::StageOne));
    panel->commandStage()->setCurrentIndex(panel->commandStage()->findData(static_cast<int>(RunStage::StageTwo)));
    command = panel->commandView()->toPlainText();
    QVERIFY2(command.contains(QLatin1String("--trainable_models text_encoder --lora_base_model dit")), qPrintable(command));
    QVERIFY(command.contains(QLatin1String("--offload_models Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors")));
    // The safe split has none: the same launch is fine, and the commands say --split_mode safe.
    document->setSplitMode(SplitMode::Safe);
    QTRY_VERIFY(panel->fieldMessage(RunField::Hazards).isEmpty());
    QVERIFY(panel->commandView()->toPlainText().contains(QLatin1String("--split_mode safe")));
    QCOMPARE(panel->config().label(), QStringLiteral("trainable text_encoder + LoRA on dit · safe split"));
}

void TestRunPanel::missingWorkerIsAClearError()
{
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, executablePipelines().front()));
    panel->setSettings(c.settings);
    window.runController()->setWorkerProgram(dir.filePath(QStringLiteral("no-such-cli")));
    QVERIFY(!panel->launch(RunKind::Baseline));
    QVERIFY2(plainTextOf(panel->statusLabel()->text()).contains(QLatin1String("no-such-cli is missing or not executable")),
        qPrintable(panel->statusLabel()->text()));
    QVERIFY(!window.runController()->isRunning());
    QVERIFY(panel->launchAction(RunKind::Baseline)->isEnabled());
}

void TestRunPanel::runMenu()
{
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    QCOMPARE(runMenuAction(window, QStringLiteral("Both stages")), panel->launchAction(RunKind::Both));
    QCOMPARE(runMenuAction(window, QStringLiteral("Stage one")), panel->launchAction(RunKind::StageOne));
    QCOMPARE(runMenuAction(window, QStringLiteral("Stage two")), panel->launchAction(RunKind::StageTwo));
    QCOMPARE(runMenuAction(window, QStringLiteral("One-stage baseline")), panel->launchAction(RunKind::Baseline));
    QCOMPARE(runMenuAction(window, QStringLiteral("Cancel run")), panel->cancelAction());
    QCOMPARE(runMenuAction(window, QStringLiteral("Resume")), panel->resumeAction());
    QCOMPARE(panel->launchAction(RunKind::Both)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
    // Nothing to cancel or resume before a launch.
    QVERIFY(!panel->cancelAction()->isEnabled());
    QVERIFY(!panel->resumeAction()->isEnabled());
    QVERIFY(runMenuAction(window, QStringLiteral("Compare baseline vs split")));
}

void TestRunPanel::formErrorsFollowTheFields()
{
    // A learning rate of "abc" only framed the field red; its message came at the bottom
    // after a launch, only the first problem was named, and it stayed after the fix.
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    panel->setSettings(c.settings);
    QVERIFY(panel->issues().isEmpty());

    // As the user types: under the field, without a launch.
    QTest::keyClicks(panel->learningRateEdit(), QStringLiteral("abc"));
    QTRY_COMPARE(panel->fieldMessage(RunField::LearningRate),
        QString::fromUtf8("The learning rate “0.0001abc” is not a positive number (write it like 1e-4)."));
    QVERIFY(panel->learningRateEdit()->styleSheet().contains(QLatin1String("#c2255c")));
    QVERIFY(panel->statusLabel()->text().isEmpty());
    panel->datasetEdit()->setText(dir.filePath(QStringLiteral("missing")));
    QTRY_VERIFY(panel->fieldMessage(RunField::Dataset).contains(QLatin1String("has no metadata.csv")));

    // A launch names every problem.
    QVERIFY(!panel->launch(RunKind::Baseline));
    QString status = plainTextOf(panel->statusLabel()->text());
    QVERIFY2(status.startsWith(QLatin1String("One-stage baseline cannot start: 2 problems, shown at their fields:")),
        qPrintable(status));
    QVERIFY(status.contains(QLatin1String("has no metadata.csv")));
    QVERIFY(status.contains(QString::fromUtf8("“0.0001abc” is not a positive number")));

    // A fixed field leaves the list, and the list goes with the last problem.
    panel->learningRateEdit()->setText(QStringLiteral("1e-3"));
    QTRY_VERIFY(panel->fieldMessage(RunField::LearningRate).isEmpty());
    status = plainTextOf(panel->statusLabel()->text());
    QVERIFY2(status.startsWith(QLatin1String("One-stage baseline cannot start: 1 problem")) && !status.contains(QLatin1String("learning rate")),
        qPrintable(status));
    QVERIFY(panel->learningRateEdit()->styleSheet().isEmpty());
    panel->datasetEdit()->setText(c.settings.datasetPath);
    QTRY_VERIFY(panel->statusLabel()->text().isEmpty());
    QVERIFY(panel->issues().isEmpty());
    QCOMPARE(panel->settings().learningRate, 1e-3);
}

void TestRunPanel::cacheOfTheSameSplitIsTakenInEitherMode()
{
    // LoRA on dit: seed and safe give the same split. After Alt+2 (safe) the Cache field
    // said "holds a cache of the seed split ... not of this run's safe split" and refused
    // a cache the worker takes.
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    SplitDocument *document = window.document();
    RunPanel *panel = window.runPanel();
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 4));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    panel->setSettings(c.settings);
    const RunConfig seed = panel->config();
    QVERIFY(!seed.stageOneUnits.isEmpty() && !seed.cacheSet.isEmpty());
    QVERIFY(writeManifest(c.settings.cachePath, true, {QStringLiteral("dit")}, QStringLiteral("seed"), 4, 4,
        seed.stageOneUnits, seed.cacheSet));
    panel->setSettings(c.settings);
    QVERIFY2(panel->fieldMessage(RunField::Cache).startsWith(QLatin1String("complete: 4 samples")),
        qPrintable(panel->fieldMessage(RunField::Cache)));

    document->setSplitMode(SplitMode::Safe);
    QTRY_COMPARE(panel->config().training.mode, SplitMode::Safe);
    QCOMPARE(panel->config().stageOneUnits, seed.stageOneUnits);
    QTRY_VERIFY2(panel->issues().isEmpty(), qPrintable(panel->issues().value(0).message));
    QVERIFY(panel->fieldMessage(RunField::Cache).startsWith(QLatin1String("complete: 4 samples")));
    QVERIFY(panel->launchAction(RunKind::StageTwo)->isEnabled());

    // Another split (the text encoder trained too): refused, saying what differs.
    document->setModelTrainable("text_encoder", true);
    QTRY_VERIFY2(panel->fieldMessage(RunField::Cache).contains(QLatin1String(" moved to stage two")),
        qPrintable(panel->fieldMessage(RunField::Cache)));
}

void TestRunPanel::trainingChoiceIsRestoredWithTheFields()
{
    // The Run fields were restored at start but not the training choice, so the
    // restored cache (made for the choice of last time) showed an error.
    QTemporaryDir dir;
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 4));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    QJsonObject choices;
    {
        MainWindow window(false);
        QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
        RunPanel *panel = window.runPanel();
        panel->setSettings(c.settings);
        window.document()->setModelTrainable("text_encoder", true);
        window.document()->setSplitMode(SplitMode::Safe);
        QTRY_COMPARE(panel->config().label(), QStringLiteral("trainable text_encoder + LoRA on dit · safe split"));
        const RunConfig made = panel->config();
        QVERIFY(writeManifest(c.settings.cachePath, true, {QStringLiteral("text_encoder"), QStringLiteral("dit")},
            QStringLiteral("safe"), 4, 4, made.stageOneUnits, made.cacheSet));
        panel->setSettings(c.settings);
        QVERIFY2(panel->issues().isEmpty(), qPrintable(panel->issues().value(0).message));
        choices = panel->trainingChoices();
    }
    QVERIFY(choices.contains(QStringLiteral("tiny-qwen-image")));

    // The next start: the window gives the panel what it kept (settings and choices).
    MainWindow again(false);
    RunPanel *panel = again.runPanel();
    panel->setTrainingChoices(choices);
    panel->setSettings(c.settings);
    QVERIFY(again.openSource(QStringLiteral("tiny-qwen-image")));
    const TrainingChoice &choice = again.document()->training();
    QCOMPARE(choice.trainable, std::vector<std::string>{"text_encoder"});
    QCOMPARE(choice.loraBase, std::optional<std::string>("dit"));
    QCOMPARE(choice.mode, SplitMode::Safe);
    QTRY_VERIFY2(panel->issues().isEmpty(), qPrintable(panel->issues().value(0).message));
    QVERIFY(panel->fieldMessage(RunField::Cache).startsWith(QLatin1String("complete: 4 samples")));
    // Only executable pipelines are remembered: a description opens with its file's choice.
    QVERIFY(again.openSource(QStringLiteral("qwen_image")));
    QVERIFY(!panel->trainingChoices().contains(QStringLiteral("qwen_image")));
}

void TestRunPanel::eachLaunchWritesIntoItsOwnFolder()
{
    // Every launch wrote into OUTPUT/two-stage (or one-stage): a later run overwrote
    // or mixed with the earlier ones, and every history row pointed at that folder.
    QTemporaryDir dir;
    const QString worker = writeFakeWorker(dir.path());
    QVERIFY(!worker.isEmpty());
    MainWindow window(false);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    RunController *controller = window.runController();
    controller->setWorkerProgram(worker);
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    panel->setSettings(c.settings);
    QVERIFY(panel->newFolderPerLaunchBox()->isChecked());
    QVERIFY2(panel->fieldMessage(RunField::Output).startsWith(QLatin1String("each launch in a new folder, such as ") + c.settings.outputPath + QLatin1String("/both-")),
        qPrintable(panel->fieldMessage(RunField::Output)));

    const RunKind kinds[] = {RunKind::Both, RunKind::Both, RunKind::Baseline};
    QStringList folders;
    for (RunKind kind : kinds) {
        QVERIFY(panel->launch(kind));
        QVERIFY(controller->waitForIdle(30000));
        QCOMPARE(controller->session()->outcome(), StageRun::Outcome::Finished);
        folders << controller->session()->config().runFolder;
    }
    QCOMPARE(QSet<QString>(folders.begin(), folders.end()).size(), 3);
    for (int i = 0; i < 3; ++i) {
        const QFileInfo folder(folders[i]);
        QCOMPARE(folder.absolutePath(), QFileInfo(c.settings.outputPath).absoluteFilePath());
        QVERIFY2(folder.fileName().startsWith(i < 2 ? QLatin1String("both-") : QLatin1String("baseline-")),
            qPrintable(folder.fileName()));
        // Each run's files are its own, none overwritten by a later launch.
        QVERIFY(QFile::exists(QDir(folders[i]).filePath(QStringLiteral("epoch-0.safetensors"))));
    }
    // The worker was told so; stage one writes the cache, the same each time (a cache
    // that matches is reused, one made for something else is refused by the checks).
    const QStringList calls = fakeWorkerCalls(dir.path());
    QCOMPARE(calls.size(), 5);
    QVERIFY(calls[0].contains(QLatin1String("--output_path ") + c.settings.cachePath + QLatin1Char(' ')));
    QVERIFY(calls[1].contains(QLatin1String("--output_path ") + folders[0] + QLatin1Char(' ')));
    QVERIFY(calls[2].contains(QLatin1String("--output_path ") + c.settings.cachePath + QLatin1Char(' ')));
    QVERIFY(calls[3].contains(QLatin1String("--output_path ") + folders[1] + QLatin1Char(' ')));
    QVERIFY(calls[4].contains(QLatin1String("--output_path ") + folders[2] + QLatin1Char(' ')));
    // Each history row points at its own run (rows are newest first).
    RunHistoryModel *rows = window.runHistoryPanel()->historyModel();
    QCOMPARE(rows->rowCount(), 3);
    for (int row = 0; row < 3; ++row)
        QCOMPARE(rows->index(row, RunHistoryModel::OutputColumn).data().toString(),
            QDir::toNativeSeparators(folders[2 - row]));
    // A stage-one launch trains nothing: no folder; its row shows the cache.
    QVERIFY(panel->launch(RunKind::StageOne));
    QVERIFY(controller->waitForIdle(30000));
    QVERIFY(controller->session()->config().runFolder.isEmpty());
    QCOMPARE(rows->index(0, RunHistoryModel::OutputColumn).data().toString(),
        QDir::toNativeSeparators(c.settings.cachePath));

    // A folder chosen as it is: the launch writes into it...
    const QString fixed = dir.filePath(QStringLiteral("my-run"));
    panel->newFolderPerLaunchBox()->setChecked(false);
    panel->outputEdit()->setText(fixed);
    QTRY_COMPARE(panel->fieldMessage(RunField::Output), QStringLiteral("stage two and the baseline write here"));
    QVERIFY(panel->launch(RunKind::Baseline));
    QVERIFY(controller->waitForIdle(30000));
    QCOMPARE(controller->session()->config().runFolder, fixed);
    QVERIFY(QFile::exists(QDir(fixed).filePath(QStringLiteral("epoch-0.safetensors"))));
    // ...and then holds a run: refused without a question, said under the field.
    QVERIFY(!panel->launch(RunKind::Baseline));
    QVERIFY2(panel->fieldMessage(RunField::Output).contains(QLatin1String("holds a run already (epoch-0.safetensors, "
                                                                          "loss.csv, training_args.json): a launch would "
                                                                          "replace it")),
        qPrintable(panel->fieldMessage(RunField::Output)));
    QVERIFY(plainTextOf(panel->statusLabel()->text()).startsWith(QLatin1String("One-stage baseline cannot start")));
    // The button asks: No keeps the run...
    QVERIFY(writeFileBytes(QDir(fixed).filePath(QStringLiteral("epoch-7.safetensors")), "older")); // a longer run's
    QString question;
    answerNextMessageBox(QMessageBox::No, &question);
    panel->launchAction(RunKind::Baseline)->trigger();
    QVERIFY2(question.contains(QDir::toNativeSeparators(fixed) + QLatin1String(" holds a run already")), qPrintable(question));
    QVERIFY(!controller->isRunning());
    QVERIFY(QFile::exists(QDir(fixed).filePath(QStringLiteral("epoch-7.safetensors"))));
    QCOMPARE(fakeWorkerCalls(dir.path()).size(), 7);
    // ...Yes replaces it whole: nothing of the old run is left to mix with the new one.
    answerNextMessageBox(QMessageBox::Yes, &question);
    panel->launchAction(RunKind::Baseline)->trigger();
    QVERIFY(controller->waitForIdle(30000));
    QCOMPARE(fakeWorkerCalls(dir.path()).size(), 8);
    QCOMPARE(controller->session()->outcome(), StageRun::Outcome::Finished);
    QCOMPARE(runFilesIn(fixed), (QStringList{"epoch-0.safetensors", "loss.csv", "training_args.json"}));
}

void TestRunPanel::resumeSurvivesARestart()
{
    // After Ctrl+Q with a run going (cancelled, its resume state saved), a restart showed
    // Resume disabled, and the next launch started from step 0 over the resume state.
    QTemporaryDir dir;
    const QString worker = writeFakeWorker(dir.path());
    const QString historyPath = dir.filePath(QStringLiteral("run-history.json"));
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));

    // A launch cancelled as the window closes.
    auto cancelledLaunch = [&]() -> QString {
        RunApp app(worker, historyPath, c.settings);
        setFakeWorkerMode(dir.path(), "cancel");
        if (!app.panel->launch(RunKind::Baseline) || !app.controller.waitForIdle(30000))
            return {};
        if (app.controller.session()->outcome() != StageRun::Outcome::Cancelled || !app.panel->resumeAction()->isEnabled())
            return {};
        return app.controller.session()->config().runFolder;
    };
    const QString interrupted = cancelledLaunch();
    QVERIFY(!interrupted.isEmpty());
    const QString state = QDir(interrupted).filePath(QStringLiteral("resume.safetensors"));
    QVERIFY(QFile::exists(state));
    {
        // Restarted: Resume is there, and says where it continues.
        RunApp app(worker, historyPath, c.settings);
        QCOMPARE(app.history.count(), 1);
        QVERIFY(app.panel->resumeAction()->isEnabled());
        QCOMPARE(app.panel->resumableLaunch()->config().runFolder, interrupted);
        const QString status = plainTextOf(app.panel->statusLabel()->text());
        QVERIFY2(status.startsWith(QLatin1String("Last launch: One-stage baseline, cancelled after"))
                && status.contains(QLatin1String("Resume continues it in ") + interrupted),
            qPrintable(status));
        // A new launch instead goes elsewhere: the interrupted run's state is untouched.
        setFakeWorkerMode(dir.path(), "ok");
        QVERIFY(app.panel->launch(RunKind::Baseline));
        QVERIFY(app.controller.waitForIdle(30000));
        QVERIFY(app.controller.session()->config().runFolder != interrupted);
        QFile file(state);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("state\n"));
        QVERIFY(!app.panel->resumeAction()->isEnabled()); // the last launch finished
    }

    // Interrupted again, restarted, resumed: the worker continues in the run's folder.
    const QString second = cancelledLaunch();
    QVERIFY(!second.isEmpty());
    RunApp app(worker, historyPath, c.settings);
    QVERIFY(app.panel->resumeAction()->isEnabled());
    const QString interruptedId = app.panel->resumableLaunch()->id();
    setFakeWorkerMode(dir.path(), "ok");
    QVERIFY(app.panel->resume());
    QVERIFY(app.controller.waitForIdle(30000));
    const QString call = fakeWorkerCalls(dir.path()).constLast();
    QVERIFY2(call.contains(QLatin1String("--output_path ") + second + QLatin1Char(' ')) && call.endsWith(QLatin1String(" --resume --events jsonl")),
        qPrintable(call));
    const auto resumed = app.controller.session();
    QVERIFY(resumed->resumed());
    QCOMPARE(resumed->config().runFolder, second);
    QCOMPARE(resumed->outcome(), StageRun::Outcome::Finished);
    QVERIFY(!app.panel->resumeAction()->isEnabled());
    // One launch, one row: the resumed launch replaced its cancelled entry (it was two
    // rows, "cancelled" and "(resumed)", and Baseline vs split paired the second alone).
    QCOMPARE(resumed->id(), interruptedId);
    QCOMPARE(app.history.count(), 3);
    QCOMPARE(app.history.indexOf(interruptedId), 2);
    RunHistoryModel model(&app.history);
    QCOMPARE(model.index(0, RunHistoryModel::OutputColumn).data().toString(), QDir::toNativeSeparators(second));
    QCOMPARE(model.index(0, RunHistoryModel::OutcomeColumn).data().toString(), QStringLiteral("finished"));
    // Its one training stage went on: the cancelled process's time is part of it.
    QCOMPARE(resumed->stages().size(), std::size_t(1));
    QVERIFY(resumed->stages().front().priorSeconds > 0);
    QVERIFY(resumed->stages().front().processSeconds > resumed->stages().front().priorSeconds);
}

void TestRunPanel::resumedLaunchIsOneLaunch()
{
    // Resume made a second launch: the monitor showed a "Stage two" launch from step 4
    // without the earlier curve, the history kept "Both stages, cancelled" and "Stage two
    // (resumed)" as two rows (Baseline vs split then paired stage two alone, without
    // stage one's time), and a cancelled run's loss was called final.
    QTemporaryDir dir;
    const QString worker = writeFakeWorker(dir.path());
    QVERIFY(setFakeWorkerMode(dir.path(), "steps"));
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    const QString historyPath = dir.filePath(QStringLiteral("run-history.json"));
    QString launchId;
    {
        RunApp app(worker, historyPath, c.settings);
        RunMonitor monitor(&app.controller);
        QVERIFY(app.panel->launch(RunKind::Both));
        QVERIFY(app.controller.waitForIdle(30000));
        const auto cancelled = app.controller.session();
        QCOMPARE(cancelled->outcome(), StageRun::Outcome::Cancelled);
        launchId = cancelled->id();
        const QString details = plainTextOf(monitor.detailsLabel()->text());
        QVERIFY2(details.contains(QLatin1String("Last loss")) && !details.contains(QLatin1String("Final loss")),
            qPrintable(details));
        QVERIFY2(cancelled->summary().contains(QLatin1String("last loss 2.30000")), qPrintable(cancelled->summary()));
        QCOMPARE(RunHistoryModel(&app.history).index(0, RunHistoryModel::LossColumn).data().toString(),
            QStringLiteral("2.30000 (last)"));
    }
    // After a restart, the monitor shows the launch Resume would continue, with its curve.
    RunApp app(worker, historyPath, c.settings);
    RunMonitor monitor(&app.controller);
    monitor.setHistory(&app.history);
    QVERIFY2(plainTextOf(monitor.titleLabel()->text()).startsWith(QLatin1String("Last launch (")),
        qPrintable(monitor.titleLabel()->text()));
    QCOMPARE(monitor.lossChart()->rawPoints(0), 3);
    // Its log is not kept, and the log says so (it read "The worker's log appears here"),
    // then how the launch ended.
    const QString kept = monitor.logView()->toPlainText();
    QVERIFY2(kept.contains(QLatin1String("not kept")) && kept.contains(QLatin1String("cancelled at step 3 of 6")),
        qPrintable(kept));
    QVERIFY(app.panel->resume());
    QVERIFY(app.controller.waitForIdle(30000));
    QVERIFY(!monitor.logView()->placeholderText().contains(QLatin1String("not kept")));
    QVERIFY(!monitor.logView()->toPlainText().contains(QLatin1String("not kept")));
    const auto resumed = app.controller.session();
    QCOMPARE(resumed->id(), launchId);
    QCOMPARE(resumed->kind(), RunKind::Both);
    QCOMPARE(resumed->outcome(), StageRun::Outcome::Finished);
    QCOMPARE(resumed->stages().size(), std::size_t(2));
    QVERIFY(resumed->stage(RunStage::StageOne)->processSeconds > 0); // stage one's time counts
    const StageRun *training = resumed->trainingStage();
    QCOMPARE(training->loss.size(), 6); // steps 1-3, then 4-6: one curve
    QCOMPARE(training->loss.front().x(), 1.0);
    QCOMPARE(training->loss.back().x(), 6.0);
    QCOMPARE(monitor.lossChart()->rawPoints(0), 6);
    QVERIFY2(plainTextOf(monitor.detailsLabel()->text()).contains(QLatin1String("Final loss")),
        qPrintable(monitor.detailsLabel()->text()));
    QCOMPARE(app.history.count(), 1);
    RunHistoryModel model(&app.history);
    QCOMPARE(model.index(0, RunHistoryModel::LaunchColumn).data().toString(), QStringLiteral("Both stages (resumed)"));
    QCOMPARE(model.index(0, RunHistoryModel::OutcomeColumn).data().toString(), QStringLiteral("finished"));
    QCOMPARE(model.index(0, RunHistoryModel::LossColumn).data().toString(), QStringLiteral("1.60000"));
}

void TestRunPanel::trainingIsLockedWhileALaunchRuns()
{
    // During a run the training configuration could change: the graph recoloured and the
    // Run panel described another run than the one going.
    QTemporaryDir dir;
    const QString worker = writeFakeWorker(dir.path());
    QVERIFY(setFakeWorkerMode(dir.path(), "wait"));
    MainWindow window(false);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.runController()->setWorkerProgram(worker);
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    window.runPanel()->setSettings(c.settings);
    TrainingPanel *training = window.trainingPanel();
    QVERIFY(training->modelTable()->isEnabled());
    QAction *safe = nullptr;
    for (QAction *top : window.menuBar()->actions()) {
        if (top->text().remove(QLatin1Char('&')) == QLatin1String("Split"))
            for (QAction *a : top->menu()->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(QLatin1String("Safe")))
                    safe = a;
    }
    QVERIFY(safe && safe->isEnabled());

    QVERIFY(window.runPanel()->launch(RunKind::Baseline));
    QVERIFY(training->isLocked());
    QVERIFY(!training->modelTable()->isEnabled());
    QVERIFY(!training->loraCombo()->isEnabled());
    QVERIFY(training->lockLabel()->isVisible());
    QVERIFY2(plainTextOf(training->lockLabel()->text()).contains(QLatin1String("Cancel it")),
        qPrintable(training->lockLabel()->text()));
    QVERIFY(!safe->isEnabled()); // Alt+2 neither
    const SplitMode before = window.document()->training().mode;
    safe->trigger();
    QCOMPARE(window.document()->training().mode, before);

    window.runPanel()->cancel();
    QVERIFY(window.runController()->waitForIdle(30000));
    QVERIFY(!training->isLocked());
    QVERIFY(training->modelTable()->isEnabled());
    QVERIFY(!training->lockLabel()->isVisible());
    QVERIFY(safe->isEnabled());
}

void TestRunPanel::keysAndQuestionsBehave()
{
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));

    // Tab moves on from every table (it went from cell to cell, never out).
    for (QTableView *table : window.findChildren<QTableView *>())
        QVERIFY2(!table->tabKeyNavigation(), qPrintable(table->parentWidget()->metaObject()->className()));

    // Escape in the Find box clears it, then leaves it (for the graph, where the focus was);
    // in the graph it clears the selection.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QLineEdit *find = window.workspace()->searchField();
    find->setFocus();
    QTest::keyClicks(find, QStringLiteral("Prompt"));
    QTest::keyClick(find, Qt::Key_Return);
    QVERIFY(window.document()->currentUnit() != kNoUnit);
    find->completer()->popup()->hide(); // an open completion list takes the first Escape itself
    QTest::keyClick(find, Qt::Key_Escape);
    QCOMPARE(find->text(), QString());
    QVERIFY(find->hasFocus());
    QTest::keyClick(find, Qt::Key_Escape);
    QVERIFY(!find->hasFocus());
    QVERIFY(window.workspace()->view()->hasFocus());
    QTest::keyClick(window.workspace()->view(), Qt::Key_Escape);
    QCOMPARE(window.document()->currentUnit(), kNoUnit);

    // A refused launch's list is scrolled into view in a 1280x800 window (it was below it).
    RunSettings s = tinyConfig(dir.path()).settings;
    window.runPanel()->setSettings(s); // no dataset, no models
    QVERIFY(!window.runPanel()->launch(RunKind::Both));
    QLabel *status = window.runPanel()->statusLabel();
    QTRY_VERIFY2(!status->visibleRegion().isEmpty(), "the refusal is out of view");
    QVERIFY(plainTextOf(status->text()).startsWith(QLatin1String("Both stages cannot start")));

    // "Replace the run?" summarizes 62 files, and every replace question defaults to No.
    QVERIFY(writeDataset(s.datasetPath, 3));
    QVERIFY(writeModelFiles(s.modelsRoot, tiny()));
    s.newFolderPerLaunch = false;
    for (int epoch = 0; epoch < 60; ++epoch)
        QVERIFY(writeFileBytes(QDir(s.outputPath).filePath(QStringLiteral("epoch-%1.safetensors").arg(epoch)), "x"));
    QVERIFY(writeFileBytes(QDir(s.outputPath).filePath(QStringLiteral("loss.csv")), "x"));
    QVERIFY(writeFileBytes(QDir(s.outputPath).filePath(QStringLiteral("training_args.json")), "{}"));
    window.runPanel()->setSettings(s);
    QString asked;
    QMessageBox::StandardButton defaultButton = QMessageBox::NoButton;
    QTimer::singleShot(50, [&]() {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        QVERIFY(box);
        asked = box->text();
        defaultButton = box->standardButton(box->defaultButton());
        box->button(QMessageBox::No)->click();
    });
    QVERIFY(!window.runPanel()->launchAsking(RunKind::Baseline));
    QVERIFY2(asked.contains(QString::fromUtf8("60 checkpoints (epoch-0 … epoch-59), loss.csv, training_args.json")),
        qPrintable(asked));
    QCOMPARE(defaultButton, QMessageBox::No);
}

void TestRunPanel::aRunningLaunchSaysSo()
{
    // While a launch ran, the panel read "Last launch: Stage two, failed after 0:00".
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(1400, 900);
    window.show();
    QVERIFY(prepareFakeWorker(window, dir.path()));
    RunPanel *panel = window.runPanel();
    RunController *controller = window.runController();
    QVERIFY(panel->launch(RunKind::Baseline));
    QString status = plainTextOf(panel->statusLabel()->text());
    QCOMPARE(status, QString::fromUtf8("One-stage baseline running…"));
    RunMonitor *monitor = window.runMonitor();
    QVERIFY2(plainTextOf(monitor->titleLabel()->text()).endsWith(QLatin1String("running")),
        qPrintable(monitor->titleLabel()->text()));
    QTRY_VERIFY(monitor->progressBar()->value() > 0);
    QCOMPARE(plainTextOf(panel->statusLabel()->text()), status);

    // The bar's text on one line and whole, also in a narrow monitor ("(56⏎%)").
    RunMonitor narrow(controller);
    narrow.resize(120, 500);
    narrow.show();
    QApplication::processEvents();
    for (QProgressBar *bar : {monitor->progressBar(), narrow.progressBar()}) {
        const QString text = bar->text();
        QCOMPARE(QString(text).replace(QChar::Nbsp, QLatin1Char(' ')), QStringLiteral("step 896 of 1600 (56 %)"));
        QVERIFY2(!text.contains(QLatin1Char(' ')), "a space the text can break at");
        QVERIFY2(bar->width() >= bar->fontMetrics().horizontalAdvance(text) + 16,
            qPrintable(QStringLiteral("%1 px for a text of %2 px").arg(bar->width()).arg(bar->fontMetrics().horizontalAdvance(text))));
    }

    panel->cancel();
    QVERIFY(controller->waitForIdle(30000));
    status = plainTextOf(panel->statusLabel()->text());
    QVERIFY2(status.startsWith(QLatin1String("Last launch: One-stage baseline, cancelled after")), qPrintable(status));
}

void TestRunPanel::wheelScrollsTheFormNotTheFields()
{
    // The wheel over the Run panel turned the LoRA rank from 32 to 26 instead of
    // scrolling the form.
    MainWindow window(false);
    window.resize(1024, 600);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));
    RunPanel *panel = window.runPanel();
    QApplication::processEvents();
    auto *scroll = panel->findChild<QScrollArea *>();
    QVERIFY(scroll);
    QScrollBar *bar = scroll->verticalScrollBar();
    QVERIFY2(bar->maximum() > 0, "the form fits: nothing to scroll");
    QSpinBox *rank = panel->rankSpin();
    scroll->ensureWidgetVisible(rank);
    QApplication::processEvents();
    const int value = rank->value();
    const int scrolled = bar->value();
    const int notch = scrolled < bar->maximum() ? -120 : 120; // down, or up at the end
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    panel->outputEdit()->setFocus();
    QVERIFY(!rank->hasFocus());
    // A wheel turn over the box (the mouse's own events, from the window system, were
    // checked by hand under Xvfb; a test cannot make a spontaneous one).
    auto turnWheel = [rank, notch]() {
        const QPointF at = QRectF(rank->rect()).center();
        QWheelEvent wheel(at, rank->mapToGlobal(at), QPoint(), QPoint(0, notch), Qt::NoButton, Qt::NoModifier,
            Qt::NoScrollPhase, false);
        QApplication::sendEvent(rank, &wheel);
    };
    turnWheel();
    QCOMPARE(rank->value(), value);
    QVERIFY2(bar->value() != scrolled, "the form did not scroll");
    for (QComboBox *combo : panel->findChildren<QComboBox *>())
        QCOMPARE(combo->focusPolicy(), Qt::StrongFocus);
    // A focused box takes the wheel, as it should.
    scroll->ensureWidgetVisible(rank);
    QApplication::processEvents();
    rank->setFocus();
    QVERIFY(rank->hasFocus());
    turnWheel();
    QCOMPARE(rank->value(), notch > 0 ? value + 1 : value - 1);
}

void TestRunPanel::settingsLayoutAndHistorySurviveARestart()
{
    QSettings().clear();
    QFile::remove(RunHistory::defaultPath());
    QTemporaryDir dir;
    RunSettings saved = tinyConfig(dir.path()).settings;
    saved.epochs = 7;
    saved.learningRate = 3e-4;
    saved.seed = 11;
    saved.threads = 2;
    {
        MainWindow window(true);
        window.show();
        window.runPanel()->setSettings(saved);
        window.findChild<QDockWidget *>(QStringLiteral("RunHistoryDock"))->hide();
        auto session = std::make_shared<RunSession>(RunKind::Baseline, window.runPanel()->config());
        StageRun &run = session->addStage(RunStage::OneStage);
        run.outcome = StageRun::Outcome::Finished;
        run.finalLoss = 0.5;
        window.runHistory()->add(session);
        window.close();
    }
    QVERIFY(QFile::exists(RunHistory::defaultPath()));
    MainWindow again(true);
    again.show();
    QVERIFY(again.runPanel()->settings() == saved);
    QCOMPARE(again.runPanel()->epochsSpin()->value(), 7);
    QVERIFY(again.findChild<QDockWidget *>(QStringLiteral("RunHistoryDock"))->isHidden());
    QCOMPARE(again.runHistory()->count(), 1);
    QCOMPARE(again.runHistory()->run(0)->finalLoss(), 0.5);
    again.close();
    QSettings().clear();
    QFile::remove(RunHistory::defaultPath());
}

void TestRunPanel::narrowDockKeepsTheButtonsInView()
{
    // After a run the docks re-flow (the monitor comes up) and the left dock was squeezed
    // below the form's width, cutting off Generate…, Create…, the "…" buttons and Copy.
    MainWindow window(false);
    window.resize(1500, 940);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));
    window.showDock(QStringLiteral("RunMonitorDock"));
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("RunDock"));
    QVERIFY(dock);
    window.resizeDocks({dock}, {120}, Qt::Horizontal);
    QApplication::processEvents();
    auto *scroll = window.runPanel()->findChild<QScrollArea *>();
    QVERIFY(scroll);
    const QWidget *viewport = scroll->viewport();
    const bool scrollsSideways = scroll->horizontalScrollBar()->isVisible();
    int buttons = 0;
    for (QAbstractButton *button : window.runPanel()->findChildren<QAbstractButton *>()) {
        if (!button->isVisibleTo(window.runPanel()) || button->text().isEmpty())
            continue;
        ++buttons;
        // Inside the scrolled content, and inside the view unless the view scrolls sideways.
        const QWidget *content = scroll->widget();
        const int right = button->mapTo(content, QPoint(button->width(), 0)).x();
        QVERIFY2(right <= content->width() && (scrollsSideways || right <= viewport->width()),
            qPrintable(QStringLiteral("%1 ends at %2; the content is %3 wide, the view %4")
                           .arg(button->text())
                           .arg(right)
                           .arg(content->width())
                           .arg(viewport->width())));
    }
    QVERIFY(buttons >= 8);
}

void TestRunPanel::smallWindowRunPanelFitsOrScrolls()
{
    // At 1024x700 the left dock was narrower than its content, with no horizontal scroll
    // bar: Generate…, Create… and the "…" buttons were cut off. The hints under the path
    // fields hold long paths without spaces, which set the content's minimum width (a
    // word-wrapped label cannot break them). Now they break anywhere, so the content's
    // minimum is the form's, and below it the panel scrolls sideways.
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/splitscope_a_rather_long_folder_name_without_any_spaces_XXXXXX"));
    QVERIFY(dir.isValid());
    MainWindow window(false);
    window.resize(1024, 700);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));
    window.showDock(QStringLiteral("RunMonitorDock"));
    RunPanel *panel = window.runPanel();
    RunSettings s = panel->settings();
    s.datasetPath = dir.filePath(QStringLiteral("dataset_folder_with_a_long_name"));
    s.modelsRoot = dir.filePath(QStringLiteral("models_folder_with_a_long_name"));
    s.cachePath = dir.filePath(QStringLiteral("cache_folder_with_a_long_name"));
    s.outputPath = dir.filePath(QStringLiteral("output_folder_with_a_long_name"));
    panel->setSettings(s);
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("RunDock"));
    QVERIFY(dock);
    auto *scroll = panel->findChild<QScrollArea *>();
    QVERIFY(scroll);
    QWidget *content = scroll->widget();
    // The hints show the paths, and still the content needs no more than a narrow dock
    // (a hint is one line, elided: its tooltip has the whole text).
    int hints = 0;
    for (QLabel *label : content->findChildren<QLabel *>()) {
        if (label->isVisibleTo(panel)
            && (plainTextOf(label->text()) + label->toolTip()).contains(QLatin1String("output_folder_with_a_long_name")))
            ++hints;
    }
    QVERIFY(hints >= 1);

    const auto check = [&](const char *when) {
        QApplication::processEvents();
        const QWidget *viewport = scroll->viewport();
        const QScrollBar *bar = scroll->horizontalScrollBar();
        const bool scrollsSideways = bar->isVisible() && bar->maximum() > 0;
        int buttons = 0;
        for (QAbstractButton *button : panel->findChildren<QAbstractButton *>()) {
            if (!button->isVisibleTo(panel) || button->text().isEmpty())
                continue;
            ++buttons;
            const QRect r(button->mapTo(content, QPoint(0, 0)), button->size());
            // Inside the content, and inside the view or reachable by scrolling sideways.
            const int reach = viewport->width() + (scrollsSideways ? bar->maximum() : 0);
            QVERIFY2(r.right() < content->width() && r.right() < reach && r.width() >= button->minimumSizeHint().width() / 2,
                qPrintable(QStringLiteral("%1: %2 ends at %3; the content is %4 wide, the view %5 (scroll %6)")
                               .arg(QLatin1String(when), button->text())
                               .arg(r.right())
                               .arg(content->width())
                               .arg(viewport->width())
                               .arg(scrollsSideways ? bar->maximum() : -1)));
        }
        QVERIFY(buttons >= 8);
    };
    // The dock at the width the window gives it (narrower than the form: the view
    // scrolls sideways), then squeezed to its minimum.
    check("as laid out");
    QVERIFY2(content->minimumSizeHint().width() <= 360, qPrintable(QString::number(content->minimumSizeHint().width())));
    window.resizeDocks({dock}, {1}, Qt::Horizontal);
    check("at its minimum");
}

void TestRunPanel::monitorFitsAShortWindow()
{
    // On a 1366x768 screen the monitor scrolled in its dock: the title, the stages and
    // the figures were stacked beside the charts, wrapped to fifteen lines; the log
    // showed a line or two, about 12 characters wide, and the loss axis read "... ... ...".
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(1366, 768);
    window.show();
    QVERIFY(prepareFakeWorker(window, dir.path()));
    RunController *controller = window.runController();
    QVERIFY(window.runPanel()->launch(RunKind::Baseline));
    RunMonitor *monitor = window.runMonitor();
    QTRY_VERIFY(monitor->progressBar()->value() > 0);
    QTRY_VERIFY(monitor->lossChart()->rawPoints(0) > 0);
    QApplication::processEvents();

    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("RunMonitorDock"));
    QVERIFY(dock && dock->isVisible());
    auto *scroll = qobject_cast<QScrollArea *>(dock->widget());
    QVERIFY(scroll);
    QVERIFY2(!scroll->verticalScrollBar()->isVisible(),
        qPrintable(QStringLiteral("the monitor needs %1 px, its dock has %2")
                       .arg(monitor->minimumSizeHint().height())
                       .arg(scroll->viewport()->height())));
    // What the launch is and how far it got, across the monitor: a line or two each.
    for (QLabel *label : {monitor->titleLabel(), monitor->stagesLabel(), monitor->detailsLabel()}) {
        const int lines = label->height() / label->fontMetrics().lineSpacing();
        QVERIFY2(!label->text().isEmpty() && lines <= 2,
            qPrintable(QStringLiteral("%1 lines: %2").arg(lines).arg(plainTextOf(label->text()))));
    }
    QVERIFY(plainTextOf(monitor->detailsLabel()->text()).contains(QLatin1String("Elapsed")));
    QPlainTextEdit *log = monitor->logView();
    const int characters = log->viewport()->width() / log->fontMetrics().averageCharWidth();
    const int lines = log->viewport()->height() / log->fontMetrics().lineSpacing();
    QVERIFY2(characters >= 24 && lines >= 10, qPrintable(QStringLiteral("a log of %1 lines of %2 characters").arg(lines).arg(characters)));
    // Qt Charts shortens a tick label to "..." when the axis has less height per tick
    // than the label's height and 4 px above and below it.
    int axes = 0;
    for (QChartView *view : monitor->findChildren<QChartView *>()) {
        const double plot = view->chart()->plotArea().height();
        QVERIFY2(plot >= 100, qPrintable(QStringLiteral("%1: a plot %2 px high").arg(view->chart()->title()).arg(plot)));
        for (QAbstractAxis *axis : view->chart()->axes(Qt::Vertical)) {
            auto *value = qobject_cast<QValueAxis *>(axis);
            QVERIFY(value);
            // The loss has one point so far (1.5): its axis read "1.4999..." and "1.5000...".
            const QStringList labels = axisTickLabels(value);
            QVERIFY2(labels.size() >= 2 && QSet<QString>(labels.begin(), labels.end()).size() == labels.size(),
                qPrintable(labels.join(QLatin1Char(' '))));
            for (const QString &label : labels)
                QVERIFY2(label.size() <= 5, qPrintable(labels.join(QLatin1Char(' '))));
            QVERIFY2(plot / labels.size() - 8 >= QFontMetricsF(value->labelsFont()).height(),
                qPrintable(QStringLiteral("%1: %2 labels on %3 px").arg(view->chart()->title()).arg(labels.size()).arg(plot)));
            ++axes;
        }
    }
    QCOMPARE(axes, 2);
    // One step so far: its smoothed loss is a dot (a line through one point drew nothing).
    int dots = 0;
    for (QAbstractSeries *series : monitor->lossChart()->chart()->series()) {
        const auto *line = qobject_cast<QLineSeries *>(series);
        dots += line && !line->name().isEmpty() && line->count() == 1 && line->pointsVisible();
    }
    QCOMPARE(dots, 1);
    window.runPanel()->cancel();
    QVERIFY(controller->waitForIdle(30000));
}

void TestRunPanel::crashKeepsTheMonitorsHeaderShort()
{
    // A crash's message (what happened, then the worker's last six lines of error
    // output) filled the monitor's header, nine lines in all: at 1366x768 the charts
    // lost that height. The header keeps two lines and says where the rest is.
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(1366, 768);
    window.show();
    QVERIFY(prepareFakeWorker(window, dir.path(), "crash"));
    QVERIFY(window.runPanel()->launch(RunKind::Baseline));
    QVERIFY(window.runController()->waitForIdle(30000));
    const auto session = window.runController()->session();
    QCOMPARE(session->outcome(), StageRun::Outcome::Crashed);
    const QString failure = session->current()->failure;
    QVERIFY2(failure.count(QLatin1Char('\n')) == 7 && failure.endsWith(QLatin1String("worker error line 8")), qPrintable(failure));
    QApplication::processEvents();

    RunMonitor *monitor = window.runMonitor();
    QLabel *details = monitor->detailsLabel();
    const QString shown = plainTextOf(details->text());
    QVERIFY2(shown.contains(QLatin1String("killed by signal 9")) && shown.contains(QLatin1String("6 more lines in the log"))
            && !shown.contains(QLatin1String("worker error line")),
        qPrintable(shown));
    // Nothing is lost: the log and the tooltip have the whole message.
    // Each on its line in the log (they ran into one paragraph there).
    const QString log = monitor->logView()->toPlainText();
    QVERIFY2(log.contains(QLatin1String("Last lines of its error output:\nworker error line 3\n"))
            && log.contains(QLatin1String("worker error line 7\nworker error line 8")),
        qPrintable(log));
    QVERIFY2(details->toolTip().contains(QLatin1String("worker error line 3")) && details->toolTip().contains(QLatin1String("worker error line 8")),
        qPrintable(details->toolTip()));
    // The figures (a line) and the two lines of the message, wrapped at most once each.
    const int lines = details->height() / details->fontMetrics().lineSpacing();
    QVERIFY2(lines <= 6, qPrintable(QStringLiteral("%1 lines: %2").arg(lines).arg(shown)));
    auto *scroll = qobject_cast<QScrollArea *>(window.findChild<QDockWidget *>(QStringLiteral("RunMonitorDock"))->widget());
    QVERIFY(scroll && !scroll->verticalScrollBar()->isVisible());

    // A launch from the history comes without its log: the message is shown in its place.
    const QString historyPath = dir.filePath(QStringLiteral("history.json"));
    {
        RunHistory before;
        QVERIFY(before.open(historyPath));
        before.add(session);
    }
    RunHistory history; // after a restart
    QVERIFY(history.open(historyPath));
    RunController controller;
    RunMonitor fromHistory(&controller);
    fromHistory.setHistory(&history);
    QCOMPARE(fromHistory.shownSession()->logTotal(), 0);
    QCOMPARE(plainTextOf(fromHistory.detailsLabel()->text()), shown);
    const QString kept = fromHistory.logView()->toPlainText();
    QVERIFY2(kept.startsWith(QLatin1String("The log of a launch from an earlier session is not kept"))
            && kept.contains(QLatin1String("killed by signal 9"))
            && kept.contains(QLatin1String("Last lines of its error output:\nworker error line 3\n"))
            && kept.endsWith(QLatin1String("worker error line 7\nworker error line 8")),
        qPrintable(kept));
    // Read from the top (appending had left the view at the end).
    fromHistory.resize(700, 300);
    fromHistory.show();
    QApplication::processEvents();
    const QScrollBar *logScroll = fromHistory.logView()->verticalScrollBar();
    QVERIFY(logScroll->maximum() > 0);
    QCOMPARE(logScroll->value(), 0);
}

void TestRunPanel::chartTickLabelsAreDistinct()
{
    // The run monitor's and the run history's charts before any run (0..10 steps,
    // 0..1 s): they read "0 2 5 7 10" and "0 0 1 1 1".
    MainWindow window(false);
    window.show();
    // At least 3 labels, or on a short vertical axis as many as its height can show whole.
    const auto check = [](const QValueAxis *axis, int least) {
        const QStringList labels = axisTickLabels(axis);
        QVERIFY2(labels.size() >= least, qPrintable(labels.join(QLatin1Char(' '))));
        QVERIFY2(QSet<QString>(labels.begin(), labels.end()).size() == labels.size(),
            qPrintable(labels.join(QLatin1Char(' '))));
        QCOMPARE(labels.front().toDouble(), axis->min());
    };
    int axes = 0;
    // The charts on screen: a dock behind another one is laid out at its least size,
    // and its charts take as many ticks as fit when it comes to the front.
    for (const char *dock : {"RunHistoryDock", "RunMonitorDock"}) {
        window.showDock(QLatin1String(dock));
        QApplication::processEvents();
        for (QChartView *chart : window.findChildren<QChartView *>()) {
            if (!chart->isVisible())
                continue;
            // Whole repaints (partial ones left stale bands after the axes changed).
            QCOMPARE(chart->viewportUpdateMode(), QGraphicsView::FullViewportUpdate);
            for (QAbstractAxis *axis : chart->chart()->axes()) {
                if (auto *value = qobject_cast<QValueAxis *>(axis)) {
                    const bool vertical = value->orientation() == Qt::Vertical;
                    check(value, vertical ? std::min(3, ticksThatFit(chart->chart()->plotArea().height(), value)) : 3);
                    ++axes;
                }
            }
        }
    }
    QVERIFY(axes >= 8); // loss and memory, x and y, in the monitor and the history
    // Short runs and small spans: optimizer steps stay integers, seconds get their decimals.
    QValueAxis axis;
    const struct {
        double min, max;
        bool integers;
        const char *expected;
    } cases[] = {{0, 10, true, "0 2 4 6 8 10"}, {0, 1, false, "0.0 0.2 0.4 0.6 0.8 1.0"}, {0, 3, true, "0 1 2 3"},
        {0, 4, true, "0 1 2 3 4"}, {0, 2.5, false, "0.0 0.5 1.0 1.5 2.0 2.5"}, {0.44, 0.47, false, "0.44 0.45 0.46 0.47"},
        {0, 1, true, "0 1"}};
    for (const auto &c : cases) {
        setAxisRange(&axis, c.min, c.max, c.integers);
        QCOMPARE(axisTickLabels(&axis).join(QLatin1Char(' ')), QString::fromLatin1(c.expected));
    }

    // A fine interval left from a small span must never meet a large new range: Qt
    // Charts would lay out one item per tick (10^8 here) and the GUI would hang, as
    // clearing the loss chart for a new run once did.
    QChartView view;
    auto *x = new QValueAxis;
    view.chart()->addAxis(x, Qt::AlignBottom);
    view.resize(400, 300);
    view.show();
    setAxisRange(x, 0.44, 0.47, false);
    QCoreApplication::processEvents();
    setAxisRange(x, 0, 1e6, false);
    QCoreApplication::processEvents();
    QCOMPARE(axisTickLabels(x).join(QLatin1Char(' ')), QStringLiteral("0 200000 400000 600000 800000 1000000"));
}

void TestRunPanel::pipelineThatCannotRunRaisesItsTabs()
{
    // wan_video opened after a tiny-qwen-image session showed "Inspect only" and an empty
    // Run monitor in front, instead of Training configuration and the Stepper.
    MainWindow window(false);
    window.resize(1500, 940);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto dock = [&window](const char *name) { return window.findChild<QDockWidget *>(QLatin1String(name)); };
    auto inFront = [](QDockWidget *d) { return d->isVisible() && !d->visibleRegion().isEmpty(); };
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));
    window.showDock(QStringLiteral("RunMonitorDock"));
    QApplication::processEvents();
    QVERIFY(inFront(dock("RunDock")));
    QVERIFY(!inFront(dock("TrainingDock")));
    QVERIFY(inFront(dock("RunMonitorDock")));
    // The same runnable pipeline again: the user's layout stays.
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QApplication::processEvents();
    QVERIFY(inFront(dock("RunDock")));
    QVERIFY(inFront(dock("RunMonitorDock")));

    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    QApplication::processEvents();
    QVERIFY(inFront(dock("TrainingDock")));
    QVERIFY(!inFront(dock("RunDock")));
    QVERIFY(inFront(dock("StepperDock")));
    QVERIFY(!inFront(dock("RunMonitorDock")));

    // The user looks at Run again ("Inspect only"): a reload of the same pipeline keeps it.
    window.showDock(QStringLiteral("RunDock"));
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    QApplication::processEvents();
    QVERIFY(inFront(dock("RunDock")));
    // Back to a runnable pipeline: nothing is raised.
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QApplication::processEvents();
    QVERIFY(inFront(dock("RunDock")));
    QVERIFY(inFront(dock("StepperDock")));
    // A closed Training configuration is not opened again.
    dock("TrainingDock")->close();
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    QApplication::processEvents();
    QVERIFY(dock("TrainingDock")->isHidden());
    QVERIFY(inFront(dock("RunDock")));
}

void TestRunPanel::typingMovesNoField()
{
    // A message under the learning rate appeared as the user typed and pushed LoRA rank
    // down: a click aimed at it landed on the message.
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(1500, 940);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.showDock(QStringLiteral("RunDock"));
    RunPanel *panel = window.runPanel();
    const RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    panel->setSettings(c.settings);
    QApplication::processEvents();
    QVERIFY(panel->issues().isEmpty());
    // In the scrolled form (a refusal scrolls it to the status line).
    QWidget *form = panel->findChild<QScrollArea *>()->widget();
    auto where = [form](QWidget *w) { return w->mapTo(form, QPoint(0, 0)); };
    const QPoint rank = where(panel->rankSpin());
    const QPoint output = where(panel->outputEdit());
    // The folders' lines are there with or without a problem.
    QVERIFY(panel->fieldLine(RunField::Dataset)->isVisible());
    QVERIFY(panel->fieldLine(RunField::Output)->isVisible());

    QTest::keyClicks(panel->learningRateEdit(), QStringLiteral("abc"));
    panel->datasetEdit()->setText(dir.filePath(QStringLiteral("missing")));
    QTRY_VERIFY(!panel->fieldMessage(RunField::LearningRate).isEmpty());
    QTRY_VERIFY(panel->fieldMessage(RunField::Dataset).contains(QLatin1String("has no metadata.csv")));
    QApplication::processEvents();
    // The problem is in the field: frame, icon and tooltip; no line came under it.
    QLineEdit *lr = panel->learningRateEdit();
    QVERIFY(lr->styleSheet().contains(QLatin1String("#c2255c")));
    QVERIFY(lr->toolTip().contains(QLatin1String("not a positive number")));
    QVERIFY(lr->accessibleDescription().contains(QLatin1String("not a positive number")));
    bool icon = false;
    for (QAction *action : lr->actions())
        icon = icon || (action->isVisible() && action->toolTip().contains(QLatin1String("not a positive number")));
    QVERIFY(icon);
    QVERIFY(!panel->fieldLine(RunField::LearningRate)->isVisible());
    QCOMPARE(where(panel->rankSpin()), rank);
    QCOMPARE(where(panel->outputEdit()), output);

    // A refused launch gives the number fields their lines, and they stay while the
    // user fixes the problems, so that the fields move once, when a button was pressed.
    QVERIFY(!panel->launch(RunKind::Baseline));
    QApplication::processEvents();
    QVERIFY(panel->fieldLine(RunField::LearningRate)->isVisible());
    // One line, elided; the whole problem in its tooltip.
    QVERIFY(panel->fieldLine(RunField::LearningRate)->toolTip().contains(QLatin1String("not a positive number")));
    QVERIFY(panel->fieldLine(RunField::LearningRate)->text().startsWith(QLatin1String("The learn")));
    // A screen reader gets the whole message, not the shortened line.
    QCOMPARE(panel->fieldLine(RunField::LearningRate)->accessibleName(),
        panel->fieldLine(RunField::LearningRate)->toolTip());
    const QPoint refusedRank = where(panel->rankSpin());
    QVERIFY(refusedRank.y() > rank.y());
    lr->setText(QStringLiteral("1e-3"));
    QTRY_VERIFY(panel->fieldMessage(RunField::LearningRate).isEmpty());
    QApplication::processEvents();
    QVERIFY(panel->fieldLine(RunField::LearningRate)->isVisible());
    QVERIFY(panel->fieldLine(RunField::LearningRate)->text().isEmpty());
    QCOMPARE(where(panel->rankSpin()), refusedRank);
    QVERIFY(lr->styleSheet().isEmpty());
    QVERIFY(!lr->toolTip().contains(QLatin1String("not a positive number")));
    QVERIFY(lr->accessibleDescription().isEmpty());
}

// Save run settings… writes the fields as the JSON --run-settings reads; Load run
// settings… fills them from such a file, and a bad file leaves them as they were.
void TestRunPanel::runSettingsAreSavedAndLoaded()
{
    QTemporaryDir dir;
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunPanel *panel = window.runPanel();
    RunSettings saved = tinyConfig(dir.path()).settings;
    saved.epochs = 7;
    saved.learningRate = 0.002;
    saved.loraRank = 8;
    saved.seed = 42;
    saved.newFolderPerLaunch = false;
    panel->setSettings(saved);
    const QString file = dir.filePath(QStringLiteral("settings/run.json"));
    QString error;
    QVERIFY(!panel->saveSettingsFile(file, &error)); // its folder is not there
    QVERIFY2(error.contains(file), qPrintable(error));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("settings"))));
    QVERIFY2(panel->saveSettingsFile(file, &error), qPrintable(error));
    QStringList errors;
    QCOMPARE(readRunSettingsFile(file, RunPanel::defaultSettings(), &errors), std::optional<RunSettings>(saved));

    panel->setSettings(RunPanel::defaultSettings());
    QVERIFY(!(panel->settings() == saved));
    QVERIFY2(panel->loadSettingsFile(file, &errors), qPrintable(errors.join('\n')));
    QCOMPARE(panel->settings(), saved);
    QCOMPARE(panel->epochsSpin()->value(), 7);

    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write(R"({"num_epoch": 3})");
    badFile.close();
    panel->setSettings(RunPanel::defaultSettings());
    const RunSettings before = panel->settings();
    errors.clear();
    QVERIFY(!panel->loadSettingsFile(bad, &errors));
    QVERIFY2(errors.join('\n').contains(QLatin1String("num_epoch: unknown key; did you mean num_epochs?")),
        qPrintable(errors.join('\n')));
    QCOMPARE(panel->settings(), before);
    QVERIFY(panel->loadSettingsAction()->isEnabled() && panel->saveSettingsAction()->isEnabled());
}

QTEST_MAIN(TestRunPanel)
#include "tst_runpanel.moc"
