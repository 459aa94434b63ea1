// SPDX-License-Identifier: MIT
#pragma once

#include "ModelConfig.h"

#include <cstdint>
#include <optional>
#include <string>

namespace splitscope::engine {

// What a training step (or a stage-one sample) at one image size needs in memory, at
// its peak, for the whole process: a simple, deliberately high estimate, so that a
// size that cannot fit is refused before any work instead of ending in the kernel's
// OOM killer (or LibTorch's "can't allocate memory") hours later.
//
// Calibrated on the README's default models with one thread (peak RSS after one step,
// MiB, at 256/512/768/1024 square): one-stage 340/611/1097/1775, stage one
// 319/594/1079/1755, stage two 215/388/696/1534. The terms:
// * the stage-one models on the image (VAE encoder at full resolution, the text
//   encoder): 25 bytes per pixel per VAE base channel (1600 B/pixel at 64);
// * the DiT trained on T = (pixels / (VAE factor x patch)^2) + prompt tokens: its
//   attention scores, heads x T^2 floats, of which each layer keeps two for the
//   backward pass and one more is in flight; and 256 bytes per token per inner
//   dimension per layer for the other activations;
// * 150 MiB for LibTorch and the program, plus twice the weight bytes of the models
//   loaded (weights and what training keeps beside them).
// Gradient checkpointing needs less than this; the estimate does not count on it.
struct StepMemory {
    bool stageOneModels = false; // the text encoder and VAE run on the image (one-stage, stage one)
    bool trainsDit = false;      // the DiT trains (one-stage, stage two)
    TextEncoderConfig textEncoder;
    VaeConfig vae;
    DitConfig dit;
    std::uint64_t modelBytes = 0; // weight bytes of the models the stage loads
};
std::uint64_t estimateStepBytes(const StepMemory &what, int width, int height);

// The memory this process may still use, in all (what it holds now counts as
// usable): the smallest of MemAvailable (/proc/meminfo) plus its resident memory,
// the cgroup's memory.max less what the cgroup uses, plus the same, and RLIMIT_AS
// (ulimit -v) less the address space the process holds beyond its resident memory.
// `what` says which limit it is. Nothing when none can be read.
struct MemoryLimit {
    std::uint64_t bytes = 0;
    std::string what; // "available memory (MemAvailable)", "the address-space limit (ulimit -v)", ...
};
std::optional<MemoryLimit> memoryLimit();

// "1.5 GiB", "340 MiB".
std::string memoryText(std::uint64_t bytes);

// True when an exception's message is an allocation that failed (LibTorch's CPU
// allocator, std::bad_alloc).
bool isAllocationFailure(const std::string &message);

} // namespace splitscope::engine
