// SPDX-License-Identifier: MIT
// initModels (Engine.h): the tiny Qwen-Image models with seeded weights, laid out
// like the real checkout so the seed document's --model_id_with_origin_paths works.
#include "Engine.h"
#include "ModelConfig.h"
#include "QwenImageDiT.h"
#include "SeedSequence.h"
#include "SyntheticDataset.h"
#include "TensorIO.h"
#include "TextEncoder.h"
#include "Tokenizer.h"
#include "UnitRuntime.h"
#include "Vae.h"
#include "core/AtomicFile.h"

#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

// Words beyond the synthetic captions, so ordinary prompts tokenize to words.
const char *const kCommonWords[] = {"photo", "drawing", "painting", "simple", "bright", "dark", "light", "big", "tiny",
    "red", "one", "two", "three", "is", "are", "this", "that", "there", "some", "very", "corner", "middle", "edge",
    "above", "below", "near", "far", "object", "scene", "style", "cat", "dog", "tree", "house", "sky", "sun"};

} // namespace

bool initModels(const InitModelsParams &params, std::vector<std::string> *written, std::string *error)
{
    auto fail = [&](const std::string &message) {
        if (error)
            *error = message;
        return false;
    };
    ModelPreset preset;
    if (!modelPreset(params.preset, preset)) {
        std::string names;
        for (const auto &n : modelPresetNames())
            names += (names.empty() ? "" : ", ") + n;
        return fail("--preset: unknown preset '" + params.preset + "' (presets: " + names + ")");
    }
    if (params.root.empty())
        return fail("--root is required");
    const fs::path base = fs::path(params.root) / params.modelId;
    std::error_code ec;
    for (const char *sub : {"transformer", "text_encoder", "vae", "tokenizer"}) {
        if (fs::exists(base / sub, ec) && !params.overwrite)
            return fail("'" + (base / sub).string() + "' already exists (--overwrite replaces the models)");
    }
    for (const char *sub : {"transformer", "text_encoder", "vae", "tokenizer"}) {
        if (params.overwrite)
            fs::remove_all(base / sub, ec);
        fs::create_directories(base / sub, ec);
        if (ec)
            return fail("cannot create '" + (base / sub).string() + "': " + ec.message());
    }
    std::vector<std::string> words = syntheticCaptionWords();
    for (const char *w : kCommonWords)
        words.push_back(w);
    const Tokenizer tokenizer = Tokenizer::build(words);
    preset.textEncoder.vocabSize = tokenizer.vocabSize();
    preset.dit.jointAttentionDim = preset.textEncoder.hiddenSize;
    preset.dit.latentChannels = preset.vae.latentChannels;

    std::vector<std::string> files;
    auto writeText = [&](const fs::path &path, const std::string &text) {
        std::string e;
        if (!writeFileAtomically(path.string(), text, &e))
            throw EngineError(e);
        files.push_back(path.string());
    };
    try {
        torch::NoGradGuard noGrad;
        writeText(base / "tokenizer" / "vocab.json", tokenizer.toJson());

        auto textGenerator = at::make_generator<at::CPUGeneratorImpl>(deriveSeed(params.seed, 0, 0, RandomPurpose::ModelInit));
        TextEncoder textEncoder(preset.textEncoder, tokenizer.tokenId(Tokenizer::kVisionStart), tokenizer.tokenId(Tokenizer::kVisionEnd));
        textEncoder->resetParameters(textGenerator);
        writeText(base / "text_encoder" / "config.json", textEncoderConfigJson(preset.textEncoder));
        const std::string textFile = (base / "text_encoder" / "model-00001-of-00001.safetensors").string();
        saveModuleWeights(*textEncoder, {textFile});
        files.push_back(textFile);

        auto vaeGenerator = at::make_generator<at::CPUGeneratorImpl>(deriveSeed(params.seed, 0, 1, RandomPurpose::ModelInit));
        Vae vae(preset.vae);
        vae->resetParameters(vaeGenerator);
        writeText(base / "vae" / "config.json", vaeConfigJson(preset.vae));
        const std::string vaeFile = (base / "vae" / "diffusion_pytorch_model.safetensors").string();
        saveModuleWeights(*vae, {vaeFile});
        files.push_back(vaeFile);

        auto ditGenerator = at::make_generator<at::CPUGeneratorImpl>(deriveSeed(params.seed, 0, 2, RandomPurpose::ModelInit));
        QwenImageDiT dit(preset.dit);
        dit->resetParameters(ditGenerator);
        writeText(base / "transformer" / "config.json", ditConfigJson(preset.dit));
        // Two shards, as the real transformer comes (the seed's pattern ends in "*").
        const std::vector<std::string> ditFiles = {
            (base / "transformer" / "diffusion_pytorch_model-00001-of-00002.safetensors").string(),
            (base / "transformer" / "diffusion_pytorch_model-00002-of-00002.safetensors").string()};
        saveModuleWeights(*dit, ditFiles);
        files.insert(files.end(), ditFiles.begin(), ditFiles.end());
    } catch (const std::exception &e) {
        return fail(e.what());
    }
    if (written)
        *written = files;
    return true;
}

} // namespace splitscope::engine
