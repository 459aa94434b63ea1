// SPDX-License-Identifier: MIT
#include "Split.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

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

// `condition ? a : b` for pointers, computed with a mask so that the compiler cannot
// turn it into a branch (GCC 12 does for the ternary, and where the condition is
// random, as whether an edge reaches a new unit, that branch is often mispredicted).
template <typename T>
T *selectPointer(bool condition, T *a, T *b)
{
    const auto x = reinterpret_cast<std::uintptr_t>(a);
    const auto y = reinterpret_cast<std::uintptr_t>(b);
    return reinterpret_cast<T *>(y ^ ((x ^ y) & (std::uintptr_t(0) - std::uintptr_t(condition))));
}

// The units of X0, each with the first of its models that needs gradients.
std::vector<std::pair<UnitId, ModelId>> x0WithModels(const PipelineGraph &graph, const std::vector<std::string> &models)
{
    // Read from each model's callers rather than by asking every unit: X0 is usually a
    // small part of the pipeline, and how many models a unit calls is random, which
    // a per-unit loop pays for in mispredicted branches.
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

// Puts the units one step added in pipeline order: a scan of the reasons when the
// step added a large share of the pipeline (F often reaches most of it), a sort otherwise.
void sortAdded(std::vector<UnitId> &added, const Split &split, int iteration, Reason::Rule rule)
{
    const std::size_t n = split.reasons.size();
    if (added.size() * 16 < n) {
        std::sort(added.begin(), added.end());
        return;
    }
    // Rewritten in place, with one spare slot: every unit is written, only matches are kept.
    added.push_back(kNoUnit);
    std::size_t k = 0;
    for (UnitId u = 0; u < static_cast<UnitId>(n); ++u) {
        const Reason &r = split.reasons[u];
        added[k] = u;
        k += (r.rule == rule) & (r.iteration == iteration);
    }
    added.resize(k);
}

// The units F still has to visit, taken in pipeline order. Data edges only go forward,
// so a walk in pipeline order meets every unit after all the units with an edge to it.
// One byte per unit: adding is a plain store (no read-modify-write of a shared word,
// which would chain the adds of one unit's edges), and finding the next unit reads
// eight bytes at a time, which skips unreached stretches of the pipeline.
class UnitsToVisit {
public:
    explicit UnitsToVisit(std::size_t units) : m_pending(units + sizeof(std::uint64_t), 0), m_end(units) {}

    // Adds `unit` when `condition` holds, without a branch on it.
    void addIf(bool condition, UnitId unit) { m_pending[static_cast<std::size_t>(unit)] |= static_cast<std::uint8_t>(condition); }

    // Starts a new walk from the start of the pipeline.
    void rewind() { m_cursor = 0; }

    // Removes and returns the first unit after the last one taken, or kNoUnit.
    UnitId takeNext()
    {
        while (m_cursor < m_end) {
            std::uint64_t eight;
            std::memcpy(&eight, &m_pending[m_cursor], sizeof eight); // the padding keeps this in bounds
            if (eight != 0) {
                const std::size_t unit = m_cursor + (static_cast<std::size_t>(__builtin_ctzll(eight)) >> 3);
                m_pending[unit] = 0;
                m_cursor = unit + 1;
                return static_cast<UnitId>(unit);
            }
            m_cursor += sizeof eight;
        }
        return kNoUnit;
    }

private:
    std::vector<std::uint8_t> m_pending; // 1 = to visit; little-endian order within each eight bytes
    std::size_t m_end;
    std::size_t m_cursor = 0;
};

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

Split computeSeedSplit(const PipelineGraph &graph, const std::vector<std::string> &modelsRequiringBackward)
{
    Split split = emptySplit(graph, modelsRequiringBackward, SplitMode::Seed);
    seedX0(graph, modelsRequiringBackward, split);
    const int paramTotal = graph.paramCount();
    constexpr UnitId kNone = 0x7fffffff;

    // firstConsumer[p]: the first unit of X that reads p, over the units folded in so far.
    std::vector<UnitId> firstConsumer(paramTotal, kNone);
    // suffixFrom[p]: chain(p)[suffixFrom[p]..] has already been added by U.
    std::vector<std::uint32_t> suffixFrom(paramTotal);
    for (ParamId p = 0; p < paramTotal; ++p)
        suffixFrom[p] = static_cast<std::uint32_t>(graph.chain(p).size());
    std::vector<int> dirtyStamp(paramTotal, -1);

    // The units of X not yet folded into firstConsumer: what the last U added (X0 at
    // first), then what F adds (in pipeline order), in that order.
    // Whether an edge or a read changes anything is random, so the loops below select
    // and count instead of branching on it (a mispredicted branch costs more than the
    // few stores it saves; one pipeline split again and again would hide that cost,
    // as the branch predictor learns a small pipeline's outcomes by heart).
    // Both buffers have one spare slot for the write that is not counted, and are left
    // uninitialized: a split that reaches little of a large pipeline touches little of them.
    const std::unique_ptr<UnitId[]> queue(new UnitId[static_cast<std::size_t>(graph.unitCount()) + 1]);
    std::copy(split.x0.begin(), split.x0.end(), queue.get());
    std::size_t queued = split.x0.size();
    const std::unique_ptr<ParamId[]> dirty(new ParamId[static_cast<std::size_t>(paramTotal) + 1]);
    std::size_t count = split.x0.size();
    // U walks the queue, which jumps about the pipeline: the params of the unit kAhead
    // places on are fetched while this one is handled.
    constexpr std::size_t kAhead = 8;
    Reason discarded; // the reason written for a starting unit, which keeps its own

    // F walks the units to visit in pipeline order rather than breadth first: from one
    // unit to the next, its reads of the graph stay close together, so its cost per unit
    // hardly grows with the pipeline (breadth first, the seed split took 28, 39 and 60 ns
    // per unit at 10^4, 10^5 and 10^6 units; in this order 33, 37 and 41).
    // hops[u] is the length of the shortest chain of data edges from this iteration's
    // starting units to u (0 for units already in X, so no edge improves on them), and
    // reachedBy[u] the first edge, in pipeline order, that ends such a chain: u's reason,
    // so that explanations take the fewest steps. Both are final when u is visited.
    constexpr std::uint32_t kUnreached = 0xffffffffu;
    std::vector<std::uint32_t> hops(static_cast<std::size_t>(graph.unitCount()), kUnreached);
    struct ReachedBy {
        UnitId source;
        ParamId param;
    };
    const std::unique_ptr<ReachedBy[]> reachedBy(new ReachedBy[static_cast<std::size_t>(graph.unitCount())]);
    ReachedBy notShorter; // written for an edge that does not shorten its target's chain
    UnitsToVisit toVisit(static_cast<std::size_t>(graph.unitCount()));
    const auto start = [&](UnitId u) {
        hops[u] = 0;
        reachedBy[u] = ReachedBy{kNoUnit, -1}; // read, not used: a starting unit keeps its reason
        toVisit.addIf(true, u);
    };
    for (const UnitId u : split.x0)
        start(u);

    for (int iteration = 1;; ++iteration) {
        const std::size_t before = count;
        Iteration step;

        // F: everything reachable along data edges. Units already in X had their
        // successors added by the previous F, so the search starts at the last U's units
        // (X0 at first), which are in the queue and among the units to visit already.
        const std::size_t firstForward = queued;
        toVisit.rewind();
        for (UnitId u; (u = toVisit.takeNext()) != kNoUnit;) {
            const std::uint32_t h = hops[u];
            const bool added = h != 0;
            queue[queued] = u;
            queued += added;
            hops[u] = 0;
            split.trained[u] = 1;
            Reason *reason = selectPointer(added, &split.reasons[u], &discarded);
            *reason = Reason{Reason::Rule::Forward, reachedBy[u].source, reachedBy[u].param, -1, kNoUnit, iteration};
            for (const auto &edge : graph.outEdges(u)) {
                const UnitId target = edge.target;
                const std::uint32_t old = hops[target];
                const bool shorter = h + 1 < old;
                hops[target] = shorter ? h + 1 : old;
                *selectPointer(shorter, &reachedBy[target], &notShorter) = ReachedBy{u, edge.param};
                toVisit.addIf(old == kUnreached, target);
            }
        }
        step.forward.assign(queue.get() + firstForward, queue.get() + queued);
        count += step.forward.size();

        // U: first consumers over X as it stands after F; only params whose first
        // consumer moved can add anything new.
        std::size_t dirtyCount = 0;
        for (std::size_t i = 0; i < queued; ++i) {
            const UnitId u = queue[i];
            if (i + kAhead < queued) {
                for (const ParamId p : graph.inputs(queue[i + kAhead])) {
                    __builtin_prefetch(&firstConsumer[p]);
                    __builtin_prefetch(&dirtyStamp[p]);
                }
            }
            for (const ParamId p : graph.inputs(u)) {
                const UnitId old = firstConsumer[p];
                const bool moved = u < old;
                firstConsumer[p] = moved ? u : old;
                const bool firstMove = moved & (dirtyStamp[p] != iteration);
                dirtyStamp[p] = moved ? iteration : dirtyStamp[p];
                dirty[dirtyCount] = p;
                dirtyCount += firstMove;
            }
        }
        // `dirty` is in a deterministic order already (units in X order, params in input order).
        for (std::size_t d = 0; d < dirtyCount; ++d) {
            const ParamId p = dirty[d];
            const UnitId first = firstConsumer[p];
            const int index = graph.chainIndex(p, first);
            const Span<UnitId> chain = graph.chain(p);
            if (index < 0 || index == static_cast<int>(chain.size()) - 1)
                continue;
            const auto from = static_cast<std::uint32_t>(index + 1);
            for (std::uint32_t k = from; k < suffixFrom[p]; ++k) {
                const UnitId later = chain[k];
                if (!split.trained[later]) {
                    split.trained[later] = 1;
                    split.reasons[later] = Reason{Reason::Rule::Update, first, p, -1, kNoUnit, iteration};
                    step.update.push_back(later);
                }
            }
            suffixFrom[p] = std::min(suffixFrom[p], from);
        }
        count += step.update.size();
        std::copy(step.update.begin(), step.update.end(), queue.get());
        queued = step.update.size();
        for (const UnitId u : step.update)
            start(u);

        // F's units are in pipeline order already.
        sortAdded(step.update, split, iteration, Reason::Rule::Update);
        split.iterations.push_back(std::move(step));
        if (count == before)
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
