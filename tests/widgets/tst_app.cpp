// SPDX-License-Identifier: MIT
// The desktop app: the main window in process (examples menu, drag and drop,
// recent files, presentation mode, command-line options, import) and the
// `splitscope` program's headless screenshot mode as a separate process.
#include "RunTestSupport.h"
#include "WidgetTestSupport.h"
#include "widgets/models/DiagnosticsModel.h"

#include "GuiOptions.h"
#include "MainWindow.h"
#include "StartupOptions.h"

#include "widgets/document/PipelineFileWatcher.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/graph/GraphOverview.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/graph/UnitNodeItem.h"
#include "PanelSideBar.h"
#include "widgets/models/FindingsModel.h"
#include "widgets/models/ParamTableModel.h"
#include "widgets/models/UnitPortsModel.h"
#include "widgets/panels/ComparePanel.h"
#include "widgets/panels/InspectorPanel.h"
#include "widgets/panels/LoadErrorBanner.h"
#include "widgets/panels/ParamsPanel.h"
#include "widgets/panels/StepperPanel.h"
#include "widgets/panels/VerifierPanel.h"
#include "widgets/run/LossChartView.h"
#include "widgets/run/MemoryChartView.h"
#include "widgets/run/RunComparisonModel.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunHistoryModel.h"
#include "widgets/run/RunHistoryPanel.h"
#include "widgets/run/RunPanel.h"
#include "widgets/run/RunSession.h"
#ifdef SPLITSCOPE_HAVE_PLAN
#include "widgets/plan/PlanController.h"
#endif

#include <QAbstractButton>
#include <QToolButton>
#include <QMap>
#include <QDockWidget>
#include <QImage>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabBar>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QSettings>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QFile>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>

#include <algorithm>
#include <iterator>
#include <tuple>

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr int kProcessTimeoutMs = 60000;

struct Run {
    int exitCode = -1;
    QString stdErr;
};

Run runApp(const QStringList &arguments, QString *stdOut = nullptr, bool withPlatform = true)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (withPlatform) {
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    } else {
        // As on a machine without a display.
        for (const char *name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            env.remove(QString::fromLatin1(name));
    }
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(SPLITSCOPE_GUI), arguments);
    Run run;
    if (!process.waitForFinished(kProcessTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.stdErr = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.stdErr = QString::fromLocal8Bit(process.readAllStandardError());
    if (stdOut)
        *stdOut = QString::fromLocal8Bit(process.readAllStandardOutput());
    return run;
}

QAction *findAction(QMenu *menu, const QString &text)
{
    for (QAction *a : menu->actions()) {
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
        if (a->menu()) {
            if (QAction *inner = findAction(a->menu(), text))
                return inner;
        }
    }
    return nullptr;
}

QAction *menuAction(QMainWindow &window, const QString &text)
{
    for (QAction *top : window.menuBar()->actions()) {
        if (QAction *a = findAction(top->menu(), text))
            return a;
    }
    return nullptr;
}

} // namespace

class TestApp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void examplesMenuOpensEachExample();
    void dropAFileToOpenIt();
    void startupOptionsApply();
    void startupOptionsRejectBadValues_data();
    void startupOptionsRejectBadValues();
    void presentationModeShowsGraphAndStepper();
    void presentationModeKeepsNamesReadable_data();
    void presentationModeKeepsNamesReadable();
    void anotherPipelineLeavesSideBySide();
    void importsADiffSynthSource();
    void planOptionOpensThePlannedPipeline();
    void screenshotOfAPlan();
    void screenshotWritesThePicture();
    void screenshotOfAStepAndAComparison();
    void screenshotRefusesBadInput_data();
    void screenshotRefusesBadInput();
    void longUnitNameDoesNotWidenTheWindow();
    void oversizedSavedGeometryIsFittedToTheScreen();
    void helpAndVersionNeedNoDisplay();
    void screenshotSaysWhyItIsLargerThanAsked();
    void windowFitsASmallScreen();
    void graphHasMostOfALaptopWindow_data();
    void graphHasMostOfALaptopWindow();
    void namesReadAtTheFittedZoom_data();
    void namesReadAtTheFittedZoom();
    void panelsFoldIntoTheSideBar();
    void selectZoomsToTheUnit();
    void fileThatFailedAtStartupIsRetried();
    void verifierSummaryIsReadableOnASmallScreen_data();
    void verifierSummaryIsReadableOnASmallScreen();
    void paramsCacheColumnIsInViewWhenDocked();
    void hazardCellsAreReadableInTheDocks_data();
    void hazardCellsAreReadableInTheDocks();
    void longParamNamesFitTheInspector_data();
    void longParamNamesFitTheInspector();
    void runHistoryIsReadableInItsDock_data();
    void runHistoryIsReadableInItsDock();
    void stepperAndDockTabsFitASmallWindow_data();
    void stepperAndDockTabsFitASmallWindow();
    void findFieldStartsEmptyForAnotherPipeline();
    void deletedFileIsReportedAsDeleted();
    void altKeysAreUniqueInEachArrangement();
    void tabVisitsWhatIsOnScreenInReadingOrder();
};

void TestApp::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // never touch the user's settings
}

void TestApp::examplesMenuOpensEachExample()
{
    MainWindow window(false);
    window.show();
    for (const QString &name : exampleNames()) {
        QAction *action = menuAction(window, name);
        QVERIFY2(action, qPrintable(name));
        action->trigger();
        QCOMPARE(window.document()->source().exampleName, name);
        QVERIFY(window.windowTitle().contains(name));
    }
    QVERIFY(waitForGraph(*window.workspace()));
}

void TestApp::dropAFileToOpenIt()
{
    MainWindow window(false);
    window.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(examplePath(QStringLiteral("krea2")))});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(window.document()->source().path, examplePath(QStringLiteral("krea2")));
    // The file is now first in Open Recent.
    QAction *recent = menuAction(window, QStringLiteral("krea2.json"));
    QVERIFY(recent);
    QCOMPARE(recent->toolTip(), examplePath(QStringLiteral("krea2")));
}

void TestApp::startupOptionsApply()
{
    MainWindow window(false);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("qwen_image")));
    const GuiOptionsResult parsed = parseGuiOptions({QStringLiteral("splitscope"), QStringLiteral("qwen_image"),
        QStringLiteral("--trainable"), QStringLiteral("vae,text_encoder"), QStringLiteral("--lora-base"),
        QStringLiteral("none"), QStringLiteral("--mode"), QStringLiteral("safe"), QStringLiteral("--select"),
        QStringLiteral("QwenImageUnit_PromptEmbedder"), QStringLiteral("--compare"), QStringLiteral("other"),
        QStringLiteral("--step"), QStringLiteral("X0"), QStringLiteral("--chains")});
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    QCOMPARE(applyStartupOptions(window, parsed.options), QString());
    SplitDocument *document = window.document();
    QCOMPARE(document->training().trainable, (std::vector<std::string>{"text_encoder", "vae"}));
    QVERIFY(!document->training().loraBase);
    QCOMPARE(document->training().mode, SplitMode::Safe);
    QCOMPARE(document->currentUnit(), document->graph().findUnit("QwenImageUnit_PromptEmbedder"));
    QCOMPARE(document->compareKind(), SplitDocument::CompareKind::OtherMode);
    QCOMPARE(window.cursor()->position(), 0);
    QVERIFY(window.workspace()->actions().chains->isChecked());
    // --select also takes a name as the graph shows it (without the shared prefix) and the loss.
    for (const auto &[given, unit] : {std::pair{"NoiseInitializer", "QwenImageUnit_NoiseInitializer"},
             std::pair{"FlowMatchSFTLoss", "FlowMatchSFTLoss"}}) {
        const GuiOptionsResult select = parseGuiOptions(
            {QStringLiteral("splitscope"), QStringLiteral("qwen_image"), QStringLiteral("--select"), QString::fromLatin1(given)});
        QCOMPARE(applyStartupOptions(window, select.options), QString());
        QCOMPARE(document->graph().unitName(document->currentUnit()), std::string(unit));
    }
}

