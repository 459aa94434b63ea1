// SPDX-License-Identifier: MIT
// splitscope-cli diff: compare two splits of one pipeline (seed vs safe, or two
// training configurations) and explain every unit that moved.
#include "ArgParser.h"
#include "Commands.h"
#include "PipelineArgument.h"
#include "StandardStreams.h"

#include "core/SplitReport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace splitscope::cli {

namespace {

// "seed, lora_base_model=dit": the split first, as the sides differ most often there.
std::string sideLabel(const TrainingChoice &side)
{
    return std::string(splitModeName(side.mode)) + ", " + side.modelsLabel();
}

// Reads --mode-X, --trainable_models-X and --lora_base_model-X; the file's training
// block fills what is not given (trainingFromFlags).
bool readSide(const ArgParser &p, const std::string &suffix, SplitMode defaultMode, const Pipeline &pipeline,
    const PipelineGraph &graph, TrainingChoice &side, std::string &error)
{
    const std::string mode = p.valueOr("mode-" + suffix, defaultMode == SplitMode::Safe ? "safe" : "seed");
    if (mode != "seed" && mode != "safe") {
        error = "--mode-" + suffix + ": '" + mode + "' is not one of seed, safe";
        return false;
    }
    side.mode = mode == "safe" ? SplitMode::Safe : SplitMode::Seed;
    return trainingFromFlags(p, {"lora_base_model-" + suffix, "trainable_models-" + suffix}, "diff", pipeline, graph,
        side, error);
}

} // namespace

int runDiff(const Args &args)
{
    ArgParser p;
    p.positional("PIPELINE", "a splitscope.pipeline/1 file, or a built-in pipeline name");
    for (const char *side : {"a", "b"}) {
        const std::string s = side;
        p.option("mode-" + s, "seed|safe", "split mode of side " + s + " (default: a = seed, b = safe)");
        p.option("trainable_models-" + s, "A,B",
            "side " + s + "'s trainable models; replaces only trainable_models of the file's training block, \"\" for none");
        p.option("lora_base_model-" + s, "MODEL",
            "side " + s + "'s LoRA base model; replaces only lora_base_model of the file's training block, \"\" for none");
    }
    p.option("format", "text|json", "output format (default text)");
    p.flag("help", "show this help");
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli diff"));
        return kExitOk;
    }
    auto usage = [&](const std::string &message) { return p.usageError("diff", message); };
    if (!p.parse(args))
        return usage(p.error());
    const std::string format = p.valueOr("format", "text");
    if (format != "text" && format != "json")
        return usage("--format: '" + format + "' is not one of text, json");
    const LoadResult loaded = loadPipelineArgument(p.positionals().front(), "diff");
    printDiagnostics(loaded.diagnostics, false);
    if (!loaded.ok())
        return loadFailureStatus(loaded.diagnostics);
    const Pipeline &pipeline = *loaded.pipeline;
    const PipelineGraph graph(pipeline);
    TrainingChoice a, b;
    std::string error;
    if (!readSide(p, "a", SplitMode::Seed, pipeline, graph, a, error)
        || !readSide(p, "b", SplitMode::Safe, pipeline, graph, b, error))
        return usage(error);

    const Split splitA = computeSplit(graph, a.modelsRequiringBackward(), a.mode);
    const Split splitB = computeSplit(graph, b.modelsRequiringBackward(), b.mode);
    const SplitDiff diff = diffSplits(graph, splitA, splitB);

    if (format == "json") {
        nlohmann::ordered_json doc;
        doc["format"] = "splitscope.split-diff/1";
        doc["pipeline"] = pipeline.name;
        doc["a"] = sideLabel(a);
        doc["b"] = sideLabel(b);
        doc["same_stage_two"] = diff.sameTrained;
        doc["same_stage_one"] = diff.sameCached;
        nlohmann::ordered_json moved = nlohmann::ordered_json::array();
        for (const MovedUnit &m : diff.moved) {
            moved.push_back({{"unit", graph.unitName(m.unit)}, {"stage_in_a", m.trainedInB ? "one" : "two"},
                {"stage_in_b", m.trainedInB ? "two" : "one"}, {"why", m.why}});
        }
        doc["moved"] = std::move(moved);
        writeOut(doc.dump(1) + "\n");
        return kExitOk;
    }
    // "side a" / "side b", as the flags name them: a bare A or B reads like a unit name.
    printOut("%s: side a = %s; side b = %s\n", printableName(pipeline.name).c_str(), sideLabel(a).c_str(),
        sideLabel(b).c_str());
    printOut("%s in stage two in both, %zu in stage one in both, %zu moved\n",
        countText(diff.sameTrained, "unit").c_str(), diff.sameCached, diff.moved.size());
    for (const MovedUnit &m : diff.moved) {
        printOut("\n%s: stage %s in side a, stage %s in side b\n", unitLabel(graph, m.unit).c_str(),
            m.trainedInB ? "one" : "two", m.trainedInB ? "two" : "one");
        for (const auto &line : m.why)
            printOut("  %s\n", line.c_str());
    }
    return kExitOk;
}

} // namespace splitscope::cli
