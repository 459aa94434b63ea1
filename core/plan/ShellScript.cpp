// SPDX-License-Identifier: MIT
#include "ShellScript.h"

namespace splitscope::plan {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

bool endsCommand(char c)
{
    return c == '\n' || c == ';' || c == '&' || c == '|';
}

} // namespace

ShellScript parseShellScript(std::string_view text)
{
    ShellScript out;
    ShellCommand command;
    ShellWord word;
    bool inWord = false;
    int line = 1;
    std::size_t lineStart = 0;
    std::size_t wordStart = 0;
    const auto endWord = [&](std::size_t end) {
        if (!inWord)
            return;
        word.raw = std::string(text.substr(wordStart, end - wordStart));
        if (command.words.empty())
            command.line = word.line;
        command.words.push_back(std::move(word));
        word = ShellWord();
        inWord = false;
    };
    const auto endCommand = [&] {
        if (!command.words.empty())
            out.commands.push_back(std::move(command));
        command = ShellCommand();
    };
    const auto startWord = [&](std::size_t at) {
        if (inWord)
            return;
        inWord = true;
        wordStart = at;
        word.line = line;
        word.column = static_cast<int>(at - lineStart) + 1;
    };
    const auto newline = [&](std::size_t at) {
        ++line;
        lineStart = at + 1;
    };
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { // a continued line
            newline(i + 1);
            i += 2;
            continue;
        }
        if (!inWord && c == '#') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            continue;
        }
        if (isBlank(c) || c == '\r') {
            endWord(i);
            ++i;
            continue;
        }
        // `2>&1`, `>&2`: the & of a redirection is part of its word.
        if (endsCommand(c) && !(c == '&' && inWord && i > 0 && (text[i - 1] == '>' || text[i - 1] == '<'))) {
            endWord(i);
            endCommand();
            if (c == '\n')
                newline(i);
            ++i;
            continue;
        }
        startWord(i);
        if (c == '\'') {
            const std::size_t close = text.find('\'', i + 1);
            if (close == std::string_view::npos) {
                out.error = "a single quote (') that is never closed";
                out.errorLine = line;
                out.errorColumn = static_cast<int>(i - lineStart) + 1;
                return out;
            }
            for (std::size_t k = i + 1; k < close; ++k) {
                if (text[k] == '\n')
                    newline(k);
            }
            word.value += text.substr(i + 1, close - i - 1);
            i = close + 1;
        } else if (c == '"') {
            const int openLine = line;
            const std::size_t openColumn = i - lineStart + 1;
            ++i;
            while (i < text.size() && text[i] != '"') {
                if (text[i] == '\\' && i + 1 < text.size()) {
                    const char next = text[i + 1];
                    if (next == '\n')
                        newline(i + 1);
                    else if (next == '"' || next == '\\' || next == '$' || next == '`')
                        word.value += next;
                    else
                        word.value += std::string{'\\', next};
                    i += 2;
                    continue;
                }
                if (text[i] == '$' || text[i] == '`')
                    word.expands = true;
                if (text[i] == '\n')
                    newline(i);
                word.value += text[i++];
            }
            if (i >= text.size()) {
                out.error = "a double quote (\") that is never closed";
                out.errorLine = openLine;
                out.errorColumn = static_cast<int>(openColumn);
                return out;
            }
            ++i;
        } else if (c == '\\' && i + 1 < text.size()) {
            word.value += text[i + 1];
            i += 2;
        } else {
            if (c == '$' || c == '`')
                word.expands = true;
            word.value += c;
            ++i;
        }
    }
    endWord(text.size());
    endCommand();
    return out;
}

std::string shellQuote(const std::string &value)
{
    // Bare only for plain words and numbers, as the DiffSynth examples write them
    // (--dataset_repeat 1, --task "sft:train", --output_path "./models/train/x").
    const bool bare = !value.empty()
        && value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == std::string::npos;
    if (bare)
        return value;
    if (value.find_first_of("\"\\$`!") == std::string::npos)
        return "\"" + value + "\"";
    std::string out = "'";
    for (const char c : value)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace splitscope::plan
