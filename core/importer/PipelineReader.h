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

// A DiffSynth loss function as the importer knows it: what it reads from the
// pipeline's inputs itself, and what it passes to model_fn explicitly (so that
// model_fn's parameter of that name is not read from the inputs). Transcribed
// from DiffSynth-Studio's diffsynth/diffusion/loss.py.
struct KnownLoss {
    std::string name;
    std::vector<std::string> reads;
    std::vector<std::string> supplies;
};
const std::vector<KnownLoss> &knownLosses();
// The loss DiffSynth's `sft` task trains with.
constexpr const char *kDefaultLoss = "FlowMatchSFTLoss";

// Reads a DiffSynth pipeline class (a subclass of BasePipeline) statically into a
// `splitscope.pipeline/1` description:
//
// * units: the order of `self.units = [A(), B(), ...]` in __init__ (also lists
//   built with `+`, `self.units.append/extend/insert(...)`, `self.units += [...]`,
//   a local list assigned to self.units, and what a pipeline base class in the
//   set sets up before `super().__init__()`), each read by UnitReader with its
//   constructor arguments. Units added under a condition are kept with a warning
//   (conditional-unit); units built in a loop or a comprehension, and choices made
//   at run time (`A() if c else B()`), cannot be listed and are warnings
//   (unit-in-loop, conditional-unit); a unit class that is not in the imported
//   files is kept as a unit that declares nothing, with a warning
//   (unknown-unit-class).
// * models: the annotated attributes of __init__ (`self.dit: QwenImageDiT = None`),
//   in order, except (heuristic, info `not-a-model`) tokenizers, processors,
//   schedulers and prompters (by attribute or type name) and builtin-typed
//   attributes, unless a unit or in_iteration_models uses them; then models used
//   but never declared (info `undeclared-model`).
// * loss: `lossName` with input_params = the parameters of the function assigned
//   to `self.model_fn`, minus the models (they are passed as models) and what the
//   loss passes itself (timestep), plus what the loss reads on its own (for
//   FlowMatchSFTLoss: input_latents, max_timestep_boundary,
//   min_timestep_boundary), sorted. Without a readable model_fn the loss is
//   declared without input_params (it may read every param; warning no-model-fn).
// * training (heuristic): lora_base_model = the first of `in_iteration_models`
//   (the denoising model DiffSynth trains by default), and one alternative
//   configuration per in-iteration model with trainable_models set to it.
class PipelineReader {
public:
    PipelineReader(ImportContext &context, std::string lossName);

    // Derives (through classes in the set) from BasePipeline, or sets self.units.
    bool isPipelineClass(const PythonModule &module, const ClassDef &cls) const;

    // nullopt when the class sets up no units (reported as a warning). `added`: units a
    // train.py adds (TrainingScript.h), before or after the pipeline's own.
    std::optional<Pipeline> read(const PythonModule &module, const ClassDef &cls,
        const std::vector<TrainingScript::AddedUnits> &added = {});

    // The models `from_pretrained` fetches into each attribute:
    // `pipe.dit = model_pool.fetch_model("qwen_image_dit")` (also through a local, as in
    // `controlnets = model_pool.fetch_model(...)`, then `pipe.controlnet = Multi(controlnets)`).
    std::vector<ModelBinding> modelBindings(const PythonModule &module, const ClassDef &cls) const;

private:
    struct UnitEntry {
        std::string className;
        ModuleSet::Found<ClassDef> definition;
        CallArguments arguments;
        const PythonModule *module = nullptr;
        int line = 0;
        int column = 0;
        bool conditional = false;
    };
    struct ModelAttribute {
        std::string name;
        std::string type;     // the annotation as written
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
        int modelFnLine = 0;
        int modelFnColumn = 0;
        bool modelFnReported = false; // set to something unreadable, already said
    };
    struct Scope {
        Locals values;
        std::map<std::string, NodeId> lists; // locals assigned a list/tuple display: `units = [...]`
        bool conditional = false;
        bool loop = false;
    };

    bool isPipelineClass(const PythonModule &module, const ClassDef &cls, int depth) const;
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
    std::string m_className; // for diagnostics: the pipeline class being read
    const PythonModule *m_module = nullptr;
    const ClassDef *m_class = nullptr;
};

} // namespace splitscope::importer
