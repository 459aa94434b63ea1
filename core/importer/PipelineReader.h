// SPDX-License-Identifier: MIT
#pragma once

#include "BodyReader.h"
#include "DiffSynthImporter.h"
#include "ImportContext.h"
#include "TrainingScript.h"
#include "UnitReader.h"

#include "core/Pipeline.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::importer {

// A DiffSynth loss function as the importer knows it: what it reads from the pipeline's inputs itself, and what it
// passes to model_fn explicitly (so that model_fn's parameter of that name is not read from the inputs).
// Transcribed from DiffSynth-Studio's diffsynth/diffusion/loss.py.
struct KnownLoss {
    std::string name;
    std::vector<std::string> reads;
    std::vector<std::string> supplies;
};
const std::vector<KnownLoss> &knownLosses();
// The loss DiffSynth's `sft` task trains with.
constexpr const char *kDefaultLoss = "FlowMatchSFTLoss";

// Reads a DiffSynth pipeline class statically into a `splitscope.pipeline/1` description: its units in the order
// __init__ (and a pipeline base class) builds `self.units` (UnitReader reads each), its models (the annotated
// attributes of __init__ that are, by heuristic, models, and the models units, in_iteration_models or
// from_pretrained use), its loss (`lossName`, reading model_fn's parameters less the models and what the loss
// supplies, plus what the loss reads itself), and a training block from `in_iteration_models` (lora_base_model: its
// first, the denoising model DiffSynth trains by default; an alternative per model). What it cannot list is a
// warning (unit-in-loop, conditional-unit, unknown-unit-class, no-model-fn, ...).
class PipelineReader {
public:
    PipelineReader(ImportContext &context, std::string lossName)
        : m_context(context), m_units(context), m_bodies(context), m_lossName(std::move(lossName))
    {
    }

    // Derives (through classes in the set) from BasePipeline, or sets self.units.
    bool isPipelineClass(const PythonModule &module, const ClassDef &cls, int depth = 0) const;

    // nullopt when the class sets up no units (reported as a warning). `added`: units a train.py adds
    // (TrainingScript.h), before or after the pipeline's own.
    std::optional<Pipeline> read(const PythonModule &module, const ClassDef &cls,
        const std::vector<TrainingScript::AddedUnits> &added = {});

    // The models `from_pretrained` fetches into each attribute: `pipe.dit = model_pool.fetch_model("qwen_image_dit")`
    // (also through a local: `controlnets = model_pool.fetch_model(...)`, then `pipe.controlnet = Multi(controlnets)`).
    std::vector<ModelBinding> modelBindings(const PythonModule &module, const ClassDef &cls) const;

private:
    struct UnitEntry {
        std::string className;
        ModuleSet::Found<ClassDef> definition;
        CallArguments arguments;
        const PythonModule *module = nullptr;
        NodeId node = kNoNode; // the constructor call
        bool conditional = false;
    };
    struct ModelAttribute {
        std::string name;
        std::string type; // the annotation as written
        NodeId annotation = kNoNode;
        const PythonModule *module = nullptr;
        int line = 0;
        int column = 0;
    };
    struct State {
        std::vector<UnitEntry> units;
        bool unitsSet = false;
        std::vector<ModelAttribute> attributes;
        std::optional<std::vector<std::string>> inIterationModels;
        std::string modelFn;
        const PythonModule *modelFnModule = nullptr;
        NodeId modelFnStatement = kNoNode;
        bool modelFnReported = false; // set to something unreadable, already said
    };
    struct Scope {
        Locals values;
        std::map<std::string, NodeId> lists; // locals assigned a list/tuple display: `units = [...]`
        bool conditional = false;
        bool loop = false;
    };

    void readState(const PythonModule &module, const ClassDef &cls, State &state, int depth);
    void readAssignmentInInit(const PythonModule &module, NodeId statement, const Assignment &a, Scope &scope,
        State &state);
    void readInIterationModels(const PythonModule &module, const Value &value, State &state);
    void readUnitsCall(const PythonModule &module, NodeId call, const Scope &scope, State &state);
    void addUnits(const PythonModule &module, NodeId expr, const Scope &scope, std::vector<UnitEntry> &out, int depth);
    void addUnit(const PythonModule &module, NodeId expr, const Scope &scope, std::vector<UnitEntry> &out, int depth);
    std::vector<ModelSpec> models(const State &state, const std::vector<Unit> &units, BodyReader::PipelineInfo &info);
    LossSpec loss(const State &state, const std::vector<ModelSpec> &models);

    ImportContext &m_context;
    UnitReader m_units;
    BodyReader m_bodies;
    std::string m_lossName;
    const PythonModule *m_module = nullptr;
    const ClassDef *m_class = nullptr;
};

} // namespace splitscope::importer
