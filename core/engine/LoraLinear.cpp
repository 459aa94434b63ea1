// SPDX-License-Identifier: MIT
#include "LoraLinear.h"

#include <cmath>

namespace splitscope::engine {

namespace {

// Holds one LoRA factor as a parameter named "weight", so that the full name reads
// "<layer>.lora_A.default.weight" like PEFT's.
class LoraFactorImpl : public torch::nn::Module {
public:
    explicit LoraFactorImpl(torch::Tensor value) { weight = register_parameter("weight", std::move(value)); }
    torch::Tensor weight;
};
TORCH_MODULE(LoraFactor);

} // namespace

LoraLinearImpl::LoraLinearImpl(std::int64_t in, std::int64_t out, bool withBias)
    : m_in(in)
    , m_out(out)
{
    weight = register_parameter("weight", torch::zeros({out, in}));
    if (withBias)
        bias = register_parameter("bias", torch::zeros({out}));
}

void LoraLinearImpl::resetParameters(torch::Generator &generator)
{
    torch::NoGradGuard noGrad;
    const double bound = 1.0 / std::sqrt(static_cast<double>(m_in));
    weight.copy_(torch::rand({m_out, m_in}, generator) * (2 * bound) - bound);
    if (bias.defined())
        bias.copy_(torch::rand({m_out}, generator) * (2 * bound) - bound);
}

void LoraLinearImpl::enableLora(std::int64_t rank, double alpha, std::uint64_t seed)
{
    auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    // kaiming_uniform_(a=sqrt(5)) on an (r, in) matrix: bound = 1 / sqrt(in).
    const double bound = 1.0 / std::sqrt(static_cast<double>(m_in));
    torch::Tensor a = torch::rand({rank, m_in}, generator) * (2 * bound) - bound;
    auto holderA = torch::nn::ModuleDict();
    auto holderB = torch::nn::ModuleDict();
    auto factorA = LoraFactor(a);
    auto factorB = LoraFactor(torch::zeros({m_out, rank}));
    holderA->update({{"default", factorA.ptr()}});
    holderB->update({{"default", factorB.ptr()}});
    register_module("lora_A", holderA);
    register_module("lora_B", holderB);
    m_loraA = factorA->weight;
    m_loraB = factorB->weight;
    m_scale = alpha / static_cast<double>(rank);
}

torch::Tensor LoraLinearImpl::forward(const torch::Tensor &x)
{
    torch::Tensor y = torch::nn::functional::linear(x, weight, bias);
    if (m_loraA.defined())
        y = y + torch::nn::functional::linear(torch::nn::functional::linear(x, m_loraA), m_loraB) * m_scale;
    return y;
}

} // namespace splitscope::engine
