// SPDX-License-Identifier: MIT
// Launch and watch with the real worker (splitscope-cli train in a child process)
// on the tiny pipeline, driven through the main window as a user drives it: tiny
// models and a dataset made with the Run panel's buttons; stage one then stage two
// with progress, charts and the running unit in the graph; stage one cancelled
// halfway and resumed to the same cache as an uninterrupted run; a worker killed
// with SIGKILL reported with its signal and stderr while the window goes on; the
// one-stage baseline compared with the split in the run history; the cache of the
// seed split taken for the same safe split; each launch in its own folder; an
// interrupted baseline resumed after a restart to the uninterrupted result; a bad
// --run-settings file refused by the headless app.
#include "WidgetTestSupport.h"
#include "support/TestFiles.h"

#include "MainWindow.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/run/CliTask.h"
#include "widgets/run/LossChartView.h"
#include "widgets/run/MemoryChartView.h"
#include "widgets/run/RunChecks.h"
#include "widgets/run/RunComparisonModel.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunHistoryPanel.h"
#include "widgets/run/RunMonitor.h"
#include "widgets/run/RunPanel.h"
#include "widgets/run/SamplesPanel.h"
#include "widgets/run/RunningUnitMarker.h"

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QLineEdit>
#include <QComboBox>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>
#include <memory>

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr int kLaunchTimeoutMs = 180000;

// The splitscope app beside the CLI ("" when it is not built), and an environment
// that keeps its settings and data folders in `dir` (data in DIR/`dataFolder`).
QString appProgram()
{
    const QString app = QFileInfo(QStringLiteral(SPLITSCOPE_CLI)).dir().filePath(QStringLiteral("splitscope"));
    return QFileInfo(app).isExecutable() ? app : QString();
}

QProcessEnvironment appEnvironment(const QTemporaryDir &dir, const QString &dataFolder)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), dir.path());
    environment.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(dataFolder));
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    return environment;
}

constexpr int kSamples = 12; // the dataset: 12 images of 64x64, the default (slower) models

// Every file under `dir`, relative path -> bytes.
QMap<QString, QByteArray> filesUnder(const QString &dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            files.insert(QDir(dir).relativeFilePath(path), file.readAll());
    }
    return files;
}

} // namespace

class TestRunWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void stageOneThenStageTwo();
    void cancelStageOneThenResume();
    void killedWorkerIsReported();
    void baselineComparedWithTheSplit();
    void interruptedBaselineResumesAfterARestart();
    void badRunSettingsFileIsRefused_data();
    void badRunSettingsFileIsRefused();
    void screenshotWhileRunningLetsTheRunFinish();
    void cleanupTestCase();

private:
    // Runs the event loop until the current launch is over.
    bool waitForLaunch();
    // Runs the event loop until `condition` holds after a controller update.
    bool waitForUpdate(const std::function<bool()> &condition);
    void setSettings(const std::function<void(RunSettings &)> &change);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    RunPanel *m_panel = nullptr;
    RunController *m_controller = nullptr;
    double m_splitLoss = 0;
};

