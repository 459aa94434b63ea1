// SPDX-License-Identifier: MIT
#pragma once

#include "Commands.h"

#include <vector>

namespace splitscope::cli {

// splitscope-cli import-diffsynth: DiffSynth-Studio pipeline sources (Python) to
// splitscope.pipeline/1 descriptions (core/importer/DiffSynthImporter.h).
void addImportCommands(std::vector<Command> &commands);

int runImportDiffSynth(const Args &args);

} // namespace splitscope::cli
