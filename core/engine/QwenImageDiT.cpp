// SPDX-License-Identifier: MIT
#include "QwenImageDiT.h"

#include "GradientCheckpoint.h"

#include <cmath>

namespace splitscope::engine {

namespace F = torch::nn::functional;

namespace {

// Sinusoidal embedding width of the timestep (Qwen-Image's Timesteps(256)).
constexpr std::int64_t kTimestepChannels = 256;
// Row offset that puts the edit image's tokens on a second "frame" of positions.
constexpr double kEditFrameOffset = 1000.0;

torch::Tensor sinusoid(const torch::Tensor &positions, std::int64_t dim)
{
    const std::int64_t half = dim / 2;
    const torch::Tensor frequencies = torch::exp(-std::log(10000.0) * torch::arange(half, torch::kFloat64) / static_cast<double>(half));
    const torch::Tensor angles = positions.to(torch::kFloat64).unsqueeze(-1) * frequencies;
    return torch::cat({angles.cos(), angles.sin()}, -1).to(torch::kFloat32);
}

// [rows * cols, dim]: half the channels for the row, half for the column.
torch::Tensor gridPositions(std::int64_t rows, std::int64_t cols, double rowOffset, std::int64_t dim)
{
    const torch::Tensor r = torch::arange(rows, torch::kFloat64).unsqueeze(1).expand({rows, cols}).reshape({-1}) + rowOffset;
    const torch::Tensor c = torch::arange(cols, torch::kFloat64).unsqueeze(0).expand({rows, cols}).reshape({-1});
    return torch::cat({sinusoid(r, dim / 2), sinusoid(c, dim / 2)}, -1);
}

// [1, C, h, w] -> [1, (h/p)(w/p), C p p]
torch::Tensor pack(const torch::Tensor &x, std::int64_t p)
{
    const std::int64_t c = x.size(1);
    const std::int64_t h = x.size(2) / p;
    const std::int64_t w = x.size(3) / p;
    return x.view({1, c, h, p, w, p}).permute({0, 2, 4, 1, 3, 5}).reshape({1, h * w, c * p * p});
}

torch::Tensor unpack(const torch::Tensor &tokens, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t p)
{
    return tokens.view({1, h / p, w / p, c, p, p}).permute({0, 3, 1, 4, 2, 5}).reshape({1, c, h, w});
}

class GeluProjImpl : public torch::nn::Module {
public:
    GeluProjImpl(std::int64_t in, std::int64_t out) { proj = register_module("proj", LoraLinear(in, out, true)); }
    torch::Tensor forward(const torch::Tensor &x) { return F::gelu(proj(x), F::GELUFuncOptions().approximate("tanh")); }
    LoraLinear proj{nullptr};
};
TORCH_MODULE(GeluProj);

// "img_mlp.net.0.proj" (GELU projection), "net.1" (dropout, a no-op), "net.2" (linear).
class FeedForwardImpl : public torch::nn::Module {
public:
    FeedForwardImpl(std::int64_t dim, std::int64_t hidden)
    {
        net = register_module("net", torch::nn::Sequential(GeluProj(dim, hidden), torch::nn::Dropout(0.0), LoraLinear(hidden, dim, true)));
    }
    torch::Tensor forward(const torch::Tensor &x) { return net->forward(x); }
    torch::nn::Sequential net{nullptr};
};
TORCH_MODULE(FeedForward);

class JointAttentionImpl : public torch::nn::Module {
public:
    JointAttentionImpl(std::int64_t dim, std::int64_t heads, std::int64_t headDim)
        : m_heads(heads)
        , m_headDim(headDim)
    {
        to_q = register_module("to_q", LoraLinear(dim, dim, true));
        to_k = register_module("to_k", LoraLinear(dim, dim, true));
        to_v = register_module("to_v", LoraLinear(dim, dim, true));
        add_q_proj = register_module("add_q_proj", LoraLinear(dim, dim, true));
        add_k_proj = register_module("add_k_proj", LoraLinear(dim, dim, true));
        add_v_proj = register_module("add_v_proj", LoraLinear(dim, dim, true));
        norm_q = register_module("norm_q", RmsNorm(headDim, 1e-6));
        norm_k = register_module("norm_k", RmsNorm(headDim, 1e-6));
        norm_added_q = register_module("norm_added_q", RmsNorm(headDim, 1e-6));
        norm_added_k = register_module("norm_added_k", RmsNorm(headDim, 1e-6));
        to_out = register_module("to_out", torch::nn::Sequential(LoraLinear(dim, dim, true), torch::nn::Dropout(0.0)));
        to_add_out = register_module("to_add_out", LoraLinear(dim, dim, true));
    }

