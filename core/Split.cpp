// SPDX-License-Identifier: MIT
#include "Split.h"

#include <algorithm>
#include <cstdint>

namespace splitscope {

const char *splitModeName(SplitMode mode)
{
    switch (mode) {
    case SplitMode::Seed: return "seed";
    case SplitMode::Safe: return "safe";
    case SplitMode::Given: return "given";
    }
    return "seed";
}

std::vector<UnitId> Split::v1() const
{
    std::vector<UnitId> out;
    for (UnitId u = 0; u < static_cast<UnitId>(trained.size()); ++u) {
        if (trained[u])
            out.push_back(u);
    }
    return out;
}

std::vector<UnitId> Split::v2() const
{
    std::vector<UnitId> out;
    for (UnitId u = 0; u < static_cast<UnitId>(trained.size()); ++u) {
        if (!trained[u])
            out.push_back(u);
    }
    return out;
}

std::size_t Split::trainedCount() const
{
    return static_cast<std::size_t>(std::count(trained.begin(), trained.end(), 1));
}

std::string TraceStep::label() const
{
    switch (kind) {
    case Kind::Initial: return "X0";
    case Kind::Forward: return "F" + std::to_string(iteration);
    case Kind::Update: return "U" + std::to_string(iteration);
    }
    return "X0";
}

std::vector<TraceStep> traceSteps(const Split &split)
{
    std::vector<TraceStep> steps;
    steps.push_back(TraceStep{TraceStep::Kind::Initial, 0, split.x0});
    for (std::size_t i = 0; i < split.iterations.size(); ++i) {
        const int iteration = static_cast<int>(i) + 1;
        steps.push_back(TraceStep{TraceStep::Kind::Forward, iteration, split.iterations[i].forward});
        steps.push_back(TraceStep{TraceStep::Kind::Update, iteration, split.iterations[i].update});
    }
    return steps;
}

std::vector<char> membersAfterSteps(const Split &split, std::size_t stepCount, int unitCount)
{
    std::vector<char> members(unitCount, 0);
    const auto steps = traceSteps(split);
    for (std::size_t i = 0; i < steps.size() && i < stepCount; ++i) {
        for (const UnitId u : steps[i].added)
            members[u] = 1;
    }
    return members;
}

namespace {

// The units of X0, each with the first of its models that needs gradients.
std::vector<std::pair<UnitId, ModelId>> x0WithModels(const PipelineGraph &graph, const std::vector<std::string> &models)
{
    // From each model's callers: X0 is usually a small part of the pipeline.
    const std::vector<ModelId> w = graph.resolveModels(models);
    std::vector<UnitId> units;
    for (const ModelId m : w) {
        const Span<UnitId> callers = graph.modelUnits(m);
        units.insert(units.end(), callers.begin(), callers.end());
    }
    if (w.size() > 1) {
        std::sort(units.begin(), units.end());
        units.erase(std::unique(units.begin(), units.end()), units.end());
    }
    std::vector<std::pair<UnitId, ModelId>> x0;
    x0.reserve(units.size());
    for (const UnitId u : units)
        x0.emplace_back(u, w.size() == 1 ? w.front() : modelRequiringBackward(graph, w, u));
    return x0;
}

// Marks X0 and records the model that put each unit there.
void seedX0(const PipelineGraph &graph, const std::vector<std::string> &models, Split &split)
{
    for (const auto &[u, m] : x0WithModels(graph, models)) {
        split.trained[u] = 1;
        split.reasons[u] = Reason{Reason::Rule::Model, kNoUnit, -1, m, kNoUnit, 0};
        split.x0.push_back(u);
    }
}

// Safe split: a unit calling a model needing gradients in process() without declaring
// it joins X0 too.
void addUndeclaredCallers(const PipelineGraph &graph, const std::vector<std::string> &models, Split &split)
{
    const std::vector<ModelId> w = graph.resolveModels(models);
    const std::size_t declared = split.x0.size();
    for (UnitId u = 0; u < graph.unitCount(); ++u) {
        for (const ModelId m : graph.undeclaredModels(u)) {
            if (split.trained[u] || std::find(w.begin(), w.end(), m) == w.end())
                continue;
            split.trained[u] = 1;
            split.reasons[u] = Reason{Reason::Rule::Model, kNoUnit, -1, m, kNoUnit, 0, true};
            split.x0.push_back(u);
        }
    }
    if (split.x0.size() > declared)
        std::sort(split.x0.begin(), split.x0.end());
}

Split emptySplit(const PipelineGraph &graph, const std::vector<std::string> &models, SplitMode mode)
{
    Split split;
    split.mode = mode;
    split.models = models;
    split.trained.assign(graph.unitCount(), 0);
    split.reasons.assign(graph.unitCount(), Reason{});
    return split;
}

} // namespace

// DiffSynth's fixed point (DESIGN.md §1): X = X0; then, until nothing changes,
// F adds every unit reachable from X along data edges, and U adds, for each param p,
// the units that write p after p's first reader in X when that reader writes p too.
// Both steps only look at what the previous step added: F searches from the units the
// last U added (X0 at first), since the successors of the others are in X already; U
// only revisits the params whose first reader in X moved.
Split computeSeedSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward)
{
    Split split = emptySplit(graph, modelsRequiringBackward, SplitMode::Seed);
    seedX0(graph, modelsRequiringBackward, split);
    const int paramTotal = graph.paramCount();
    constexpr UnitId kNone = 0x7fffffff;

    std::vector<UnitId> firstReader(paramTotal, kNone); // the first unit of X that reads p, so far
    // chain(p)[addedFrom[p]..] is in X already (U added it).
    std::vector<std::size_t> addedFrom(paramTotal);
    for (ParamId p = 0; p < paramTotal; ++p)
        addedFrom[p] = graph.chain(p).size();
    std::vector<int> movedIn(paramTotal, 0); // the iteration in which p's first reader last moved

    constexpr std::uint32_t kUnreached = 0xffffffffu;
    const auto unitTotal = static_cast<std::size_t>(graph.unitCount());
    std::vector<std::uint32_t> hops(unitTotal, kUnreached); // 0 for units in X
    std::vector<std::pair<UnitId, ParamId>> reachedBy(unitTotal, {kNoUnit, -1});
    std::vector<char> pending(unitTotal, 0); // F's units to visit
    for (const UnitId u : split.x0)
        hops[u] = 0;

    // The units the last step added, in the order they were added: where F starts, and
    // (with F's own) the units U has not looked at yet.
    std::vector<UnitId> fresh = split.x0;
    for (int iteration = 1;; ++iteration) {
        Iteration step;

        // F: data edges only go forward, so a walk in pipeline order from the first
        // starting unit meets each unit after every unit with an edge to it. hops[u], the
        // fewest edges from a starting unit to u, and reachedBy[u], the first edge in
        // pipeline order that ends such a chain (u's reason, so that explanations take
        // the fewest steps), are final when the walk gets to u.
        UnitId walkFrom = graph.unitCount();
        for (const UnitId u : fresh) {
            pending[u] = 1;
            walkFrom = std::min(walkFrom, u);
        }
        for (UnitId u = walkFrom; u < graph.unitCount(); ++u) {
            if (!pending[u])
                continue;
            pending[u] = 0;
            const std::uint32_t h = hops[u];
            if (h != 0) {
                split.trained[u] = 1;
                split.reasons[u] = Reason{Reason::Rule::Forward, reachedBy[u].first, reachedBy[u].second, -1, kNoUnit, iteration};
                step.forward.push_back(u);
            }
            for (const auto &edge : graph.outEdges(u)) {
                if (h + 1 >= hops[edge.target])
                    continue; // in X already (0), or reached by a chain as short
                pending[edge.target] = 1;
                hops[edge.target] = h + 1;
                reachedBy[edge.target] = {u, edge.param};
            }
            hops[u] = 0; // in X
        }
        fresh.insert(fresh.end(), step.forward.begin(), step.forward.end());

        // U: fold the new units into the first readers; every param whose first reader
        // moved is looked at once, in the order it moved.
        std::vector<ParamId> moved;
        for (const UnitId u : fresh) {
            for (const ParamId p : graph.inputs(u)) {
                if (u >= firstReader[p])
                    continue;
                firstReader[p] = u;
                if (movedIn[p] != iteration) {
                    movedIn[p] = iteration;
                    moved.push_back(p);
                }
            }
        }
        for (const ParamId p : moved) {
            const UnitId first = firstReader[p];
            const int index = graph.chainIndex(p, first);
            if (index < 0)
                continue; // the first reader does not rewrite p
            const Span<UnitId> chain = graph.chain(p);
            const auto from = static_cast<std::size_t>(index) + 1;
            for (std::size_t k = from; k < addedFrom[p]; ++k) {
                const UnitId later = chain[k];
                if (split.trained[later])
                    continue;
                split.trained[later] = 1;
                split.reasons[later] = Reason{Reason::Rule::Update, first, p, -1, kNoUnit, iteration};
                step.update.push_back(later);
            }
            addedFrom[p] = std::min(addedFrom[p], from);
        }
        fresh = step.update;
        for (const UnitId u : step.update)
            hops[u] = 0;
        std::sort(step.update.begin(), step.update.end());
        const bool changed = !step.forward.empty() || !step.update.empty();
        split.iterations.push_back(std::move(step));
        if (!changed)
            break;
    }
    return split;
}

