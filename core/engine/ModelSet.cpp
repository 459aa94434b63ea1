// SPDX-License-Identifier: MIT
#include "ModelSet.h"

#include "SeedSequence.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

namespace splitscope::engine {

namespace {

// Keys named in a message about a checkpoint's unused tensors; the count says the rest.
constexpr std::size_t kListedUnusedKeys = 3;

std::string joinTargets(const std::vector<std::string> &targets)
{
    std::string out;
    for (const auto &t : targets)
        out += (out.empty() ? "" : ",") + t;
    return out;
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

// Why a checkpoint tensor does not fit its adapter: another rank (lora_A is
// [rank, in], lora_B [out, rank]) or another layer altogether.
std::string loraShapeMismatch(const std::string &file, const TensorInfo &info, const std::vector<std::int64_t> &shape, int rank)
{
    const bool isA = info.name.find(".lora_A.") != std::string::npos;
    const std::size_t rankAxis = isA ? 0 : 1;
    if (info.shape.size() == 2 && shape.size() == 2 && info.shape[1 - rankAxis] == shape[1 - rankAxis]) {
        return "'" + file + "' holds a LoRA of rank " + std::to_string(info.shape[rankAxis]) + " ('" + info.name + "' is "
            + shapeText(info.shape) + "), but --lora_rank is " + std::to_string(rank) + ": give --lora_rank "
            + std::to_string(info.shape[rankAxis]);
    }
    return "'" + info.name + "' in '" + file + "' is " + shapeText(info.shape) + ", but its adapter here is " + shapeText(shape)
        + " (a LoRA of another model or model size?)";
}

} // namespace

bool matchesLoraTarget(const std::string &moduleName, const std::string &target)
{
    if (moduleName == target)
        return true;
    return moduleName.size() > target.size() + 1
        && moduleName.compare(moduleName.size() - target.size() - 1, target.size() + 1, "." + target) == 0;
}

int injectLora(torch::nn::Module &module, const std::vector<std::string> &targets, int rank, std::uint64_t seed)
{
    int injected = 0;
    std::uint64_t index = 0;
    for (const auto &item : module.named_modules()) {
        auto *linear = item.value()->as<LoraLinearImpl>();
        if (!linear)
            continue;
        ++index;
        for (const auto &t : targets) {
            if (matchesLoraTarget(item.key(), t)) {
                linear->enableLora(rank, static_cast<double>(rank), deriveSeed(seed, 0, index, RandomPurpose::LoraInit));
                ++injected;
                break;
            }
        }
    }
    return injected;
}

ModelSet::ModelSet(std::vector<ResolvedModel> resolved, std::set<std::string> offloaded, std::string tokenizerPath,
    EventSink *events)
    : m_resolved(std::move(resolved))
    , m_offloaded(std::move(offloaded))
    , m_tokenizerPath(std::move(tokenizerPath))
    , m_events(events)
{
}

bool ModelSet::isLoaded(const std::string &name) const
{
    return m_loaded.count(name) > 0;
}

const ResolvedModel *ModelSet::resolved(const std::string &name) const
{
    for (const auto &r : m_resolved) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

VaeConfig ModelSet::vaeConfig(const std::string &caller) const
{
    const ResolvedModel *r = resolved("vae");
    if (!r)
        throw EngineInputError(caller + " needs the VAE's configuration, but --model_id_with_origin_paths names no VAE");
    VaeConfig config;
    std::string error;
    if (!parseVaeConfig(r->configJson, r->configPath, config, &error))
        throw EngineInputError(error);
    return config;
}

const Tokenizer &ModelSet::tokenizer(const std::string &caller)
{
    if (m_tokenizer)
        return *m_tokenizer;
    const std::string path = tokenizerPathFor(m_tokenizerPath, m_resolved);
    if (path.empty())
        throw EngineInputError(caller + " needs the tokenizer, but --model_id_with_origin_paths names no text encoder");
    auto tokenizer = std::make_unique<Tokenizer>();
    std::string error;
    if (!tokenizer->load(path, &error))
        throw EngineInputError("tokenizer: " + error + " (--tokenizer_path overrides where it is looked for)");
    m_tokenizer = std::move(tokenizer);
    return *m_tokenizer;
}

void ModelSet::load(const std::string &name, const std::string &caller)
{
    const ResolvedModel *r = resolved(name);
    if (!r) {
        throw EngineInputError(caller + " calls " + name + ", but --model_id_with_origin_paths names no " + name
            + " (this stage needs it)");
    }
    if (m_offloaded.count(name) && m_events) {
        m_events->warning("offloaded-model-used", name + " is in --offload_models, but " + caller
            + " runs in this stage and calls it: loading it now");
    }
    std::string error;
    std::shared_ptr<torch::nn::Module> module;
    if (r->kind == ModelKind::TextEncoder) {
        TextEncoderConfig config;
        if (!parseTextEncoderConfig(r->configJson, r->configPath, config, &error))
            throw EngineInputError(error);
        const Tokenizer &tok = tokenizer(caller);
        if (tok.vocabSize() != config.vocabSize) {
            throw EngineInputError("text_encoder: config.json says vocab_size " + std::to_string(config.vocabSize)
                + " but the tokenizer has " + std::to_string(tok.vocabSize()) + " tokens");
        }
        m_textEncoder = TextEncoder(config, tok.tokenId(Tokenizer::kVisionStart), tok.tokenId(Tokenizer::kVisionEnd));
        module = m_textEncoder.ptr();
    } else if (r->kind == ModelKind::Vae) {
        VaeConfig config;
        if (!parseVaeConfig(r->configJson, r->configPath, config, &error))
            throw EngineInputError(error);
        m_vae = Vae(config);
        module = m_vae.ptr();
    } else {
        DitConfig config;
        if (!parseDitConfig(r->configJson, r->configPath, config, &error))
            throw EngineInputError(error);
        m_dit = QwenImageDiT(config);
        module = m_dit.ptr();
    }
    loadModuleWeights(*module, r->files, name);
    applyTrainingSetup(name, *module);
    m_loaded[name] = module;
    m_loadOrder.push_back(name);
    if (m_events) {
        std::uint64_t bytes = 0;
        for (const auto &p : module->parameters())
            bytes += static_cast<std::uint64_t>(p.numel()) * p.element_size();
        m_events->log("loaded " + name + " (" + std::to_string(bytes / 1024) + " KiB) for " + caller);
    }
}

void ModelSet::applyTrainingSetup(const std::string &name, torch::nn::Module &module)
{
    const bool trainable = m_setup.trainable.count(name) > 0;
    for (auto &p : module.parameters())
        p.requires_grad_(trainable);
    if (!m_setup.loraBaseModel.empty() && m_setup.loraBaseModel == name) {
        const int injected = injectLora(module, m_setup.loraTargets, m_setup.loraRank, m_setup.seed);
        if (injected == 0) {
            std::string names;
            std::set<std::string> seen;
            for (const auto &item : module.named_modules()) {
                if (!item.value()->as<LoraLinearImpl>())
                    continue;
                const std::string &key = item.key();
                // The last one or two name parts are what targets usually name.
                const auto dot = key.rfind('.');
                std::string tail = dot == std::string::npos ? key : key.substr(dot + 1);
                if (!tail.empty() && std::isdigit(static_cast<unsigned char>(tail[0])) && dot != std::string::npos) {
                    const auto prev = key.rfind('.', dot - 1);
                    tail = key.substr(prev == std::string::npos ? 0 : prev + 1);
                }
                if (seen.insert(tail).second)
                    names += (names.empty() ? "" : ", ") + tail;
            }
            if (names.empty()) {
                throw EngineInputError("--lora_base_model: " + name
                    + " has no linear layer, and LoRA adapts linear layers only (choose a model that has them, such as dit)");
            }
            throw EngineInputError("--lora_target_modules: no module of " + name + " matches (its linear layers: " + names + ")");
        }
        if (!m_setup.loraCheckpoint.empty())
            loadLoraCheckpoint(name, module);
    }
}

void ModelSet::loadLoraCheckpoint(const std::string &name, torch::nn::Module &module)
{
    const std::string &flag = m_setup.loraCheckpointFlag;
    SafetensorsFile file;
    std::string error;
    if (!file.open(m_setup.loraCheckpoint, &error))
        throw EngineInputError(flag + ": " + error);
    torch::NoGradGuard noGrad;
    int loaded = 0;
    int adapters = 0; // LoRA tensors of the model, for the message
    std::set<std::string> used;
    for (auto &item : module.named_parameters()) {
        if (item.key().find(".lora_") == std::string::npos)
            continue;
        ++adapters;
        // DiffSynth saves ".lora_A.default.weight" and accepts ".lora_A.weight" too.
        std::string plain = item.key();
        const auto at = plain.find(".default.");
        if (at != std::string::npos)
            plain.erase(at, 8);
        // Saved with or without --remove_prefix_in_ckpt "pipe.<model>.".
        const TensorInfo *info = nullptr;
        for (const std::string &key : {item.key(), plain, "pipe." + name + "." + item.key()}) {
            if (!info)
                info = file.find(key);
        }
        if (!info)
            continue;
        const std::vector<std::int64_t> shape = item.value().sizes().vec();
        if (info->shape != shape)
            throw EngineInputError(flag + ": " + loraShapeMismatch(m_setup.loraCheckpoint, *info, shape, m_setup.loraRank));
        item.value().copy_(readTensor(file, *info).to(item.value().scalar_type()));
        used.insert(info->name);
        ++loaded;
    }
    if (loaded == 0)
        throw EngineInputError(flag + ": '" + m_setup.loraCheckpoint + "' holds no LoRA weight of " + name
            + " (saved with another --remove_prefix_in_ckpt?)");
    // Loaded non-strictly, as DiffSynth does; but a LoRA used in part changes what it
    // does, so the tensors left over are said (sample refuses them).
    std::vector<std::string> unused;
    for (const TensorInfo &t : file.tensors()) {
        if (!used.count(t.name))
            unused.push_back(t.name);
    }
    if (!unused.empty()) {
        const std::string targets = "--lora_target_modules \"" + joinTargets(m_setup.loraTargets) + "\"";
        std::string examples;
        for (std::size_t i = 0; i < unused.size() && i < kListedUnusedKeys; ++i)
            examples += (i ? "', '" : "'") + unused[i];
        examples += "'" + std::string(unused.size() > kListedUnusedKeys ? ", ..." : "");
        const std::string total = std::to_string(file.tensors().size());
        const std::string unmatched = "match no LoRA adapter of " + name + " under " + targets + " (" + examples + ")";
        if (m_setup.loraCheckpointComplete) {
            throw EngineInputError(flag + ": " + std::to_string(unused.size()) + " of the " + total + " tensors in '"
                + m_setup.loraCheckpoint + "' " + unmatched + ", so the LoRA would be applied in part: give the "
                "--lora_target_modules it was trained with");
        }
        if (m_events) {
            m_events->warning("lora-checkpoint-unused", flag + ": loaded " + std::to_string(loaded) + " of the " + total
                + " tensors in '" + m_setup.loraCheckpoint + "'; the other " + std::to_string(unused.size()) + " " + unmatched
                + " and are not used (the --lora_target_modules it was trained with would use them)");
        }
        return;
    }
    if (m_events) {
        std::string text = "loaded " + std::to_string(loaded) + " LoRA tensors from " + m_setup.loraCheckpoint;
        if (loaded < adapters)
            text += " (" + std::to_string(adapters - loaded) + " LoRA tensors of " + name + " have none there and start fresh)";
        m_events->log(text);
    }
}

torch::nn::Module &ModelSet::module(const std::string &name, const std::string &caller)
{
    if (!isLoaded(name))
        load(name, caller);
    return *m_loaded.at(name);
}

TextEncoderImpl &ModelSet::textEncoder(const std::string &caller)
{
    module("text_encoder", caller);
    return *m_textEncoder;
}

VaeImpl &ModelSet::vae(const std::string &caller)
{
    module("vae", caller);
    return *m_vae;
}

QwenImageDiTImpl &ModelSet::dit(const std::string &caller)
{
    module("dit", caller);
    return *m_dit;
}

std::vector<std::pair<std::string, std::uint64_t>> ModelSet::loadedBytes() const
{
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const auto &name : m_loadOrder) {
        std::uint64_t bytes = 0;
        for (const auto &p : m_loaded.at(name)->parameters())
            bytes += static_cast<std::uint64_t>(p.numel()) * p.element_size();
        out.emplace_back(name, bytes);
    }
    return out;
}

std::vector<std::pair<std::string, torch::Tensor>> ModelSet::trainableParameters() const
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto &name : m_loadOrder) {
        for (const auto &item : m_loaded.at(name)->named_parameters()) {
            if (item.value().requires_grad())
                out.emplace_back("pipe." + name + "." + item.key(), item.value());
        }
    }
    return out;
}

} // namespace splitscope::engine
