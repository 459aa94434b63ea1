// SPDX-License-Identifier: MIT
#pragma once

#include "Pipeline.h"
#include "Split.h"

#include <optional>
#include <string>
#include <vector>

namespace splitscope {

// Which models a run trains and which split it runs: DiffSynth's --trainable_models
// and --lora_base_model, and Splitscope's --split_mode. The one form of the choice in
// the command line, the engine and the app: parsed once where flags, a pipeline's
// `training` block or the app's JSON come in, and written back as flags only where a
// command line goes out (trainableModelsFlag). A pipeline document keeps its block as
// written (TrainingConfig: null and missing apart, unknown keys kept).
struct TrainingChoice {
    std::vector<std::string> trainable;  // trainable_models, in the order given
    std::optional<std::string> loraBase; // lora_base_model; never ""
    SplitMode mode = SplitMode::Seed;

    // "text_encoder, vae" (split at commas, blanks trimmed, empty pieces dropped) and
    // "dit" ("" for none), as train.py's flags give them.
    static TrainingChoice fromFlags(const std::string &trainableModels, const std::string &loraBaseModel,
        SplitMode mode = SplitMode::Seed);
    static TrainingChoice fromConfig(const TrainingConfig &config, SplitMode mode = SplitMode::Seed);
    TrainingConfig toConfig() const;
    // --trainable_models' value: "text_encoder,vae"; "" for none.
    std::string trainableModelsFlag() const;
    // --lora_base_model's value; "" for none.
    std::string loraBaseModelFlag() const { return loraBase.value_or(std::string()); }

    // W: trainable_models, then lora_base_model, each model once, where it is first
    // named (`vae,vae`, or a model trained in full and as the LoRA base, needs
    // gradients once).
    std::vector<std::string> modelsRequiringBackward() const;
    bool trainsNothing() const { return trainable.empty() && !loraBase; }
    bool isTrainable(const std::string &model) const;
    // Sets or clears `model` in `trainable`, keeping `order` (the pipeline's model order).
    void setTrainable(const std::string &model, bool on, const std::vector<std::string> &order);
    // Drops models that `models` does not hold (after a reload).
    void restrictTo(const std::vector<std::string> &models);
    // "trainable_models=vae lora_base_model=dit", or "no trainable models".
    std::string modelsLabel() const;
    // modelsLabel() and the split: "lora_base_model=dit, seed split".
    std::string label() const;

    bool operator==(const TrainingChoice &other) const
    {
        return trainable == other.trainable && loraBase == other.loraBase && mode == other.mode;
    }
    bool operator!=(const TrainingChoice &other) const { return !(*this == other); }
};

} // namespace splitscope
