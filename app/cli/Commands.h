// SPDX-License-Identifier: MIT
#pragma once

#include "core/CountText.h"

#include <cstddef>
#include <string>
#include <vector>

namespace splitscope::cli {

// Exit statuses shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1; // the work itself failed (I/O, training error)
constexpr int kExitUsage = 2;   // bad input or usage; the message is on stderr
constexpr int kExitHazards = 3; // split --check: the split has hazards or broken conditions

using Args = std::vector<std::string>;

// One subcommand of splitscope-cli. `run` gets the arguments after the command name.
struct Command {
    const char *name;
    const char *summary;
    int (*run)(const Args &args);
};

int runSplit(const Args &args);
int runValidate(const Args &args);
int runExamples(const Args &args);
int runDiff(const Args &args);

// Closest candidate to `name` for "did you mean" hints; empty when none is close.
std::string suggestName(const std::string &name, const std::vector<std::string> &candidates);

} // namespace splitscope::cli
