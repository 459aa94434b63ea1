// SPDX-License-Identifier: MIT
#include "RunConfig.h"

#include "ExecutablePipeline.h"
#include "core/JsonReader.h"
#include "core/NameSuggestion.h"
#include "widgets/common/WidgetHelpers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>

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

// A JSON value as a settings file shows it, for error messages: "the string \"abc\"".
QString describeValue(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return tr("the string \"%1\"").arg(value.toString());
    case QJsonValue::Double: {
        // Whole numbers whole: "not 1000001" rather than "not 1e+06".
        const double d = value.toDouble();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 1e15)
            return QString::number(static_cast<qint64>(d));
        return numberText(d);
    }
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return tr("an array");
    case QJsonValue::Object:
        return tr("an object");
    case QJsonValue::Undefined:
        break;
    }
    return tr("nothing");
}

// The path a folder field names, for comparing two launches' folders.
QString cleanFolder(const QString &path)
{
    return path.isEmpty() ? QString() : QDir::cleanPath(QDir::fromNativeSeparators(path));
}

QStringList sortedUnique(QStringList list)
{
    list.sort();
    list.removeDuplicates();
    return list;
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
        {QStringLiteral("output_path"), outputPath}, {QStringLiteral("new_folder_per_launch"), newFolderPerLaunch},
        {QStringLiteral("cache_path"), cachePath},
        {QStringLiteral("num_epochs"), epochs}, {QStringLiteral("dataset_repeat"), datasetRepeat},
        {QStringLiteral("learning_rate"), learningRate}, {QStringLiteral("lora_rank"), loraRank},
        {QStringLiteral("lora_target_modules"), loraTargets}, {QStringLiteral("seed"), seed},
        {QStringLiteral("num_threads"), threads}, {QStringLiteral("nproc_per_node"), processes},
        {QStringLiteral("cache_shard_size"), cacheShardSize},
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
    integer("nproc_per_node", s.processes, 1);
    integer("cache_shard_size", s.cacheShardSize, 1);
    const QJsonValue lr = json.value(QLatin1String("learning_rate"));
    if (lr.isDouble() && lr.toDouble() > 0)
        s.learningRate = lr.toDouble();
    const QJsonValue hazards = json.value(QLatin1String("allow_hazards"));
    if (hazards.isBool())
        s.allowHazards = hazards.toBool();
    const QJsonValue perLaunch = json.value(QLatin1String("new_folder_per_launch"));
    if (perLaunch.isBool())
        s.newFolderPerLaunch = perLaunch.toBool();
    return s;
}

