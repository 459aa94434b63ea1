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
// Calibrated on the default models (docs/engine.md) with one thread, LoRA rank 32 on the DiT,
// on the peak RSS of whole runs: 4 samples, 2 epochs (8 steps; stage one: the 4
// samples), as the engine runs them (2 malloc arenas). A single step is not enough:
// from the second step on, the optimizer's state and the allocator's pools take more
// (at 512x512 one-stage, 611 MiB after one step, 857 MiB after eight). Peak / estimate,
// MiB, at 256/512/1024 square: one-stage 444/563, 857/1005, 2263/2421; stage one
// 389/523, 660/965, 1867/2165; stage two 250/315, 412/577, 1671/2259. With edit images
// (training image / edit image as stored: 256/256, 256/512, 512/512, 256/1024):
// one-stage 525/659, 599/989, 1185/1729, 2092/2829; stage one 432/619, 430/619,
// 694/1029, 1712/2127; stage two 368/475, 490/827, 1058/1567, 1964/2667. Training the
// whole text encoder (--trainable_models text_encoder, with --split_mode safe for the
// two stages) at 256/512: one-stage 757/990, 1054/1432 (782/990 with the LoRA too,
// 961/1151 with a 256 edit image), stage one 410/438, 678/880 (426/534 with the edit
// image), stage two 738/990, 855/1432 (972/1064). The estimate is 7-69 % above each
// of these (7-68 % of those with the whole text encoder trained). The terms:
// * the stage-one models on the image (VAE encoder at full resolution, the text
//   encoder): 25 bytes per pixel per VAE base channel (1600 B/pixel at 64), and 64 MiB
//   more when the VAE encodes an edit image too (the second encode leaves freed blocks
//   of the first unused: 32 MiB measured at 256x256); the text encoder, frozen, on S =
//   max_length prompt tokens + the edit image's patches (at its stored size: the
//   prompt embedder reads it before it is resized) + 2 markers: four of its attention
//   scores at a time, heads x S^2 floats each. Those run one after another, under
//   no-grad or on frozen weights, so the largest counts;
// * the DiT trained on T = image tokens (pixels / (VAE factor x patch)^2) + the edit
//   image's as many at its resized size + the text tokens (S): its attention scores,
//   heads x T^2 floats, of which each layer keeps two for the backward pass and one
//   more is in flight; and 256 bytes per token per inner dimension per layer for the
//   other activations;
// * the text encoder trained, whose activations stay beside the DiT's until the
//   backward pass: per layer one set of scores, three more in flight, and 64 bytes per
//   token per hidden dimension;
// * 180 MiB for LibTorch and the program, plus twice the weight bytes of the models
//   loaded (weights and what training keeps beside them), plus ten times the weight
//   bytes of the models trained in full (--trainable_models: gradients, the two Adam
//   moments, and their copies while the resume state is written);
// * what the allocator keeps from the second step on: half the activations above (the
//   larger of the stage-one models' and the trained models'), at most 192 MiB, and
//   32 MiB more.
// Gradient checkpointing needs less than this; the estimate does not count on it.
struct StepMemory {
    bool stageOneModels = false;    // the VAE runs on the image (one-stage, stage one)
    bool textEncoderRuns = false;   // the text encoder runs (one-stage, stage one; stage two when it trains)
    bool trainsTextEncoder = false; // its activations stay for the backward pass
    bool trainsDit = false;         // the DiT runs with gradients (one-stage, stage two)
    TextEncoderConfig textEncoder;
    VaeConfig vae;
    DitConfig dit;
    std::uint64_t modelBytes = 0;        // weight bytes of the models the stage loads
    std::uint64_t fullyTrainedBytes = 0; // of those, the weight bytes of the models trained in full
};

// The inputs of one step (or stage-one sample), in pixels.
struct StepSize {
    int width = 0; // the training image
    int height = 0;
    // The edit image (the pipeline's `edit_image`) as the text encoder reads it: as
    // stored, before it is resized; 0 when there is none.
    int editWidth = 0;
    int editHeight = 0;
    // The edit image as the VAE encodes it and the DiT reads it (resized to the
    // training size); 0 when there is none.
    int editLatentWidth = 0;
    int editLatentHeight = 0;
    // The text tokens the DiT reads (a cached prompt_emb's length); 0: the text
    // encoder's max_length, plus the edit image's patches and their 2 markers.
    std::int64_t promptTokens = 0;

    // "512x512", "512x512 with a 1024x768 edit image".
    std::string text() const;
};
std::uint64_t estimateStepBytes(const StepMemory &what, const StepSize &size);

// The memory this process may still use, in all (what it holds now counts as
// usable): the smallest of MemAvailable (/proc/meminfo) plus its resident memory,
// the cgroup's memory.max less what the cgroup uses, plus the same, and RLIMIT_AS
// (ulimit -v) less the address space the process holds beyond its resident memory
// and less what `threadsToCome`, the threads the run will start, will take beyond
// theirs (stacks and malloc arenas: threadAddressSpaceBytes, ProcessMemory.h).
// `what` says which limit it is. Nothing when none can be read.
struct MemoryLimit {
    std::uint64_t bytes = 0;
    std::string what; // "available memory (MemAvailable)", "the address-space limit (ulimit -v)", ...
};
std::optional<MemoryLimit> memoryLimit(int threadsToCome = 0);

// What an admitted step leaves spare of `limit`: 10 %, at least 64 MiB. The estimate
// is within about 5 % of the peaks measured, and the rest of the machine moves
// meanwhile; a step admitted with nothing to spare (22.7 GiB against 22.8 GiB) ends
// swapping, or killed, long after it started.
std::uint64_t memoryHeadroom(std::uint64_t limit);
// Whether a step needing `needed` bytes is admitted under `limit`, headroom kept.
bool fitsInMemory(std::uint64_t needed, std::uint64_t limit);

// "1.5 GiB", "340 MiB".
std::string memoryText(std::uint64_t bytes);

// True when an exception's message is an allocation that failed (LibTorch's CPU
// allocator, std::bad_alloc).
bool isAllocationFailure(const std::string &message);

} // namespace splitscope::engine
