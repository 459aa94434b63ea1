// SPDX-License-Identifier: MIT
// The Run panel's cache check and the engine's stage-two check give the same verdict.
// One real stage-one cache (the real CLI, small models) is copied and edited one
// manifest field at a time, as tests/engine edits manifests; for each copy the app's
// check (readCacheStatus + cacheDifferences) and the engine (`splitscope-cli train
// --task sft:train` on that copy) must both accept it or both refuse it.
#include "RunTestSupport.h"

#include "widgets/run/RunChecks.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace splitscope;
using namespace splitscope::test;

namespace {

struct CliResult {
    int status = -1;
    QString output;
};

CliResult runCli(const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    CliResult result;
    if (!process.waitForFinished(240000) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        result.output = QStringLiteral("did not finish");
        return result;
    }
    result.status = process.exitCode();
    result.output = QString::fromUtf8(process.readAll());
    return result;
}

bool copyFolder(const QString &from, const QString &to)
{
    if (!QDir().mkpath(to))
        return false;
    const QDir source(from);
    for (const QString &name : source.entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString path = source.filePath(name);
        const QString target = QDir(to).filePath(name);
        const bool ok = QFileInfo(path).isDir() ? copyFolder(path, target) : QFile::copy(path, target);
        if (!ok)
            return false;
    }
    return true;
}

using ManifestEdit = std::function<void(engine::CacheManifest &)>;

} // namespace

class TestCacheParity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sameVerdict_data();
    void sameVerdict();

private:
    QTemporaryDir m_dir;
    RunConfig m_config;
    engine::CacheManifest m_manifest;
    int m_case = 0;
};

void TestCacheParity::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const ExecutablePipeline &pipeline = executablePipelines().front();
    m_config = tinyConfig(m_dir.path());
    m_config.settings.threads = 1;
    m_config.settings.cacheShardSize = 2;
    CliResult r = runCli({QStringLiteral("init-models"), QStringLiteral("--root"), m_config.settings.modelsRoot,
        QStringLiteral("--preset"), QStringLiteral("small")});
    QVERIFY2(r.status == 0, qPrintable(r.output));
    r = runCli({QStringLiteral("make-dataset"), m_config.settings.datasetPath, QStringLiteral("--count"),
        QStringLiteral("2"), QStringLiteral("--width"), QStringLiteral("32"), QStringLiteral("--height"),
        QStringLiteral("32")});
    QVERIFY2(r.status == 0, qPrintable(r.output));
    r = runCli(trainArguments(m_config, pipeline, RunStage::StageOne, false));
    QVERIFY2(r.status == 0, qPrintable(r.output));

    QFile file(QDir(m_config.settings.cachePath).filePath(QStringLiteral("manifest.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    std::string error;
    QVERIFY2(engine::CacheManifest::parse(file.readAll().toStdString(), "manifest.json", m_manifest, &error),
        error.c_str());
    QVERIFY(m_manifest.complete);
    // The split the document would give: the one stage one recorded (tst_runworker
    // checks that the panel's split and the engine's agree).
    m_config.stageOneUnits = toQStringList(m_manifest.stageOneUnits);
    m_config.cacheSet = toQStringList(m_manifest.cacheSet);
    QVERIFY(!m_config.cacheSet.isEmpty());
}

void TestCacheParity::sameVerdict_data()
{
    QTest::addColumn<ManifestEdit>("edit");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("as made") << ManifestEdit([](engine::CacheManifest &) {}) << true;
    QTest::newRow("pipeline") << ManifestEdit([](engine::CacheManifest &m) { m.pipeline = "other-pipeline"; }) << false;
    QTest::newRow("task") << ManifestEdit([](engine::CacheManifest &m) {
        m.task = "direct_distill";
        m.loss = "DirectDistillLoss";
    }) << false;
    QTest::newRow("pipeline hash") << ManifestEdit([](engine::CacheManifest &m) { m.pipelineHash ^= 1; }) << false;
    QTest::newRow("models requiring backward")
        << ManifestEdit([](engine::CacheManifest &m) { m.modelsRequiringBackward = {"dit", "text_encoder"}; })
        << false;
    QTest::newRow("stage-one units") << ManifestEdit([](engine::CacheManifest &m) { m.stageOneUnits.pop_back(); })
                                     << false;
    QTest::newRow("a cached param missing")
        << ManifestEdit([](engine::CacheManifest &m) { m.cacheSet.erase(m.cacheSet.begin()); }) << false;
    QTest::newRow("a model record missing")
        << ManifestEdit([](engine::CacheManifest &m) { m.models.erase(m.models.begin()); }) << false;
    QTest::newRow("a setting missing") << ManifestEdit([](engine::CacheManifest &m) { m.settings.erase("seed"); }) << false;
    QTest::newRow("an extra cached param")
        << ManifestEdit([](engine::CacheManifest &m) { m.cacheSet.push_back("unused_param"); }) << true;
}

void TestCacheParity::sameVerdict()
{
    QFETCH(ManifestEdit, edit);
    QFETCH(bool, accepted);
    const QString cache = m_dir.filePath(QStringLiteral("case%1/cache").arg(m_case));
    QVERIFY(copyFolder(m_config.settings.cachePath, cache));
    engine::CacheManifest manifest = m_manifest;
    edit(manifest);
    QFile file(QDir(cache).filePath(QStringLiteral("manifest.json")));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QVERIFY(file.write(QByteArray::fromStdString(manifest.toJson())) > 0);
    file.close();

    RunConfig config = m_config;
    config.settings.cachePath = cache;
    config.settings.outputPath = m_dir.filePath(QStringLiteral("case%1/out").arg(m_case++));
    const QStringList differences = cacheDifferences(readCacheStatus(cache), config, RunStage::StageTwo);
    const CliResult engineRun = runCli(trainArguments(config, executablePipelines().front(), RunStage::StageTwo, false));
    QVERIFY2(engineRun.status == 0 || engineRun.status == 2, qPrintable(engineRun.output));
    const bool appAccepts = differences.isEmpty();
    const bool engineAccepts = engineRun.status == 0;
    QVERIFY2(appAccepts == engineAccepts,
        qPrintable(QStringLiteral("app: %1; engine (status %2): %3")
                       .arg(appAccepts ? QStringLiteral("accepts") : differences.join(QStringLiteral("; ")))
                       .arg(engineRun.status)
                       .arg(engineRun.output.right(600))));
    QCOMPARE(appAccepts, accepted);
}

QTEST_GUILESS_MAIN(TestCacheParity)
#include "tst_cacheparity.moc"
