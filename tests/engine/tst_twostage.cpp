// SPDX-License-Identifier: MIT
// Two-stage training against one-stage training on the tiny models: identical
// weights (sft, direct_distill, any loader thread count), the hazard arrangement,
// the manifest's refusals, cancellation and resumption (and what --resume refuses),
// corrupt shards and model files.
#include "EngineTestSupport.h"

#include "core/engine/CacheManifest.h"
#include "core/engine/Hash.h"
#include "core/engine/RunFolder.h"
#include "core/engine/Safetensors.h"
#include "core/engine/SeedSequence.h"
#include "core/engine/SyntheticDataset.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <unistd.h>

using namespace enginetest;
using splitscope::SplitMode;

namespace {

// Every file under `dir` (relative path -> bytes).
QMap<QString, QByteArray> folderContents(const QString &dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        files.insert(QDir(dir).relativeFilePath(path), readFileBytes(path));
    }
    return files;
}

bool copyFolder(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = to + "/" + QDir(from).relativeFilePath(path);
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(path, target))
            return false;
    }
    return true;
}

// A file's bytes by a path QFile cannot spell (one that is not UTF-8).
QByteArray readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return QByteArray::fromStdString(std::string(std::istreambuf_iterator<char>(in), {}));
}

QStringList codes(const Run &run, const QString &event)
{
    QStringList out;
    for (const auto &e : run.all(event))
        out << e.value("code").toString();
    return out;
}

bool isStepEvent(const QJsonObject &e, int step)
{
    return e.value("event").toString() == "step" && e.value("step").toInt() == step;
}

// Damages the shard `file` of the cache in `cache`: "missing" deletes it, "truncated"
// cuts off its second half, "header" breaks its header's JSON (the manifest is left
// as it was, as after a disk error). "shape" rewrites the shard with the channels of
// 7/input_latents halved (the same bytes, shape [1, C/2, h, 2w]) and updates the
// manifest's size and checksum, so that only the shape is wrong.
bool damageShard(const QString &cache, const QString &file, const QString &how, QString *error)
{
    const QString path = cache + "/" + file;
    QFile shard(path);
    if (how == "missing")
        return shard.remove();
    if (!shard.setPermissions(shard.permissions() | QFileDevice::WriteOwner))
        return false;
    if (how == "truncated")
        return shard.resize(shard.size() / 2);
    if (how == "header")
        return shard.open(QIODevice::ReadWrite) && shard.seek(8) && shard.write("#") == 1; // its opening brace
    std::string bytes;
    {
        engine::SafetensorsFile original;
        std::string e;
        if (!original.open(path.toStdString(), &e)) {
            *error = QString::fromStdString(e);
            return false;
        }
        engine::SafetensorsWriter writer;
        for (const auto &[key, value] : original.metadata())
            writer.setMetadata(key, value);
        bool found = false;
        for (const engine::TensorInfo &t : original.tensors()) {
            std::vector<std::int64_t> shape = t.shape;
            if (t.name == "7/input_latents" && shape.size() == 4) {
                shape = {shape[0], shape[1] / 2, shape[2], shape[3] * 2};
                found = true;
            }
            if (!writer.add(t.name, t.dtype, shape, original.data(t), t.byteSize(), &e)) {
                *error = QString::fromStdString(e);
                return false;
            }
        }
        if (!found) {
            *error = "no 7/input_latents of rank 4 in " + path;
            return false;
        }
        bytes = writer.serialize();
    }
    if (!shard.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || shard.write(bytes.data(), static_cast<qint64>(bytes.size())) != static_cast<qint64>(bytes.size()))
        return false;
    shard.close();
    engine::CacheManifest manifest;
    std::string e;
    const QString manifestPath = cache + "/manifest.json";
    if (!engine::CacheManifest::parse(readFileBytes(manifestPath).toStdString(), "manifest.json", manifest, &e)) {
        *error = QString::fromStdString(e);
        return false;
    }
    for (engine::CacheShard &s : manifest.shards) {
        if (s.file == file.toStdString()) {
            s.bytes = bytes.size();
            s.checksum = engine::hashBytes(bytes.data(), bytes.size());
        }
    }
    QFile manifestFile(manifestPath);
    const std::string text = manifest.toJson();
    return manifestFile.setPermissions(manifestFile.permissions() | QFileDevice::WriteOwner)
        && manifestFile.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && manifestFile.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

} // namespace

class TestTwoStage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sftOneStageEqualsTwoStage();
    void directDistillOneStageEqualsTwoStage();
    void loaderThreadsDoNotChangeTheWeights();
    void hazardArrangement();
    void stageTwoRefusesAMismatchedCache_data();
    void stageTwoRefusesAMismatchedCache();
    void stageOneResumesAfterCancellation();
    void corruptShardIsNamed();
    void badCacheIsRefusedBeforeTheFirstStep_data();
    void badCacheIsRefusedBeforeTheFirstStep();
    void corruptModelFileIsBadInput();
    void stageOneRefusesTheDatasetFolder();
    void resumeRefusesAReachedLimit();
    void resumeComparesPathsAsFiles();
    void maxStepsKeepsAStateToContinue();
    void newRunRefusesAnUnfinishedRun();
    void oneFolderHoldsOneRunAtATime();
    void aCacheBeingReadIsNotRewritten();
    void staleTemporaryFilesAreRemoved();
    void divergedWeightsAreNeverSaved();
    void movedProjectWithRelativePathsResumes();
    void stageTwoResumesAfterCancellation();
    void cacheAllParamsKeepsEverything();
    void saveStepsReplaceEpochCheckpoints();
    void badInputs_data();
    void badInputs();
    void resumeRefusesOtherData();
    void ignoredFlagsAreWarnedAndSetApart();
    void maxPixelsWithHeightAndWidthIsWarned();
    void loraCheckpointSaysWhatItDoesNotUse();
    void damagedImageIsRefusedBeforeAnyWork();
    void pathsThatAreNotUtf8();
    void shardTruncatedWhileReadIsAnError();
    void cacheRecordsTheTokenizer();
    void stageOneWarnsAboutTrainingFlags();
    void devicesAreRefusedNamingTheFile();
    void statesAreWrittenBesideTheSteps();
    void damagedStateIsRefusedNamingTheFile();
    void stageTwoChecksTheDatasetItWasMadeFrom();
    void threadCountsAreCompared();
    void refusedRunsCreateNothing_data();
    void refusedRunsCreateNothing();
    void outputPathsThatCannotBeAreBadInput();
    void undecodableImageMidRunKeepsTheState();
    void aFullDiskNeverLeavesARunWithoutAState();

private:
    QString sftCache(); // made once
    double diff(const QString &a, const QString &b);

    Fixture m_fixture;
    QString m_sftCache;
};

void TestTwoStage::initTestCase()
{
    QString error;
    QVERIFY2(m_fixture.setUp(&error), qPrintable(error));
}

double TestTwoStage::diff(const QString &a, const QString &b)
{
    QString error;
    const double d = maxAbsDiff(a, b, &error);
    if (d < 0)
        qWarning("%s", qPrintable(error));
    return d;
}

QString TestTwoStage::sftCache()
{
    if (m_sftCache.isEmpty()) {
        const QString cache = m_fixture.path("sft-cache");
        auto params = m_fixture.params("sft:data_process", cache);
        params.cacheShardSize = 3;
        const Run run = runTraining(params);
        if (run.result.status == engine::kTrainOk)
            m_sftCache = cache;
        else
            qWarning("%s", qPrintable(run.errors()));
    }
    return m_sftCache;
}

void TestTwoStage::sftOneStageEqualsTwoStage()
{
    auto one = m_fixture.params("sft", m_fixture.path("sft-one"));
    one.numEpochs = 2;
    one.datasetRepeat = 2;
    const Run oneRun = runTraining(one);
    QCOMPARE(oneRun.result.status, engine::kTrainOk);
    QCOMPARE(oneRun.result.steps, std::uint64_t(32));

    const QString cache = sftCache();
    QVERIFY(!cache.isEmpty());
    auto two = m_fixture.params("sft:train", m_fixture.path("sft-two"), cache);
    two.numEpochs = 2;
    two.datasetRepeat = 2;
    const Run twoRun = runTraining(two);
    QVERIFY2(twoRun.result.status == engine::kTrainOk, qPrintable(twoRun.errors()));
    QCOMPARE(diff(m_fixture.path("sft-one/epoch-1.safetensors"), m_fixture.path("sft-two/epoch-1.safetensors")), 0.0);
    QCOMPARE(readFileBytes(m_fixture.path("sft-one/loss.csv")), readFileBytes(m_fixture.path("sft-two/loss.csv")));
    QVERIFY(QFile::exists(m_fixture.path("sft-two/epoch-0.safetensors")));
    QVERIFY(QFile::exists(m_fixture.path("sft-two/training_args.json")));
    QVERIFY(!QFile::exists(m_fixture.path("sft-two/resume.safetensors"))); // removed at the end

    // Stage two never materializes the text encoder or the VAE; one-stage does.
    QCOMPARE(twoRun.last("memory").value("materialized").toArray(), QJsonArray({"dit"}));
    QCOMPARE(oneRun.last("memory").value("materialized").toArray().size(), 3);
    QVERIFY(twoRun.last("memory").value("cache_bytes_read").toInteger() > 0);
    QVERIFY(twoRun.last("step").value("loss").isDouble());
    QCOMPARE(twoRun.last("step").value("total_steps").toInt(), 32);
    QCOMPARE(twoRun.last("done").value("ok").toBool(), true);
    QCOMPARE(twoRun.events.last().value("event").toString(), QString("done"));

    // The checkpoint has DiffSynth's names, prefix removed.
    engine::SafetensorsFile checkpoint;
    QVERIFY(checkpoint.open(m_fixture.path("sft-two/epoch-1.safetensors").toStdString()));
    QVERIFY(checkpoint.find("transformer_blocks.0.attn.to_q.lora_A.default.weight"));
    QVERIFY(checkpoint.find("transformer_blocks.1.img_mlp.net.2.lora_B.default.weight"));
    QVERIFY(checkpoint.find("transformer_blocks.0.attn.to_out.0.lora_A.default.weight"));
}

void TestTwoStage::directDistillOneStageEqualsTwoStage()
{
    auto one = m_fixture.params("direct_distill", m_fixture.path("dd-one"));
    one.numInferenceSteps = 3;
    const Run oneRun = runTraining(one);
    QVERIFY2(oneRun.result.status == engine::kTrainOk, qPrintable(oneRun.errors()));
    auto stageOne = m_fixture.params("direct_distill:data_process", m_fixture.path("dd-cache"));
    stageOne.numInferenceSteps = 3;
    QCOMPARE(runTraining(stageOne).result.status, engine::kTrainOk);
    auto stageTwo = m_fixture.params("direct_distill:train", m_fixture.path("dd-two"), m_fixture.path("dd-cache"));
    stageTwo.numInferenceSteps = 3;
    const Run twoRun = runTraining(stageTwo);
    QVERIFY2(twoRun.result.status == engine::kTrainOk, qPrintable(twoRun.errors()));
    QCOMPARE(diff(m_fixture.path("dd-one/epoch-0.safetensors"), m_fixture.path("dd-two/epoch-0.safetensors")), 0.0);
}

