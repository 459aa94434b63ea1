// SPDX-License-Identifier: MIT
#pragma once

#include "core/Diagnostic.h"
#include "core/Pipeline.h"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// Reads DiffSynth-Studio pipeline sources (Python) into `splitscope.pipeline/1` descriptions (DESIGN.md §2).
// CPython's own parser reads the files (core/python/PythonParser.h); nothing of them is ever run:
//
//     const ImportResult r = importDiffSynthPath("DiffSynth-Studio/diffsynth/pipelines");
//     for (const Diagnostic &d : r.diagnostics) log(d.toString());
//     for (const ImportedPipeline &p : r.pipelines) savePipelineFile(p.pipeline, p.pipeline.name + ".json");
//
// A pipeline class derives from BasePipeline or sets `self.units` (PipelineReader.h; its units: UnitReader.h). A
// folder is read as one set of modules, so that what a file imports from its siblings resolves. Each pipeline class
// becomes one description, named after its file ("qwen_image" for qwen_image.py), or, when a file has several,
// after the class in snake_case, prefixed with the file's name unless it starts with it.
//
// Diagnostics name the file, line and column, and in jsonPath the Python-side place
// ("QwenImageUnit_NoiseInitializer.output_params"); nothing that cannot be resolved is dropped without one. Every
// pipeline returned serializes to a document that parsePipeline loads without errors. Codes:
//   errors   io, input-too-large, python-syntax (CPython's message), no-pipeline, unknown-pipeline-class
//   warnings string-as-list, missing-comma, computed-argument, wrong-type, empty-name, unknown-keyword,
//            positional-argument, unexpected-argument, missing-argument, conditional-init, no-super-init,
//            unknown-base-class, unknown-unit-class, conditional-unit, unit-in-loop, duplicate-unit, no-units,
//            no-model-fn, unknown-loss, no-in-iteration-models, too-many-files, too-many-diagnostics
//   info     stochastic-inferred, not-a-model, unannotated-model, returns-unknown, training-loss, training-units,
//            and PipelineGraph's declaration findings
//
// No input crashes, hangs or exhausts memory: sources above kMaxSourceBytes are refused, and parsing, tree walks and
// evaluation are bounded. Functions may be called from any thread (parsing takes CPython's lock); they never throw.

// A model attribute of a pipeline and the model_configs name from_pretrained fetches into it.
struct ModelBinding {
    std::string attribute; // "dit"
    std::string model;     // "qwen_image_dit"
    int line = 0;
};

struct ImportOptions {
    std::string pipelineClass; // empty: every pipeline class found
    // The loss whose reads the description declares; empty: the one a train.py's task trains with, else
    // FlowMatchSFTLoss.
    std::string lossName;
    // A train.py's flags as a command gives them ("task" -> "sft:train"): units added under a flag are read when it
    // is given, and the training block follows --lora_base_model / --trainable_models.
    std::map<std::string, std::string> flags;
};

struct ImportedPipeline {
    std::string className;
    std::string sourceFile;
    Pipeline pipeline;
    std::vector<ModelBinding> modelBindings; // what from_pretrained fetches into each model attribute
};

struct ImportResult {
    std::vector<ImportedPipeline> pipelines;
    Diagnostics diagnostics;
    // At least one pipeline and no errors.
    bool ok() const { return !pipelines.empty() && !hasErrors(diagnostics); }
};

// Python files larger than this are refused (DiffSynth's largest is about 130 KB).
constexpr std::size_t kMaxSourceBytes = 16u << 20;
// A folder import reads at most this many .py files.
constexpr std::size_t kMaxFolderFiles = 2000;

// One file's text; `fileName` names it in diagnostics and gives the pipeline its name.
ImportResult importDiffSynthSource(std::string_view pythonSource, const std::string &fileName,
    const ImportOptions &options = {});

// A .py file, or a folder of them (not recursive). A DiffSynth-Studio checkout (a folder that holds
// diffsynth/pipelines/) is read there and in diffsynth/diffusion/ (the base pipeline, the losses, the training
// module). A train.py inside a checkout (a file with a DiffusionTrainingModule subclass) gives the one pipeline it
// trains, as its flags set it up (TrainingScript.h).
ImportResult importDiffSynthPath(const std::string &fileOrDirectory, const ImportOptions &options = {});

// The DiffSynth-Studio checkout a path is in or is (the folder holding diffsynth/pipelines/), or "".
std::string findCheckout(const std::string &path);

} // namespace splitscope::importer
