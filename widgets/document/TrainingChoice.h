// SPDX-License-Identifier: MIT
#pragma once

#include "core/Pipeline.h"
#include "core/Split.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace splitscope {

// What the user chose in the training panel: which models are fully trainable,
// which one carries LoRA, and which split algorithm to run. Converts to and from
// the pipeline document's `training` block (DiffSynth's train.py flags).
struct TrainingChoice {
    std::vector<std::string> trainable; // trainable_models, in the order chosen
    std::optional<std::string> loraBase; // lora_base_model
    SplitMode mode = SplitMode::Seed;

    static TrainingChoice fromConfig(const TrainingConfig &config, SplitMode mode = SplitMode::Seed);
    TrainingConfig toConfig() const;
    // W: the models requiring backward, exactly as the command line computes them.
    std::vector<std::string> modelsRequiringBackward() const { return toConfig().modelsRequiringBackward(); }
    bool isTrainable(const std::string &model) const;
    // Sets or clears `model` in `trainable`, keeping `order` (the pipeline's model order).
    void setTrainable(const std::string &model, bool on, const std::vector<std::string> &order);
    // Drops models that `pipeline` does not know (after a reload).
    void restrictTo(const std::vector<std::string> &models);
    // "lora_base_model=dit, seed split" for titles and tooltips.
    QString label() const;

    bool operator==(const TrainingChoice &other) const
    {
        return trainable == other.trainable && loraBase == other.loraBase && mode == other.mode;
    }
    bool operator!=(const TrainingChoice &other) const { return !(*this == other); }
};

} // namespace splitscope
