// SPDX-License-Identifier: MIT
#include "CacheManifest.h"

#include "Hash.h"
#include "JsonDocument.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace splitscope::engine {

namespace {

using Json = nlohmann::ordered_json;

std::string listText(const std::vector<std::string> &items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + items[i];
    return out + "]";
}

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
    auto fail = [&](const std::string &message) {
        if (error)
            *error = label + ": " + message;
        return false;
    };
    nlohmann::json doc;
    if (!parseJsonObject(text, label, doc, error))
        return false;
    const auto format = doc.find("format");
    if (format == doc.end() || !format->is_string() || format->get<std::string>() != kFormat)
        return fail(std::string("\"format\" is not \"") + kFormat + "\" (not a Splitscope cache, or a newer one)");
    CacheManifest m;
    try {
        auto hex = [&](const nlohmann::json &value, const std::string &key, std::uint64_t &out) {
            if (!value.is_string() || !hashFromHex(value.get<std::string>(), out))
                throw std::runtime_error(key + " is not a 16-digit hex hash");
        };
        // A count, index or size: a whole number of at least 0 (a float such as 1e30 or a
        // negative number would wrap around when converted).
        auto count = [&](const nlohmann::json &object, const std::string &key, const std::string &path) {
            const nlohmann::json &value = object.at(key);
            if (!value.is_number_unsigned())
                throw std::runtime_error(path + " is " + value.dump() + ", not a whole number of at least 0");
            return value.get<std::uint64_t>();
        };
        auto array = [&](const nlohmann::json &object, const std::string &key) -> const nlohmann::json & {
            const nlohmann::json &value = object.at(key);
            if (!value.is_array())
                throw std::runtime_error(key + " is not a list");
            return value;
        };
        m.complete = doc.at("complete").get<bool>();
        m.createdBy = doc.value("created_by", "");
        m.pipeline = doc.at("pipeline").get<std::string>();
        hex(doc.at("pipeline_hash"), "pipeline_hash", m.pipelineHash);
        m.task = doc.at("task").get<std::string>();
        m.loss = doc.at("loss").get<std::string>();
        const auto &split = doc.at("split");
        m.splitMode = split.at("mode").get<std::string>();
        m.modelsRequiringBackward = split.at("models_require_backward").get<std::vector<std::string>>();
        m.stageOneUnits = split.at("stage_one_units").get<std::vector<std::string>>();
        m.stageTwoUnits = split.at("stage_two_units").get<std::vector<std::string>>();
        m.allowHazards = split.at("allow_hazards").get<bool>();
        m.hazards = split.at("hazards").get<std::vector<std::string>>();
        m.cacheSet = doc.at("cache_set").get<std::vector<std::string>>();
        m.cacheAllParams = doc.at("cache_all_params").get<bool>();
        for (const auto &model : array(doc, "models")) {
            CacheModelRecord record;
            record.name = model.at("name").get<std::string>();
            record.spec = model.at("spec").get<std::string>();
            hex(model.at("weights_hash"), "models[].weights_hash", record.hash);
            m.models.push_back(record);
        }
        // Absent from caches made before it was recorded.
        if (const auto tokenizer = doc.find("tokenizer"); tokenizer != doc.end()) {
            CacheTokenizerRecord record;
            record.path = tokenizer->at("path").get<std::string>();
            hex(tokenizer->at("hash"), "tokenizer.hash", record.hash);
            m.tokenizer = record;
        }
        const auto &dataset = doc.at("dataset");
        m.datasetBasePath = dataset.at("base_path").get<std::string>();
        m.datasetMetadataPath = dataset.at("metadata_path").get<std::string>();
        hex(dataset.at("fingerprint"), "dataset.fingerprint", m.datasetFingerprint);
        m.samples = static_cast<std::size_t>(count(dataset, "samples", "dataset.samples"));
        if (!doc.at("settings").is_object())
            throw std::runtime_error("settings is not an object");
        for (auto it = doc.at("settings").begin(); it != doc.at("settings").end(); ++it)
            m.settings[it.key()] = it.value().get<std::string>();
        for (const auto &shard : array(doc, "shards")) {
            CacheShard s;
            s.process = static_cast<int>(std::min<std::uint64_t>(count(shard, "process", "shards[].process"), 1u << 30));
            s.file = shard.at("file").get<std::string>();
            s.first = static_cast<std::size_t>(count(shard, "first", "shards[].first"));
            s.count = static_cast<std::size_t>(count(shard, "count", "shards[].count"));
            s.bytes = count(shard, "bytes", "shards[].bytes");
            if (s.count == 0)
                throw std::runtime_error("shards[].count is 0: a shard holds at least one sample");
            hex(shard.at("checksum"), "shards[].checksum", s.checksum);
            if (s.file.empty() || s.file.find("..") != std::string::npos || s.file.front() == '/')
                throw std::runtime_error("shards[].file '" + s.file + "' is not a path inside the cache");
            m.shards.push_back(s);
        }
    } catch (const nlohmann::json::exception &e) {
        return fail(std::string("missing or malformed key (") + e.what() + ")");
    } catch (const std::runtime_error &e) {
        return fail(e.what());
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