void TestTwoStage::loaderThreadsDoNotChangeTheWeights()
{
    for (const int workers : {0, 1, 3}) {
        auto one = m_fixture.params("sft", m_fixture.path(QString("workers-one-%1").arg(workers)));
        one.datasetNumWorkers = workers;
        QCOMPARE(runTraining(one).result.status, engine::kTrainOk);
        auto two = m_fixture.params("sft:train", m_fixture.path(QString("workers-two-%1").arg(workers)), sftCache());
        two.datasetNumWorkers = workers;
        QCOMPARE(runTraining(two).result.status, engine::kTrainOk);
    }
    for (const char *kind : {"one", "two"}) {
        const QString base = m_fixture.path(QString("workers-%1-0/epoch-0.safetensors").arg(kind));
        QCOMPARE(diff(base, m_fixture.path(QString("workers-%1-1/epoch-0.safetensors").arg(kind))), 0.0);
        QCOMPARE(diff(base, m_fixture.path(QString("workers-%1-3/epoch-0.safetensors").arg(kind))), 0.0);
    }
    QCOMPARE(diff(m_fixture.path("workers-one-0/epoch-0.safetensors"), m_fixture.path("workers-two-3/epoch-0.safetensors")), 0.0);
}

void TestTwoStage::hazardArrangement()
{
    auto setUp = [&](const QString &task, const QString &output, const QString &dataset = {}) {
        auto p = m_fixture.params(task, m_fixture.path(output), dataset.isEmpty() ? m_fixture.editData() : dataset);
        p.training.trainable = {"text_encoder"};
        p.dataFileKeys = {"image", "edit_image"};
        p.extraInputs = {"edit_image"};
        return p;
    };
    const Run one = runTraining(setUp("sft", "hz-one"));
    QVERIFY2(one.result.status == engine::kTrainOk, qPrintable(one.errors()));

    // The seed split is refused, with the hazard spelled out.
    const Run refused = runTraining(setUp("sft:data_process", "hz-refused"));
    QCOMPARE(refused.result.status, engine::kTrainHazards);
    const QJsonObject error = refused.last("error");
    QCOMPARE(error.value("code").toString(), QString("hazards"));
    const QJsonObject hazard = error.value("hazards").toArray().first().toObject();
    QCOMPARE(hazard.value("kind").toString(), QString("write-after-read"));
    QCOMPARE(hazard.value("reader").toString(), QString("QwenImageUnit_PromptEmbedder"));
    QCOMPARE(hazard.value("param").toString(), QString("edit_image"));
    QVERIFY(hazard.value("expected_producer").isNull());
    QCOMPARE(hazard.value("actual_producer").toString(), QString("ZImageUnit_EditImageAutoResize"));
    QVERIFY(refused.result.message.find("--split_mode safe") != std::string::npos);
    QVERIFY(!QFile::exists(m_fixture.path("hz-refused/manifest.json")));

    // Forced, it trains the text encoder on resized edit images: other weights.
    auto forcedOne = setUp("sft:data_process", "hz-forced-cache");
    forcedOne.allowHazards = true;
    const Run forcedCache = runTraining(forcedOne);
    QCOMPARE(forcedCache.result.status, engine::kTrainOk);
    QCOMPARE(forcedCache.all("warning").isEmpty(), false);
    auto forcedTwo = setUp("sft:train", "hz-forced", m_fixture.path("hz-forced-cache"));
    forcedTwo.allowHazards = true;
    QCOMPARE(runTraining(forcedTwo).result.status, engine::kTrainOk);
    const double forcedDiff = diff(m_fixture.path("hz-one/epoch-0.safetensors"), m_fixture.path("hz-forced/epoch-0.safetensors"));
    QVERIFY2(forcedDiff > 1e-5, qPrintable(QString::number(forcedDiff)));

    // The safe split moves the resize and the edit embedder to stage two: identical.
    auto safeOne = setUp("sft:data_process", "hz-safe-cache");
    safeOne.training.mode = SplitMode::Safe;
    const Run safeCache = runTraining(safeOne);
    QCOMPARE(safeCache.result.status, engine::kTrainOk);
    QCOMPARE(safeCache.last("start").value("stage_two_units").toArray(),
        QJsonArray({"QwenImageUnit_PromptEmbedder", "ZImageUnit_EditImageAutoResize", "QwenImageUnit_EditImageEmbedder"}));
    auto safeTwo = setUp("sft:train", "hz-safe", m_fixture.path("hz-safe-cache"));
    safeTwo.training.mode = SplitMode::Safe;
    // Stage two now runs the VAE: listing it as offloaded gets it loaded, with a warning.
    safeTwo.offloadModels = "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors";
    const Run safe = runTraining(safeTwo);
    QVERIFY2(safe.result.status == engine::kTrainOk, qPrintable(safe.errors()));
    bool warned = false;
    for (const auto &w : safe.all("warning"))
        warned = warned || w.value("code").toString() == "offloaded-model-used";
    QVERIFY(warned);
    QCOMPARE(diff(m_fixture.path("hz-one/epoch-0.safetensors"), m_fixture.path("hz-safe/epoch-0.safetensors")), 0.0);
    // The text encoder's weights are in the checkpoint, with DiffSynth's prefix.
    engine::SafetensorsFile checkpoint;
    QVERIFY(checkpoint.open(m_fixture.path("hz-safe/epoch-0.safetensors").toStdString()));
    QVERIFY(checkpoint.find("pipe.text_encoder.model.layers.0.self_attn.q_proj.weight"));
}

void TestTwoStage::stageTwoRefusesAMismatchedCache_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("message");
    QTest::addRow("another loss") << "task" << "task (loss): the cache has sft (FlowMatchSFTLoss), this run direct_distill (DirectDistillLoss)";
    QTest::addRow("another split") << "trainable" << "models requiring backward (--lora_base_model, --trainable_models): the cache has [dit], this run [vae, dit]\n  stage-one units (the split): the cache has [QwenImageUnit_ShapeChecker, QwenImageUnit_NoiseInitializer, QwenImageUnit_InputImageEmbedder, QwenImageUnit_PromptEmbedder, ZImageUnit_EditImageAutoResize, QwenImageUnit_EditImageEmbedder], this run [QwenImageUnit_ShapeChecker, QwenImageUnit_NoiseInitializer, QwenImageUnit_PromptEmbedder, ZImageUnit_EditImageAutoResize]";
    QTest::addRow("other VAE weights") << "weights" << "vae weights: the cache was made with ";
    QTest::addRow("unfinished cache") << "incomplete" << "is incomplete (";
    QTest::addRow("not a cache") << "dataset" << "holds no readable manifest.json";
    // A field that shapes the result removed (by hand, or damaged): without the vae's
    // record its weights went unchecked, without a word.
    QTest::addRow("no model record") << "models/vae" << "manifest.json lacks the models[] record of vae, which stage one's units run";
    QTest::addRow("no seed") << "settings/seed" << "manifest.json lacks settings.seed, a stage-one setting that shapes the cache";
    QTest::addRow("no thread count") << "settings/num_threads" << "manifest.json lacks settings.num_threads";
}

void TestTwoStage::stageTwoRefusesAMismatchedCache()
{
    QFETCH(QString, change);
    QFETCH(QString, message);
    QString cache = sftCache();
    auto p = m_fixture.params("sft:train", m_fixture.path("refused-" + QString(change).replace('/', '-')), cache);
    if (change.contains('/')) {
        // "part/key": the manifest's models[] record of that name, or that key of the part.
        const QString copy = m_fixture.path("edited-" + QString(change).replace('/', '-'));
        QVERIFY(copyFolder(cache, copy));
        QFile file(copy + "/manifest.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject manifest = QJsonDocument::fromJson(file.readAll()).object();
        file.close();
        const QString part = change.section('/', 0, 0);
        const QString key = change.section('/', 1, 1);
        if (part == "models") {
            QJsonArray models;
            for (const auto &m : manifest.value("models").toArray()) {
                if (m.toObject().value("name").toString() != key)
                    models.append(m);
            }
            QCOMPARE(models.size(), manifest.value("models").toArray().size() - 1);
            manifest["models"] = models;
        } else {
            QJsonObject fields = manifest.value(part).toObject();
            QVERIFY(fields.contains(key));
            fields.remove(key);
            manifest[part] = fields;
        }
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::WriteOwner));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QJsonDocument(manifest).toJson());
        file.close();
        p.datasetBasePath = copy.toStdString();
    } else if (change == "task") {
        p.task = "direct_distill:train";
    } else if (change == "trainable") {
        p.training.trainable = {"vae"};
    } else if (change == "weights") {
        engine::InitModelsParams init;
        init.root = m_fixture.path("models-seed-1").toStdString();
        init.preset = "small";
        init.seed = 1;
        std::string error;
        QVERIFY(engine::initModels(init, nullptr, &error));
        p.modelRoot = init.root;
    } else if (change == "incomplete") {
        const QString copy = m_fixture.path("incomplete-cache");
        QDir().mkpath(copy + "/0");
        QByteArray manifest = readFileBytes(cache + "/manifest.json");
        manifest.replace("\"complete\": true", "\"complete\": false");
        QFile out(copy + "/manifest.json");
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(manifest);
        out.close();
        p.datasetBasePath = copy.toStdString();
    } else if (change == "dataset") {
        p.datasetBasePath = m_fixture.data().toStdString();
    }
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QVERIFY2(run.errors().contains(message), qPrintable(run.errors()));
    QCOMPARE(run.last("done").value("exit_status").toInt(), engine::kTrainBadInput);
}

void TestTwoStage::stageOneResumesAfterCancellation()
{
    auto p = m_fixture.params("sft:data_process", m_fixture.path("resumed-cache"));
    p.cacheShardSize = 3;
    const Run cancelled = runTraining(p, [](const QJsonObject &e) { return e.value("kind").toString() == "shard"; });
    QCOMPARE(cancelled.result.status, engine::kTrainCancelled);
    QCOMPARE(cancelled.last("done").value("cancelled").toBool(), true);
    engine::CacheManifest manifest;
    std::string error;
    QVERIFY(engine::CacheManifest::parse(readFileBytes(m_fixture.path("resumed-cache/manifest.json")).toStdString(), "m", manifest, &error));
    QCOMPARE(manifest.complete, false);
    QCOMPARE(manifest.shards.size(), std::size_t(1));

    const Run resumed = runTraining(p);
    QCOMPARE(resumed.result.status, engine::kTrainOk);
    QCOMPARE(resumed.result.samples, std::uint64_t(5)); // 8 samples, the first shard of 3 kept
    const QString reference = sftCache();
    for (const char *file : {"manifest.json", "0/shard-00000.safetensors", "0/shard-00001.safetensors", "0/shard-00002.safetensors"}) {
        const QByteArray a = readFileBytes(reference + "/" + file);
        QVERIFY(!a.isEmpty());
        QVERIFY2(a == readFileBytes(m_fixture.path("resumed-cache/") + file), file);
    }
    // Another run with other settings is refused rather than mixed in.
    p.seed = 7;
    const Run other = runTraining(p);
    QCOMPARE(other.result.status, engine::kTrainBadInput);
    QVERIFY2(other.errors().contains("seed: the cache has 0, this run 7"), qPrintable(other.errors()));
}

void TestTwoStage::corruptShardIsNamed()
{
    const QString copy = m_fixture.path("corrupt-cache");
    QDir().mkpath(copy + "/0");
    for (const char *file : {"manifest.json", "0/shard-00000.safetensors", "0/shard-00001.safetensors", "0/shard-00002.safetensors"})
        QVERIFY(QFile::copy(sftCache() + "/" + file, copy + "/" + file));
    QFile shard(copy + "/0/shard-00001.safetensors");
    QVERIFY(shard.setPermissions(shard.permissions() | QFileDevice::WriteOwner));
    QVERIFY(shard.open(QIODevice::ReadWrite));
    shard.seek(shard.size() - 3);
    shard.write("xyz");
    shard.close();
    const Run run = runTraining(m_fixture.params("sft:train", m_fixture.path("corrupt-out"), copy));
    QCOMPARE(run.result.status, engine::kTrainBadInput); // bad input: the message says how to rebuild it
    QCOMPARE(run.last("error").value("code").toString(), QString("corrupt-shard"));
    QVERIFY2(run.errors().contains("corrupt cache shard '" + copy + "/0/shard-00001.safetensors': checksum"), qPrintable(run.errors()));
    // Stage two names the cache with --dataset_base_path: the hint says which folder.
    QVERIFY2(run.errors().contains("(rebuild it by running stage one (*:data_process) again with this cache folder as its --output_path)"),
        qPrintable(run.errors()));
}

