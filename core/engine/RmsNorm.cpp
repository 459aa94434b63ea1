// SPDX-License-Identifier: MIT
#include "RmsNorm.h"

namespace splitscope::engine {

RmsNormImpl::RmsNormImpl(std::int64_t dim, double eps)
    : m_eps(eps)
{
    weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor &x)
{
    const torch::Tensor scale = torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + m_eps);
    return x * scale * weight;
}

} // namespace splitscope::engine
