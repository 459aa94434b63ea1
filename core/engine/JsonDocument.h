// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace splitscope::engine {

// Parses `text` as a JSON object (the engine's documents: manifests, configs,
// vocabularies). False with `error` = "<label>: not valid JSON (...)" or
// "<label>: not a JSON object". Private to the engine: public headers stay free of
// nlohmann.
bool parseJsonObject(const std::string &text, const std::string &label, nlohmann::json &doc, std::string *error);

} // namespace splitscope::engine
