// SPDX-License-Identifier: MIT
#pragma once

#include "TorchPch.h"

namespace splitscope::engine {

// A piece of a forward pass that can be recomputed (a DiT block).
class CheckpointBody {
public:
    virtual ~CheckpointBody() = default;
    virtual torch::autograd::variable_list run(const torch::autograd::variable_list &inputs) = 0;
};

// Gradient checkpointing (LoRA-friendly; LibTorch's C++ API has none): runs `body`
// without keeping its activations, and in the backward pass runs it again with
// gradients on and differentiates that. `parameters` are the body's parameters that
// need gradients: they are inputs of the checkpoint node, so the node takes part in
// the graph even when no input tensor needs a gradient (frozen base, LoRA adapters
// inside), and their gradients reach .grad exactly once, as in an ordinary pass.
// Gradients equal an ordinary pass's up to the order in which the autograd engine
// sums contributions to a tensor used several times (a max abs difference of about
// 1e-6 in the weights after an epoch here); runs with the same setting are exactly
// reproducible. `body` must outlive the backward pass.
torch::autograd::variable_list checkpointedRun(CheckpointBody &body, const torch::autograd::variable_list &inputs,
    const std::vector<torch::Tensor> &parameters);

} // namespace splitscope::engine
