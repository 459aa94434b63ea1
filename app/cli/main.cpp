// SPDX-License-Identifier: MIT
// splitscope-cli: the headless face of Splitscope. Each subcommand lives in its own
// file; this one only dispatches.
#include "Commands.h"
#include "ExtraCommands.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using splitscope::cli::Command;

std::vector<Command> commands()
{
    std::vector<Command> list = {
        {"split", "show, explain and verify the split of a pipeline", splitscope::cli::runSplit},
        {"diff", "compare two splits (seed vs safe, or two training configurations)", splitscope::cli::runDiff},
        {"validate", "check a pipeline description and list its diagnostics", splitscope::cli::runValidate},
        {"examples", "list the built-in example pipelines, or print one", splitscope::cli::runExamples},
    };
    splitscope::cli::addExtraCommands(list);
    return list;
}

void printUsage(std::FILE *to)
{
    std::fprintf(to, "usage: splitscope-cli COMMAND [ARGS]\n\ncommands:\n");
    for (const Command &c : commands())
        std::fprintf(to, "  %-18s %s\n", c.name, c.summary);
    std::fprintf(to, "\n'splitscope-cli COMMAND --help' describes a command's flags.\n"
                     "Exit status: 0 done, 1 failed, 2 bad input or usage, 3 split --check found hazards.\n");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        printUsage(stderr);
        return splitscope::cli::kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printUsage(stdout);
        return splitscope::cli::kExitOk;
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    std::vector<std::string> names;
    for (const Command &c : commands()) {
        names.push_back(c.name);
        if (name == c.name)
            return c.run(args);
    }
    const std::string hint = splitscope::cli::suggestName(name, names);
    std::fprintf(stderr, "splitscope-cli: unknown command '%s'%s%s%s\n", name.c_str(),
        hint.empty() ? "" : " (did you mean '", hint.c_str(), hint.empty() ? "" : "'?)");
    printUsage(stderr);
    return splitscope::cli::kExitUsage;
}
