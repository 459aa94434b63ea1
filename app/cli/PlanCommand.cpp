// SPDX-License-Identifier: MIT
// splitscope-cli plan SCRIPT.sh [--diffsynth DIR | --pipeline FILE] [...]: the two stage
// commands for a one-stage DiffSynth-Studio training command (core/plan/Plan.h).
#include "PlanCommand.h"

#include "ArgParser.h"
#include "PipelineArgument.h"
#include "StandardStreams.h"

#include "core/AtomicFile.h"
#include "core/plan/Plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char **environ;

namespace splitscope::cli {

namespace {

// A shell word for the command given after `--`: as the shell would have passed it.
std::string asScript(const Args &words)
{
    std::string out;
    for (const std::string &w : words)
        out += (out.empty() ? "" : " ") + plan::shellQuote(w);
    return out + "\n";
}

} // namespace

int runPlan(const Args &rawArgs)
{
    ArgParser p;
    p.positional("SCRIPT.sh", "a script with the one-stage train.py command (or give the command after --)", false);
    p.option("diffsynth", "DIR", "the DiffSynth-Studio checkout: the pipeline comes from the train.py the command runs");
    p.option("pipeline", "FILE.json", "plan against this description (a file or a built-in name) instead");
    p.option("workdir", "DIR", "where the command runs, for its relative paths (default: the current folder)");
    p.option("cache_path", "DIR", "stage one's --output_path, the cache (default: the command's --output_path + -cache)");
    p.option("output_path", "DIR", "stage two's --output_path (default: the command's)");
    p.option("line", "N", "the train.py command that starts on line N of the script (when it has several)");
    p.option("model_base_path", "DIR", "where the model files are (default: $DIFFSYNTH_MODEL_BASE_PATH, else ./models)");
    p.option("model", "ENTRY=ATTR[,ATTR]", "the pipeline model(s) a model entry holds (repeatable)");
    p.flag("prune", "remove unneeded entries from the model flags instead of listing them in --offload_models");
    p.option("format", "FORMAT", "text (default), json (splitscope.plan/1) or sh (a runnable script)");
    p.option("output", "FILE", "write the plan to FILE, atomically (default: standard output)");
    p.flag("help", "show this help");
    // --model repeats; after `--`, the command itself.
    Args args;
    Args command;
    std::vector<std::pair<std::string, std::vector<std::string>>> models;
    for (std::size_t i = 0; i < rawArgs.size(); ++i) {
        if (rawArgs[i] == "--") {
            command.assign(rawArgs.begin() + static_cast<std::ptrdiff_t>(i) + 1, rawArgs.end());
            break;
        }
        const std::string &a = rawArgs[i];
        std::string value;
        if (a == "--model" && i + 1 < rawArgs.size())
            value = rawArgs[++i];
        else if (a.rfind("--model=", 0) == 0)
            value = a.substr(8);
        else {
            args.push_back(a);
            continue;
        }
        std::pair<std::string, std::vector<std::string>> mapping;
        std::string error;
        if (!plan::parseModelMapping(value, mapping, error))
            return p.usageError("plan", "--model " + error);
        models.push_back(std::move(mapping));
    }
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli plan"));
        writeOut("\nReads a one-stage DiffSynth-Studio training command and writes the two commands of split training,\n"
                 "as the feature document prescribes: which units each stage runs, which models each must load, and\n"
                 "why. Exit status: 0 planned, 1 could not write, 2 bad input, 3 DiffSynth's split has hazards.\n");
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("plan", p.error());
    if (p.positionals().empty() == command.empty())
        return p.usageError("plan", command.empty() ? "give the one-stage script, or the command after --"
                                                    : "give the script or the command after --, not both");
    if (p.has("diffsynth") == p.has("pipeline"))
        return p.usageError("plan", "give the DiffSynth-Studio checkout (--diffsynth DIR) or a description (--pipeline FILE.json)");
    const std::string format = p.valueOr("format", "text");
    if (format != "text" && format != "json" && format != "sh")
        return p.usageError("plan", "--format: '" + format + "' is not text, json or sh");

    plan::PlanInput in;
    long long line = 0;
    if (p.has("line") && !p.intValue("line", line, 1, 1000000))
        return p.usageError("plan", p.error());
    in.line = static_cast<int>(line);
    if (command.empty()) {
        in.scriptName = p.positionals().front();
        std::string error;
        if (!readWholeFile(in.scriptName, in.script, &error)) {
            std::fprintf(stderr, "splitscope-cli plan: %s: %s\n", in.scriptName.c_str(), error.c_str());
            return kExitUsage;
        }
    } else {
        in.scriptName = "the command after --";
        in.script = asScript(command);
    }
    in.checkout = p.valueOr("diffsynth", "");
    if (const auto file = p.value("pipeline")) {
        LoadResult loaded = loadPipelineArgument(*file, "plan");
        if (!loaded.ok())
            return kExitUsage; // loadPipelineArgument said why
        in.pipeline = std::move(*loaded.pipeline);
    }
    in.workdir = p.valueOr("workdir", ".");
    in.cachePath = p.valueOr("cache_path", "");
    in.outputPath = p.valueOr("output_path", "");
    in.modelBase = p.valueOr("model_base_path", "");
    in.models = models;
    in.prune = p.has("prune");
    for (char **e = environ; e && *e; ++e) {
        const char *equals = std::strchr(*e, '=');
        if (equals)
            in.environment.emplace(std::string(*e, static_cast<std::size_t>(equals - *e)), std::string(equals + 1));
    }
    const plan::PlanResult result = plan::makePlan(in);
    for (const Diagnostic &d : result.diagnostics)
        std::fprintf(stderr, "%s\n", d.toString().c_str());
    if (!result.plan)
        return kExitUsage;
    const plan::Plan &planned = *result.plan;
    const std::string text = format == "json" ? plan::planToJson(planned)
        : format == "sh"                      ? plan::planToShell(planned)
                                              : plan::planToText(planned);
    if (!writeOutput("plan", text, p.value("output")))
        return kExitFailure;
    if (format == "sh" && p.value("output")) {
        // A script to run: executable by whoever may read it.
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::perms read = fs::status(*p.value("output"), ec).permissions();
        fs::perms exec = fs::perms::none;
        exec |= (read & fs::perms::owner_read) != fs::perms::none ? fs::perms::owner_exec : fs::perms::none;
        exec |= (read & fs::perms::group_read) != fs::perms::none ? fs::perms::group_exec : fs::perms::none;
        exec |= (read & fs::perms::others_read) != fs::perms::none ? fs::perms::others_exec : fs::perms::none;
        fs::permissions(*p.value("output"), exec, fs::perm_options::add, ec);
        if (ec)
            std::fprintf(stderr, "splitscope-cli plan: --output %s: written, but not made executable: %s\n",
                p.value("output")->c_str(), ec.message().c_str());
    }
    if (!planned.hazards.empty()) {
        std::fprintf(stderr, "splitscope-cli plan: DiffSynth's split has hazards for %s (see the plan); two-stage "
                             "training would differ from one-stage training\n", planned.training.c_str());
        return kExitHazards;
    }
    return kExitOk;
}

void addPlanCommands(std::vector<Command> &commands)
{
    commands.push_back({"plan", "turn a one-stage DiffSynth-Studio training command into the two stage commands", runPlan});
}

} // namespace splitscope::cli
