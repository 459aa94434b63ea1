// SPDX-License-Identifier: MIT
#pragma once

#include "Commands.h"

#include <string>
#include <vector>

namespace splitscope::cli {

// splitscope-cli's side of the engine commands: each one replaces this process with
// `splitscope-engine` (beside this executable) with the same arguments, so the
// process id, standard streams, signals and exit status stay those of the command the
// user (or the GUI) started.
void addEngineProxyCommands(std::vector<Command> &commands);

// The built-in executable pipelines, and one's description (asked of the engine;
// empty when the name is unknown or the engine cannot run).
std::vector<std::string> engineProxyPipelineNames();
std::string engineProxyPipelineJson(const std::string &name);

} // namespace splitscope::cli
