// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::engine {

// `manifest.json` of a stage-one cache (DESIGN.md §4), format "splitscope.cache/1".
// It records what stage two must agree with (pipeline hash, split, the weights of the
// models stage one ran and its tokenizer, stored params), where the data came from, the stage-one
// settings, and each finished shard with its size and checksum. Stage one rewrites
// it atomically after every shard, so a killed run leaves a valid manifest listing
// exactly the shards that are complete.
struct CacheShard {
    int process = 0;
    std::string file; // relative to the cache folder, e.g. "0/shard-00003.safetensors"
    std::size_t first = 0;
    std::size_t count = 0;
    std::uint64_t bytes = 0;
    std::uint64_t checksum = 0;
};

struct CacheModelRecord {
    std::string name; // "vae"
    std::string spec; // "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors"
    std::uint64_t hash = 0;
};

// The tokenizer stage one's text encoder used: the file it was read from, and its hash
// as model weights are hashed (hashFileSet: name, size, bytes).
struct CacheTokenizerRecord {
    std::string path;
    std::uint64_t hash = 0;
};

struct CacheManifest {
    static constexpr const char *kFormat = "splitscope.cache/1";

    bool complete = false;
    std::string pipeline;
    std::uint64_t pipelineHash = 0;
    std::string task; // "sft", "direct_distill"
    std::string loss;
    std::string splitMode;
    std::vector<std::string> modelsRequiringBackward;
    std::vector<std::string> stageOneUnits;
    std::vector<std::string> stageTwoUnits;
    bool allowHazards = false;
    std::vector<std::string> hazards; // as text, when forced with --allow_hazards
    std::vector<std::string> cacheSet; // params stage two reads from the cache
    bool cacheAllParams = false;
    std::vector<CacheModelRecord> models; // the models stage one ran (V2's)
    // "tokenizer" in the file, present when stage one ran the text encoder. Optional,
    // so that the format stays splitscope.cache/1: caches made before it was recorded
    // still read (stage two then says it cannot check the tokenizer), and older
    // versions read these.
    std::optional<CacheTokenizerRecord> tokenizer;
    std::string datasetBasePath;
    std::string datasetMetadataPath;
    std::uint64_t datasetFingerprint = 0;
    std::size_t samples = 0;
    std::map<std::string, std::string> settings; // stage-one settings that shape the cache
    std::vector<CacheShard> shards;
    std::string createdBy;

    std::string toJson() const;
    // False with `error` naming the file and key.
    static bool parse(const std::string &text, const std::string &label, CacheManifest &manifest, std::string *error);

    const CacheModelRecord *model(const std::string &name) const;
    std::uint64_t shardBytes() const;
    std::size_t finishedSamples() const;
};

// What a cache holds, from its manifest alone: the shards' samples, sizes and
// checksums (not where the cache lies, nor the dataset's modification times). A cache
// rebuilt from other data, or with other settings, has another identity; one rebuilt
// the same way has the same. Stage two's resume state records it (TrainingState.h).
std::uint64_t cacheIdentity(const CacheManifest &manifest);

// Differences (one line each) between a cache and the one a stage-one run would
// make: everything but the shards and the completion flag. Empty when they agree.
std::vector<std::string> compareCacheSettings(const CacheManifest &existing, const CacheManifest &wanted);

} // namespace splitscope::engine
