// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope {

enum class Severity { Error, Warning, Info };

const char *severityName(Severity severity);

// One finding about an input document. Every diagnostic names where it applies:
// the file, the JSON path inside it (for example `units[3].output_params`) and,
// when known, the 1-based line and column of the value (pipeline files: the column in
// Unicode code points, PipelineFile.h).
struct Diagnostic {
    Severity severity = Severity::Error;
    std::string code;     // stable identifier, e.g. "duplicate-unit" (listed in PipelineFile.h)
    std::string file;     // empty when the text did not come from a file
    std::string jsonPath; // empty for the whole document
    int line = 0;         // 0 when unknown
    int column = 0;
    std::string message;

    // "file:line:col: error: units[3].output_params: message"
    std::string toString() const;
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics &diagnostics);
std::size_t countSeverity(const Diagnostics &diagnostics, Severity severity);

} // namespace splitscope
