// SPDX-License-Identifier: MIT
#pragma once

#include "TorchPch.h"

#include <cstdint>

namespace splitscope::engine {

// A linear layer (parameters "weight" and "bias", as torch.nn.Linear) that can carry
// a LoRA adapter the way PEFT injects one: y = W x + b + (alpha / r) B A x, with A
// ("lora_A.default.weight", r x in) drawn like PEFT's kaiming-uniform and B
// ("lora_B.default.weight", out x r) zero, so the adapter starts as a no-op. Those
// are the parameter names DiffSynth saves.
class LoraLinearImpl : public torch::nn::Module {
public:
    LoraLinearImpl(std::int64_t in, std::int64_t out, bool bias = true);
    torch::Tensor forward(const torch::Tensor &x);

    // Adds the adapter; A is drawn from a generator seeded with `seed`.
    void enableLora(std::int64_t rank, double alpha, std::uint64_t seed);
    // Reinitializes W and b uniformly in +-1/sqrt(in) (torch.nn.Linear's bound).
    void resetParameters(torch::Generator &generator);

    torch::Tensor weight;
    torch::Tensor bias;

private:
    std::int64_t m_in;
    std::int64_t m_out;
    torch::Tensor m_loraA;
    torch::Tensor m_loraB;
    double m_scale = 1.0;
};
TORCH_MODULE(LoraLinear);

} // namespace splitscope::engine
