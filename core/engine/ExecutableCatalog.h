// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope::engine {

// What a program must know about one of the engine's built-in executable pipelines
// to start it, without linking the engine (which needs Torch): the name
// `train --pipeline` takes, the shipped example that describes it, where
// `init-models` puts each model (DiffSynth's `--model_id_with_origin_paths`
// entries), its losses by task, and the defaults of its LoRA command. The engine's
// own declarations (TinyQwenImageUnits.cpp) and model writer (ModelInitializer.cpp)
// are checked against this catalog by tests/engine/tst_tinypipeline, so the app and
// the CLI, which read it, cannot drift from the engine.
struct ExecutableModelFile {
    std::string model;   // the pipeline's model name: "dit"
    std::string pattern; // under the model id's folder: "transformer/diffusion_pytorch_model*.safetensors"
};

struct ExecutableLoss {
    std::string name; // the description's loss name: "FlowMatchSFTLoss"
    std::string task; // `--task` without a stage: "sft"
};

struct ExecutablePipelineFacts {
    std::string name;    // "tiny-qwen-image"
    std::string example; // resources/examples/<example>.json
    std::string modelId; // "Qwen/Qwen-Image"
    std::vector<ExecutableModelFile> modelFiles;
    std::vector<ExecutableLoss> losses;
    std::string loraTargets;  // --lora_target_modules of DiffSynth's LoRA command
    std::string removePrefix; // --remove_prefix_in_ckpt for a LoRA on the DiT

    const ExecutableModelFile *modelFile(const std::string &model) const; // nullptr when none
    std::string taskOfLoss(const std::string &loss) const;                // "" when none
};

// Every built-in executable pipeline, in the order `examples` lists them.
const std::vector<ExecutablePipelineFacts> &executableCatalog();
const ExecutablePipelineFacts *findExecutableFacts(const std::string &name); // nullptr when none

} // namespace splitscope::engine