// A damaged last shard is refused before stage two's first step (so no step before
// it is wasted), with a message naming the shard and what is wrong, and nothing is
// written to the run folder: none is made for a new run, and one with a state to
// resume stays as it was. (corruptShardIsNamed above shows what is left to the first
// read of a shard: bytes of tensor data changed in place, which only the checksum shows.)
void TestTwoStage::badCacheIsRefusedBeforeTheFirstStep_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<bool>("resume");
    QTest::addColumn<QString>("message");
    for (const bool resume : {false, true}) {
        const char *tag = resume ? "resume" : "new run";
        QTest::addRow("truncated, %s", tag) << "truncated" << resume << "bytes, the manifest says";
        QTest::addRow("corrupt header, %s", tag) << "header" << resume << "the header is not valid JSON";
        QTest::addRow("missing, %s", tag) << "missing" << resume << "is missing";
        QTest::addRow("wrong shape, %s", tag) << "shape" << resume
                                              << "tensor '7/input_latents' is F32 [1, 2, 8, 16]; stage two reads "
                                                 "input_latents as F32 [1, 4 (dit.latent_channels), h, w]";
    }
}

void TestTwoStage::badCacheIsRefusedBeforeTheFirstStep()
{
    QFETCH(QString, damage);
    QFETCH(bool, resume);
    QFETCH(QString, message);
    // 8 samples in shards of 7: the last shard holds sample 7 alone, which epoch 0
    // reads last. So without the check up front, steps would run before it is read.
    const QString made = m_fixture.path("late-shard-cache");
    if (!QFileInfo::exists(made)) {
        auto stageOne = m_fixture.params("sft:data_process", made);
        stageOne.cacheShardSize = 7;
        const Run run = runTraining(stageOne);
        QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
    }
    const auto order = engine::shuffledOrder(8, engine::deriveSeed(0, 0, 0, engine::RandomPurpose::Shuffle));
    QCOMPARE(order.back(), std::size_t(7));
    const QString name = damage + (resume ? "-resume" : "");
    const QString cache = m_fixture.path("bad-cache-" + name);
    QVERIFY(copyFolder(made, cache));
    const QString out = m_fixture.path("bad-cache-out-" + name);
    auto p = m_fixture.params("sft:train", out, cache);
    if (resume) {
        // One step, then a state to continue from.
        p.maxSteps = 1;
        const Run first = runTraining(p);
        QVERIFY2(first.result.status == engine::kTrainOk, qPrintable(first.errors()));
        QVERIFY(QFile::exists(out + "/resume.safetensors"));
        p.maxSteps = 0;
        p.resume = true;
    }
    const auto before = folderContents(out);
    const QString shard = "0/shard-00001.safetensors";
    QString error;
    QVERIFY2(damageShard(cache, shard, damage, &error), qPrintable(error));

    const Run run = runTraining(p);
    QCOMPARE(run.all("step").size(), 0);
    QVERIFY(run.all("start").isEmpty());
    QVERIFY(run.all("stage").isEmpty());
    QVERIFY(run.all("checkpoint").isEmpty());
    QCOMPARE(folderContents(out), before);
    QCOMPARE(QFileInfo::exists(out), resume);
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QCOMPARE(run.last("error").value("code").toString(), QString("corrupt-shard"));
    QVERIFY2(run.errors().contains("'" + cache + "/" + shard + "'"), qPrintable(run.errors()));
    QVERIFY2(run.errors().contains(message), qPrintable(run.errors()));
}

void TestTwoStage::corruptModelFileIsBadInput()
{
    // A truncated model file is bad input (2), like a model file that lacks a tensor.
    const QString models = m_fixture.path("truncated-models");
    QVERIFY(copyFolder(m_fixture.models(), models));
    const QString vae = models + "/Qwen/Qwen-Image/vae/diffusion_pytorch_model.safetensors";
    QFile file(vae);
    QVERIFY(file.setPermissions(file.permissions() | QFileDevice::WriteOwner));
    QVERIFY(file.resize(1000));
    auto p = m_fixture.params("sft", m_fixture.path("truncated-out"));
    p.modelRoot = models.toStdString();
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QVERIFY2(run.errors().contains("vae: '" + vae + "': header length"), qPrintable(run.errors()));
    auto stageOne = m_fixture.params("sft:data_process", m_fixture.path("truncated-cache"));
    stageOne.modelRoot = models.toStdString();
    const Run one = runTraining(stageOne);
    QCOMPARE(one.result.status, engine::kTrainBadInput);
    QVERIFY2(one.errors().contains("vae: '" + vae + "': header length"), qPrintable(one.errors()));
}

void TestTwoStage::stageOneRefusesTheDatasetFolder()
{
    const QString data = m_fixture.path("own-data");
    engine::SyntheticDatasetOptions options;
    options.directory = data.toStdString();
    options.count = 2;
    options.width = 32;
    options.height = 32;
    std::string error;
    QVERIFY2(engine::makeSyntheticDataset(options, &error), error.c_str());
    const auto before = folderContents(data);
    for (const QString &output : {data, data + "/", data + "/images/.."}) {
        const Run run = runTraining(m_fixture.params("sft:data_process", output, data));
        QCOMPARE(run.result.status, engine::kTrainBadInput);
        QVERIFY2(run.errors().contains("--output_path must not be the dataset folder (--dataset_base_path)"), qPrintable(run.errors()));
        QCOMPARE(folderContents(data), before);
    }
}

void TestTwoStage::resumeRefusesAReachedLimit()
{
    // 8 samples a epoch: cancelled after step 10, the state is 2 steps into epoch 2.
    const QString out = m_fixture.path("limit-run");
    auto p = m_fixture.params("sft", out);
    p.numEpochs = 3;
    const Run cancelled = runTraining(p, [](const QJsonObject &e) { return isStepEvent(e, 10); });
    QCOMPARE(cancelled.result.status, engine::kTrainCancelled);
    const auto before = folderContents(out);
    QVERIFY(before.contains("resume.safetensors"));

    p.resume = true;
    const QString where = "the resume state in '" + out + "' is at step 10: 1 epoch done and 2 samples of epoch 2";
    struct Limit {
        long long maxSteps;
        int numEpochs;
        QString message;
    };
    for (const Limit &limit : {Limit{4, 3, "--resume: --max_steps 4 is already reached: " + where},
             Limit{10, 3, "--max_steps 10 is already reached"}, Limit{0, 1, "--resume: --num_epochs 1 is already reached: " + where}}) {
        auto limited = p;
        limited.maxSteps = limit.maxSteps;
        limited.numEpochs = limit.numEpochs;
        const Run refused = runTraining(limited);
        QCOMPARE(refused.result.status, engine::kTrainBadInput);
        QVERIFY2(refused.errors().contains(limit.message), qPrintable(refused.errors()));
        QVERIFY2(refused.errors().contains("nothing was trained and the run folder is unchanged"), qPrintable(refused.errors()));
        QVERIFY(refused.all("step").isEmpty());
        QCOMPARE(folderContents(out), before); // resume.safetensors, loss.csv, training_args.json as they were
    }
    // The run then continues as if nothing had been asked.
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(24));
    QCOMPARE(resumed.all("step").size(), 14);
}

void TestTwoStage::resumeComparesPathsAsFiles()
{
    const QString out = m_fixture.path("paths-run");
    auto p = m_fixture.params("sft", out);
    p.numEpochs = 2;
    QCOMPARE(runTraining(p, [](const QJsonObject &e) { return isStepEvent(e, 3); }).result.status, engine::kTrainCancelled);
    QVERIFY(QFile::link(m_fixture.data(), m_fixture.path("data-link")));
    QVERIFY(QFile::link(m_fixture.models(), m_fixture.path("models-link")));
    p.resume = true;
    // Other spellings of the same folders pass the settings check: the refusal is
    // --max_steps's, which comes after it.
    auto sameRun = [&](const QString &output, const QString &data, const QString &models) {
        auto q = p;
        q.outputPath = output.toStdString();
        q.datasetBasePath = data.toStdString();
        q.modelRoot = models.toStdString();
        q.maxSteps = 1;
        return runTraining(q).errors();
    };
    const QString limit = "--max_steps 1 is already reached";
    QString errors = sameRun(out + "/", m_fixture.data() + "/", m_fixture.models() + "/");
    QVERIFY2(errors.contains(limit), qPrintable(errors));
    errors = sameRun(out + "/./", m_fixture.path("data-link"), m_fixture.path("models-link"));
    QVERIFY2(errors.contains(limit), qPrintable(errors));
    errors = sameRun(out, m_fixture.path("data-link/../data"), m_fixture.models());
    QVERIFY2(errors.contains(limit), qPrintable(errors));
    // Another dataset folder is another run.
    errors = sameRun(out, m_fixture.editData(), m_fixture.models());
    QVERIFY2(errors.contains("--dataset_base_path: the state has \"" + QFileInfo(m_fixture.data()).canonicalFilePath() + "\""),
        qPrintable(errors));
    // A run folder moved as a whole resumes, to the same weights as a run never stopped.
    const QString moved = m_fixture.path("paths-moved");
    QVERIFY(QDir().rename(out, moved));
    auto q = p;
    q.outputPath = moved.toStdString();
    q.datasetBasePath = m_fixture.path("data-link").toStdString();
    const Run resumed = runTraining(q);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(16));
    auto reference = m_fixture.params("sft", m_fixture.path("paths-ref"));
    reference.numEpochs = 2;
    QCOMPARE(runTraining(reference).result.status, engine::kTrainOk);
    QCOMPARE(diff(m_fixture.path("paths-ref/epoch-1.safetensors"), moved + "/epoch-1.safetensors"), 0.0);
}

// A run that --max_steps stops before its epochs end keeps a resume state: a larger
// --max_steps (here none) continues it to the weights of a run never stopped.
void TestTwoStage::maxStepsKeepsAStateToContinue()
{
    const QString out = m_fixture.path("max-steps-run");
    auto p = m_fixture.params("sft", out);
    p.numEpochs = 2;
    p.maxSteps = 5;
    const Run stopped = runTraining(p);
    QVERIFY2(stopped.result.status == engine::kTrainOk, qPrintable(stopped.errors()));
    QCOMPARE(stopped.result.steps, std::uint64_t(5));
    QVERIFY(QFile::exists(out + "/resume.safetensors"));
    QCOMPARE(stopped.all("checkpoint").last().value("kind").toString(), QString("resume"));
    p.resume = true;
    p.maxSteps = 0;
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(16));
    QCOMPARE(resumed.all("step").size(), 11);
    QVERIFY(!QFile::exists(out + "/resume.safetensors")); // all epochs done
    auto reference = m_fixture.params("sft", m_fixture.path("max-steps-ref"));
    reference.numEpochs = 2;
    QCOMPARE(runTraining(reference).result.status, engine::kTrainOk);
    QCOMPARE(diff(m_fixture.path("max-steps-ref/epoch-1.safetensors"), out + "/epoch-1.safetensors"), 0.0);
}