void TestRunWorker::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_window = std::make_unique<MainWindow>(false);
    m_window->resize(1400, 900);
    m_window->show();
    m_panel = m_window->runPanel();
    m_controller = m_window->runController();
    m_controller->setWorkerProgram(QStringLiteral(SPLITSCOPE_CLI));
    QVERIFY(m_window->openSource(QStringLiteral("tiny-qwen-image")));
    QVERIFY(waitForGraph(*m_window->workspace()));
    QVERIFY2(m_panel->executability().runnable(), qPrintable(m_panel->executability().reason));

    RunSettings s = RunPanel::defaultSettings();
    s.datasetPath = m_dir.filePath(QStringLiteral("data"));
    s.modelsRoot = m_dir.filePath(QStringLiteral("models"));
    s.cachePath = m_dir.filePath(QStringLiteral("cache"));
    s.outputPath = m_dir.filePath(QStringLiteral("out"));
    s.epochs = 2;
    s.learningRate = 1e-3;
    s.loraRank = 4;
    s.threads = 1;
    s.cacheShardSize = 4;
    m_panel->setSettings(s);
    QVERIFY(m_panel->fieldMessage(RunField::Dataset).contains(QLatin1String("has no metadata.csv")));
    QVERIFY(!m_panel->launch(RunKind::Both)); // refused, said under the fields
    QVERIFY(m_panel->statusLabel()->text().contains(QLatin1String("Both stages cannot start")));

    // The Run panel's buttons make the models and the dataset (the real CLI).
    QSignalSpy tools(m_panel, &RunPanel::toolFinished);
    QVERIFY(m_panel->createModels(QStringLiteral("default"), false));
    QVERIFY(tools.wait(60000));
    QVERIFY2(tools.last().at(0).toBool(), qPrintable(tools.last().at(1).toString()));
    QVERIFY(m_panel->generateDataset(kSamples, 64, false));
    QVERIFY(tools.wait(60000));
    QVERIFY2(tools.last().at(0).toBool(), qPrintable(tools.last().at(1).toString()));
    QCOMPARE(m_panel->fieldMessage(RunField::Dataset), QStringLiteral("12 images; columns image, prompt"));
    QVERIFY2(m_panel->issues().isEmpty(), qPrintable(m_panel->issues().value(0).message));
    // Generating again keeps the dataset unless told to replace it; the CLI's reason is shown.
    QVERIFY(m_panel->generateDataset(2, 64, false));
    QVERIFY(tools.wait(60000));
    QVERIFY(!tools.last().at(0).toBool());
    QVERIFY2(tools.last().at(1).toString().contains(QLatin1String("--overwrite")), qPrintable(tools.last().at(1).toString()));
    QVERIFY(m_panel->statusLabel()->text().contains(QLatin1String("failed")));
    QCOMPARE(m_panel->fieldMessage(RunField::Dataset), QStringLiteral("12 images; columns image, prompt"));
    QVERIFY(m_panel->generateDataset(kSamples, 64, false, true));
    QVERIFY(tools.wait(60000));
    QVERIFY2(tools.last().at(0).toBool(), qPrintable(tools.last().at(1).toString()));
    QCOMPARE(m_panel->fieldMessage(RunField::Dataset), QStringLiteral("12 images; columns image, prompt"));
}

bool TestRunWorker::waitForLaunch()
{
    if (!m_controller->isRunning())
        return true;
    QSignalSpy finished(m_controller, &RunController::launchFinished);
    return finished.wait(kLaunchTimeoutMs);
}

bool TestRunWorker::waitForUpdate(const std::function<bool()> &condition)
{
    QSignalSpy updated(m_controller, &RunController::updated);
    while (!condition()) {
        if (!m_controller->isRunning() || !updated.wait(kLaunchTimeoutMs))
            return condition();
    }
    return true;
}

void TestRunWorker::setSettings(const std::function<void(RunSettings &)> &change)
{
    RunSettings s = m_panel->settings();
    change(s);
    m_panel->setSettings(s);
}

