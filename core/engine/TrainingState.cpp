// SPDX-License-Identifier: MIT
#include "TrainingState.h"

#include "JsonDocument.h"
#include "Safetensors.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

constexpr const char *kStateFormat = "splitscope.resume/1";

// Settings that may change between a cancelled run and its resumption: they do
// not change what training computes.
const char *const kResumableChanges[] = {"num_epochs", "max_steps", "dataset_num_workers", "save_steps"};

// Settings that name a file or folder: compared as the paths they resolve to (a
// trailing slash, ./x, an absolute path or a symbolic link name the same folder),
// not as text. The state keeps each one resolved when it is written, since a
// relative path means another thing from another working directory.
const char *const kPathSettings[] = {"dataset_base_path", "dataset_metadata_path", "model_root", "tokenizer_path", "lora_checkpoint"};
// Not compared: the state is read from --output_path, so that folder is the run
// (one moved as a whole resumes), and where it lies changes nothing trained; the
// flags this stage ignores (training_args.json's "ignored") change nothing either.
const char *const kUncompared[] = {"output_path", "ignored"};

// The absolute path with symbolic links, `.`, `..` and a trailing slash resolved
// as far as it exists; empty for an empty path.
std::string canonicalPath(const std::string &path)
{
    if (path.empty())
        return path;
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    if (ec)
        absolute = fs::path(path);
    fs::path resolved = fs::weakly_canonical(absolute, ec);
    if (ec)
        resolved = absolute.lexically_normal();
    if (!resolved.has_filename() && resolved.has_relative_path())
        resolved = resolved.parent_path();
    return resolved.string();
}

// kPathSettings of a settings document, resolved; an empty --dataset_metadata_path
// is the default it stands for.
nlohmann::json canonicalPaths(const nlohmann::json &settings)
{
    nlohmann::json paths = nlohmann::json::object();
    for (const char *key : kPathSettings) {
        const auto it = settings.find(key);
        if (it == settings.end() || !it->is_string())
            continue;
        std::string value = it->get<std::string>();
        if (value.empty() && std::string(key) == "dataset_metadata_path" && settings.contains("dataset_base_path")
            && settings["dataset_base_path"].is_string())
            value = (fs::path(settings["dataset_base_path"].get<std::string>()) / "metadata.csv").string();
        paths[key] = canonicalPath(value);
    }
    return paths;
}

template <std::size_t N>
bool isOneOf(const std::string &key, const char *const (&list)[N])
{
    for (const char *k : list) {
        if (key == k)
            return true;
    }
    return false;
}

// AdamW keys its state by the parameter's TensorImpl address, printed.
std::string stateKey(const torch::Tensor &parameter)
{
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}

// What a differing TrainingData::fingerprint means, for the message.
std::string dataMismatch(const TrainingData &data, const std::string &saved)
{
    const bool cache = data.kind == "cache";
    return "the " + data.kind + " at '" + data.location + "' is not the one the state was trained on: its "
        + (cache ? "identity (the shards and their checksums in manifest.json)"
                 : "fingerprint (metadata.csv and the image files' names, sizes and modification times)")
        + " is " + data.fingerprint + ", the state's " + saved + (cache ? " (rebuilt from other data or settings?)" : "")
        + ". Resuming would train on mixed data: nothing was trained and the run folder is unchanged (restore that "
        + data.kind + ", or train into another --output_path)";
}

// Opens the state and checks its format, settings and data; fills `meta` and `point`.
bool readState(const std::string &file, SafetensorsFile &state, nlohmann::json &meta, ResumePoint &point,
    const std::string &settingsJson, const TrainingData &data, std::string *error, std::string *note)
{
    auto fail = [&](const std::string &message) {
        if (error)
            *error = "--resume: " + message;
        return false;
    };
    std::error_code ec;
    if (!fs::exists(file, ec))
        return fail("no resume state in --output_path (looked for '" + file + "'); it is written at every epoch end and on cancellation");
    std::string openError;
    if (!state.open(file, &openError))
        return fail(openError);
    try {
        std::string parseError;
        if (!parseJsonObject(state.metadata().at("splitscope.resume"), file, meta, &parseError))
            return fail("'" + file + "' is not a Splitscope resume state");
        if (meta.at("format") != kStateFormat)
            return fail("'" + file + "' has an unknown format");
        point.epoch = meta.at("epoch").get<std::uint64_t>();
        point.position = meta.at("position").get<std::uint64_t>();
        point.step = meta.at("step").get<std::uint64_t>();
        if (!meta.at("settings").is_object())
            return fail("'" + file + "' is not a Splitscope resume state");
    } catch (const std::exception &) {
        return fail("'" + file + "' is not a Splitscope resume state");
    }
    nlohmann::json wanted;
    std::string parseError;
    if (!parseJsonObject(settingsJson, "the settings", wanted, &parseError))
        return fail(parseError);
    const nlohmann::json &saved = meta["settings"];
    // States written before the paths were kept resolved: resolve what they hold.
    const nlohmann::json savedPaths = meta.contains("paths") && meta["paths"].is_object() ? meta["paths"] : canonicalPaths(saved);
    const nlohmann::json wantedPaths = canonicalPaths(wanted);
    std::string diffs;
    for (auto it = wanted.begin(); it != wanted.end(); ++it) {
        if (isOneOf(it.key(), kResumableChanges) || isOneOf(it.key(), kUncompared))
            continue;
        if (isOneOf(it.key(), kPathSettings) && wantedPaths.contains(it.key())) {
            // The same file, or the same relative path as given before (or both left to
            // their default): a project moved as a whole, with data, models and run named
            // relatively, resumes.
            const auto spelt = saved.find(it.key());
            const bool sameRelative = spelt != saved.end() && *spelt == it.value() && it.value().is_string()
                && fs::path(it.value().get<std::string>()).is_relative();
            const auto old = savedPaths.find(it.key());
            if (!sameRelative && (old == savedPaths.end() || *old != wantedPaths[it.key()]))
                diffs += "\n  --" + it.key() + ": the state has " + (old == savedPaths.end() ? std::string("(none)") : dumpJson(*old))
                    + ", this run " + dumpJson(wantedPaths[it.key()]);
            continue;
        }
        const auto old = saved.find(it.key());
        if (old == saved.end() || *old != it.value())
            diffs += "\n  --" + it.key() + ": the state has " + (old == saved.end() ? std::string("(none)") : dumpJson(*old))
                + ", this run " + dumpJson(it.value());
    }
    if (!diffs.empty())
        return fail("the resume state was made with other settings:" + diffs);
    const auto recorded = meta.find("data");
    if (recorded == meta.end() || !recorded->is_object()) {
        if (note)
            *note = "the resume state in '" + file + "' was written before states recorded their data: whether this run's "
                + data.kind + " is the one it was trained on cannot be checked";
        return true;
    }
    const std::string savedFingerprint = recorded->value("fingerprint", std::string());
    if (recorded->value("kind", std::string()) != data.kind || savedFingerprint != data.fingerprint)
        return fail(dataMismatch(data, savedFingerprint));
    return true;
}

} // namespace