// A run without --resume into a folder whose run is unfinished (its resume state is
// there) is refused, and nothing there changes; a finished run leaves no state, so
// running its command again starts afresh, as DiffSynth's train.py does.
void TestTwoStage::newRunRefusesAnUnfinishedRun()
{
    const QString out = m_fixture.path("unfinished-run");
    auto p = m_fixture.params("sft:train", out, sftCache());
    p.numEpochs = 2;
    p.maxSteps = 3;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    QVERIFY(QFile::exists(out + "/resume.safetensors"));
    const QByteArray state = readFileBytes(out + "/resume.safetensors");
    const QByteArray loss = readFileBytes(out + "/loss.csv");
    // A write a kill interrupted: removed only by a run that goes on.
    QFile stale(out + "/loss.csv.tmp-AbC123");
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.close();
    const QStringList files = QDir(out).entryList(QDir::Files | QDir::Hidden);

    p.maxSteps = 5;
    const Run refused = runTraining(p);
    QCOMPARE(refused.result.status, engine::kTrainBadInput);
    QVERIFY2(refused.errors().contains("--output_path '" + out + "' holds an unfinished run"), qPrintable(refused.errors()));
    QVERIFY2(refused.errors().contains("add --resume to continue it"), qPrintable(refused.errors()));
    QCOMPARE(refused.events.last().value("exit_status").toInt(), engine::kTrainBadInput);
    QCOMPARE(readFileBytes(out + "/resume.safetensors"), state);
    QCOMPARE(readFileBytes(out + "/loss.csv"), loss);
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), files);

    // --resume continues it; once it is done, the same command starts a new run there.
    p.resume = true;
    p.maxSteps = 0;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    QVERIFY(!QFile::exists(out + "/resume.safetensors"));
    QVERIFY(!stale.exists());
    p.resume = false;
    const Run again = runTraining(p);
    QVERIFY2(again.result.status == engine::kTrainOk, qPrintable(again.errors()));
    QCOMPARE(again.result.steps, std::uint64_t(16));
}

// Two runs never write into one folder at once: the second is refused, naming it.
void TestTwoStage::oneFolderHoldsOneRunAtATime()
{
    const QString out = m_fixture.path("locked-run");
    QVERIFY(QDir().mkpath(out));
    engine::FolderLock other;
    std::string error;
    QVERIFY2(other.acquire(out.toStdString(), &error), error.c_str());
    QVERIFY(QFile::exists(out + "/.splitscope.lock"));
    // Training (one-stage and stage two) and stage one alike.
    for (const QString &task : {QString("sft"), QString("sft:train"), QString("sft:data_process")}) {
        const Run refused = runTraining(m_fixture.params(task, out, task == "sft:train" ? sftCache() : QString()));
        QCOMPARE(refused.result.status, engine::kTrainBadInput);
        QVERIFY2(refused.errors().contains("--output_path '" + out + "' is in use by another run (process "
                     + QString::number(QCoreApplication::applicationPid()) + ")"),
            qPrintable(refused.errors()));
        QVERIFY(!QFile::exists(out + "/training_args.json"));
    }
    other.release();
    QVERIFY(!QFile::exists(out + "/.splitscope.lock"));
    auto p = m_fixture.params("sft:train", out, sftCache());
    p.maxSteps = 2;
    p.numEpochs = 1;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    // The run's lock goes with it.
    QVERIFY(!QFile::exists(out + "/.splitscope.lock"));
}

// Stage two reads its cache under a shared lock: not while a stage one writes it, and
// no stage one starts into it meanwhile; two stage twos may read one cache.
void TestTwoStage::aCacheBeingReadIsNotRewritten()
{
    const QString cache = sftCache();
    const QString pid = QString::number(QCoreApplication::applicationPid());
    {
        engine::FolderLock writer; // a stage one writing the cache
        std::string error;
        QVERIFY2(writer.acquire(cache.toStdString(), &error), error.c_str());
        auto p = m_fixture.params("sft:train", m_fixture.path("read-while-written"), cache);
        p.maxSteps = 1;
        const Run refused = runTraining(p);
        QCOMPARE(refused.result.status, engine::kTrainBadInput);
        QVERIFY2(refused.errors().contains("--dataset_base_path '" + cache + "' is being written by another run (process "
                     + pid + "): it cannot be read meanwhile"),
            qPrintable(refused.errors()));
    }
    engine::FolderLock reader; // a stage two reading it
    std::string error;
    QVERIFY2(reader.acquireShared(cache.toStdString(), &error), error.c_str());
    QVERIFY(reader.held());
    const QByteArray manifest = [&cache]() {
        QFile f(cache + "/manifest.json");
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    const Run rewrite = runTraining(m_fixture.params("sft:data_process", cache));
    QCOMPARE(rewrite.result.status, engine::kTrainBadInput);
    QVERIFY2(rewrite.errors().contains("--output_path '" + cache + "' is in use by another run"), qPrintable(rewrite.errors()));
    QFile again(cache + "/manifest.json");
    QVERIFY(again.open(QIODevice::ReadOnly));
    QCOMPARE(again.readAll(), manifest);
    // Another reader is welcome.
    auto p = m_fixture.params("sft:train", m_fixture.path("second-reader"), cache);
    p.maxSteps = 1;
    p.numEpochs = 1;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    // The lock file stays while a reader holds it, and the last one removes it (it
    // was left behind, empty, in every cache stage two had read).
    QVERIFY(QFile::exists(cache + "/.splitscope.lock"));
    reader.release();
    QVERIFY(!QFile::exists(cache + "/.splitscope.lock"));
}

// Temporary files of our naming that a killed run left are removed when the next run
// takes the folder; anything else is left alone.
void TestTwoStage::staleTemporaryFilesAreRemoved()
{
    QVERIFY(engine::isStaleTempName("shard-00000.safetensors.tmp-a1B2c3"));
    QVERIFY(engine::isStaleTempName("loss.csv.tmp-XXXXXX"));
    QVERIFY(engine::isStaleTempName("epoch-12.safetensors.tmp-000000"));
    QVERIFY(!engine::isStaleTempName("shard-00000.safetensors.tmp-a1B2c"));
    QVERIFY(!engine::isStaleTempName("shard-00000.safetensors.tmp-a1B2c3d"));
    QVERIFY(!engine::isStaleTempName("notes.txt.tmp-a1B2c3"));
    QVERIFY(!engine::isStaleTempName("epoch-x.safetensors.tmp-a1B2c3"));
    QVERIFY(!engine::isStaleTempName("shard-00000.safetensors.tmp-a1B2_3"));

    const QString cache = m_fixture.path("stale-cache");
    QVERIFY(QDir().mkpath(cache + "/0"));
    const QStringList stale = {"0/shard-00000.safetensors.tmp-Ab12Cd", "manifest.json.tmp-zzzzzz"};
    const QStringList kept = {"0/shard-00000.safetensors.tmp-Ab12C", "0/mine.tmp-Ab12Cd", "notes.txt"};
    for (const QString &name : stale + kept) {
        QFile f(cache + "/" + name);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("partial");
    }
    auto one = m_fixture.params("sft:data_process", cache);
    one.cacheShardSize = 3;
    const Run made = runTraining(one);
    QVERIFY2(made.result.status == engine::kTrainOk, qPrintable(made.errors()));
    for (const QString &name : stale)
        QVERIFY2(!QFile::exists(cache + "/" + name), qPrintable(name));
    for (const QString &name : kept)
        QVERIFY2(QFile::exists(cache + "/" + name), qPrintable(name));

    const QString out = m_fixture.path("stale-run");
    QVERIFY(QDir().mkpath(out));
    for (const char *name : {"resume.safetensors.tmp-q1w2e3", "step-3.safetensors.tmp-q1w2e3", "loss.csv.tmp-123456"}) {
        QFile f(out + "/" + name);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    auto p = m_fixture.params("sft:train", out, cache);
    p.maxSteps = 1;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    QCOMPARE(QDir(out).entryList({"*.tmp-*"}, QDir::Files), QStringList());
}

// A learning rate so large that the last step turns the weights to inf/NaN: no later
// loss shows it, yet nothing non-finite may be saved and the run must not succeed.
void TestTwoStage::divergedWeightsAreNeverSaved()
{
    const QString out = m_fixture.path("diverged-run");
    auto p = m_fixture.params("sft", out);
    p.numEpochs = 1;
    p.maxSteps = 1;
    p.learningRate = 1e20;
    p.weightDecay = 1e20;
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainFailed);
    QVERIFY2(run.errors().contains("the weights are no longer finite after step 1"), qPrintable(run.errors()));
    QVERIFY(QDir(out).entryList({"*.safetensors"}, QDir::Files).isEmpty());
}

// Dataset, models and run side by side in one project folder, named relatively from
// it: after the whole folder moves, the same command with --resume continues.
void TestTwoStage::movedProjectWithRelativePathsResumes()
{
    namespace fs = std::filesystem;
    const QString project = m_fixture.path("project");
    QVERIFY(QDir().mkpath(project));
    fs::copy(m_fixture.data().toStdString(), (project + "/data").toStdString(), fs::copy_options::recursive);
    fs::copy(m_fixture.models().toStdString(), (project + "/models").toStdString(), fs::copy_options::recursive);
    const QString before = QDir::currentPath();
    auto p = m_fixture.params("sft", "run", "data");
    p.modelRoot = "models";
    p.numEpochs = 2;
    QVERIFY(QDir::setCurrent(project));
    const Run cancelled = runTraining(p, [](const QJsonObject &e) { return isStepEvent(e, 3); });
    QCOMPARE(cancelled.result.status, engine::kTrainCancelled);
    const QString moved = m_fixture.path("project-moved");
    QVERIFY(QDir::setCurrent(before));
    QVERIFY(QDir().rename(project, moved));
    QVERIFY(QDir::setCurrent(moved));
    p.resume = true;
    const Run resumed = runTraining(p);
    QVERIFY(QDir::setCurrent(before));
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(16));
}

void TestTwoStage::stageTwoResumesAfterCancellation()
{
    auto p = m_fixture.params("sft:train", m_fixture.path("cancel-ref"), sftCache());
    p.numEpochs = 3;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);

    p.outputPath = m_fixture.path("cancel-run").toStdString();
    const Run cancelled = runTraining(p, [](const QJsonObject &e) { return e.value("event").toString() == "step" && e.value("step").toInt() == 11; });
    QCOMPARE(cancelled.result.status, engine::kTrainCancelled);
    const auto checkpoints = cancelled.all("checkpoint");
    QVERIFY(checkpoints.size() >= 2);
    QCOMPARE(checkpoints.last().value("kind").toString(), QString("resume"));
    QCOMPARE(checkpoints.at(checkpoints.size() - 2).value("kind").toString(), QString("step"));
    QCOMPARE(cancelled.events.last().value("event").toString(), QString("done"));
    QCOMPARE(cancelled.last("done").value("cancelled").toBool(), true);
    QCOMPARE(cancelled.last("done").value("exit_status").toInt(), engine::kTrainCancelled);
    QVERIFY(QFile::exists(m_fixture.path("cancel-run/step-11.safetensors")));

    auto changed = p;
    changed.learningRate = 0.5;
    changed.resume = true;
    const Run refused = runTraining(changed);
    QCOMPARE(refused.result.status, engine::kTrainBadInput);
    QVERIFY2(refused.errors().contains("--learning_rate: the state has 0.001, this run 0.5"), qPrintable(refused.errors()));

    p.resume = true;
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(24));
    QCOMPARE(diff(m_fixture.path("cancel-ref/epoch-2.safetensors"), m_fixture.path("cancel-run/epoch-2.safetensors")), 0.0);
    QCOMPARE(readFileBytes(m_fixture.path("cancel-ref/loss.csv")), readFileBytes(m_fixture.path("cancel-run/loss.csv")));
}

