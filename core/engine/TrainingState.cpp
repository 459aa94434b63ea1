// SPDX-License-Identifier: MIT
#include "TrainingState.h"

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

// AdamW keys its state by the parameter's TensorImpl address, printed.
std::string stateKey(const torch::Tensor &parameter)
{
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}

} // namespace

std::string TrainingState::path(const std::string &outputPath)
{
    return (fs::path(outputPath) / "resume.safetensors").string();
}

void TrainingState::save(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    const ResumePoint &point, const std::string &settingsJson)
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
    meta["settings"] = nlohmann::json::parse(settingsJson);
    writer.setMetadata("splitscope.resume", meta.dump());
    std::string error;
    if (!writer.write(path(outputPath), &error))
        throw EngineError("cannot save the resume state: " + error);
}

bool TrainingState::load(const std::string &outputPath, const NamedTensors &parameters, torch::optim::AdamW &optimizer,
    ResumePoint &point, const std::string &settingsJson, std::string *error)
{
    const std::string file = path(outputPath);
    auto fail = [&](const std::string &message) {
        if (error)
            *error = "--resume: " + message;
        return false;
    };
    std::error_code ec;
    if (!fs::exists(file, ec))
        return fail("no resume state in --output_path (looked for '" + file + "'); it is written at every epoch end and on cancellation");
    SafetensorsFile state;
    std::string openError;
    if (!state.open(file, &openError))
        return fail(openError);
    nlohmann::json meta;
    try {
        meta = nlohmann::json::parse(state.metadata().at("splitscope.resume"));
        if (meta.at("format") != kStateFormat)
            return fail("'" + file + "' has an unknown format");
    } catch (const std::exception &) {
        return fail("'" + file + "' is not a Splitscope resume state");
    }
    const nlohmann::json wanted = nlohmann::json::parse(settingsJson);
    const nlohmann::json &saved = meta["settings"];
    std::string diffs;
    for (auto it = wanted.begin(); it != wanted.end(); ++it) {
        bool free = false;
        for (const char *k : kResumableChanges)
            free = free || it.key() == k;
        if (free)
            continue;
        const auto old = saved.find(it.key());
        if (old == saved.end() || *old != it.value())
            diffs += "\n  --" + it.key() + ": the state has " + (old == saved.end() ? std::string("(none)") : old->dump())
                + ", this run " + it.value().dump();
    }
    if (!diffs.empty())
        return fail("the resume state was made with other settings:" + diffs);

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
    point.epoch = meta.at("epoch").get<std::uint64_t>();
    point.position = meta.at("position").get<std::uint64_t>();
    point.step = meta.at("step").get<std::uint64_t>();
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
