// SPDX-License-Identifier: MIT
#include "Verifier.h"

#include <algorithm>

namespace splitscope {

const char *hazardKindName(HazardKind kind)
{
    switch (kind) {
    case HazardKind::WriteAfterRead: return "write-after-read";
    case HazardKind::WriteAfterWrite: return "write-after-write";
    case HazardKind::LossRead: return "loss-read";
    }
    return "write-after-read";
}

const char *conditionName(ConditionViolation::Condition condition)
{
    switch (condition) {
    case ConditionViolation::Condition::X0: return "X0";
    case ConditionViolation::Condition::C1: return "C1";
    case ConditionViolation::Condition::C2: return "C2";
    }
    return "C1";
}

namespace {

// The last V2 producer of each param: the value the cache holds at the end of stage one.
std::vector<UnitId> finalStageOneProducers(const PipelineGraph &graph, const std::vector<char> &trained)
{
    std::vector<UnitId> last(graph.paramCount(), kNoUnit);
    for (ParamId p = 0; p < graph.paramCount(); ++p) {
        const Span<UnitId> chain = graph.chain(p);
        for (std::size_t k = chain.size(); k-- > 0;) {
            if (!trained[chain[k]]) {
                last[p] = chain[k];
                break;
            }
        }
    }
    return last;
}

// Walks stage two in order: for each read by a V1 unit or the loss, calls
// visit(reader, param, twoStageProducer, fromCache).
template <typename Visit>
void walkStageTwoReads(const PipelineGraph &graph, const std::vector<char> &trained, Visit visit)
{
    const std::vector<UnitId> cached = finalStageOneProducers(graph, trained);
    std::vector<UnitId> lastStageTwo(graph.paramCount(), kNoUnit);
    const int n = graph.unitCount();
    for (UnitId u = 0; u <= n; ++u) {
        if (u < n && !trained[u])
            continue;
        for (const ParamId p : graph.inputs(u)) {
            const bool fromCache = lastStageTwo[p] == kNoUnit;
            visit(u, p, fromCache ? cached[p] : lastStageTwo[p], fromCache);
        }
        if (u < n) {
            for (const ParamId p : graph.outputs(u))
                lastStageTwo[p] = u;
        }
    }
}

// Index in outputs(unit) of `param` (its first listing), or -1.
int outputIndex(const PipelineGraph &graph, UnitId unit, ParamId param)
{
    const Span<ParamId> outputs = graph.outputs(unit);
    const auto it = std::find(outputs.begin(), outputs.end(), param);
    return it == outputs.end() ? -1 : static_cast<int>(it - outputs.begin());
}

// Stage one runs V2 alone, in order. A stochastic unit's draws are frozen when they
// reach the cache: an output that carries them is a value stage two reads from the
// cache, or a stage-one unit computes such a value from it, and so on. What a unit's
// output is computed from comes from its returns where the importer read them
// (PipelineGraph::outputDependsOn), else from every input: so noise that a later unit
// passes only into `latents`, which the loss rebuilds itself (loss.output_params),
// freezes nothing. (DiffSynth's rule is "stochastic and in V2"; a unit whose draws go
// nowhere changes no training and gets a note instead.)
void findFrozenDraws(const PipelineGraph &graph, const std::vector<char> &trained, Verification &result)
{
    const int n = graph.unitCount();
    // Per output slot (the outputs of all units, in order): read from the cache, or feeds one that is.
    std::vector<std::uint32_t> slotStart(static_cast<std::size_t>(n) + 1, 0);
    for (UnitId u = 0; u < n; ++u)
        slotStart[u + 1] = slotStart[u] + static_cast<std::uint32_t>(graph.outputs(u).size());
    std::vector<ParamId> cachedAs(slotStart[n], -1); // the param stage two reads from the cache there
    std::vector<int> next(slotStart[n], -1);         // else the edge (index in `edges`) towards the cache
    std::vector<char> reaches(slotStart[n], 0);
    walkStageTwoReads(graph, trained, [&](UnitId, ParamId p, UnitId producer, bool fromCache) {
        if (!fromCache || producer == kNoUnit)
            return;
        const std::uint32_t slot = slotStart[producer] + static_cast<std::uint32_t>(outputIndex(graph, producer, p));
        reaches[slot] = 1;
        cachedAs[slot] = p;
    });
    // Stage one's data edges, in target order: each read sees the last V2 write before it.
    std::vector<PipelineGraph::Edge> edges;
    std::vector<UnitId> last(graph.paramCount(), kNoUnit);
    for (UnitId u = 0; u < n; ++u) {
        if (trained[u])
            continue;
        for (const ParamId p : graph.inputs(u)) {
            if (last[p] != kNoUnit)
                edges.push_back(PipelineGraph::Edge{last[p], u, p});
        }
        for (const ParamId p : graph.outputs(u))
            last[p] = u;
    }
    // Backwards: a unit's outputs are settled before any edge into it is seen.
    for (std::size_t i = edges.size(); i-- > 0;) {
        const PipelineGraph::Edge &e = edges[i];
        const std::uint32_t source = slotStart[e.source] + static_cast<std::uint32_t>(outputIndex(graph, e.source, e.param));
        if (reaches[source])
            continue;
        const std::size_t outputs = graph.outputs(e.target).size();
        for (std::size_t k = 0; k < outputs; ++k) {
            if (reaches[slotStart[e.target] + k] && graph.outputDependsOn(e.target, k, e.param)) {
                reaches[source] = 1;
                next[source] = static_cast<int>(i);
                break;
            }
        }
    }
    for (UnitId u = 0; u < n; ++u) {
        if (trained[u] || !graph.isStochastic(u))
            continue;
        int frozenSlot = -1;
        for (std::size_t k = 0; k < graph.outputs(u).size() && frozenSlot < 0; ++k) {
            if (graph.outputCarriesDraws(u, k) && reaches[slotStart[u] + k])
                frozenSlot = static_cast<int>(slotStart[u] + k);
        }
        if (frozenSlot < 0) {
            result.unusedRandomness.push_back(u);
            continue;
        }
        FrozenDraws draws{u, {}, -1};
        std::uint32_t slot = static_cast<std::uint32_t>(frozenSlot);
        while (cachedAs[slot] < 0) {
            const PipelineGraph::Edge &e = edges[static_cast<std::size_t>(next[slot])];
            draws.route.push_back(e);
            // On to the output of the edge's target that reaches the cache from this input.
            const std::size_t outputs = graph.outputs(e.target).size();
            for (std::size_t k = 0; k < outputs; ++k) {
                if (reaches[slotStart[e.target] + k] && graph.outputDependsOn(e.target, k, e.param)) {
                    slot = slotStart[e.target] + static_cast<std::uint32_t>(k);
                    break;
                }
            }
        }
        draws.cached = cachedAs[slot];
        result.frozenRandomness.push_back(u);
        result.frozenRoutes.push_back(std::move(draws));
    }
}

} // namespace

Verification verifySplit(const PipelineGraph &graph, const std::vector<char> &trained)
{
    Verification result;
    const int n = graph.unitCount();

    // C1: no data edge from V1 into V2.
    for (UnitId u = 0; u < n; ++u) {
        if (!trained[u])
            continue;
        for (const auto &edge : graph.outEdges(u)) {
            if (!trained[edge.target])
                result.violations.push_back(
                    ConditionViolation{ConditionViolation::Condition::C1, u, edge.target, edge.param});
        }
    }
    // C2: for each param, its first consumer inside V1; if that consumer rewrites
    // the param, every later rewriter must be in V1 too.
    for (ParamId p = 0; p < graph.paramCount(); ++p) {
        UnitId first = kNoUnit;
        for (const UnitId r : graph.readers(p)) {
            if (trained[r]) {
                first = r;
                break;
            }
        }
        if (first == kNoUnit)
            continue;
        const int index = graph.chainIndex(p, first);
        if (index < 0)
            continue;
        const Span<UnitId> chain = graph.chain(p);
        for (std::size_t k = static_cast<std::size_t>(index) + 1; k < chain.size(); ++k) {
            if (!trained[chain[k]])
                result.violations.push_back(ConditionViolation{ConditionViolation::Condition::C2, first, chain[k], p});
        }
    }

    // Reaching definitions: the producer each stage-two read sees, against one-stage.
    walkStageTwoReads(graph, trained, [&](UnitId reader, ParamId p, UnitId actual, bool) {
        const UnitId expected = graph.producerBefore(p, reader);
        if (expected == actual)
            return;
        // A V2 producer after the reader reached it through the cache: write-after-read.
        // Otherwise a V1 write before the reader shadows the V2 write it should see.
        const HazardKind mechanism = (actual != kNoUnit && actual > reader) ? HazardKind::WriteAfterRead
                                                                            : HazardKind::WriteAfterWrite;
        const HazardKind kind = reader == graph.lossId() ? HazardKind::LossRead : mechanism;
        result.hazards.push_back(Hazard{kind, mechanism, reader, p, expected, actual});
    });

    findFrozenDraws(graph, trained, result);
    result.findings = graph.declarationFindings();
    return result;
}

Verification verifySplit(const PipelineGraph &graph, const Split &split)
{
    Verification result = verifySplit(graph, split.trained);
    std::vector<ConditionViolation> x0;
    const std::vector<ModelId> w = graph.resolveModels(split.models);
    for (UnitId u = 0; u < graph.unitCount(); ++u) {
        const ModelId m = split.trained[u] ? -1 : modelRequiringBackward(graph, w, u);
        if (m >= 0)
            x0.push_back(ConditionViolation{ConditionViolation::Condition::X0, u, kNoUnit, -1, m});
    }
    result.violations.insert(result.violations.begin(), x0.begin(), x0.end());
    // An undeclared call of a model that needs gradients, in stage one: DiffSynth runs
    // the unit once without gradients, and that model's gradients through it are lost.
    for (DeclarationFinding &f : result.findings) {
        if (f.kind != DeclarationFinding::Kind::UndeclaredModel || split.trained[f.unit])
            continue;
        const ModelId m = graph.findModel(f.name);
        f.hazard = std::find(w.begin(), w.end(), m) != w.end();
    }
    return result;
}

std::vector<CacheEntry> computeCacheSet(const PipelineGraph &graph, const std::vector<char> &trained)
{
    std::vector<int> entryOf(graph.paramCount(), -1);
    std::vector<CacheEntry> entries;
    walkStageTwoReads(graph, trained, [&](UnitId reader, ParamId p, UnitId producer, bool fromCache) {
        if (!fromCache)
            return;
        if (entryOf[p] < 0) {
            entryOf[p] = static_cast<int>(entries.size());
            entries.push_back(CacheEntry{p, producer, {}});
        }
        entries[entryOf[p]].readers.push_back(reader);
    });
    std::sort(entries.begin(), entries.end(), [&graph](const CacheEntry &a, const CacheEntry &b) {
        return graph.paramName(a.param) < graph.paramName(b.param);
    });
    return entries;
}

} // namespace splitscope
