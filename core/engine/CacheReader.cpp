// SPDX-License-Identifier: MIT
#include "CacheReader.h"

#include "Hash.h"
#include "TensorIO.h"
#include "UnitRuntime.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

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

std::int64_t modifiedNs(const struct stat &st)
{
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// A shard open for reading with pread(); closed on destruction. Errors name the file.
class ShardFile {
public:
    explicit ShardFile(std::string path)
        : m_path(std::move(path))
    {
    }
    ~ShardFile()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    ShardFile(const ShardFile &) = delete;
    ShardFile &operator=(const ShardFile &) = delete;

    // False with `error` ("cannot open 'path': reason"); a shard that is not a regular
    // file is refused (a named pipe would wait for a writer, a device never end).
    bool open(std::string &error)
    {
        // O_NONBLOCK: opening a named pipe put in a shard's place must not wait.
        m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (m_fd < 0) {
            error = "cannot open '" + m_path + "': " + std::strerror(errno);
            return false;
        }
        if (::fstat(m_fd, &m_status) != 0) {
            error = "cannot read '" + m_path + "': " + std::strerror(errno);
            return false;
        }
        if (!S_ISREG(m_status.st_mode)) {
            error = "'" + m_path + "' is not a regular file";
            return false;
        }
        return true;
    }
    const struct stat &status() const { return m_status; }
    std::uint64_t size() const { return static_cast<std::uint64_t>(m_status.st_size); }

    // Reads `size` bytes at `offset`. False with `error` when the file ends first
    // (`truncated` set: it was truncated since it was checked) or reading fails.
    bool readAt(void *buffer, std::size_t size, std::uint64_t offset, std::string &error, bool &truncated)
    {
        truncated = false;
        auto *out = static_cast<unsigned char *>(buffer);
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = ::pread(m_fd, out + done, size - done, static_cast<off_t>(offset + done));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                error = "cannot read '" + m_path + "': " + std::strerror(errno);
                return false;
            }
            if (n == 0) {
                truncated = true;
                error = "corrupt cache shard '" + m_path + "': it ends at byte " + std::to_string(offset + done) + ", before byte "
                    + std::to_string(offset + size) + " (truncated while stage two was reading it?)";
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

    // The first bytes of the file that hold its safetensors header (the 8-byte length
    // and the header it gives), or fewer when the length is implausible, which
    // SafetensorsFile::parseHeader then reports.
    bool readHeader(std::vector<unsigned char> &header, std::string &error, bool &truncated)
    {
        header.assign(static_cast<std::size_t>(std::min<std::uint64_t>(8, size())), 0);
        if (!readAt(header.data(), header.size(), 0, error, truncated))
            return false;
        if (header.size() < 8)
            return true;
        std::uint64_t length = 0;
        for (int i = 7; i >= 0; --i)
            length = (length << 8) | header[static_cast<std::size_t>(i)];
        if (length > kMaxSafetensorsHeaderBytes || length > size() - 8)
            return true;
        header.resize(8 + static_cast<std::size_t>(length));
        return readAt(header.data() + 8, static_cast<std::size_t>(length), 8, error, truncated);
    }

private:
    std::string m_path;
    int m_fd = -1;
    struct stat m_status {};
};

} // namespace

CacheReader::CacheReader(std::string cacheDir, const CacheManifest &manifest, CacheLayout layout)
    : m_dir(std::move(cacheDir))
    , m_manifest(manifest)
    , m_layout(std::move(layout))
    , m_open(manifest.shards.size())
{
}

bool CacheReader::checkShards(std::string *error, const TensorVisitor &visit) const
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
        // Only the header is read.
        ShardFile raw(path);
        std::string failure;
        if (!raw.open(failure)) {
            problem("cache shard " + failure);
            continue;
        }
        if (raw.size() != s.bytes) {
            problem(sizeMismatch(path, raw.size(), s.bytes));
            continue;
        }
        std::vector<unsigned char> header;
        bool truncated = false;
        if (!raw.readHeader(header, failure, truncated)) {
            problem(truncated ? failure : "cache shard " + failure);
            continue;
        }
        SafetensorsFile file;
        std::map<std::string, std::string> kinds;
        if (!file.parseHeader(header.data(), header.size(), raw.size(), path, &failure)) {
            problem("corrupt cache shard " + failure);
        } else if (!m_layout.checkShard(file, s, kinds, &failure)) {
            problem(failure);
        } else if (visit) {
            for (const TensorInfo &t : file.tensors()) {
                std::size_t sample = 0;
                std::string param;
                if (splitTensorName(t.name, sample, param))
                    visit(sample, param, t.shape);
            }
        }
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
    open->path = path;
    std::string error;
    bool truncated = false;
    ShardFile raw(path);
    if (!raw.open(error))
        throw EngineInputError("cache shard " + error + rebuild);
    if (raw.size() != s.bytes)
        throw EngineInputError(sizeMismatch(path, raw.size(), s.bytes) + rebuild);
    // The checksum covers the whole file, read in chunks; the header is parsed only if it matches.
    {
        constexpr std::size_t kChunk = std::size_t(1) << 20;
        std::vector<unsigned char> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, raw.size())));
        Hasher hasher;
        for (std::uint64_t offset = 0; offset < raw.size(); offset += buffer.size()) {
            const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), raw.size() - offset));
            if (!raw.readAt(buffer.data(), size, offset, error, truncated)) {
                if (truncated)
                    throw EngineInputError(error + rebuild);
                throw EngineError(error);
            }
            hasher.update(buffer.data(), size);
        }
        const std::uint64_t checksum = hasher.digest();
        if (checksum != s.checksum) {
            throw EngineInputError("corrupt cache shard '" + path + "': checksum " + hashToHex(checksum) + ", the manifest says "
                + hashToHex(s.checksum) + rebuild);
        }
    }
    std::vector<unsigned char> header;
    if (!raw.readHeader(header, error, truncated)) {
        if (truncated)
            throw EngineInputError(error + rebuild);
        throw EngineError(error);
    }
    if (!open->file.parseHeader(header.data(), header.size(), raw.size(), path, &error))
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
    const struct stat &st = raw.status();
    open->device = static_cast<std::uint64_t>(st.st_dev);
    open->inode = static_cast<std::uint64_t>(st.st_ino);
    open->size = raw.size();
    open->modifiedNs = modifiedNs(st);
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
    const std::string rebuild = std::string(" (") + kRebuild + ")";
    // Opened for each read: a descriptor kept per shard would run out with thousands of shards.
    ShardFile raw(open.path);
    std::string error;
    if (!raw.open(error))
        throw EngineInputError("cache shard " + error + rebuild);
    const struct stat &st = raw.status();
    std::string change;
    if (static_cast<std::uint64_t>(st.st_dev) != open.device || static_cast<std::uint64_t>(st.st_ino) != open.inode)
        change = "another file has replaced it";
    else if (raw.size() != open.size)
        change = "it has " + std::to_string(raw.size()) + " bytes, " + std::to_string(open.size) + " when checked"
            + (raw.size() < open.size ? " (truncated)" : "");
    else if (modifiedNs(st) != open.modifiedNs)
        change = "it was modified";
    if (!change.empty())
        throw EngineInputError("cache shard '" + open.path + "' changed after stage two checked it: " + change + rebuild);
    const std::string prefix = std::to_string(sample) + "/";
    ValueMap values;
    std::uint64_t bytes = 0;
    for (const TensorInfo &t : open.file.tensors()) {
        if (t.name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const auto kind = open.kinds.find(t.name);
        if (kind == open.kinds.end())
            throw EngineInputError("cache shard '" + open.path + "': no kind recorded for '" + t.name + "'");
        torch::Tensor tensor = torch::empty(t.shape, torch::TensorOptions().dtype(scalarTypeOf(t.dtype)));
        bool truncated = false;
        if (t.byteSize() > 0 && !raw.readAt(tensor.data_ptr(), t.byteSize(), open.file.headerSize() + t.begin, error, truncated)) {
            if (truncated)
                throw EngineInputError(error + rebuild);
            throw EngineError(error);
        }
        values[t.name.substr(prefix.size())] = valueFromTensor(kind->second, tensor);
        bytes += t.byteSize();
    }
    m_bytesRead += bytes;
    return values;
}

} // namespace splitscope::engine