void TestApp::startupOptionsRejectBadValues_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("flag");
    QTest::newRow("unknown model") << QStringList{QStringLiteral("--trainable"), QStringLiteral("unet")}
                                   << QStringLiteral("--trainable: unknown model 'unet'");
    QTest::newRow("unknown lora") << QStringList{QStringLiteral("--lora-base"), QStringLiteral("x")}
                                  << QStringLiteral("--lora-base");
    QTest::newRow("bad step") << QStringList{QStringLiteral("--step"), QStringLiteral("U9")}
                              << QStringLiteral("--step: 'U9'");
    QTest::newRow("bad unit") << QStringList{QStringLiteral("--select"), QStringLiteral("Nope")}
                              << QStringLiteral("--select: no unit named 'Nope'");
    QTest::newRow("bad preset") << QStringList{QStringLiteral("--compare"), QStringLiteral("7")}
                                << QStringLiteral("--compare: preset 7");
}

void TestApp::startupOptionsRejectBadValues()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, flag);
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("qwen_image")));
    const GuiOptionsResult parsed = parseGuiOptions(QStringList{QStringLiteral("splitscope")} + arguments);
    QVERIFY(parsed.error.isEmpty());
    const QString error = applyStartupOptions(window, parsed.options);
    QVERIFY2(error.startsWith(flag), qPrintable(error));
}

void TestApp::presentationModeShowsGraphAndStepper()
{
    MainWindow window(false);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    QList<QDockWidget *> visibleBefore;
    for (QDockWidget *dock : window.findChildren<QDockWidget *>()) {
        if (dock->isVisible())
            visibleBefore << dock;
    }
    QVERIFY(visibleBefore.size() >= 3);
    window.stepper()->stepActions().last()->trigger(); // F5
    QVERIFY(window.presentationMode());
    QVERIFY(window.stepper()->presentationMode());
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        QCOMPARE(dock->isVisible(), dock->isAncestorOf(window.stepper()));
    for (QToolBar *bar : window.findChildren<QToolBar *>())
        QVERIFY(!bar->isVisible());
    QVERIFY(!window.menuBar()->isVisible());
    QVERIFY(!window.statusBar()->isVisible());
    window.setPresentationMode(false);
    QVERIFY(!window.stepper()->presentationMode());
    for (QDockWidget *dock : visibleBefore)
        QVERIFY2(dock->isVisible(), qPrintable(dock->windowTitle()));
    QVERIFY(window.menuBar()->isVisible());
    QVERIFY(window.statusBar()->isVisible());
    // Escape leaves it too.
    window.stepper()->stepActions().last()->trigger();
    QVERIFY(window.presentationMode());
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY(!window.presentationMode());
    QVERIFY(!window.stepper()->presentationMode());
    QVERIFY(window.menuBar()->isVisible());
}

// Side by side belongs to a comparison: opening another pipeline (which starts with
// none) goes back to one view, in the workspace and in the Compare panel alike.
void TestApp::presentationModeKeepsNamesReadable_data()
{
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<QSize>("size");
    QTest::newRow("wan_video 1280x800") << QStringLiteral("wan_video") << QSize(1280, 800);
    QTest::newRow("wan_video 1920x1080") << QStringLiteral("wan_video") << QSize(1920, 1080);
    QTest::newRow("qwen_image 1280x800") << QStringLiteral("qwen_image") << QSize(1280, 800);
    QTest::newRow("qwen_image 1920x1080") << QStringLiteral("qwen_image") << QSize(1920, 1080);
}

// On a 1280x800 projector wan_video was fitted at about 35 %: boxes without names (they
// are drawn from 45 %), and the large explanation had three lines before it scrolled.
void TestApp::presentationModeKeepsNamesReadable()
{
    QFETCH(QString, pipeline);
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(pipeline));
    SplitDocument *document = window.document();
    if (pipeline == QLatin1String("wan_video")) {
        document->setModelTrainable("image_encoder", true);
        document->setLoraBase(std::nullopt);
    }
    QVERIFY(waitForGraph(*window.workspace()));
    TraceCursor *cursor = window.cursor();
    cursor->setPosition(2); // U1
    window.setPresentationMode(true);
    QApplication::processEvents();
    QVERIFY(!window.workspace()->searchField()->isVisible()); // graph and steps only
    GraphView *view = window.workspace()->view();
    // Names at least 10 px tall on screen (and so drawn: above the 45 % detail zoom).
    const double readable = GraphView::zoomForNamePixels(10);
    QVERIFY2(view->zoom() >= readable - 1e-6 && view->zoom() >= 0.45,
        qPrintable(QStringLiteral("zoom %1, readable from %2").arg(view->zoom()).arg(readable)));
    // What the step added is in view, also where the graph is larger than the view (where
    // the added units are spread wider than the view: the middle of them).
    const auto verifyAddedInView = [&]() {
        const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
        QRectF added;
        for (const UnitId unit : window.workspace()->scene()->addedUnits())
            added |= window.workspace()->scene()->nodeItem(unit)->sceneBoundingRect();
        if (added.isEmpty())
            return; // nothing added at this step
        if (added.width() <= visible.width() && added.height() <= visible.height())
            QVERIFY2(visible.contains(added), qPrintable(QStringLiteral("%1 %2").arg(added.x()).arg(added.y())));
        else
            QVERIFY(visible.contains(added.center()));
    };
    verifyAddedInView();
    // The explanation has at least a third of the window, up to half where it needs it.
    QDockWidget *stepperDock = nullptr;
    for (QDockWidget *dock : window.findChildren<QDockWidget *>()) {
        if (dock->isAncestorOf(window.stepper()))
            stepperDock = dock;
    }
    QVERIFY(stepperDock);
    QVERIFY2(stepperDock->height() >= size.height() / 3 - 2, qPrintable(QString::number(stepperDock->height())));
    const int needed = window.stepper()->heightForWholeExplanation(stepperDock->width());
    if (needed < size.height() / 2 - 60) {
        auto *text = window.stepper()->findChild<QTextBrowser *>();
        QVERIFY(text);
        QVERIFY2(!text->verticalScrollBar()->isVisible(), qPrintable(QStringLiteral("%1 px needed, %2 px dock")
                                                                       .arg(needed).arg(stepperDock->height())));
    } else {
        QVERIFY2(stepperDock->height() >= size.height() / 2 - 4, qPrintable(QString::number(stepperDock->height())));
    }
    // The next step is shown too.
    cursor->first();
    cursor->next(); // F1
    QApplication::processEvents();
    verifyAddedInView();
    // No minimap over the graph's corner while presenting (it covered a unit); back after.
    QVERIFY(!view->overviewEnabled() && !view->overview()->isVisible());
    window.setPresentationMode(false);
    QCOMPARE(view->minimumFitZoom(), 0.0);
    QVERIFY(view->overviewEnabled());
    QApplication::processEvents();
    QVERIFY(window.workspace()->searchField()->isVisible());
}

void TestApp::anotherPipelineLeavesSideBySide()
{
    MainWindow window(false);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("ltx2_audio_video")));
    window.document()->setComparison(SplitDocument::CompareKind::OtherMode);
    window.workspace()->setSideBySide(true);
    QVERIFY(window.workspace()->isSideBySide());
    QVERIFY(window.findChild<ComparePanel *>()->sideBySide());
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QCOMPARE(window.document()->compareKind(), SplitDocument::CompareKind::None);
    QVERIFY(!window.workspace()->isSideBySide());
    QVERIFY(!window.findChild<ComparePanel *>()->sideBySide());
    // Reloading the same pipeline keeps the comparison, and so the second view.
    window.document()->setComparison(SplitDocument::CompareKind::OtherMode);
    window.workspace()->setSideBySide(true);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QVERIFY(window.workspace()->isSideBySide() == (window.document()->compareKind() != SplitDocument::CompareKind::None));
}

void TestApp::importsADiffSynthSource()
{
#ifdef SPLITSCOPE_HAVE_IMPORTER
    MainWindow window(false);
    QVERIFY(window.openSource(QStringLiteral("krea2")));
    QVERIFY(window.importDiffSynthPath(QStringLiteral(SPLITSCOPE_SOURCE_DIR "/tests/importer/fixtures/qwen_image.py")));
    SplitDocument *document = window.document();
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("qwen_image"));
    QVERIFY(document->source().path.isEmpty());
    QVERIFY(document->source().displayName().contains(QStringLiteral("qwen_image.py")));
    // A file that is not a pipeline: errors shown, the pipeline stays.
    QVERIFY(!window.importDiffSynthPath(QStringLiteral("/nonexistent/thing.py")));
    QVERIFY(document->lastLoadFailed());
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("qwen_image"));
    // A Python syntax error: the Problems table names file, line and column, and no
    // "JSON path" (it used to say "(document)").
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.py"));
    {
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("class P(BasePipeline):\n    def __init__(self)\n        self.units = []\n");
    }
    DiagnosticsModel problems(document);
    QVERIFY(!window.importDiffSynthPath(bad));
    bool syntaxError = false;
    for (int row = 0; row < problems.rowCount(); ++row) {
        const QString where = problems.index(row, DiagnosticsModel::LocationColumn).data().toString();
        QVERIFY(problems.index(row, DiagnosticsModel::PathColumn).data().toString() != QStringLiteral("(document)"));
        syntaxError = syntaxError || where == QStringLiteral("bad.py:2:23");
    }
    QVERIFY(syntaxError);
