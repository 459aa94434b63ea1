// SPDX-License-Identifier: MIT
#include "ExecutablePipeline.h"

#include "core/PipelineFile.h"
#include "core/engine/ExecutableCatalog.h"
#include "core/engine/CacheCheck.h"
#include "resources/Examples.h"

#include <QCoreApplication>

#include <optional>

namespace splitscope {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ExecutablePipeline", text);
}

// The GUI's form of the engine protocol's catalog entry (Qt strings for the forms).
ExecutablePipeline fromFacts(const engine::ExecutablePipelineFacts &facts)
{
    ExecutablePipeline p;
    p.name = QString::fromStdString(facts.name);
    p.example = QString::fromStdString(facts.example);
    p.modelId = QString::fromStdString(facts.modelId);
    for (const engine::ExecutableModelFile &f : facts.modelFiles)
        p.modelFiles.push_back({QString::fromStdString(f.model), QString::fromStdString(f.pattern)});
    for (const engine::ExecutableLoss &l : facts.losses)
        p.losses.push_back({QString::fromStdString(l.name), QString::fromStdString(l.task)});
    p.loraTargets = QString::fromStdString(facts.loraTargets);
    p.removePrefix = QString::fromStdString(facts.removePrefix);
    return p;
}

// The shipped description of an executable pipeline, parsed once.
const std::optional<Pipeline> &shippedDescription(const ExecutablePipeline &executable)
{
    static std::vector<std::pair<QString, std::optional<Pipeline>>> parsed;
    for (const auto &[name, pipeline] : parsed) {
        if (name == executable.name)
            return pipeline;
    }
    std::optional<Pipeline> pipeline;
    if (const BuiltinExample *example = findBuiltinExample(executable.example.toStdString())) {
        LoadResult result = parsePipeline(example->json, example->name);
        pipeline = std::move(result.pipeline);
    }
    parsed.emplace_back(executable.name, std::move(pipeline));
    return parsed.back().second;
}

// The first declaration in which `unit` differs from the engine's, or "".
QString unitDifference(const Unit &unit, const Unit &engine)
{
    if (unit.name != engine.name)
        return QStringLiteral("name");
    if (unit.fetchInputParams() != engine.fetchInputParams() || unit.inputParams != engine.inputParams)
        return QStringLiteral("input_params");
    if (unit.inputParamsPosi != engine.inputParamsPosi)
        return QStringLiteral("input_params_posi");
    if (unit.inputParamsNega != engine.inputParamsNega)
        return QStringLiteral("input_params_nega");
    if (unit.outputParams != engine.outputParams)
        return QStringLiteral("output_params");
    if (unit.onloadModelNames.value_or(std::vector<std::string>{})
        != engine.onloadModelNames.value_or(std::vector<std::string>{}))
        return QStringLiteral("onload_model_names");
    if (unit.isStochastic() != engine.isStochastic())
        return QStringLiteral("stochastic");
    return {};
}

} // namespace

QString ExecutablePipeline::modelSpec(const QString &model) const
{
    for (const ModelFile &f : modelFiles) {
        if (f.model == model)
            return modelId + QLatin1Char(':') + f.pattern;
    }
    return {};
}

QString ExecutablePipeline::modelSpecs(const QStringList &models) const
{
    QStringList specs;
    for (const ModelFile &f : modelFiles) {
        if (models.isEmpty() || models.contains(f.model))
            specs << modelId + QLatin1Char(':') + f.pattern;
    }
    return specs.join(QLatin1Char(','));
}

QString ExecutablePipeline::taskOfLoss(const QString &loss) const
{
    for (const LossTask &l : losses) {
        if (l.loss == loss)
            return l.task;
    }
    return {};
}

std::optional<std::uint64_t> ExecutablePipeline::descriptionHash(const QString &task) const
{
    const std::optional<Pipeline> &description = shippedDescription(*this);
    if (!description || !description->loss || taskOfLoss(QString::fromStdString(description->loss->name)) != task)
        return std::nullopt;
    return engine::pipelineHash(*description);
}

QStringList ExecutablePipeline::modelsOfUnits(const QStringList &units) const
{
    QStringList models;
    const std::optional<Pipeline> &description = shippedDescription(*this);
    if (!description)
        return models;
    for (const Unit &unit : description->units) {
        if (!unit.onloadModelNames || !units.contains(QString::fromStdString(unit.name)))
            continue;
        for (const std::string &model : *unit.onloadModelNames) {
            if (!models.contains(QString::fromStdString(model)))
                models << QString::fromStdString(model);
        }
    }
    return models;
}

const std::vector<ExecutablePipeline> &executablePipelines()
{
    static const std::vector<ExecutablePipeline> pipelines = [] {
        std::vector<ExecutablePipeline> all;
        for (const engine::ExecutablePipelineFacts &facts : engine::executableCatalog())
            all.push_back(fromFacts(facts));
        return all;
    }();
    return pipelines;
}

const ExecutablePipeline *findExecutablePipeline(const QString &name)
{
    for (const ExecutablePipeline &p : executablePipelines()) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

Executability checkExecutable(const Pipeline &pipeline)
{
    Executability result;
    auto refuse = [&result](const QString &reason) {
        result.reason = reason;
        return result;
    };
    const QString name = QString::fromStdString(pipeline.name);
    const ExecutablePipeline *executable = findExecutablePipeline(name);
    if (!executable) {
        QStringList names;
        for (const ExecutablePipeline &p : executablePipelines())
            names << p.name;
        return refuse(tr("%1 is a description only: it can be inspected, but Splitscope has no code for its units "
                         "(they run in DiffSynth-Studio's Python). The engine runs its built-in executable "
                         "pipelines: %2 (File ▸ Examples ▸ %3).")
                          .arg(name, names.join(QStringLiteral(", ")), executablePipelines().front().example));
    }
    const std::optional<Pipeline> &engine = shippedDescription(*executable);
    if (!engine)
        return refuse(tr("The description of %1 is not built into this program.").arg(name));
    const QString changed = tr("This description of %1 differs from the engine's in %2. The engine runs its own "
                               "units, so it would train another split than the one shown; open File ▸ Examples ▸ %3.");
    if (pipeline.modelNames() != engine->modelNames())
        return refuse(changed.arg(name, QStringLiteral("models"), executable->example));
    if (pipeline.units.size() != engine->units.size())
        return refuse(changed.arg(name, tr("its number of units"), executable->example));
    for (std::size_t i = 0; i < pipeline.units.size(); ++i) {
        const QString field = unitDifference(pipeline.units[i], engine->units[i]);
        if (!field.isEmpty()) {
            const QString where = QStringLiteral("units[%1].%2 (%3)")
                                      .arg(i)
                                      .arg(field, QString::fromStdString(pipeline.units[i].name));
            return refuse(changed.arg(name, where, executable->example));
        }
    }
    const QString loss = pipeline.loss ? QString::fromStdString(pipeline.loss->name) : QString();
    result.task = executable->taskOfLoss(loss);
    if (result.task.isEmpty()) {
        QStringList known;
        for (const auto &l : executable->losses)
            known << l.loss;
        return refuse(tr("%1 has no loss named '%2' (the engine has %3).")
                          .arg(name, loss.isEmpty() ? tr("(none)") : loss, known.join(QStringLiteral(", "))));
    }
    result.pipeline = executable;
    return result;
}

} // namespace splitscope
