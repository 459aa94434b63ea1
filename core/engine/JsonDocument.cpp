// SPDX-License-Identifier: MIT
#include "JsonDocument.h"

namespace splitscope::engine {

bool parseJsonObject(const std::string &text, const std::string &label, nlohmann::json &doc, std::string *error)
{
    try {
        doc = nlohmann::json::parse(text);
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

} // namespace splitscope::engine