#else
    QSKIP("the importer (splitscope_importer) is not built");
#endif
}

namespace {
const QString kPlanScript = QStringLiteral(SPLITSCOPE_SOURCE_DIR "/tests/plan/fixtures/lora.sh");
const QString kPlanCheckout = QStringLiteral(SPLITSCOPE_SOURCE_DIR "/tests/importer/fixtures/checkout");
} // namespace

void TestApp::planOptionOpensThePlannedPipeline()
{
#ifdef SPLITSCOPE_HAVE_PLAN
    MainWindow window(false);
    window.show();
    const GuiOptionsResult parsed = parseGuiOptions({QStringLiteral("splitscope"), QStringLiteral("--plan"), kPlanScript,
        QStringLiteral("--diffsynth"), kPlanCheckout, QStringLiteral("--trainable"), QStringLiteral("text_encoder"),
        QStringLiteral("--show"), QStringLiteral("plan")});
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    QCOMPARE(startPlan(window, parsed.options), QString());
    // The plan opened what the script trains, split as it trains it (LoRA on dit).
    SplitDocument *document = window.document();
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("tiny_image"));
    QCOMPARE(document->training().toConfig().loraBaseModel, std::optional<std::string>("dit"));
    // --trainable after it plans again with text_encoder trained as well.
    QCOMPARE(applyStartupOptions(window, parsed.options), QString());
    waitForStartupPlan(window, parsed.options);
    showStartupPanel(window, parsed.options);
    const auto plan = window.planController()->current();
    QVERIFY(plan);
    QCOMPARE(plan->trainingConfig.trainableModels, std::optional<std::string>("text_encoder"));
    QVERIFY2(QString::fromStdString(plan->stageTwo.command).contains(QStringLiteral("--trainable_models text_encoder")),
        plan->stageTwo.command.c_str());
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("PlanDock"));
    QVERIFY(dock && dock->isVisible());
    // Its commands are long lines: the dock is given a third of the window.
    QVERIFY2(dock->width() >= window.width() / 3 - 8, qPrintable(QString::number(dock->width())));

    // What the planner refuses is said with the script's name and line.
    QTemporaryDir dir;
    const QString none = dir.filePath(QStringLiteral("none.sh"));
    {
        QFile file(none);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("echo nothing to train\n");
    }
    GuiOptions bad = parsed.options;
    bad.planScript = none;
    const QString error = startPlan(window, bad);
    QVERIFY2(error.contains(none + QStringLiteral(":1: error: no command runs a train.py")), qPrintable(error));
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("tiny_image"));
#else
    QSKIP("the planner (splitscope_plan) is not built");
#endif
}

void TestApp::screenshotOfAPlan()
{
#ifdef SPLITSCOPE_HAVE_PLAN
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("plan.png"));
    Run run = runApp({QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("1366x768"),
        QStringLiteral("--plan"), kPlanScript, QStringLiteral("--diffsynth"), kPlanCheckout, QStringLiteral("--show"),
        QStringLiteral("plan")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QCOMPARE(QImage(out).size(), QSize(1366, 768));
    // Bad input: exit status 2, the flag named, no picture.
    const QString none = dir.filePath(QStringLiteral("none.png"));
    run = runApp({QStringLiteral("--screenshot"), none, QStringLiteral("--plan"), kPlanScript});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(QStringLiteral("--plan: needs --diffsynth")), qPrintable(run.stdErr));
    run = runApp({QStringLiteral("--screenshot"), none, QStringLiteral("--plan"), QStringLiteral("/nonexistent/train.sh"),
        QStringLiteral("--diffsynth"), kPlanCheckout});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(QStringLiteral("--plan: /nonexistent/train.sh")), qPrintable(run.stdErr));
    run = runApp({QStringLiteral("--screenshot"), none, QStringLiteral("qwen_image"), QStringLiteral("--plan"), kPlanScript,
        QStringLiteral("--diffsynth"), kPlanCheckout});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(QStringLiteral("--plan: not with a PIPELINE")), qPrintable(run.stdErr));
    QVERIFY(!QFile::exists(none));
#else
    QSKIP("the planner (splitscope_plan) is not built");
#endif
}

void TestApp::screenshotWritesThePicture()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("shot.png"));
    const Run run = runApp({QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("1200x800"),
        QStringLiteral("qwen_image"), QStringLiteral("--trainable"), QStringLiteral("vae")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QImage image;
    QVERIFY(image.load(out, "PNG"));
    QCOMPARE(image.size(), QSize(1200, 800));
    // The stage colors made it into the picture.
    int stageTwo = 0;
    const QRgb color = GraphStyle::standard().stageTwo.rgb();
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            stageTwo += image.pixel(x, y) == color ? 1 : 0;
    }
    QVERIFY(stageTwo > 100);
}

void TestApp::screenshotOfAStepAndAComparison()
{
    QTemporaryDir dir;
    const QString step = dir.filePath(QStringLiteral("step.png"));
    Run run = runApp({QStringLiteral("--screenshot"), step, QStringLiteral("wan_video"), QStringLiteral("--trainable"),
        QStringLiteral("vae"), QStringLiteral("--step"), QStringLiteral("U1"), QStringLiteral("--presentation")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QVERIFY(QImage(step).width() == 1600);
    const QString compare = dir.filePath(QStringLiteral("compare.png"));
    run = runApp({QStringLiteral("--screenshot"), compare, examplePath(QStringLiteral("counterexample_write_after_read")),
        QStringLiteral("--compare"), QStringLiteral("safe"), QStringLiteral("--side-by-side")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QVERIFY(!QImage(compare).isNull());
}

void TestApp::screenshotRefusesBadInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing file") << QStringList{QStringLiteral("/nonexistent/p.json")} << 2
                                  << QStringLiteral("/nonexistent/p.json");
    QTest::newRow("bad mode") << QStringList{QStringLiteral("qwen_image"), QStringLiteral("--mode"), QStringLiteral("fast")}
                              << 2 << QStringLiteral("--mode: expected seed or safe, got 'fast'");
    QTest::newRow("bad size") << QStringList{QStringLiteral("qwen_image"), QStringLiteral("--size"), QStringLiteral("big")}
                              << 2 << QStringLiteral("--size");
    QTest::newRow("bad step") << QStringList{QStringLiteral("qwen_image"), QStringLiteral("--step"), QStringLiteral("F7")}
                              << 2 << QStringLiteral("--step: 'F7'");
    QTest::newRow("unwritable output") << QStringList{QStringLiteral("qwen_image")} << 1 << QStringLiteral("no/such/dir");
}

void TestApp::screenshotRefusesBadInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(exitCode == 1 ? QStringLiteral("no/such/dir/x.png") : QStringLiteral("x.png"));
    const Run run = runApp(QStringList{QStringLiteral("--screenshot"), out} + arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.stdErr.contains(message), qPrintable(run.stdErr));
    QVERIFY(!QFile::exists(out));
}

void TestApp::longUnitNameDoesNotWidenTheWindow()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.json"));
    QVERIFY(writeLongNamesPipeline(path));
    MainWindow window(false);
    window.resize(1500, 940);
    window.show();
    QVERIFY(window.openSource(path));
    QVERIFY(waitForGraph(*window.workspace()));
    QApplication::processEvents();
    const int before = window.width();
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("InspectorDock"));
    QVERIFY(dock);
    const int dockBefore = dock->width();
    // Select the 317-character unit, as a click in the graph does.
    const UnitId unit = window.document()->graph().findUnit(longUnitName().toStdString());
    QVERIFY(unit != kNoUnit);
    window.document()->setCurrentUnit(unit);
    QApplication::processEvents();
    QCOMPARE(window.width(), before);
    QVERIFY2(dock->width() <= dockBefore + 10, qPrintable(QStringLiteral("%1 -> %2").arg(dockBefore).arg(dock->width())));
    QVERIFY(window.minimumSizeHint().width() <= before);
    // The header shortens the name; its tooltip has it in full.
    QVERIFY2(window.inspector()->headerText().contains(QChar(0x2026)), qPrintable(window.inspector()->headerText()));
    QVERIFY(window.inspector()->headerText().startsWith(QStringLiteral("VeryLongUnitName_Abcdefghij")));
    auto *header = window.inspector()->findChild<QLabel *>();
    QVERIFY(header);
    QCOMPARE(header->toolTip(), longUnitName());
}

