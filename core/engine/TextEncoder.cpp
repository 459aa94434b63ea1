// SPDX-License-Identifier: MIT
#include "TextEncoder.h"

#include <cmath>

namespace splitscope::engine {

namespace F = torch::nn::functional;

namespace {

// Rotary position embedding on [1, heads, S, headDim] (the "rotate half" form).
torch::Tensor applyRotary(const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin)
{
    const std::int64_t half = x.size(-1) / 2;
    const torch::Tensor x1 = x.narrow(-1, 0, half);
    const torch::Tensor x2 = x.narrow(-1, half, half);
    const torch::Tensor rotated = torch::cat({-x2, x1}, -1);
    return x * cos + rotated * sin;
}

class AttentionImpl : public torch::nn::Module {
public:
    AttentionImpl(std::int64_t hidden, std::int64_t heads)
        : m_heads(heads)
        , m_headDim(hidden / heads)
    {
        q_proj = register_module("q_proj", LoraLinear(hidden, hidden, true));
        k_proj = register_module("k_proj", LoraLinear(hidden, hidden, true));
        v_proj = register_module("v_proj", LoraLinear(hidden, hidden, true));
        o_proj = register_module("o_proj", LoraLinear(hidden, hidden, false));
    }

    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &bias, const torch::Tensor &cos,
        const torch::Tensor &sin)
    {
        const std::int64_t s = x.size(1);
        auto heads = [&](const torch::Tensor &t) { return t.view({1, s, m_heads, m_headDim}).transpose(1, 2); };
        const torch::Tensor q = applyRotary(heads(q_proj(x)), cos, sin);
        const torch::Tensor k = applyRotary(heads(k_proj(x)), cos, sin);
        const torch::Tensor v = heads(v_proj(x));
        const torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(m_headDim)) + bias;
        const torch::Tensor out = torch::matmul(torch::softmax(scores, -1), v);
        return o_proj(out.transpose(1, 2).reshape({1, s, m_heads * m_headDim}));
    }

    LoraLinear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};

private:
    std::int64_t m_heads;
    std::int64_t m_headDim;
};
TORCH_MODULE(Attention);

class MlpImpl : public torch::nn::Module {
public:
    MlpImpl(std::int64_t hidden, std::int64_t intermediate)
    {
        gate_proj = register_module("gate_proj", LoraLinear(hidden, intermediate, false));
        up_proj = register_module("up_proj", LoraLinear(hidden, intermediate, false));
        down_proj = register_module("down_proj", LoraLinear(intermediate, hidden, false));
    }
    torch::Tensor forward(const torch::Tensor &x) { return down_proj(F::silu(gate_proj(x)) * up_proj(x)); }

    LoraLinear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(Mlp);

class DecoderLayerImpl : public torch::nn::Module {
public:
    explicit DecoderLayerImpl(const TextEncoderConfig &c)
    {
        input_layernorm = register_module("input_layernorm", RmsNorm(c.hiddenSize, c.rmsNormEps));
        self_attn = register_module("self_attn", Attention(c.hiddenSize, c.numHeads));
        post_attention_layernorm = register_module("post_attention_layernorm", RmsNorm(c.hiddenSize, c.rmsNormEps));
        mlp = register_module("mlp", Mlp(c.hiddenSize, c.intermediateSize));
    }
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &bias, const torch::Tensor &cos,
        const torch::Tensor &sin)
    {
        const torch::Tensor h = x + self_attn(input_layernorm(x), bias, cos, sin);
        return h + mlp(post_attention_layernorm(h));
    }

    RmsNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
    Attention self_attn{nullptr};
    Mlp mlp{nullptr};
};
TORCH_MODULE(DecoderLayer);

// Plain containers that only give the parameters their transformers-style prefixes.
class NamedGroupImpl : public torch::nn::Module {
};
TORCH_MODULE(NamedGroup);

} // namespace