void TestRunWorker::stageOneThenStageTwo()
{
    RunningUnitMarker *marker = m_window->runningUnitMarker();
    QSignalSpy updates(m_controller, &RunController::updated);
    QSignalSpy stages(m_controller, &RunController::stageStarted);
    QStringList unitsSeen;
    bool ringShown = false;
    // The connections below capture locals: they end with this function, also when a
    // check fails and returns early (they outlived it once and wrote to a dead stack).
    QObject scope;
    connect(m_controller, &RunController::unitChanged, &scope, [&](const QString &unit) {
        if (unit.isEmpty())
            return;
        unitsSeen << unit;
        ringShown = ringShown || (marker->isShown() && marker->markedUnit() == unit);
    });
    QList<double> fractions;
    connect(m_controller, &RunController::updated, &scope, [&]() {
        const StageRun *run = m_controller->session()->current();
        if (run && run->fraction() >= 0)
            fractions << run->fraction();
    });

    QVERIFY(m_panel->launch(RunKind::StageOne));
    QVERIFY(!m_panel->launchAction(RunKind::StageTwo)->isEnabled()); // one launch at a time
    QVERIFY(m_panel->cancelAction()->isEnabled());
    QVERIFY(waitForLaunch());
    auto session = m_controller->session();
    QCOMPARE(session->outcome(), StageRun::Outcome::Finished);
    const StageRun &one = session->stages().at(0);
    QVERIFY2(one.failure.isEmpty(), qPrintable(one.failure));
    QCOMPARE(one.done, qint64(kSamples));
    QCOMPARE(one.total, qint64(kSamples));
    QCOMPARE(one.stageOneUnits.size(), 6);
    QVERIFY(one.pid > 0);
    QVERIFY(one.cacheWritten > 0);
    QVERIFY(one.memory.size() >= 2);
    QVERIFY(one.peakMemory() > (50 << 20)); // LibTorch alone takes more
    QCOMPARE(stages.size(), 1);
    QVERIFY(updates.size() >= 2);
    // Progress only grows, and ends at the end.
    QVERIFY(!fractions.isEmpty());
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    QCOMPARE(fractions.last(), 1.0);
    // The units lit up in the graph, and the ring is gone afterwards.
    // Unit changes reach the view coalesced (ten times a second), so which of the six
    // stage-one units are seen depends on timing; each one seen is a stage-one unit.
    QVERIFY(!unitsSeen.isEmpty());
    for (const QString &unit : unitsSeen)
        QVERIFY2(one.stageOneUnits.contains(unit), qPrintable(unit));
    QVERIFY(ringShown);
    QVERIFY(!marker->isShown());
    // The monitor: a full bar, memory points, the stage-one models stacked.
    RunMonitor *monitor = m_window->runMonitor();
    QCOMPARE(monitor->progressBar()->value(), monitor->progressBar()->maximum());
    // Its text is one colour over the fill and beside it ("step 27C of 640" was a 0 cut in two).
    const QPalette bar = monitor->progressBar()->palette();
    QCOMPARE(bar.color(QPalette::HighlightedText), bar.color(QPalette::Text));
    QVERIFY(bar.color(QPalette::Highlight) != QApplication::palette().color(QPalette::Highlight));
    QVERIFY2(monitor->progressBar()->format().replace(QChar::Nbsp, QLatin1Char(' ')).startsWith(QLatin1String("sample 12 of 12")),
        qPrintable(monitor->progressBar()->format()));
    QVERIFY(monitor->memoryChart()->memoryPoints(0) >= 2);
    QVERIFY(monitor->memoryChart()->modelAreas() >= 2); // vae and text_encoder
    // The legend names the stage's line and each loaded model once, in full.
    const QString legendOne = monitor->memoryChart()->legendText();
    for (const char *entry : {"split, stage one: RSS", "text_encoder", "vae"})
        QVERIFY2(legendOne.contains(QLatin1String(entry)), qPrintable(legendOne));
    QVERIFY2(legendOne.count(QLatin1String("vae")) == 1 && !legendOne.contains(QLatin1String("dit")),
        qPrintable(legendOne));
    QVERIFY(monitor->logView()->toPlainText().contains(QLatin1String("stage one done: 12 samples")));
    const CacheStatus cache = readCacheStatus(m_panel->settings().cachePath);
    QVERIFY(cache.complete);
    QCOMPARE(cache.samples, kSamples);
    QCOMPARE(cache.shards, 3);
    // The command shown is the one that ran.
    QVERIFY2(m_panel->commandView()->toPlainText().startsWith(QStringLiteral(SPLITSCOPE_CLI " train --task sft:data_process")),
        qPrintable(m_panel->commandView()->toPlainText()));

    fractions.clear();
    QVERIFY(m_panel->launch(RunKind::StageTwo));
    QVERIFY(waitForLaunch());
    m_controller->disconnect(&scope); // both stages watched; done
    session = m_controller->session();
    QCOMPARE(session->outcome(), StageRun::Outcome::Finished);
    const StageRun &two = session->stages().at(0);
    QCOMPARE(two.stage, RunStage::StageTwo);
    QCOMPARE(two.steps, qint64(2 * kSamples));
    QCOMPARE(two.loss.size(), 2 * kSamples);
    QCOMPARE(two.epochLoss.size(), 2);
    QCOMPARE(two.epochSeconds.size(), 2);
    QVERIFY(two.cacheRead > 0);
    QVERIFY(std::isfinite(two.finalLoss));
    QVERIFY(QFile::exists(two.outputs.value(QStringLiteral("checkpoint"))));
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    // The charts got every point.
    QCOMPARE(monitor->lossChart()->rawPoints(0), 2 * kSamples);
    QCOMPARE(monitor->lossChart()->smoothedPoints(0), 2 * kSamples);
    QVERIFY(monitor->memoryChart()->memoryPoints(0) >= 2);
    // This launch's legend: stage two's line and the one model it loads.
    const QString legendTwo = monitor->memoryChart()->legendText();
    QVERIFY2(legendTwo.contains(QLatin1String("split, stage two: RSS")) && legendTwo.contains(QLatin1String("dit"))
            && !legendTwo.contains(QLatin1String("stage one")) && !legendTwo.contains(QLatin1String("vae")),
        qPrintable(legendTwo));
    QVERIFY2(m_panel->commandView()->toPlainText().contains(QLatin1String("--task sft:train")),
        qPrintable(m_panel->commandView()->toPlainText()));
    // The finished run's long title wraps: the monitor does not squeeze the side docks.
    QVERIFY2(monitor->titleLabel()->text().contains(QLatin1String("final loss")), qPrintable(monitor->titleLabel()->text()));
    QVERIFY2(monitor->minimumSizeHint().width() < 700, qPrintable(QString::number(monitor->minimumSizeHint().width())));
    m_splitLoss = two.finalLoss;
    QCOMPARE(m_window->runHistory()->count(), 2);

    // LoRA on dit: the safe split is the seed split. Its cache is this run's, and the
    // worker takes it (the panel refused it for the mode's name).
    const QString seedFolder = session->config().runFolder;
    m_window->document()->setSplitMode(SplitMode::Safe);
    QTRY_COMPARE(m_panel->config().training.mode, SplitMode::Safe);
    QTRY_VERIFY2(m_panel->issues().isEmpty(), qPrintable(m_panel->issues().value(0).message));
    QVERIFY(m_panel->launch(RunKind::StageTwo));
    QVERIFY(waitForLaunch());
    session = m_controller->session();
    QVERIFY2(session->outcome() == StageRun::Outcome::Finished, qPrintable(session->stages().at(0).failure));
    QVERIFY(session->stages().at(0).command.contains(QLatin1String("--split_mode safe")));
    QCOMPARE(session->finalLoss(), m_splitLoss); // the same split trains the same weights
    // Its own folder: the seed launch's checkpoint is still there.
    QVERIFY(session->config().runFolder != seedFolder);
    QVERIFY(QFile::exists(two.outputs.value(QStringLiteral("checkpoint"))));
    m_window->document()->setSplitMode(SplitMode::Seed);
    QTRY_COMPARE(m_panel->config().training.mode, SplitMode::Seed);
    QCOMPARE(m_window->runHistory()->count(), 3);
}

