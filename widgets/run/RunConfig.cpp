// SPDX-License-Identifier: MIT
#include "RunConfig.h"

#include "ExecutablePipeline.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>

namespace splitscope {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RunConfig", text);
}

QJsonArray toArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QStringList toStringList(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out << v.toString();
    return out;
}

// The models of `all` that are not in `used`, as --offload_models specs.
QString offloadSpecs(const ExecutablePipeline &pipeline, const QStringList &used)
{
    QStringList offloaded;
    for (const ExecutablePipeline::ModelFile &f : pipeline.modelFiles) {
        if (!used.contains(f.model))
            offloaded << f.model;
    }
    return offloaded.isEmpty() ? QString() : pipeline.modelSpecs(offloaded);
}

// Learning rates as people write them: 1e-4, not 0.0001.
QString numberText(double value)
{
    return QString::number(value, 'g', 6);
}

} // namespace

QString runStageKey(RunStage stage)
{
    switch (stage) {
    case RunStage::StageOne:
        return QStringLiteral("stage_one");
    case RunStage::StageTwo:
        return QStringLiteral("stage_two");
    case RunStage::OneStage:
        break;
    }
    return QStringLiteral("one_stage");
}

QString runStageTitle(RunStage stage)
{
    switch (stage) {
    case RunStage::StageOne:
        return tr("Stage one");
    case RunStage::StageTwo:
        return tr("Stage two");
    case RunStage::OneStage:
        break;
    }
    return tr("One-stage baseline");
}

QString runKindKey(RunKind kind)
{
    switch (kind) {
    case RunKind::StageOne:
        return QStringLiteral("stage_one");
    case RunKind::StageTwo:
        return QStringLiteral("stage_two");
    case RunKind::Both:
        return QStringLiteral("both");
    case RunKind::Baseline:
        break;
    }
    return QStringLiteral("baseline");
}

QString runKindTitle(RunKind kind)
{
    switch (kind) {
    case RunKind::StageOne:
        return tr("Stage one");
    case RunKind::StageTwo:
        return tr("Stage two");
    case RunKind::Both:
        return tr("Both stages");
    case RunKind::Baseline:
        break;
    }
    return tr("One-stage baseline");
}

bool parseRunStage(const QString &key, RunStage &stage)
{
    for (RunStage s : {RunStage::StageOne, RunStage::StageTwo, RunStage::OneStage}) {
        if (runStageKey(s) == key) {
            stage = s;
            return true;
        }
    }
    return false;
}

bool parseRunKind(const QString &key, RunKind &kind)
{
    for (RunKind k : {RunKind::StageOne, RunKind::StageTwo, RunKind::Both, RunKind::Baseline}) {
        if (runKindKey(k) == key) {
            kind = k;
            return true;
        }
    }
    return false;
}

std::vector<RunStage> stagesOf(RunKind kind)
{
    switch (kind) {
    case RunKind::StageOne:
        return {RunStage::StageOne};
    case RunKind::StageTwo:
        return {RunStage::StageTwo};
    case RunKind::Both:
        return {RunStage::StageOne, RunStage::StageTwo};
    case RunKind::Baseline:
        break;
    }
    return {RunStage::OneStage};
}

QJsonObject RunSettings::toJson() const
{
    return QJsonObject{{QStringLiteral("dataset_base_path"), datasetPath}, {QStringLiteral("model_root"), modelsRoot},
        {QStringLiteral("output_path"), outputPath}, {QStringLiteral("cache_path"), cachePath},
        {QStringLiteral("num_epochs"), epochs}, {QStringLiteral("dataset_repeat"), datasetRepeat},
        {QStringLiteral("learning_rate"), learningRate}, {QStringLiteral("lora_rank"), loraRank},
        {QStringLiteral("lora_target_modules"), loraTargets}, {QStringLiteral("seed"), seed},
        {QStringLiteral("num_threads"), threads}, {QStringLiteral("cache_shard_size"), cacheShardSize},
        {QStringLiteral("allow_hazards"), allowHazards}};
}

