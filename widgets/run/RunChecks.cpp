// SPDX-License-Identifier: MIT
#include "RunChecks.h"

#include "ExecutablePipeline.h"
#include "RunFormat.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace splitscope {

namespace {

QString tr(const char *text, int n = -1)
{
    return QCoreApplication::translate("RunChecks", text, nullptr, n);
}

QStringList stringList(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out << v.toString();
    return out;
}

bool sameSet(QStringList a, QStringList b)
{
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    a.removeDuplicates();
    b.removeDuplicates();
    return a == b;
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
    if (complete)
        return tr("complete: %1 samples in %2 shard(s), %3; %4 split for %5")
            .arg(samples)
            .arg(shards)
            .arg(formatBytes(bytes), splitMode, trains);
    return tr("incomplete: %1 of %2 samples in %3 shard(s), %4; %5 split for %6 (stage one resumes it)")
        .arg(cachedSamples)
        .arg(samples)
        .arg(shards)
        .arg(formatBytes(bytes), splitMode, trains);
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
    QJsonParseError parseError;
    const QJsonObject doc = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError
        || doc.value(QLatin1String("format")).toString() != QLatin1String("splitscope.cache/1")) {
        status.error = tr("%1 is not a Splitscope cache manifest").arg(path);
        return status;
    }
    status.exists = true;
    status.complete = doc.value(QLatin1String("complete")).toBool();
    status.task = doc.value(QLatin1String("task")).toString();
    const QJsonObject split = doc.value(QLatin1String("split")).toObject();
    status.splitMode = split.value(QLatin1String("mode")).toString();
    status.modelsRequiringBackward = stringList(split.value(QLatin1String("models_require_backward")));
    status.stageOneUnits = stringList(split.value(QLatin1String("stage_one_units")));
    status.samples = doc.value(QLatin1String("dataset")).toObject().value(QLatin1String("samples")).toInt();
    for (const QJsonValue &shard : doc.value(QLatin1String("shards")).toArray()) {
        const QJsonObject s = shard.toObject();
        ++status.shards;
        status.cachedSamples += s.value(QLatin1String("count")).toInt();
        status.bytes += static_cast<qint64>(s.value(QLatin1String("bytes")).toDouble());
    }
    return status;
}

QStringList modelsRequiringBackward(const RunConfig &config)
{
    QStringList models = config.trainable;
    if (!config.loraBase.isEmpty() && !models.contains(config.loraBase))
        models << config.loraBase;
    return models;
}

QList<RunIssue> validateRun(const RunConfig &config, const ExecutablePipeline &pipeline, RunKind kind, int hazards)
{
    QList<RunIssue> issues;
    const RunSettings &s = config.settings;
    const bool stageOne = runs(kind, RunStage::StageOne);
    const bool stageTwo = runs(kind, RunStage::StageTwo);
    const bool training = stageTwo || kind == RunKind::Baseline;

    if (config.trainable.isEmpty() && config.loraBase.isEmpty())
        issues.append({RunField::Training,
            tr("Nothing to train: choose a LoRA base model or trainable models in Training configuration.")});
    if (hazards > 0 && kind != RunKind::Baseline && !s.allowHazards)
        issues.append({RunField::Hazards,
            tr("The %1 split has %n hazard(s): two-stage training would differ from one-stage training. Choose the "
               "safe split in Training configuration, or allow hazards.",
                hazards)
                .arg(QString::fromLatin1(splitModeName(config.mode)))});

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
        if (s.outputPath.isEmpty())
            issues.append({RunField::Output, tr("Choose an output folder for the checkpoints.")});
        else if (QFileInfo(s.outputPath).exists() && !QFileInfo(s.outputPath).isDir())
            issues.append({RunField::Output, tr("%1 is a file, not a folder.").arg(QDir::toNativeSeparators(s.outputPath))});
        if (!config.loraBase.isEmpty() && s.loraTargets.trimmed().isEmpty())
            issues.append({RunField::LoraTargets, tr("List the modules that get LoRA (e.g. to_q,to_k,to_v).")});
    }

    if (stageOne || stageTwo) {
        const CacheStatus cache = readCacheStatus(s.cachePath);
        const QString where = QDir::toNativeSeparators(s.cachePath);
        const QStringList wanted = modelsRequiringBackward(config);
        const QString mode = QString::fromLatin1(splitModeName(config.mode));
        const bool otherSplit = cache.exists
            && (!sameSet(cache.modelsRequiringBackward, wanted) || cache.splitMode != mode || cache.task != config.task);
        if (s.cachePath.isEmpty())
            issues.append({RunField::Cache, tr("Choose a folder for the stage-one cache.")});
        else if (QFileInfo(s.cachePath).exists() && !QFileInfo(s.cachePath).isDir())
            issues.append({RunField::Cache, tr("%1 is a file, not a folder.").arg(where)});
        else if (!cache.error.isEmpty())
            issues.append({RunField::Cache, cache.error});
        else if (otherSplit)
            issues.append({RunField::Cache,
                tr("%1 holds a cache of the %2 split for %3 (%4), not of this run's %5 split for %6: choose another "
                   "cache folder, or delete that one to rebuild it.")
                    .arg(where, cache.splitMode, cache.modelsRequiringBackward.join(QStringLiteral(", ")), cache.task,
                        mode, wanted.join(QStringLiteral(", ")))});
        else if (kind == RunKind::StageTwo && !cache.exists)
            issues.append({RunField::Cache, tr("No cache in %1 yet: run stage one first.").arg(where)});
        else if (kind == RunKind::StageTwo && !cache.complete)
            issues.append({RunField::Cache,
                tr("The cache in %1 is incomplete (%2 of %3 samples): run stage one to finish it.")
                    .arg(where)
                    .arg(cache.cachedSamples)
                    .arg(cache.samples)});
    }
    return issues;
}

} // namespace splitscope