void TestTwoStage::cacheAllParamsKeepsEverything()
{
    auto stageOne = m_fixture.params("sft:data_process", m_fixture.path("all-cache"));
    stageOne.cacheAllParams = true;
    QCOMPARE(runTraining(stageOne).result.status, engine::kTrainOk);
    engine::SafetensorsFile all;
    engine::SafetensorsFile some;
    QVERIFY(all.open(m_fixture.path("all-cache/0/shard-00000.safetensors").toStdString()));
    QVERIFY(some.open(sftCache().toStdString() + "/0/shard-00000.safetensors"));
    // DiffSynth's cache: everything, the noise and the image included; ours by default: the cache set.
    QVERIFY(all.find("0/noise") && all.find("0/input_image") && all.find("0/prompt"));
    QVERIFY(!some.find("0/noise") && !some.find("0/input_image") && some.find("0/prompt_emb"));
    QVERIFY(all.fileSize() > 2 * some.fileSize());
    const Run two = runTraining(m_fixture.params("sft:train", m_fixture.path("all-two"), m_fixture.path("all-cache")));
    QVERIFY2(two.result.status == engine::kTrainOk, qPrintable(two.errors()));
    QCOMPARE(diff(m_fixture.path("all-two/epoch-0.safetensors"), m_fixture.path("workers-two-0/epoch-0.safetensors")), 0.0);
}

void TestTwoStage::saveStepsReplaceEpochCheckpoints()
{
    auto p = m_fixture.params("sft:train", m_fixture.path("save-steps"), sftCache());
    p.numEpochs = 2;
    p.saveSteps = 5;
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainOk);
    QStringList files = QDir(m_fixture.path("save-steps")).entryList({"*.safetensors"}, QDir::Files, QDir::Name);
    QCOMPARE(files, (QStringList{"step-10.safetensors", "step-15.safetensors", "step-16.safetensors", "step-5.safetensors"}));
    QCOMPARE(run.last("checkpoint").value("kind").toString(), QString("final"));
}

void TestTwoStage::badInputs_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("message");
    QTest::addRow("task") << "task" << "--task: unknown task 'sft:eval' (tasks: sft, sft:data_process";
    QTest::addRow("trainable model") << "trainable" << "--trainable_models: 'unet' is not a model of tiny-qwen-image (models: text_encoder, dit, vae)";
    QTest::addRow("lora targets") << "targets" << "--lora_target_modules: no module of dit matches (its linear layers: img_in,";
    QTest::addRow("no targets") << "notargets" << "--lora_target_modules is required with --lora_base_model";
    QTest::addRow("nothing to train") << "nothing" << "nothing to train";
    QTest::addRow("missing model file") << "model" << "no file matches 'vae/missing*.safetensors' under '";
    QTest::addRow("offload not listed") << "offload" << "--offload_models: 'Qwen/Qwen-Image:x.safetensors' is not one of --model_id_with_origin_paths";
    QTest::addRow("no dataset") << "dataset" << "--dataset_base_path: '";
    QTest::addRow("height without width") << "height" << "--height and --width go together";
    QTest::addRow("height not a multiple of 16") << "height40" << "--height: 40 is not a multiple of 16";
    QTest::addRow("infinite learning rate") << "lrinf" << "--learning_rate must be a finite positive number";
    QTest::addRow("infinite weight decay") << "wdinf" << "--weight_decay must be a finite non-negative number";
    QTest::addRow("nan weight decay") << "wdnan" << "--weight_decay must be a finite non-negative number";
    QTest::addRow("lora on the vae") << "vaelora" << "--lora_base_model: vae has no linear layer, and LoRA adapts linear layers only";
    QTest::addRow("missing resume state") << "resume" << "--resume: no resume state in --output_path";
    QTest::addRow("image input read as text") << "edittext"
                                              << "--extra_inputs edit_image: tiny-qwen-image reads edit_image as an image, but "
                                                 "--data_file_keys (image) does not list it, so the file name in its "
                                                 "metadata.csv column would reach the pipeline as text: give --data_file_keys "
                                                 "image,edit_image";
    QTest::addRow("text input read as a file") << "promptfile"
                                               << "--data_file_keys image,prompt: tiny-qwen-image reads the 'prompt' column "
                                                  "as text, not as an image file (its cells are not file names): leave prompt "
                                                  "out of --data_file_keys";
    // Without --extra_inputs too (the prompt column is always read): it was each row's
    // "'prompt' file 'a large yellow cross ...' not found".
    QTest::addRow("prompt listed as a file") << "promptkey"
                                             << "--data_file_keys image,prompt: tiny-qwen-image reads the 'prompt' column "
                                                "as text, not as an image file (its cells are not file names): leave prompt "
                                                "out of --data_file_keys";
}

void TestTwoStage::badInputs()
{
    QFETCH(QString, what);
    QFETCH(QString, message);
    auto p = m_fixture.params("sft", m_fixture.path("bad-" + what));
    if (what == "task")
        p.task = "sft:eval";
    else if (what == "trainable")
        p.training.trainable = {"unet"};
    else if (what == "targets")
        p.loraTargetModules = "q_proj_nowhere";
    else if (what == "notargets")
        p.loraTargetModules.clear();
    else if (what == "nothing")
        p.training.loraBase.reset();
    else if (what == "model")
        p.modelIdWithOriginPaths = "Qwen/Qwen-Image:vae/missing*.safetensors";
    else if (what == "offload")
        p.offloadModels = "Qwen/Qwen-Image:x.safetensors";
    else if (what == "dataset")
        p.datasetBasePath = m_fixture.path("nowhere").toStdString();
    else if (what == "height")
        p.height = 32;
    else if (what == "height40")
        p.height = p.width = 40;
    else if (what == "lrinf")
        p.learningRate = std::numeric_limits<double>::infinity();
    else if (what == "wdinf")
        p.weightDecay = std::numeric_limits<double>::infinity();
    else if (what == "wdnan")
        p.weightDecay = std::numeric_limits<double>::quiet_NaN();
    else if (what == "vaelora")
        p.training.loraBase = "vae";
    else if (what == "resume")
        p.resume = true;
    else if (what == "edittext")
        p.extraInputs = {"edit_image"};
    else if (what == "promptfile")
        p.extraInputs = {"prompt"}, p.dataFileKeys = {"image", "prompt"};
    else if (what == "promptkey")
        p.dataFileKeys = {"image", "prompt"};
    if (what == "edittext" || what == "promptfile" || what == "promptkey") {
        // Found before any work: in stage one too, which would cache the text.
        p.datasetBasePath = m_fixture.editData().toStdString();
        p.task = "sft:data_process";
    }
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QVERIFY2(run.errors().contains(message), qPrintable(run.errors()));
    if (what == "edittext" || what == "promptfile")
        QVERIFY(run.all("start").isEmpty());
}

// A dataset regenerated at the same path, or a cache rebuilt there from other data,
// is not the data the state was trained on: --resume refuses it and changes nothing.
void TestTwoStage::resumeRefusesOtherData()
{
    const QString data = m_fixture.path("regenerated-data");
    engine::SyntheticDatasetOptions made;
    made.directory = data.toStdString();
    made.count = 4;
    made.width = 32;
    made.height = 32;
    std::string error;
    QVERIFY2(engine::makeSyntheticDataset(made, &error), error.c_str());
    const QString cache = m_fixture.path("regenerated-cache");
    QCOMPARE(runTraining(m_fixture.params("sft:data_process", cache, data)).result.status, engine::kTrainOk);
    struct Case {
        QString task;
        QString dataset;
    };
    for (const Case &c : {Case{"sft", data}, Case{"sft:train", cache}}) {
        if (c.task == "sft:train") {
            // The dataset was regenerated since (the same images, newer files): stage
            // two refuses a cache of a dataset that changed, so it is made again.
            QVERIFY(QDir(cache).removeRecursively());
            QCOMPARE(runTraining(m_fixture.params("sft:data_process", cache, data)).result.status, engine::kTrainOk);
        }
        auto p = m_fixture.params(c.task, m_fixture.path("regenerated-run-" + QString(c.task).remove(':')), c.dataset);
        p.maxSteps = 2;
        const Run first = runTraining(p);
        QVERIFY2(first.result.status == engine::kTrainOk, qPrintable(first.errors()));
        p.maxSteps = 3;
        p.resume = true;
        const auto before = folderContents(QString::fromStdString(p.outputPath));
        QVERIFY(before.contains("resume.safetensors"));
        // The same data, spelt with a trailing slash: it resumes as far as the limit.
        auto same = p;
        same.maxSteps = 2;
        same.datasetBasePath += "/";
        QVERIFY2(runTraining(same).errors().contains("--max_steps 2 is already reached"), "same data");

        made.seed = 9;
        made.overwrite = true;
        QVERIFY2(engine::makeSyntheticDataset(made, &error), error.c_str());
        if (c.task == "sft:train") {
            QVERIFY(QDir(cache).removeRecursively());
            QCOMPARE(runTraining(m_fixture.params("sft:data_process", cache, data)).result.status, engine::kTrainOk);
        }
        const Run refused = runTraining(p);
        QCOMPARE(refused.result.status, engine::kTrainBadInput);
        const QString what = c.task == "sft" ? "the dataset at '" + data + "' is not the one the state was trained on: its fingerprint"
                                             : "the cache at '" + cache + "' is not the one the state was trained on: its identity";
        QVERIFY2(refused.errors().contains("--resume: " + what), qPrintable(refused.errors()));
        QVERIFY2(refused.errors().contains("nothing was trained and the run folder is unchanged"), qPrintable(refused.errors()));
        QVERIFY(refused.all("step").isEmpty());
        QCOMPARE(folderContents(QString::fromStdString(p.outputPath)), before);
        made.seed = 0;
        QVERIFY2(engine::makeSyntheticDataset(made, &error), error.c_str());
    }
}

// Stage two takes what stage one's flags shaped from the cache: each such flag it is
// given is a warning, and training_args.json keeps it apart from the flags used.
// --height/--width give every image its size, so --max_pixels is not used: it was
// silently ignored; now it is warned about and set apart in training_args.json.
void TestTwoStage::maxPixelsWithHeightAndWidthIsWarned()
{
    for (const QString &task : {QString("sft"), QString("sft:data_process")}) {
        const QString out = m_fixture.path("max-pixels-" + QString(task).replace(':', '-'));
        auto p = m_fixture.params(task, out);
        p.maxSteps = task == "sft" ? 1 : 0;
        p.maxPixels = 1024;
        p.height = p.width = 32;
        const Run run = runTraining(p);
        QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
        QStringList warned; // (stage one also warns about the fixture's training flags)
        for (const auto &w : run.all("warning")) {
            if (w.value("code").toString() == "ignored-flag" && w.value("message").toString().startsWith("--max_pixels"))
                warned << w.value("message").toString();
        }
        QCOMPARE(warned, QStringList{"--max_pixels 1024 is ignored: --height 32 --width 32 give every image its size"});
        const QJsonObject args = QJsonDocument::fromJson(readFileBytes(out + "/training_args.json")).object();
        QVERIFY(!args.contains("max_pixels"));
        QCOMPARE(args.value("ignored").toObject().value("max_pixels").toInt(), 1024);
    }
}