std::string TrainingState::path(const std::string &outputPath)
{
    return (fs::path(outputPath) / "resume.safetensors").string();
}

void TrainingState::save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    const ResumePoint &point, const std::string &settingsJson, const TrainingData &data)
{
    SafetensorsWriter writer;
    nlohmann::json steps = nlohmann::json::object();
    for (const auto &[name, parameter] : parameters) {
        addTensor(writer, "param/" + name, parameter);
        const auto it = optimizer.state().find(stateKey(parameter));
        if (it == optimizer.state().end())
            continue;
        auto &state = static_cast<torch::optim::AdamWParamState &>(*it->second);
        addTensor(writer, "exp_avg/" + name, state.exp_avg());
        addTensor(writer, "exp_avg_sq/" + name, state.exp_avg_sq());
        steps[name] = state.step();
    }
    nlohmann::json meta;
    meta["format"] = kStateFormat;
    meta["epoch"] = point.epoch;
    meta["position"] = point.position;
    meta["step"] = point.step;
    meta["adam_steps"] = steps;
    nlohmann::json settings;
    std::string error;
    if (!parseJsonObject(settingsJson, "the settings", settings, &error))
        throw EngineError("cannot save the resume state: " + error);
    meta["settings"] = settings;
    meta["paths"] = canonicalPaths(settings);
    meta["data"] = {{"kind", data.kind}, {"fingerprint", data.fingerprint}};
    writer.setMetadata("splitscope.resume", dumpJson(meta));
    if (!writer.write(path(outputPath), &error))
        throw EngineError("cannot save the resume state: " + error);
}

bool TrainingState::inspect(const std::string &outputPath, const std::string &settingsJson, const TrainingData &data,
    ResumePoint &point, std::string *error, std::string *note)
{
    SafetensorsFile state;
    nlohmann::json meta;
    return readState(path(outputPath), state, meta, point, settingsJson, data, error, note);
}

bool TrainingState::load(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    ResumePoint &point, const std::string &settingsJson, const TrainingData &data, std::string *error)
{
    const std::string file = path(outputPath);
    auto fail = [&](const std::string &message) {
        if (error)
            *error = "--resume: " + message;
        return false;
    };
    SafetensorsFile state;
    nlohmann::json meta;
    ResumePoint read;
    if (!readState(file, state, meta, read, settingsJson, data, error, nullptr))
        return false;

    torch::NoGradGuard noGrad;
    for (const auto &[name, parameter] : parameters) {
        const TensorInfo *value = state.find("param/" + name);
        if (!value || value->shape != parameter.sizes().vec())
            return fail("the resume state lacks '" + name + "' or has another shape for it");
        parameter.copy_(readTensor(state, *value));
        const TensorInfo *expAvg = state.find("exp_avg/" + name);
        const TensorInfo *expAvgSq = state.find("exp_avg_sq/" + name);
        if (!expAvg || !expAvgSq)
            continue;
        auto moments = std::make_unique<torch::optim::AdamWParamState>();
        moments->step(meta["adam_steps"].value(name, std::int64_t{0}));
        moments->exp_avg(readTensor(state, *expAvg));
        moments->exp_avg_sq(readTensor(state, *expAvgSq));
        optimizer.state()[stateKey(parameter)] = std::move(moments);
    }
    point = read;
    return true;
}

void saveCheckpoint(const std::string &path, const NamedTensors &parameters, const std::string &removePrefix)
{
    SafetensorsWriter writer;
    writer.setMetadata("format", "pt");
    for (const auto &[name, parameter] : parameters) {
        std::string key = name;
        if (!removePrefix.empty() && key.compare(0, removePrefix.size(), removePrefix) == 0)
            key = key.substr(removePrefix.size());
        addTensor(writer, key, parameter);
    }
    std::string error;
    if (!writer.write(path, &error))
        throw EngineError("cannot save checkpoint: " + error);
}

} // namespace splitscope::engine
