// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace splitscope::engine {

// The tiny text encoder's tokenizer: a word vocabulary with byte fallback, so any
// text encodes (unknown words become one token per UTF-8 byte, `<0x41>`). Text is
// lowercased (ASCII), split into runs of letters/digits and single other characters;
// blanks separate pieces. Stored as `tokenizer/vocab.json` beside the models:
//   {"format": "splitscope.tokenizer/1", "tokens": ["<|endoftext|>", ...]}
// where a token's id is its index. Immutable after loading; thread-safe to use.
class Tokenizer {
public:
    static constexpr const char *kFormat = "splitscope.tokenizer/1";
    static constexpr const char *kPadToken = "<|endoftext|>";
    static constexpr const char *kVisionStart = "<|vision_start|>";
    static constexpr const char *kVisionEnd = "<|vision_end|>";

    // Specials, the 256 byte tokens, then `words` (deduplicated, in order).
    static Tokenizer build(const std::vector<std::string> &words);
    bool load(const std::string &path, std::string *error = nullptr);
    bool loadFromJson(const std::string &text, const std::string &label, std::string *error = nullptr);
    std::string toJson() const;

    std::vector<std::int64_t> encode(const std::string &text) const;
    // encode(), truncated or padded with the pad token to `length`; `mask` gets 1 for
    // real tokens and 0 for padding.
    void encodePadded(const std::string &text, int length, std::vector<std::int64_t> &ids,
        std::vector<std::int64_t> &mask) const;

    int vocabSize() const { return static_cast<int>(m_tokens.size()); }
    std::int64_t padId() const { return m_padId; }
    std::int64_t tokenId(const std::string &token) const; // -1 when absent
    const std::string &token(std::int64_t id) const { return m_tokens[static_cast<std::size_t>(id)]; }

private:
    void index();

    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, std::int64_t> m_ids;
    std::int64_t m_padId = 0;
    std::int64_t m_byteBase = 0;
};

} // namespace splitscope::engine