void TestTwoStage::ignoredFlagsAreWarnedAndSetApart()
{
    auto p = m_fixture.params("sft:train", m_fixture.path("ignored-two"), sftCache());
    p.maxSteps = 1;
    const auto plain = p;
    p.datasetMetadataPath = "other.csv";
    p.maxPixels = 1024;
    p.height = p.width = 32;
    p.dataFileKeys = {"image", "edit_image"};
    p.extraInputs = {"edit_image"};
    p.cacheAllParams = true;
    p.cacheShardSize = 5;
    p.numInferenceSteps = 8;
    const Run run = runTraining(p);
    QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
    QStringList warned;
    for (const auto &w : run.all("warning")) {
        if (w.value("code").toString() == "ignored-flag")
            warned << w.value("message").toString();
    }
    const QString because = " is ignored: stage two reads its inputs from the cache, which stage one made ";
    QCOMPARE(warned, (QStringList{"--dataset_metadata_path 'other.csv'" + because + "with --dataset_metadata_path '"
                                      + m_fixture.data() + "/metadata.csv'",
                         "--max_pixels 1024" + because + "with --max_pixels 1048576", "--height 32" + because + "without --height",
                         "--width 32" + because + "without --width", "--data_file_keys image,edit_image" + because + "with --data_file_keys image",
                         "--extra_inputs edit_image" + because + "without --extra_inputs",
                         "--cache_all_params" + because + "without --cache_all_params",
                         "--cache_shard_size 5" + because + "with --cache_shard_size 3",
                         "--num_inference_steps 8" + because + "with --num_inference_steps 4"}));
    // After `start`, like every warning.
    QCOMPARE(run.events.first().value("event").toString(), QString("start"));
    const QJsonObject args = QJsonDocument::fromJson(readFileBytes(m_fixture.path("ignored-two/training_args.json"))).object();
    const QStringList stageOneFlags = {"dataset_metadata_path", "max_pixels", "height", "width", "data_file_keys", "extra_inputs",
        "cache_all_params", "cache_shard_size", "num_inference_steps"};
    for (const QString &flag : stageOneFlags)
        QVERIFY2(!args.contains(flag), qPrintable(flag));
    QCOMPARE(args.value("dataset_base_path").toString(), sftCache());
    QCOMPARE(args.value("ignored").toObject().keys().size(), stageOneFlags.size());
    QCOMPARE(args.value("ignored").toObject().value("height").toInt(), 32);
    QCOMPARE(args.value("ignored").toObject().value("extra_inputs").toArray(), QJsonArray({"edit_image"}));

    // Without them: no warning, nothing set apart.
    auto quiet = plain;
    quiet.outputPath = m_fixture.path("plain-two").toStdString();
    const Run plainRun = runTraining(quiet);
    QVERIFY2(plainRun.result.status == engine::kTrainOk, qPrintable(plainRun.errors()));
    QVERIFY(!codes(plainRun, "warning").contains("ignored-flag"));
    QVERIFY(!readFileBytes(m_fixture.path("plain-two/training_args.json")).contains("ignored"));

    // One-stage training has no split and no cache.
    auto one = m_fixture.params("sft", m_fixture.path("ignored-one"));
    one.maxSteps = 1;
    one.training.mode = SplitMode::Safe;
    const Run oneRun = runTraining(one);
    QVERIFY2(oneRun.result.status == engine::kTrainOk, qPrintable(oneRun.errors()));
    QCOMPARE(oneRun.last("warning").value("message").toString(),
        QString("--split_mode safe is ignored: one-stage training runs every unit every step, with no split and no cache"));
    const QJsonObject oneArgs = QJsonDocument::fromJson(readFileBytes(m_fixture.path("ignored-one/training_args.json"))).object();
    QVERIFY(!oneArgs.contains("split_mode"));
    QCOMPARE(oneArgs.value("ignored").toObject(), (QJsonObject{{"split_mode", "safe"}}));
}

// DiffSynth loads a LoRA checkpoint non-strictly; what it leaves out is said, and
// recorded in the events (sample refuses it: tst_enginecli).
void TestTwoStage::loraCheckpointSaysWhatItDoesNotUse()
{
    auto first = m_fixture.params("sft", m_fixture.path("lora-start"));
    first.maxSteps = 1;
    QCOMPARE(runTraining(first).result.status, engine::kTrainOk);
    const QString checkpoint = m_fixture.path("lora-start/step-1.safetensors");
    engine::SafetensorsFile file;
    QVERIFY(file.open(checkpoint.toStdString()));
    int toQ = 0;
    for (const auto &t : file.tensors())
        toQ += t.name.find(".attn.to_q.") != std::string::npos;
    const int total = static_cast<int>(file.tensors().size());
    QVERIFY(toQ > 0 && toQ < total);

    auto p = m_fixture.params("sft", m_fixture.path("lora-part"));
    p.maxSteps = 1;
    p.loraCheckpoint = checkpoint.toStdString();
    p.loraTargetModules = "to_q";
    const Run part = runTraining(p);
    QVERIFY2(part.result.status == engine::kTrainOk, qPrintable(part.errors()));
    const QJsonObject warning = part.last("warning");
    QCOMPARE(warning.value("code").toString(), QString("lora-checkpoint-unused"));
    const QString message = warning.value("message").toString();
    QVERIFY2(message.startsWith(QString("--lora_checkpoint: loaded %1 of the %2 tensors in '%3'; the other %4 match no LoRA "
                                        "adapter of dit under --lora_target_modules \"to_q\" ('transformer_blocks.")
                                    .arg(toQ)
                                    .arg(total)
                                    .arg(checkpoint)
                                    .arg(total - toQ)),
        qPrintable(message));

    p.loraTargetModules = first.loraTargetModules;
    p.outputPath = m_fixture.path("lora-all").toStdString();
    const Run all = runTraining(p);
    QVERIFY2(all.result.status == engine::kTrainOk, qPrintable(all.errors()));
    QVERIFY(!codes(all, "warning").contains("lora-checkpoint-unused"));
    bool logged = false;
    for (const auto &e : all.all("log"))
        logged = logged || e.value("message").toString() == QString("loaded %1 LoRA tensors from %2").arg(total).arg(checkpoint);
    QVERIFY(logged);

    // Another rank says which.
    p.loraRank = 8;
    p.outputPath = m_fixture.path("lora-rank").toStdString();
    const Run rank = runTraining(p);
    QCOMPARE(rank.result.status, engine::kTrainBadInput);
    QVERIFY2(rank.errors().contains("--lora_checkpoint: '" + checkpoint + "' holds a LoRA of rank 4 ('"), qPrintable(rank.errors()));
    QVERIFY2(rank.errors().contains("but --lora_rank is 8: give --lora_rank 4"), qPrintable(rank.errors()));
}

// A damaged image stops the run before anything starts, even one that --max_steps
// would end before reading it; so it does stage one.
void TestTwoStage::damagedImageIsRefusedBeforeAnyWork()
{
    const QString data = m_fixture.path("damaged-data");
    QVERIFY(copyFolder(m_fixture.data(), data));
    for (const QString name : {"images/00005.png", "images/00006.png"}) {
        QFile file(data + "/" + name);
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::WriteOwner));
        QVERIFY(file.resize(name.endsWith("5.png") ? 0 : file.size() / 2));
    }
    for (const QString task : {"sft", "sft:data_process"}) {
        const QString out = m_fixture.path("damaged-out-" + QString(task).remove(':'));
        auto p = m_fixture.params(task, out, data);
        p.maxSteps = 2;
        const Run run = runTraining(p);
        QCOMPARE(run.result.status, engine::kTrainBadInput);
        QVERIFY(run.all("start").isEmpty());
        QVERIFY(!QFileInfo::exists(out));
        QVERIFY2(run.errors().contains("2 bad rows in the dataset:\n  " + data + "/metadata.csv:7:1: 'image' file "
                                       "'images/00005.png': empty file (0 bytes)\n  " + data + "/metadata.csv:8:1: 'image' file "
                                       "'images/00006.png': truncated: "),
            qPrintable(run.errors()));
    }
}

// A Linux path is bytes. Paths that are not UTF-8 work, and every JSON the engine
// writes (events, training_args.json, the manifest, the resume state) stays valid,
// holding each stray byte as Python's surrogateescape does (\udce9).
void TestTwoStage::pathsThatAreNotUtf8()
{
    const std::string base = m_fixture.path("bytes").toStdString() + "/";
    QVERIFY(QDir().mkpath(m_fixture.path("bytes")));
    const std::string data = base + "data\xe9";
    engine::SyntheticDatasetOptions made;
    made.directory = data;
    made.count = 2;
    made.width = 32;
    made.height = 32;
    std::string error;
    QVERIFY2(engine::makeSyntheticDataset(made, &error), error.c_str());
    // As Qt (the GUI) reads it: U+DCE9 for the byte.
    const QString shown = m_fixture.path("bytes/out") + QChar(0xDCE9);

    auto p = m_fixture.params("sft", QString(), QString());
    p.datasetBasePath = data;
    p.outputPath = base + "out\xe9";
    p.numEpochs = 2;
    p.maxSteps = 1;
    const Run run = runTraining(p);
    QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
    for (const auto &e : run.events)
        QVERIFY(!e.value("event").toString().isEmpty()); // every line parsed
    QCOMPARE(run.last("start").value("output_path").toString(), shown);
    const QByteArray args = readBytes(p.outputPath + "/training_args.json");
    QVERIFY2(args.contains(QByteArray::fromStdString("\"output_path\": \"" + base + "out\\udce9\"")), args.constData());
    QCOMPARE(QJsonDocument::fromJson(args).object().value("dataset_base_path").toString(),
        m_fixture.path("bytes/data") + QChar(0xDCE9));
    p.maxSteps = 2;
    p.resume = true;
    p.loraCheckpoint = p.outputPath + "/step-1.safetensors";
    const Run refused = runTraining(p);
    QVERIFY2(refused.errors().contains("--lora_checkpoint: the state has \"\", this run \""), qPrintable(refused.errors()));
    QVERIFY2(refused.errors().contains("out\\udce9/step-1.safetensors\""), qPrintable(refused.errors()));
    p.loraCheckpoint.clear();
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(2));

    // Stage one's manifest keeps the dataset's path; stage two reads the cache.
    auto one = m_fixture.params("sft:data_process", QString(), QString());
    one.datasetBasePath = data;
    one.outputPath = base + "cache\xe9";
    QCOMPARE(runTraining(one).result.status, engine::kTrainOk);
    engine::CacheManifest manifest;
    QVERIFY2(engine::CacheManifest::parse(readBytes(one.outputPath + "/manifest.json").toStdString(), "manifest", manifest, &error),
        error.c_str());
    QCOMPARE(manifest.datasetBasePath, data);
    QCOMPARE(runTraining(one).result.status, engine::kTrainOk); // its resumption reads the manifest back
    auto two = m_fixture.params("sft:train", QString(), QString());
    two.datasetBasePath = one.outputPath;
    two.outputPath = base + "two\xe9";
    two.maxSteps = 1;
    const Run stageTwo = runTraining(two);
    QVERIFY2(stageTwo.result.status == engine::kTrainOk, qPrintable(stageTwo.errors()));
}

// Another process truncating a shard while stage two reads it gives a cache error
// naming the shard (exit 2, as other damaged shards), not a SIGBUS: the shards are
// read, not mapped, and each read checks the shard is still the file that was checked.
void TestTwoStage::shardTruncatedWhileReadIsAnError()
{
    const QString cache = m_fixture.path("one-shard-cache");
    auto made = m_fixture.params("sft:data_process", cache);
    made.cacheShardSize = 8; // every sample in the one shard the first step read from
    const Run first = runTraining(made);
    QVERIFY2(first.result.status == engine::kTrainOk, qPrintable(first.errors()));
    const QString shard = cache + "/0/shard-00000.safetensors";
    QVERIFY(QFile::exists(shard));

    auto p = m_fixture.params("sft:train", m_fixture.path("truncated-out"), cache);
    p.numEpochs = 2;
    bool truncated = false;
    const Run run = runTraining(p, [&](const QJsonObject &e) {
        if (!truncated && e.value("event").toString() == "step") {
            QFile file(shard);
            truncated = file.setPermissions(file.permissions() | QFileDevice::WriteOwner) && file.resize(0);
        }
        return false;
    });
    QVERIFY(truncated);
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QCOMPARE(run.last("error").value("code").toString(), QString("corrupt-shard"));
    QVERIFY2(run.errors().contains("cache shard '" + shard + "'") && run.errors().contains("truncated"), qPrintable(run.errors()));
    QVERIFY2(run.errors().contains("(rebuild it by running stage one (*:data_process) again with this cache folder as its --output_path)"),
        qPrintable(run.errors()));
    QCOMPARE(run.last("done").value("exit_status").toInt(), engine::kTrainBadInput);
    QVERIFY(run.result.steps < 16);
}

