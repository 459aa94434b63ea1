// SPDX-License-Identifier: MIT
#pragma once

#include "Commands.h"

#include <string>
#include <vector>

namespace splitscope::cli {

// The engine's subcommands: describe, train, init-models, make-dataset, sample
// (core/engine). Compiled in when the engine is built (SPLITSCOPE_HAVE_ENGINE).
void addEngineCommands(std::vector<Command> &commands);

// `train`'s exit status when SIGINT/SIGTERM stopped it after keeping its work
// (core/engine/Events.h documents every status).
constexpr int kExitCancelled = 4;

int runDescribe(const Args &args);
int runTrain(const Args &args);
int runInitModels(const Args &args);
int runMakeDataset(const Args &args);
int runSample(const Args &args);

} // namespace splitscope::cli
