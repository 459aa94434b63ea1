// SPDX-License-Identifier: MIT
#pragma once

#include "NameIndex.h"
#include "Pipeline.h"
#include "Span.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope {

using UnitId = std::int32_t;  // index in pipeline order
using ParamId = std::int32_t; // interned param name
using ModelId = std::int32_t; // interned model name
constexpr UnitId kNoUnit = -1; // "no producer": an external input

// A unit's process() doing what its declaration does not say (DESIGN.md §1.2), from
// what the DiffSynth importer read of it (Unit::usesModels, reads, returns).
struct DeclarationFinding {
    enum class Kind {
        UndeclaredModel,  // calls `name`, which onload_model_names does not list
        UndeclaredOutput, // returns `name`, which output_params does not list
        UnreturnedOutput, // declares output `name` and never returns it
        UndeclaredRead    // reads `name` from the inputs without declaring it
    };
    Kind kind;
    UnitId unit;
    std::string name;
    std::string file; // where in the source; empty and 0 for an unreturned output
    int line = 0;
    bool hazard = false; // set by the verifier: an undeclared model that needs gradients, called in stage one
};
const char *declarationFindingName(DeclarationFinding::Kind kind); // "undeclared-model", ...

// The dependency structure of a pipeline (DESIGN.md §1), built once and shared by
// every split, verification and drawing of that pipeline. Names are interned to
// integers; edges, update chains and readers are stored in flat arrays, so a
// 10^6-unit pipeline is built in well under a second and queried in O(1).
//
// The loss is a pseudo-unit with id lossId() == unitCount(): it comes after every
// unit and reads lossInputs() (the declared `loss.input_params`, or every param
// when the document declares none, less `loss.output_params`, which it writes before
// reading). It is never part of F, U or the split itself. A unit whose
// onload_model_names is a string calls, as in DiffSynth's substring test, every model
// name of the pipeline that is part of it.
//
// Immutable after construction; safe to read from several threads.
class PipelineGraph {
public:
    // A data edge (DESIGN.md §1): `source` is the last unit before `target` that outputs `param`.
    struct Edge {
        UnitId source;
        UnitId target;
        ParamId param;
    };

    explicit PipelineGraph(const Pipeline &pipeline);

    int unitCount() const { return static_cast<int>(m_unitNames.size()) - 1; } // the loss's name is last
    UnitId lossId() const { return unitCount(); }
    const std::string &unitName(UnitId unit) const; // the loss's name for lossId()
    UnitId findUnit(std::string_view name) const;   // kNoUnit when absent (the first call indexes the names)
    UnitId findUnitOrLoss(std::string_view name) const; // the loss's name gives lossId()
    bool isStochastic(UnitId unit) const { return m_stochastic[unit] != 0; }
    const std::string &pipelineName() const { return m_pipelineName; }

    int paramCount() const { return static_cast<int>(m_paramNames.size()); }
    const std::string &paramName(ParamId param) const { return m_paramNames[param]; }
    ParamId findParam(std::string_view name) const; // -1 when absent

    int modelCount() const { return static_cast<int>(m_modelNames.size()); }
    const std::string &modelName(ModelId model) const { return m_modelNames[model]; }
    ModelId findModel(std::string_view name) const; // -1 when absent
    Span<ModelId> unitModels(UnitId unit) const { return slice(m_unitModels, m_unitModelStart, unit); }
    // The units that call `model`, in pipeline order.
    Span<UnitId> modelUnits(ModelId model) const { return slice(m_modelUnits, m_modelUnitStart, model); }

    // fetch_input_params order (sorted by name, no repeats); lossId() gives the loss's reads.
    Span<ParamId> inputs(UnitId unit) const;
    // fetch_output_params order (as declared, repeats kept).
    Span<ParamId> outputs(UnitId unit) const { return slice(m_outputs, m_outputStart, unit); }

    // Edges leaving `unit`, by target then by the target's input order.
    Span<Edge> outEdges(UnitId unit) const { return slice(m_outEdges, m_outEdgeStart, unit); }
    // Edges entering `unit` (or the loss), in its input order.
    Span<Edge> inEdges(UnitId unit) const { return slice(m_inEdges, m_inEdgeStart, unit); }
    std::size_t edgeCount() const { return m_outEdges.size(); } // unit-to-unit edges only