void TestApp::oversizedSavedGeometryIsFittedToTheScreen()
{
    // A geometry saved when a long name had widened the window to 4196 px.
    {
        MainWindow wide(false);
        wide.setGeometry(0, 0, 4196, 940);
        QSettings().setValue(QStringLiteral("geometry"), wide.saveGeometry());
    }
    MainWindow window(true);
    const QRect available = window.screen()->availableGeometry();
    const int widest = std::max(available.width(), window.minimumSizeHint().width());
    QVERIFY2(window.width() <= widest, qPrintable(QStringLiteral("%1 > %2").arg(window.width()).arg(widest)));
    QVERIFY(window.height() <= std::max(available.height(), window.minimumSizeHint().height()));
    QSettings().remove(QStringLiteral("geometry"));
}

void TestApp::helpAndVersionNeedNoDisplay()
{
    QString out;
    Run run = runApp({QStringLiteral("--help")}, &out, false);
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QVERIFY2(out.contains(QStringLiteral("--screenshot")), qPrintable(out));
    run = runApp({QStringLiteral("--version")}, &out, false);
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QVERIFY2(out.startsWith(QStringLiteral("splitscope ")), qPrintable(out));
    // A bad option next to --help is still a usage error, without a display.
    run = runApp({QStringLiteral("--help"), QStringLiteral("--bogus")}, &out, false);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(QStringLiteral("bogus")), qPrintable(run.stdErr));
}

void TestApp::screenshotSaysWhyItIsLargerThanAsked()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("small.png"));
    const Run run = runApp({QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("300x200"),
        QStringLiteral("qwen_image")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    const QImage image(out);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 300 && image.height() > 200);
    const QString said = QStringLiteral("--size 300x200: the window cannot be that small");
    QVERIFY2(run.stdErr.contains(said), qPrintable(run.stdErr));
    QVERIFY2(run.stdErr.contains(QStringLiteral("the picture is %1x%2").arg(image.width()).arg(image.height())),
        qPrintable(run.stdErr));
}

void TestApp::windowFitsASmallScreen()
{
    // 800x500: smaller than a 1280x800 screen at 150 %. The docks scroll their panels
    // instead of adding up their minimum sizes (which made the window 1102x671).
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("small.png"));
    const Run run = runApp({QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("800x500"),
        QStringLiteral("wan_video")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    QVERIFY2(!run.stdErr.contains(QStringLiteral("cannot be that small")), qPrintable(run.stdErr));
    QCOMPARE(QImage(out).size(), QSize(800, 500));

    MainWindow window(false);
    window.show();
    QVERIFY(window.minimumSizeHint().width() <= 800 && window.minimumSizeHint().height() <= 500);
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        QVERIFY2(dock->minimumSizeHint().width() <= 200, qPrintable(dock->objectName()));
}

void TestApp::graphHasMostOfALaptopWindow_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1366x768") << QSize(1366, 768);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1920x1200") << QSize(1920, 1200);
}

// The default docks gave the graph 45 % of a 1366 px window (390 and 360 px side
// columns): the side columns now take a fifth each, within their readable widths.
void TestApp::graphHasMostOfALaptopWindow()
{
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(*window.workspace()));
    const int graph = window.workspace()->view()->width();
    QVERIFY2(graph >= 0.55 * size.width(), qPrintable(QStringLiteral("%1 of %2 px").arg(graph).arg(size.width())));
    // The Run panel keeps its fields in view, without a horizontal scroll bar (its form
    // is shown for a pipeline the engine runs).
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QVERIFY(waitForGraph(*window.workspace()));
    window.showDock(QStringLiteral("RunDock"));
    QApplication::processEvents();
    auto *runDock = window.findChild<QDockWidget *>(QStringLiteral("RunDock"));
    QVERIFY(runDock);
    QTest::qWait(50);
    for (QScrollArea *area : runDock->findChildren<QScrollArea *>()) {
        QVERIFY2(area->widget()->minimumSizeHint().width() <= area->viewport()->width(),
            qPrintable(QStringLiteral("%1 px needed, %2 px").arg(area->widget()->minimumSizeHint().width())
                           .arg(area->viewport()->width())));
    }
}