TextEncoderImpl::TextEncoderImpl(const TextEncoderConfig &config, std::int64_t visionStartId, std::int64_t visionEndId)
    : m_config(config)
    , m_visionStartId(visionStartId)
    , m_visionEndId(visionEndId)
{
    auto model = NamedGroup();
    m_embedTokens = model->register_module("embed_tokens", torch::nn::Embedding(config.vocabSize, config.hiddenSize));
    m_layers = torch::nn::ModuleList();
    for (int i = 0; i < config.numLayers; ++i)
        m_layers->push_back(DecoderLayer(config));
    model->register_module("layers", m_layers);
    m_norm = model->register_module("norm", RmsNorm(config.hiddenSize, config.rmsNormEps));
    m_model = register_module("model", model.ptr());

    auto visual = NamedGroup();
    auto patchEmbed = NamedGroup();
    m_patchEmbed = patchEmbed->register_module("proj",
        torch::nn::Conv2d(torch::nn::Conv2dOptions(3, config.hiddenSize, config.visionPatchSize).stride(config.visionPatchSize)));
    visual->register_module("patch_embed", patchEmbed.ptr());
    m_merger = visual->register_module("merger", LoraLinear(config.hiddenSize, config.hiddenSize, true));
    m_visual = register_module("visual", visual.ptr());
}

void TextEncoderImpl::resetParameters(torch::Generator &generator)
{
    torch::NoGradGuard noGrad;
    for (auto &module : modules(/*include_self=*/false)) {
        if (auto *linear = module->as<LoraLinearImpl>())
            linear->resetParameters(generator);
    }
    m_embedTokens->weight.copy_(torch::randn(m_embedTokens->weight.sizes(), generator));
    const double fanIn = 3.0 * m_config.visionPatchSize * m_config.visionPatchSize;
    const double bound = 1.0 / std::sqrt(fanIn);
    m_patchEmbed->weight.copy_(torch::rand(m_patchEmbed->weight.sizes(), generator) * (2 * bound) - bound);
    m_patchEmbed->bias.copy_(torch::rand(m_patchEmbed->bias.sizes(), generator) * (2 * bound) - bound);
}

TextEncoderImpl::Output TextEncoderImpl::forward(const torch::Tensor &ids, const torch::Tensor &mask, const torch::Tensor &image)
{
    torch::Tensor x = m_embedTokens(ids);
    torch::Tensor fullMask = mask;
    if (image.defined()) {
        // [1, hidden, h, w] -> [1, h*w, hidden], framed by the vision marker tokens.
        const torch::Tensor patches = m_merger(m_patchEmbed(image).flatten(2).transpose(1, 2));
        const torch::Tensor markers = m_embedTokens(torch::tensor({m_visionStartId, m_visionEndId}, torch::kInt64)).unsqueeze(0);
        x = torch::cat({markers.narrow(1, 0, 1), patches, markers.narrow(1, 1, 1), x}, 1);
        fullMask = torch::cat({torch::ones({1, patches.size(1) + 2}, torch::kInt64), mask}, 1);
    }
    const std::int64_t s = x.size(1);
    // Causal attention that also ignores padding keys.
    const torch::Tensor causal = torch::ones({s, s}, torch::kBool).tril();
    const torch::Tensor allowed = causal.unsqueeze(0) & fullMask.to(torch::kBool).unsqueeze(1);
    const torch::Tensor bias = torch::zeros({1, s, s}).masked_fill(allowed.logical_not(), -1e9).unsqueeze(1);

    const std::int64_t headDim = m_config.hiddenSize / m_config.numHeads;
    const torch::Tensor inverseFrequency = torch::pow(m_config.ropeTheta,
        -torch::arange(0, headDim, 2, torch::kFloat64) / static_cast<double>(headDim));
    const torch::Tensor angles = torch::outer(torch::arange(s, torch::kFloat64), inverseFrequency);
    const torch::Tensor both = torch::cat({angles, angles}, -1).to(torch::kFloat32);
    const torch::Tensor cos = both.cos().view({1, 1, s, headDim});
    const torch::Tensor sin = both.sin().view({1, 1, s, headDim});

    for (const auto &layer : *m_layers)
        x = layer->as<DecoderLayerImpl>()->forward(x, bias, cos, sin);
    return {m_norm(x).contiguous(), fullMask.contiguous()};
}

} // namespace splitscope::engine
