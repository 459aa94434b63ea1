// SPDX-License-Identifier: MIT
#pragma once

#include "ShellScript.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::plan {

// One `--name [value]` of a DiffSynth train.py command (argparse's reading: a word after
// the flag that does not start with "--" is its value; `--name=value` too).
struct TrainFlag {
    std::string name;                  // without "--"
    std::optional<std::string> value;  // nullopt for a switch (--use_gradient_checkpointing)
    std::string raw;                   // as written ("--output_path \"./models/x\"")
    bool expands = false;              // the value holds $ or `: the shell decides it
    int line = 0;
    int column = 0;
};

// The train.py command of a one-stage DiffSynth script: what runs it (`accelerate
// launch`, `python`, `torchrun ...`, environment assignments: kept verbatim), the
// script, its flags, and redirections after them.
struct TrainCommand {
    std::vector<std::string> prefix; // raw words
    std::string script;              // as the shell sees it
    std::string scriptRaw;
    std::vector<TrainFlag> flags;
    std::vector<std::string> suffix; // raw redirections (`> log 2>&1`)
    int line = 0;

    const TrainFlag *flag(std::string_view name) const;
    // The flag's value; nullopt when absent or a switch.
    std::optional<std::string> value(std::string_view name) const;
    // Every flag with its value ("true" for a switch), for the importer.
    std::map<std::string, std::string> flagMap() const;
    // Gives `name` this value (written quoted as the examples do), adding the flag when
    // missing; nullopt removes it.
    void setFlag(const std::string &name, const std::optional<std::string> &value);
};

// The command of `script` that runs a train.py (the first word whose file name is
// train.py, else one ending in .py); with `line`, the one that starts on that line (a
// script that trains two models, as Wan2.2's high- and low-noise DiTs, has two). Errors,
// with the line: no such command, several of them without `line`, a flag given twice.
struct FoundCommand {
    std::optional<TrainCommand> command;
    std::string error;
    int line = 0;
    int column = 0;
};
FoundCommand findTrainCommand(const ShellScript &script, int line = 0);

// A change the plan makes to a flag: a new value (nullopt: a switch), or its removal.
// A flag the command lacks is added after the others.
struct FlagEdit {
    std::string name;
    std::optional<std::string> value;
    bool remove = false;
};

// The command again, every flag the edits leave alone as written: the launcher and the
// script on the first line, then one flag per line after a backslash.
std::string renderCommand(const TrainCommand &command, const std::vector<FlagEdit> &edits);

} // namespace splitscope::plan
