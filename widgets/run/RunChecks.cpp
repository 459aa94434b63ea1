// SPDX-License-Identifier: MIT
#include "RunChecks.h"

#include "ExecutablePipeline.h"
#include "RunFormat.h"

#include "core/engine/CacheCheck.h"

#include "widgets/common/WidgetHelpers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace splitscope {

namespace {

QString tr(const char *text, int n = -1)
{
    return QCoreApplication::translate("RunChecks", text, nullptr, n);
}

// A list as the engine's messages write it: "[a, b]".
QString listText(const QStringList &items)
{
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// The prefix, up to an underscore, that all `names` share ("QwenImageUnit_"): left out
// where names are listed, as the graph's boxes leave it out.
QString sharedPrefix(const QStringList &names)
{
    if (names.size() < 2)
        return {};
    QString prefix = names.front();
    for (const QString &name : names) {
        qsizetype n = 0;
        while (n < prefix.size() && n < name.size() && prefix.at(n) == name.at(n))
            ++n;
        prefix.truncate(n);
    }
    const qsizetype underscore = prefix.lastIndexOf(QLatin1Char('_'));
    return underscore > 0 ? prefix.left(underscore + 1) : QString();
}

// What moved between two lists, in words: "PromptEmbedder moved to stage two".
QString movedText(const QStringList &cached, const QStringList &wanted, const QString &gone, const QString &added)
{
    const QString prefix = sharedPrefix(cached + wanted);
    auto names = [&prefix](const QStringList &items) {
        QStringList out;
        for (const QString &item : items)
            out << (prefix.isEmpty() || !item.startsWith(prefix) ? item : item.mid(prefix.size()));
        return out.join(QStringLiteral(", "));
    };
    QStringList onlyCached;
    QStringList onlyWanted;
    for (const QString &item : cached) {
        if (!wanted.contains(item))
            onlyCached << item;
    }
    for (const QString &item : wanted) {
        if (!cached.contains(item))
            onlyWanted << item;
    }
    QStringList parts;
    if (!onlyCached.isEmpty())
        parts << gone.arg(names(onlyCached));
    if (!onlyWanted.isEmpty())
        parts << added.arg(names(onlyWanted));
    return parts.join(QStringLiteral("; "));
}

QString cleanFolder(const QString &path)
{
    return QDir::cleanPath(QFileInfo(QDir::fromNativeSeparators(path)).absoluteFilePath());
}

bool runs(RunKind kind, RunStage stage)
{
    const auto stages = stagesOf(kind);
    return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

// Whether `root`/<model id>/<pattern> names at least one file (the pattern's `*`
// only in its file name, as the engine's patterns have it).
bool modelFilesExist(const QString &root, const ExecutablePipeline &pipeline, const QString &pattern)
{
    const QFileInfo relative(pattern);
    const QDir dir(QDir(root).filePath(pipeline.modelId + QLatin1Char('/') + relative.path()));
    return dir.exists() && !dir.entryList({relative.fileName()}, QDir::Files).isEmpty();
}

} // namespace

QString CacheStatus::summary() const
{
    if (!exists)
        return error.isEmpty() ? tr("no cache yet") : error;
    const QString trains = modelsRequiringBackward.isEmpty() ? tr("nothing trained")
                                                             : modelsRequiringBackward.join(QStringLiteral(", "));
    const QString inShards = countText(shards, tr("%n shard"), tr("%n shards"));
    if (complete)
        return tr("complete: %1 in %2, %3; %4 split for %5")
            .arg(countText(samples, tr("%n sample"), tr("%n samples")), inShards, formatBytes(bytes), splitMode, trains);
    return tr("incomplete: %1 of %2 in %3, %4; %5 split for %6 (stage one resumes it)")
        .arg(QString::number(cachedSamples), countText(samples, tr("%n sample"), tr("%n samples")), inShards,
            formatBytes(bytes), splitMode, trains);
}

CacheStatus readCacheStatus(const QString &cachePath)
{
    CacheStatus status;
    if (cachePath.isEmpty())
        return status;
    const QString path = QDir(cachePath).filePath(QStringLiteral("manifest.json"));
    QFile file(path);
    if (!file.exists())
        return status;
    if (!file.open(QIODevice::ReadOnly)) {
        status.error = tr("%1: cannot be read (%2)").arg(path, file.errorString());
        return status;
    }
    // The engine's own reader: what it refuses, the app refuses, with the same words.
    engine::CacheManifest m;
    std::string error;
    if (!engine::CacheManifest::parse(file.readAll().toStdString(), path.toStdString(), m, &error)) {
        status.error = QString::fromStdString(error); // names the file, line, key, and what it expected
        return status;
    }
    status.exists = true;
    status.complete = m.complete;
    status.pipeline = QString::fromStdString(m.pipeline);
    status.task = QString::fromStdString(m.task);
    status.splitMode = QString::fromStdString(m.splitMode);
    status.modelsRequiringBackward = toQStringList(m.modelsRequiringBackward);
    status.stageOneUnits = toQStringList(m.stageOneUnits);
    status.cacheSet = toQStringList(m.cacheSet);
    status.cacheAllParams = m.cacheAllParams;
    for (const auto &[key, value] : m.settings)
        status.settings.insert(QString::fromStdString(key), QString::fromStdString(value));
    status.samples = static_cast<int>(m.samples);
    status.shards = static_cast<int>(m.shards.size());
    status.cachedSamples = static_cast<int>(m.finishedSamples());
    status.bytes = static_cast<qint64>(m.shardBytes());
    status.manifest = std::move(m);
    return status;
}

QStringList modelsRequiringBackward(const RunConfig &config)
{
    // The core's list, which the engine records: trainable_models, then
    // lora_base_model, a model named twice once.
    return toQStringList(config.training.modelsRequiringBackward());
}

QStringList cacheDifferences(const CacheStatus &cache, const RunConfig &config, RunStage stage)
{
    QStringList diffs;
    auto compare = [&diffs](const QString &what, const QString &cached, const QString &wanted) {
        if (cached != wanted)
            diffs << tr("%1: the cache has %2, this run %3").arg(what, cached, wanted);
    };
    // What stage two checks, as the engine checks it (engine::cacheMismatches); the
    // app words the unit lists as what moved.
    engine::CacheExpectation wanted;
    wanted.pipeline = config.pipeline.toStdString();
    wanted.task = config.task.toStdString();
    if (const ExecutablePipeline *executable = findExecutablePipeline(config.pipeline)) {
        wanted.pipelineHash = executable->descriptionHash(config.task);
        wanted.stageOneModels = toStdStrings(executable->modelsOfUnits(config.stageOneUnits));
    }
    wanted.modelsRequiringBackward = toStdStrings(modelsRequiringBackward(config));
    wanted.stageOneUnits = toStdStrings(config.stageOneUnits);
    if (stage == RunStage::StageTwo)
        wanted.cacheSet = toStdStrings(config.cacheSet); // stage two needs every param it reads; a cache may store more
    const auto text = [](const std::string &s) { return QString::fromStdString(s); };
    for (const engine::CacheMismatch &m : engine::cacheMismatches(cache.manifest, wanted)) {
        switch (m.what) {
        case engine::CacheMismatch::What::Pipeline: compare(tr("pipeline"), text(m.cached), text(m.wanted)); break;
        case engine::CacheMismatch::What::Task: compare(tr("task"), text(m.cached), text(m.wanted)); break;
        case engine::CacheMismatch::What::ModelsRequiringBackward:
            compare(tr("models requiring backward"), text(m.cached), text(m.wanted));
            break;
        case engine::CacheMismatch::What::StageOneUnits: {
            const QString moved = movedText(cache.stageOneUnits, config.stageOneUnits, tr("%1 moved to stage two"),
                tr("%1 moved to stage one"));
            diffs << tr("stage-one units: %1").arg(moved.isEmpty() ? tr("the same units in another order") : moved);
            break;
        }
        case engine::CacheMismatch::What::CachedParam:
            diffs << tr("cached params: the cache lacks '%1', which stage two reads").arg(text(m.wanted));
            break;
        case engine::CacheMismatch::What::PipelineHash:
        case engine::CacheMismatch::What::MissingRecord: diffs << text(m.text()); break;
        }
    }
    if (stage == RunStage::StageTwo)
        return diffs;
    // Stage one continues a cache only if it would write the same one.
    if (listText(cache.cacheSet) != listText(config.cacheSet)) {
        const QString moved = movedText(cache.cacheSet, config.cacheSet, tr("the cache stores %1, this split does not"),
            tr("this split stores %1, the cache does not"));
        diffs << tr("stored params: %1").arg(moved.isEmpty() ? tr("the same params in another order") : moved);
    }
    compare(QStringLiteral("--cache_all_params"), cache.cacheAllParams ? tr("on") : tr("off"), tr("off"));
    auto setting = [&](const char *key, const QString &wanted) {
        const auto it = cache.settings.constFind(QLatin1String(key));
        if (it != cache.settings.cend())
            compare(QLatin1String(key), it.value(), wanted);
    };
    setting("seed", QString::number(config.settings.seed));
    setting("cache_shard_size", QString::number(config.settings.cacheShardSize));
    if (config.settings.threads > 0) // else the engine's count of cores, not known here
        setting("num_threads", QString::number(config.settings.threads));
    return diffs;
}

QList<RunIssue> validateRun(const RunConfig &config, const ExecutablePipeline &pipeline, RunKind kind, int hazards)
{
    QList<RunIssue> issues;
    const RunSettings &s = config.settings;
    const bool stageOne = runs(kind, RunStage::StageOne);
    const bool stageTwo = runs(kind, RunStage::StageTwo);
    const bool training = stageTwo || kind == RunKind::Baseline;

    if (config.training.trainsNothing())
        issues.append({RunField::Training,
            tr("Nothing to train: choose a LoRA base model or trainable models in Training configuration.")});
    if (hazards > 0 && kind != RunKind::Baseline && !s.allowHazards)
        issues.append({RunField::Hazards,
            tr("The %1 split has %2: two-stage training would differ from one-stage training. Choose the "
               "safe split (Split ▸ Safe, or Alt+2), or allow hazards.")
                .arg(QString::fromLatin1(splitModeName(config.training.mode)),
                    countText(hazards, tr("%n hazard"), tr("%n hazards")))});

    if (stageOne || kind == RunKind::Baseline) {
        const QStringList columns = readDatasetColumns(s.datasetPath);
        if (s.datasetPath.isEmpty())
            issues.append({RunField::Dataset, tr("Choose the dataset folder (it holds metadata.csv and the images).")});
        else if (!QFileInfo::exists(QDir(s.datasetPath).filePath(QStringLiteral("metadata.csv"))))
            issues.append({RunField::Dataset,
                tr("%1 has no metadata.csv: choose a dataset folder or generate the example dataset.")
                    .arg(QDir::toNativeSeparators(s.datasetPath))});
        else if (!columns.contains(QStringLiteral("image")) || !columns.contains(QStringLiteral("prompt")))
            issues.append({RunField::Dataset,
                tr("metadata.csv needs the columns image and prompt (it has: %1).").arg(columns.join(QStringLiteral(", ")))});
    }

    if (s.modelsRoot.isEmpty()) {
        issues.append({RunField::ModelsRoot, tr("Choose the models folder.")});
    } else {
        QStringList missing;
        for (const ExecutablePipeline::ModelFile &f : pipeline.modelFiles) {
            if (!modelFilesExist(s.modelsRoot, pipeline, f.pattern))
                missing << f.model;
        }
        if (!missing.isEmpty())
            issues.append({RunField::ModelsRoot,
                tr("No %1 weights under %2: create the tiny models here, or choose the folder that holds %3.")
                    .arg(missing.join(QStringLiteral(", ")),
                        QDir::toNativeSeparators(QDir(s.modelsRoot).filePath(pipeline.modelId)), pipeline.modelId)});
    }

    if (training) {
        const QString where = QDir::toNativeSeparators(s.outputPath);
        // Without a new folder per launch, the launch writes into the folder itself.
        const QStringList runFiles = s.newFolderPerLaunch ? QStringList() : runFilesIn(s.outputPath);
        if (s.outputPath.isEmpty())
            issues.append({RunField::Output, tr("Choose an output folder for the checkpoints.")});
        else if (QFileInfo(s.outputPath).exists() && !QFileInfo(s.outputPath).isDir())
            issues.append({RunField::Output, tr("%1 is a file, not a folder.").arg(where)});
        else if (!s.newFolderPerLaunch && stageTwo && !s.cachePath.isEmpty()
            && cleanFolder(s.outputPath) == cleanFolder(s.cachePath))
            issues.append({RunField::Output, tr("The output folder must not be the cache folder.")});
        else if (!runFiles.isEmpty())
            issues.append({RunField::Output,
                tr("%1 holds a run already (%2%3): a launch would replace it. Turn on “New folder for each "
                   "launch” or choose another folder to keep it.")
                    .arg(where, runFiles.mid(0, 4).join(QStringLiteral(", ")),
                        runFiles.size() > 4 ? tr(", …") : QString()),
                true});
        if (config.training.loraBase && s.loraTargets.trimmed().isEmpty())
            issues.append({RunField::LoraTargets, tr("List the modules that get LoRA (e.g. to_q,to_k,to_v).")});
    }

    if (stageOne || stageTwo) {
        const CacheStatus cache = readCacheStatus(s.cachePath);
        const QString where = QDir::toNativeSeparators(s.cachePath);
        // A launch with stage one checks what stage one checks (it also covers stage two's check).
        const RunStage checker = stageOne ? RunStage::StageOne : RunStage::StageTwo;
        const QStringList differences = cache.exists ? cacheDifferences(cache, config, checker) : QStringList();
        if (s.cachePath.isEmpty())
            issues.append({RunField::Cache, tr("Choose a folder for the stage-one cache.")});
        else if (QFileInfo(s.cachePath).exists() && !QFileInfo(s.cachePath).isDir())
            issues.append({RunField::Cache, tr("%1 is a file, not a folder.").arg(where)});
        else if (!cache.error.isEmpty())
            issues.append({RunField::Cache, cache.error});
        else if (!differences.isEmpty())
            issues.append({RunField::Cache,
                tr("%1 holds a cache made otherwise, which %2 would refuse: %3. Choose another cache folder, or "
                   "delete that one to rebuild it.")
                    .arg(where, checker == RunStage::StageOne ? tr("stage one") : tr("stage two"),
                        differences.join(QStringLiteral("; ")))});
        else if (kind == RunKind::StageTwo && !cache.exists)
            issues.append({RunField::Cache, tr("No cache in %1 yet: run stage one first.").arg(where)});
        else if (kind == RunKind::StageTwo && !cache.complete)
            issues.append({RunField::Cache,
                tr("The cache in %1 is incomplete (%2 of %3): run stage one to finish it.")
                    .arg(where, QString::number(cache.cachedSamples),
                        countText(cache.samples, tr("%n sample"), tr("%n samples")))});
    }
    return issues;
}

} // namespace splitscope
