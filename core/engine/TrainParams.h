// SPDX-License-Identifier: MIT
#pragma once

#include "DistributedEnvironment.h"
#include "core/TrainingChoice.h"

#include <cstdint>
#include <string>
#include <vector>

namespace splitscope::engine {

// What `splitscope-cli train` runs. Field names follow DiffSynth's train.py flags
// (`--learning_rate` is learningRate); defaults are DiffSynth's where it has one.
struct TrainParams {
    std::string task = "sft"; // sft, sft:data_process, sft:train, direct_distill[:data_process|:train]
    std::string pipeline = "tiny-qwen-image";

    // Dataset (stage one and one-stage), or the cache folder (stage two).
    std::string datasetBasePath;
    std::string datasetMetadataPath; // empty: base/metadata.csv; unused in stage two
    long long maxPixels = 1024 * 1024;
    int height = 0; // 0: from each image and maxPixels
    int width = 0;
    int datasetRepeat = 1;
    std::vector<std::string> dataFileKeys = {"image"};
    std::vector<std::string> extraInputs;

    // Models.
    std::string modelRoot; // empty: $SPLITSCOPE_MODEL_ROOT, else ./models
    std::string modelIdWithOriginPaths;
    std::string offloadModels; // same format; these are never loaded unless a unit of the stage calls them
    std::string tokenizerPath; // empty: tokenizer/vocab.json beside the text encoder's folder

    // Training.
    double learningRate = 1e-4;
    double weightDecay = 1e-2;
    int numEpochs = 1;
    std::string outputPath = "./models/train";
    std::string removePrefixInCkpt;
    // --trainable_models, --lora_base_model and --split_mode (the split's, in stage
    // one and stage two).
    TrainingChoice training;
    std::string loraTargetModules;
    int loraRank = 32;
    std::string loraCheckpoint; // LoRA weights to start from (DiffSynth's --lora_checkpoint)
    bool useGradientCheckpointing = false;
    int datasetNumWorkers = 0;
    bool findUnusedParameters = false; // accepted for DiffSynth compatibility (every parameter gets a gradient)
    int saveSteps = 0;                 // 0: a checkpoint per epoch
    std::uint64_t seed = 0;
    int numThreads = 0; // 0: all cores
    int numInferenceSteps = 4; // DirectDistillLoss's sampling steps
    long long maxSteps = 0;    // 0: no limit (stops early; for quick runs)

    // The split (stage one and stage two).
    bool allowHazards = false;
    bool cacheAllParams = false;
    int cacheShardSize = 16; // samples per cache shard
    bool resume = false;     // continue from OUTPUT/resume (stage two, one-stage)
    // Seconds of training between resume states written beside the steps (0: only at
    // --save_steps, epoch ends, cancellation and --max_steps).
    double checkpointInterval = 60;

    // Data parallelism over torch.distributed (Distributed.h): this process's rank
    // from torchrun's environment; alone when it sets none.
    DistributedEnvironment distributed;
    std::string distBackend = "gloo"; // --dist_backend: gloo (nccl needs a CUDA LibTorch)
    double distTimeout = 1800;        // --dist_timeout, seconds (torch's default, 30 minutes)
    // Samples per rank whose gradients add up to one optimizer step (DiffSynth's flag).
    int gradientAccumulationSteps = 1;
};

enum class Stage { OneStage, DataProcess, Train };
const char *stageName(Stage stage); // "one_stage", "data_process", "train"

struct TaskSpec {
    std::string loss; // "sft" or "direct_distill"
    Stage stage = Stage::OneStage;
};
// False with `error` listing the valid tasks.
bool parseTask(const std::string &task, TaskSpec &spec, std::string *error = nullptr);
std::vector<std::string> taskNames();

} // namespace splitscope::engine
