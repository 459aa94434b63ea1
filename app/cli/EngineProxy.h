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

// The built-in pipelines the engine can train (core/engine/ExecutableCatalog.h).
// Each is also a built-in example
// (resources/examples), whose description tests/widgets/tst_runexample keeps equal to
// the engine's declarations, so the CLI never has to ask the engine for one.
std::vector<std::string> engineProxyPipelineNames();

} // namespace splitscope::cli
