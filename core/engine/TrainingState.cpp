// SPDX-License-Identifier: MIT
#include "TrainingState.h"

#include "Hash.h"
#include "JsonDocument.h"
#include "MemoryEstimate.h"
#include "core/AtomicFile.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <sys/statvfs.h>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

constexpr const char *kStateFormat = "splitscope.resume/1";

// Settings that may change between a cancelled run and its resumption: they do
// not change what training computes.
const char *const kResumableChanges[] = {"num_epochs", "max_steps", "dataset_num_workers", "save_steps", "checkpoint_interval"};

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

// What the state's "checksum" covers: its metadata without the checksum (the
// position, the settings, the data's fingerprint) and every tensor's bytes. A flipped
// bit anywhere is found before anything loads, instead of training on from weights a
// little off, or failing later with a misleading message.
std::uint64_t stateChecksum(nlohmann::json meta, std::string_view tensorBytes)
{
    meta.erase("checksum");
    Hasher hasher;
    hasher.updateField(dumpJson(meta));
    hasher.update(tensorBytes);
    return hasher.digest();
}

// Whether the checksum the state carries matches its contents; states written before
// they carried one are not checked, which `note` says.
bool checkStateChecksum(const std::string &file, const SafetensorsFile &state, const nlohmann::json &meta,
    std::string *error, std::string *note)
{
    const auto recorded = meta.find("checksum");
    if (recorded == meta.end()) {
        if (note)
            *note = "the resume state '" + file + "' was written before states carried a checksum: its contents cannot be verified";
        return true;
    }
    std::uint64_t saved = 0;
    if (recorded->is_string() && hashFromHex(recorded->get<std::string>(), saved)
        && saved == stateChecksum(meta, state.dataSection()))
        return true;
    if (error) {
        *error = "--resume: the resume state '" + file + "' is damaged: its checksum does not match its contents (a disk "
            "or copy error changed it since it was written), so nothing was loaded from it. Restore the file from a copy, "
            "or delete it and run the same command without --resume to start from the beginning";
    }
    return false;
}

// Opens the state and checks its format, checksum, settings and data; fills `meta`
// and `point`.
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
        return fail("no resume state in --output_path (looked for '" + file + "'): a state is written every "
            "--checkpoint_interval seconds of training, at every --save_steps checkpoint, at each epoch end and on "
            "cancellation, and removed when a run has run all its epochs. Nothing here to continue from: run the same "
            "command without --resume to start from the beginning");
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
    std::string unchecked;
    if (!checkStateChecksum(file, state, meta, error, &unchecked))
        return false;
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
        // States written before these settings were recorded ran with one process and
        // no accumulation.
        if (old == saved.end() && (it.key() == "world_size" || it.key() == "gradient_accumulation_steps") && *it == 1)
            continue;
        if (it.key() == "world_size" && old != saved.end() && *old != it.value()) {
            diffs += "\n  the number of ranks (WORLD_SIZE, --nproc_per_node x --nnodes): the state has " + dumpJson(*old)
                + ", this run " + dumpJson(it.value()) + " (each step takes one sample per rank, so another count trains "
                "otherwise: resume on as many ranks)";
            continue;
        }
        if (old == saved.end() || *old != it.value()) {
            diffs += "\n  --" + it.key() + ": the state has " + (old == saved.end() ? std::string("(none)") : dumpJson(*old))
                + ", this run " + dumpJson(it.value());
            if (it.key() == "num_threads")
                diffs += " (an exact resume needs the same count: it fixes the order in which sums are taken, and so the "
                         "weights' last bits)";
        }
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
    if (note)
        *note = unchecked;
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

StateSnapshot TrainingState::snapshot(const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    const ResumePoint &point, const std::string &settingsJson, const TrainingData &data)
{
    StateSnapshot out;
    out.point = point;
    SafetensorsWriter &writer = out.writer;
    std::size_t bytes = 0;
    for (const auto &named : parameters)
        bytes += 3 * static_cast<std::size_t>(named.second.numel()) * named.second.element_size(); // and two moments
    writer.reserve(bytes);
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
    out.metadata = dumpJson(meta);
    return out;
}

bool TrainingState::write(StateSnapshot &snapshot, const std::string &outputPath, std::string *error)
{
    nlohmann::json meta;
    std::string parseError;
    if (!parseJsonObject(snapshot.metadata, "the state's metadata", meta, &parseError)) {
        if (error)
            *error = "cannot save the resume state: " + parseError;
        return false;
    }
    meta["checksum"] = hashToHex(stateChecksum(meta, snapshot.writer.dataSection()));
    snapshot.writer.setMetadata("splitscope.resume", dumpJson(meta));
    const std::string bytes = snapshot.writer.serialize();
    std::string writeError;
    if (writeFileAtomically(path(outputPath), bytes, &writeError))
        return true;
    if (error) {
        *error = "cannot save the resume state after step " + std::to_string(snapshot.point.step) + ": " + writeError;
        struct statvfs disk {};
        if (::statvfs(outputPath.c_str(), &disk) == 0) {
            const std::uint64_t free = static_cast<std::uint64_t>(disk.f_bavail) * disk.f_frsize;
            *error += " (it needs " + memoryText(bytes.size()) + " in '" + outputPath + "', where " + memoryText(free)
                + " are free)";
        }
        *error += "; the previous state, if there was one, is kept as it was";
    }
    return false;
}

void TrainingState::save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    const ResumePoint &point, const std::string &settingsJson, const TrainingData &data)
{
    std::string error;
    StateSnapshot taken = snapshot(parameters, optimizer, point, settingsJson, data);
    if (!write(taken, outputPath, &error))
        throw EngineError(error);
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
