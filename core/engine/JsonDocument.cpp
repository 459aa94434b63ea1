// SPDX-License-Identifier: MIT
#include "JsonDocument.h"

#include "Events.h"
#include "core/JsonReader.h"

#include <cmath>
#include <limits>

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

// Line and column (1-based, the column in code points) of byte `offset` of `text`.
std::pair<int, int> positionOf(const std::string &text, std::size_t offset)
{
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80 && c != '\r') {
            ++column;
        }
    }
    return {line, column};
}

// "<label>:L:C: not valid JSON: <what>": the pull parser's words and position where
// it finds the error, else nlohmann's (which the pull parser may accept, e.g. a
// surrogate escape nlohmann refuses).
std::string syntaxErrorMessage(const std::string &text, const std::string &label, const nlohmann::json::exception &e)
{
    JsonReader reader(text);
    if (!reader.skipValue() || !reader.expectEnd()) {
        return label + ":" + std::to_string(reader.errorLine()) + ":" + std::to_string(reader.errorColumn())
            + ": not valid JSON: " + reader.errorMessage();
    }
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ...": the last part.
    if (const auto colon = what.find(": "); what.compare(0, 15, "[json.exception") == 0 && colon != std::string::npos)
        what = what.substr(colon + 2);
    if (const auto *parseError = dynamic_cast<const nlohmann::json::parse_error *>(&e); parseError && parseError->byte > 0) {
        const auto [line, column] = positionOf(text, parseError->byte - 1);
        return label + ":" + std::to_string(line) + ":" + std::to_string(column) + ": not valid JSON: " + what;
    }
    return label + ": not valid JSON: " + what;
}

// Walks `reader` (at a value) along `parts` from `at`, leaving `found` at the position
// of the deepest value reached. True when the whole path was found.
bool locate(JsonReader &reader, const std::vector<JsonPath::Part> &parts, std::size_t at, JsonReader::Position &found)
{
    if (reader.peekKind() == JsonReader::Kind::Invalid)
        return false;
    found = {reader.line(), reader.column()};
    if (at == parts.size())
        return true;
    const JsonPath::Part &part = parts[at];
    if (part.isIndex) {
        if (reader.peekKind() != JsonReader::Kind::Array || !reader.beginArray())
            return false;
        for (std::size_t i = 0; reader.nextItem(); ++i) {
            if (i == part.index)
                return locate(reader, parts, at + 1, found);
            if (!reader.skipValue())
                return false;
        }
        return false;
    }
    if (reader.peekKind() != JsonReader::Kind::Object || !reader.beginObject())
        return false;
    std::string key;
    while (reader.nextMember(key)) {
        if (key == part.key)
            return locate(reader, parts, at + 1, found);
        if (!reader.skipValue())
            return false;
    }
    return false;
}

std::string withArticle(const char *kind)
{
    return std::string(kind[0] == 'a' || kind[0] == 'o' ? "an " : "a ") + kind;
}

} // namespace

JsonPath JsonPath::key(const std::string &name) const
{
    JsonPath path = *this;
    path.m_parts.push_back(Part{false, name, 0});
    return path;
}

JsonPath JsonPath::index(std::size_t i) const
{
    JsonPath path = *this;
    path.m_parts.push_back(Part{true, {}, i});
    return path;
}

std::string JsonPath::str() const
{
    std::string out;
    for (const Part &part : m_parts) {
        if (part.isIndex)
            out += "[" + std::to_string(part.index) + "]";
        else
            out += (out.empty() ? "" : ".") + part.key;
    }
    return out;
}

JsonFieldError::JsonFieldError(JsonPath fieldPath, const std::string &fieldProblem, bool isMissing)
    : std::runtime_error(fieldPath.str() + ": " + fieldProblem)
    , path(std::move(fieldPath))
    , problem(fieldProblem)
    , missing(isMissing)
{
}

std::string jsonFieldMessage(const std::string &text, const std::string &label, const JsonFieldError &error)
{
    std::vector<JsonPath::Part> parts = error.path.parts();
    if (error.missing && !parts.empty())
        parts.pop_back();
    JsonReader reader(text);
    JsonReader::Position found;
    std::string where = label;
    if (locate(reader, parts, 0, found) && found.line > 0)
        where += ":" + std::to_string(found.line) + ":" + std::to_string(found.column);
    return where + ": " + (error.path.empty() ? std::string() : error.path.str() + ": ") + error.problem;
}