// The manifest records the tokenizer stage one's text encoder read, hashed as model
// weights are: stage two refuses a cache made with another one, stage one does not
// resume such a cache, and a cache made before it was recorded still works with a
// warning that it cannot be compared.
void TestTwoStage::cacheRecordsTheTokenizer()
{
    const QString cache = sftCache();
    QVERIFY(!cache.isEmpty());
    const QJsonObject manifest = QJsonDocument::fromJson(readFileBytes(cache + "/manifest.json")).object();
    const QString vocab = m_fixture.models() + "/Qwen/Qwen-Image/tokenizer/vocab.json";
    const QJsonObject recorded = manifest.value("tokenizer").toObject();
    QCOMPARE(recorded.value("path").toString(), vocab);
    const QString hash = recorded.value("hash").toString();
    QCOMPARE(hash.size(), 16);

    // The same vocabulary with its last two tokens swapped: the same size, other ids.
    QJsonObject tokenizer = QJsonDocument::fromJson(readFileBytes(vocab)).object();
    QJsonArray tokens = tokenizer.value("tokens").toArray();
    QVERIFY(tokens.size() > 2);
    const QJsonValue last = tokens.at(tokens.size() - 1);
    tokens[tokens.size() - 1] = tokens.at(tokens.size() - 2);
    tokens[tokens.size() - 2] = last;
    tokenizer["tokens"] = tokens;
    const QString other = m_fixture.path("other-tokenizer/vocab.json");
    QVERIFY(QDir().mkpath(m_fixture.path("other-tokenizer")));
    {
        QFile out(other);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(tokenizer).toJson());
    }

    auto p = m_fixture.params("sft:train", m_fixture.path("tokenizer-two"), cache);
    p.maxSteps = 1;
    p.tokenizerPath = other.toStdString();
    const Run refused = runTraining(p);
    QCOMPARE(refused.result.status, engine::kTrainBadInput);
    QCOMPARE(refused.last("error").value("code").toString(), QString("manifest-mismatch"));
    QVERIFY2(refused.errors().contains("\n  tokenizer: the cache was made with " + hash + " ('" + vocab + "'), this run has "),
        qPrintable(refused.errors()));
    QVERIFY2(refused.errors().contains("('" + other + "')"), qPrintable(refused.errors()));

    // A copy of the same file is the same tokenizer.
    const QString copy = m_fixture.path("copied-tokenizer/vocab.json");
    QVERIFY(QDir().mkpath(m_fixture.path("copied-tokenizer")) && QFile::copy(vocab, copy));
    p.tokenizerPath = copy.toStdString();
    p.outputPath = m_fixture.path("tokenizer-copy-two").toStdString();
    const Run same = runTraining(p);
    QVERIFY2(same.result.status == engine::kTrainOk, qPrintable(same.errors()));
    QVERIFY(!codes(same, "warning").contains("unchecked-tokenizer"));

    // Stage one resumes only a cache made with the same tokenizer.
    const QString resumed = m_fixture.path("tokenizer-cache");
    QVERIFY(copyFolder(cache, resumed));
    auto one = m_fixture.params("sft:data_process", resumed);
    one.cacheShardSize = 3;
    one.tokenizerPath = other.toStdString();
    const Run notResumed = runTraining(one);
    QCOMPARE(notResumed.result.status, engine::kTrainBadInput);
    QVERIFY2(notResumed.errors().contains("\n  tokenizer: the cache has " + hash + " ('" + vocab + "'), this run "),
        qPrintable(notResumed.errors()));

    // A cache made before the tokenizer was recorded.
    const QString old = m_fixture.path("tokenizer-old-cache");
    QVERIFY(copyFolder(cache, old));
    QJsonObject oldManifest = manifest;
    oldManifest.remove("tokenizer");
    {
        QFile out(old + "/manifest.json");
        QVERIFY(out.setPermissions(out.permissions() | QFileDevice::WriteOwner));
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(oldManifest).toJson());
    }
    auto two = m_fixture.params("sft:train", m_fixture.path("tokenizer-old-two"), old);
    two.maxSteps = 1;
    const Run unchecked = runTraining(two);
    QVERIFY2(unchecked.result.status == engine::kTrainOk, qPrintable(unchecked.errors()));
    QVERIFY(codes(unchecked, "warning").contains("unchecked-tokenizer"));
}

// Stage one trains nothing: each training flag it is given is a warning, and
// training_args.json in the cache folder keeps them apart from the flags it used, as
// stage two does with stage one's flags.
void TestTwoStage::stageOneWarnsAboutTrainingFlags()
{
    // The fixture gives --learning_rate 1e-3, --lora_target_modules, --lora_rank 4 and --remove_prefix_in_ckpt.
    auto p = m_fixture.params("sft:data_process", m_fixture.path("ignored-cache"));
    p.datasetRepeat = 50;
    p.weightDecay = 0.5;
    p.numEpochs = 3;
    p.loraCheckpoint = "start.safetensors";
    p.useGradientCheckpointing = true;
    p.saveSteps = 2;
    p.maxSteps = 5;
    p.resume = true;
    const Run run = runTraining(p);
    QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
    QStringList warned;
    for (const auto &w : run.all("warning")) {
        if (w.value("code").toString() == "ignored-flag")
            warned << w.value("message").toString();
    }
    const QString because = " is ignored: stage one trains nothing: it runs the stage-one units once per sample and caches "
                            "what stage two reads; training flags apply in stage two";
    QCOMPARE(warned, (QStringList{"--dataset_repeat 50 is ignored: stage one caches each sample once; --dataset_repeat applies "
                                  "in stage two",
                         "--learning_rate 0.001" + because, "--weight_decay 0.5" + because, "--num_epochs 3" + because,
                         "--remove_prefix_in_ckpt 'pipe.dit.'" + because,
                         "--lora_target_modules '" + QString(kLoraTargets) + "'" + because, "--lora_rank 4" + because,
                         "--lora_checkpoint 'start.safetensors'" + because, "--use_gradient_checkpointing" + because,
                         "--save_steps 2" + because, "--max_steps 5" + because,
                         "--resume is ignored: stage one resumes by itself, keeping the finished shards of a cache made "
                         "with the same settings"}));
    QCOMPARE(run.events.first().value("event").toString(), QString("start"));
    const QString argsPath = m_fixture.path("ignored-cache/training_args.json");
    QCOMPARE(run.last("done").value("outputs").toObject().value("training_args").toString(), argsPath);
    const QJsonObject args = QJsonDocument::fromJson(readFileBytes(argsPath)).object();
    const QStringList trainingFlags = {"dataset_repeat", "learning_rate", "weight_decay", "num_epochs", "remove_prefix_in_ckpt",
        "lora_target_modules", "lora_rank", "lora_checkpoint", "use_gradient_checkpointing", "save_steps", "max_steps", "resume"};
    for (const QString &flag : trainingFlags)
        QVERIFY2(!args.contains(flag), qPrintable(flag));
    const QJsonObject ignored = args.value("ignored").toObject();
    QCOMPARE(ignored.keys().size(), trainingFlags.size());
    QCOMPARE(ignored.value("learning_rate").toDouble(), 1e-3);
    QCOMPARE(ignored.value("lora_rank").toInt(), 4);
    QCOMPARE(ignored.value("resume").toBool(), true);
    // What stage one uses stays.
    QCOMPARE(args.value("lora_base_model").toString(), QString("dit"));
    QCOMPARE(args.value("output_path").toString(), m_fixture.path("ignored-cache"));
    QVERIFY(args.contains("cache_shard_size") && args.contains("seed") && args.contains("max_pixels"));

    // Without them: no warning, nothing set apart.
    auto plain = m_fixture.params("sft:data_process", m_fixture.path("plain-cache"));
    plain.learningRate = engine::TrainParams().learningRate;
    plain.loraTargetModules.clear();
    plain.loraRank = engine::TrainParams().loraRank;
    plain.removePrefixInCkpt.clear();
    const Run plainRun = runTraining(plain);
    QVERIFY2(plainRun.result.status == engine::kTrainOk, qPrintable(plainRun.errors()));
    QVERIFY(!codes(plainRun, "warning").contains("ignored-flag"));
    const QByteArray plainArgs = readFileBytes(m_fixture.path("plain-cache/training_args.json"));
    QVERIFY(!plainArgs.isEmpty());
    QVERIFY(!plainArgs.contains("ignored"));
}

// What the engine reads whole is refused when it is a device that never ends, with
// an error naming the file, rather than read until memory runs out.
void TestTwoStage::devicesAreRefusedNamingTheFile()
{
    auto metadata = m_fixture.params("sft:data_process", m_fixture.path("device-metadata"));
    metadata.datasetMetadataPath = "/dev/zero";
    const Run badMetadata = runTraining(metadata);
    QCOMPARE(badMetadata.result.status, engine::kTrainBadInput);
    QVERIFY2(badMetadata.errors().contains("--dataset_metadata_path: cannot read '/dev/zero': it is a character device"),
        qPrintable(badMetadata.errors()));

    auto tokenizer = m_fixture.params("sft:data_process", m_fixture.path("device-tokenizer"));
    tokenizer.tokenizerPath = "/dev/zero";
    const Run badTokenizer = runTraining(tokenizer);
    QCOMPARE(badTokenizer.result.status, engine::kTrainBadInput);
    QVERIFY2(badTokenizer.errors().contains("tokenizer: cannot read '/dev/zero': it is not a regular file"),
        qPrintable(badTokenizer.errors()));

    const QString cache = m_fixture.path("device-manifest");
    QVERIFY(QDir().mkpath(cache));
    QVERIFY(QFile::link("/dev/zero", cache + "/manifest.json"));
    const Run badManifest = runTraining(m_fixture.params("sft:train", m_fixture.path("device-manifest-two"), cache));
    QCOMPARE(badManifest.result.status, engine::kTrainBadInput);
    QVERIFY2(badManifest.errors().contains("holds no readable manifest.json (cannot read '" + cache
                 + "/manifest.json': it is a character device"),
        qPrintable(badManifest.errors()));

    const QString models = m_fixture.path("device-models");
    QVERIFY(copyFolder(m_fixture.models(), models));
    const QString config = models + "/Qwen/Qwen-Image/vae/config.json";
    QVERIFY(QFile::remove(config) && QFile::link("/dev/zero", config));
    auto model = m_fixture.params("sft:data_process", m_fixture.path("device-config"));
    model.modelRoot = models.toStdString();
    const Run badConfig = runTraining(model);
    QCOMPARE(badConfig.result.status, engine::kTrainBadInput);
    QVERIFY2(badConfig.errors().contains("cannot read '" + config + "': it is a character device"), qPrintable(badConfig.errors()));
}

// --checkpoint_interval: states taken beside the steps (here after every step), each
// written on the writer thread, and the weights exactly those of a run without them.
void TestTwoStage::statesAreWrittenBesideTheSteps()
{
    auto quiet = m_fixture.params("sft", m_fixture.path("interval-off"));
    quiet.numEpochs = 2;
    quiet.checkpointInterval = 0;
    const Run reference = runTraining(quiet);
    QCOMPARE(reference.result.status, engine::kTrainOk);
    auto often = quiet;
    often.outputPath = m_fixture.path("interval-often").toStdString();
    often.checkpointInterval = 1e-9;
    const Run run = runTraining(often);
    QVERIFY2(run.result.status == engine::kTrainOk, qPrintable(run.errors()));
    int background = 0;
    for (const QJsonObject &e : run.all("checkpoint")) {
        if (e.value("kind").toString() == "resume" && e.contains("write_s"))
            ++background;
    }
    // 16 steps: a state after each but the last of each epoch (the epoch end's own) and
    // the epoch end's of the first; a state is not taken while the previous is written.
    QVERIFY2(background >= 4 && background <= 15, qPrintable(QString::number(background)));
    QVERIFY(!QFile::exists(m_fixture.path("interval-often/resume.safetensors"))); // finished: no state kept
    QCOMPARE(diff(m_fixture.path("interval-off/epoch-1.safetensors"), m_fixture.path("interval-often/epoch-1.safetensors")), 0.0);
    QCOMPARE(readFileBytes(m_fixture.path("interval-off/loss.csv")), readFileBytes(m_fixture.path("interval-often/loss.csv")));
}