std::optional<RunSettings> RunSettings::fromJsonChecked(const QJsonObject &json, const RunSettings &defaults,
    QStringList *errors)
{
    RunSettings s = defaults;
    QStringList problems;
    auto problem = [&problems](const QString &key, const QString &what) { problems << key + QStringLiteral(": ") + what; };
    auto text = [&](const QString &key, QString &target) {
        const QJsonValue v = json.value(key);
        if (v.isString())
            target = v.toString();
        else if (key == QLatin1String("lora_target_modules"))
            problem(key, tr("must be a string of module names separated by commas, such as \"to_q,to_k\", not %1")
                             .arg(describeValue(v)));
        else
            problem(key, tr("must be a folder as a string, not %1").arg(describeValue(v)));
    };
    auto flag = [&](const QString &key, bool &target) {
        const QJsonValue v = json.value(key);
        if (v.isBool())
            target = v.toBool();
        else
            problem(key, tr("must be true or false, not %1").arg(describeValue(v)));
    };
    auto integer = [&](const QString &key, auto &target, qint64 minimum, qint64 maximum) {
        const QJsonValue v = json.value(key);
        const double d = v.toDouble();
        if (!v.isDouble() || !std::isfinite(d) || d != std::floor(d))
            problem(key, tr("must be a whole number from %1 to %2, not %3").arg(minimum).arg(maximum).arg(describeValue(v)));
        else if (d < static_cast<double>(minimum) || d > static_cast<double>(maximum))
            problem(key, tr("must be from %1 to %2, not %3").arg(minimum).arg(maximum).arg(describeValue(v)));
        else
            target = static_cast<std::remove_reference_t<decltype(target)>>(v.toInteger());
    };

    const QStringList known = RunSettings().toJson().keys();
    for (auto it = json.begin(); it != json.end(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("dataset_base_path"))
            text(key, s.datasetPath);
        else if (key == QLatin1String("model_root"))
            text(key, s.modelsRoot);
        else if (key == QLatin1String("output_path"))
            text(key, s.outputPath);
        else if (key == QLatin1String("cache_path"))
            text(key, s.cachePath);
        else if (key == QLatin1String("lora_target_modules"))
            text(key, s.loraTargets);
        else if (key == QLatin1String("num_epochs"))
            integer(key, s.epochs, 1, kMaxEpochs);
        else if (key == QLatin1String("dataset_repeat"))
            integer(key, s.datasetRepeat, 1, kMaxDatasetRepeat);
        else if (key == QLatin1String("lora_rank"))
            integer(key, s.loraRank, 1, kMaxLoraRank);
        else if (key == QLatin1String("seed"))
            integer(key, s.seed, 0, kMaxSeed);
        else if (key == QLatin1String("num_threads"))
            integer(key, s.threads, 0, kMaxThreads);
        else if (key == QLatin1String("nproc_per_node"))
            integer(key, s.processes, 1, kMaxProcesses);
        else if (key == QLatin1String("cache_shard_size"))
            integer(key, s.cacheShardSize, 1, kMaxCacheShardSize);
        else if (key == QLatin1String("allow_hazards"))
            flag(key, s.allowHazards);
        else if (key == QLatin1String("new_folder_per_launch"))
            flag(key, s.newFolderPerLaunch);
        else if (key == QLatin1String("learning_rate")) {
            const QJsonValue v = it.value();
            if (!v.isDouble() || !std::isfinite(v.toDouble()))
                problem(key, tr("must be a number such as 1e-4, not %1").arg(describeValue(v)));
            else if (!(v.toDouble() > 0))
                problem(key, tr("must be greater than 0, not %1").arg(describeValue(v)));
            else
                s.learningRate = v.toDouble();
        } else {
            // A misspelt key would otherwise train with the default, silently.
            std::vector<std::string> candidates;
            for (const QString &k : known)
                candidates.push_back(k.toStdString());
            const QString closest = QString::fromStdString(closestName(key.toStdString(), candidates));
            problem(key, closest.isEmpty() ? tr("unknown key (the keys are %1)").arg(known.join(QStringLiteral(", ")))
                                           : tr("unknown key; did you mean %1?").arg(closest));
        }
    }
    if (errors)
        *errors = problems;
    if (!problems.isEmpty())
        return std::nullopt;
    return s;
}

namespace {

// "line L, column C" of a byte offset in `text` (1-based; columns count characters).
QString lineAndColumn(const QByteArray &text, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    const QByteArrayView before(text.constData(), offset);
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    const qsizetype line = before.count('\n') + 1;
    const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).size() + 1;
    return tr("line %1, column %2").arg(line).arg(column);
}

// The keys that appear twice in one object of a JSON text that parsed: QJsonDocument
// keeps the last silently, where the pipeline loader refuses them.
QStringList duplicateKeys(const QByteArray &text)
{
    QStringList problems;
    std::vector<std::optional<QSet<QString>>> scopes; // an object's keys, or nullopt for an array
    qsizetype i = 0;
    while (i < text.size()) {
        const char c = text.at(i);
        if (c == '{') {
            scopes.emplace_back(QSet<QString>());
        } else if (c == '[') {
            scopes.emplace_back(std::nullopt);
        } else if ((c == '}' || c == ']') && !scopes.empty()) {
            scopes.pop_back();
        } else if (c == '"') {
            const qsizetype start = i;
            ++i;
            while (i < text.size() && text.at(i) != '"')
                i += text.at(i) == '\\' ? 2 : 1;
            const QByteArray quoted = text.mid(start, i - start + 1);
            qsizetype next = i + 1;
            while (next < text.size() && QChar::isSpace(static_cast<uchar>(text.at(next))))
                ++next;
            if (next < text.size() && text.at(next) == ':' && !scopes.empty() && scopes.back()) {
                // Decoded as JSON, so that "a" and "\u0061" are the same key.
                const QString key = QJsonDocument::fromJson("[" + quoted + "]").array().at(0).toString();
                if (scopes.back()->contains(key))
                    problems << tr("%1: \"%2\" appears twice (each key may be given once)")
                                    .arg(lineAndColumn(text, start), key);
                scopes.back()->insert(key);
            }
        }
        ++i;
    }
    return problems;
}

} // namespace

