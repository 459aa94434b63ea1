// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::engine {

// A fast 64-bit content hash for manifests and checksums: it detects accidental
// change (a different weight file, a truncated or corrupted shard), not tampering.
// Incremental: feeding the same bytes in any chunking gives the same digest.
class Hasher {
public:
    explicit Hasher(std::uint64_t seed = 0);
    void update(const void *data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    // Feeds a length-prefixed string, so that ("ab","c") and ("a","bc") differ.
    void updateField(std::string_view text);
    void updateU64(std::uint64_t value);
    std::uint64_t digest() const;

private:
    void mixWord(std::uint64_t word);

    std::uint64_t m_state;
    std::uint64_t m_length = 0;
    unsigned char m_pending[8] = {};
    std::size_t m_pendingSize = 0;
};

std::uint64_t hashBytes(const void *data, std::size_t size, std::uint64_t seed = 0);
// 16 lowercase hex digits.
std::string hashToHex(std::uint64_t hash);
// Parses hashToHex's output; false when `text` is not 16 hex digits.
bool hashFromHex(std::string_view text, std::uint64_t &hash);
// Hashes a whole regular file, read in chunks (not mapped: a file truncated by another
// process meanwhile is an error, not a SIGBUS); false with `error` naming the path when
// it cannot be read, is not a regular file, or changed size while it was read.
bool hashFile(const std::string &path, std::uint64_t &hash, std::string *error = nullptr);
// Identifies a set of files, as model weights and the tokenizer are: each file's name
// (not its folder), size and bytes, in the order given. Read as hashFile reads.
bool hashFileSet(const std::vector<std::string> &files, std::uint64_t &hash, std::string *error = nullptr);

// hashFileSet's value, remembered across runs: a set whose files all have the identity
// they had when it was last hashed (each file's absolute path, size, modification and
// status-change times, inode and device) is not read again. Change times cannot be set
// back by hand, so a file rewritten in place, even with its modification time
// restored, is read again. The memo is one line per set in $SPLITSCOPE_HASH_CACHE
// (default $XDG_CACHE_HOME/splitscope/file-set-hashes, else ~/.cache/...; "off" turns
// it off), appended to; a memo that cannot be read or written only costs the reading.
// `beforeReading` (optional) runs when the files are to be read, so the caller can say
// so first (a 57 GB model takes minutes).
bool hashFileSetRemembered(const std::vector<std::string> &files, std::uint64_t &hash,
    const std::function<void()> &beforeReading = {}, std::string *error = nullptr);

} // namespace splitscope::engine
