// SPDX-License-Identifier: MIT
#include "ModelFiles.h"

#include "Hash.h"
#include "core/AtomicFile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fnmatch.h>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

// A model's config.json is a few hundred bytes; anything near this is not one.
constexpr std::size_t kMaxConfigBytes = std::size_t(16) << 20;

} // namespace

std::string resolveModelRoot(const std::string &flagValue)
{
    if (!flagValue.empty())
        return flagValue;
    if (const char *env = std::getenv(kModelRootEnv); env && *env)
        return env;
    return "./models";
}

bool parseModelPathSpecs(const std::string &list, const std::string &flag, std::vector<ModelPathSpec> &specs,
    std::string *error)
{
    specs.clear();
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(',', start);
        if (end == std::string::npos)
            end = list.size();
        const std::string entry = list.substr(start, end - start);
        start = end + 1;
        if (entry.find_first_not_of(" \t") == std::string::npos)
            continue;
        const auto colon = entry.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size()
            || entry.find(':', colon + 1) != std::string::npos) {
            if (error)
                *error = "--" + flag + ": '" + entry + "' is not MODEL_ID:FILE_PATTERN (e.g. \"Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors\")";
            return false;
        }
        ModelPathSpec spec{entry, entry.substr(0, colon), entry.substr(colon + 1)};
        if (spec.modelId.find("..") != std::string::npos || spec.pattern.find("..") != std::string::npos
            || spec.pattern.front() == '/') {
            if (error)
                *error = "--" + flag + ": '" + entry + "' leaves the models root ('..' or an absolute path)";
            return false;
        }
        specs.push_back(std::move(spec));
    }
    return true;
}

bool resolveModels(const std::string &root, const std::vector<ModelPathSpec> &specs,
    std::vector<ResolvedModel> &models, std::string *error)
{
    models.clear();
    for (const ModelPathSpec &spec : specs) {
        const fs::path base = fs::path(root) / spec.modelId;
        std::error_code ec;
        if (!fs::is_directory(base, ec)) {
            if (error)
                *error = "model '" + spec.text + "': no folder '" + base.string()
                    + "' (models root '" + root + "' from --model_root, $" + kModelRootEnv
                    + " or ./models; 'splitscope-cli init-models --root " + root + "' writes the tiny models)";
            return false;
        }
        std::vector<std::string> matches;
        for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (!it->is_regular_file(ec))
                continue;
            const std::string relative = fs::relative(it->path(), base, ec).generic_string();
            if (::fnmatch(spec.pattern.c_str(), relative.c_str(), FNM_PATHNAME) == 0)
                matches.push_back(it->path().string());
        }
        if (matches.empty()) {
            if (error)
                *error = "model '" + spec.text + "': no file matches '" + spec.pattern + "' under '" + base.string() + "'";
            return false;
        }
        std::sort(matches.begin(), matches.end());
        ResolvedModel model;
        model.spec = spec;
        model.directory = fs::path(matches.front()).parent_path().string();
        for (const auto &m : matches) {
            if (fs::path(m).parent_path().string() != model.directory) {
                if (error)
                    *error = "model '" + spec.text + "': the matching files lie in different folders ('"
                        + model.directory + "', '" + fs::path(m).parent_path().string() + "')";
                return false;
            }
            model.fileBytes += static_cast<std::uint64_t>(fs::file_size(m, ec));
        }
        model.files = std::move(matches);
        model.configPath = (fs::path(model.directory) / "config.json").string();
        if (!fs::exists(model.configPath, ec)) {
            if (error)
                *error = "model '" + spec.text + "': no config.json beside the weights (looked for '" + model.configPath + "')";
            return false;
        }
        std::string readError;
        if (!readWholeFile(model.configPath, model.configJson, &readError, kMaxConfigBytes)) {
            if (error)
                *error = "model '" + spec.text + "': " + readError;
            return false;
        }
        if (!parseModelKindOf(model.configJson, model.configPath, model.kind, error))
            return false;
        model.name = modelKindName(model.kind);
        for (const ResolvedModel &other : models) {
            if (other.kind == model.kind) {
                if (error)
                    *error = "models '" + other.spec.text + "' and '" + spec.text + "' are both the " + model.name;
                return false;
            }
        }
        models.push_back(std::move(model));
    }
    return true;
}

bool hashModelWeights(const ResolvedModel &model, std::uint64_t &hash, std::string *error,
    const std::function<void(const std::string &)> &log)
{
    // Read in chunks rather than mapped: mapped pages count as the process's
    // resident memory, and stage two hashes models it deliberately does not load.
    const auto reading = [&] {
        if (log)
            log("hashing the weights of " + model.name + " (" + std::to_string(model.files.size()) + " file"
                + (model.files.size() == 1 ? "" : "s") + ", " + std::to_string(model.fileBytes >> 20) + " MiB): new, "
                "or changed since they were last hashed");
    };
    return hashFileSetRemembered(model.files, hash, reading, error);
}

std::string tokenizerPathFor(const std::string &flagValue, const std::vector<ResolvedModel> &models)
{
    if (!flagValue.empty())
        return flagValue;
    for (const ResolvedModel &model : models) {
        if (model.kind == ModelKind::TextEncoder)
            return (fs::path(model.directory).parent_path() / "tokenizer" / "vocab.json").string();
    }
    return {};
}

std::map<std::string, std::int64_t> modelDimensions(const std::vector<ResolvedModel> &models)
{
    std::map<std::string, std::int64_t> dims;
    for (const ResolvedModel &model : models) {
        const std::string prefix = std::string(modelKindName(model.kind)) + ".";
        switch (model.kind) {
        case ModelKind::TextEncoder: {
            TextEncoderConfig config;
            if (parseTextEncoderConfig(model.configJson, model.configPath, config, nullptr))
                dims[prefix + "hidden_size"] = config.hiddenSize;
            break;
        }
        case ModelKind::Vae: {
            VaeConfig config;
            if (parseVaeConfig(model.configJson, model.configPath, config, nullptr))
                dims[prefix + "latent_channels"] = config.latentChannels;
            break;
        }
        case ModelKind::Dit: {
            DitConfig config;
            if (parseDitConfig(model.configJson, model.configPath, config, nullptr)) {
                dims[prefix + "latent_channels"] = config.latentChannels;
                dims[prefix + "joint_attention_dim"] = config.jointAttentionDim;
            }
            break;
        }
        }
    }
    return dims;
}

} // namespace splitscope::engine