void TestRunWorker::cancelStageOneThenResume()
{
    // An uninterrupted stage one, one sample per shard.
    setSettings([this](RunSettings &s) {
        s.cachePath = m_dir.filePath(QStringLiteral("cache-whole"));
        s.cacheShardSize = 1;
    });
    QVERIFY(m_panel->launch(RunKind::StageOne));
    QVERIFY(waitForLaunch());
    QCOMPARE(m_controller->session()->outcome(), StageRun::Outcome::Finished);

    // The same, cancelled after two samples.
    setSettings([this](RunSettings &s) { s.cachePath = m_dir.filePath(QStringLiteral("cache-cancelled")); });
    QVERIFY(m_panel->launch(RunKind::StageOne));
    QVERIFY(waitForUpdate([this]() {
        const StageRun *run = m_controller->session()->current();
        return run && run->done >= 2;
    }));
    m_panel->cancelAction()->trigger();
    QCOMPARE(m_controller->state(), RunController::State::Cancelling);
    QCOMPARE(m_panel->cancelAction()->text().remove(QLatin1Char('&')), QStringLiteral("Stop now"));
    QVERIFY(waitForLaunch());
    auto session = m_controller->session();
    const StageRun &cancelled = session->stages().at(0);
    QCOMPARE(session->outcome(), StageRun::Outcome::Cancelled);
    QCOMPARE(cancelled.exitCode, 4);
    QVERIFY2(cancelled.failure.contains(QLatin1String("samples are cached in finished shards; Resume continues")),
        qPrintable(cancelled.failure));
    const CacheStatus partial = readCacheStatus(m_panel->settings().cachePath);
    QVERIFY(partial.exists);
    QVERIFY(!partial.complete);
    QVERIFY2(partial.cachedSamples >= 2 && partial.cachedSamples < kSamples, qPrintable(partial.summary()));
    QVERIFY(m_panel->resumeAction()->isEnabled());
    QVERIFY(m_window->runMonitor()->detailsLabel()->text().contains(QLatin1String("Resume continues")));

    QVERIFY(m_panel->resume());
    QVERIFY(waitForLaunch());
    session = m_controller->session();
    QVERIFY(session->resumed());
    QCOMPARE(session->outcome(), StageRun::Outcome::Finished);
    QVERIFY(!m_panel->resumeAction()->isEnabled());
    bool resumedFromShards = false;
    for (const auto &line : session->log())
        resumedFromShards = resumedFromShards || line.text.contains(QLatin1String("resuming stage one"));
    QVERIFY(resumedFromShards);

    // The cache equals the uninterrupted run's, byte for byte (manifest and shards; the
    // flags in training_args.json name each run's own folder).
    auto cacheFiles = [](const QString &dir) {
        QMap<QString, QByteArray> files = filesUnder(dir);
        files.remove(QStringLiteral("training_args.json"));
        return files;
    };
    const auto whole = cacheFiles(m_dir.filePath(QStringLiteral("cache-whole")));
    const auto resumed = cacheFiles(m_dir.filePath(QStringLiteral("cache-cancelled")));
    QCOMPARE(whole.keys(), resumed.keys());
    QCOMPARE(whole.size(), kSamples + 1);
    for (auto it = whole.cbegin(); it != whole.cend(); ++it)
        QVERIFY2(it.value() == resumed.value(it.key()), qPrintable(it.key()));
}

