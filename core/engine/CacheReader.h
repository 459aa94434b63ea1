// SPDX-License-Identifier: MIT
#pragma once

#include "CacheLayout.h"
#include "CacheManifest.h"
#include "Safetensors.h"
#include "Values.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace splitscope::engine {

// Reads samples from a stage-one cache. checkShards() checks the whole cache up
// front, from the shards' sizes and headers; each shard is checked again when it is
// first used, checksum included (it may have changed on disk since, and only the
// checksum shows bytes of tensor data changed in place), so a damaged shard is
// reported by name before any of its data is used. Thread-safe (the prefetching
// reader calls it from its threads).
//
// Shards are read with pread(), straight into the tensors, not mapped: another
// process truncating a mapped file turns the next touch of a page past its new end
// into SIGBUS, which kills the run. A read comes up short instead, and every read
// first checks that the shard is still the file that was checked (same inode, size and
// modification time), so a shard truncated, replaced or rewritten while stage two runs
// is an EngineInputError naming it.
class CacheReader {
public:
    CacheReader(std::string cacheDir, const CacheManifest &manifest, CacheLayout layout);

    // Checks the cache before any of it is read: the manifest's shards hold each
    // sample once, and every shard exists, has the manifest's size and a header that
    // parses, covers the file exactly and fits `layout`. Reads headers only, not the
    // data: the checksums are left to read(). False with `error` naming each bad
    // shard (the first few) and what is wrong, and saying to rerun stage one.
    // `visit` (optional) is called with each tensor of the shards checked, as their
    // headers give it (sample, param, shape), e.g. to estimate the memory of the largest
    // step before the first; it sees them all only when the check passes.
    using TensorVisitor = std::function<void(std::size_t sample, const std::string &param, const std::vector<std::int64_t> &shape)>;
    bool checkShards(std::string *error, const TensorVisitor &visit = {}) const;

    // The sample's stored params; throws EngineInputError for a missing or corrupt
    // shard (bad input: its message says to rerun stage one).
    ValueMap read(std::size_t sample);
    std::uint64_t bytesRead() const { return m_bytesRead.load(); }

private:
    // A shard checked on first use: its header, and the file it was read from.
    struct OpenShard {
        std::string path;
        SafetensorsFile file; // the header only (parseHeader): the data is read from `path`
        std::map<std::string, Value::Kind> kinds;
        std::uint64_t device = 0;
        std::uint64_t inode = 0;
        std::uint64_t size = 0;
        std::int64_t modifiedNs = 0;
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