namespace {

// The window at `size`, on screen (exposed).
bool showAt(MainWindow &window, QSize size)
{
    window.resize(size);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

} // namespace

void TestApp::namesReadAtTheFittedZoom_data()
{
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<QSize>("size");
    for (const QString &name : exampleNames()) {
        for (const QSize size : {QSize(1366, 768), QSize(1600, 1000)})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2x%3").arg(name).arg(size.width()).arg(size.height())))
                << name << size;
    }
}

// At 1366x768, 14 of flux2_image's 21 boxes and all but 2 of wan_video's were blank, and
// names were cut ("Tea…che"). At the fitted zoom of the default window every unit's name
// is now drawn whole and at least 9 px tall, and the legend covers no unit (computed
// from the scene's items and the view's transform); where the graph is too large for
// that (wan_video's 29 units, ltx2_audio_video's labelled edges on the laptop), the view
// says so and offers the zoom at which the names read.
void TestApp::namesReadAtTheFittedZoom()
{
    QFETCH(QString, pipeline);
    QFETCH(QSize, size);
    MainWindow window(false);
    QVERIFY(showAt(window, size));
    QVERIFY(window.openSource(pipeline) && waitForGraph(*window.workspace()));
    QApplication::processEvents();
    GraphView *view = window.workspace()->view();
    SplitGraphScene *scene = window.workspace()->scene();
    const PipelineGraph &graph = window.document()->graph();
    const QRect viewport = view->viewport()->rect();
    const QRect legend = view->legendRect().toAlignedRect();
    const double namePixels = QFontInfo(GraphStyle::standard().nameFont).pixelSize() * view->zoom();
    QToolButton *readable = window.workspace()->readableNamesButton();
    // The graph has the width of the folded right panels on a laptop.
    QVERIFY2(view->width() >= (size.width() < 1500 ? 0.7 : 0.55) * size.width(), qPrintable(QString::number(view->width())));
    for (UnitId u = 0; u <= graph.lossId(); ++u) {
        const UnitNodeItem *item = scene->nodeItem(u);
        const QRect box = view->mapFromScene(item->mapRectToScene(item->boxRect())).boundingRect();
        QVERIFY2(viewport.contains(box), qPrintable(item->name()));
        QVERIFY2(!legend.intersects(box), qPrintable(item->name() + QStringLiteral(" under the legend")));
        if (view->namesReadable())
            QVERIFY2(item->shownName() == item->name(), qPrintable(item->shownName()));
    }
    const bool tooLarge = pipeline == QLatin1String("wan_video")
        || (pipeline == QLatin1String("ltx2_audio_video") && size.width() < 1500);
    QCOMPARE(view->namesReadable(), !tooLarge);
    QCOMPARE(namePixels >= GraphView::kReadableNamePixels - 1e-6, !tooLarge);
    QCOMPARE(readable->isVisible(), tooLarge);
    if (tooLarge) {
        QVERIFY(readable->text().contains(QStringLiteral("zoom to 70 %")));
        readable->click();
        QApplication::processEvents();
        QVERIFY(view->namesReadable());
        QVERIFY(!readable->isVisible());
        // Onto the stage-two units.
        for (const UnitId u : scene->unitsInStage(UnitNodeItem::Stage::Two)) {
            const UnitNodeItem *item = scene->nodeItem(u);
            QVERIFY2(viewport.intersects(view->mapFromScene(item->sceneBoundingRect()).boundingRect()), qPrintable(item->name()));
        }
    }
}

// The right panels start folded into their side bar on a laptop (the graph gets their
// width) and come back with a click on a title; the left ones fold and unfold with the
// View menu's action.
void TestApp::panelsFoldIntoTheSideBar()
{
    MainWindow window(false);
    QVERIFY(showAt(window, QSize(1366, 768)));
    QVERIFY(window.openSource(QStringLiteral("qwen_image")) && waitForGraph(*window.workspace()));
    auto *right = window.findChild<PanelSideBar *>(QStringLiteral("RightPanelBar"));
    auto *left = window.findChild<PanelSideBar *>(QStringLiteral("LeftPanelBar"));
    QVERIFY(right && left);
    auto *inspector = window.findChild<QDockWidget *>(QStringLiteral("InspectorDock"));
    auto *verifier = window.findChild<QDockWidget *>(QStringLiteral("VerifierDock"));
    auto *training = window.findChild<QDockWidget *>(QStringLiteral("TrainingDock"));
    QVERIFY(right->isFolded());
    QVERIFY(!inspector->isVisible() && !verifier->isVisible());
    QVERIFY(right->foldAction()->isChecked());
    GraphView *view = window.workspace()->view();
    const int foldedWidth = view->width();
    // A click on "Inspector" in the bar: the column is back, the inspector in it.
    QToolButton *inspectorButton = nullptr;
    for (QToolButton *button : right->findChildren<QToolButton *>()) {
        if (button->text() == inspector->windowTitle())
            inspectorButton = button;
    }
    QVERIFY(inspectorButton);
    inspectorButton->click();
    QApplication::processEvents();
    QVERIFY(inspector->isVisible());
    QVERIFY(!right->isFolded());
    QVERIFY(inspectorButton->isChecked());
    QTRY_VERIFY(view->width() < foldedWidth - 150);
    // A second click on the panel in view folds the column again.
    inspectorButton->click();
    QApplication::processEvents();
    QVERIFY(right->isFolded());
    QTRY_COMPARE(view->width(), foldedWidth);
    // The left column folds from the View menu's action and returns with what it showed.
    QVERIFY(training->isVisible());
    left->foldAction()->trigger();
    QApplication::processEvents();
    QVERIFY(left->isFolded() && !training->isVisible());
    QTRY_VERIFY(view->width() > foldedWidth + 200);
    left->foldAction()->trigger();
    QApplication::processEvents();
    QVERIFY(training->isVisible());
    // On a wide screen nothing starts folded.
    MainWindow wide(false);
    QVERIFY(showAt(wide, QSize(1920, 1200)));
    QVERIFY(!wide.findChild<PanelSideBar *>(QStringLiteral("RightPanelBar"))->isFolded());
}

// --select (GraphView::centerOnUnitWhenDrawn, before the graph is laid out) zooms to
// where names read and puts the unit in the middle of the view: it only selected it,
// and a unit at the edge of the fitted view stayed cut.
void TestApp::selectZoomsToTheUnit()
{
    MainWindow window(false);
    window.resize(1366, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    const PipelineGraph &graph = window.document()->graph();
    const UnitId unit = graph.findUnit("WanVideoUnit_ImageEmbedderVAE");
    QVERIFY(unit != kNoUnit);
    GraphView *view = window.workspace()->view();
    view->centerOnUnitWhenDrawn(unit);
    QVERIFY(waitForGraph(*window.workspace()));
    QApplication::processEvents();
    QVERIFY2(view->zoom() >= GraphView::zoomForNamePixels(9) - 1e-6, qPrintable(QString::number(view->zoom())));
    const QRect box = view->mapFromScene(window.workspace()->scene()->nodeItem(unit)->sceneBoundingRect()).boundingRect();
    QVERIFY2(view->viewport()->rect().contains(box), "the unit is whole in view");
    const QPoint offset = box.center() - view->viewport()->rect().center();
    QVERIFY2(offset.manhattanLength() < 40, qPrintable(QStringLiteral("%1, %2").arg(offset.x()).arg(offset.y())));
}

// `splitscope /tmp/x/bad.json` (one type error): "Could not load… / No pipeline open".
// A valid pipeline written over the file opens it, and so does File > Reload
// (Shift+F5) with watching off; both did nothing.
void TestApp::fileThatFailedAtStartupIsRetried()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    const QByteArray bad = "{\"format\": \"splitscope.pipeline/1\", \"name\": \"x\", \"units\": [{\"name\": 3}]}\n";
    QVERIFY(writeFileBytes(path, bad));
    MainWindow window(false);
    window.show();
    QVERIFY(!window.openSource(path));
    SplitDocument *document = window.document();
    QVERIFY(!document->hasPipeline());
    auto *banner = window.workspace()->findChild<LoadErrorBanner *>();
    QVERIFY(banner && banner->isVisible());
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    QTRY_VERIFY_WITH_TIMEOUT(document->hasPipeline(), 5000);
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("krea2"));
    QVERIFY(!banner->isVisible());
    QVERIFY(window.windowTitle().contains(QStringLiteral("bad.json")));

    // Watching off: File > Reload reads the file again.
    QAction *watch = menuAction(window, QStringLiteral("Reload when the file changes"));
    QAction *reload = menuAction(window, QStringLiteral("Reload"));
    QVERIFY(watch && reload);
    QCOMPARE(reload->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F5));
    watch->setChecked(false);
    const QString other = dir.filePath(QStringLiteral("other.json"));
    QVERIFY(writeFileBytes(other, bad));
    QVERIFY(!window.openSource(other));
    QVERIFY(banner->isVisible());
    QVERIFY(writeFileBytes(other, exampleText(QStringLiteral("qwen_image"))));
    QTest::qWait(400); // longer than the watcher's settling time: nothing happens by itself
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("krea2"));
    reload->trigger();
    QCOMPARE(QString::fromStdString(document->graph().pipelineName()), QStringLiteral("qwen_image"));
    QCOMPARE(document->source().path, QFileInfo(other).absoluteFilePath());
    QVERIFY(!banner->isVisible());
}

void TestApp::verifierSummaryIsReadableOnASmallScreen_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("800x500") << QSize(800, 500); // 1280x800 at 160 %
}

// tiny-qwen-image with text_encoder trained: a hazard, the seed-split hint and a frozen
// stochastic unit make a summary of several lines. It ran under the findings table's
// header when the dock was short.
void TestApp::verifierSummaryIsReadableOnASmallScreen()
{
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    window.document()->setModelTrainable("text_encoder", true);
    window.showDock(QStringLiteral("VerifierDock"));
    QVERIFY(waitForGraph(*window.workspace()));
    QApplication::processEvents();
    VerifierPanel *panel = window.verifier();
    QVERIFY(panel->summaryText().contains(QStringLiteral("hazard")));
    QVERIFY(panel->summaryText().contains(QStringLiteral("stochastic")));
    auto *summary = panel->findChild<QLabel *>();
    QVERIFY(summary);
    // The label is as tall as its wrapped text, and the table starts below it.
    QTRY_VERIFY2(summary->height() >= summary->heightForWidth(summary->width()),
        qPrintable(QStringLiteral("%1 px for %2 px of text")
                       .arg(summary->height())
                       .arg(summary->heightForWidth(summary->width()))));
    const QRect table(panel->table()->mapTo(panel, QPoint(0, 0)), panel->table()->size());
    QVERIFY2(summary->geometry().bottom() < table.top(),
        qPrintable(QStringLiteral("summary ends at %1, table starts at %2")
                       .arg(summary->geometry().bottom())
                       .arg(table.top())));
    // The table keeps its header and a row in view: the whole first row, or, when its
    // cells wrap to more lines than that in a narrow dock, six lines of it.
    QTableView *t = panel->table();
    const int rowInView = std::min(t->rowHeight(0), 6 * t->fontMetrics().lineSpacing());
    QVERIFY2(t->viewport()->height() >= rowInView,
        qPrintable(QStringLiteral("%1 px of table for a row of %2 px").arg(t->viewport()->height()).arg(t->rowHeight(0))));
}

// At 1280x800 the Params dock is narrow: the cache set is the second column, in view.
void TestApp::paramsCacheColumnIsInViewWhenDocked()
{
    MainWindow window(false);
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    window.showDock(QStringLiteral("ParamsDock"));
    QApplication::processEvents();
    QTableView *table = window.params()->table();
    const int left = table->columnViewportPosition(ParamTableModel::CacheColumn);
    QVERIFY2(left >= 0 && left + 40 < table->viewport()->width(),
        qPrintable(QStringLiteral("%1 of %2").arg(left).arg(table->viewport()->width())));
}

