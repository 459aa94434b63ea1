// SPDX-License-Identifier: MIT
// The Run panel and its window without a worker: a description-only pipeline says
// why it cannot run; every field is checked on disk and its problem shown under it;
// the training choice of the configuration panel reaches the checks and the
// commands; a missing worker program is a clear error; the Run menu; settings,
// window layout and run history survive a restart.
#include "RunTestSupport.h"
#include "WidgetTestSupport.h"

#include "MainWindow.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/run/RunCharts.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunPanel.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

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
    void settingsLayoutAndHistorySurviveARestart();
    void narrowDockKeepsTheButtonsInView();
    void smallWindowRunPanelFitsOrScrolls();
    void chartTickLabelsAreDistinct();
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
    QTRY_COMPARE(panel->fieldMessage(RunField::Dataset), QStringLiteral("3 image(s); columns image, prompt"));
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
    QTRY_VERIFY(panel->fieldMessage(RunField::Cache).contains(QLatin1String("holds a cache of the seed split for vae")));

    // A learning rate that is not a number.
    panel->learningRateEdit()->setText(QStringLiteral("fast"));
    QVERIFY(!panel->launch(RunKind::Baseline));
    QVERIFY(plainTextOf(panel->statusLabel()->text()).contains(QLatin1String("the learning rate is not a positive number")));
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
    QCOMPARE(panel->config().loraBase, QStringLiteral("dit"));
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
    QVERIFY(command.contains(QLatin1String("--output_path ") + c.settings.outputPath + QLatin1String("/one-stage")));
    QMetaObject::invokeMethod(panel, "copyCommand");
    QCOMPARE(QGuiApplication::clipboard()->text(), command);

    // Nothing to train.
    document->setLoraBase(std::nullopt);
    QTRY_VERIFY(panel->fieldMessage(RunField::Training).startsWith(QLatin1String("Nothing to train")));
    // The text encoder with a LoRA on the DiT: the seed split has a hazard.
    document->setLoraBase(std::string("dit"));
    document->setModelTrainable("text_encoder", true);
    QTRY_VERIFY(panel->fieldMessage(RunField::Hazards).startsWith(QLatin1String("The seed split has 1 hazard(s)")));
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
    // The hints show the paths, and still the content needs no more than a narrow dock.
    int hints = 0;
    for (QLabel *label : content->findChildren<QLabel *>()) {
        if (label->isVisibleTo(panel) && plainTextOf(label->text()).contains(QLatin1String("output_folder_with_a_long_name")))
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

void TestRunPanel::chartTickLabelsAreDistinct()
{
    // The run monitor's and the run history's charts before any run (0..10 steps,
    // 0..1 s): they read "0 2 5 7 10" and "0 0 1 1 1".
    MainWindow window(false);
    window.show();
    window.showDock(QStringLiteral("RunHistoryDock"));
    const auto check = [](const QValueAxis *axis) {
        const QStringList labels = axisTickLabels(axis);
        QVERIFY2(labels.size() >= 3, qPrintable(labels.join(QLatin1Char(' '))));
        QVERIFY2(QSet<QString>(labels.begin(), labels.end()).size() == labels.size(),
            qPrintable(labels.join(QLatin1Char(' '))));
        QCOMPARE(labels.front().toDouble(), axis->min());
    };
    int axes = 0;
    for (QChartView *chart : window.findChildren<QChartView *>()) {
        // Whole repaints (partial ones left stale bands after the axes changed).
        QCOMPARE(chart->viewportUpdateMode(), QGraphicsView::FullViewportUpdate);
        for (QAbstractAxis *axis : chart->chart()->axes()) {
            if (auto *value = qobject_cast<QValueAxis *>(axis)) {
                check(value);
                ++axes;
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

QTEST_MAIN(TestRunPanel)
#include "tst_runpanel.moc"