std::optional<RunSettings> readRunSettingsFile(const QString &path, const RunSettings &defaults, QStringList *errors)
{
    QStringList problems;
    std::optional<RunSettings> settings;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        problems << file.errorString();
    } else {
        const QByteArray text = file.readAll();
        // The syntax is checked by the pipeline loader's reader: Qt's messages misname
        // some errors ('"seed": }' was "object is missing after a comma").
        JsonReader syntax(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
        const bool wellFormed = syntax.skipValue() && syntax.expectEnd();
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
        if (!wellFormed)
            problems << tr("line %1, column %2: not JSON: %3")
                            .arg(syntax.errorLine())
                            .arg(syntax.errorColumn())
                            .arg(QString::fromStdString(syntax.errorMessage()));
        else if (parseError.error != QJsonParseError::NoError)
            problems << tr("%1: not JSON: %2").arg(lineAndColumn(text, parseError.offset), parseError.errorString());
        else if (!doc.isObject())
            problems << tr("not a JSON object of settings");
        else if (const QStringList duplicates = duplicateKeys(text); !duplicates.isEmpty())
            problems << duplicates;
        else
            settings = RunSettings::fromJsonChecked(doc.object(), defaults, &problems);
    }
    if (errors) {
        errors->clear();
        for (const QString &p : std::as_const(problems))
            *errors << QStringLiteral("%1: %2").arg(path, p);
    }
    return settings;
}

QString RunConfig::label() const
{
    QStringList parts;
    if (!training.trainable.empty())
        parts << tr("trainable %1").arg(nameText(training.trainableModelsFlag()));
    if (training.loraBase)
        parts << tr("LoRA on %1").arg(nameText(*training.loraBase));
    QString text = parts.isEmpty() ? tr("nothing to train") : parts.join(QStringLiteral(" + "));
    return tr("%1 · %2 split").arg(text, QString::fromLatin1(splitModeName(training.mode)));
}

QString RunConfig::numbersLabel() const
{
    const QFileInfo folder(cleanFolder(settings.datasetPath));
    const QString dataset = folder.fileName();
    const QString epochs = countText(settings.epochs, tr("%n epoch"), tr("%n epochs"));
    if (dataset.isEmpty())
        return epochs;
    // A folder whose name says it is a dataset ("dataset", "my_data") is named as it is,
    // with its parent when the name alone says nothing ("dataset dataset" was the label
    // of the default folder).
    if (dataset.contains(QLatin1String("data"), Qt::CaseInsensitive)) {
        const QString parent = QFileInfo(folder.absolutePath()).fileName();
        const bool generic = dataset.compare(QLatin1String("dataset"), Qt::CaseInsensitive) == 0
            || dataset.compare(QLatin1String("data"), Qt::CaseInsensitive) == 0;
        return tr("%1 · %2").arg(epochs, generic && !parent.isEmpty() ? parent + QLatin1Char('/') + dataset : dataset);
    }
    return tr("%1 · dataset %2").arg(epochs, dataset);
}

QString RunConfig::details() const
{
    const RunSettings &s = settings;
    QStringList lines{tr("pipeline: %1 (%2)").arg(pipeline, task), label(),
        tr("dataset: %1").arg(QDir::toNativeSeparators(s.datasetPath)),
        tr("models: %1").arg(QDir::toNativeSeparators(s.modelsRoot)),
        tr("epochs: %1, repeat %2").arg(s.epochs).arg(s.datasetRepeat),
        tr("learning rate: %1").arg(numberText(s.learningRate))};
    if (training.loraBase)
        lines << tr("LoRA rank %1 on %2").arg(s.loraRank).arg(s.loraTargets);
    lines << tr("seed: %1, threads: %2").arg(s.seed).arg(s.threads > 0 ? QString::number(s.threads) : tr("all cores"));
    if (s.processes > 1)
        lines << tr("processes: %1 (one sample each per step)").arg(s.processes);
    lines << tr("cache: %1").arg(QDir::toNativeSeparators(s.cachePath));
    if (!runFolder.isEmpty())
        lines << tr("output: %1").arg(QDir::toNativeSeparators(runFolder));
    return lines.join(QLatin1Char('\n'));
}

