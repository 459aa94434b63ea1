// SPDX-License-Identifier: MIT
#include "CacheReader.h"

#include "CacheWriter.h"
#include "Hash.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

CacheReader::CacheReader(std::string cacheDir, const CacheManifest &manifest)
    : m_dir(std::move(cacheDir))
    , m_manifest(manifest)
    , m_open(manifest.shards.size())
{
}

const CacheReader::OpenShard &CacheReader::shard(std::size_t index)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_open[index])
        return *m_open[index];
    const CacheShard &s = m_manifest.shards[index];
    const std::string path = (fs::path(m_dir) / s.file).string();
    const std::string rebuild = " (rerun the stage-one command, *:data_process, with this --output_path to rebuild it)";
    auto open = std::make_unique<OpenShard>();
    std::string error;
    // The checksum covers the whole file; the header is parsed only if it matches.
    if (!open->raw.open(path, &error))
        throw EngineInputError("cache shard " + error + rebuild);
    if (open->raw.size() != s.bytes) {
        throw EngineInputError("corrupt cache shard '" + path + "': " + std::to_string(open->raw.size())
            + " bytes, the manifest says " + std::to_string(s.bytes) + rebuild);
    }
    const std::uint64_t checksum = hashBytes(open->raw.data(), open->raw.size());
    if (checksum != s.checksum) {
        throw EngineInputError("corrupt cache shard '" + path + "': checksum " + hashToHex(checksum) + ", the manifest says "
            + hashToHex(s.checksum) + rebuild);
    }
    if (!open->file.parse(open->raw.data(), open->raw.size(), path, &error))
        throw EngineInputError("corrupt cache shard " + error + rebuild);
    const auto &meta = open->file.metadata();
    const auto format = meta.find("splitscope.format");
    const auto kinds = meta.find("splitscope.kinds");
    if (format == meta.end() || format->second != CacheWriter::kShardFormat || kinds == meta.end())
        throw EngineInputError("cache shard '" + path + "' is not a Splitscope cache shard" + rebuild);
    try {
        const nlohmann::json parsed = nlohmann::json::parse(kinds->second);
        for (const auto &[key, value] : parsed.items()) {
            Value::Kind kind;
            if (!value.is_string() || !parseValueKind(value.get<std::string>(), kind))
                throw EngineInputError("cache shard '" + path + "': unknown kind for '" + key + "'" + rebuild);
            open->kinds[key] = kind;
        }
    } catch (const nlohmann::json::exception &e) {
        throw EngineInputError("cache shard '" + path + "': bad splitscope.kinds metadata (" + e.what() + ")" + rebuild);
    }
    m_open[index] = std::move(open);
    return *m_open[index];
}

ValueMap CacheReader::read(std::size_t sample)
{
    std::size_t index = m_manifest.shards.size();
    for (std::size_t i = 0; i < m_manifest.shards.size(); ++i) {
        const CacheShard &s = m_manifest.shards[i];
        if (sample >= s.first && sample < s.first + s.count) {
            index = i;
            break;
        }
    }
    if (index == m_manifest.shards.size())
        throw EngineInputError("the cache's manifest lists no shard holding sample " + std::to_string(sample));
    const OpenShard &open = shard(index);
    const std::string prefix = std::to_string(sample) + "/";
    ValueMap values;
    std::uint64_t bytes = 0;
    for (const TensorInfo &t : open.file.tensors()) {
        if (t.name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const auto kind = open.kinds.find(t.name);
        if (kind == open.kinds.end())
            throw EngineInputError("cache shard '" + open.file.path() + "': no kind recorded for '" + t.name + "'");
        values[t.name.substr(prefix.size())] = valueFromTensor(kind->second, readTensor(open.file, t));
        bytes += t.byteSize();
    }
    m_bytesRead += bytes;
    return values;
}

} // namespace splitscope::engine
