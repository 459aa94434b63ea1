// SPDX-License-Identifier: MIT
#pragma once

#include "ModelConfig.h"
#include "TorchPch.h"

namespace splitscope::engine {

// The tiny VAE, laid out like diffusers' AutoencoderKL (`encoder.down_blocks.0.
// resnets.0.conv1.weight`, `quant_conv`, `decoder.up_blocks...`): the encoder maps
// an RGB image in [-1, 1] to latents with `latentChannels` channels at 1 /
// downsampleFactor() of its size (the mean of the posterior, times scalingFactor);
// the decoder maps latents back to an image (for previews).
class VaeImpl : public torch::nn::Module {
public:
    explicit VaeImpl(const VaeConfig &config);

    torch::Tensor encode(const torch::Tensor &image);   // [1, 3, H, W] -> [1, C, H/f, W/f]
    torch::Tensor decode(const torch::Tensor &latents); // [1, C, h, w] -> [1, 3, h*f, w*f]

    const VaeConfig &config() const { return m_config; }
    void resetParameters(torch::Generator &generator);

private:
    VaeConfig m_config;
    std::shared_ptr<torch::nn::Module> m_encoder;
    std::shared_ptr<torch::nn::Module> m_decoder;
    torch::nn::Conv2d m_quantConv{nullptr};
    torch::nn::Conv2d m_postQuantConv{nullptr};
};
TORCH_MODULE(Vae);

} // namespace splitscope::engine