void TestApp::hazardCellsAreReadableInTheDocks_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1920x1200") << QSize(1920, 1200);
}

// Every line of `index`'s text fits its cell: the row is as tall as the wrapped text and
// no line is wider than the column (nothing elided).
static void verifyCellShowsAllOfIt(const QTableView *table, const QModelIndex &index)
{
    const QString text = index.data().toString();
    const QRect cell = table->visualRect(index);
    QVERIFY2(cell.left() >= 0 && cell.right() <= table->viewport()->width(),
        qPrintable(QStringLiteral("'%1' at %2..%3 of %4").arg(text).arg(cell.left()).arg(cell.right())
                       .arg(table->viewport()->width())));
    QStyleOptionViewItem option;
    option.initFrom(table->viewport());
    option.font = index.data(Qt::FontRole).isValid() ? index.data(Qt::FontRole).value<QFont>() : table->font();
    option.rect = QRect(0, 0, cell.width(), 10000);
    option.features |= QStyleOptionViewItem::WrapText;
    const QSize wanted = table->itemDelegateForIndex(index)->sizeHint(option, index);
    QVERIFY2(wanted.height() <= cell.height() + 1,
        qPrintable(QStringLiteral("'%1' needs %2 px, has %3").arg(text).arg(wanted.height()).arg(cell.height())));
    // The longest word of a name ("AutoResize") fits the column.
    const QFontMetrics metrics(option.font);
    for (const QString &word : text.split(QRegularExpression(QStringLiteral("[\\s_-]|(?<=[a-z])(?=[A-Z])")),
             Qt::SkipEmptyParts))
        QVERIFY2(metrics.horizontalAdvance(word) <= cell.width(), qPrintable(QStringLiteral("'%1' in %2 px: %3")
                                                                               .arg(word).arg(cell.width()).arg(text)));
}

// tiny-qwen-image with text_encoder trained: PromptEmbedder reads edit_image, which one-stage
// training gives it from the external input and two-stage training from the cache, holding
// ZImageUnit_EditImageAutoResize's value. The Inspector showed "external…oResize)" and
// "⚠ cach… value"; the Verifier kept both producers behind a horizontal scroll bar.
void TestApp::hazardCellsAreReadableInTheDocks()
{
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    SplitDocument *document = window.document();
    document->setModelTrainable("text_encoder", true);
    document->setCurrentUnit(document->graph().findUnit("QwenImageUnit_PromptEmbedder"));
    window.showDock(QStringLiteral("InspectorDock"));
    window.showDock(QStringLiteral("VerifierDock"));
    QVERIFY(waitForGraph(*window.workspace()));
    QTest::qWait(50);

    QTableView *inputs = nullptr;
    for (QTableView *table : window.inspector()->findChildren<QTableView *>()) {
        if (table->model() == window.inspector()->inputsModel())
            inputs = table;
    }
    QVERIFY(inputs);
    QCOMPARE(inputs->model()->rowCount(), 3);
    QVERIFY(!inputs->horizontalScrollBar()->isVisible());
    const QModelIndex producer = inputs->model()->index(0, UnitPortsModel::PeerColumn);
    QCOMPARE(producer.data().toString(),
        QStringLiteral("external input\n⚠ two-stage: ZImageUnit_EditImageAutoResize"));
    QCOMPARE(inputs->model()->index(0, UnitPortsModel::SourceColumn).data().toString(), QStringLiteral("⚠ cache"));
    for (int row = 0; row < inputs->model()->rowCount(); ++row) {
        for (int column = 0; column < inputs->model()->columnCount(); ++column)
            verifyCellShowsAllOfIt(inputs, inputs->model()->index(row, column));
    }

    QTableView *findings = window.verifier()->table();
    QVERIFY(!findings->horizontalScrollBar()->isVisible());
    QCOMPARE(findings->model()->columnCount(), int(FindingsModel::ColumnCount));
    const QModelIndex hazard = findings->model()->index(0, FindingsModel::ProducerColumn);
    QCOMPARE(hazard.data().toString(),
        QStringLiteral("one-stage: external input\ntwo-stage: ZImageUnit_EditImageAutoResize"));
    QCOMPARE(findings->model()->index(0, FindingsModel::UnitColumn).data().toString(),
        QStringLiteral("PromptEmbedder\nreads edit_image"));
    for (int column = 0; column < findings->model()->columnCount(); ++column)
        verifyCellShowsAllOfIt(findings, findings->model()->index(0, column));
}

void TestApp::longParamNamesFitTheInspector_data()
{
    hazardCellsAreReadableInTheDocks_data();
}

// wan_video's NoiseInitializer reads animate2_reference_video (24 characters): the param
// column took the width the name wanted on one line and pushed "stage one run" out of
// the dock behind a horizontal scroll bar at 1600x1000. Names wrap at "_" instead.
void TestApp::longParamNamesFitTheInspector()
{
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    SplitDocument *document = window.document();
    document->setCurrentUnit(document->graph().findUnit("WanVideoUnit_NoiseInitializer"));
    window.showDock(QStringLiteral("InspectorDock"));
    QVERIFY(waitForGraph(*window.workspace()));
    QTest::qWait(50);
    int tables = 0;
    for (QTableView *table : window.inspector()->findChildren<QTableView *>()) {
        if (table->model() != window.inspector()->inputsModel())
            continue;
        ++tables;
        QVERIFY(table->model()->rowCount() >= 7);
        QVERIFY2(!table->horizontalScrollBar()->isVisible(),
            qPrintable(QStringLiteral("columns %1 + %2 + %3 in %4 px")
                           .arg(table->columnWidth(0)).arg(table->columnWidth(1)).arg(table->columnWidth(2))
                           .arg(table->viewport()->width())));
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            for (int column = 0; column < table->model()->columnCount(); ++column)
                verifyCellShowsAllOfIt(table, table->model()->index(row, column));
        }
    }
    QCOMPARE(tables, 1);
}

void TestApp::runHistoryIsReadableInItsDock_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1920x1200") << QSize(1920, 1200);
}

namespace {

// A launch of the history as the controller leaves it: its stages finished (or the
// last one cancelled), with times, memory and a loss.
std::shared_ptr<RunSession> historyRun(RunKind kind, const RunConfig &config, StageRun::Outcome outcome,
    bool resumed = false)
{
    auto session = std::make_shared<RunSession>(kind, config, resumed);
    const std::vector<RunStage> stages = stagesOf(kind);
    for (std::size_t i = 0; i < stages.size(); ++i) {
        StageRun &stage = session->addStage(stages[i]);
        stage.outcome = i + 1 < stages.size() ? StageRun::Outcome::Finished : outcome;
        stage.exitCode = stage.outcome == StageRun::Outcome::Finished ? 0 : 4;
        stage.processSeconds = 3.25 + static_cast<double>(i);
        stage.wallSeconds = stage.processSeconds;
        stage.peakRss = (kind == RunKind::Baseline ? 318 : 199) * 1024LL * 1024;
        stage.steps = 16;
        if (stages[i] != RunStage::StageOne)
            stage.finalLoss = outcome == StageRun::Outcome::Finished ? 1.80550 : 2.31416;
    }
    return session;
}

} // namespace

