// SPDX-License-Identifier: MIT
#include "PipelineGraph.h"

#include <algorithm>
#include <numeric>

namespace splitscope {

namespace {

// The models a string onload_model_names stands for in DiffSynth, whose split tests
// `model in onload_model_names`: every model name of the pipeline (listed, called by a
// unit, or named for training) that is part of the string, and the string itself.
std::vector<std::string> substringModels(const Pipeline &pipeline, const Unit &unit)
{
    const std::string &text = unit.onloadModelNames->front();
    std::vector<std::string> names{text};
    const auto consider = [&](const std::string &name) {
        if (!name.empty() && text.find(name) != std::string::npos
            && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    };
    for (const ModelSpec &m : pipeline.models)
        consider(m.name);
    for (const Unit &u : pipeline.units) {
        if (u.onloadModelNames && !u.onloadModelNamesIsString()) {
            for (const std::string &m : *u.onloadModelNames)
                consider(m);
        }
    }
    std::vector<TrainingConfig> choices;
    if (pipeline.training)
        choices.push_back(*pipeline.training);
    if (pipeline.alternativeTraining)
        choices.insert(choices.end(), pipeline.alternativeTraining->begin(), pipeline.alternativeTraining->end());
    for (const TrainingConfig &t : choices) {
        for (const std::string &m : t.modelsRequiringBackward())
            consider(m);
    }
    return names;
}

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

    // Models: those listed first (in order), then any a unit names without listing.
    for (const ModelSpec &m : pipeline.models)
        internModel(m.name);
    for (const Unit &u : pipeline.units) { // models called without being declared have ids too
        if (u.usesModels) {
            for (const BodyFact &use : *u.usesModels)
                internModel(use.name);
        }
    }
    indexModelCallers(readUnits(pipeline));
    m_unitNames.push_back(pipeline.loss && !pipeline.loss->name.empty() ? pipeline.loss->name : std::string("loss"));
    readLossInputs(pipeline);
    buildEdges();
    readBodyFacts(pipeline);
}

ModelId PipelineGraph::internModel(const std::string &name)
{
    return m_modelIndex.intern(name, m_modelNames);
}

ParamId PipelineGraph::internParam(const std::string &name)
{
    return m_paramIndex.intern(name, m_paramNames);
}

std::vector<UnitId> PipelineGraph::readUnits(const Pipeline &pipeline)
{
    const int n = static_cast<int>(pipeline.units.size());
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
    // fetch_input_params sorts by name and drops repeats: each unit's reads are sorted on
    // their own, right after they are interned (a unit reads a handful of params).
    std::vector<UnitId> callingUnit; // the unit of each entry of m_unitModels
    std::vector<std::pair<const std::string *, ParamId>> reads; // one unit's
    for (int i = 0; i < n; ++i) {
        const Unit &u = pipeline.units[i];
        m_unitNames.push_back(u.name);
        m_stochastic.push_back(u.isStochastic() ? 1 : 0);
        // Sorted by the unit's own strings, which are at hand, rather than by the
        // interned names, which are spread over the whole table.
        reads.clear();
        for (const auto &p : u.inputParams)
            reads.emplace_back(&p, internParam(p));
        for (const auto *map : {&u.inputParamsPosi, &u.inputParamsNega}) {
            if (*map) {
                for (const auto &entry : **map)
                    reads.emplace_back(&entry.second, internParam(entry.second));
            }
        }
        std::sort(reads.begin(), reads.end(), [](const auto &a, const auto &b) { return *a.first < *b.first; });
        for (std::size_t r = 0; r < reads.size(); ++r) {
            if (r == 0 || reads[r].second != reads[r - 1].second)
                m_inputs.push_back(reads[r].second);
        }
        m_inputStart.push_back(static_cast<std::uint32_t>(m_inputs.size()));
        for (const auto &p : u.outputParams)
            m_outputs.push_back(internParam(p));
        m_outputStart.push_back(static_cast<std::uint32_t>(m_outputs.size()));
        if (u.onloadModelNames) {
            const bool substring = u.onloadModelNamesIsString() && u.onloadModelNames->size() == 1;
            for (const auto &m : substring ? substringModels(pipeline, u) : *u.onloadModelNames) {
                const ModelId id = internModel(m);
                if (std::find(m_unitModels.begin() + m_unitModelStart.back(), m_unitModels.end(), id) == m_unitModels.end()) {
                    m_unitModels.push_back(id);
                    callingUnit.push_back(i);
                }
            }
        }
        m_unitModelStart.push_back(static_cast<std::uint32_t>(m_unitModels.size()));
    }
    return callingUnit;
}

// The units that call each model, in pipeline order (a counting sort of the calls);
// `callingUnit` is the unit of each entry of m_unitModels.
void PipelineGraph::indexModelCallers(const std::vector<UnitId> &callingUnit)
{
    std::vector<std::uint32_t> callCount(m_modelNames.size(), 0);
    for (const ModelId m : m_unitModels)
        ++callCount[m];
    m_modelUnitStart = prefixStarts(callCount);
    m_modelUnits.resize(m_unitModels.size());
    std::vector<std::uint32_t> fill(m_modelUnitStart.begin(), m_modelUnitStart.end() - 1);
    for (std::size_t call = 0; call < m_unitModels.size(); ++call)
        m_modelUnits[fill[m_unitModels[call]]++] = callingUnit[call];
}

void PipelineGraph::readLossInputs(const Pipeline &pipeline)
{
    const auto byName = [this](ParamId a, ParamId b) { return m_paramNames[a] < m_paramNames[b]; };
    const bool lossReadsEverything = !(pipeline.loss && pipeline.loss->inputParams);
    const std::size_t lossInputs = m_inputs.size();
    if (!lossReadsEverything) {
        for (const auto &p : *pipeline.loss->inputParams)
            m_inputs.push_back(internParam(p));
    } else {
        for (ParamId p = 0; p < static_cast<ParamId>(m_paramNames.size()); ++p)
            m_inputs.push_back(p);
    }
    // What the loss writes before anything reads it is not a read of what came before.
    if (pipeline.loss && pipeline.loss->outputParams) {
        const std::vector<std::string> &written = *pipeline.loss->outputParams;
        m_inputs.erase(std::remove_if(m_inputs.begin() + static_cast<std::ptrdiff_t>(lossInputs), m_inputs.end(),
                           [&](ParamId p) {
                               return std::find(written.begin(), written.end(), m_paramNames[p]) != written.end();
                           }),
            m_inputs.end());
    }
    std::sort(m_inputs.begin() + static_cast<std::ptrdiff_t>(lossInputs), m_inputs.end(), byName);
    m_inputs.erase(std::unique(m_inputs.begin() + static_cast<std::ptrdiff_t>(lossInputs), m_inputs.end()), m_inputs.end());
    m_inputStart.push_back(static_cast<std::uint32_t>(m_inputs.size()));
    m_inputs.shrink_to_fit();
}

void PipelineGraph::buildEdges()
{
    const int n = unitCount();
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

void PipelineGraph::readBodyFacts(const Pipeline &pipeline)
{
    using Kind = DeclarationFinding::Kind;
    const int n = unitCount();
    m_undeclaredModelStart.assign(1, 0);
    m_flowOf.assign(static_cast<std::size_t>(n), -1);
    for (UnitId u = 0; u < n; ++u) {
        const Unit &unit = pipeline.units[static_cast<std::size_t>(u)];
        const auto finding = [&](Kind kind, const std::string &name, const std::string &file, int line) {
            m_findings.push_back(DeclarationFinding{kind, u, name, file, line, false});
        };
        if (unit.usesModels) {
            for (const BodyFact &use : *unit.usesModels) {
                const ModelId m = findModel(use.name);
                const Span<ModelId> declared = unitModels(u);
                if (std::find(declared.begin(), declared.end(), m) != declared.end())
                    continue;
                if (std::find(m_undeclaredModels.begin() + m_undeclaredModelStart.back(), m_undeclaredModels.end(), m)
                    == m_undeclaredModels.end()) {
                    m_undeclaredModels.push_back(m);
                    finding(Kind::UndeclaredModel, use.name, use.file, use.line);
                }
            }
        }
        m_undeclaredModelStart.push_back(static_cast<std::uint32_t>(m_undeclaredModels.size()));
        if (unit.reads) {
            const std::vector<std::string> declared = unit.fetchInputParams();
            for (const BodyFact &read : *unit.reads) {
                if (!std::binary_search(declared.begin(), declared.end(), read.name))
                    finding(Kind::UndeclaredRead, read.name, read.file, read.line);
            }
        }
        if (!unit.returns)
            continue;
        const std::vector<BodyFact> &returns = *unit.returns;
        for (const BodyFact &r : returns) {
            if (std::find(unit.outputParams.begin(), unit.outputParams.end(), r.name) == unit.outputParams.end())
                finding(Kind::UndeclaredOutput, r.name, r.file, r.line);
        }
        OutputFlow flow;
        std::vector<char> returned;
        for (const std::string &output : unit.outputParams) {
            const auto r = std::find_if(returns.begin(), returns.end(), [&](const BodyFact &f) { return f.name == output; });
            std::vector<ParamId> from;
            if (r == returns.end()) {
                const bool listedTwice = std::count(unit.outputParams.begin(), unit.outputParams.end(), output) > 1
                    && !m_findings.empty() && m_findings.back().unit == u && m_findings.back().name == output;
                if (!listedTwice)
                    finding(Kind::UnreturnedOutput, output, std::string(), 0);
            } else {
                for (const std::string &name : r->from) {
                    const ParamId p = findParam(name);
                    if (p >= 0)
                        from.push_back(p);
                }
            }
            flow.from.push_back(std::move(from));
            flow.random.push_back(r != returns.end() && r->random);
            returned.push_back(r != returns.end());
        }
        // A stochastic unit whose draws the importer traced to none of its outputs: trust
        // the flag over the tracing, every output it returns carries them.
        if (std::find(flow.random.begin(), flow.random.end(), 1) == flow.random.end())
            flow.random = returned;
        m_flowOf[static_cast<std::size_t>(u)] = static_cast<int>(m_flows.size());
        m_flows.push_back(std::move(flow));
    }
}

bool PipelineGraph::outputDependsOn(UnitId unit, std::size_t index, ParamId param) const
{
    const int flow = m_flowOf[static_cast<std::size_t>(unit)];
    if (flow < 0)
        return true;
    const std::vector<ParamId> &from = m_flows[static_cast<std::size_t>(flow)].from[index];
    return std::find(from.begin(), from.end(), param) != from.end();
}

bool PipelineGraph::outputCarriesDraws(UnitId unit, std::size_t index) const
{
    const int flow = m_flowOf[static_cast<std::size_t>(unit)];
    if (flow < 0)
        return isStochastic(unit);
    return isStochastic(unit) && m_flows[static_cast<std::size_t>(flow)].random[index] != 0;
}

const char *declarationFindingName(DeclarationFinding::Kind kind)
{
    switch (kind) {
    case DeclarationFinding::Kind::UndeclaredModel: return "undeclared-model";
    case DeclarationFinding::Kind::UndeclaredOutput: return "undeclared-output";
    case DeclarationFinding::Kind::UnreturnedOutput: return "unreturned-output";
    case DeclarationFinding::Kind::UndeclaredRead: return "undeclared-read";
    }
    return "finding";
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
