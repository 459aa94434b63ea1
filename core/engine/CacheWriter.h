// SPDX-License-Identifier: MIT
#pragma once

#include "CacheManifest.h"
#include "Safetensors.h"
#include "Values.h"

#include <string>

namespace splitscope::engine {

// One shard of the stage-one cache: the stored params of consecutive samples, as a
// safetensors file with tensors "<sample>/<param>" and metadata
//   "splitscope.format": "splitscope.cache-shard/1"
//   "splitscope.kinds":  {"<sample>/<param>": "tensor" | "int" | ... } (JSON)
// (Values.h says how each kind is stored). Written atomically.
class CacheWriter {
public:
    static constexpr const char *kShardFormat = "splitscope.cache-shard/1";

    void add(std::size_t sample, const ValueMap &values);
    std::size_t sampleCount() const { return m_samples; }
    // Writes CACHE/<process>/shard-NNNNN.safetensors; throws EngineError on failure.
    CacheShard write(const std::string &cacheDir, int process, std::size_t shardIndex, std::size_t first);

    static std::string shardFile(int process, std::size_t shardIndex);

private:
    SafetensorsWriter m_writer;
    std::string m_kinds = "{";
    std::size_t m_samples = 0;
};

} // namespace splitscope::engine
