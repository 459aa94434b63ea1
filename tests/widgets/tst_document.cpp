// SPDX-License-Identifier: MIT
// The document layer: loading (files, examples, failures that keep the open
// pipeline), re-splitting on every training change (synchronously and on a worker
// with stale jobs dropped), id-keyed stage signals, the stepper's trace against the
// core, and reloading when the file changes on disk.
#include "WidgetTestSupport.h"

#include "widgets/document/PipelineFileWatcher.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"

#include "core/PipelineFile.h"
#include "support/RandomPipeline.h"
#include "core/SplitReport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace splitscope;
using namespace splitscope::test;


class TestDocument : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void opensEachExample_data();
    void opensEachExample();
    void failedLoadKeepsThePipeline();
    void unknownExampleListsTheBuiltins();
    void folderNamedLikeABuiltinDoesNotHideIt();
    void trainingChangesResplitAtOnce();
    void stageSignalsAreIdKeyed();
    void asyncResplitDropsStaleJobs();
    void traceCursorFollowsTheCore_data();
    void traceCursorFollowsTheCore();
    void safeSplitEndsWithTheClosureStep();
    void reloadsWhenTheFileChanges();
    void reloadKeepsChoiceAndSelection();
    void fileThatFailedAtStartupIsFollowed();
    void reloadRetriesTheFileThatFailed();
    void comparisonOtherModeFollowsTraining();
};

void TestDocument::opensEachExample_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : exampleNames())
        QTest::newRow(qPrintable(name)) << name;
}

void TestDocument::opensEachExample()
{
    QFETCH(QString, name);
    SplitDocument document;
    QSignalSpy reset(&document, &SplitDocument::pipelineReset);
    QVERIFY(document.openFile(examplePath(name)));
    QCOMPARE(reset.count(), 1);
    QVERIFY(document.hasPipeline());
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), name);
    QVERIFY(!document.lastLoadFailed());
    // The split shown is the core's split of the file's training block.
    const LoadResult load = loadPipelineFile(examplePath(name).toStdString());
    QVERIFY(load.ok());
    const PipelineGraph graph(*load.pipeline);
    const SplitAnalysis expected = analyzeSplit(graph, load.pipeline->trainingOrDefault().modelsRequiringBackward(),
        SplitMode::Seed);
    QVERIFY(document.analysis());
    QCOMPARE(document.analysis()->split.trained, expected.split.trained);
    QCOMPARE(document.analysis()->verification.hazards.size(), expected.verification.hazards.size());

    // The built-in copy opens too, under its example name.
    SplitDocument builtin;
    QVERIFY(builtin.openSource(name));
    QCOMPARE(builtin.source().exampleName, name);
    QCOMPARE(builtin.graph().unitCount(), document.graph().unitCount());
}

void TestDocument::failedLoadKeepsThePipeline()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("broken.json"));
    QVERIFY(writeFileBytes(bad, "{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"x\",\n \"units\": [ {\"name\": 3} ]\n}\n"));

    SplitDocument document;
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    const auto graphBefore = document.sharedGraph();
    const auto analysisBefore = document.analysis();
    QSignalSpy failed(&document, &SplitDocument::loadFailed);
    QSignalSpy reset(&document, &SplitDocument::pipelineReset);
    QVERIFY(!document.openFile(bad));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.front().front().toString(), bad);
    QCOMPARE(reset.count(), 0);
    QVERIFY(document.lastLoadFailed());
    QCOMPARE(document.sharedGraph(), graphBefore);
    QCOMPARE(document.analysis(), analysisBefore);
    QCOMPARE(document.source().exampleName, QStringLiteral("qwen_image"));
    // The error names the file, the JSON path and the line.
    const Diagnostics &d = document.diagnostics();
    QVERIFY(hasErrors(d));
    const auto error = std::find_if(d.begin(), d.end(), [](const Diagnostic &x) { return x.severity == Severity::Error; });
    QVERIFY(QString::fromStdString(error->file).endsWith(QStringLiteral("broken.json")));
    QCOMPARE(QString::fromStdString(error->jsonPath), QStringLiteral("units[0].name"));
    QCOMPARE(error->line, 4);

    // A good load afterwards clears the failure.
    QVERIFY(document.openExample(QStringLiteral("krea2")));
    QVERIFY(!document.lastLoadFailed());
}

void TestDocument::unknownExampleListsTheBuiltins()
{
    SplitDocument document;
    QVERIFY(!document.openSource(QStringLiteral("no_such_pipeline")));
    QVERIFY(!document.hasPipeline());
    const QString message = QString::fromStdString(document.diagnostics().front().message);
    QVERIFY2(message.contains(QStringLiteral("qwen_image")), qPrintable(message));
}

