// SPDX-License-Identifier: MIT
#include "CacheManifest.h"

#include "CacheCheck.h"

#include "Hash.h"
#include "JsonDocument.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

namespace splitscope::engine {

namespace {

using Json = nlohmann::ordered_json;

} // namespace

std::string CacheManifest::toJson() const
{
    Json doc;
    doc["format"] = kFormat;
    doc["complete"] = complete;
    doc["created_by"] = createdBy;
    doc["pipeline"] = pipeline;
    doc["pipeline_hash"] = hashToHex(pipelineHash);
    doc["task"] = task;
    doc["loss"] = loss;
    doc["split"] = {{"mode", splitMode}, {"models_require_backward", modelsRequiringBackward},
        {"stage_one_units", stageOneUnits}, {"stage_two_units", stageTwoUnits}, {"allow_hazards", allowHazards},
        {"hazards", hazards}};
    doc["cache_set"] = cacheSet;
    doc["cache_all_params"] = cacheAllParams;
    Json models = Json::array();
    for (const auto &m : this->models)
        models.push_back({{"name", m.name}, {"spec", m.spec}, {"weights_hash", hashToHex(m.hash)}});
    doc["models"] = models;
    if (tokenizer)
        doc["tokenizer"] = {{"path", tokenizer->path}, {"hash", hashToHex(tokenizer->hash)}};
    doc["dataset"] = {{"base_path", datasetBasePath}, {"metadata_path", datasetMetadataPath},
        {"fingerprint", hashToHex(datasetFingerprint)}, {"samples", samples}};
    Json settingsJson = Json::object();
    for (const auto &[key, value] : settings)
        settingsJson[key] = value;
    doc["settings"] = settingsJson;
    Json shardList = Json::array();
    for (const auto &s : shards) {
        shardList.push_back({{"process", s.process}, {"file", s.file}, {"first", s.first}, {"count", s.count},
            {"bytes", s.bytes}, {"checksum", hashToHex(s.checksum)}});
    }
    doc["shards"] = shardList;
    return dumpJson(doc, 1) + "\n";
}

bool CacheManifest::parse(const std::string &text, const std::string &label, CacheManifest &manifest, std::string *error)
{
    nlohmann::json doc;
    if (!parseJsonObject(text, label, doc, error))
        return false;
    const JsonPath top;
    CacheManifest m;
    try {
        const auto format = doc.find("format");
        if (format == doc.end() || !format->is_string() || format->get<std::string>() != kFormat) {
            throw JsonFieldError(top.key("format"), std::string("expected \"") + kFormat + "\" (not a Splitscope cache, or a newer one), found "
                    + (format == doc.end() ? std::string("none") : jsonValueDescription(*format)),
                format == doc.end());
        }
        // Each field by its path ("split.stage_one_units", "shards[3].bytes"), so that a
        // message names the one at fault and what it should hold.
        auto member = [](const nlohmann::json &object, const JsonPath &path, const char *key, const char *expected)
            -> const nlohmann::json & { return jsonMember(object, path, key, expected); };
        auto string = [&](const nlohmann::json &object, const JsonPath &path, const char *key) {
            return jsonString(member(object, path, key, "a string"), path.key(key));
        };
        auto boolean = [&](const nlohmann::json &object, const JsonPath &path, const char *key) {
            return jsonBool(member(object, path, key, "true or false"), path.key(key));
        };
        auto strings = [&](const nlohmann::json &object, const JsonPath &path, const char *key) {
            return jsonStringList(member(object, path, key, "a list of strings"), path.key(key));
        };
        auto hex = [&](const nlohmann::json &object, const JsonPath &path, const char *key) {
            const nlohmann::json &value = member(object, path, key, "a 16-digit hex hash");
            std::uint64_t out = 0;
            if (!value.is_string() || !hashFromHex(value.get<std::string>(), out))
                throw JsonFieldError(path.key(key), "expected a 16-digit hex hash, found " + jsonValueDescription(value));
            return out;
        };
        // A count, index or size: a whole number of at least 0 that fits where it goes.
        auto count = [&](const nlohmann::json &object, const JsonPath &path, const char *key, std::uint64_t maximum) {
            return jsonCount(member(object, path, key, "a whole number"), path.key(key), maximum);
        };
        auto array = [&](const nlohmann::json &object, const JsonPath &path, const char *key) -> const nlohmann::json & {
            const nlohmann::json &value = member(object, path, key, "a list");
            if (!value.is_array())
                throw JsonFieldError(path.key(key), "expected a list, found " + jsonValueDescription(value));
            return value;
        };
        auto object = [&](const nlohmann::json &parent, const JsonPath &path, const char *key) -> const nlohmann::json & {
            const nlohmann::json &value = member(parent, path, key, "an object");
            if (!value.is_object())
                throw JsonFieldError(path.key(key), "expected an object, found " + jsonValueDescription(value));
            return value;
        };
        constexpr std::uint64_t kMaxSize = std::numeric_limits<std::size_t>::max();
        m.complete = boolean(doc, top, "complete");
        if (const auto createdBy = doc.find("created_by"); createdBy != doc.end())
            m.createdBy = jsonString(*createdBy, top.key("created_by"));
        m.pipeline = string(doc, top, "pipeline");
        m.pipelineHash = hex(doc, top, "pipeline_hash");
        m.task = string(doc, top, "task");
        m.loss = string(doc, top, "loss");
        const JsonPath splitPath = top.key("split");
        const auto &split = object(doc, top, "split");
        m.splitMode = string(split, splitPath, "mode");
        m.modelsRequiringBackward = strings(split, splitPath, "models_require_backward");
        m.stageOneUnits = strings(split, splitPath, "stage_one_units");
        m.stageTwoUnits = strings(split, splitPath, "stage_two_units");
        m.allowHazards = boolean(split, splitPath, "allow_hazards");
        m.hazards = strings(split, splitPath, "hazards");
        m.cacheSet = strings(doc, top, "cache_set");
        m.cacheAllParams = boolean(doc, top, "cache_all_params");
        const auto &models = array(doc, top, "models");
        for (std::size_t i = 0; i < models.size(); ++i) {
            const JsonPath path = top.key("models").index(i);
            CacheModelRecord record;
            record.name = string(models[i], path, "name");
            record.spec = string(models[i], path, "spec");
            record.hash = hex(models[i], path, "weights_hash");
            m.models.push_back(record);
        }
        // Absent from caches made before it was recorded.
        if (doc.contains("tokenizer")) {
            const JsonPath path = top.key("tokenizer");
            const auto &tokenizer = object(doc, top, "tokenizer");
            CacheTokenizerRecord record;
            record.path = string(tokenizer, path, "path");
            record.hash = hex(tokenizer, path, "hash");
            m.tokenizer = record;
        }
        const JsonPath datasetPath = top.key("dataset");
        const auto &dataset = object(doc, top, "dataset");
        m.datasetBasePath = string(dataset, datasetPath, "base_path");
        m.datasetMetadataPath = string(dataset, datasetPath, "metadata_path");
        m.datasetFingerprint = hex(dataset, datasetPath, "fingerprint");
        m.samples = static_cast<std::size_t>(count(dataset, datasetPath, "samples", kMaxSize));
        const auto &settings = object(doc, top, "settings");
        for (auto it = settings.begin(); it != settings.end(); ++it)
            m.settings[it.key()] = jsonString(it.value(), top.key("settings").key(it.key()));
        const auto &shards = array(doc, top, "shards");
        for (std::size_t i = 0; i < shards.size(); ++i) {
            const JsonPath path = top.key("shards").index(i);
            const auto &shard = shards[i];
            CacheShard s;
            s.process = static_cast<int>(count(shard, path, "process", 1u << 30));
            s.file = string(shard, path, "file");
            s.first = static_cast<std::size_t>(count(shard, path, "first", kMaxSize));
            s.count = static_cast<std::size_t>(count(shard, path, "count", kMaxSize));
            s.bytes = count(shard, path, "bytes", UINT64_MAX);
            if (s.count == 0)
                throw JsonFieldError(path.key("count"), "expected at least 1 (a shard holds at least one sample), found 0");
            s.checksum = hex(shard, path, "checksum");
            if (s.file.empty() || s.file.find("..") != std::string::npos || s.file.front() == '/') {
                throw JsonFieldError(path.key("file"), "expected a path inside the cache (such as \"0/shard-00000.safetensors\"), found "
                    + jsonValueDescription(s.file));
            }
            m.shards.push_back(s);
        }
    } catch (const JsonFieldError &e) {
        if (error)
            *error = jsonFieldMessage(text, label, e);
        return false;
    }
    manifest = std::move(m);
    return true;
}

const CacheModelRecord *CacheManifest::model(const std::string &name) const
{
    for (const auto &m : models) {
        if (m.name == name)
            return &m;
    }
    return nullptr;
}

std::uint64_t CacheManifest::shardBytes() const
{
    std::uint64_t total = 0;
    for (const auto &s : shards)
        total += s.bytes;
    return total;
}

std::size_t CacheManifest::finishedSamples() const
{
    std::size_t total = 0;
    for (const auto &s : shards)
        total += s.count;
    return total;
}

std::uint64_t cacheIdentity(const CacheManifest &manifest)
{
    std::vector<const CacheShard *> byFirst;
    for (const CacheShard &s : manifest.shards)
        byFirst.push_back(&s);
    std::sort(byFirst.begin(), byFirst.end(), [](const CacheShard *a, const CacheShard *b) { return a->first < b->first; });
    Hasher hasher;
    hasher.updateU64(manifest.samples);
    for (const CacheShard *s : byFirst) {
        hasher.updateU64(s->first);
        hasher.updateU64(s->count);
        hasher.updateU64(s->bytes);
        hasher.updateU64(s->checksum);
    }
    return hasher.digest();
}

std::vector<std::string> compareCacheSettings(const CacheManifest &existing, const CacheManifest &wanted)
{
    std::vector<std::string> diffs;
    auto compare = [&](const std::string &what, const std::string &a, const std::string &b) {
        if (a != b)
            diffs.push_back(what + ": the cache has " + a + ", this run " + b);
    };
    compare("pipeline", existing.pipeline, wanted.pipeline);
    compare("pipeline description (hash)", hashToHex(existing.pipelineHash), hashToHex(wanted.pipelineHash));
    compare("task", existing.task + " (" + existing.loss + ")", wanted.task + " (" + wanted.loss + ")");
    compare("models requiring backward", listText(existing.modelsRequiringBackward), listText(wanted.modelsRequiringBackward));
    compare("stage-one units", listText(existing.stageOneUnits), listText(wanted.stageOneUnits));
    compare("stored params", listText(existing.cacheSet), listText(wanted.cacheSet));
    compare("--cache_all_params", existing.cacheAllParams ? "on" : "off", wanted.cacheAllParams ? "on" : "off");
    for (const auto &m : wanted.models) {
        const CacheModelRecord *old = existing.model(m.name);
        compare(m.name + " weights", old ? hashToHex(old->hash) : "none", hashToHex(m.hash));
    }
    for (const auto &m : existing.models) {
        if (!wanted.model(m.name))
            diffs.push_back(m.name + " weights: the cache used " + m.name + ", this run does not");
    }
    // A cache made before the tokenizer was recorded cannot show which one it used.
    const std::string oldTokenizer = existing.tokenizer ? hashToHex(existing.tokenizer->hash) : "none recorded";
    const std::string newTokenizer = wanted.tokenizer ? hashToHex(wanted.tokenizer->hash) : "none recorded";
    if (oldTokenizer != newTokenizer) {
        diffs.push_back("tokenizer: the cache has " + oldTokenizer
            + (existing.tokenizer ? " ('" + existing.tokenizer->path + "')" : std::string(" (made before caches recorded it)"))
            + ", this run " + newTokenizer + (wanted.tokenizer ? " ('" + wanted.tokenizer->path + "')" : std::string()));
    }
    compare("dataset fingerprint (metadata.csv and image files)", hashToHex(existing.datasetFingerprint),
        hashToHex(wanted.datasetFingerprint));
    compare("samples", std::to_string(existing.samples), std::to_string(wanted.samples));
    for (const auto &[key, value] : wanted.settings) {
        const auto it = existing.settings.find(key);
        compare(key, it == existing.settings.end() ? "(none)" : it->second, value);
    }
    return diffs;
}

} // namespace splitscope::engine
