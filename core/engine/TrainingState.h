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

// What a run trains on, kept in its state: --resume refuses other data under the
// same path (a dataset regenerated there, a cache rebuilt there from other data),
// which the settings, paths compared as paths, cannot tell apart.
struct TrainingData {
    std::string kind;        // "dataset" (one-stage training) or "cache" (stage two)
    std::string location;    // its folder (--dataset_base_path), for messages
    std::string fingerprint; // ImageDataset::fingerprint() or cacheIdentity(), as hashToHex writes it
};

// OUTPUT/resume.safetensors: the trainable weights, AdamW's moments and step
// counts, the position, the run's settings (JSON in the metadata) and the
// fingerprint of its data. Written
// atomically at every epoch end, on cancellation and when --max_steps stops a run
// before its last epoch; removed when training has run all its epochs.
// `--resume` continues from it: the results equal an uninterrupted run's.
class TrainingState {
public:
    static std::string path(const std::string &outputPath);

    // Throws EngineError on failure.
    static void save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        const ResumePoint &point, const std::string &settingsJson, const TrainingData &data);
    // Reads where the state stands without touching the weights: false with `error`
    // when there is no state, or it was made with other settings (the message lists
    // them) or from other data. Reads only; load() checks the same. `note` (optional)
    // says what could not be checked (a state written before data was recorded).
    static bool inspect(const std::string &outputPath, const std::string &settingsJson, const TrainingData &data,
        ResumePoint &point, std::string *error, std::string *note = nullptr);
    // False with `error` when there is no state, or it was made with other settings
    // (the message lists them), from other data, or with other parameters.
    static bool load(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        ResumePoint &point, const std::string &settingsJson, const TrainingData &data, std::string *error);
};

// A DiffSynth checkpoint: the trainable parameters ("pipe.<model>.<name>", with
// `removePrefix` cut where it matches) as safetensors, atomically. Throws EngineError.
void saveCheckpoint(const std::string &path, const NamedTensors &parameters, const std::string &removePrefix);

} // namespace splitscope::engine
