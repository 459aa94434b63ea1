// SPDX-License-Identifier: MIT
#pragma once

#include "TinyQwenImage.h"
#include "UnitRuntime.h"

#include <functional>
#include <vector>

namespace splitscope::engine {

// Runs a pipeline's units (a stage's share of them, in pipeline order) and its loss
// over one sample's param dict, each through a UnitIO that holds it to its
// declaration. The split decides which units a stage runs; the runner only runs them.
class Runner {
public:
    Runner(const PipelineDeclaration &pipeline, const LossDeclaration &loss, ModelSet &models);

    // `onUnit(index)` is called before each unit runs.
    void runUnits(const std::vector<int> &units, ValueMap &values, RunContext &context,
        const std::function<void(int)> &onUnit = {}) const;
    torch::Tensor runLoss(ValueMap &values, RunContext &context) const;

private:
    const PipelineDeclaration &m_pipeline;
    const LossDeclaration &m_loss;
    ModelSet &m_models;
};

} // namespace splitscope::engine
