// SPDX-License-Identifier: MIT
#pragma once

#include "TorchPch.h"

namespace splitscope::engine {

// Root-mean-square normalization over the last dimension with a learned scale
// (parameter "weight"), as in Qwen2 and Qwen-Image.
class RmsNormImpl : public torch::nn::Module {
public:
    RmsNormImpl(std::int64_t dim, double eps);
    torch::Tensor forward(const torch::Tensor &x);

    torch::Tensor weight;

private:
    double m_eps;
};
TORCH_MODULE(RmsNorm);

} // namespace splitscope::engine
