// SPDX-License-Identifier: MIT
#pragma once

#include "LoraLinear.h"
#include "ModelConfig.h"
#include "RmsNorm.h"
#include "TorchPch.h"

namespace splitscope::engine {

// The tiny text encoder, shaped like Qwen2.5-VL's language model (which encodes
// Qwen-Image's prompts): token embeddings, pre-norm decoder layers with rotary
// causal self-attention and a SwiGLU MLP, a final RMSNorm. Parameter names follow
// transformers' (`model.layers.0.self_attn.q_proj.weight`). An edit image, when
// given, is cut into patches (`visual.patch_embed.proj`, `visual.merger`) that
// enter the sequence before the prompt between <|vision_start|> and <|vision_end|>,
// as Qwen-Image-Edit's prompt encoding does.
class TextEncoderImpl : public torch::nn::Module {
public:
    TextEncoderImpl(const TextEncoderConfig &config, std::int64_t visionStartId, std::int64_t visionEndId);

    struct Output {
        torch::Tensor hidden; // [1, S, hidden]
        torch::Tensor mask;   // [1, S] int64, 1 = real token
    };
    // ids, mask: [1, L] int64. image: [1, 3, H, W] in [-1, 1], or undefined.
    Output forward(const torch::Tensor &ids, const torch::Tensor &mask, const torch::Tensor &image);

    const TextEncoderConfig &config() const { return m_config; }
    void resetParameters(torch::Generator &generator);

private:
    TextEncoderConfig m_config;
    std::int64_t m_visionStartId;
    std::int64_t m_visionEndId;
    std::shared_ptr<torch::nn::Module> m_model;  // "model"
    std::shared_ptr<torch::nn::Module> m_visual; // "visual"
    torch::nn::Embedding m_embedTokens{nullptr};
    torch::nn::ModuleList m_layers{nullptr};
    RmsNorm m_norm{nullptr};
    torch::nn::Conv2d m_patchEmbed{nullptr};
    LoraLinear m_merger{nullptr};
};
TORCH_MODULE(TextEncoder);

} // namespace splitscope::engine
