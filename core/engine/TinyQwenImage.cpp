// SPDX-License-Identifier: MIT
#include "TinyQwenImage.h"

#include "Hash.h"
#include "core/PipelineFile.h"

#include <algorithm>

namespace splitscope::engine {

std::vector<std::string> UnitDeclaration::readableParams() const
{
    std::vector<std::string> params = inputParams;
    for (const auto *map : {&inputParamsPosi, &inputParamsNega}) {
        if (*map) {
            for (const auto &entry : **map)
                params.push_back(entry.second);
        }
    }
    return params;
}

const LossDeclaration *PipelineDeclaration::loss(const std::string &task) const
{
    for (const auto &l : losses) {
        if (l.task == task)
            return &l;
    }
    return nullptr;
}

int PipelineDeclaration::findUnit(const std::string &unitName) const
{
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units[i].name == unitName)
            return static_cast<int>(i);
    }
    return -1;
}

std::vector<std::string> builtinPipelineNames()
{
    return {tinyQwenImageDeclaration().name};
}

const PipelineDeclaration *findPipelineDeclaration(const std::string &name)
{
    const PipelineDeclaration &tiny = tinyQwenImageDeclaration();
    return name == tiny.name ? &tiny : nullptr;
}

Pipeline describePipeline(const PipelineDeclaration &declaration, const std::string &lossTask)
{
    Pipeline pipeline;
    pipeline.name = declaration.name;
    pipeline.source = declaration.source;
    for (const auto &m : declaration.models) {
        ModelSpec spec;
        spec.name = m;
        pipeline.models.push_back(spec);
    }
    for (const UnitDeclaration &d : declaration.units) {
        Unit unit;
        unit.name = d.name;
        unit.inputParams = d.inputParams;
        unit.inputParamsPosi = d.inputParamsPosi;
        unit.inputParamsNega = d.inputParamsNega;
        unit.outputParams = d.outputParams;
        if (!d.models.empty())
            unit.onloadModelNames = d.models;
        unit.seperateCfg = d.seperateCfg;
        unit.takeOver = false;
        unit.stochastic = d.stochastic;
        if (!d.doc.empty())
            unit.doc = d.doc;
        pipeline.units.push_back(std::move(unit));
    }
    if (const LossDeclaration *loss = declaration.loss(lossTask)) {
        LossSpec spec;
        spec.name = loss->name;
        std::vector<std::string> inputs = loss->inputParams;
        std::sort(inputs.begin(), inputs.end());
        spec.inputParams = inputs;
        pipeline.loss = spec;
    }
    pipeline.training = declaration.training;
    if (!declaration.alternativeTraining.empty())
        pipeline.alternativeTraining = declaration.alternativeTraining;
    return pipeline;
}

std::string builtinPipelineJson(const std::string &name, const std::string &lossTask)
{
    const PipelineDeclaration *declaration = findPipelineDeclaration(name);
    if (!declaration || !declaration->loss(lossTask))
        return {};
    return serializePipeline(describePipeline(*declaration, lossTask));
}

} // namespace splitscope::engine
