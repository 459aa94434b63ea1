// SPDX-License-Identifier: MIT
#include "Runner.h"

#include "ModelSet.h"

namespace splitscope::engine {

Runner::Runner(const PipelineDeclaration &pipeline, const LossDeclaration &loss, ModelSet &models)
    : m_pipeline(pipeline)
    , m_loss(loss)
    , m_models(models)
{
}

void Runner::runUnits(const std::vector<int> &units, ValueMap &values, RunContext &context,
    const std::function<void(int)> &onUnit) const
{
    for (const int index : units) {
        const UnitDeclaration &unit = m_pipeline.units.at(static_cast<std::size_t>(index));
        if (onUnit)
            onUnit(index);
        UnitIO io(unit.name, unit.readableParams(), unit.outputParams, unit.models, values, &m_models);
        unit.process(context, io);
    }
}

torch::Tensor Runner::runLoss(ValueMap &values, RunContext &context) const
{
    UnitIO io(m_loss.name, m_loss.inputParams, {}, m_loss.models, values, &m_models);
    context.loss = torch::Tensor();
    m_loss.process(context, io);
    if (!context.loss.defined())
        throw std::logic_error(m_loss.name + " produced no loss");
    return context.loss;
}

} // namespace splitscope::engine
