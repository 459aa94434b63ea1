// SPDX-License-Identifier: MIT
#pragma once

#include "core/Pipeline.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace splitscope {

// What the GUI must know to launch one of the engine's built-in executable
// pipelines without linking the engine: the engine protocol's catalog entry
// (core/engine/ExecutableCatalog.h) in Qt strings. Its example (resources/examples)
// is kept equal to `splitscope-cli describe` by a test.
struct ExecutablePipeline {
    struct ModelFile {
        QString model;   // the pipeline's model name: "dit"
        QString pattern; // under the model id's folder: "transformer/diffusion_pytorch_model*.safetensors"
    };
    struct LossTask {
        QString loss; // the description's loss name: "FlowMatchSFTLoss"
        QString task; // `--task` without a stage: "sft"
    };

    QString name;    // "tiny-qwen-image"
    QString example; // "tiny-qwen-image" (resources/examples/tiny-qwen-image.json)
    QString modelId; // "Qwen/Qwen-Image"
    std::vector<ModelFile> modelFiles;
    std::vector<LossTask> losses;
    QString loraTargets;   // --lora_target_modules of the seed document's command
    QString removePrefix;  // --remove_prefix_in_ckpt for a LoRA on the DiT

    // "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors" for one model, "" when unknown.
    QString modelSpec(const QString &model) const;
    // The comma list for `models` (all of them when empty), in modelFiles order.
    QString modelSpecs(const QStringList &models = {}) const;
    // The task of a loss name, "" when this pipeline has no such loss.
    QString taskOfLoss(const QString &loss) const;
    // The description hash stage one records for `task` (engine::pipelineHash: of the
    // engine's description for that task), when the shipped example is that
    // description (its loss is the task's; tst_runexample keeps its bytes the
    // engine's); unset for another task, which the app then cannot compare.
    std::optional<std::uint64_t> descriptionHash(const QString &task) const;
    // The models these units run (their onload_model_names in the shipped description,
    // in unit order, each once): the models[] records stage two wants of a cache whose
    // stage one ran them.
    QStringList modelsOfUnits(const QStringList &units) const;
};

// The built-in executable pipelines (one today: tiny-qwen-image).
const std::vector<ExecutablePipeline> &executablePipelines();
const ExecutablePipeline *findExecutablePipeline(const QString &name);

// Whether the open description can run, and if not, why (for the Run panel).
struct Executability {
    const ExecutablePipeline *pipeline = nullptr; // null: cannot run
    QString task;   // "sft" or "direct_distill" (from the description's loss)
    QString reason; // why not, in a sentence or two; empty when it can run
    bool runnable() const { return pipeline != nullptr; }
};

// A description runs when it names a built-in executable pipeline and declares the
// same models and units as the engine's (the engine runs its own C++ units: a
// description edited by hand would show one split and train another). Its
// training block may differ: the trainable set comes from the configuration panel.
Executability checkExecutable(const Pipeline &pipeline);

} // namespace splitscope
