// SPDX-License-Identifier: MIT
#include "Hash.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <optional>
#include <vector>

namespace splitscope::engine {

namespace {

// Multipliers from the splitmix64 / xxHash family: odd, with well-spread bits.
constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;

std::uint64_t rotateLeft(std::uint64_t value, int bits)
{
    return (value << bits) | (value >> (64 - bits));
}

// splitmix64's finalizer: every input bit affects every output bit.
std::uint64_t avalanche(std::uint64_t value)
{
    value ^= value >> 30;
    value *= 0xBF58476D1CE4E5B9ULL;
    value ^= value >> 27;
    value *= 0x94D049BB133111EBULL;
    value ^= value >> 31;
    return value;
}

std::uint64_t loadLittleEndian(const unsigned char *bytes)
{
    std::uint64_t word = 0;
    for (int i = 7; i >= 0; --i)
        word = (word << 8) | bytes[i];
    return word;
}

// The regular file at `path`, open for reading, and its size when opened.
class InputFile {
public:
    ~InputFile()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool open(const std::string &path, std::string *error)
    {
        m_path = path;
        m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (m_fd < 0)
            return fail(error, "cannot open", std::strerror(errno));
        struct stat st {};
        if (::fstat(m_fd, &st) != 0)
            return fail(error, "cannot read", std::strerror(errno));
        // A device such as /dev/zero would never end; a pipe cannot be read twice.
        if (!S_ISREG(st.st_mode))
            return fail(error, "cannot read", S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file");
        m_size = static_cast<std::uint64_t>(st.st_size);
        return true;
    }
    std::uint64_t size() const { return m_size; }
    // Feeds every byte to `hasher`, in chunks through read(); false with `error` when
    // reading fails or the file no longer has the size it had when opened (it was
    // truncated or grew meanwhile: the digest would not be the file's).
    bool feed(Hasher &hasher, std::string *error)
    {
        constexpr std::size_t kChunk = std::size_t(1) << 20;
        std::vector<unsigned char> buffer(kChunk);
        std::uint64_t total = 0;
        while (true) {
            const ssize_t n = ::read(m_fd, buffer.data(), buffer.size());
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return fail(error, "cannot read", std::strerror(errno));
            }
            if (n == 0)
                break;
            hasher.update(buffer.data(), static_cast<std::size_t>(n));
            total += static_cast<std::uint64_t>(n);
            if (total > m_size)
                break;
        }
        if (total != m_size) {
            return fail(error, "cannot read", "it changed while it was read (" + std::to_string(m_size)
                + " bytes when opened, " + (total > m_size ? "more" : std::to_string(total)) + " read)");
        }
        return true;
    }

private:
    bool fail(std::string *error, const char *what, const std::string &reason) const
    {
        if (error)
            *error = std::string(what) + " '" + m_path + "': " + reason;
        return false;
    }

    std::string m_path;
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

} // namespace

Hasher::Hasher(std::uint64_t seed)
    : m_state(seed ^ kPrime3)
{
}

void Hasher::mixWord(std::uint64_t word)
{
    m_state ^= rotateLeft(word * kPrime2, 31) * kPrime1;
    m_state = rotateLeft(m_state, 27) * kPrime1 + kPrime3;
}

void Hasher::update(const void *data, std::size_t size)
{
    const auto *bytes = static_cast<const unsigned char *>(data);
    m_length += size;
    if (m_pendingSize > 0) {
        const std::size_t take = std::min(size, sizeof(m_pending) - m_pendingSize);
        std::memcpy(m_pending + m_pendingSize, bytes, take);
        m_pendingSize += take;
        bytes += take;
        size -= take;
        if (m_pendingSize < sizeof(m_pending))
            return;
        mixWord(loadLittleEndian(m_pending));
        m_pendingSize = 0;
    }
    while (size >= 8) {
        mixWord(loadLittleEndian(bytes));
        bytes += 8;
        size -= 8;
    }
    std::memcpy(m_pending, bytes, size);
    m_pendingSize = size;
}

void Hasher::updateField(std::string_view text)
{
    updateU64(text.size());
    update(text);
}

void Hasher::updateU64(std::uint64_t value)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i)
        bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    update(bytes, sizeof(bytes));
}

std::uint64_t Hasher::digest() const
{
    std::uint64_t state = m_state;
    // The tail goes in byte by byte, then the length, so that trailing zero bytes count.
    for (std::size_t i = 0; i < m_pendingSize; ++i)
        state = rotateLeft(state ^ (m_pending[i] * kPrime3), 11) * kPrime1;
    return avalanche(state ^ (m_length * kPrime2));
}

