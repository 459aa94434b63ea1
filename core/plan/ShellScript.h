// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace splitscope::plan {

// The words of a shell script's simple commands, as sh splits them, each with its
// exact source text, so that a command can be written again with every word the user
// wrote kept verbatim, quoting included:
//
//     const ShellScript script = parseShellScript(text);
//     for (const ShellCommand &c : script.commands)
//         use(c.words[0].value, c.words[0].raw, c.line);
//
// Read: words separated by blanks; '...' and "..." (with \" \\ \$ \` escapes) and \x
// outside quotes; a backslash-newline joins lines; # starts a comment at the start of a
// word; a newline, ';', '&', '&&', '||' and '|' end a command. Nothing is expanded: a
// word holding $ or ` outside single quotes is marked (`expands`), its value is then
// only what the shell would see before expanding it. Written by hand because the C
// library's wordexp(3) expands (runs command substitutions) and loses the source text,
// and no packaged library splits shell words keeping it.
struct ShellWord {
    std::string value; // after quote removal
    std::string raw;   // as written
    int line = 0;      // 1-based
    int column = 0;    // 1-based, in bytes
    bool expands = false;
};

struct ShellCommand {
    std::vector<ShellWord> words;
    int line = 0;
};

struct ShellScript {
    std::vector<ShellCommand> commands;
    std::string error; // an unterminated quote; empty when the script reads
    int errorLine = 0;
    int errorColumn = 0;
};

ShellScript parseShellScript(std::string_view text);

// `value` as one shell word: bare when it is a plain word or number (letters, digits,
// _ . -), else in double quotes (the DiffSynth examples' style), else in single quotes.
std::string shellQuote(const std::string &value);

} // namespace splitscope::plan
