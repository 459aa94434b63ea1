// SPDX-License-Identifier: MIT
#pragma once

#include "Commands.h"

#include <vector>

namespace splitscope::cli {

// Commands from optional parts (the engine, the DiffSynth importer); defined in
// ExtraCommands.cpp, which compiles in what the build has.
void addExtraCommands(std::vector<Command> &commands);

} // namespace splitscope::cli

namespace splitscope::cli {

// The JSON description of a built-in executable pipeline (for example
// "tiny-qwen-image" from the engine), or an empty string when there is none.
std::string extraBuiltinPipelineJson(const std::string &name);
// Names of those pipelines.
std::vector<std::string> extraBuiltinPipelineNames();

} // namespace splitscope::cli
