// SPDX-License-Identifier: MIT
#pragma once

#include "TorchPch.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::engine {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Where training stands: the next step to run is `position` of epoch `epoch`;
// `step` steps are done.
struct ResumePoint {
    std::uint64_t epoch = 0;
    std::uint64_t position = 0;
    std::uint64_t step = 0;
};

// OUTPUT/resume.safetensors: the trainable weights, AdamW's moments and step
// counts, the position, and the run's settings (JSON in the metadata). Written
// atomically at every epoch end, on cancellation and when --max_steps stops a run
// before its last epoch; removed when training has run all its epochs.
// `--resume` continues from it: the results equal an uninterrupted run's.
class TrainingState {
public:
    static std::string path(const std::string &outputPath);

    // Throws EngineError on failure.
    static void save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        const ResumePoint &point, const std::string &settingsJson);
    // Reads where the state stands without touching the weights: false with `error`
    // when there is no state or it was made with other settings (the message lists
    // them). Reads only; load() checks the same.
    static bool inspect(const std::string &outputPath, const std::string &settingsJson, ResumePoint &point, std::string *error);
    // False with `error` when there is no state, or it was made with other settings
    // (the message lists them) or other parameters.
    static bool load(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        ResumePoint &point, const std::string &settingsJson, std::string *error);
};

// A DiffSynth checkpoint: the trainable parameters ("pipe.<model>.<name>", with
// `removePrefix` cut where it matches) as safetensors, atomically. Throws EngineError.
void saveCheckpoint(const std::string &path, const NamedTensors &parameters, const std::string &removePrefix);

} // namespace splitscope::engine
