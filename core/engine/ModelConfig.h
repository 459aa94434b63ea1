// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope::engine {

// Sizes of the tiny Qwen-Image models, read from the config.json that sits beside
// each model's weights (as in a diffusers/transformers checkout). The key
// "splitscope_model" says which model the weights are ("text_encoder", "vae", "dit").

enum class ModelKind { TextEncoder, Vae, Dit };

const char *modelKindName(ModelKind kind); // the pipeline's model names
bool parseModelKind(const std::string &name, ModelKind &kind);

struct TextEncoderConfig {
    int vocabSize = 0; // from the tokenizer at init-models time
    int hiddenSize = 384;
    int numLayers = 6;
    int numHeads = 6;
    int intermediateSize = 1024;
    int maxLength = 32;       // prompt tokens (padded)
    int visionPatchSize = 16; // edit-image patches become tokens
    double ropeTheta = 10000.0;
    double rmsNormEps = 1e-6;
};

struct VaeConfig {
    int baseChannels = 64;
    std::vector<int> channelMultipliers = {1, 2, 4, 4}; // one level each; all but the last halve the size
    int numResBlocks = 1;
    int latentChannels = 16;
    int groups = 8;
    double scalingFactor = 1.0;

    int downsampleFactor() const { return 1 << (static_cast<int>(channelMultipliers.size()) - 1); }
};

struct DitConfig {
    int numLayers = 2;
    int numHeads = 4;
    int headDim = 64;
    int patchSize = 2;
    int latentChannels = 16;
    int jointAttentionDim = 384; // the text encoder's hidden size
    int mlpRatio = 4;

    int innerDim() const { return numHeads * headDim; }
    int inChannels() const { return latentChannels * patchSize * patchSize; }
};

// The three configs that init-models writes.
struct ModelPreset {
    std::string name;
    TextEncoderConfig textEncoder;
    VaeConfig vae;
    DitConfig dit;
};

// "default" (docs/engine.md's figures) or "small" (tests); false for other names.
bool modelPreset(const std::string &name, ModelPreset &preset);
std::vector<std::string> modelPresetNames();

// config.json text for each model (with "splitscope_model" and diffusers-style "_class_name").
std::string textEncoderConfigJson(const TextEncoderConfig &config);
std::string vaeConfigJson(const VaeConfig &config);
std::string ditConfigJson(const DitConfig &config);
// Parsing; false with `error` naming the file and key.
bool parseModelKindOf(const std::string &json, const std::string &label, ModelKind &kind, std::string *error);
bool parseTextEncoderConfig(const std::string &json, const std::string &label, TextEncoderConfig &config, std::string *error);
bool parseVaeConfig(const std::string &json, const std::string &label, VaeConfig &config, std::string *error);
bool parseDitConfig(const std::string &json, const std::string &label, DitConfig &config, std::string *error);

} // namespace splitscope::engine