std::uint64_t hashBytes(const void *data, std::size_t size, std::uint64_t seed)
{
    Hasher hasher(seed);
    hasher.update(data, size);
    return hasher.digest();
}

std::string hashToHex(std::uint64_t hash)
{
    static const char kDigits[] = "0123456789abcdef";
    std::string text(16, '0');
    for (int i = 15; i >= 0; --i) {
        text[static_cast<std::size_t>(i)] = kDigits[hash & 0xF];
        hash >>= 4;
    }
    return text;
}

bool hashFromHex(std::string_view text, std::uint64_t &hash)
{
    if (text.size() != 16)
        return false;
    std::uint64_t value = 0;
    for (const char c : text) {
        int digit = -1;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        if (digit < 0)
            return false;
        value = (value << 4) | static_cast<std::uint64_t>(digit);
    }
    hash = value;
    return true;
}

bool hashFile(const std::string &path, std::uint64_t &hash, std::string *error)
{
    InputFile file;
    Hasher hasher;
    if (!file.open(path, error) || !file.feed(hasher, error))
        return false;
    hash = hasher.digest();
    return true;
}

bool hashFileSet(const std::vector<std::string> &files, std::uint64_t &hash, std::string *error)
{
    Hasher hasher;
    for (const auto &path : files) {
        InputFile file;
        if (!file.open(path, error))
            return false;
        hasher.updateField(std::filesystem::path(path).filename().string());
        hasher.updateU64(file.size());
        if (!file.feed(hasher, error))
            return false;
    }
    hash = hasher.digest();
    return true;
}

namespace {

// Where the memo lives; empty when it is off or no folder can be named.
std::string hashMemoPath()
{
    if (const char *path = std::getenv("SPLITSCOPE_HASH_CACHE"))
        return std::string(path) == "off" ? std::string() : std::string(path);
    if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
        return std::string(cache) + "/splitscope/file-set-hashes";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/splitscope/file-set-hashes";
    return {};
}

// The identity of a set of files as a hash of each one's stat(); false when one
// cannot be stat'ed (hashFileSet then says why).
bool fileSetIdentity(const std::vector<std::string> &files, std::uint64_t &identity)
{
    Hasher hasher(0x5eed);
    for (const auto &path : files) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            return false;
        std::error_code ec;
        hasher.updateField(std::filesystem::absolute(path, ec).lexically_normal().string());
        for (const std::uint64_t field : {static_cast<std::uint64_t>(st.st_size), static_cast<std::uint64_t>(st.st_ino),
                 static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_mtim.tv_sec),
                 static_cast<std::uint64_t>(st.st_mtim.tv_nsec), static_cast<std::uint64_t>(st.st_ctim.tv_sec),
                 static_cast<std::uint64_t>(st.st_ctim.tv_nsec)})
            hasher.updateU64(field);
    }
    identity = hasher.digest();
    return true;
}

} // namespace

bool hashFileSetRemembered(const std::vector<std::string> &files, std::uint64_t &hash,
    const std::function<void()> &beforeReading, std::string *error)
{
    const std::string memo = hashMemoPath();
    std::uint64_t identity = 0;
    const bool known = !memo.empty() && fileSetIdentity(files, identity);
    if (known) {
        // "<identity> <hash>" per line; the last line for an identity is the one that counts.
        std::ifstream in(memo);
        std::string key;
        std::string value;
        std::optional<std::uint64_t> found;
        while (in >> key >> value) {
            std::uint64_t k = 0;
            std::uint64_t v = 0;
            if (hashFromHex(key, k) && k == identity && hashFromHex(value, v))
                found = v;
        }
        if (found) {
            hash = *found;
            return true;
        }
    }
    if (beforeReading)
        beforeReading();
    if (!hashFileSet(files, hash, error))
        return false;
    // Unchanged while it was read: otherwise the hash is of files that are gone.
    std::uint64_t after = 0;
    if (known && fileSetIdentity(files, after) && after == identity) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(memo).parent_path(), ec);
        // One short write with O_APPEND: lines of concurrent runs do not interleave.
        const std::string line = hashToHex(identity) + " " + hashToHex(hash) + "\n";
        const int fd = ::open(memo.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            const ssize_t written = ::write(fd, line.data(), line.size());
            (void)written;
            ::close(fd);
        }
    }
    return true;
}

} // namespace splitscope::engine