void TestDocument::folderNamedLikeABuiltinDoesNotHideIt()
{
    // A folder "qwen_image" in the current folder: the name still opens the built-in
    // (a folder is not a pipeline file), as splitscope-cli reads it.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("qwen_image")));
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    SplitDocument document;
    const bool opened = document.openSource(QStringLiteral("qwen_image"));
    QDir::setCurrent(before);
    QVERIFY(opened);
    QCOMPARE(document.source().exampleName, QStringLiteral("qwen_image"));
    // "./qwen_image" is the path: a folder, refused.
    SplitDocument path;
    QVERIFY(QDir::setCurrent(dir.path()));
    const bool openedPath = path.openSource(QStringLiteral("./qwen_image"));
    QDir::setCurrent(before);
    QVERIFY(!openedPath);
}

void TestDocument::trainingChangesResplitAtOnce()
{
    SplitDocument document;
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QSignalSpy analysis(&document, &SplitDocument::analysisChanged);
    QSignalSpy training(&document, &SplitDocument::trainingChanged);
    document.setModelTrainable("vae", true);
    QCOMPARE(training.count(), 1);
    QCOMPARE(analysis.count(), 1); // synchronous for a real pipeline
    const PipelineGraph &graph = document.graph();
    QCOMPARE(document.analysis()->split.trained,
        computeSeedSplit(graph, {"vae", "dit"}).trained);
    document.setSplitMode(SplitMode::Safe);
    QCOMPARE(document.analysis()->split.mode, SplitMode::Safe);
    QCOMPARE(document.analysis()->split.trained, computeSafeSplit(graph, {"vae", "dit"}).trained);
    document.setLoraBase(std::nullopt);
    QCOMPARE(document.training().modelsRequiringBackward(), std::vector<std::string>{"vae"});
    // Setting the same choice again does nothing.
    document.setTraining(document.training());
    QCOMPARE(analysis.count(), 3);
}

void TestDocument::stageSignalsAreIdKeyed()
{
    SplitDocument document;
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    const std::vector<char> before = document.analysis()->split.trained;
    QSignalSpy changed(&document, &SplitDocument::unitStageChanged);
    document.setModelTrainable("text_encoder", true);
    const std::vector<char> after = document.analysis()->split.trained;
    std::vector<UnitId> expected;
    for (UnitId u = 0; u < static_cast<UnitId>(after.size()); ++u) {
        if (before[u] != after[u])
            expected.push_back(u);
    }
    QVERIFY(!expected.empty());
    std::vector<UnitId> got;
    for (const auto &args : changed)
        got.push_back(args.front().toInt());
    QCOMPARE(got, expected);
}

void TestDocument::asyncResplitDropsStaleJobs()
{
    RandomPipelineOptions options;
    options.units = 400;
    options.layered = true;
    options.models = 4;
    options.seed = 11;
    SplitDocument document;
    document.setAsyncThreshold(0); // every re-split on a worker
    QSignalSpy analysis(&document, &SplitDocument::analysisChanged);
    QSignalSpy busy(&document, &SplitDocument::splittingChanged);
    QVERIFY(document.setPipeline(makeRandomPipeline(options), PipelineSource{}));
    QVERIFY(document.isSplitting());
    QVERIFY(!document.analysis()); // not on the GUI thread
    // Three changes in a row: only the last one's result may land.
    document.setModelTrainable("m0", true);
    document.setModelTrainable("m1", true);
    document.setSplitMode(SplitMode::Safe);
    QVERIFY(analysis.wait(10000));
    QVERIFY(!document.isSplitting());
    QCOMPARE(analysis.count(), 1);
    const auto expected = computeSafeSplit(document.graph(), document.training().modelsRequiringBackward());
    QCOMPARE(document.analysis()->split.trained, expected.trained);
    QCOMPARE(document.analysis()->split.mode, SplitMode::Safe);
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(0).front().toBool(), true);
    QCOMPARE(busy.at(1).front().toBool(), false);
    QVERIFY(!analysis.wait(300)); // and no stale result arrives later
}

void TestDocument::traceCursorFollowsTheCore_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("model");
    QTest::newRow("qwen_image vae") << QStringLiteral("qwen_image") << QStringLiteral("vae");
    QTest::newRow("wan_video vae") << QStringLiteral("wan_video") << QStringLiteral("vae");
    QTest::newRow("wan_video text_encoder") << QStringLiteral("wan_video") << QStringLiteral("text_encoder");
    QTest::newRow("ltx2 vae") << QStringLiteral("ltx2_audio_video") << QStringLiteral("vae");
}

