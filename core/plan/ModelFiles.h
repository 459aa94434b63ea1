// SPDX-License-Identifier: MIT
#pragma once

#include "core/Diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace splitscope::plan {

// What DiffSynth-Studio knows of a model file without loading it: the tensor names and
// shapes of a safetensors file's header (the tensors are never read), the hash it
// identifies a model file by, and where it looks for the files of a
// `--model_id_with_origin_paths` entry.

struct SafetensorsHeader {
    std::map<std::string, std::vector<std::int64_t>> shapes; // tensor name -> shape
    std::uint64_t bytes = 0;                                  // of the tensors' data
    std::string error;                                        // empty when the header reads
};
// Reads only the header (8 bytes of length, then JSON), at most 100 MB of it.
SafetensorsHeader readSafetensorsHeader(const std::string &path);

// DiffSynth's hash_model_file (diffsynth/core/loader/file.py) over the files of one
// entry: the MD5, in hex, of every tensor's "name:d0_d1_..." and "name", sorted and
// joined by commas, the files' tensors taken together.
std::string diffSynthModelHash(const std::vector<SafetensorsHeader> &files);

// The files DiffSynth's ModelConfig loads for `model_id` and `pattern` under the model
// base folder: glob(base/model_id/pattern) ("dir/" means "dir/*"), sorted.
std::vector<std::string> entryFiles(const std::string &base, const std::string &modelId, const std::string &pattern);

// What a checkout says about model files: diffsynth/configs/model_configs.py, the model
// names each hash loads as (one file can hold several models), with where each is
// listed, and by the example comments; diffsynth/core/loader/config.py, the environment variable that names the
// model base folder and the folder when it is unset.
struct ModelConfigs {
    struct Name {
        std::string model; // "qwen_image_dit"
        int line = 0;
    };
    std::map<std::string, std::vector<Name>> byHash;
    // The comment above a config's hash, `# Example: ModelConfig(model_id="Qwen/Qwen-Image",
    // origin_file_pattern="vae/...")`, by "model_id:pattern": what DiffSynth's authors say the
    // entry loads, for when the files are not there to hash. Written by hand and not always
    // right (Qwen-Image's text_encoder and transformer examples are swapped), so the plan
    // checks it against the entry's names. `line`: the comment's.
    std::map<std::string, std::vector<Name>> byExample;
    std::string file; // model_configs.py, as found
    std::string baseVariable = "DIFFSYNTH_MODEL_BASE_PATH";
    std::string defaultBase = "./models";
    Diagnostics diagnostics; // what could not be read
};
ModelConfigs readModelConfigs(const std::string &checkout);

} // namespace splitscope::plan
