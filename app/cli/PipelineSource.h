// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineFile.h"

#include <string>

namespace splitscope::cli {

// Loads PIPELINE arguments: a file path, or the name of a built-in pipeline
// (`qwen_image`, `tiny-qwen-image`) when no such file exists.
LoadResult loadPipelineArgument(const std::string &argument);

// Prints diagnostics to stderr: errors and warnings always, info when `verbose`.
void printDiagnostics(const Diagnostics &diagnostics, bool verbose);

} // namespace splitscope::cli
