// SPDX-License-Identifier: MIT
// splitscope-cli split / validate / examples.
#include "ArgParser.h"
#include "Commands.h"
#include "ExtraCommands.h"
#include "PipelineArgument.h"
#include "StandardStreams.h"

#include "core/AtomicFile.h"
#include "core/CountText.h"
#include "core/NameSuggestion.h"
#include "core/SplitReport.h"
#include "resources/Examples.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

namespace splitscope::cli {

namespace {

constexpr std::size_t kListedNames = 40; // --explain with a wrong name lists at most this many

// Why --check fails, on stderr: the output may be an explanation or a file, neither of
// which shows the verification.
void reportFailedCheck(const PipelineGraph &graph, const SplitAnalysis &analysis, bool explained)
{
    constexpr std::size_t kMaxListed = 10; // findings listed before "... and N more"
    std::fprintf(stderr, "splitscope-cli split: --check: the split fails verification: %s\n",
        verificationSummary(analysis.split, analysis.verification).c_str());
    const std::vector<std::string> findings = verificationFindings(graph, analysis.verification);
    for (std::size_t i = 0; i < findings.size() && i < kMaxListed; ++i)
        std::fprintf(stderr, "  %s\n", findings[i].c_str());
    if (findings.size() > kMaxListed)
        std::fprintf(stderr, "  ... and %zu more\n", findings.size() - kMaxListed);
    if (explained)
        std::fprintf(stderr, "  (the whole report: the same 'splitscope-cli split' without --explain)\n");
    else if (findings.size() > kMaxListed)
        std::fprintf(stderr, "  (the text and JSON reports list them all)\n");
}

} // namespace

std::string suggestName(const std::string &name, const std::vector<std::string> &candidates)
{
    return closestName(name, candidates);
}

int runSplit(const Args &args)
{
    ArgParser p;
    p.positional("PIPELINE", "a splitscope.pipeline/1 file, or a built-in pipeline name (see 'examples')");
    p.option("lora_base_model", "MODEL",
        "model trained with LoRA (needs gradients); replaces only lora_base_model of the file's training block, "
        "\"\" for none");
    p.option("trainable_models", "A,B",
        "models trained in full, comma-separated; replaces only trainable_models of the file's training block, "
        "\"\" for none");
    p.option("mode", "seed|safe", "seed: DiffSynth's split (default); safe: the hazard-free split");
    p.option("stage-two", "U1,U2", "verify this partition instead (these units in stage two, the rest in stage one)");
    p.option("format", "text|json|dot", "output format (default text)");
    p.option("explain", "UNIT", "explain why UNIT is in its stage");
    p.option("output", "FILE", "write to FILE (atomically) instead of standard output");
    p.flag("check", "exit with status 3 when the split has hazards or breaks X0, C1 or C2");
    p.flag("verbose", "also print informational diagnostics (external inputs)");
    p.flag("help", "show this help");
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli split"));
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("split", p.error());

    const std::string format = p.valueOr("format", "text");
    if (format != "text" && format != "json" && format != "dot")
        return p.usageError("split", "--format: '" + format + "' is not one of text, json, dot");
    const std::string modeName = p.valueOr("mode", "seed");
    if (modeName != "seed" && modeName != "safe")
        return p.usageError("split", "--mode: '" + modeName + "' is not one of seed, safe");
    if (p.has("stage-two") && p.has("mode"))
        return p.usageError("split", "--stage-two gives the partition itself; it cannot be combined with --mode");
    if (p.has("explain") && format == "dot")
        return p.usageError("split", "--explain: the dot format has no room for an explanation; use --format text or json");
    if (const auto output = p.value("output")) {
        if (const std::string problem = outputPathProblem("output", *output, p.positionals().front()); !problem.empty())
            return p.usageError("split", problem);
    }

    const LoadResult loaded = loadPipelineArgument(p.positionals().front(), "split");
    printDiagnostics(loaded.diagnostics, p.has("verbose"));
    if (!loaded.ok())
        return loadFailureStatus(loaded.diagnostics);
    const Pipeline &pipeline = *loaded.pipeline;
    const PipelineGraph graph(pipeline);

    TrainingChoice choice;
    choice.mode = modeName == "safe" ? SplitMode::Safe : SplitMode::Seed;
    std::string modelError;
    if (!trainingFromFlags(p, {"lora_base_model", "trainable_models"}, "split", pipeline, graph, choice, modelError))
        return p.usageError("split", modelError);
    const std::vector<std::string> models = choice.modelsRequiringBackward();

    SplitAnalysis analysis;
    if (const auto given = p.value("stage-two")) {
        std::vector<std::string> unknown;
        const std::vector<std::string> listed = splitCommaList(*given);
        Split split = givenSplit(graph, listed, &unknown, models);
        if (!unknown.empty()) {
            std::vector<std::string> names;
            for (const Unit &u : pipeline.units)
                names.push_back(u.name);
            const std::string hint = suggestName(unknown.front(), names);
            return p.usageError("split", "--stage-two: unknown unit '" + unknown.front() + "'"
                    + (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)"));
        }
        // As for the model lists: an empty entry or a repeat changes nothing, but may be a slip.
        if (commaListHasEmptyEntry(*given))
            std::fprintf(stderr, "splitscope-cli split: warning: --stage-two: '%s' has an empty entry, which names no "
                                 "unit; it is ignored\n",
                given->c_str());
        std::unordered_set<std::string> seen;
        for (const std::string &name : listed) {
            if (!seen.insert(name).second) {
                std::fprintf(stderr, "splitscope-cli split: warning: --stage-two names unit '%s' twice\n", name.c_str());
                break;
            }
        }
        analysis = analyzeSplit(graph, std::move(split));
    } else {
        analysis = analyzeSplit(graph, models, choice.mode);
    }

    std::optional<Explanation> explanation;
    if (const auto unitName = p.value("explain")) {
        const UnitId unit = graph.findUnitOrLoss(*unitName); // the loss is explained too
        if (unit == kNoUnit) {
            std::vector<std::string> names;
            for (const Unit &u : pipeline.units)
                names.push_back(u.name);
            names.push_back(graph.unitName(graph.lossId()));
            const std::string hint = suggestName(*unitName, names);
            // The names, not the usage text: that is what a wrong name needs.
            std::string list;
            for (std::size_t i = 0; i < names.size() && i < kListedNames; ++i)
                list += "\n  " + printableName(names[i]);
            if (names.size() > kListedNames)
                list += "\n  ... (" + countText(names.size() - kListedNames, "more unit") + ")";
            std::fprintf(stderr, "splitscope-cli split: --explain: no unit named '%s' in %s%s; its units and loss:%s\n",
                printableName(*unitName).c_str(), pipeline.name.c_str(),
                hint.empty() ? "" : (" (did you mean '" + printableName(hint) + "'?)").c_str(), list.c_str());
            return kExitUsage;
        }
        explanation = explainUnit(graph, analysis.split, unit);
    }

    std::string out;
    if (format == "json") {
        out = splitToJson(graph, analysis, explanation);
    } else if (format == "dot") {
        out = splitToDot(graph, analysis);
    } else if (explanation) {
        for (const auto &line : explanation->lines)
            out += line + "\n";
    } else {
        out = splitToText(graph, analysis);
    }
    if (!writeOutput("split", out, p.value("output")))
        return kExitFailure;
    if (p.has("check") && (!analysis.verification.hazardFree() || !analysis.verification.satisfiesConditions())) {
        reportFailedCheck(graph, analysis, explanation.has_value());
        return kExitHazards;
    }
    return kExitOk;
}

int runValidate(const Args &args)
{
    ArgParser p;
    p.positional("PIPELINE", "a splitscope.pipeline/1 file, or a built-in pipeline name");
    p.flag("quiet", "print nothing; only the exit status tells (0 valid, 2 invalid)");
    p.flag("help", "show this help");
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli validate"));
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("validate", p.error());
    const std::string &argument = p.positionals().front();
    LoadResult loaded = loadPipelineArgument(argument, "validate");
    if (loaded.ok()) {
        // What the importer read of process() bodies that the declarations do not say.
        const PipelineGraph graph(*loaded.pipeline);
        for (const DeclarationFinding &f : graph.declarationFindings()) {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = declarationFindingName(f.kind);
            d.file = loaded.diagnostics.empty() ? pipelineArgumentName(argument) : loaded.diagnostics.front().file;
            d.jsonPath = "units[" + std::to_string(f.unit) + "]";
            d.line = loaded.pipeline->units[static_cast<std::size_t>(f.unit)].location.line;
            d.column = loaded.pipeline->units[static_cast<std::size_t>(f.unit)].location.column;
            d.message = declarationFindingText(graph, f);
            loaded.diagnostics.push_back(std::move(d));
        }
    }
    if (!p.has("quiet")) {
        for (const Diagnostic &d : loaded.diagnostics)
            printOut("%s\n", d.toString().c_str());
        printOut("%s: %s, %s, %s%s\n", pipelineArgumentName(argument).c_str(),
            countText(countSeverity(loaded.diagnostics, Severity::Error), "error").c_str(),
            countText(countSeverity(loaded.diagnostics, Severity::Warning), "warning").c_str(),
            countText(countSeverity(loaded.diagnostics, Severity::Info), "note").c_str(),
            loaded.ok() ? (", " + countText(loaded.pipeline->units.size(), "unit")).c_str() : "");
    }
    return loaded.ok() ? kExitOk : loadFailureStatus(loaded.diagnostics);
}

int runExamples(const Args &args)
{
    ArgParser p;
    p.positional("NAME", "print this example's JSON instead of listing the examples", false);
    p.option("output", "FILE", "write the example to FILE");
    p.flag("help", "show this help");
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli examples"));
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("examples", p.error());
    if (const auto v = p.value("output"); v && v->empty())
        return p.usageError("examples", "--output: empty file name");
    if (p.has("output") && p.positionals().empty())
        return p.usageError("examples", "--output writes one example; name it (see 'splitscope-cli examples')");
    if (p.positionals().empty()) {
        // Each name once; "(executable)" marks those splitscope-engine can also train.
        const std::vector<std::string> executable = executablePipelineNames();
        const auto isExecutable = [&executable](const std::string &name) {
            return std::find(executable.begin(), executable.end(), name) != executable.end();
        };
        for (const auto &e : builtinExamples())
            printOut("%s%s\n", e.name.c_str(), isExecutable(e.name) ? " (executable)" : "");
        return kExitOk;
    }
    const std::string &name = p.positionals().front();
    const BuiltinExample *example = findBuiltinExample(name);
    if (!example) {
        std::vector<std::string> names;
        for (const auto &e : builtinExamples())
            names.push_back(e.name);
        const std::string hint = suggestName(name, names);
        std::string all;
        for (const auto &n : names)
            all += (all.empty() ? "" : ", ") + n;
        return p.usageError("examples", "no built-in pipeline named '" + name + "'"
                + (hint.empty() ? " (built-in: " + all + ")" : " (did you mean '" + hint + "'?)"));
    }
    return writeOutput("examples", example->json, p.value("output")) ? kExitOk : kExitFailure;
}

} // namespace splitscope::cli
