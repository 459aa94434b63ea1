// SPDX-License-Identifier: MIT
#include "CacheReader.h"

#include "Hash.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

#include <algorithm>
#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

// Stage two names the cache with --dataset_base_path; stage one wrote it to its --output_path.
const char *const kRebuild = "rebuild it by running stage one (*:data_process) again with this cache folder as its "
                             "--output_path";
// Problems listed in checkShards' message; the rest are counted.
constexpr std::size_t kListedProblems = 10;

// "sample 3" or "samples 3 to 5".
std::string sampleRange(std::size_t first, std::size_t last)
{
    return first == last ? "sample " + std::to_string(first) : "samples " + std::to_string(first) + " to " + std::to_string(last);
}

std::string sizeMismatch(const std::string &path, std::uint64_t size, std::uint64_t expected)
{
    return "corrupt cache shard '" + path + "': " + std::to_string(size) + " bytes, the manifest says " + std::to_string(expected)
        + (size < expected ? " (truncated?)" : "");
}

} // namespace

CacheReader::CacheReader(std::string cacheDir, const CacheManifest &manifest, CacheLayout layout)
    : m_dir(std::move(cacheDir))
    , m_manifest(manifest)
    , m_layout(std::move(layout))
    , m_open(manifest.shards.size())
{
}

bool CacheReader::checkShards(std::string *error) const
{
    std::vector<std::string> problems;
    std::size_t count = 0;
    auto problem = [&](const std::string &text) {
        if (++count <= kListedProblems)
            problems.push_back(text);
    };

    // Every sample in exactly one shard (read() would find no shard for a gap).
    const std::string manifestPath = (fs::path(m_dir) / "manifest.json").string();
    std::vector<const CacheShard *> byFirst;
    for (const CacheShard &s : m_manifest.shards)
        byFirst.push_back(&s);
    std::sort(byFirst.begin(), byFirst.end(), [](const CacheShard *a, const CacheShard *b) { return a->first < b->first; });
    std::size_t next = 0;                 // the first sample no shard so far holds
    const CacheShard *reaching = nullptr; // the shard that holds sample next - 1
    for (const CacheShard *s : byFirst) {
        if (s->first > m_manifest.samples || s->count > m_manifest.samples - s->first) {
            problem("'" + manifestPath + "' gives shard '" + s->file + "' samples beyond the cache's "
                + std::to_string(m_manifest.samples));
            continue;
        }
        if (s->first > next)
            problem("'" + manifestPath + "' lists no shard for " + sampleRange(next, s->first - 1));
        else if (s->first < next)
            problem("'" + manifestPath + "' gives sample " + std::to_string(s->first) + " to both '" + reaching->file + "' and '"
                + s->file + "'");
        if (s->first + s->count > next) {
            next = s->first + s->count;
            reaching = s;
        }
    }
    if (next < m_manifest.samples)
        problem("'" + manifestPath + "' lists no shard for " + sampleRange(next, m_manifest.samples - 1));

    for (const CacheShard &s : m_manifest.shards) {
        const std::string path = (fs::path(m_dir) / s.file).string();
        std::error_code ec;
        const fs::file_status status = fs::status(path, ec);
        if (status.type() == fs::file_type::not_found) {
            problem("cache shard '" + path + "' is missing");
            continue;
        }
        // (Opening a named pipe would wait for a writer.)
        if (!ec && !fs::is_regular_file(status)) {
            problem("cache shard '" + path + "' is not a regular file");
            continue;
        }
        // Mapping reads nothing; parsing the header touches only its pages.
        MappedFile raw;
        std::string failure;
        if (!raw.open(path, &failure)) {
            problem("cache shard " + failure);
            continue;
        }
        if (raw.size() != s.bytes) {
            problem(sizeMismatch(path, raw.size(), s.bytes));
            continue;
        }
        SafetensorsFile file;
        std::map<std::string, std::string> kinds;
        if (!file.parse(raw.data(), raw.size(), path, &failure))
            problem("corrupt cache shard " + failure);
        else if (!m_layout.checkShard(file, s, kinds, &failure))
            problem(failure);
    }

    if (count == 0)
        return true;
    if (error) {
        if (count == 1) {
            *error = problems.front() + " (" + kRebuild + ")";
        } else {
            *error = "the cache at '" + m_dir + "' has " + std::to_string(count) + " problems:";
            for (const auto &p : problems)
                *error += "\n  " + p;
            if (count > problems.size())
                *error += "\n  and " + std::to_string(count - problems.size()) + " more";
            *error += std::string("\n") + kRebuild;
        }
    }
    return false;
}

const CacheReader::OpenShard &CacheReader::shard(std::size_t index)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_open[index])
        return *m_open[index];
    const CacheShard &s = m_manifest.shards[index];
    const std::string path = (fs::path(m_dir) / s.file).string();
    const std::string rebuild = std::string(" (") + kRebuild + ")";
    auto open = std::make_unique<OpenShard>();
    std::string error;
    // The checksum covers the whole file; the header is parsed only if it matches.
    if (!open->raw.open(path, &error))
        throw EngineInputError("cache shard " + error + rebuild);
    if (open->raw.size() != s.bytes)
        throw EngineInputError(sizeMismatch(path, open->raw.size(), s.bytes) + rebuild);
    const std::uint64_t checksum = hashBytes(open->raw.data(), open->raw.size());
    if (checksum != s.checksum) {
        throw EngineInputError("corrupt cache shard '" + path + "': checksum " + hashToHex(checksum) + ", the manifest says "
            + hashToHex(s.checksum) + rebuild);
    }
    if (!open->file.parse(open->raw.data(), open->raw.size(), path, &error))
        throw EngineInputError("corrupt cache shard " + error + rebuild);
    std::map<std::string, std::string> kinds;
    if (!m_layout.checkShard(open->file, s, kinds, &error))
        throw EngineInputError(error + rebuild);
    for (const auto &[name, kind] : kinds) {
        Value::Kind parsed;
        if (!parseValueKind(kind, parsed))
            throw EngineInputError("cache shard '" + path + "': unknown kind for '" + name + "'" + rebuild);
        open->kinds[name] = parsed;
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