void TestRunWorker::killedWorkerIsReported()
{
    setSettings([](RunSettings &s) { s.epochs = 200; });
    QVERIFY(m_panel->launch(RunKind::Baseline));
    QVERIFY(waitForUpdate([this]() {
        const StageRun *run = m_controller->session()->current();
        return run && !run->loss.isEmpty();
    }));
    const qint64 pid = m_controller->workerPid();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    QVERIFY(waitForLaunch());
    const auto session = m_controller->session();
    const StageRun &run = session->stages().at(0);
    QCOMPARE(session->outcome(), StageRun::Outcome::Crashed);
    QCOMPARE(run.exitCode, SIGKILL);
    QVERIFY2(run.failure.contains(QStringLiteral("One-stage baseline stopped without finishing: the worker (pid %1) was "
                                                 "killed by signal 9 (SIGKILL)")
                                      .arg(pid)),
        qPrintable(run.failure));
    QVERIFY(run.failure.contains(QLatin1String("Last lines of its error output:")));
    QVERIFY(!run.stderrTail.isEmpty());
    QVERIFY(run.failure.contains(run.stderrTail.last()));
    QVERIFY(m_panel->statusLabel()->text().contains(QLatin1String("killed by signal 9")));
    QVERIFY(m_window->runMonitor()->detailsLabel()->text().contains(QLatin1String("killed by signal 9")));
    // The window goes on: idle, every launch available, the graph still there.
    QVERIFY(!m_controller->isRunning());
    for (RunKind kind : {RunKind::StageOne, RunKind::StageTwo, RunKind::Both, RunKind::Baseline})
        QVERIFY(m_panel->launchAction(kind)->isEnabled());
    QVERIFY(m_panel->resumeAction()->isEnabled());
    QVERIFY(m_window->workspace()->scene()->hasGraph());
    QCOMPARE(m_window->runHistory()->run(m_window->runHistory()->count() - 1)->outcome(), StageRun::Outcome::Crashed);
}

