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

// Names of the built-in examples the engine can also train (none without the engine).
std::vector<std::string> executablePipelineNames();

} // namespace splitscope::cli
