// SPDX-License-Identifier: MIT
#pragma once

#include "Commands.h"

#include <vector>

namespace splitscope::cli {

// splitscope-cli plan: the two stage commands of split training for a one-stage
// DiffSynth-Studio command (core/plan/Plan.h).
void addPlanCommands(std::vector<Command> &commands);

int runPlan(const Args &args);

} // namespace splitscope::cli
