// SPDX-License-Identifier: MIT
#include "JsonDocument.h"

#include "Events.h"

namespace splitscope::engine {

namespace {

// nlohmann refuses a lone low surrogate. Before parsing, each \udc80..\udcff escape
// that does not follow a high surrogate becomes kByteMarker and the byte's two hex
// digits, and a real U+0001 (which JSON can only hold escaped) becomes kByteMarker
// "01"; after parsing, restoreBytes() turns each marker and its digits back. Every
// U+0001 in the parsed strings is then a marker, so nothing else can be mistaken
// for one.
constexpr char kByteMarker = '\x01';
constexpr const char *kMarkerEscape = "\\u0001";

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The code unit of the \uXXXX escape at `at` (which points at the backslash); -1
// when there is none.
long escapedUnit(const std::string &text, std::size_t at)
{
    if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u')
        return -1;
    long unit = 0;
    for (std::size_t i = at + 2; i < at + 6; ++i) {
        const int digit = hexDigit(text[i]);
        if (digit < 0)
            return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

// `text` with lone surrogate escapes of bytes marked as above; false when it has none
// (and no U+0001), so that the text parses as it is.
bool markEscapedBytes(const std::string &text, std::string &marked)
{
    bool changed = false;
    bool inString = false;
    marked.clear();
    marked.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!inString) {
            inString = c == '"';
            marked += c;
            continue;
        }
        if (c == '"') {
            inString = false;
            marked += c;
            continue;
        }
        if (c != '\\' || i + 1 >= text.size()) {
            marked += c;
            continue;
        }
        const long unit = escapedUnit(text, i);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            // A pair (or a lone high surrogate, which nlohmann reports): as it is.
            const long next = escapedUnit(text, i + 6);
            const std::size_t length = next >= 0xDC00 && next <= 0xDFFF ? 12 : 6;
            marked.append(text, i, length);
            i += length - 1;
        } else if (unit >= 0xDC80 && unit <= 0xDCFF) {
            marked += kMarkerEscape;
            marked.append(text, i + 4, 2);
            i += 5;
            changed = true;
        } else if (unit == 1) {
            marked += kMarkerEscape;
            marked += "01";
            i += 5;
            changed = true;
        } else {
            // Any other escape, \" and \\ included: two characters as they are.
            marked.append(text, i, 2);
            ++i;
        }
    }
    return changed;
}

std::string restoredText(const std::string &text)
{
    if (text.find(kByteMarker) == std::string::npos)
        return text;
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == kByteMarker && i + 2 < text.size() && hexDigit(text[i + 1]) >= 0 && hexDigit(text[i + 2]) >= 0) {
            out += static_cast<char>(hexDigit(text[i + 1]) * 16 + hexDigit(text[i + 2]));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

void restoreBytes(nlohmann::json &value)
{
    if (value.is_string()) {
        value = restoredText(value.get_ref<const std::string &>());
    } else if (value.is_array()) {
        for (auto &item : value)
            restoreBytes(item);
    } else if (value.is_object()) {
        nlohmann::json restored = nlohmann::json::object();
        for (auto it = value.begin(); it != value.end(); ++it) {
            nlohmann::json item = std::move(it.value());
            restoreBytes(item);
            restored[restoredText(it.key())] = std::move(item);
        }
        value = std::move(restored);
    }
}

// nlohmann's serializer (output/serializer.hpp) for everything but strings.
template <typename Json>
void dumpValue(const Json &value, int indent, int depth, std::string &out)
{
    const bool pretty = indent >= 0;
    auto newline = [&](int level) {
        if (!pretty)
            return;
        out += '\n';
        out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
    };
    if (value.is_string()) {
        out += jsonQuote(value.template get_ref<const std::string &>());
    } else if (value.is_object()) {
        if (value.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            out += first ? "" : ",";
            first = false;
            newline(depth + 1);
            out += jsonQuote(it.key());
            out += pretty ? ": " : ":";
            dumpValue(it.value(), indent, depth + 1, out);
        }
        newline(depth);
        out += '}';
    } else if (value.is_array()) {
        if (value.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const auto &item : value) {
            out += first ? "" : ",";
            first = false;
            newline(depth + 1);
            dumpValue(item, indent, depth + 1, out);
        }
        newline(depth);
        out += ']';
    } else {
        out += value.dump();
    }
}

} // namespace

bool parseJsonObject(const std::string &text, const std::string &label, nlohmann::json &doc, std::string *error)
{
    try {
        std::string marked;
        if (markEscapedBytes(text, marked)) {
            doc = nlohmann::json::parse(marked);
            restoreBytes(doc);
        } else {
            doc = nlohmann::json::parse(text);
        }
    } catch (const nlohmann::json::exception &e) {
        if (error)
            *error = label + ": not valid JSON (" + e.what() + ")";
        return false;
    }
    if (!doc.is_object()) {
        if (error)
            *error = label + ": not a JSON object";
        return false;
    }
    return true;
}

std::string dumpJson(const nlohmann::json &doc, int indent)
{
    std::string out;
    dumpValue(doc, indent, 0, out);
    return out;
}

std::string dumpJson(const nlohmann::ordered_json &doc, int indent)
{
    std::string out;
    dumpValue(doc, indent, 0, out);
    return out;
}

} // namespace splitscope::engine