void TestDocument::traceCursorFollowsTheCore()
{
    QFETCH(QString, name);
    QFETCH(QString, model);
    SplitDocument document;
    TraceCursor cursor(&document);
    QVERIFY(document.openExample(name));
    document.setModelTrainable(model.toStdString(), true);
    const Split &split = document.analysis()->split;
    const auto steps = traceSteps(split);
    QCOMPARE(cursor.stepCount(), static_cast<int>(steps.size()));
    QVERIFY(cursor.atSplit()); // rests on the split
    const int n = document.graph().unitCount();
    QSignalSpy moved(&cursor, &TraceCursor::positionChanged);
    cursor.first();
    QCOMPARE(moved.count(), 1);
    for (int k = 0; k < cursor.stepCount(); ++k) {
        cursor.setPosition(k);
        QCOMPARE(cursor.step(k).label, QString::fromStdString(steps[k].label()));
        QCOMPARE(cursor.step(k).added, steps[k].added);
        QCOMPARE(cursor.membersAt(k), membersAfterSteps(split, k + 1, n));
        QCOMPARE(cursor.step(k).causes.size(), steps[k].added.size());
        QCOMPARE(cursor.step(k).explanation.size(),
            static_cast<qsizetype>(describeStep(document.graph(), split, steps[k]).size()));
    }
    cursor.last();
    QCOMPARE(cursor.membersAt(cursor.position()), split.trained);
    cursor.next(); // clamps
    QCOMPARE(cursor.position(), cursor.stepCount());
}

void TestDocument::safeSplitEndsWithTheClosureStep()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    document.setSplitMode(SplitMode::Safe);
    const Split &split = document.analysis()->split;
    QCOMPARE(cursor.stepCount(), 2); // X0, S
    QCOMPARE(cursor.step(0).label, QStringLiteral("X0"));
    QCOMPARE(cursor.step(1).label, QStringLiteral("S"));
    QCOMPARE(cursor.membersAt(0), membersAfterSteps(split, 1, document.graph().unitCount()));
    QCOMPARE(cursor.membersAt(1), split.trained);
    std::vector<UnitId> closure;
    for (const UnitId u : split.v1()) {
        if (std::find(split.x0.begin(), split.x0.end(), u) == split.x0.end())
            closure.push_back(u);
    }
    QCOMPARE(sorted(cursor.step(1).added), closure);
    QVERIFY(!closure.empty()); // this pipeline is where seed and safe differ
}

void TestDocument::reloadsWhenTheFileChanges()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pipeline.json"));
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    SplitDocument document;
    PipelineFileWatcher watcher(&document);
    QVERIFY(document.openFile(path));
    QCOMPARE(watcher.watchedPaths(), QStringList{QFileInfo(path).absoluteFilePath()});
    const int unitsBefore = document.graph().unitCount();

    // An editor saves a different pipeline: the document follows.
    QSignalSpy reloaded(&watcher, &PipelineFileWatcher::reloaded);
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("wan_video"))));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), true);
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("wan_video"));
    QVERIFY(document.graph().unitCount() != unitsBefore);

    // A save with an error keeps the last good pipeline, and watching goes on.
    QVERIFY(writeFileBytes(path, "{ \"format\": \"splitscope.pipeline/1\", "));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), false);
    QVERIFY(document.lastLoadFailed());
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("wan_video"));

    // Replaced by rename (how many editors save): still followed.
    const QString temp = dir.filePath(QStringLiteral("pipeline.json.tmp"));
    QVERIFY(writeFileBytes(temp, exampleText(QStringLiteral("krea2"))));
    QVERIFY(QFile::remove(path));
    QVERIFY(QFile::rename(temp, path));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), true);
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("krea2"));
}

void TestDocument::reloadKeepsChoiceAndSelection()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("q.json"));
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("qwen_image"))));
    SplitDocument document;
    QVERIFY(document.openFile(path));
    document.setModelTrainable("vae", true);
    document.setSplitMode(SplitMode::Safe);
    const UnitId unit = document.graph().findUnit("QwenImageUnit_PromptEmbedder");
    document.setCurrentUnit(unit);
    QVERIFY(document.reload());
    QVERIFY(document.training().isTrainable("vae"));
    QCOMPARE(document.training().mode, SplitMode::Safe);
    QCOMPARE(document.currentUnit(), unit);
    // Opening another file starts from that file's training block.
    QVERIFY(document.openExample(QStringLiteral("krea2")));
    QVERIFY(!document.training().isTrainable("vae"));
    QCOMPARE(document.currentUnit(), kNoUnit);
}

