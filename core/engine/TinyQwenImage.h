// SPDX-License-Identifier: MIT
#pragma once

#include "CacheCheck.h" // pipelineHash
#include "core/Pipeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::engine {

// Built-in executable pipelines. A unit is C++ code together with its declaration
// (what it reads, writes and calls), in one table per pipeline
// (TinyQwenImageUnits.cpp). The `splitscope.pipeline/1` description, and so the
// split, come from that table, and the runner lets a unit read and write only what
// it declares (anything else is a programming error, thrown as std::logic_error):
// the description cannot drift from the code.

class UnitIO;
struct RunContext;
// A unit's (or the loss's) work: read inputs from `io`, write outputs to it.
using UnitProcess = void (*)(RunContext &context, UnitIO &io);

struct UnitDeclaration {
    std::string name;
    std::vector<std::string> inputParams;
    std::optional<ParamMap> inputParamsPosi; // {process argument: pipeline param}
    std::optional<ParamMap> inputParamsNega;
    std::vector<std::string> outputParams;
    std::vector<std::string> models; // onload_model_names; empty = null
    bool stochastic = false;
    bool seperateCfg = false;
    std::string doc;
    UnitProcess process = nullptr;

    // Every param the unit may read (input_params and the posi/nega values).
    std::vector<std::string> readableParams() const;
};

struct LossDeclaration {
    std::string task; // "sft", "direct_distill"
    std::string name; // "FlowMatchSFTLoss"
    std::vector<std::string> inputParams;
    std::vector<std::string> models; // models the loss calls (the DiT)
    std::string doc;
    UnitProcess process = nullptr;
};

// What a param's value looks like, as the units that read it expect. Stage two checks
// every sample of a cache against these (CacheLayout.h) before its first step, from
// the shards' headers alone.
struct ParamSpec {
    // Values.h's kind names: "tensor", "int", "float", "bool", "text", "image". The kind
    // fixes how the value is stored (TensorIO.h), all but a tensor's dtype and shape.
    std::string kind = "tensor";
    std::string dtype; // a tensor's safetensors dtype ("F32"); empty: any
    // A tensor's shape, one entry a dimension: a number; "<model>.<config key>", a size
    // from that model's config.json (ModelFiles.h: modelDimensions); or a name that
    // takes one value in all the tensors of a sample ("h": the latents of a sample
    // share their height). Empty: any shape.
    std::vector<std::string> shape;
    bool optional = false; // may be None (absent), as edit_latents without an edit image
};

struct PipelineDeclaration {
    std::string name;
    std::string source;
    std::vector<std::string> models;
    std::vector<UnitDeclaration> units;
    std::vector<LossDeclaration> losses;
    TrainingConfig training;
    std::vector<TrainingConfig> alternativeTraining;
    // The params' values (inputs and unit outputs). A param missing here is checked
    // only for being stored as its recorded kind.
    std::map<std::string, ParamSpec> params;

    const LossDeclaration *loss(const std::string &task) const; // nullptr when none
    int findUnit(const std::string &name) const;                // -1 when absent
};

// The tiny Qwen-Image pipeline (defined with its units in TinyQwenImageUnits.cpp).
const PipelineDeclaration &tinyQwenImageDeclaration();

std::vector<std::string> builtinPipelineNames();
const PipelineDeclaration *findPipelineDeclaration(const std::string &name);
// The description for a task's loss ("sft" or "direct_distill").
Pipeline describePipeline(const PipelineDeclaration &declaration, const std::string &lossTask);
// serializePipeline(describePipeline(...)); empty when the name or task is unknown.
std::string builtinPipelineJson(const std::string &name, const std::string &lossTask = "sft");

} // namespace splitscope::engine
