// SPDX-License-Identifier: MIT
#pragma once

#include "ModelConfig.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace splitscope::engine {

// DiffSynth's `--model_id_with_origin_paths "Org/Model:sub/path*.safetensors,..."`:
// each entry names a model id (a folder under the models root) and a file pattern
// inside it (fnmatch, `*` does not cross `/`). Nothing is downloaded: the files must
// exist (`splitscope-cli init-models` writes the tiny ones).

// The root: the flag when given, else $SPLITSCOPE_MODEL_ROOT, else ./models
// (DiffSynth's default download folder).
constexpr const char *kModelRootEnv = "SPLITSCOPE_MODEL_ROOT";
std::string resolveModelRoot(const std::string &flagValue);

struct ModelPathSpec {
    std::string text;    // "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors"
    std::string modelId; // "Qwen/Qwen-Image"
    std::string pattern; // "vae/diffusion_pytorch_model.safetensors"
};

// Parses a comma list; false with `error` naming `flag` and the bad entry.
bool parseModelPathSpecs(const std::string &list, const std::string &flag, std::vector<ModelPathSpec> &specs,
    std::string *error);

// One model found on disk: its weight files (sorted) and the config.json beside them.
struct ResolvedModel {
    ModelKind kind = ModelKind::Dit;
    std::string name; // the pipeline's model name: modelKindName(kind)
    ModelPathSpec spec;
    std::string directory;
    std::vector<std::string> files;
    std::string configPath;
    std::string configJson;
    std::uint64_t fileBytes = 0;
};

// Resolves every spec against `root`. Errors say what was looked for where: no
// file matching the pattern, no config.json beside the files, files of one entry
// in different folders, or two entries that are the same model.
bool resolveModels(const std::string &root, const std::vector<ModelPathSpec> &specs,
    std::vector<ResolvedModel> &models, std::string *error);

// A hash of the model's weight files' bytes (in file order); false with `error`.
// Remembered per file identity (hashFileSetRemembered): `log` (optional) is told when
// the files are read, and why.
bool hashModelWeights(const ResolvedModel &model, std::uint64_t &hash, std::string *error,
    const std::function<void(const std::string &)> &log = {});

// The tokenizer file the text encoder reads: `flagValue` (--tokenizer_path) when
// given, else tokenizer/vocab.json beside the text encoder's folder; empty when
// neither names one (no text encoder among `models`).
std::string tokenizerPathFor(const std::string &flagValue, const std::vector<ResolvedModel> &models);

// The sizes the models' config.json files fix for the values around them, keyed
// "<model>.<config key>": "dit.latent_channels", "dit.joint_attention_dim",
// "vae.latent_channels", "text_encoder.hidden_size" (ParamSpec::shape names them).
// A model whose config does not parse adds none (loading it reports that).
std::map<std::string, std::int64_t> modelDimensions(const std::vector<ResolvedModel> &models);

} // namespace splitscope::engine