// `splitscope /tmp/x/bad.json` with a type error, then a valid pipeline written over
// the file: the graph follows, as it does for a file that loaded.
void TestDocument::fileThatFailedAtStartupIsFollowed()
{
    QTemporaryDir dir;
    const QString path = QFileInfo(dir.filePath(QStringLiteral("bad.json"))).absoluteFilePath();
    QVERIFY(writeFileBytes(path, "{\"format\": \"splitscope.pipeline/1\", \"name\": \"x\", \"units\": [{\"name\": 3}]}\n"));
    SplitDocument document;
    PipelineFileWatcher watcher(&document);
    QVERIFY(!document.openSource(path));
    QVERIFY(!document.hasPipeline());
    QCOMPARE(document.failedPath(), path);
    QCOMPARE(watcher.watchedPaths(), QStringList{path});
    QSignalSpy reloaded(&watcher, &PipelineFileWatcher::reloaded);
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(1).toBool(), true);
    QVERIFY(document.hasPipeline());
    QVERIFY(!document.lastLoadFailed());
    QCOMPARE(document.source().path, path);
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("krea2"));
    QCOMPARE(watcher.watchedPaths(), QStringList{path});

    // A file that does not exist yet is followed from its folder; the open one stays followed too.
    const QString later = QFileInfo(dir.filePath(QStringLiteral("later.json"))).absoluteFilePath();
    QVERIFY(!document.openSource(later));
    QCOMPARE(watcher.watchedPaths(), (QStringList{later, path}));
    QVERIFY(writeFileBytes(later, exampleText(QStringLiteral("qwen_image"))));
    QVERIFY(reloaded.wait(5000));
    QCOMPARE(reloaded.last().at(0).toString(), later);
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("qwen_image"));
}

// File > Reload after a failed open: the failed file is read again (it used to do
// nothing when no pipeline was open, and reloaded the other one when one was).
void TestDocument::reloadRetriesTheFileThatFailed()
{
    QTemporaryDir dir;
    const QString path = QFileInfo(dir.filePath(QStringLiteral("bad.json"))).absoluteFilePath();
    QVERIFY(writeFileBytes(path, "{ \"format\": \"splitscope.pipeline/1\", "));
    SplitDocument document;
    QVERIFY(!document.openFile(path));
    QVERIFY(!document.reload()); // still broken
    QVERIFY(document.lastLoadFailed());
    QCOMPARE(document.failedPath(), path);
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    QVERIFY(document.reload());
    QCOMPARE(document.source().path, path);
    QCOMPARE(document.failedPath(), QString());

    // With another pipeline open, Reload retries the file that failed, and it replaces it.
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QVERIFY(writeFileBytes(path, "{}"));
    QVERIFY(!document.openFile(path));
    QCOMPARE(document.source().exampleName, QStringLiteral("qwen_image"));
    QVERIFY(writeFileBytes(path, exampleText(QStringLiteral("krea2"))));
    QVERIFY(document.reload());
    QCOMPARE(QString::fromStdString(document.graph().pipelineName()), QStringLiteral("krea2"));
    // A failed file that is gone (a typo, say) is not retried while a pipeline is open:
    // Reload reloads the open one.
    QVERIFY(!document.openFile(dir.filePath(QStringLiteral("typo.json"))));
    QVERIFY(document.reload());
    QCOMPARE(document.source().path, path);
    QVERIFY(!document.lastLoadFailed());
    // An example name that does not exist is not a file to retry either.
    QVERIFY(!document.openExample(QStringLiteral("no_such_example")));
    QCOMPARE(document.failedPath(), QString());
    QVERIFY(document.reload());
    QCOMPARE(document.source().path, path);
}

void TestDocument::comparisonOtherModeFollowsTraining()
{
    SplitDocument document;
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    QSignalSpy compared(&document, &SplitDocument::comparisonChanged);
    document.setComparison(SplitDocument::CompareKind::OtherMode);
    QCOMPARE(compared.count(), 1);
    QVERIFY(document.comparison());
    QCOMPARE(document.comparison()->split.mode, SplitMode::Safe);
    const SplitDiff expected = diffSplits(document.graph(), document.analysis()->split, document.comparison()->split);
    QCOMPARE(document.diff()->moved.size(), expected.moved.size());
    QVERIFY(!expected.moved.empty());
    document.setSplitMode(SplitMode::Safe); // B becomes seed
    QCOMPARE(document.comparison()->split.mode, SplitMode::Seed);
    document.setComparison(SplitDocument::CompareKind::None);
    QVERIFY(!document.comparison());
    QVERIFY(!document.diff());
}

QTEST_GUILESS_MAIN(TestDocument)
#include "tst_document.moc"
