// SPDX-License-Identifier: MIT
#pragma once

// splitscope_engine: real two-stage split training with LibTorch (DESIGN.md §4).
//
// Usage:
//
//     splitscope::engine::TrainParams params;            // DiffSynth's train.py flags
//     params.task = "sft:data_process";
//     params.datasetBasePath = "data/shapes";
//     params.modelIdWithOriginPaths = "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,...";
//     params.outputPath = "cache";
//     splitscope::engine::TrainCallbacks callbacks;
//     callbacks.onEvent = [](const splitscope::engine::EventRecord &e) { puts(e.json.c_str()); };
//     callbacks.shouldAbort = [] { return stopRequested.load(); };
//     const auto result = splitscope::engine::train(params, callbacks);
//     // result.status: kTrainOk, kTrainFailed, kTrainBadInput, kTrainHazards, kTrainCancelled
//
// Thread safety: train() runs on the calling thread (with its own helper threads
// for loading) and may not run twice at once in one process (LibTorch's thread
// count is process-wide); onEvent is called from that thread, one call at a time;
// shouldAbort is polled from it between samples and steps. The other functions are
// reentrant. No function throws: failures come back as values.
//
// Headers of this folder are Torch-free (Qt code may include them); LibTorch stays
// inside the engine's own sources.

#include "Events.h"
#include "TrainParams.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::engine {

// Outcomes of train(), equal to `splitscope-cli train`'s exit statuses (Events.h).
constexpr int kTrainOk = 0;
constexpr int kTrainFailed = 1;    // I/O (writing), a training error
constexpr int kTrainBadInput = 2;  // bad flags or files (a corrupt model file or cache shard), a cache that does not match
constexpr int kTrainHazards = 3;   // the split has hazards and --allow_hazards is off
constexpr int kTrainCancelled = 4; // shouldAbort() said stop; finished work is kept

struct TrainCallbacks {
    EventCallback onEvent;            // every event (Events.h); may be empty
    std::function<bool()> shouldAbort; // may be empty
};

struct TrainResult {
    int status = kTrainOk;
    std::string message; // the error, for a failed run
    std::vector<std::pair<std::string, std::string>> outputs; // name -> path
    std::uint64_t steps = 0;   // optimizer steps (stage two, one-stage)
    std::uint64_t samples = 0; // samples processed (stage one)
    double finalLoss = 0;
    double wallSeconds = 0;
    double readWaitSeconds = 0; // stage two: time the steps waited for the cache reader
    double cacheReadSeconds = 0; // stage two: time spent reading the cache (in the reader)
    double collectiveSeconds = 0; // with several ranks: time in all-reduces and barriers
    std::uint64_t peakRssBytes = 0;
};

TrainResult train(const TrainParams &params, const TrainCallbacks &callbacks);

// `splitscope-cli init-models`: writes seeded tiny weights and configs under
// ROOT/<modelId>/{transformer,text_encoder,vae,tokenizer}/.
struct InitModelsParams {
    std::string root;
    std::string modelId = "Qwen/Qwen-Image";
    std::string preset = "default"; // ModelConfig.h: "default" or "small"
    std::uint64_t seed = 0;
    bool overwrite = false;
};
// False with `error`; `written` lists the files.
bool initModels(const InitModelsParams &params, std::vector<std::string> *written, std::string *error);

// `splitscope-cli sample`: generates images with the DiT (and a LoRA), decoded by
// the VAE, for previews. Writes one PNG per prompt.
struct SampleParams {
    std::string modelRoot;
    std::string modelIdWithOriginPaths;
    std::string tokenizerPath;
    std::string loraPath;         // a checkpoint from train (optional)
    std::string loraTargetModules;
    int loraRank = 32;
    std::vector<std::string> prompts;
    int width = 64;
    int height = 64;
    int steps = 20;
    std::uint64_t seed = 0;
    int numThreads = 0;
    std::string outputDirectory;
};
// False with `error` on failure; `badInput` (optional) then says whether the flags
// or input files are at fault (`sample`'s exit status 2) rather than the work (1).
bool sampleImages(const SampleParams &params, std::vector<std::string> *written, std::string *error, bool *badInput = nullptr);

} // namespace splitscope::engine
