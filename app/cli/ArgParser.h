// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::cli {

// Command-line flags in DiffSynth's style: `--name value`, `--name=value`, and
// switches (`--check`). Unknown flags, missing values, bad numbers and a flag given
// twice are errors that name the flag. A separate value may not start with `--`
// (`--output --check` is a forgotten value); `--output=--x` gives one. No exceptions.
class ArgParser {
public:
    // Declares a flag taking a value; `help` is one line for usage text.
    void option(const std::string &name, const std::string &valueName, const std::string &help);
    // Declares a switch.
    void flag(const std::string &name, const std::string &help);
    // Declares positional arguments for the usage line ("PIPELINE.json").
    void positional(const std::string &name, const std::string &help, bool required = true);

    // False with error() set on bad input.
    bool parse(const std::vector<std::string> &args);
    const std::string &error() const { return m_error; }

    bool has(const std::string &name) const { return m_values.count(name) > 0; }
    std::optional<std::string> value(const std::string &name) const;
    std::string valueOr(const std::string &name, const std::string &fallback) const;
    // Parses an integer/number flag; false with error() naming the flag when invalid.
    bool intValue(const std::string &name, long long &out, long long minimum, long long maximum);
    bool doubleValue(const std::string &name, double &out);
    const std::vector<std::string> &positionals() const { return m_positionals; }

    std::string usage(const std::string &program) const;

    // Prints "splitscope-cli COMMAND: MESSAGE" to stderr, then the usage when the
    // command has few flags, or where to find it when it has many; returns the
    // usage exit status (2). Every subcommand reports bad input through this.
    int usageError(const std::string &command, const std::string &message) const;

private:
    struct Spec {
        std::string valueName; // empty for switches
        std::string help;
    };
    std::map<std::string, Spec> m_specs;
    std::vector<std::string> m_order;
    std::vector<std::pair<std::string, std::string>> m_positionalSpecs;
    std::vector<bool> m_positionalRequired;
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positionals;
    std::string m_error;
};

} // namespace splitscope::cli
