// SPDX-License-Identifier: MIT
#include "CacheWriter.h"

#include "Events.h"
#include "Hash.h"
#include "TensorIO.h"
#include "UnitRuntime.h"
#include "core/AtomicFile.h"

#include <cstdio>
#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

std::string CacheWriter::shardFile(int process, std::size_t shardIndex)
{
    char name[64];
    std::snprintf(name, sizeof(name), "%d/shard-%05zu.safetensors", process, shardIndex);
    return name;
}

void CacheWriter::add(std::size_t sample, const ValueMap &values)
{
    for (const auto &[param, value] : values) {
        const std::string key = std::to_string(sample) + "/" + param;
        addTensor(m_writer, key, valueToTensor(value));
        m_kinds += (m_kinds.size() > 1 ? "," : "") + jsonQuote(key) + ":" + jsonQuote(valueKindName(value.kind));
    }
    ++m_samples;
}

CacheShard CacheWriter::write(const std::string &cacheDir, int process, std::size_t shardIndex, std::size_t first)
{
    m_writer.setMetadata("splitscope.format", kShardFormat);
    m_writer.setMetadata("splitscope.kinds", m_kinds + "}");
    m_writer.setMetadata("splitscope.samples", std::to_string(first) + ":" + std::to_string(m_samples));
    CacheShard shard;
    shard.process = process;
    shard.file = shardFile(process, shardIndex);
    shard.first = first;
    shard.count = m_samples;
    const std::string bytes = m_writer.serialize();
    shard.bytes = bytes.size();
    shard.checksum = hashBytes(bytes.data(), bytes.size());
    const fs::path path = fs::path(cacheDir) / shard.file;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::string error;
    if (ec || !writeFileAtomically(path.string(), bytes, &error))
        throw EngineError("cannot write cache shard: " + (ec ? path.parent_path().string() + ": " + ec.message() : error));
    return shard;
}

} // namespace splitscope::engine
