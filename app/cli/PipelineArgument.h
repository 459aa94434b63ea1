// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineFile.h"
#include "core/TrainingChoice.h"

#include <string>

namespace splitscope {
class PipelineGraph;
}

namespace splitscope::cli {

class ArgParser;

// Loads PIPELINE arguments: `-` (standard input), a file path, or the name of a
// built-in pipeline (`qwen_image`, `tiny-qwen-image`) when no such file exists. A folder
// is no pipeline file: a folder named like a built-in pipeline does not hide it (a note
// on stderr, prefixed with `command`, says which was read). An argument with a `/` is
// always a path: when it is missing the message says only that. The loader's limits
// apply to files and pipes alike (PipelineFile.h: size, devices).
LoadResult loadPipelineArgument(const std::string &argument, const std::string &command);
// How diagnostics and summaries name a PIPELINE argument: "<stdin>" for `-`.
std::string pipelineArgumentName(const std::string &argument);
// The exit status of a load that failed: 1 when memory ran out (the work failed),
// otherwise 2 (bad input).
int loadFailureStatus(const Diagnostics &diagnostics);

// Prints diagnostics to stderr: errors and warnings always, info when `verbose`.
void printDiagnostics(const Diagnostics &diagnostics, bool verbose);

// The names of the two model flags of one split (`lora_base_model`, `trainable_models`,
// or diff's per-side `lora_base_model-a`, ...), without the dashes.
struct ModelFlagNames {
    std::string loraBaseModel;
    std::string trainableModels;
};

// The pipeline's training block with each model flag that was given replacing only
// its own field, into `choice` (its mode is kept); an empty value means none. An empty entry of a list (`vae,,dit`), or a
// value of blanks only, names no model: a warning on stderr says it is ignored, as
// DiffSynth ignores it.
// False with `error` set, for a usage error, when a flag names a model the pipeline
// neither lists in `models` nor calls from a unit (with a "did you mean" hint and the
// known models). A listed model that no unit calls is a note on stderr (prefixed
// with `command`) when a flag names it; the file's block warns only about unknown names.
bool trainingFromFlags(const ArgParser &parser, const ModelFlagNames &flags, const std::string &command,
    const Pipeline &pipeline, const PipelineGraph &graph, TrainingChoice &choice, std::string &error);

// Checks the value of an output flag before any work: not empty, and not the file read
// as input (same device and inode, so also through a link; `input` may be a built-in
// name, which is no file, or `-`, standard input's file). An empty string when fine,
// else the usage error's message, naming `flag`.
std::string outputPathProblem(const std::string &flag, const std::string &output, const std::string &input);

} // namespace splitscope::cli
