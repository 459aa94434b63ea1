// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace splitscope::engine {

// Parses `text` as a JSON object (the engine's documents: manifests, configs,
// vocabularies). False with `error` = "<label>: not valid JSON (...)" or
// "<label>: not a JSON object". Private to the engine: public headers stay free of
// nlohmann.
//
// A lone surrogate escape \udc80..\udcff in a string or key, as dumpJson and
// jsonQuote (Events.h) write a byte that is not UTF-8, is read back as that byte
// (nlohmann alone refuses it).
//
// A syntax error names the line and column (1-based, the column in code points, as
// the pipeline loader counts them): "<label>:3:14: not valid JSON: <what>".
bool parseJsonObject(const std::string &text, const std::string &label, nlohmann::json &doc, std::string *error);

// A place in a JSON document as messages name it: "split.stage_one_units",
// "shards[3].bytes"; empty for the whole document.
class JsonPath {
public:
    JsonPath key(const std::string &name) const;
    JsonPath index(std::size_t i) const;
    std::string str() const;
    bool empty() const { return m_parts.empty(); }

    struct Part {
        bool isIndex = false;
        std::string key;
        std::size_t index = 0;
    };
    const std::vector<Part> &parts() const { return m_parts; }

private:
    std::vector<Part> m_parts;
};

// What the typed readers below throw: the field at fault, what was expected and what
// was found (or that it is missing). jsonFieldMessage() turns it into a message.
class JsonFieldError : public std::runtime_error {
public:
    JsonFieldError(JsonPath path, const std::string &problem, bool missing = false);
    JsonPath path;
    std::string problem;
    bool missing = false; // the key is absent: its position is its object's
};

// "<label>:LINE:COL: <path>: <problem>", the position found by walking `text` to the
// field (to its object when the key is missing; left out when it cannot be found).
std::string jsonFieldMessage(const std::string &text, const std::string &label, const JsonFieldError &error);

// How a value is named after "found": "the number 5", "the string \"x\"", "a list",
// "an object", "true", "null".
std::string jsonValueDescription(const nlohmann::json &value);

// Typed readers: each throws JsonFieldError naming `path` (the value's own path) with
// what it expected and found. member() throws when `key` is absent; `expected` says
// what the key should hold.
const nlohmann::json &jsonMember(const nlohmann::json &object, const JsonPath &objectPath, const std::string &key,
    const std::string &expected);
std::string jsonString(const nlohmann::json &value, const JsonPath &path);
bool jsonBool(const nlohmann::json &value, const JsonPath &path);
std::vector<std::string> jsonStringList(const nlohmann::json &value, const JsonPath &path);
// A whole number in [minimum, maximum] (a float that is whole, 3.0 or 1e3, counts).
std::int64_t jsonInteger(const nlohmann::json &value, const JsonPath &path, std::int64_t minimum, std::int64_t maximum);
// A count, index or size: a whole number from 0 to `maximum`.
std::uint64_t jsonCount(const nlohmann::json &value, const JsonPath &path, std::uint64_t maximum = UINT64_MAX);

// The document as nlohmann's dump(indent) writes it, byte for byte, except that a
// string holding bytes that are not UTF-8 (a Linux path) is written as jsonQuote
// writes it instead of throwing nlohmann's type_error 316.
std::string dumpJson(const nlohmann::json &doc, int indent = -1);
std::string dumpJson(const nlohmann::ordered_json &doc, int indent = -1);

} // namespace splitscope::engine
