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

// Reads DiffSynth-Studio pipeline sources (Python) into `splitscope.pipeline/1`
// descriptions (DESIGN.md §2). CPython's own parser reads the files (PythonParser.h);
// nothing of them is ever run:
//
//     const ImportResult r = importDiffSynthPath("DiffSynth-Studio/diffsynth/pipelines");
//     for (const Diagnostic &d : r.diagnostics) log(d.toString());
//     for (const ImportedPipeline &p : r.pipelines) savePipelineFile(p.pipeline, p.pipeline.name + ".json");
//
// A pipeline class is one that derives from BasePipeline or sets `self.units`; its
// units are the PipelineUnit subclasses in `self.units`, read from their
// `super().__init__(...)` keyword arguments (UnitReader.h), its models, loss and
// training block as PipelineReader.h describes. A folder (a checkout's
// `diffsynth/pipelines/`, or the checkout itself) is read as one set of modules, so
// units, constants and model functions imported from sibling files resolve; each
// pipeline class becomes one description, named after its file ("qwen_image" for
// qwen_image.py; after the class in snake_case, prefixed with the file's name unless
// it starts with it, when a file has several).
//
// Diagnostics name the file, line and column, and in jsonPath the Python-side place
// ("QwenImageUnit_NoiseInitializer.output_params"). Codes:
//   errors   io, input-too-large, python-syntax (what CPython refuses, with its message),
//            no-pipeline, unknown-pipeline-class
//   warnings string-as-list, missing-comma, computed-argument, wrong-type, empty-name,
//            unknown-keyword, positional-argument, unexpected-argument, missing-argument,
//            conditional-init, no-super-init, unknown-base-class, unknown-unit-class,
//            conditional-unit, unit-in-loop, duplicate-unit, no-units, no-model-fn,
//            unknown-loss, no-in-iteration-models, too-many-files, too-many-diagnostics
//   info     stochastic-inferred, not-a-model, undeclared-model
// Nothing that cannot be resolved is dropped without one of these. Every pipeline
// returned serializes (serializePipeline) to a document that parsePipeline loads
// without errors.
//
// Robustness: no input crashes, hangs or exhausts memory: source files above
// kMaxSourceBytes are refused, CPython bounds the nesting it parses, the readers walk
// its tree without recursion or with bounded depth, evaluation is memoized and
// size-limited, and the work is near-linear in the input. Functions may be called from
// any thread (parsing takes CPython's lock in turn); they never throw.

// A model attribute of a pipeline and the model_configs name from_pretrained fetches into it.
struct ModelBinding {
    std::string attribute; // "dit"
    std::string model;     // "qwen_image_dit"
    int line = 0;
};

struct ImportOptions {
    std::string pipelineClass; // empty: every pipeline class found
    // The loss whose reads the description declares; empty: the one a train.py's task
    // trains with, else FlowMatchSFTLoss.
    std::string lossName;
    // A train.py's flags as a command gives them ("task" -> "sft:train",
    // "template_model_id_or_path" -> "..."): units added under a flag are read when it
    // is given, and the training block follows --lora_base_model / --trainable_models.
    std::map<std::string, std::string> flags;
};

struct ImportedPipeline {
    std::string className;
    std::string sourceFile;
    Pipeline pipeline;
    // What from_pretrained fetches into each model attribute (PipelineReader.h).
    std::vector<ModelBinding> modelBindings;
};

struct ImportResult {
    std::vector<ImportedPipeline> pipelines;
    Diagnostics diagnostics;
    // At least one pipeline and no errors.
    bool ok() const;
};

// Python files larger than this are refused (DiffSynth's largest is about 130 KB).
constexpr std::size_t kMaxSourceBytes = 16u << 20;
// A folder import reads at most this many .py files.
constexpr std::size_t kMaxFolderFiles = 2000;

// One file's text; `fileName` names it in diagnostics and gives the pipeline its name.
ImportResult importDiffSynthSource(std::string_view pythonSource, const std::string &fileName,
    const ImportOptions &options = {});

// A .py file, or a folder of them (not recursive). A folder that contains
// diffsynth/pipelines/ (a DiffSynth-Studio checkout) is read there, with
// diffsynth/diffusion/ (the base pipeline's helpers, the losses, the training module).
// A train.py (a file with a DiffusionTrainingModule subclass) inside a checkout gives
// the one pipeline it trains, as its flags (ImportOptions::flags) set it up
// (TrainingScript.h).
ImportResult importDiffSynthPath(const std::string &fileOrDirectory, const ImportOptions &options = {});

// The DiffSynth-Studio checkout a path is in or is (the folder holding
// diffsynth/pipelines/), or "".
std::string findCheckout(const std::string &path);

} // namespace splitscope::importer