Split computeSafeSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward)
{
    Split split = emptySplit(graph, modelsRequiringBackward, SplitMode::Safe);
    seedX0(graph, modelsRequiringBackward, split);
    addUndeclaredCallers(graph, modelsRequiringBackward, split);
    const int paramTotal = graph.paramCount();
    const UnitId loss = graph.lossId();
    constexpr UnitId kNone = 0x7fffffff;

    std::vector<UnitId> firstReader(paramTotal, kNone);  // first reader in X (the loss counts, at lossId())
    std::vector<UnitId> firstProducer(paramTotal, kNone); // first producer in X
    std::vector<std::uint32_t> laterFrom(paramTotal);    // chain(p)[laterFrom..] already added by R1
    for (ParamId p = 0; p < paramTotal; ++p)
        laterFrom[p] = static_cast<std::uint32_t>(graph.chain(p).size());

    std::vector<UnitId> work = split.x0;
    int order = 0;
    auto add = [&](UnitId u, Reason reason) {
        if (split.trained[u])
            return;
        split.trained[u] = 1;
        reason.iteration = ++order;
        split.reasons[u] = reason;
        work.push_back(u);
    };
    // Given R1 for the first reader c of p in X, R2 only needs checking at c: any later
    // reader's last producer is either after c (in X by R1) or the same as c's.
    auto reevaluate = [&](ParamId p) {
        const UnitId c = firstReader[p];
        if (c == kNone)
            return;
        const Span<UnitId> chain = graph.chain(p);
        // R1: every producer of p after c.
        const auto after = static_cast<std::uint32_t>(std::upper_bound(chain.begin(), chain.end(), c) - chain.begin());
        for (std::uint32_t k = after; k < laterFrom[p]; ++k)
            add(chain[k], Reason{Reason::Rule::LaterProducer, c, p, -1, kNoUnit, 0});
        laterFrom[p] = std::min(laterFrom[p], after);
        // R2: an X producer before c means c's producer must run in stage two too.
        if (firstProducer[p] < c) {
            const auto before = std::lower_bound(chain.begin(), chain.end(), c) - chain.begin();
            add(chain[before - 1], Reason{Reason::Rule::ReachingDefinition, c, p, -1, firstProducer[p], 0});
        }
    };

    for (const ParamId p : graph.inputs(loss)) {
        firstReader[p] = loss;
        reevaluate(p);
    }
    for (std::size_t head = 0; head < work.size(); ++head) {
        const UnitId u = work[head];
        for (const auto &edge : graph.outEdges(u))
            add(edge.target, Reason{Reason::Rule::Forward, u, edge.param, -1, kNoUnit, 0});
        for (const ParamId p : graph.inputs(u)) {
            if (u < firstReader[p]) {
                firstReader[p] = u;
                reevaluate(p);
            }
        }
        for (const ParamId p : graph.outputs(u)) {
            if (u < firstProducer[p]) {
                firstProducer[p] = u;
                reevaluate(p);
            }
        }
    }
    return split;
}