QJsonObject RunConfig::toJson() const
{
    return QJsonObject{{QStringLiteral("pipeline"), pipeline}, {QStringLiteral("task"), task},
        {QStringLiteral("trainable_models"), toArray(toQStringList(training.trainable))},
        {QStringLiteral("lora_base_model"), QString::fromStdString(training.loraBaseModelFlag())},
        {QStringLiteral("split_mode"), QString::fromLatin1(splitModeName(training.mode))},
        {QStringLiteral("stage_one_models"), toArray(stageOneModels)},
        {QStringLiteral("stage_two_models"), toArray(stageTwoModels)},
        {QStringLiteral("stage_one_units"), toArray(stageOneUnits)}, {QStringLiteral("cache_set"), toArray(cacheSet)},
        {QStringLiteral("dataset_columns"), toArray(datasetColumns)}, {QStringLiteral("settings"), settings.toJson()},
        {QStringLiteral("run_folder"), runFolder}};
}

RunConfig RunConfig::fromJson(const QJsonObject &json)
{
    RunConfig c;
    c.pipeline = json.value(QLatin1String("pipeline")).toString(c.pipeline);
    c.task = json.value(QLatin1String("task")).toString(c.task);
    for (const QString &m : toStringList(json.value(QLatin1String("trainable_models"))))
        c.training.trainable.push_back(m.toStdString());
    if (const QString base = json.value(QLatin1String("lora_base_model")).toString(); !base.isEmpty())
        c.training.loraBase = base.toStdString();
    if (json.value(QLatin1String("split_mode")).toString() == QLatin1String("safe"))
        c.training.mode = SplitMode::Safe;
    c.stageOneModels = toStringList(json.value(QLatin1String("stage_one_models")));
    c.stageTwoModels = toStringList(json.value(QLatin1String("stage_two_models")));
    c.stageOneUnits = toStringList(json.value(QLatin1String("stage_one_units")));
    c.cacheSet = toStringList(json.value(QLatin1String("cache_set")));
    c.datasetColumns = toStringList(json.value(QLatin1String("dataset_columns")));
    // Launches recorded before the per-launch folders wrote to OUTPUT/two-stage and
    // OUTPUT/one-stage: without the key, the settings say so.
    RunSettings legacy;
    legacy.newFolderPerLaunch = false;
    c.settings = RunSettings::fromJson(json.value(QLatin1String("settings")).toObject(), legacy);
    c.runFolder = json.value(QLatin1String("run_folder")).toString();
    return c;
}

QStringList trainingDifferences(const RunConfig &a, const RunConfig &b)
{
    QStringList out;
    auto compare = [&out](const QString &what, const QString &x, const QString &y) {
        if (x != y)
            out << tr("%1 %2 vs %3").arg(what, x.isEmpty() ? tr("(none)") : x, y.isEmpty() ? tr("(none)") : y);
    };
    const RunSettings &s = a.settings;
    const RunSettings &t = b.settings;
    compare(tr("pipeline"), a.pipeline, b.pipeline);
    compare(tr("task"), a.task, b.task);
    // The engine trains the set of trainable models (their order only names them).
    compare(tr("trainable models"), sortedUnique(toQStringList(a.training.trainable)).join(QLatin1Char(',')),
        sortedUnique(toQStringList(b.training.trainable)).join(QLatin1Char(',')));
    compare(tr("LoRA base"), QString::fromStdString(a.training.loraBaseModelFlag()),
        QString::fromStdString(b.training.loraBaseModelFlag()));
    compare(tr("split mode"), QString::fromLatin1(splitModeName(a.training.mode)),
        QString::fromLatin1(splitModeName(b.training.mode)));
    compare(tr("dataset"), QDir::toNativeSeparators(cleanFolder(s.datasetPath)),
        QDir::toNativeSeparators(cleanFolder(t.datasetPath)));
    compare(tr("models"), QDir::toNativeSeparators(cleanFolder(s.modelsRoot)), QDir::toNativeSeparators(cleanFolder(t.modelsRoot)));
    compare(tr("epochs"), QString::number(s.epochs), QString::number(t.epochs));
    compare(tr("dataset repeat"), QString::number(s.datasetRepeat), QString::number(t.datasetRepeat));
    if (s.learningRate != t.learningRate)
        compare(tr("learning rate"), QString::number(s.learningRate, 'g', 17), QString::number(t.learningRate, 'g', 17));
    if (a.training.loraBase && a.training.loraBase == b.training.loraBase) {
        compare(tr("LoRA rank"), QString::number(s.loraRank), QString::number(t.loraRank));
        compare(tr("LoRA targets"), s.loraTargets.trimmed(), t.loraTargets.trimmed());
    }
    compare(tr("seed"), QString::number(s.seed), QString::number(t.seed));
    // Equal bits need equal thread counts (docs/engine.md, "Determinism").
    compare(tr("threads"), s.threads > 0 ? QString::number(s.threads) : tr("all cores"),
        t.threads > 0 ? QString::number(t.threads) : tr("all cores"));
    compare(tr("processes"), QString::number(s.processes), QString::number(t.processes));
    return out;
}