    // Joint attention over [text; image]; returns {image out, text out}.
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor &img, const torch::Tensor &txt, const torch::Tensor &keyBias)
    {
        const std::int64_t n = img.size(1);
        const std::int64_t l = txt.size(1);
        auto heads = [&](const torch::Tensor &t, std::int64_t s) { return t.view({1, s, m_heads, m_headDim}).transpose(1, 2); };
        const torch::Tensor q = torch::cat({norm_added_q(heads(add_q_proj(txt), l)), norm_q(heads(to_q(img), n))}, 2);
        const torch::Tensor k = torch::cat({norm_added_k(heads(add_k_proj(txt), l)), norm_k(heads(to_k(img), n))}, 2);
        const torch::Tensor v = torch::cat({heads(add_v_proj(txt), l), heads(to_v(img), n)}, 2);
        const torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(m_headDim)) + keyBias;
        const torch::Tensor out = torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({1, l + n, m_heads * m_headDim});
        return {to_out->forward(out.narrow(1, l, n)), to_add_out(out.narrow(1, 0, l))};
    }

    LoraLinear to_q{nullptr}, to_k{nullptr}, to_v{nullptr}, add_q_proj{nullptr}, add_k_proj{nullptr}, add_v_proj{nullptr};
    RmsNorm norm_q{nullptr}, norm_k{nullptr}, norm_added_q{nullptr}, norm_added_k{nullptr};
    torch::nn::Sequential to_out{nullptr};
    LoraLinear to_add_out{nullptr};

private:
    std::int64_t m_heads;
    std::int64_t m_headDim;
};
TORCH_MODULE(JointAttention);

class TransformerBlockImpl : public torch::nn::Module, public CheckpointBody {
public:
    explicit TransformerBlockImpl(const DitConfig &c)
    {
        const std::int64_t dim = c.innerDim();
        img_mod = register_module("img_mod", torch::nn::Sequential(torch::nn::SiLU(), LoraLinear(dim, 6 * dim, true)));
        txt_mod = register_module("txt_mod", torch::nn::Sequential(torch::nn::SiLU(), LoraLinear(dim, 6 * dim, true)));
        attn = register_module("attn", JointAttention(dim, c.numHeads, c.headDim));
        img_mlp = register_module("img_mlp", FeedForward(dim, dim * c.mlpRatio));
        txt_mlp = register_module("txt_mlp", FeedForward(dim, dim * c.mlpRatio));
        m_norm = torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).elementwise_affine(false).eps(1e-6));
    }

    // inputs: {img, txt, temb, keyBias} -> {img, txt}
    torch::autograd::variable_list run(const torch::autograd::variable_list &inputs) override
    {
        torch::Tensor img = inputs[0];
        torch::Tensor txt = inputs[1];
        const torch::Tensor &temb = inputs[2];
        const torch::Tensor &keyBias = inputs[3];
        const auto imgMod = img_mod->forward(temb).unsqueeze(1).chunk(6, -1);
        const auto txtMod = txt_mod->forward(temb).unsqueeze(1).chunk(6, -1);
        // chunks: shift, scale, gate for attention, then for the MLP
        const torch::Tensor imgIn = m_norm(img) * (1 + imgMod[1]) + imgMod[0];
        const torch::Tensor txtIn = m_norm(txt) * (1 + txtMod[1]) + txtMod[0];
        const auto [imgAttn, txtAttn] = attn->forward(imgIn, txtIn, keyBias);
        img = img + imgMod[2] * imgAttn;
        txt = txt + txtMod[2] * txtAttn;
        img = img + imgMod[5] * img_mlp(m_norm(img) * (1 + imgMod[4]) + imgMod[3]);
        txt = txt + txtMod[5] * txt_mlp(m_norm(txt) * (1 + txtMod[4]) + txtMod[3]);
        return {img, txt};
    }

    torch::nn::Sequential img_mod{nullptr}, txt_mod{nullptr};
    JointAttention attn{nullptr};
    FeedForward img_mlp{nullptr}, txt_mlp{nullptr};

private:
    torch::nn::LayerNorm m_norm{nullptr}; // no parameters; not registered
};
TORCH_MODULE(TransformerBlock);

class NamedGroupImpl : public torch::nn::Module {
};
TORCH_MODULE(NamedGroup);

} // namespace

