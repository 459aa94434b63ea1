// SPDX-License-Identifier: MIT
#include "PipelineArgument.h"

#include "ArgParser.h"
#include "Commands.h"
#include "StandardStreams.h"
#include "resources/Examples.h"

#include "core/Explain.h"
#include "core/PipelineGraph.h"

#include <algorithm>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

namespace splitscope::cli {

namespace {

// Every built-in pipeline's name (the engine's executable ones are examples too).
std::vector<std::string> builtinPipelineNames()
{
    std::vector<std::string> names;
    for (const auto &e : builtinExamples())
        names.push_back(e.name);
    return names;
}

std::string joined(const std::vector<std::string> &names)
{
    std::string out;
    for (const auto &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

std::string pipelineArgumentName(const std::string &argument)
{
    return argument == "-" ? std::string("<stdin>") : argument;
}

int loadFailureStatus(const Diagnostics &diagnostics)
{
    const bool outOfMemory = std::any_of(
        diagnostics.begin(), diagnostics.end(), [](const Diagnostic &d) { return d.code == "out-of-memory"; });
    return outOfMemory ? kExitFailure : kExitUsage;
}

LoadResult loadPipelineArgument(const std::string &argument, const std::string &command)
{
    // `-` is standard input, as for most tools (a file named `-` is `./-`).
    if (argument == "-" && standardInputWasClosed()) {
        LoadResult closed;
        Diagnostic d;
        d.code = "io";
        d.file = pipelineArgumentName(argument);
        d.message = "cannot read standard input: it is closed";
        closed.diagnostics.push_back(std::move(d));
        return closed;
    }
    if (argument == "-")
        return loadPipelineDescriptor(STDIN_FILENO, pipelineArgumentName(argument));
    struct stat st {};
    const bool exists = ::stat(argument.c_str(), &st) == 0;
    // Only a bare name can be a built-in pipeline; a path is looked up as a file alone.
    const bool mayBeBuiltin = argument.find('/') == std::string::npos;
    // A folder cannot be read as a pipeline, so one of the same name (an output folder
    // named after the model, say) does not hide a built-in pipeline; the note says so.
    const bool folder = exists && S_ISDIR(st.st_mode);
    if ((!exists || folder) && mayBeBuiltin) {
        if (const BuiltinExample *example = findBuiltinExample(argument)) {
            if (folder)
                std::fprintf(stderr,
                    "splitscope-cli %s: note: '%s' here is a folder, not a pipeline file; reading the built-in "
                    "pipeline of that name\n",
                    command.c_str(), argument.c_str());
            return parsePipeline(example->json, "<built-in " + argument + ">");
        }
    }
    LoadResult result = loadPipelineFile(argument);
    if (!exists && mayBeBuiltin && !result.diagnostics.empty()) {
        const std::vector<std::string> names = builtinPipelineNames();
        const std::string hint = suggestName(argument, names);
        result.diagnostics.front().message += " (and no built-in pipeline has that name."
            + (hint.empty() ? std::string() : " Did you mean '" + hint + "'?") + " Built-in: " + joined(names) + ")";
    }
    return result;
}

void printDiagnostics(const Diagnostics &diagnostics, bool verbose)
{
    for (const Diagnostic &d : diagnostics) {
        if (d.severity == Severity::Info && !verbose)
            continue;
        std::fprintf(stderr, "%s\n", d.toString().c_str());
    }
}

bool trainingFromFlags(const ArgParser &parser, const ModelFlagNames &flags, const std::string &command,
    const Pipeline &pipeline, const PipelineGraph &graph, TrainingChoice &choice, std::string &error)
{
    std::vector<std::string> known;
    for (int m = 0; m < graph.modelCount(); ++m)
        known.push_back(graph.modelName(m));
    // A typo in a flag would otherwise train (or freeze) the wrong thing without a word.
    const auto checkNames = [&](const std::string &flag, const std::vector<std::string> &names) {
        for (const std::string &name : names) {
            if (graph.findModel(name) >= 0)
                continue;
            const std::string hint = suggestName(name, known);
            error = "--" + flag + ": no model '" + name + "' in " + pipeline.name
                + (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)")
                + "; its models: " + (known.empty() ? std::string("none") : joined(known));
            return false;
        }
        return true;
    };

    choice = TrainingChoice::fromConfig(pipeline.trainingOrDefault(), choice.mode);
    std::vector<std::string> fromFlags; // the models the flags name
    if (const auto v = parser.value(flags.loraBaseModel)) {
        choice.loraBase = v->empty() ? std::nullopt : std::optional<std::string>(*v);
        if (!v->empty()) {
            if (!checkNames(flags.loraBaseModel, {*v}))
                return false;
            fromFlags.push_back(*v);
        }
    }
    if (const auto v = parser.value(flags.trainableModels)) {
        const std::vector<std::string> names = splitCommaList(*v);
        choice.trainable = names;
        if (!checkNames(flags.trainableModels, names))
            return false;
        fromFlags.insert(fromFlags.end(), names.begin(), names.end());
        // DiffSynth splits the value at commas and finds no model for an empty piece, so
        // training goes on without it: the same here, but said. ("" alone means none.)
        if (!v->empty() && names.empty())
            std::fprintf(stderr,
                "splitscope-cli %s: warning: --%s: '%s' names no model, so none is trained in full (write \"\" "
                "to say so)\n",
                command.c_str(), flags.trainableModels.c_str(), v->c_str());
        else if (commaListHasEmptyEntry(*v))
            std::fprintf(stderr, "splitscope-cli %s: warning: --%s: '%s' has an empty entry, which names no model; "
                                 "it is ignored\n",
                command.c_str(), flags.trainableModels.c_str(), v->c_str());
    }
    for (const std::string &m : modelsNoUnitCalls(graph, choice.modelsRequiringBackward())) {
        if (graph.findModel(m) < 0) {
            // Only the file's training block gets here: flags were checked above.
            const std::string hint = suggestName(m, known);
            std::fprintf(stderr, "splitscope-cli %s: warning: no unit of %s calls model '%s'%s\n", command.c_str(),
                pipeline.name.c_str(), m.c_str(), hint.empty() ? "" : (" (did you mean '" + hint + "'?)").c_str());
        } else if (std::find(fromFlags.begin(), fromFlags.end(), m) != fromFlags.end()) {
            // A listed model that no unit calls is usually the denoiser, which only the
            // loss's model call runs (lora_base_model dit): normal, so a note, and only for flags.
            std::fprintf(stderr,
                "splitscope-cli %s: note: model '%s' is listed in %s but no unit calls it (only the loss, as for a "
                "denoiser), so it puts no unit in stage two\n",
                command.c_str(), m.c_str(), pipeline.name.c_str());
        }
    }
    return true;
}

std::string outputPathProblem(const std::string &flag, const std::string &output, const std::string &input)
{
    if (output.empty())
        return "--" + flag + ": empty file name";
    struct stat out {};
    struct stat in {};
    const bool inputIsAFile = input == "-" ? ::fstat(STDIN_FILENO, &in) == 0 : ::stat(input.c_str(), &in) == 0;
    if (::stat(output.c_str(), &out) == 0 && S_ISREG(out.st_mode) && inputIsAFile && out.st_dev == in.st_dev
        && out.st_ino == in.st_ino)
        return "--" + flag + ": '" + output + "' is the input file "
            + (input == "-" ? std::string("(standard input)") : "'" + input + "'") + "; writing would overwrite it";
    return {};
}

} // namespace splitscope::cli
