// SPDX-License-Identifier: MIT
#include "Tokenizer.h"

#include "JsonDocument.h"
#include "core/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>

namespace splitscope::engine {

namespace {

std::string byteToken(unsigned char byte)
{
    char text[8];
    std::snprintf(text, sizeof(text), "<0x%02X>", byte);
    return text;
}

bool isWordChar(unsigned char c)
{
    return std::isalnum(c) != 0 || c >= 0x80; // UTF-8 sequences stay inside words
}

} // namespace

Tokenizer Tokenizer::build(const std::vector<std::string> &words)
{
    Tokenizer tokenizer;
    tokenizer.m_tokens = {kPadToken, kVisionStart, kVisionEnd, "<|im_start|>", "<|im_end|>"};
    for (int b = 0; b < 256; ++b)
        tokenizer.m_tokens.push_back(byteToken(static_cast<unsigned char>(b)));
    for (const auto &w : words)
        tokenizer.m_tokens.push_back(w);
    tokenizer.index();
    return tokenizer;
}

void Tokenizer::index()
{
    m_ids.clear();
    std::vector<std::string> unique;
    for (const auto &t : m_tokens) {
        if (m_ids.emplace(t, static_cast<std::int64_t>(unique.size())).second)
            unique.push_back(t);
    }
    m_tokens = std::move(unique);
    m_padId = tokenId(kPadToken);
    m_byteBase = tokenId(byteToken(0));
}

bool Tokenizer::load(const std::string &path, std::string *error)
{
    std::string text;
    if (!readWholeFile(path, text, error))
        return false;
    return loadFromJson(text, path, error);
}

bool Tokenizer::loadFromJson(const std::string &text, const std::string &label, std::string *error)
{
    auto fail = [&](const std::string &message) {
        if (error)
            *error = label + ": " + message;
        return false;
    };
    nlohmann::json doc;
    if (!parseJsonObject(text, label, doc, error))
        return false;
    std::vector<std::string> list;
    try {
        const auto format = doc.find("format");
        if (format == doc.end() || !format->is_string() || format->get<std::string>() != kFormat) {
            throw JsonFieldError(JsonPath().key("format"), std::string("expected \"") + kFormat
                    + "\" (not a tokenizer vocabulary otherwise), found "
                    + (format == doc.end() ? std::string("none") : jsonValueDescription(*format)),
                format == doc.end());
        }
        list = jsonStringList(jsonMember(doc, JsonPath(), "tokens", "a list of strings"), JsonPath().key("tokens"));
    } catch (const JsonFieldError &e) {
        if (error)
            *error = jsonFieldMessage(text, label, e);
        return false;
    }
    Tokenizer loaded;
    loaded.m_tokens = std::move(list);
    loaded.index();
    if (loaded.m_padId < 0 || loaded.m_byteBase < 0)
        return fail(std::string("the vocabulary lacks ") + kPadToken + " or the byte tokens <0x00>..<0xFF>");
    for (int b = 0; b < 256; ++b) {
        if (loaded.tokenId(byteToken(static_cast<unsigned char>(b))) != loaded.m_byteBase + b)
            return fail("the byte tokens <0x00>..<0xFF> must be consecutive");
    }
    *this = std::move(loaded);
    return true;
}

std::string Tokenizer::toJson() const
{
    nlohmann::ordered_json doc;
    doc["format"] = kFormat;
    doc["tokens"] = m_tokens;
    return doc.dump(0) + "\n";
}

std::int64_t Tokenizer::tokenId(const std::string &token) const
{
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? -1 : it->second;
}

std::vector<std::int64_t> Tokenizer::encode(const std::string &text) const
{
    std::vector<std::int64_t> ids;
    auto emitPiece = [&](const std::string &piece) {
        const std::int64_t id = tokenId(piece);
        if (id >= 0) {
            ids.push_back(id);
            return;
        }
        for (const unsigned char byte : piece)
            ids.push_back(m_byteBase + byte);
    };
    std::string word;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (isWordChar(c)) {
            word.push_back(c < 0x80 ? static_cast<char>(std::tolower(c)) : ch);
            continue;
        }
        if (!word.empty()) {
            emitPiece(word);
            word.clear();
        }
        if (!std::isspace(c))
            emitPiece(std::string(1, ch));
    }
    if (!word.empty())
        emitPiece(word);
    return ids;
}

void Tokenizer::encodePadded(const std::string &text, int length, std::vector<std::int64_t> &ids,
    std::vector<std::int64_t> &mask) const
{
    ids = encode(text);
    if (static_cast<int>(ids.size()) > length)
        ids.resize(static_cast<std::size_t>(length));
    mask.assign(ids.size(), 1);
    ids.resize(static_cast<std::size_t>(length), m_padId);
    mask.resize(static_cast<std::size_t>(length), 0);
}

} // namespace splitscope::engine
