// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace splitscope::engine {

// Parses `text` as a JSON object (the engine's documents: manifests, configs,
// vocabularies). False with `error` = "<label>: not valid JSON (...)" or
// "<label>: not a JSON object". Private to the engine: public headers stay free of
// nlohmann.
//
// A lone surrogate escape \udc80..\udcff in a string or key, as dumpJson and
// jsonQuote (Events.h) write a byte that is not UTF-8, is read back as that byte
// (nlohmann alone refuses it).
bool parseJsonObject(const std::string &text, const std::string &label, nlohmann::json &doc, std::string *error);

// The document as nlohmann's dump(indent) writes it, byte for byte, except that a
// string holding bytes that are not UTF-8 (a Linux path) is written as jsonQuote
// writes it instead of throwing nlohmann's type_error 316.
std::string dumpJson(const nlohmann::json &doc, int indent = -1);
std::string dumpJson(const nlohmann::ordered_json &doc, int indent = -1);

} // namespace splitscope::engine
