// SPDX-License-Identifier: MIT
#pragma once

#include "Split.h"

#include <algorithm>
#include <vector>

namespace splitscope {

// Checks a partition (seed, safe or user-given) against the split conditions and
// against one-stage execution (DESIGN.md §1.1).
//
// Stage one runs V2 in order from the external inputs and caches the final state;
// stage two starts from that state and runs V1 in order, then the loss. A read is
// correct when it sees the same producer as in one-stage training. Each read by a
// V1 unit and by the loss is simulated (reaching definitions) and compared.

enum class HazardKind {
    WriteAfterRead,  // a V2 unit after the reader overwrote the value the reader should see
    WriteAfterWrite, // the reader should see a V2 write, but an earlier V1 write shadows it
    LossRead         // the loss sees a different producer than in one-stage training
                     // (its mechanism is always write-after-write: the loss comes last)
};
const char *hazardKindName(HazardKind kind); // "write-after-read", "write-after-write", "loss-read"

struct Hazard {
    HazardKind kind;      // LossRead when the reader is the loss, else the mechanism
    HazardKind mechanism; // WriteAfterRead or WriteAfterWrite
    UnitId reader;   // a V1 unit, or graph.lossId()
    ParamId param;
    UnitId expected; // producer seen in one-stage training (kNoUnit: the external input)
    UnitId actual;   // producer seen in two-stage training (kNoUnit: the external input)
};

// A broken split condition (DESIGN.md §1): X0, a unit `from` that calls `model`, which
// needs gradients, left in V2 (stage one runs it once without gradients, so training
// would miss that use of the model; `to` and `param` are unset); C1, a data edge from
// V1 into V2 (`from` produces `param`, `to` reads it, and stage one would run `to`
// without its input); C2, a param first read inside V1 by `from`, which rewrites it,
// while a later rewriter `to` stays in V2.
struct ConditionViolation {
    enum class Condition { X0, C1, C2 };
    Condition condition;
    UnitId from;
    UnitId to;
    ParamId param;
    ModelId model = -1; // X0 only
};
const char *conditionName(ConditionViolation::Condition condition); // "X0", "C1", "C2"

// Where the draws of a stochastic stage-one unit reach the cache: stage one's data
// edges from the unit through other stage-one units (empty when the unit writes the
// cached value itself), then the param that the route's last unit writes and stage
// two reads from the cache.
struct FrozenDraws {
    UnitId unit;
    std::vector<PipelineGraph::Edge> route;
    ParamId cached;
};

struct Verification {
    std::vector<ConditionViolation> violations;
    std::vector<Hazard> hazards;
    // Stochastic units in V2 whose draws reach the cache: computed once, they repeat
    // every epoch. frozenRoutes[i] says how for frozenRandomness[i].
    std::vector<UnitId> frozenRandomness;
    std::vector<FrozenDraws> frozenRoutes;
    // Stochastic units in V2 of which nothing reaches stage two: their draws do not
    // take part in training at all.
    std::vector<UnitId> unusedRandomness;
    // What process() bodies do beyond their declarations (PipelineGraph::
    // declarationFindings); with a Split, an undeclared call of a model needing
    // gradients from a stage-one unit is a hazard (DeclarationFinding::hazard).
    std::vector<DeclarationFinding> findings;

    bool satisfiesConditions() const { return violations.empty(); }
    // No reaching-definition hazard and no undeclared-model hazard.
    bool hazardFree() const { return hazards.empty() && lostGradients() == 0; }
    // Reaching-definition hazards and lost gradients together.
    std::size_t hazardCount() const { return hazards.size() + lostGradients(); }
    std::size_t lostGradients() const
    {
        return static_cast<std::size_t>(
            std::count_if(findings.begin(), findings.end(), [](const DeclarationFinding &f) { return f.hazard; }));
    }
};

// C1, C2 and the hazards of any partition.
Verification verifySplit(const PipelineGraph &graph, const std::vector<char> &trained);
// The same, and X0 ⊆ V1: every unit calling one of split.models is in stage two
// (always true of the seed and safe splits; a given partition may break it).
Verification verifySplit(const PipelineGraph &graph, const Split &split);

// The value stage two reads from the cache for `param` (read by a V1 unit or the
// loss before any V1 unit writes it): produced by `producer`, the last V2 unit that
// outputs it, or kNoUnit for an external input.
struct CacheEntry {
    ParamId param;
    UnitId producer;
    std::vector<UnitId> readers; // V1 units and/or graph.lossId(), in order
};
// Sorted by param name.
std::vector<CacheEntry> computeCacheSet(const PipelineGraph &graph, const std::vector<char> &trained);

} // namespace splitscope
