// SPDX-License-Identifier: MIT
#pragma once

#include "Safetensors.h"
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

// A state ready to be written: the weights and AdamW's moments copied out of the
// training (so that the write can run beside the next steps) and its metadata; the
// checksum is computed as it is written.
struct StateSnapshot {
    SafetensorsWriter writer;
    std::string metadata; // JSON, without the checksum
    ResumePoint point;
};

// OUTPUT/resume.safetensors: the trainable weights, AdamW's moments and step
// counts, the position, the run's settings (JSON in the metadata), the fingerprint
// of its data, and a checksum over all of it. Written atomically (the previous state
// stays whole until the new one is complete) every --checkpoint_interval seconds of
// training, at every --save_steps checkpoint, at every epoch end, on cancellation and
// when --max_steps stops a run before its last epoch; removed when training has run
// all its epochs. `--resume` continues from it: the results equal an uninterrupted
// run's.
class TrainingState {
public:
    static std::string path(const std::string &outputPath);

    // Copies what the state holds now. Throws EngineError.
    static StateSnapshot snapshot(const NamedTensors &parameters, torch::optim::AdamW &optimizer, const ResumePoint &point,
        const std::string &settingsJson, const TrainingData &data);
    // Checksums a snapshot and writes it atomically; false with `error` naming the
    // file, how many bytes the state needed there and how many were free.
    static bool write(StateSnapshot &snapshot, const std::string &outputPath, std::string *error);
    // snapshot() then write(); throws EngineError.
    static void save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        const ResumePoint &point, const std::string &settingsJson, const TrainingData &data);
    // Reads where the state stands without touching the weights: false with `error`
    // when there is no state, it is damaged (its checksum), or it was made with other
    // settings (the message lists them) or from other data. Reads only; load() checks
    // the same. `note` (optional) says what could not be checked (a state written
    // before data and checksums were recorded).
    static bool inspect(const std::string &outputPath, const std::string &settingsJson, const TrainingData &data,
        ResumePoint &point, std::string *error, std::string *note = nullptr);
    // False with `error` when there is no state, or it is damaged, was made with other
    // settings (the message lists them), from other data, or with other parameters.
    static bool load(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
        ResumePoint &point, const std::string &settingsJson, const TrainingData &data, std::string *error);
};

// A DiffSynth checkpoint: the trainable parameters ("pipe.<model>.<name>", with
// `removePrefix` cut where it matches) as safetensors, atomically. Throws EngineError.
void saveCheckpoint(const std::string &path, const NamedTensors &parameters, const std::string &removePrefix);

} // namespace splitscope::engine