QString stageOutputPath(const RunConfig &config, RunStage stage)
{
    if (stage == RunStage::StageOne)
        return config.settings.cachePath;
    if (!config.runFolder.isEmpty())
        return config.runFolder;
    return QDir(config.settings.outputPath)
        .filePath(stage == RunStage::StageTwo ? QStringLiteral("two-stage") : QStringLiteral("one-stage"));
}

QString runFolderName(RunKind kind, const QDateTime &when)
{
    return runKindKey(kind).replace(QLatin1Char('_'), QLatin1Char('-')) + QLatin1Char('-')
        + when.toString(QStringLiteral("yyyyMMdd-hhmmss"));
}

QString createRunFolder(const QString &parent, RunKind kind, const QDateTime &when, QString *error)
{
    QDir dir(parent);
    if (parent.isEmpty() || !dir.mkpath(QStringLiteral("."))) {
        if (error)
            *error = tr("cannot create the output folder %1").arg(QDir::toNativeSeparators(parent));
        return {};
    }
    const QString name = runFolderName(kind, when);
    // mkdir fails on a folder that exists: the one made here is nobody else's.
    for (int n = 1; n < 10000; ++n) {
        const QString candidate = n == 1 ? name : QStringLiteral("%1-%2").arg(name).arg(n);
        if (!dir.exists(candidate) && dir.mkdir(candidate))
            return dir.filePath(candidate);
    }
    if (error)
        *error = tr("cannot create a new folder for the launch in %1").arg(QDir::toNativeSeparators(parent));
    return {};
}

QStringList runFilesIn(const QString &folder)
{
    if (folder.isEmpty())
        return {};
    return QDir(folder).entryList({QStringLiteral("training_args.json"), QStringLiteral("loss.csv"),
                                      QStringLiteral("resume.safetensors"), QStringLiteral("epoch-*.safetensors"),
                                      QStringLiteral("step-*.safetensors")},
        QDir::Files, QDir::Name);
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
    const TrainingChoice &choice = config.training;
    if (!choice.trainable.empty())
        args << QStringLiteral("--trainable_models") << QString::fromStdString(choice.trainableModelsFlag());
    if (choice.loraBase) {
        args << QStringLiteral("--lora_base_model") << QString::fromStdString(*choice.loraBase);
        if (training) {
            if (*choice.loraBase == "dit" && !pipeline.removePrefix.isEmpty())
                args << QStringLiteral("--remove_prefix_in_ckpt") << pipeline.removePrefix;
            args << QStringLiteral("--lora_target_modules") << s.loraTargets << QStringLiteral("--lora_rank")
                 << QString::number(s.loraRank);
        }
    }
    args << QStringLiteral("--seed") << QString::number(s.seed);
    if (s.threads > 0)
        args << QStringLiteral("--num_threads") << QString::number(s.threads);
    if (s.processes > 1)
        args << QStringLiteral("--nproc_per_node") << QString::number(s.processes);
    if (stage != RunStage::OneStage) {
        if (choice.mode == SplitMode::Safe)
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

QString torchrunCommand(const QString &program, const QStringList &arguments)
{
    const qsizetype at = arguments.indexOf(QStringLiteral("--nproc_per_node"));
    if (at < 0 || at + 1 >= arguments.size())
        return {};
    QStringList rest = arguments;
    const QString count = rest.takeAt(at + 1);
    rest.removeAt(at);
    return shellCommand(QStringLiteral("torchrun"),
        QStringList{QStringLiteral("--nproc_per_node"), count, QStringLiteral("--no_python"), program} + rest);
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
