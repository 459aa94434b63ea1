// SPDX-License-Identifier: MIT
#include "Vae.h"

#include <cmath>

namespace splitscope::engine {

namespace F = torch::nn::functional;

namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1)
{
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2));
}

torch::nn::GroupNorm groupNorm(std::int64_t groups, std::int64_t channels)
{
    return torch::nn::GroupNorm(torch::nn::GroupNormOptions(groups, channels).eps(1e-6));
}

class ResnetBlockImpl : public torch::nn::Module {
public:
    ResnetBlockImpl(std::int64_t in, std::int64_t out, std::int64_t groups)
    {
        norm1 = register_module("norm1", groupNorm(groups, in));
        conv1 = register_module("conv1", conv(in, out, 3));
        norm2 = register_module("norm2", groupNorm(groups, out));
        conv2 = register_module("conv2", conv(out, out, 3));
        if (in != out)
            shortcut = register_module("conv_shortcut", conv(in, out, 1));
    }
    torch::Tensor forward(const torch::Tensor &x)
    {
        torch::Tensor h = conv1(F::silu(norm1(x)));
        h = conv2(F::silu(norm2(h)));
        return (shortcut ? shortcut(x) : x) + h;
    }

    torch::nn::GroupNorm norm1{nullptr}, norm2{nullptr};
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, shortcut{nullptr};
};
TORCH_MODULE(ResnetBlock);

// A level of the encoder or decoder: resnets, then an optional resampling conv
// ("downsamplers.0.conv" halves the size; "upsamplers.0.conv" follows a 2x nearest upscale).
class LevelImpl : public torch::nn::Module {
public:
    enum class Resample { None, Down, Up };
    LevelImpl(std::int64_t in, std::int64_t out, int resnetCount, std::int64_t groups, Resample resample)
        : m_resample(resample)
    {
        resnets = register_module("resnets", torch::nn::ModuleList());
        for (int i = 0; i < resnetCount; ++i)
            resnets->push_back(ResnetBlock(i == 0 ? in : out, out, groups));
        if (resample != Resample::None) {
            auto holder = torch::nn::ModuleList();
            auto sampler = std::make_shared<torch::nn::Module>();
            resampleConv = sampler->register_module("conv", conv(out, out, 3, resample == Resample::Down ? 2 : 1));
            holder->push_back(sampler);
            register_module(resample == Resample::Down ? "downsamplers" : "upsamplers", holder);
        }
    }
    torch::Tensor forward(torch::Tensor x)
    {
        for (const auto &r : *resnets)
            x = r->as<ResnetBlockImpl>()->forward(x);
        if (m_resample == Resample::Up)
            x = F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest));
        if (resampleConv)
            x = resampleConv(x);
        return x;
    }

    torch::nn::ModuleList resnets{nullptr};
    torch::nn::Conv2d resampleConv{nullptr};

private:
    Resample m_resample;
};
TORCH_MODULE(Level);

class CoderImpl : public torch::nn::Module {
public:
    // Encoder: conv_in 3 -> c0, levels down, mid, norm, conv_out -> 2 * latent.
    // Decoder: conv_in latent -> c_last, mid, levels up, norm, conv_out -> 3.
    CoderImpl(const VaeConfig &c, bool encoder)
        : m_encoder(encoder)
    {
        std::vector<std::int64_t> channels;
        for (const int m : c.channelMultipliers)
            channels.push_back(static_cast<std::int64_t>(c.baseChannels) * m);
        const std::int64_t levels = static_cast<std::int64_t>(channels.size());
        const std::int64_t top = channels.back();
        blocks = register_module(encoder ? "down_blocks" : "up_blocks", torch::nn::ModuleList());
        if (encoder) {
            conv_in = register_module("conv_in", conv(3, channels.front(), 3));
            for (std::int64_t i = 0; i < levels; ++i) {
                const std::int64_t in = i == 0 ? channels.front() : channels[i - 1];
                blocks->push_back(Level(in, channels[i], c.numResBlocks, c.groups,
                    i + 1 < levels ? LevelImpl::Resample::Down : LevelImpl::Resample::None));
            }
        } else {
            conv_in = register_module("conv_in", conv(c.latentChannels, top, 3));
            for (std::int64_t i = levels - 1; i >= 0; --i) {
                const std::int64_t in = i == levels - 1 ? top : channels[i + 1];
                blocks->push_back(Level(in, channels[i], c.numResBlocks, c.groups,
                    i > 0 ? LevelImpl::Resample::Up : LevelImpl::Resample::None));
            }
        }
        auto mid = std::make_shared<torch::nn::Module>();
        auto midResnets = torch::nn::ModuleList();
        midResnets->push_back(ResnetBlock(top, top, c.groups));
        mid->register_module("resnets", midResnets);
        midBlock = register_module("mid_block", mid);
        midResnet = midResnets[0];
        const std::int64_t last = encoder ? top : channels.front();
        conv_norm_out = register_module("conv_norm_out", groupNorm(c.groups, last));
        conv_out = register_module("conv_out", conv(last, encoder ? 2 * c.latentChannels : 3, 3));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        x = conv_in(x);
        if (!m_encoder)
            x = midResnet->as<ResnetBlockImpl>()->forward(x);
        for (const auto &b : *blocks)
            x = b->as<LevelImpl>()->forward(x);
        if (m_encoder)
            x = midResnet->as<ResnetBlockImpl>()->forward(x);
        return conv_out(F::silu(conv_norm_out(x)));
    }

    torch::nn::Conv2d conv_in{nullptr}, conv_out{nullptr};
    torch::nn::ModuleList blocks{nullptr};
    std::shared_ptr<torch::nn::Module> midBlock;
    std::shared_ptr<torch::nn::Module> midResnet;
    torch::nn::GroupNorm conv_norm_out{nullptr};

private:
    bool m_encoder;
};
TORCH_MODULE(Coder);

} // namespace

VaeImpl::VaeImpl(const VaeConfig &config)
    : m_config(config)
{
    m_encoder = register_module("encoder", Coder(config, true).ptr());
    m_quantConv = register_module("quant_conv", conv(2 * config.latentChannels, 2 * config.latentChannels, 1));
    m_postQuantConv = register_module("post_quant_conv", conv(config.latentChannels, config.latentChannels, 1));
    m_decoder = register_module("decoder", Coder(config, false).ptr());
}

void VaeImpl::resetParameters(torch::Generator &generator)
{
    torch::NoGradGuard noGrad;
    for (auto &module : modules(/*include_self=*/false)) {
        if (auto *c = module->as<torch::nn::Conv2dImpl>()) {
            const double fanIn = static_cast<double>(c->weight.size(1) * c->weight.size(2) * c->weight.size(3));
            const double bound = 1.0 / std::sqrt(fanIn);
            c->weight.copy_(torch::rand(c->weight.sizes(), generator) * (2 * bound) - bound);
            c->bias.copy_(torch::rand(c->bias.sizes(), generator) * (2 * bound) - bound);
        }
    }
}

torch::Tensor VaeImpl::encode(const torch::Tensor &image)
{
    const torch::Tensor moments = m_quantConv(m_encoder->as<CoderImpl>()->forward(image));
    // The posterior's mean: deterministic, as DiffSynth's training encodes.
    return (moments.narrow(1, 0, m_config.latentChannels) * m_config.scalingFactor).contiguous();
}

torch::Tensor VaeImpl::decode(const torch::Tensor &latents)
{
    const torch::Tensor z = m_postQuantConv(latents / m_config.scalingFactor);
    return m_decoder->as<CoderImpl>()->forward(z).clamp(-1, 1);
}

} // namespace splitscope::engine
