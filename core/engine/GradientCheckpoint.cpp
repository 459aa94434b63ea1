// SPDX-License-Identifier: MIT
#include "GradientCheckpoint.h"

namespace splitscope::engine {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
public:
    // `tensors` must be a TensorList (not a std::vector): only then does autograd see
    // its elements as inputs of the node.
    static variable_list forward(AutogradContext *context, CheckpointBody *body, std::int64_t inputCount,
        at::TensorList tensors)
    {
        // The body is not a tensor; its address travels in the context's saved data.
        context->saved_data["body"] = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(body));
        context->saved_data["inputs"] = inputCount;
        context->save_for_backward(tensors.vec());
        // Autograd is off inside forward: no activation is kept.
        return body->run(variable_list(tensors.begin(), tensors.begin() + inputCount));
    }

    static variable_list backward(AutogradContext *context, variable_list gradOutputs)
    {
        auto *body = reinterpret_cast<CheckpointBody *>(static_cast<std::intptr_t>(context->saved_data["body"].toInt()));
        const auto inputCount = static_cast<std::size_t>(context->saved_data["inputs"].toInt());
        const variable_list saved = context->get_saved_variables();
        variable_list inputs;
        for (std::size_t i = 0; i < inputCount; ++i)
            inputs.push_back(saved[i].detach().requires_grad_(saved[i].requires_grad()));
        variable_list outputs;
        {
            torch::AutoGradMode enable(true);
            outputs = body->run(inputs);
        }
        variable_list roots;
        variable_list rootGrads;
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            if (outputs[i].requires_grad() && gradOutputs[i].defined()) {
                roots.push_back(outputs[i]);
                rootGrads.push_back(gradOutputs[i]);
            }
        }
        // Gradients for every saved tensor that needs one: the inputs' copies and
        // the parameters themselves (returned, not accumulated here).
        variable_list targets;
        std::vector<std::size_t> targetIndex;
        for (std::size_t i = 0; i < saved.size(); ++i) {
            const torch::Tensor &t = i < inputCount ? inputs[i] : saved[i];
            if (t.requires_grad()) {
                targets.push_back(t);
                targetIndex.push_back(i);
            }
        }
        variable_list result(saved.size() + 2); // + the body pointer and the input count
        if (!roots.empty() && !targets.empty()) {
            const variable_list grads = torch::autograd::grad(roots, targets, rootGrads, /*retain_graph=*/false,
                /*create_graph=*/false, /*allow_unused=*/true);
            for (std::size_t k = 0; k < targets.size(); ++k)
                result[targetIndex[k] + 2] = grads[k];
        }
        return result;
    }
};

} // namespace

variable_list checkpointedRun(CheckpointBody &body, const variable_list &inputs, const std::vector<torch::Tensor> &parameters)
{
    variable_list tensors = inputs;
    tensors.insert(tensors.end(), parameters.begin(), parameters.end());
    return CheckpointFunction::apply(&body, static_cast<std::int64_t>(inputs.size()), at::TensorList(tensors));
}

} // namespace splitscope::engine
