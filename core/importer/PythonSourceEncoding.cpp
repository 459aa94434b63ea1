// SPDX-License-Identifier: MIT
#include "PythonSourceEncoding.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace splitscope::importer {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The names CPython's codec lookup takes for the three encodings the importer reads,
// after its normalization (lower case, other punctuation than '.' as one '_'): the
// codec module's name, and the aliases of Python 3.11's encodings.aliases.
constexpr std::string_view kUtf8Aliases[] = {"cp65001", "u8", "utf", "utf8", "utf8_ucs2", "utf8_ucs4"};
constexpr std::string_view kLatin1Aliases[] = {"8859", "cp819", "csisolatin1", "ibm819", "iso8859", "iso8859_1",
    "iso_8859_1", "iso_8859_1_1987", "iso_ir_100", "l1", "latin", "latin1"};
constexpr std::string_view kAsciiAliases[] = {"646", "ansi_x3.4_1968", "ansi_x3.4_1986", "ansi_x3_4_1968", "cp367",
    "csascii", "ibm367", "iso646_us", "iso_646.irv_1991", "iso_ir_6", "us", "us_ascii"};

enum class Encoding { Utf8, Latin1, Ascii, Other };

bool isAsciiAlnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// CPython's tokenizer (get_normal_name): the first 12 characters, in lower case with
// '_' as '-', name UTF-8 and Latin-1 in their usual spellings; anything else is kept.
std::string normalName(std::string_view spec)
{
    std::string head;
    for (std::size_t i = 0; i < spec.size() && i < 12; ++i)
        head += spec[i] == '_' ? '-' : lower(spec[i]);
    if (head == "utf-8" || startsWith(head, "utf-8-"))
        return "utf-8";
    for (const std::string_view latin : {"latin-1", "iso-8859-1", "iso-latin-1"}) {
        if (head == latin || startsWith(head, std::string(latin) + "-"))
            return "iso-8859-1";
    }
    return std::string(spec);
}

// The codec CPython's lookup finds for `name` (get_normal_name's result), among ours.
Encoding encodingOf(const std::string &name)
{
    if (name == "utf-8")
        return Encoding::Utf8;
    if (name == "iso-8859-1")
        return Encoding::Latin1;
    std::string key;
    bool punctuation = false;
    for (const char c : name) {
        if (isAsciiAlnum(c) || c == '.') {
            if (punctuation && !key.empty())
                key += '_';
            punctuation = false;
            key += lower(c);
        } else {
            punctuation = true;
        }
    }
    // As encodings.search_function: an alias as it is or with '.' as '_', else a module
    // name (which has no '.').
    std::string underscored = key;
    std::replace(underscored.begin(), underscored.end(), '.', '_');
    const auto in = [&](std::string_view module, const auto &aliases) {
        const auto isAlias = [&](const std::string &name) {
            return std::find(std::begin(aliases), std::end(aliases), name) != std::end(aliases);
        };
        return isAlias(key) || isAlias(underscored) || key == module;
    };
    if (in("utf_8", kUtf8Aliases))
        return Encoding::Utf8;
    if (in("latin_1", kLatin1Aliases))
        return Encoding::Latin1;
    if (in("ascii", kAsciiAliases))
        return Encoding::Ascii;
    return Encoding::Other;
}

struct Cookie {
    std::string spec;       // the encoding as written
    int line = 0;           // 1 or 2
    std::size_t offset = 0; // where the name starts, in bytes from the line's start
    std::size_t lineStart = 0;
};

// CPython's get_coding_spec on one line: a comment (only blanks before '#') with
// "coding", then ':' or '=', blanks, and a name of letters, digits, '-', '_' and '.'.
// `code`: the line holds something besides blanks and a comment (no cookie after it).
bool findCookie(std::string_view line, std::string &spec, std::size_t &offset, bool &code)
{
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f'))
        ++i;
    code = i < line.size() && line[i] != '#';
    if (i >= line.size() || code)
        return false;
    for (std::size_t at = line.find("coding", i); at != std::string_view::npos; at = line.find("coding", at + 1)) {
        std::size_t t = at + 6;
        if (t >= line.size() || (line[t] != ':' && line[t] != '='))
            continue;
        ++t;
        while (t < line.size() && (line[t] == ' ' || line[t] == '\t'))
            ++t;
        const std::size_t begin = t;
        while (t < line.size() && (isAsciiAlnum(line[t]) || line[t] == '-' || line[t] == '_' || line[t] == '.'))
            ++t;
        if (t > begin) {
            spec = std::string(line.substr(begin, t - begin));
            offset = begin;
            return true;
        }
    }
    return false;
}