    // Update chain c(p): the units that output p, in order (a unit listing p twice appears twice).
    Span<UnitId> chain(ParamId param) const { return slice(m_chains, m_chainStart, param); }
    // Units that read p, in order (the loss not included).
    Span<UnitId> readers(ParamId param) const { return slice(m_readers, m_readerStart, param); }
    // The last unit strictly before `position` that outputs p, or kNoUnit. position may be lossId().
    UnitId producerBefore(ParamId param, UnitId position) const;
    // Index in chain(p) of the first occurrence of `unit`, or -1 when it does not output p.
    int chainIndex(ParamId param, UnitId unit) const;
    bool isExternalInput(ParamId param) const { return chain(param).empty(); }

    // Resolves model names to ids; names the pipeline never uses are ignored.
    std::vector<ModelId> resolveModels(const std::vector<std::string> &names) const;

    // The checks of what the importer read of process() bodies, in unit order.
    const std::vector<DeclarationFinding> &declarationFindings() const { return m_findings; }
    // Models `unit` calls in process() that its onload_model_names does not declare.
    Span<ModelId> undeclaredModels(UnitId unit) const { return slice(m_undeclaredModels, m_undeclaredModelStart, unit); }
    // Whether the value `unit` writes to outputs(unit)[index] is computed from its input
    // `param`, and whether it carries the unit's random draws. Without what the importer
    // read of the unit's returns: every output from every input, carrying draws when
    // the unit is stochastic.
    bool outputDependsOn(UnitId unit, std::size_t index, ParamId param) const;
    bool outputCarriesDraws(UnitId unit, std::size_t index) const;

private:
    template <typename T>
    static Span<T> slice(const std::vector<T> &data, const std::vector<std::uint32_t> &start, int index)
    {
        return Span<T>(data.data() + start[index], start[index + 1] - start[index]);
    }

    std::string m_pipelineName;
    std::vector<std::string> m_unitNames; // units, then the loss's name at lossId()
    // Unit names to ids, built by the first findUnit(): splits, verification and
    // reports go by id, so most graphs (and every benchmark split) never need it.
    struct UnitLookup {
        std::once_flag built;
        NameIndex index;
    };
    std::unique_ptr<UnitLookup> m_unitLookup = std::make_unique<UnitLookup>();
    std::vector<char> m_stochastic;

    std::vector<std::string> m_paramNames;
    NameIndex m_paramIndex;
    std::vector<std::string> m_modelNames;
    NameIndex m_modelIndex;

    std::vector<ParamId> m_inputs; // units, then the loss
    std::vector<std::uint32_t> m_inputStart;
    std::vector<ParamId> m_outputs;
    std::vector<std::uint32_t> m_outputStart;
    std::vector<ModelId> m_unitModels;
    std::vector<std::uint32_t> m_unitModelStart;
    std::vector<UnitId> m_modelUnits;
    std::vector<std::uint32_t> m_modelUnitStart;
    std::vector<Edge> m_outEdges;
    std::vector<std::uint32_t> m_outEdgeStart;
    std::vector<Edge> m_inEdges; // units, then the loss
    std::vector<std::uint32_t> m_inEdgeStart;
    std::vector<UnitId> m_chains;
    std::vector<std::uint32_t> m_chainStart;
    std::vector<UnitId> m_readers;
    std::vector<std::uint32_t> m_readerStart;

    std::vector<DeclarationFinding> m_findings;
    std::vector<ModelId> m_undeclaredModels;
    std::vector<std::uint32_t> m_undeclaredModelStart;
    // Per unit with returns read from its source: for each output, its inputs and whether it carries draws.
    struct OutputFlow {
        std::vector<std::vector<ParamId>> from;
        std::vector<char> random;
    };
    std::vector<int> m_flowOf; // per unit, an index in m_flows or -1
    std::vector<OutputFlow> m_flows;

    ModelId internModel(const std::string &name);
    ParamId internParam(const std::string &name);
    // Interns each unit's params and models and records its sorted reads and its
    // writes; returns the unit of each entry of m_unitModels.
    std::vector<UnitId> readUnits(const Pipeline &pipeline);
    void indexModelCallers(const std::vector<UnitId> &callingUnit);
    void readLossInputs(const Pipeline &pipeline);
    // build_edges: units in order, keeping the last producer of each param.
    void buildEdges();
    void readBodyFacts(const Pipeline &pipeline);
};

} // namespace splitscope