RunSettings RunSettings::fromJson(const QJsonObject &json, const RunSettings &defaults)
{
    RunSettings s = defaults;
    auto text = [&json](const char *key, QString &target) {
        const QJsonValue v = json.value(QLatin1String(key));
        if (v.isString())
            target = v.toString();
    };
    auto integer = [&json](const char *key, auto &target, qint64 minimum) {
        const QJsonValue v = json.value(QLatin1String(key));
        if (v.isDouble() && v.toDouble() >= static_cast<double>(minimum))
            target = static_cast<std::remove_reference_t<decltype(target)>>(v.toInteger());
    };
    text("dataset_base_path", s.datasetPath);
    text("model_root", s.modelsRoot);
    text("output_path", s.outputPath);
    text("cache_path", s.cachePath);
    text("lora_target_modules", s.loraTargets);
    integer("num_epochs", s.epochs, 1);
    integer("dataset_repeat", s.datasetRepeat, 1);
    integer("lora_rank", s.loraRank, 1);
    integer("seed", s.seed, 0);
    integer("num_threads", s.threads, 0);
    integer("cache_shard_size", s.cacheShardSize, 1);
    const QJsonValue lr = json.value(QLatin1String("learning_rate"));
    if (lr.isDouble() && lr.toDouble() > 0)
        s.learningRate = lr.toDouble();
    const QJsonValue hazards = json.value(QLatin1String("allow_hazards"));
    if (hazards.isBool())
        s.allowHazards = hazards.toBool();
    return s;
}

QString RunConfig::label() const
{
    QStringList parts;
    if (!trainable.isEmpty())
        parts << tr("trainable %1").arg(trainable.join(QLatin1Char(',')));
    if (!loraBase.isEmpty())
        parts << tr("LoRA on %1").arg(loraBase);
    QString text = parts.isEmpty() ? tr("nothing to train") : parts.join(QStringLiteral(" + "));
    return tr("%1 · %2 split").arg(text, QString::fromLatin1(splitModeName(mode)));
}

QJsonObject RunConfig::toJson() const
{
    return QJsonObject{{QStringLiteral("pipeline"), pipeline}, {QStringLiteral("task"), task},
        {QStringLiteral("trainable_models"), toArray(trainable)}, {QStringLiteral("lora_base_model"), loraBase},
        {QStringLiteral("split_mode"), QString::fromLatin1(splitModeName(mode))},
        {QStringLiteral("stage_one_models"), toArray(stageOneModels)},
        {QStringLiteral("stage_two_models"), toArray(stageTwoModels)},
        {QStringLiteral("dataset_columns"), toArray(datasetColumns)}, {QStringLiteral("settings"), settings.toJson()}};
}

RunConfig RunConfig::fromJson(const QJsonObject &json)
{
    RunConfig c;
    c.pipeline = json.value(QLatin1String("pipeline")).toString(c.pipeline);
    c.task = json.value(QLatin1String("task")).toString(c.task);
    c.trainable = toStringList(json.value(QLatin1String("trainable_models")));
    c.loraBase = json.value(QLatin1String("lora_base_model")).toString();
    c.mode = json.value(QLatin1String("split_mode")).toString() == QLatin1String("safe") ? SplitMode::Safe
                                                                                         : SplitMode::Seed;
    c.stageOneModels = toStringList(json.value(QLatin1String("stage_one_models")));
    c.stageTwoModels = toStringList(json.value(QLatin1String("stage_two_models")));
    c.datasetColumns = toStringList(json.value(QLatin1String("dataset_columns")));
    c.settings = RunSettings::fromJson(json.value(QLatin1String("settings")).toObject());
    return c;
}

QString stageOutputPath(const RunConfig &config, RunStage stage)
{
    switch (stage) {
    case RunStage::StageOne:
        return config.settings.cachePath;
    case RunStage::StageTwo:
        return QDir(config.settings.outputPath).filePath(QStringLiteral("two-stage"));
    case RunStage::OneStage:
        break;
    }
    return QDir(config.settings.outputPath).filePath(QStringLiteral("one-stage"));
}

