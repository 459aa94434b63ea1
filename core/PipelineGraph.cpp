// SPDX-License-Identifier: MIT
#include "PipelineGraph.h"

#include <algorithm>
#include <numeric>

namespace splitscope {

namespace {

// Turns per-item counts into CSR start offsets (size n + 1).
std::vector<std::uint32_t> prefixStarts(const std::vector<std::uint32_t> &counts)
{
    std::vector<std::uint32_t> start(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i)
        start[i + 1] = start[i] + counts[i];
    return start;
}

} // namespace

PipelineGraph::PipelineGraph(const Pipeline &pipeline) : m_pipelineName(pipeline.name)
{
    const int n = static_cast<int>(pipeline.units.size());
    m_unitNames.reserve(n + 1);
    m_stochastic.reserve(n);
    for (const Unit &u : pipeline.units) {
        m_unitNames.push_back(u.name);
        m_stochastic.push_back(u.isStochastic() ? 1 : 0);
    }
    m_unitNames.push_back(pipeline.loss && !pipeline.loss->name.empty() ? pipeline.loss->name : std::string("loss"));

    // Models: those listed first (in order), then any a unit names without listing.
    auto internModel = [this](const std::string &name) { return m_modelIndex.intern(name, m_modelNames); };
    auto intern = [this](const std::string &name) { return m_paramIndex.intern(name, m_paramNames); };
    for (const ModelSpec &m : pipeline.models)
        internModel(m.name);

    // Intern params and record raw (unsorted) inputs and outputs.
    m_paramIndex.reserve(static_cast<std::size_t>(n) * 2 + 16);
    m_paramNames.reserve(static_cast<std::size_t>(n) * 2 + 16);
    m_inputs.reserve(static_cast<std::size_t>(n) * 4);
    m_outputs.reserve(static_cast<std::size_t>(n) * 2);
    m_inputStart.reserve(n + 2);
    m_outputStart.reserve(n + 2);
    m_unitModelStart.reserve(n + 2);
    m_inputStart.assign(1, 0);
    m_outputStart.assign(1, 0);
    m_unitModelStart.assign(1, 0);
    // fetch_input_params sorts by name and drops repeats. Units read a handful of
    // params, so each unit's list is sorted on its own, right after it is interned
    // while its names are still in cache (a global sort of every name would dominate
    // large graphs, and a later pass misses the cache on every name it compares).
    const auto byName = [this](ParamId a, ParamId b) { return m_paramNames[a] < m_paramNames[b]; };
    const auto sortAndDedupeFrom = [this, &byName](std::size_t begin) {
        const auto first = m_inputs.begin() + static_cast<std::ptrdiff_t>(begin);
        std::sort(first, m_inputs.end(), byName);
        m_inputs.erase(std::unique(first, m_inputs.end()), m_inputs.end());
    };
    // Prefetch the hash slots of a unit a few positions ahead while interning this one.
    constexpr int kPrefetchDistance = 4;
    for (int i = 0; i < n; ++i) {
        if (i + kPrefetchDistance < n) {
            const Unit &ahead = pipeline.units[i + kPrefetchDistance];
            for (const auto &p : ahead.inputParams)
                m_paramIndex.prefetch(p);
            for (const auto &p : ahead.outputParams)
                m_paramIndex.prefetch(p);
        }
        const Unit &u = pipeline.units[i];
        const std::size_t unitInputs = m_inputs.size();
        for (const auto &p : u.inputParams)
            m_inputs.push_back(intern(p));
        for (const auto *map : {&u.inputParamsPosi, &u.inputParamsNega}) {
            if (*map) {
                for (const auto &entry : **map)
                    m_inputs.push_back(intern(entry.second));
            }
        }
        sortAndDedupeFrom(unitInputs);
        m_inputStart.push_back(static_cast<std::uint32_t>(m_inputs.size()));
        for (const auto &p : u.outputParams)
            m_outputs.push_back(intern(p));
        m_outputStart.push_back(static_cast<std::uint32_t>(m_outputs.size()));
        if (u.onloadModelNames) {
            for (const auto &m : *u.onloadModelNames) {
                const ModelId id = internModel(m);
                if (std::find(m_unitModels.begin() + m_unitModelStart.back(), m_unitModels.end(), id) == m_unitModels.end())
                    m_unitModels.push_back(id);
            }
        }
        m_unitModelStart.push_back(static_cast<std::uint32_t>(m_unitModels.size()));
    }
    const bool lossReadsEverything = !(pipeline.loss && pipeline.loss->inputParams);
    const std::size_t lossInputs = m_inputs.size();
    if (!lossReadsEverything) {
        for (const auto &p : *pipeline.loss->inputParams)
            m_inputs.push_back(intern(p));
    } else {
        for (ParamId p = 0; p < static_cast<ParamId>(m_paramNames.size()); ++p)
            m_inputs.push_back(p);
    }
    sortAndDedupeFrom(lossInputs);
    m_inputStart.push_back(static_cast<std::uint32_t>(m_inputs.size()));
    m_inputs.shrink_to_fit();
    const int paramTotal = paramCount();

    // Edges (build_edges): scan units in order keeping the last producer of each param.
    std::vector<UnitId> lastProducer(paramTotal, kNoUnit);
    std::vector<std::uint32_t> outCount(n, 0), chainCount(paramTotal, 0), readerCount(paramTotal, 0);
    m_inEdgeStart.assign(1, 0);
    m_inEdges.reserve(m_inputs.size()); // at most one edge per read
    for (int u = 0; u <= n; ++u) {
        for (const ParamId p : inputs(u)) {
            const UnitId src = lastProducer[p];
            if (src != kNoUnit) {
                m_inEdges.push_back(Edge{src, u, p});
                if (u < n)
                    ++outCount[src];
            }
            if (u < n)
                ++readerCount[p];
        }
        m_inEdgeStart.push_back(static_cast<std::uint32_t>(m_inEdges.size()));
        if (u < n) {
            for (const ParamId p : outputs(u)) {
                lastProducer[p] = u;
                ++chainCount[p];
            }
        }
    }
    m_outEdgeStart = prefixStarts(outCount);
    m_outEdges.resize(m_outEdgeStart.back());
    {
        std::vector<std::uint32_t> fill(m_outEdgeStart.begin(), m_outEdgeStart.end() - 1);
        for (std::uint32_t i = 0; i < m_inEdgeStart[n]; ++i) {
            const Edge &e = m_inEdges[i];
            m_outEdges[fill[e.source]++] = e;
        }
    }
    m_chainStart = prefixStarts(chainCount);
    m_chains.resize(m_chainStart.back());
    m_readerStart = prefixStarts(readerCount);
    m_readers.resize(m_readerStart.back());
    {
        std::vector<std::uint32_t> chainFill(m_chainStart.begin(), m_chainStart.end() - 1);
        std::vector<std::uint32_t> readerFill(m_readerStart.begin(), m_readerStart.end() - 1);
        for (int u = 0; u < n; ++u) {
            for (const ParamId p : outputs(u))
                m_chains[chainFill[p]++] = u;
            for (const ParamId p : inputs(u))
                m_readers[readerFill[p]++] = u;
        }
    }
}

const std::string &PipelineGraph::unitName(UnitId unit) const
{
    return m_unitNames[unit];
}

UnitId PipelineGraph::findUnit(std::string_view name) const
{
    UnitLookup &lookup = *m_unitLookup;
    std::call_once(lookup.built, [this, &lookup] {
        const int n = unitCount();
        lookup.index.reserve(n);
        for (int i = 0; i < n; ++i)
            lookup.index.insertExisting(i, m_unitNames); // first wins; the loader rejects duplicates
    });
    const std::int32_t id = lookup.index.find(name, m_unitNames); // the loss is not indexed
    return id < 0 ? kNoUnit : id;
}

UnitId PipelineGraph::findUnitOrLoss(std::string_view name) const
{
    return name == unitName(lossId()) ? lossId() : findUnit(name);
}

ParamId PipelineGraph::findParam(std::string_view name) const
{
    return m_paramIndex.find(name, m_paramNames);
}

ModelId PipelineGraph::findModel(std::string_view name) const
{
    return m_modelIndex.find(name, m_modelNames);
}

Span<ParamId> PipelineGraph::inputs(UnitId unit) const
{
    return slice(m_inputs, m_inputStart, unit);
}

UnitId PipelineGraph::producerBefore(ParamId param, UnitId position) const
{
    const Span<UnitId> c = chain(param);
    const UnitId *it = std::lower_bound(c.begin(), c.end(), position);
    return it == c.begin() ? kNoUnit : *(it - 1);
}

int PipelineGraph::chainIndex(ParamId param, UnitId unit) const
{
    const Span<UnitId> c = chain(param);
    const UnitId *it = std::lower_bound(c.begin(), c.end(), unit);
    return (it != c.end() && *it == unit) ? static_cast<int>(it - c.begin()) : -1;
}

std::vector<ModelId> PipelineGraph::resolveModels(const std::vector<std::string> &names) const
{
    std::vector<ModelId> ids;
    for (const auto &name : names) {
        const ModelId id = findModel(name);
        if (id >= 0 && std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
    }
    return ids;
}

} // namespace splitscope
