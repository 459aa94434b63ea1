// SPDX-License-Identifier: MIT
#pragma once

#include "CacheManifest.h"
#include "Safetensors.h"
#include "Values.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace splitscope::engine {

// Reads samples from a stage-one cache. Each shard is mapped on first use and
// checked against the manifest (size, checksum, shard format, the samples it
// claims), so a truncated or corrupted shard is reported by name before any of its
// data is used. Thread-safe (the prefetching reader calls it from its threads).
class CacheReader {
public:
    CacheReader(std::string cacheDir, const CacheManifest &manifest);

    // The sample's stored params; throws EngineInputError for a missing or corrupt
    // shard (bad input: its message says to rerun stage one).
    ValueMap read(std::size_t sample);
    std::uint64_t bytesRead() const { return m_bytesRead.load(); }

private:
    struct OpenShard {
        MappedFile raw;
        SafetensorsFile file; // parsed from `raw`
        std::map<std::string, Value::Kind> kinds;
    };
    const OpenShard &shard(std::size_t index);

    std::string m_dir;
    CacheManifest m_manifest;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<OpenShard>> m_open;
    std::atomic<std::uint64_t> m_bytesRead{0};
};

} // namespace splitscope::engine