// A state's checksum covers its tensors and its metadata: a flipped byte in either is
// refused before anything loads, naming the file; the intact state then resumes.
void TestTwoStage::damagedStateIsRefusedNamingTheFile()
{
    const QString out = m_fixture.path("damaged-state");
    auto p = m_fixture.params("sft", out);
    p.numEpochs = 2;
    QCOMPARE(runTraining(p, [](const QJsonObject &e) { return isStepEvent(e, 5); }).result.status, engine::kTrainCancelled);
    const QString state = out + "/resume.safetensors";
    const QByteArray intact = readFileBytes(state);
    QVERIFY(!intact.isEmpty());
    p.resume = true;
    QByteArray tensorFlip = intact;
    tensorFlip[tensorFlip.size() - 3] = char(tensorFlip[tensorFlip.size() - 3] ^ 0x40);
    QByteArray metaFlip = intact;
    const int at = metaFlip.indexOf("\\\"step\\\":5");
    QVERIFY2(at > 0, "the step in the state's metadata");
    metaFlip[at + 9] = '4';
    for (const QByteArray &damaged : {tensorFlip, metaFlip}) {
        QFile file(state);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(damaged) == damaged.size());
        file.close();
        const Run refused = runTraining(p);
        QCOMPARE(refused.result.status, engine::kTrainBadInput);
        QVERIFY2(refused.errors().contains("--resume: the resume state '" + state + "' is damaged: its checksum does not "
                                           "match its contents"),
            qPrintable(refused.errors()));
        QVERIFY(refused.all("step").isEmpty());
        QCOMPARE(readFileBytes(state), damaged);
    }
    QFile file(state);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(intact) == intact.size());
    file.close();
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(resumed.result.steps, std::uint64_t(16));
}

// Stage two compares the dataset stage one read, when it is still there, with the
// fingerprint the manifest recorded; when it is gone it says it could not check.
void TestTwoStage::stageTwoChecksTheDatasetItWasMadeFrom()
{
    const QString data = m_fixture.path("fingerprint-data");
    QVERIFY(copyFolder(m_fixture.data(), data));
    const QString cache = m_fixture.path("fingerprint-cache");
    QCOMPARE(runTraining(m_fixture.params("sft:data_process", cache, data)).result.status, engine::kTrainOk);
    auto p = m_fixture.params("sft:train", m_fixture.path("fingerprint-run"), cache);
    p.maxSteps = 1;
    const Run same = runTraining(p);
    QVERIFY2(same.result.status == engine::kTrainOk, qPrintable(same.errors()));
    QVERIFY(!codes(same, "warning").contains("dataset-unchecked"));

    // An image rewritten in place (here: only its modification time changes).
    const QStringList images = QDir(data + "/images").entryList({"*.png"}, QDir::Files, QDir::Name);
    QVERIFY(!images.isEmpty());
    const QString image = data + "/images/" + images.first();
    QFile touched(image);
    QVERIFY(touched.open(QIODevice::ReadWrite));
    QVERIFY(touched.setFileTime(QDateTime::currentDateTime().addSecs(-3600), QFileDevice::FileModificationTime));
    touched.close();
    p.outputPath = m_fixture.path("fingerprint-changed").toStdString();
    const Run changed = runTraining(p);
    QCOMPARE(changed.result.status, engine::kTrainBadInput);
    QCOMPARE(codes(changed, "error"), QStringList{"dataset-changed"});
    QVERIFY2(changed.errors().contains("('" + data + "') has changed since stage one read it"), qPrintable(changed.errors()));
    QVERIFY(changed.all("step").isEmpty());
    QVERIFY(!QFileInfo::exists(m_fixture.path("fingerprint-changed")));

    QVERIFY(QDir(data).removeRecursively());
    p.outputPath = m_fixture.path("fingerprint-gone").toStdString();
    const Run gone = runTraining(p);
    QVERIFY2(gone.result.status == engine::kTrainOk, qPrintable(gone.errors()));
    QVERIFY(codes(gone, "warning").contains("dataset-unchecked"));
}

// Thread counts fix the order of sums: stage two on another count than stage one's
// says so, and a resume on another count than the state's says an exact resume needs
// the same.
void TestTwoStage::threadCountsAreCompared()
{
    auto p = m_fixture.params("sft:train", m_fixture.path("threads-two"), sftCache());
    p.numThreads = 2;
    p.numEpochs = 2;
    const Run two = runTraining(p, [](const QJsonObject &e) { return isStepEvent(e, 3); });
    QCOMPARE(two.result.status, engine::kTrainCancelled);
    QVERIFY(codes(two, "warning").contains("thread-count"));
    p.numThreads = 1;
    p.resume = true;
    const Run refused = runTraining(p);
    QCOMPARE(refused.result.status, engine::kTrainBadInput);
    QVERIFY2(refused.errors().contains("--num_threads: the state has 2, this run 1 (an exact resume needs the same count"),
        qPrintable(refused.errors()));
}

void TestTwoStage::refusedRunsCreateNothing_data()
{
    QTest::addColumn<QString>("what");
    QTest::addRow("lora targets") << "targets";
    QTest::addRow("missing tokenizer") << "tokenizer";
    QTest::addRow("missing lora checkpoint") << "lora";
    QTest::addRow("lora checkpoint that is not one") << "badlora";
    QTest::addRow("stage one, missing tokenizer") << "stageone";
}

// A run refused for anything at all leaves no folder behind: --output_path, here three
// folders deep, is not made (it was left empty by 9 kinds of refusal).
void TestTwoStage::refusedRunsCreateNothing()
{
    QFETCH(QString, what);
    const QString top = m_fixture.path("refused-" + what);
    auto p = m_fixture.params(what == "stageone" ? "sft:data_process" : "sft", top + "/a/b");
    if (what == "targets")
        p.loraTargetModules = "nowhere_proj";
    else if (what == "tokenizer" || what == "stageone")
        p.tokenizerPath = m_fixture.path("no-such-vocab.json").toStdString();
    else if (what == "lora")
        p.loraCheckpoint = m_fixture.path("no-such-lora.safetensors").toStdString();
    else if (what == "badlora")
        p.loraCheckpoint = (m_fixture.data() + "/metadata.csv").toStdString();
    const Run refused = runTraining(p);
    QCOMPARE(refused.result.status, engine::kTrainBadInput);
    QVERIFY(!refused.errors().isEmpty());
    QVERIFY2(!QFileInfo::exists(top), qPrintable(refused.errors()));
}

// An --output_path that cannot be a run folder is the user's input (exit status 2),
// named in the message.
void TestTwoStage::outputPathsThatCannotBeAreBadInput()
{
    const QString file = m_fixture.path("output-is-a-file");
    QVERIFY(QFile(file).open(QIODevice::WriteOnly));
    for (const QString &output : {file, file + "/under", m_fixture.path(QString(300, 'x'))}) {
        const Run refused = runTraining(m_fixture.params("sft", output));
        QVERIFY2(refused.result.status == engine::kTrainBadInput, qPrintable(output + ": " + refused.errors()));
        QVERIFY2(refused.errors().contains("--output_path '" + output + "'"), qPrintable(refused.errors()));
    }
    if (::geteuid() == 0)
        return; // root writes into read-only folders
    const QString readOnly = m_fixture.path("read-only-output");
    QVERIFY(QDir().mkpath(readOnly));
    QVERIFY(QFile::setPermissions(readOnly, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    const Run refused = runTraining(m_fixture.params("sft", readOnly));
    QVERIFY2(refused.result.status == engine::kTrainBadInput, qPrintable(refused.errors()));
    QFile::setPermissions(readOnly, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

// An image that stops decoding during one-stage training (damaged after the run
// checked it) ends the run as a damaged shard ends stage two: the steps done are
// kept, with a state to continue from.
void TestTwoStage::undecodableImageMidRunKeepsTheState()
{
    const QString data = m_fixture.path("decode-data");
    QVERIFY(copyFolder(m_fixture.data(), data));
    const QString out = m_fixture.path("decode-run");
    auto p = m_fixture.params("sft", out, data);
    const Run run = runTraining(p, [&data](const QJsonObject &e) {
        if (!isStepEvent(e, 2))
            return false;
        for (const QString &name : QDir(data + "/images").entryList({"*.png"}, QDir::Files)) {
            QFile image(data + "/images/" + name);
            if (!image.open(QIODevice::ReadWrite))
                return false;
            const QByteArray bytes = image.readAll();
            image.seek(40);
            image.write(QByteArray(int(bytes.size()) - 60, '\0'));
        }
        return false;
    });
    QCOMPARE(run.result.status, engine::kTrainBadInput);
    QCOMPARE(codes(run, "error"), QStringList{"dataset"});
    QVERIFY2(run.errors().contains("; the state after step 2 is saved in " + out + "/resume.safetensors"), qPrintable(run.errors()));
    QVERIFY(QFile::exists(out + "/resume.safetensors"));
    QVERIFY(QFile::exists(out + "/step-2.safetensors"));
}

// A disk that fills during training: the state write that fails says how much it
// needed and how much was free, and the previous state stays whole: once there is
// room, --resume ends with the weights of an uninterrupted run. Needs a small tmpfs,
// so root.
void TestTwoStage::aFullDiskNeverLeavesARunWithoutAState()
{
    if (::geteuid() != 0)
        QSKIP("needs root to mount a small tmpfs (the full disk)");
    const QString disk = m_fixture.path("small-disk");
    QVERIFY(QDir().mkpath(disk));
    QProcess mount;
    mount.start("mount", {"-t", "tmpfs", "-o", "size=4m", "tmpfs", disk});
    if (!mount.waitForFinished(10000) || mount.exitCode() != 0)
        QSKIP(qPrintable("cannot mount a tmpfs here (" + QString::fromUtf8(mount.readAllStandardError()).trimmed() + ")"));
    const auto unmount = qScopeGuard([&disk] { QProcess::execute("umount", {disk}); });

    auto p = m_fixture.params("sft", m_fixture.path("full-reference"));
    p.numEpochs = 3;
    QCOMPARE(runTraining(p).result.status, engine::kTrainOk);
    p.outputPath = (disk + "/run").toStdString();
    p.checkpointInterval = 1e-9;
    const QString filler = disk + "/filler";
    bool filled = false;
    const Run full = runTraining(p, [&](const QJsonObject &e) {
        if (filled || e.value("event").toString() != "checkpoint" || !e.contains("write_s"))
            return false;
        // A state is written: fill what is left.
        QFile fill(filler);
        fill.open(QIODevice::WriteOnly);
        const QByteArray block(64 * 1024, 'x');
        while (fill.write(block) == block.size() && fill.flush()) {
        }
        filled = true;
        return false;
    });
    QVERIFY(filled);
    QCOMPARE(full.result.status, engine::kTrainFailed);
    QVERIFY2(full.errors().contains("No space left on device"), qPrintable(full.errors()));
    if (full.errors().contains("cannot save the resume state"))
        QVERIFY2(full.errors().contains(" are free); the previous state, if there was one, is kept"), qPrintable(full.errors()));
    QVERIFY(QFile::exists(disk + "/run/resume.safetensors"));
    QVERIFY(QFile::remove(filler));
    p.resume = true;
    const Run resumed = runTraining(p);
    QVERIFY2(resumed.result.status == engine::kTrainOk, qPrintable(resumed.errors()));
    QCOMPARE(diff(m_fixture.path("full-reference/epoch-2.safetensors"), disk + "/run/epoch-2.safetensors"), 0.0);
}

QTEST_GUILESS_MAIN(TestTwoStage)
#include "tst_twostage.moc"
