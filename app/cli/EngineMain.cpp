// SPDX-License-Identifier: MIT
// splitscope-engine: the commands that need LibTorch (describe, train, init-models,
// make-dataset, sample). Users run them as `splitscope-cli COMMAND ...`, which hands
// over to this program (EngineProxy.cpp), so that the commands that do not train
// start in milliseconds instead of paying LibTorch's start-up (about a second).
#include "Commands.h"
#include "EngineCommands.h"
#include "StandardStreams.h"

#include "core/engine/ProcessMemory.h"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    splitscope::cli::guardStandardStreams();
    // Before any thread: two malloc arenas, so that each thread LibTorch, OpenBLAS or
    // the loaders start does not reserve 64 MiB of address space of its own (ulimit -v).
    splitscope::engine::limitMallocArenas(2);
    std::vector<splitscope::cli::Command> commands;
    splitscope::cli::addEngineCommands(commands);
    const std::string name = argc > 1 ? argv[1] : "";
    // `train` lets its stop signals through once it handles them (runTrain); the other
    // commands keep the default: a signal held back while this program started ends it.
    if (name != "train")
        splitscope::cli::unblockStopSignals();
    if (name.empty() || name == "--help" || name == "-h") {
        std::fprintf(name.empty() ? stderr : stdout,
            "usage: splitscope-cli COMMAND [ARGS]   (splitscope-engine runs these for splitscope-cli)\n\ncommands:\n");
        for (const auto &c : commands)
            std::fprintf(name.empty() ? stderr : stdout, "  %-18s %s\n", c.name, c.summary);
        return name.empty() ? splitscope::cli::kExitUsage : splitscope::cli::finishStandardOutput("--help", 0);
    }
    for (const auto &c : commands) {
        if (name == c.name)
            return splitscope::cli::finishStandardOutput(
                c.name, c.run(std::vector<std::string>(argv + 2, argv + argc)));
    }
    std::fprintf(stderr, "splitscope-engine: unknown command '%s'\n", name.c_str());
    return splitscope::cli::kExitUsage;
}
