// SPDX-License-Identifier: MIT
#pragma once

#include "LoraLinear.h"
#include "ModelConfig.h"
#include "RmsNorm.h"
#include "TorchPch.h"

namespace splitscope::engine {

// The tiny DiT, a dual-stream MMDiT like Qwen-Image's transformer, with its module
// names: `img_in`, `txt_norm`, `txt_in`, `time_text_embed.timestep_embedder.
// linear_1/2`, `transformer_blocks.N.{img_mod.1, attn.{to_q, to_k, to_v, add_q_proj,
// add_k_proj, add_v_proj, norm_q, norm_k, norm_added_q, norm_added_k, to_out.0,
// to_add_out}, img_mlp.net.0.proj, img_mlp.net.2, txt_mod.1, txt_mlp...}`,
// `norm_out.linear`, `proj_out`. So the seed document's `--lora_target_modules`
// string works unchanged. Image tokens are 2x2 latent patches with fixed 2-D
// sin-cos positions; edit-image latents, when given, join the image stream as a
// second frame (Qwen-Image-Edit's arrangement) and are dropped from the output.
class QwenImageDiTImpl : public torch::nn::Module {
public:
    explicit QwenImageDiTImpl(const DitConfig &config);

    // latents [1, C, h, w]; timestep [1] in 0..1000; promptEmb [1, L, jointAttentionDim];
    // promptMask [1, L]; editLatents [1, C, h', w'] or undefined. Returns the
    // predicted velocity [1, C, h, w]. With `checkpointing`, each block's
    // activations are recomputed in the backward pass instead of kept.
    torch::Tensor forward(const torch::Tensor &latents, const torch::Tensor &timestep, const torch::Tensor &promptEmb,
        const torch::Tensor &promptMask, const torch::Tensor &editLatents, bool checkpointing);

    const DitConfig &config() const { return m_config; }
    void resetParameters(torch::Generator &generator);

private:
    DitConfig m_config;
    LoraLinear m_imgIn{nullptr};
    RmsNorm m_txtNorm{nullptr};
    LoraLinear m_txtIn{nullptr};
    LoraLinear m_timeLinear1{nullptr};
    LoraLinear m_timeLinear2{nullptr};
    torch::nn::ModuleList m_blocks{nullptr};
    LoraLinear m_normOut{nullptr};
    LoraLinear m_projOut{nullptr};
};
TORCH_MODULE(QwenImageDiT);

} // namespace splitscope::engine
