// SPDX-License-Identifier: MIT
#include "Losses.h"

#include "FlowMatchScheduler.h"
#include "ModelSet.h"
#include "SeedSequence.h"
#include "UnitRuntime.h"

namespace splitscope::engine {

namespace {

// The DiT call shared by both losses (DiffSynth's model_fn for Qwen-Image).
torch::Tensor modelFn(UnitIO &io, const RunContext &context, const torch::Tensor &latents, double timestep)
{
    QwenImageDiTImpl &dit = io.dit();
    const torch::Tensor t = torch::tensor({static_cast<float>(timestep)});
    return dit.forward(latents, t, io.tensor("prompt_emb"), io.tensor("prompt_emb_mask"), io.optionalTensor("edit_latents"),
        context.checkpointing);
}

void checkLatentShape(UnitIO &io, const torch::Tensor &latents)
{
    const std::int64_t height = io.integer("height");
    const std::int64_t width = io.integer("width");
    const int factor = io.modelSet().vaeConfig(io.owner()).downsampleFactor();
    if (latents.dim() != 4 || latents.size(2) * factor != height || latents.size(3) * factor != width) {
        throw EngineError(io.owner() + ": latents of shape " + c10::str(latents.sizes()) + " do not match height "
            + std::to_string(height) + " and width " + std::to_string(width));
    }
}

} // namespace

void flowMatchSftLoss(RunContext &context, UnitIO &io)
{
    const torch::Tensor x0 = io.tensor("input_latents");
    checkLatentShape(io, x0);
    const FlowMatchScheduler &scheduler = *context.trainingScheduler;
    auto generator = at::make_generator<at::CPUGeneratorImpl>(
        deriveSeed(context.seed, context.epoch, context.sampleIndex, RandomPurpose::LossDraw));
    // max/min_timestep_boundary are 1 and 0: any of the training timesteps.
    const int index = static_cast<int>(torch::randint(scheduler.steps(), {1}, generator).item<std::int64_t>());
    const torch::Tensor noise = torch::randn(x0.sizes(), generator);
    const double sigma = scheduler.sigma(index);
    const torch::Tensor noisy = x0 * (1.0 - sigma) + noise * sigma;
    const torch::Tensor target = noise - x0;
    const torch::Tensor prediction = modelFn(io, context, noisy, scheduler.timestep(index));
    context.loss = torch::mse_loss(prediction, target) * scheduler.trainingWeight(index);
}

void directDistillLoss(RunContext &context, UnitIO &io)
{
    const torch::Tensor x0 = io.tensor("input_latents");
    checkLatentShape(io, x0);
    const std::int64_t steps = io.integer("num_inference_steps");
    if (steps < 1 || steps > 1000)
        throw EngineError(io.owner() + ": num_inference_steps must be in 1..1000, not " + std::to_string(steps));
    const FlowMatchScheduler scheduler(static_cast<int>(steps));
    torch::Tensor latents = io.tensor("latents");
    for (int i = 0; i < scheduler.steps(); ++i) {
        const torch::Tensor velocity = modelFn(io, context, latents, scheduler.timestep(i));
        latents = latents + velocity * (scheduler.nextSigma(i) - scheduler.sigma(i));
    }
    context.loss = torch::mse_loss(latents, x0);
}

} // namespace splitscope::engine
