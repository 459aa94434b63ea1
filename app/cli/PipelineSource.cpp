// SPDX-License-Identifier: MIT
#include "PipelineSource.h"

#include "ArgParser.h"
#include "Commands.h"
#include "ExtraCommands.h"
#include "resources/Examples.h"

#include "core/PipelineGraph.h"

#include <algorithm>
#include <cstdio>
#include <sys/stat.h>

namespace splitscope::cli {

namespace {

// Every built-in pipeline name once (the engine's executable ones may also be examples).
std::vector<std::string> builtinPipelineNames()
{
    std::vector<std::string> names;
    for (const auto &e : builtinExamples())
        names.push_back(e.name);
    for (const auto &name : extraBuiltinPipelineNames()) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

std::string joined(const std::vector<std::string> &names)
{
    std::string out;
    for (const auto &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

bool calledByAUnit(const Pipeline &pipeline, const std::string &model)
{
    return std::any_of(pipeline.units.begin(), pipeline.units.end(), [&](const Unit &u) { return u.callsModel(model); });
}

} // namespace

LoadResult loadPipelineArgument(const std::string &argument)
{
    struct stat st {};
    const bool exists = ::stat(argument.c_str(), &st) == 0;
    // Only a bare name can be a built-in pipeline; a path is looked up as a file alone.
    const bool mayBeBuiltin = argument.find('/') == std::string::npos;
    if (!exists && mayBeBuiltin) {
        if (const BuiltinExample *example = findBuiltinExample(argument))
            return parsePipeline(example->json, "<built-in " + argument + ">");
        const std::string json = extraBuiltinPipelineJson(argument);
        if (!json.empty())
            return parsePipeline(json, "<built-in " + argument + ">");
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
    const Pipeline &pipeline, const PipelineGraph &graph, TrainingConfig &config, std::string &error)
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

    config = pipeline.trainingOrDefault();
    std::vector<std::string> fromFlags; // the models the flags name
    if (const auto v = parser.value(flags.loraBaseModel)) {
        config.loraBaseModel = v->empty() ? std::nullopt : std::optional<std::string>(*v);
        if (!v->empty()) {
            if (!checkNames(flags.loraBaseModel, {*v}))
                return false;
            fromFlags.push_back(*v);
        }
    }
    if (const auto v = parser.value(flags.trainableModels)) {
        config.trainableModels = v->empty() ? std::nullopt : std::optional<std::string>(*v);
        const std::vector<std::string> names = splitCommaList(*v);
        if (!checkNames(flags.trainableModels, names))
            return false;
        fromFlags.insert(fromFlags.end(), names.begin(), names.end());
    }
    for (const std::string &m : config.modelsRequiringBackward()) {
        if (calledByAUnit(pipeline, m))
            continue;
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
    if (::stat(output.c_str(), &out) == 0 && S_ISREG(out.st_mode) && ::stat(input.c_str(), &in) == 0
        && out.st_dev == in.st_dev && out.st_ino == in.st_ino)
        return "--" + flag + ": '" + output + "' is the input file '" + input + "'; writing would overwrite it";
    return {};
}

} // namespace splitscope::cli