// The cookie on line 1, or on line 2 after a blank or comment line 1 (\n, \r\n and \r end lines).
bool findCookie(std::string_view text, std::size_t start, Cookie &cookie)
{
    std::size_t lineStart = start;
    for (int line = 1; line <= 2 && lineStart <= text.size(); ++line) {
        std::size_t end = lineStart;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r')
            ++end;
        bool code = false;
        if (findCookie(text.substr(lineStart, end - lineStart), cookie.spec, cookie.offset, code)) {
            cookie.line = line;
            cookie.lineStart = lineStart;
            return true;
        }
        if (code || end >= text.size())
            return false;
        lineStart = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
    }
    return false;
}

// The declared name for messages: a hostile cookie can be a megabyte long.
std::string quoted(const std::string &spec)
{
    constexpr std::size_t kMaxQuoted = 40;
    return "'" + (spec.size() > kMaxQuoted ? spec.substr(0, kMaxQuoted) + "..." : spec) + "'";
}

// 1-based column, in UTF-8 characters, of byte `offset` on the line at `lineStart`.
int columnOf(std::string_view text, std::size_t lineStart, std::size_t offset)
{
    int column = 1;
    for (std::size_t i = lineStart; i < lineStart + offset && i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
            ++column;
    }
    return column;
}

} // namespace

DecodedSource decodePythonSource(std::string_view bytes)
{
    DecodedSource result;
    const bool byteOrderMark = startsWith(bytes, kByteOrderMark);
    Cookie cookie;
    if (!findCookie(bytes, byteOrderMark ? kByteOrderMark.size() : 0, cookie))
        return result;
    result.encoding = cookie.spec;
    const auto fail = [&](std::string message, int line, int column) {
        result.error = std::move(message);
        result.errorLine = line;
        result.errorColumn = column;
        return result;
    };
    const int cookieColumn = columnOf(bytes, cookie.lineStart, cookie.offset);
    const std::string normal = normalName(cookie.spec);
    if (byteOrderMark && normal != "utf-8") {
        return fail("encoding problem: the file starts with a UTF-8 byte order mark but declares the encoding "
                + quoted(cookie.spec) + " (with a byte order mark Python accepts only 'utf-8')",
            cookie.line, cookieColumn);
    }
    switch (encodingOf(normal)) {
    case Encoding::Utf8:
        result.decodeWholeFile = normal != "utf-8";
        return result;
    case Encoding::Latin1: {
        // Each byte is the code point of the same value.
        result.text.reserve(bytes.size() + static_cast<std::size_t>(std::count_if(
            bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })));
        for (const char c : bytes) {
            const unsigned char b = static_cast<unsigned char>(c);
            if (b < 0x80) {
                result.text += c;
            } else {
                result.text += static_cast<char>(0xC0 | (b >> 6));
                result.text += static_cast<char>(0x80 | (b & 0x3F));
            }
        }
        result.converted = true;
        return result;
    }
    case Encoding::Ascii: {
        const auto high = std::find_if(bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
        if (high == bytes.end())
            return result;
        const std::size_t at = static_cast<std::size_t>(high - bytes.begin());
        int line = 1;
        std::size_t lineStart = 0;
        for (std::size_t i = 0; i < at; ++i) {
            if (bytes[i] == '\n' || (bytes[i] == '\r' && (i + 1 >= bytes.size() || bytes[i + 1] != '\n'))) {
                ++line;
                lineStart = i + 1;
            }
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(*high)));
        return fail(std::string("byte ") + hex + " is not ASCII, but line " + std::to_string(cookie.line)
                + " declares the source encoding " + quoted(cookie.spec),
            line, static_cast<int>(at - lineStart) + 1);
    }
    case Encoding::Other: break;
    }
    return fail("the file declares the source encoding " + quoted(cookie.spec)
            + "; the importer reads only UTF-8, Latin-1 and ASCII sources (save the file as UTF-8)",
        cookie.line, cookieColumn);
}

} // namespace splitscope::importer