// At 1280x800 the run history's bottom dock is about 520 pixels wide: the date and the
// launch read "…", the configuration "L…", the comparison's B / A column was cut, and
// the charts, a hundred pixels wide, lay behind a sideways scroll bar. Which launch, how
// it went and the comparison must be readable, and the long cells elided with the whole
// text in their tooltips.
void TestApp::runHistoryIsReadableInItsDock()
{
    QFETCH(QSize, size);
    QTemporaryDir dir;
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    RunConfig config = tinyConfig(dir.filePath(QStringLiteral("a/rather/long/folder/for/the/runs")));
    RunHistory *history = window.runHistory();
    for (const auto &[kind, outcome, resumed] : {std::tuple{RunKind::StageOne, StageRun::Outcome::Finished, false},
             std::tuple{RunKind::Baseline, StageRun::Outcome::Finished, false},
             std::tuple{RunKind::Both, StageRun::Outcome::Cancelled, true},
             std::tuple{RunKind::Both, StageRun::Outcome::Finished, false}}) {
        config.runFolder = QDir(config.settings.outputPath).filePath(QStringLiteral("%1-20261130-1047%2")
                                                                         .arg(runKindTitle(kind).left(4).toLower())
                                                                         .arg(history->count()));
        history->add(historyRun(kind, config, outcome, resumed));
    }
    window.showDock(QStringLiteral("RunHistoryDock"));
    RunHistoryPanel *panel = window.runHistoryPanel();
    QVERIFY(panel->compareBaselineAndSplit());
    QTest::qWait(50);
    QApplication::processEvents();

    // The panel fits its dock: nothing behind a sideways scroll bar.
    auto *scroll = qobject_cast<QScrollArea *>(panel->parentWidget()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
        qPrintable(QStringLiteral("a panel of %1 px in a dock of %2 px").arg(panel->width())
                       .arg(scroll->viewport()->width())));

    QTableView *table = panel->table();
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    QCOMPARE(table->model()->rowCount(), 4);
    QCOMPARE(table->model()->index(1, RunHistoryModel::LaunchColumn).data().toString(),
        QStringLiteral("Both stages (resumed)"));
    QVERIFY(table->model()->index(1, RunHistoryModel::LossColumn).data().toString().endsWith(QLatin1String("(last)")));
    const int whole[] = {RunHistoryModel::StartedColumn, RunHistoryModel::LaunchColumn, RunHistoryModel::OutcomeColumn,
        RunHistoryModel::TimeColumn, RunHistoryModel::PeakColumn, RunHistoryModel::LossColumn};
    QHeaderView *header = table->horizontalHeader();
    for (int column = 0; column < RunHistoryModel::ColumnCount; ++column) {
        // Every header whole (the short ones have their long names in a tooltip).
        const QString title = table->model()->headerData(column, Qt::Horizontal).toString();
        QVERIFY2(header->fontMetrics().horizontalAdvance(title) <= header->sectionSize(column),
            qPrintable(QStringLiteral("header '%1' in %2 px").arg(title).arg(header->sectionSize(column))));
        QVERIFY(!table->model()->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex index = table->model()->index(row, column);
            if (std::find(std::begin(whole), std::end(whole), column) != std::end(whole)) {
                verifyCellShowsAllOfIt(table, index);
                if (QTest::currentTestFailed())
                    return;
                continue;
            }
            // The configuration and the output folder: in view, a useful width, and the
            // whole text in the tooltip when it is shortened.
            const QRect cell = table->visualRect(index);
            QVERIFY2(cell.left() >= 0 && cell.right() <= table->viewport()->width()
                    && cell.width() >= 4 * table->fontMetrics().horizontalAdvance(QLatin1Char('x')),
                qPrintable(QStringLiteral("column %1 at %2..%3 of %4").arg(column).arg(cell.left()).arg(cell.right())
                               .arg(table->viewport()->width())));
            QVERIFY2(index.data(Qt::ToolTipRole).toString().startsWith(index.data().toString()),
                qPrintable(index.data(Qt::ToolTipRole).toString()));
        }
    }

    // The comparison: every cell in view and whole, its B / A column too.
    QTableView *comparison = nullptr;
    for (QTableView *view : panel->findChildren<QTableView *>()) {
        if (view->model() == panel->comparison())
            comparison = view;
    }
    QVERIFY(comparison && comparison->isVisible());
    QCOMPARE(comparison->model()->rowCount(), 9);
    QVERIFY(!comparison->horizontalScrollBar()->isVisible());
    for (int row = 0; row < comparison->model()->rowCount(); ++row) {
        for (int column = 0; column < RunComparisonModel::ColumnCount; ++column) {
            verifyCellShowsAllOfIt(comparison, comparison->model()->index(row, column));
            if (QTest::currentTestFailed())
                return;
        }
    }
    // Its summary above it, the table's header and a few rows below.
    QLabel *summary = panel->summaryLabel();
    QVERIFY(summary->isVisible());
    QVERIFY(summary->height() >= summary->heightForWidth(summary->width()));
    QVERIFY2(comparison->viewport()->height() >= 4 * comparison->rowHeight(0),
        qPrintable(QStringLiteral("%1 px for rows of %2 px").arg(comparison->viewport()->height())
                       .arg(comparison->rowHeight(0))));

    // Each chart readable, beside the tables or as a tab of its own, and in view.
    const QRect dock(scroll->viewport()->mapToGlobal(QPoint(0, 0)), scroll->viewport()->size());
    for (QWidget *chart : {static_cast<QWidget *>(panel->lossChart()), static_cast<QWidget *>(panel->memoryChart())}) {
        for (QWidget *above = chart->parentWidget(); above && above != panel; above = above->parentWidget()) {
            if (auto *tabs = qobject_cast<QTabWidget *>(above)) {
                tabs->setCurrentIndex(tabs->indexOf(chart));
                QApplication::processEvents();
                break;
            }
        }
        QVERIFY(chart->isVisible());
        const QRect rect(chart->mapToGlobal(QPoint(0, 0)), chart->size());
        QVERIFY2(dock.contains(rect) && rect.width() >= 14 * chart->fontMetrics().height(),
            qPrintable(QStringLiteral("a chart of %1x%2 px").arg(rect.width()).arg(rect.height())));
    }
}

void TestApp::stepperAndDockTabsFitASmallWindow_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("800x500") << QSize(800, 500); // 1280x800 at 160 %
    QTest::newRow("640x400") << QSize(640, 400); // 1280x800 at 200 %
}

// The stepper's one row of controls was wider than its dock at 1280x800: the panel scrolled
// sideways and the explanation was cut on the right. At a 200 % scale the bottom tabs read
// "C… P… R… R…", Run monitor and Run history alike.
void TestApp::stepperAndDockTabsFitASmallWindow()
{
    QFETCH(QSize, size);
    MainWindow window(false);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openSource(QStringLiteral("wan_video")));
    window.document()->setModelTrainable("vae", true);
    window.cursor()->setPosition(2);
    QVERIFY(waitForGraph(*window.workspace()));
    QApplication::processEvents();
    QWidget *stepper = window.stepper();
    auto *scroll = qobject_cast<QScrollArea *>(stepper->parentWidget()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QVERIFY2(stepper->minimumSizeHint().width() <= scroll->viewport()->width(),
        qPrintable(QStringLiteral("%1 px in %2 px").arg(stepper->minimumSizeHint().width())
                       .arg(scroll->viewport()->width())));
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    // Every dock tab shows its whole title (the bar scrolls where they do not all fit).
    for (QTabBar *bar : window.findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly)) {
        QCOMPARE(bar->elideMode(), Qt::ElideNone);
        for (int i = 0; i < bar->count(); ++i) {
            const QString title = bar->tabText(i);
            QVERIFY2(bar->tabRect(i).width() >= bar->fontMetrics().horizontalAdvance(title),
                qPrintable(title));
        }
    }
}

void TestApp::findFieldStartsEmptyForAnotherPipeline()
{
    MainWindow window(false);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("qwen_image")));
    QLineEdit *find = window.workspace()->searchField();
    QTest::keyClicks(find, QStringLiteral("Unit_1500"));
    QCOMPARE(find->text(), QStringLiteral("Unit_1500"));
    // Reloading the same pipeline keeps the search; another pipeline clears it.
    window.document()->reload();
    QCOMPARE(find->text(), QStringLiteral("Unit_1500"));
    QAction *example = menuAction(window, QStringLiteral("krea2"));
    QVERIFY(example);
    example->trigger();
    QCOMPARE(window.document()->source().exampleName, QStringLiteral("krea2"));
    QCOMPARE(find->text(), QString());
}

// The open file is deleted: the banner says it does not exist, and so must the
// status bar (it said "changed on disk but has errors").
void TestApp::deletedFileIsReportedAsDeleted()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("k.json"));
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    MainWindow window(false);
    window.show();
    QVERIFY(window.openSource(path));
    QSignalSpy reloaded(window.fileWatcher(), &PipelineFileWatcher::reloaded);
    QVERIFY(QFile::remove(path));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), false);
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("k.json was deleted or moved")), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("errors")), qPrintable(message));
    QVERIFY(window.document()->hasPipeline()); // the last version stays
    // Written again: it is loaded again.
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("qwen_image"))));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), true);
    QCOMPARE(QString::fromStdString(window.document()->graph().pipelineName()), QStringLiteral("qwen_image"));
}