Split computeSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward, SplitMode mode)
{
    return mode == SplitMode::Safe ? computeSafeSplit(graph, modelsRequiringBackward)
                                   : computeSeedSplit(graph, modelsRequiringBackward);
}

ModelId modelRequiringBackward(const PipelineGraph &graph, const std::vector<ModelId> &w, UnitId unit)
{
    for (const ModelId m : graph.unitModels(unit)) {
        if (std::find(w.begin(), w.end(), m) != w.end())
            return m;
    }
    return -1;
}

Split givenSplit(const PipelineGraph &graph, const std::vector<std::string> &stageTwoUnits, std::vector<std::string> *unknown,
    const std::vector<std::string> &modelsRequiringBackward)
{
    Split split = emptySplit(graph, modelsRequiringBackward, SplitMode::Given);
    for (const auto &entry : x0WithModels(graph, modelsRequiringBackward))
        split.x0.push_back(entry.first);
    for (const auto &name : stageTwoUnits) {
        const UnitId u = graph.findUnit(name);
        if (u == kNoUnit) {
            if (unknown)
                unknown->push_back(name);
            continue;
        }
        split.trained[u] = 1;
        split.reasons[u] = Reason{Reason::Rule::Given, kNoUnit, -1, -1, kNoUnit, 0};
    }
    return split;
}

} // namespace splitscope