std::string jsonValueDescription(const nlohmann::json &value)
{
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (text.size() > 40)
            text = text.substr(0, 40) + "...";
        return "the string " + jsonQuote(text);
    }
    if (value.is_number())
        return "the number " + value.dump();
    if (value.is_array())
        return value.empty() ? "an empty list" : "a list";
    if (value.is_object())
        return "an object";
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (value.is_null())
        return "null";
    return withArticle(value.type_name());
}

const nlohmann::json &jsonMember(const nlohmann::json &object, const JsonPath &objectPath, const std::string &key,
    const std::string &expected)
{
    if (!object.is_object()) {
        throw JsonFieldError(objectPath, "expected an object with \"" + key + "\", found " + jsonValueDescription(object));
    }
    const auto it = object.find(key);
    if (it == object.end())
        throw JsonFieldError(objectPath.key(key), "missing (expected " + expected + ")", true);
    return *it;
}

std::string jsonString(const nlohmann::json &value, const JsonPath &path)
{
    if (!value.is_string())
        throw JsonFieldError(path, "expected a string, found " + jsonValueDescription(value));
    return value.get<std::string>();
}

bool jsonBool(const nlohmann::json &value, const JsonPath &path)
{
    if (!value.is_boolean())
        throw JsonFieldError(path, "expected true or false, found " + jsonValueDescription(value));
    return value.get<bool>();
}

std::vector<std::string> jsonStringList(const nlohmann::json &value, const JsonPath &path)
{
    if (!value.is_array())
        throw JsonFieldError(path, "expected a list of strings, found " + jsonValueDescription(value));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string())
            throw JsonFieldError(path.index(i), "expected a string, found " + jsonValueDescription(value[i]));
        out.push_back(value[i].get<std::string>());
    }
    return out;
}

std::int64_t jsonInteger(const nlohmann::json &value, const JsonPath &path, std::int64_t minimum, std::int64_t maximum)
{
    const std::string expected = "expected a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum);
    if (!value.is_number())
        throw JsonFieldError(path, expected + ", found " + jsonValueDescription(value));
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum))
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (too large)");
    if (value.is_number_integer()) {
        const std::int64_t v = value.get<std::int64_t>();
        if (v < minimum || v > maximum)
            throw JsonFieldError(path, expected + ", found " + value.dump() + (v < minimum ? " (too small)" : " (too large)"));
        return v;
    }
    const double v = value.get<double>();
    if (!std::isfinite(v) || v != std::floor(v))
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (not a whole number)");
    if (v < static_cast<double>(minimum) || v > static_cast<double>(maximum))
        throw JsonFieldError(path, expected + ", found " + value.dump() + (v < static_cast<double>(minimum) ? " (too small)" : " (too large)"));
    return static_cast<std::int64_t>(v);
}

std::uint64_t jsonCount(const nlohmann::json &value, const JsonPath &path, std::uint64_t maximum)
{
    const std::string expected = "expected a whole number from 0 to " + std::to_string(maximum);
    if (!value.is_number())
        throw JsonFieldError(path, expected + ", found " + jsonValueDescription(value));
    if (value.is_number_unsigned()) {
        if (value.get<std::uint64_t>() > maximum)
            throw JsonFieldError(path, expected + ", found " + value.dump() + " (too large)");
        return value.get<std::uint64_t>();
    }
    if (value.is_number_integer())
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (negative)");
    const double v = value.get<double>();
    if (!std::isfinite(v) || v != std::floor(v))
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (not a whole number)");
    if (v < 0)
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (negative)");
    // 2^64 and above do not fit (the double nearest UINT64_MAX is 2^64).
    if (v >= 18446744073709551616.0 || static_cast<std::uint64_t>(v) > maximum)
        throw JsonFieldError(path, expected + ", found " + value.dump() + " (too large)");
    return static_cast<std::uint64_t>(v);
}

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
            *error = syntaxErrorMessage(text, label, e);
        return false;
    }
    if (!doc.is_object()) {
        if (error) {
            const auto [line, column] = positionOf(text, text.find_first_not_of(" \t\r\n"));
            *error = label + ":" + std::to_string(line) + ":" + std::to_string(column) + ": not a JSON object (found "
                + jsonValueDescription(doc) + ")";
        }
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