void TestRunWorker::baselineComparedWithTheSplit()
{
    setSettings([](RunSettings &s) { s.epochs = 2; });
    QVERIFY(m_panel->launch(RunKind::Baseline));
    QVERIFY(waitForLaunch());
    const auto baseline = m_controller->session();
    QCOMPARE(baseline->outcome(), StageRun::Outcome::Finished);
    // Split training changes nothing: the same final loss as stage two's.
    QCOMPARE(baseline->finalLoss(), m_splitLoss);

    // The window compared the new baseline with the split by itself.
    RunHistoryPanel *history = m_window->runHistoryPanel();
    RunComparisonModel *comparison = history->comparison();
    QVERIFY(comparison->runA() && comparison->runB());
    QCOMPARE(comparison->runA()->kind(), RunKind::Baseline);
    QCOMPARE(comparison->runB()->kind(), RunKind::StageTwo);
    QCOMPARE(comparison->runA()->id(), baseline->id());
    QVERIFY(trainingDifferences(comparison->runA()->config(), comparison->runB()->config()).isEmpty());
    // Each in its own folder, both checkpoints kept.
    const QString baselineCheckpoint = baseline->trainingStage()->outputs.value(QStringLiteral("checkpoint"));
    const QString splitCheckpoint = comparison->runB()->trainingStage()->outputs.value(QStringLiteral("checkpoint"));
    QCOMPARE(QFileInfo(baselineCheckpoint).absolutePath(), QFileInfo(baseline->config().runFolder).absoluteFilePath());
    QVERIFY(QFileInfo(baselineCheckpoint).absolutePath() != QFileInfo(splitCheckpoint).absolutePath());
    QVERIFY(QFile::exists(baselineCheckpoint) && QFile::exists(splitCheckpoint));
    auto row = [comparison](const QString &metric) -> RunComparisonModel::Row {
        for (const auto &r : comparison->rows()) {
            if (r.metric == metric)
                return r;
        }
        return {};
    };
    QCOMPARE(row(QStringLiteral("Final loss")).relation, QStringLiteral("equal"));
    QCOMPARE(row(QStringLiteral("Optimizer steps")).a, 2.0 * kSamples);
    QCOMPARE(row(QStringLiteral("Optimizer steps")).b, 2.0 * kSamples);
    for (const char *metric : {"Time, as waited", "Time per epoch", "Peak memory while training"}) {
        const auto r = row(QLatin1String(metric));
        QVERIFY2(r.a > 0 && r.b > 0 && !r.relation.isEmpty(), metric);
    }
    QVERIFY(comparison->summary().contains(QLatin1String("the same final loss")));
    QVERIFY(history->summaryLabel()->text().contains(QLatin1String("B / A")));
    QCOMPARE(history->lossChart()->runCount(), 2);
    QCOMPARE(history->lossChart()->rawPoints(0), 2 * kSamples);
    QCOMPARE(history->lossChart()->rawPoints(1), 2 * kSamples);
    QCOMPARE(history->memoryChart()->runCount(), 2);
    QVERIFY(history->memoryChart()->memoryPoints(0) > 0 && history->memoryChart()->memoryPoints(1) > 0);

    // The Samples tab drew the prompts with each epoch's LoRA while the baseline trained:
    // a row per epoch (its title, then one image per prompt), the PNGs in the run folder.
    SamplesPanel *samples = m_window->samplesPanel();
    QTRY_VERIFY2_WITH_TIMEOUT(samples->rowCount() == 2 && !samples->isDrawing(), qPrintable(samples->statusText()), 60000);
    const int prompts = static_cast<int>(samples->promptsField()->text().split(QLatin1Char('|')).size());
    for (int epoch = 0; epoch < 2; ++epoch) {
        QCOMPARE(samples->imageCount(epoch), 1 + prompts);
        for (int i = 0; i < prompts; ++i) {
            const QString png = QDir(baseline->config().runFolder)
                                    .filePath(QStringLiteral("samples/epoch-%1/sample-%2.png").arg(epoch).arg(i, 3, 10, QLatin1Char('0')));
            QVERIFY2(!QImage(png).isNull(), qPrintable(png));
        }
    }
}

