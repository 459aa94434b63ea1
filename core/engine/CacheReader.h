// SPDX-License-Identifier: MIT
#pragma once

#include "CacheLayout.h"
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

// Reads samples from a stage-one cache. checkShards() checks the whole cache up
// front, from the shards' sizes and headers; each shard is checked again when it is
// mapped on first use, checksum included (it may have changed on disk since, and
// only the checksum shows bytes of tensor data changed in place), so a damaged shard
// is reported by name before any of its data is used. Thread-safe (the prefetching
// reader calls it from its threads).
class CacheReader {
public:
    CacheReader(std::string cacheDir, const CacheManifest &manifest, CacheLayout layout);

    // Checks the cache before any of it is read: the manifest's shards hold each
    // sample once, and every shard exists, has the manifest's size and a header that
    // parses, covers the file exactly and fits `layout`. Reads headers only, not the
    // data: the checksums are left to read(). False with `error` naming each bad
    // shard (the first few) and what is wrong, and saying to rerun stage one.
    bool checkShards(std::string *error) const;

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
    CacheLayout m_layout;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<OpenShard>> m_open;
    std::atomic<std::uint64_t> m_bytesRead{0};
};

} // namespace splitscope::engine
