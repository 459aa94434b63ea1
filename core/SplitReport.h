// SPDX-License-Identifier: MIT
#pragma once

#include "Explain.h"
#include "Verifier.h"

#include <optional>
#include <string>
#include <vector>

namespace splitscope {

// Everything shown about one split of one pipeline: the split with its trace, its
// verification and its cache set. The command line prints it; the GUI draws it and
// exports it with the same functions.
struct SplitAnalysis {
    Split split;
    Verification verification;
    std::vector<CacheEntry> cacheSet;
};

SplitAnalysis analyzeSplit(const PipelineGraph &graph, const std::vector<std::string> &models, SplitMode mode);
SplitAnalysis analyzeSplit(const PipelineGraph &graph, Split split);

// JSON (format "splitscope.split/1"). Keys: format, pipeline, mode, models_require_backward,
// x0, iterations [{forward, update}], v1 (stage two), v2 (stage one), reasons,
// update_chains {param: [writers in order]} for the params the update reasons name,
// violations [{condition "C1"/"C2", from, to, param} or {condition "X0", unit, model}], hazards [{kind, mechanism, reader, reader_is_loss, param, expected_producer,
// actual_producer}], frozen_randomness, cache_set [{param, producer, readers, loss_reads}] (readers: unit names, the loss's
// name last when loss_reads),
// and explain when an explanation is given. Unit names in pipeline order; null
// producers are external inputs.
std::string splitToJson(const PipelineGraph &graph, const SplitAnalysis &analysis,
    const std::optional<Explanation> &explanation = std::nullopt);

// A report for people.
std::string splitToText(const PipelineGraph &graph, const SplitAnalysis &analysis);

// The verification as the report sums it up: "C1 holds, C2 1 violation(s), 2 hazard(s)"
// (X0 too for a given partition, or when it is broken).
std::string verificationSummary(const Split &split, const Verification &verification);
// One line per broken condition and per hazard, as the report lists them
// ("write-after-read: C reads p; one-stage training gives it A's value, two-stage gives it B's").
std::vector<std::string> verificationFindings(const PipelineGraph &graph, const Verification &verification);

// Graphviz DOT of the unit graph colored by stage (stage one blue, stage two orange),
// X0 with a double border, hazards in red, data edges labeled with their params. Names
// are shown as the reports show them (printableName: a newline as `\n`, NUL as `\u0000`).
struct DotOptions {
    bool edgeLabels = true;
    bool showLoss = true;
    bool legend = true;
};
std::string splitToDot(const PipelineGraph &graph, const SplitAnalysis &analysis, const DotOptions &options = {});

// Stage colors, shared with the GUI so the picture and the export agree.
constexpr const char *kStageOneColor = "#cfe3f7";  // cached: cool blue
constexpr const char *kStageTwoColor = "#ffd8a8";  // trained: warm orange
constexpr const char *kHazardColor = "#d6336c";    // hazards and violations
constexpr const char *kLossColor = "#e9ecef";

} // namespace splitscope