void TestRunWorker::interruptedBaselineResumesAfterARestart()
{
    // Ctrl+Q during a launch cancels it (the worker keeps a state to resume from); the
    // next start offered no Resume, and a new launch started over that state.
    const QString historyPath = m_dir.filePath(QStringLiteral("restart/run-history.json"));
    RunSettings settings = m_panel->settings();
    settings.epochs = 2;
    QString folder;
    {
        SplitDocument document;
        RunController controller;
        RunHistory history;
        QVERIFY(document.openSource(QStringLiteral("tiny-qwen-image")));
        controller.setWorkerProgram(QStringLiteral(SPLITSCOPE_CLI));
        QVERIFY(history.open(historyPath));
        RunPanel panel(&document, &controller);
        panel.setHistory(&history);
        panel.setSettings(settings);
        QVERIFY(panel.launch(RunKind::Baseline));
        QSignalSpy updated(&controller, &RunController::updated);
        while (controller.session()->current()->done < kSamples + 2) // into the second epoch
            QVERIFY(controller.isRunning() && updated.wait(kLaunchTimeoutMs));
        controller.cancel();
        QVERIFY(controller.waitForIdle(kLaunchTimeoutMs));
        QCOMPARE(controller.session()->outcome(), StageRun::Outcome::Cancelled);
        history.add(controller.session()); // as the window does
        folder = controller.session()->config().runFolder;
    }
    QVERIFY(QFile::exists(QDir(folder).filePath(QStringLiteral("resume.safetensors"))));

    SplitDocument document;
    RunController controller;
    RunHistory history;
    QVERIFY(document.openSource(QStringLiteral("tiny-qwen-image")));
    controller.setWorkerProgram(QStringLiteral(SPLITSCOPE_CLI));
    QVERIFY(history.open(historyPath));
    RunPanel panel(&document, &controller);
    panel.setHistory(&history);
    panel.setSettings(settings);
    QVERIFY(panel.resumeAction()->isEnabled());
    QVERIFY(panel.resume());
    QVERIFY(controller.waitForIdle(kLaunchTimeoutMs));
    const auto session = controller.session();
    QVERIFY2(session->outcome() == StageRun::Outcome::Finished, qPrintable(session->stages().at(0).failure));
    QVERIFY(session->resumed());
    QCOMPARE(session->config().runFolder, folder);
    QVERIFY(session->stages().at(0).command.endsWith(QLatin1String(" --resume")));
    bool resumedMidway = false;
    for (const auto &line : session->log())
        resumedMidway = resumedMidway || line.text.contains(QLatin1String("resuming at epoch 2"));
    QVERIFY(resumedMidway);
    // Continued, not started over: the uninterrupted baseline's result.
    QCOMPARE(session->finalLoss(), m_splitLoss);
}

void TestRunWorker::badRunSettingsFileIsRefused_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    QTest::addRow("epochs a string") << QByteArray(R"({"num_epochs": "abc", "learning_rate": -1})")
                                     << "learning_rate: must be greater than 0, not -1";
    QTest::addRow("misspelt key") << QByteArray(R"({"num_epoch": 1})") << "num_epoch: unknown key; did you mean num_epochs?";
    QTest::addRow("learning rate a string") << QByteArray(R"({"learning_rate": "0.005"})")
                                            << "learning_rate: must be a number such as 1e-4, not the string \"0.005\"";
}

