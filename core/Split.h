// SPDX-License-Identifier: MIT
#pragma once

#include "PipelineGraph.h"

#include <string>
#include <vector>

namespace splitscope {

// A partition of the units into stage one (V2: runs once, cached) and stage two
// (V1: trained every step), with the reason each stage-two unit is there.
//
// Naming follows DiffSynth and the design: V1 = stage two = "trained",
// V2 = stage one = "cached".

enum class SplitMode {
    Seed, // DiffSynth's fixed point X <- F(X); X <- U(X), exactly
    Safe, // least X ⊇ X0 closed under C1, R1, R2 and the loss (DESIGN.md §1.1)
    Given // a partition supplied by the user (only verified)
};

const char *splitModeName(SplitMode mode); // "seed", "safe", "given"

// Why a unit is in stage two.
struct Reason {
    enum class Rule {
        None,               // in stage one (no reason needed)
        Model,              // X0: calls `model`, which needs gradients
        Forward,            // F / C1: reads `param` from `cause` along a data edge
        Update,             // seed U: `param` is first read inside X by `cause`, which rewrites
                            // it, so its later rewriters (this unit) join
        LaterProducer,      // safe R1: `cause` (a unit, or the loss) reads `param` in stage
                            // two, and this unit writes `param` after it
        ReachingDefinition, // safe R2: `cause` reads `param` in stage two, `other` (in stage two,
                            // before `cause`) writes it too, so the write `cause` must see
                            // (this unit's) has to happen in stage two as well
        Given               // listed in a user-given partition
    };
    Rule rule = Rule::None;
    UnitId cause = kNoUnit; // a unit, or graph.lossId() for the loss
    ParamId param = -1;
    ModelId model = -1;
    UnitId other = kNoUnit;
    int iteration = 0; // seed: 1-based iteration that added the unit (0 for X0); safe: order of addition
    // Model (safe split): process() calls `model` without declaring it in onload_model_names.
    bool undeclared = false;
};

// One fixed-point iteration of the seed algorithm: what F added, then what U added,
// each in pipeline order. The last iteration adds nothing (the loop's exit test).
struct Iteration {
    std::vector<UnitId> forward;
    std::vector<UnitId> update;
};

struct Split {
    SplitMode mode = SplitMode::Seed;
    std::vector<std::string> models;   // models requiring backward (W), as given
    std::vector<char> trained;         // per unit: 1 = V1 (stage two), 0 = V2 (stage one)
    std::vector<Reason> reasons;       // per unit; Rule::None for stage-one units
    std::vector<UnitId> x0;            // pipeline order; for a given partition, the units calling
                                       // a model of `models`, in whichever stage it puts them
    std::vector<Iteration> iterations; // seed only

    bool isTrained(UnitId unit) const { return trained[unit] != 0; }
    std::vector<UnitId> v1() const; // stage two, pipeline order
    std::vector<UnitId> v2() const; // stage one, pipeline order
    std::size_t trainedCount() const;
};

// The stepper's positions: X0, F1, U1, F2, U2, ... up to the fixed point.
struct TraceStep {
    enum class Kind { Initial, Forward, Update };
    Kind kind = Kind::Initial;
    int iteration = 0;          // 0 for X0
    std::vector<UnitId> added;  // pipeline order
    std::string label() const;  // "X0", "F1", "U1", ...
};
std::vector<TraceStep> traceSteps(const Split &split);
// Stage-two membership after the first `stepCount` steps (1 = after X0).
std::vector<char> membersAfterSteps(const Split &split, std::size_t stepCount, int unitCount);

// DiffSynth's split_pipeline_units, in near-linear time (each edge, param and chain
// entry is looked at a bounded number of times over the whole run).
Split computeSeedSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward);
// The safe split of DESIGN.md §1.1; contains the seed split and has no hazards. Its X0
// also holds the units that call a model needing gradients in process() without
// declaring it (PipelineGraph::undeclaredModels, DESIGN.md §1.2).
Split computeSafeSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward);
Split computeSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward, SplitMode mode);

// A user-given partition: the named units form stage two. Unknown names are
// returned in `unknown` (and ignored). With the models requiring backward, x0 lists
// the units calling them, so that the verifier can check that they are in stage two.
Split givenSplit(const PipelineGraph &graph, const std::vector<std::string> &stageTwoUnits,
    std::vector<std::string> *unknown = nullptr, const std::vector<std::string> &modelsRequiringBackward = {});

// The first model of `unit` that is in `w` (models requiring backward, as ids from
// graph.resolveModels), or -1: the unit is in X0 when there is one.
ModelId modelRequiringBackward(const PipelineGraph &graph, const std::vector<ModelId> &w, UnitId unit);


} // namespace splitscope
