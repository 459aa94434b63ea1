// SPDX-License-Identifier: MIT
#include "TrainCommand.h"

#include <algorithm>

namespace splitscope::plan {

namespace {

std::string fileName(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool isRedirection(const std::string &word)
{
    const std::size_t digits = word.find_first_not_of("0123456789&");
    return digits != std::string::npos && (word[digits] == '>' || word[digits] == '<');
}

} // namespace

const TrainFlag *TrainCommand::flag(std::string_view name) const
{
    for (const TrainFlag &f : flags) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

std::optional<std::string> TrainCommand::value(std::string_view name) const
{
    const TrainFlag *f = flag(name);
    return f ? f->value : std::nullopt;
}

std::map<std::string, std::string> TrainCommand::flagMap() const
{
    std::map<std::string, std::string> out;
    for (const TrainFlag &f : flags)
        out[f.name] = f.value.value_or("true");
    return out;
}

void TrainCommand::setFlag(const std::string &name, const std::optional<std::string> &value)
{
    const auto it = std::find_if(flags.begin(), flags.end(), [&](const TrainFlag &f) { return f.name == name; });
    if (!value) {
        if (it != flags.end())
            flags.erase(it);
        return;
    }
    TrainFlag f = it == flags.end() ? TrainFlag{} : *it;
    f.name = name;
    f.value = value;
    f.raw = "--" + name + " " + shellQuote(*value);
    f.expands = false;
    if (it == flags.end())
        flags.push_back(std::move(f));
    else
        *it = std::move(f);
}

FoundCommand findTrainCommand(const ShellScript &script, int line)
{
    FoundCommand out;
    struct Candidate {
        const ShellCommand *command;
        std::size_t scriptWord;
    };
    std::vector<Candidate> candidates;
    for (int pass = 0; pass < 2 && candidates.empty(); ++pass) {
        for (const ShellCommand &c : script.commands) {
            for (std::size_t i = 0; i < c.words.size(); ++i) {
                const std::string name = fileName(c.words[i].value);
                if (pass == 0 ? name == "train.py" : name.size() > 3 && name.rfind(".py") == name.size() - 3) {
                    candidates.push_back({&c, i});
                    break;
                }
            }
        }
    }
    std::vector<std::string> lines;
    for (const Candidate &c : candidates)
        lines.push_back(std::to_string(c.command->line));
    std::string listed; // "3, 12 and 23"
    for (std::size_t i = 0; i < lines.size(); ++i)
        listed += (i == 0 ? "" : i + 1 == lines.size() ? " and " : ", ") + lines[i];
    if (line > 0) {
        const auto at = std::find_if(candidates.begin(), candidates.end(), [line](const Candidate &c) { return c.command->line == line; });
        if (at == candidates.end()) {
            out.error = "no command that runs a train.py starts on line " + std::to_string(line)
                + (candidates.empty() ? std::string() : " (" + std::string(candidates.size() == 1 ? "it starts on line " : "they start on lines ") + listed + ")");
            out.line = line;
            return out;
        }
        candidates = {*at};
    }
    if (candidates.size() > 1) {
        out.error = std::to_string(candidates.size()) + " commands run a train.py (lines " + listed
            + "); a one-stage script has one: say which with --line " + lines.front() + " (or another of those lines)";
        out.line = candidates[1].command->line;
        return out;
    }
    if (candidates.empty()) {
        out.error = "no command runs a train.py (such as `accelerate launch examples/qwen_image/model_training/train.py "
                    "--dataset_base_path ...`)";
        out.line = script.commands.empty() ? 0 : script.commands.front().line;
        return out;
    }
    const ShellCommand *found = candidates.front().command;
    const std::size_t scriptWord = candidates.front().scriptWord;
    TrainCommand command;
    command.line = found->line;
    for (std::size_t i = 0; i < scriptWord; ++i)
        command.prefix.push_back(found->words[i].raw);
    command.script = found->words[scriptWord].value;
    command.scriptRaw = found->words[scriptWord].raw;
    const std::vector<ShellWord> &words = found->words;
    for (std::size_t i = scriptWord + 1; i < words.size(); ++i) {
        const ShellWord &w = words[i];
        if (isRedirection(w.value) || !command.suffix.empty()) {
            command.suffix.push_back(w.raw);
            continue;
        }
        if (w.value.rfind("--", 0) != 0 || w.value.size() == 2) {
            out.error = "'" + w.raw + "' is no --flag of train.py (argument " + std::to_string(i - scriptWord) + ")";
            out.line = w.line;
            out.column = w.column;
            return out;
        }
        TrainFlag f;
        f.line = w.line;
        f.column = w.column;
        f.raw = w.raw;
        f.name = w.value.substr(2);
        f.expands = w.expands;
        if (const std::size_t equals = f.name.find('='); equals != std::string::npos) {
            f.value = f.name.substr(equals + 1);
            f.name.resize(equals);
        } else if (i + 1 < words.size() && words[i + 1].value.rfind("--", 0) != 0 && !isRedirection(words[i + 1].value)) {
            f.value = words[i + 1].value;
            f.raw += " " + words[i + 1].raw;
            f.expands = words[i + 1].expands;
            ++i;
        }
        if (const TrainFlag *earlier = command.flag(f.name)) {
            out.error = "--" + f.name + " is given twice (lines " + std::to_string(earlier->line) + " and "
                + std::to_string(f.line) + "); train.py would take the last one, so say which you mean";
            out.line = f.line;
            out.column = f.column;
            return out;
        }
        command.flags.push_back(std::move(f));
    }
    out.command = std::move(command);
    return out;
}

std::string renderCommand(const TrainCommand &command, const std::vector<FlagEdit> &edits)
{
    std::string out;
    for (const std::string &word : command.prefix)
        out += word + " ";
    out += command.scriptRaw;
    const auto edited = [](const FlagEdit &e) {
        return "--" + e.name + (e.value ? " " + shellQuote(*e.value) : std::string());
    };
    for (const TrainFlag &f : command.flags) {
        const auto edit = std::find_if(edits.begin(), edits.end(), [&](const FlagEdit &e) { return e.name == f.name; });
        if (edit == edits.end())
            out += " \\\n  " + f.raw;
        else if (!edit->remove)
            out += " \\\n  " + edited(*edit);
    }
    for (const FlagEdit &e : edits) {
        if (!e.remove && !command.flag(e.name))
            out += " \\\n  " + edited(e);
    }
    for (const std::string &word : command.suffix)
        out += " " + word;
    return out + "\n";
}

} // namespace splitscope::plan