QStringList trainArguments(const RunConfig &config, const ExecutablePipeline &pipeline, RunStage stage, bool resume)
{
    const RunSettings &s = config.settings;
    const bool training = stage != RunStage::StageOne;
    QString task = config.task;
    if (stage == RunStage::StageOne)
        task += QStringLiteral(":data_process");
    else if (stage == RunStage::StageTwo)
        task += QStringLiteral(":train");

    QStringList args{QStringLiteral("train"), QStringLiteral("--task"), task};
    if (config.pipeline != executablePipelines().front().name)
        args << QStringLiteral("--pipeline") << config.pipeline;
    args << QStringLiteral("--dataset_base_path") << (stage == RunStage::StageTwo ? s.cachePath : s.datasetPath);
    // A dataset with edit images (make-dataset --edit) feeds them to the edit units.
    if (stage != RunStage::StageTwo && config.datasetColumns.contains(QStringLiteral("edit_image")))
        args << QStringLiteral("--data_file_keys") << QStringLiteral("image,edit_image") << QStringLiteral("--extra_inputs")
             << QStringLiteral("edit_image");
    if (training)
        args << QStringLiteral("--dataset_repeat") << QString::number(s.datasetRepeat);
    args << QStringLiteral("--model_root") << s.modelsRoot << QStringLiteral("--model_id_with_origin_paths")
         << pipeline.modelSpecs();
    if (stage != RunStage::OneStage) {
        const QString offload
            = offloadSpecs(pipeline, stage == RunStage::StageOne ? config.stageOneModels : config.stageTwoModels);
        if (!offload.isEmpty())
            args << QStringLiteral("--offload_models") << offload;
    }
    if (training) {
        args << QStringLiteral("--learning_rate") << numberText(s.learningRate) << QStringLiteral("--num_epochs")
             << QString::number(s.epochs);
    }
    args << QStringLiteral("--output_path") << stageOutputPath(config, stage);
    if (!config.trainable.isEmpty())
        args << QStringLiteral("--trainable_models") << config.trainable.join(QLatin1Char(','));
    if (!config.loraBase.isEmpty()) {
        args << QStringLiteral("--lora_base_model") << config.loraBase;
        if (training) {
            if (config.loraBase == QLatin1String("dit") && !pipeline.removePrefix.isEmpty())
                args << QStringLiteral("--remove_prefix_in_ckpt") << pipeline.removePrefix;
            args << QStringLiteral("--lora_target_modules") << s.loraTargets << QStringLiteral("--lora_rank")
                 << QString::number(s.loraRank);
        }
    }
    args << QStringLiteral("--seed") << QString::number(s.seed);
    if (s.threads > 0)
        args << QStringLiteral("--num_threads") << QString::number(s.threads);
    if (stage != RunStage::OneStage) {
        if (config.mode == SplitMode::Safe)
            args << QStringLiteral("--split_mode") << QStringLiteral("safe");
        if (s.allowHazards)
            args << QStringLiteral("--allow_hazards");
    }
    if (stage == RunStage::StageOne)
        args << QStringLiteral("--cache_shard_size") << QString::number(s.cacheShardSize);
    if (resume && training)
        args << QStringLiteral("--resume");
    return args;
}

QString shellCommand(const QString &program, const QStringList &arguments)
{
    // Characters a POSIX shell leaves alone; anything else is single-quoted.
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList parts;
    for (const QString &a : QStringList{program} + arguments) {
        if (!a.isEmpty() && plain.match(a).hasMatch())
            parts << a;
        else
            parts << QLatin1Char('\'') + QString(a).replace(QLatin1Char('\''), QStringLiteral("'\\''")) + QLatin1Char('\'');
    }
    return parts.join(QLatin1Char(' '));
}

QStringList readDatasetColumns(const QString &datasetPath)
{
    QFile file(QDir(datasetPath).filePath(QStringLiteral("metadata.csv")));
    if (datasetPath.isEmpty() || !file.open(QIODevice::ReadOnly))
        return {};
    const QString header = QString::fromUtf8(file.readLine()).trimmed();
    QStringList columns;
    for (const QString &c : header.split(QLatin1Char(',')))
        columns << c.trimmed().remove(QLatin1Char('"'));
    return columns;
}

} // namespace splitscope
