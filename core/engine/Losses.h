// SPDX-License-Identifier: MIT
#pragma once

namespace splitscope::engine {

class UnitIO;
struct RunContext;

// The training losses as DiffSynth defines them (diffsynth/diffusion/loss.py), over
// the tiny Qwen-Image DiT. Each sets context.loss.
//
// FlowMatchSFTLoss: a fresh timestep and noise for the step (from the generator of
// (seed, epoch, sample, LossDraw)), x_t = (1 - sigma) x0 + sigma noise, the DiT
// predicts the velocity noise - x0; MSE times the scheduler's training weight.
void flowMatchSftLoss(RunContext &context, UnitIO &io);
// DirectDistillLoss: a `num_inference_steps` sampling loop from the start latents
// (the noise NoiseInitializer drew, cached by stage one), Euler steps with the
// DiT's velocity, backpropagated through; MSE to the image latents.
void directDistillLoss(RunContext &context, UnitIO &io);

} // namespace splitscope::engine