QwenImageDiTImpl::QwenImageDiTImpl(const DitConfig &config)
    : m_config(config)
{
    const std::int64_t dim = config.innerDim();
    m_imgIn = register_module("img_in", LoraLinear(config.inChannels(), dim, true));
    m_txtNorm = register_module("txt_norm", RmsNorm(config.jointAttentionDim, 1e-6));
    m_txtIn = register_module("txt_in", LoraLinear(config.jointAttentionDim, dim, true));
    auto timeTextEmbed = NamedGroup();
    auto timestepEmbedder = NamedGroup();
    m_timeLinear1 = timestepEmbedder->register_module("linear_1", LoraLinear(kTimestepChannels, dim, true));
    m_timeLinear2 = timestepEmbedder->register_module("linear_2", LoraLinear(dim, dim, true));
    timeTextEmbed->register_module("timestep_embedder", timestepEmbedder.ptr());
    register_module("time_text_embed", timeTextEmbed.ptr());
    m_blocks = register_module("transformer_blocks", torch::nn::ModuleList());
    for (int i = 0; i < config.numLayers; ++i)
        m_blocks->push_back(TransformerBlock(config));
    auto normOut = NamedGroup();
    m_normOut = normOut->register_module("linear", LoraLinear(dim, 2 * dim, true));
    register_module("norm_out", normOut.ptr());
    m_projOut = register_module("proj_out", LoraLinear(dim, config.inChannels(), true));
}

void QwenImageDiTImpl::resetParameters(torch::Generator &generator)
{
    for (auto &module : modules(/*include_self=*/false)) {
        if (auto *linear = module->as<LoraLinearImpl>())
            linear->resetParameters(generator);
    }
}

torch::Tensor QwenImageDiTImpl::forward(const torch::Tensor &latents, const torch::Tensor &timestep,
    const torch::Tensor &promptEmb, const torch::Tensor &promptMask, const torch::Tensor &editLatents, bool checkpointing)
{
    const std::int64_t p = m_config.patchSize;
    const std::int64_t dim = m_config.innerDim();
    const std::int64_t c = latents.size(1);
    const std::int64_t h = latents.size(2);
    const std::int64_t w = latents.size(3);

    torch::Tensor img = m_imgIn(pack(latents, p)) + gridPositions(h / p, w / p, 0.0, dim).unsqueeze(0);
    const std::int64_t imageTokens = img.size(1);
    if (editLatents.defined()) {
        const torch::Tensor edit = m_imgIn(pack(editLatents, p))
            + gridPositions(editLatents.size(2) / p, editLatents.size(3) / p, kEditFrameOffset, dim).unsqueeze(0);
        img = torch::cat({img, edit}, 1);
    }
    torch::Tensor txt = m_txtIn(m_txtNorm(promptEmb));
    const torch::Tensor temb = m_timeLinear2(F::silu(m_timeLinear1(sinusoid(timestep, kTimestepChannels))));

    // Padding text tokens are never attended to; image tokens always are.
    const torch::Tensor keyMask = torch::cat({promptMask.to(torch::kBool), torch::ones({1, img.size(1)}, torch::kBool)}, 1);
    const torch::Tensor keyBias = torch::zeros(keyMask.sizes()).masked_fill(keyMask.logical_not(), -1e9).view({1, 1, 1, -1});

    for (const auto &module : *m_blocks) {
        auto *block = module->as<TransformerBlockImpl>();
        const torch::autograd::variable_list inputs = {img, txt, temb, keyBias};
        torch::autograd::variable_list outputs;
        if (checkpointing && torch::GradMode::is_enabled()) {
            std::vector<torch::Tensor> trainable;
            for (const auto &parameter : block->parameters()) {
                if (parameter.requires_grad())
                    trainable.push_back(parameter);
            }
            outputs = checkpointedRun(*block, inputs, trainable);
        } else {
            outputs = block->run(inputs);
        }
        img = outputs[0];
        txt = outputs[1];
    }
    const auto scaleShift = m_normOut(F::silu(temb)).unsqueeze(1).chunk(2, -1);
    const torch::Tensor normalized = F::layer_norm(img, F::LayerNormFuncOptions({dim}).eps(1e-6)) * (1 + scaleShift[0]) + scaleShift[1];
    const torch::Tensor out = m_projOut(normalized.narrow(1, 0, imageTokens));
    return unpack(out, c, h, w, p);
}

} // namespace splitscope::engine