// Every Alt+letter the user can see does one thing: a label's buddy, a button or a
// menu. Two visible widgets with the same mnemonic make Alt+letter move the focus
// between them, and one that shares the letter of a menu takes it from the menu
// (Alt+S went to the Seed button, not the Split menu). A dock behind another's tab
// keeps its Alt keys (Qt moves it off screen rather than hiding it: Alt+A reached the
// Run panel's Threads field from the Training configuration tab), so every dock's
// keys count; each arrangement of the tabs is checked all the same.
void TestApp::altKeysAreUniqueInEachArrangement()
{
    MainWindow window(false);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    const QStringList left = {QStringLiteral("TrainingDock"), QStringLiteral("RunDock")};
    const QStringList bottom = {QStringLiteral("StepperDock"), QStringLiteral("CompareDock"),
        QStringLiteral("ProblemsDock"), QStringLiteral("RunMonitorDock"), QStringLiteral("RunHistoryDock")};
    const QStringList right = {QStringLiteral("VerifierDock"), QStringLiteral("ParamsDock")};
    int arrangements = 0;
    for (const QString &l : left) {
        for (const QString &b : bottom) {
            for (const QString &r : right) {
                window.showDock(l);
                window.showDock(b);
                window.showDock(r);
                QApplication::processEvents();
                QMap<QKeySequence, QStringList> owners;
                for (QAction *menu : window.menuBar()->actions()) {
                    const QKeySequence key = QKeySequence::mnemonic(menu->text());
                    if (!key.isEmpty())
                        owners[key] << QStringLiteral("menu '%1'").arg(menu->text());
                }
                for (QWidget *w : window.findChildren<QWidget *>()) {
                    if (!w->isVisible())
                        continue;
                    QString text;
                    if (auto *label = qobject_cast<QLabel *>(w); label && label->buddy())
                        text = label->text();
                    else if (auto *button = qobject_cast<QAbstractButton *>(w))
                        text = button->text();
                    const QKeySequence key = QKeySequence::mnemonic(text);
                    if (!key.isEmpty())
                        owners[key] << QStringLiteral("'%1'").arg(text);
                }
                QVERIFY2(!owners.isEmpty(), "no mnemonic found at all");
                for (auto it = owners.cbegin(); it != owners.cend(); ++it) {
                    QVERIFY2(it.value().size() == 1,
                        qPrintable(QStringLiteral("%1 with %2 and %3: %4 is taken by %5")
                                       .arg(l, b, r, it.key().toString(), it.value().join(QStringLiteral(" and ")))));
                }
                ++arrangements;
            }
        }
    }
    QCOMPARE(arrangements, 20);
}

// Qt keeps a dock behind another's tab visible, moved out of the window: Tab went
// through about 45 fields there (the Params, Compare, Problems, Run and history docks)
// with the focus out of sight, and reached the stepper's chips after all of them.
void TestApp::tabVisitsWhatIsOnScreenInReadingOrder()
{
    MainWindow window(false);
    window.resize(1600, 1000);
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(window.openSource(QStringLiteral("tiny-qwen-image")));
    QVERIFY(waitForGraph(*window.workspace()));
    GraphView *graph = window.workspace()->view();
    graph->setFocus(Qt::OtherFocusReason);
    const auto onScreen = [&window](QWidget *w) {
        return QRect(w->mapTo(&window, QPoint(0, 0)), w->size()).intersects(window.rect());
    };
    const auto walk = [&](Qt::Key key) {
        QList<QWidget *> visited;
        for (int i = 0; i < 200; ++i) {
            QTest::keyClick(QApplication::focusWidget(), key);
            QWidget *now = QApplication::focusWidget();
            if (!now || now == graph)
                break;
            visited.push_back(now);
        }
        return visited;
    };
    const QList<QWidget *> forward = walk(Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget(), graph); // round the window and back
    QVERIFY2(forward.size() >= 15 && forward.size() <= 40, qPrintable(QString::number(forward.size())));
    for (QWidget *w : forward)
        QVERIFY2(onScreen(w), w->metaObject()->className());
    QList<QWidget *> backward = walk(Qt::Key_Backtab);
    std::reverse(backward.begin(), backward.end());
    QCOMPARE(backward, forward);

    // The stepper's controls as they read: buttons, slider, chips, speed, text.
    StepperPanel *stepper = window.stepper();
    QStringList stepperStops;
    for (QWidget *w : forward) {
        if (!stepper->isAncestorOf(w))
            continue;
        const auto *button = qobject_cast<QAbstractButton *>(w);
        stepperStops << (button ? button->text() : QString::fromLatin1(w->metaObject()->className()));
    }
    // At the split, Next and Last are disabled.
    QCOMPARE(stepperStops, (QStringList{QStringLiteral("First step (X0)"), QStringLiteral("Previous step"),
                               QStringLiteral("Play"), QStringLiteral("QSlider"), QStringLiteral("X0"),
                               QStringLiteral("F1"), QStringLiteral("U1"), QStringLiteral("Split"),
                               QStringLiteral("QComboBox"), QStringLiteral("Presentation mode"),
                               QStringLiteral("QTextBrowser")}));
    // The current step's chip is bold, the others are not (Tab's focus tints one too).
    for (QWidget *w : forward) {
        if (auto *chip = qobject_cast<QToolButton *>(w); chip && stepper->isAncestorOf(w) && chip->isCheckable())
            QCOMPARE(chip->font().bold(), chip->isChecked());
    }

    // A dock brought to the front joins the walk; the one it covers leaves it.
    window.showDock(QStringLiteral("ParamsDock"));
    QApplication::processEvents();
    auto *verifierTable = window.verifier()->findChild<QTableView *>();
    QVERIFY(forward.contains(verifierTable));
    const QList<QWidget *> withParams = walk(Qt::Key_Tab);
    QVERIFY(!withParams.contains(verifierTable));
    auto *paramsPanel = window.findChild<QDockWidget *>(QStringLiteral("ParamsDock"))->widget();
    QVERIFY(std::any_of(withParams.begin(), withParams.end(), [&](QWidget *w) { return paramsPanel->isAncestorOf(w); }));
    for (QWidget *w : withParams)
        QVERIFY2(onScreen(w), w->metaObject()->className());

    // The Run panel row by row: each folder's field, its "…" and its button, then the
    // numbers, the launch buttons and the command (the "…" buttons and the launch
    // buttons came after every field, the launch buttons after the command).
    window.showDock(QStringLiteral("RunDock"));
    QApplication::processEvents();
    RunPanel *run = window.runPanel();
    run->datasetEdit()->setFocus(Qt::TabFocusReason);
    QStringList runStops;
    for (int i = 0; i < 30 && run->isAncestorOf(QApplication::focusWidget()); ++i) {
        QWidget *w = QApplication::focusWidget();
        const auto *button = qobject_cast<QAbstractButton *>(w);
        runStops << (w == run->datasetEdit() ? QStringLiteral("dataset")
                : w == run->modelsEdit()     ? QStringLiteral("models")
                : w == run->cacheEdit()      ? QStringLiteral("cache")
                : w == run->outputEdit()     ? QStringLiteral("output")
                : button                     ? button->text().remove(QLatin1Char('&'))
                                             : QString::fromLatin1(w->metaObject()->className()));
        QTest::keyClick(w, Qt::Key_Tab);
    }
    const QString order = runStops.join(QLatin1String(" | "));
    qInfo("Run panel, Tab: %s", qPrintable(order));
    QVERIFY2(order.startsWith(QString::fromUtf8("dataset | … | Generate… | models | … | Create… | cache | … | output | … | "
                                                "New folder for each launch | QSpinBox")),
        qPrintable(order));
    const auto at = [&runStops](const QString &stop) { return runStops.indexOf(stop); };
    QVERIFY2(at(QStringLiteral("Stage one")) > at(QStringLiteral("QSpinBox")), qPrintable(order));
    QVERIFY2(at(QStringLiteral("Copy")) > at(QStringLiteral("Stage one")), qPrintable(order));

    // F1 lists the keys.
    QAction *shortcuts = menuAction(window, QStringLiteral("Keyboard shortcuts"));
    QVERIFY(shortcuts);
    QCOMPARE(shortcuts->shortcut(), QKeySequence(QKeySequence::HelpContents));
}

QTEST_MAIN(TestApp)
#include "tst_app.moc"
