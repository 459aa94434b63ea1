// SPDX-License-Identifier: MIT
#include "Diagnostic.h"

#include <algorithm>

namespace splitscope {

const char *severityName(Severity severity)
{
    switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "error";
}

std::string Diagnostic::toString() const
{
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0) {
            out += ':' + std::to_string(line);
            if (column > 0)
                out += ':' + std::to_string(column);
        }
        out += ": ";
    } else if (line > 0) {
        out += "line " + std::to_string(line) + ':' + std::to_string(column) + ": ";
    }
    out += severityName(severity);
    out += ": ";
    if (!jsonPath.empty())
        out += jsonPath + ": ";
    out += message;
    return out;
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return countSeverity(diagnostics, Severity::Error) > 0;
}

std::size_t countSeverity(const Diagnostics &diagnostics, Severity severity)
{
    return static_cast<std::size_t>(std::count_if(diagnostics.begin(), diagnostics.end(),
        [severity](const Diagnostic &d) { return d.severity == severity; }));
}

} // namespace splitscope