void TestRunWorker::badRunSettingsFileIsRefused()
{
    // `splitscope tiny-qwen-image --run-settings rs.json --run both --screenshot x.png`
    // trained with the defaults in place of a wrong key and exited 0.
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    const QString app = appProgram();
    if (app.isEmpty())
        QSKIP("the splitscope app is not built beside splitscope-cli");
    QTemporaryDir dir;
    const QString settings = dir.filePath(QStringLiteral("rs.json"));
    QFile file(settings);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(json);
    file.close();
    QProcess process;
    process.setProcessEnvironment(appEnvironment(dir, QStringLiteral("data")));
    const QString picture = dir.filePath(QStringLiteral("x.png"));
    process.start(app, {QStringLiteral("tiny-qwen-image"), QStringLiteral("--run-settings"), settings,
                           QStringLiteral("--run"), QStringLiteral("both"), QStringLiteral("--screenshot"), picture});
    QVERIFY(process.waitForFinished(60000));
    const QString stderrText = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 2);
    QVERIFY2(stderrText.contains(QStringLiteral("splitscope: --run-settings: %1: %2").arg(settings, error)),
        qPrintable(stderrText));
    QVERIFY(!QFile::exists(picture));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("data"))));
}

// `--screenshot-when running` takes its picture halfway and lets the launch finish:
// it used to cancel it, leaving resume.safetensors behind and no run in the history.
void TestRunWorker::screenshotWhileRunningLetsTheRunFinish()
{
    const QString app = appProgram();
    if (app.isEmpty())
        QSKIP("the splitscope app is not built beside splitscope-cli");
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString settings = dir.filePath(QStringLiteral("rs.json"));
    QFile file(settings);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(QJsonObject{{QStringLiteral("dataset_base_path"), m_dir.filePath(QStringLiteral("data"))},
                                 {QStringLiteral("model_root"), m_dir.filePath(QStringLiteral("models"))},
                                 {QStringLiteral("cache_path"), dir.filePath(QStringLiteral("cache"))},
                                 {QStringLiteral("output_path"), out}, {QStringLiteral("num_epochs"), 3},
                                 {QStringLiteral("lora_rank"), 4}, {QStringLiteral("learning_rate"), 1e-3},
                                 {QStringLiteral("num_threads"), 1}})
                   .toJson());
    file.close();
    QProcess process;
    process.setProcessEnvironment(appEnvironment(dir, QStringLiteral("xdg-data")));
    const QString picture = dir.filePath(QStringLiteral("x.png"));
    const QString history = dir.filePath(QStringLiteral("history.json"));
    process.start(app, {QStringLiteral("tiny-qwen-image"), QStringLiteral("--run-settings"), settings, QStringLiteral("--run"),
                           QStringLiteral("baseline"), QStringLiteral("--screenshot-when"), QStringLiteral("running"),
                           QStringLiteral("--run-history"), history, QStringLiteral("--screenshot"), picture});
    QVERIFY(process.waitForFinished(kLaunchTimeoutMs));
    const QString stderrText = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, qPrintable(stderrText));
    QVERIFY(QFileInfo(picture).size() > 0);
    QStringList finals;
    QStringList states;
    QDirIterator it(out, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.endsWith(QLatin1String("/epoch-2.safetensors")))
            finals << path;
        if (path.endsWith(QLatin1String("/resume.safetensors")))
            states << path;
    }
    QCOMPARE(finals.size(), 1);  // trained to its end
    QVERIFY2(states.isEmpty(), qPrintable(states.join(' '))); // not cancelled
    QVERIFY2(splitscope::test::readFileBytes(history).contains("\"baseline\""), splitscope::test::readFileBytes(history).left(400).constData());
}

void TestRunWorker::cleanupTestCase()
{
    m_window.reset();
}

QTEST_MAIN(TestRunWorker)
#include "tst_runworker.moc"
