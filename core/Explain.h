// SPDX-License-Identifier: MIT
#pragma once

#include "Split.h"
#include "Verifier.h"

#include <string>
#include <vector>

namespace splitscope {

// Plain-language explanations of a split, shared by the command line and the GUI.

// A name as reports print it: unchanged, unless it holds control characters (a
// newline, NUL, ...), which are written as JSON escapes (\n, \u0000) so that a line
// of a report stays one line and nothing after a NUL is lost.
std::string printableName(const std::string &name);
// The graph's unit, param and model names through printableName.
std::string unitLabel(const PipelineGraph &graph, UnitId unit);
std::string paramLabel(const PipelineGraph &graph, ParamId param);
std::string modelLabel(const PipelineGraph &graph, ModelId model);

// Where a stochastic stage-one unit's draws reach the cache, for people:
// "noise → InputImageEmbedder → input_latents, which stage two reads from the cache".
std::string frozenRouteText(const PipelineGraph &graph, const FrozenDraws &draws);

// One finding of what a process() body does beyond its declaration, for people:
// "undeclared-model (hazard): U calls text_encoder in process() (joyai_image.py:186)
// without declaring it ...". The place in the source as "file:line" (empty when none).
std::string declarationFindingText(const PipelineGraph &graph, const DeclarationFinding &finding);
std::string findingPlace(const DeclarationFinding &finding);

// The models of `models` that no unit calls, declared or not (a denoiser only the loss
// runs): they need gradients but put no unit in stage two.
std::vector<std::string> modelsNoUnitCalls(const PipelineGraph &graph, const std::vector<std::string> &models);

// The units that write `param`, in pipeline order, each once (the update chain c(p)
// without the repeat a unit listing the param twice leaves in it).
std::vector<UnitId> writersOf(const PipelineGraph &graph, ParamId param);

// One sentence: why `unit` is in stage two (or "in stage one").
// Example: "U1: prompt_emb is first read inside X by PromptEmbedder, which rewrites it,
// so its later rewriter LoRAEncode must also run in stage two."
std::string describeReason(const PipelineGraph &graph, const Split &split, UnitId unit);

struct Explanation {
    UnitId unit = kNoUnit;
    bool trained = false;
    // Stage two: the chain of causes from a unit of X0 (first) to `unit` (last).
    // Each step's reason names the previous step (or, for the loss rules, the loss).
    std::vector<UnitId> path;
    std::vector<std::string> lines; // for people, in reading order
};

// The chain of reasons from X0 to `unit`, or why it stays in stage one. A stage-two
// unit's lines end with what the verifier reports at it ("What the verifier reports at
// C:", then "- a hazard (...): it reads p; ..." per hazard at its reads); for a given
// partition both stages' explanations name the C1 and C2 violations the unit is part of.
// For graph.lossId(): where each param the loss reads comes from in two-stage training,
// and the reads that differ from one-stage training.
Explanation explainUnit(const PipelineGraph &graph, const Split &split, UnitId unit);

// What one stepper position added and why, one line per unit (seed splits).
std::vector<std::string> describeStep(const PipelineGraph &graph, const Split &split, const TraceStep &step);

// A unit that is in stage two in one split and stage one in the other.
struct MovedUnit {
    UnitId unit;
    bool trainedInB; // true: stage one in A, stage two in B
    std::vector<std::string> why; // explanation in the split that has it in stage two
};

struct SplitDiff {
    std::vector<MovedUnit> moved; // pipeline order
    std::size_t sameTrained = 0;
    std::size_t sameCached = 0;
    bool identical() const { return moved.empty(); }
};

SplitDiff diffSplits(const PipelineGraph &graph, const Split &a, const Split &b);

} // namespace splitscope
