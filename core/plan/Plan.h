// SPDX-License-Identifier: MIT
#pragma once

#include "TrainCommand.h"

#include "core/Diagnostic.h"
#include "core/Pipeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace splitscope::plan {

// A two-stage plan for a one-stage DiffSynth-Studio training command, as the feature
// document prescribes it (split-training.zh.md, 启用拆分训练):
//
//     PlanInput in;
//     in.script = readFile("train_lora.sh");
//     in.scriptName = "train_lora.sh";
//     in.checkout = "DiffSynth-Studio";           // or in.pipeline = a description
//     const PlanResult r = makePlan(in);
//     if (r.plan) write(planToShell(*r.plan));   // both commands, and why
//
// Stage one: `--dataset_repeat 1`, `--output_path` the cache, `--task T:data_process`,
// `--offload_models` the entries whose models no stage-one unit calls. Stage two:
// `--dataset_base_path` the cache, no `--dataset_metadata_path`, `--task T:train`,
// `--offload_models` the entries stage two does not need (the models of its units, of
// the loss and the trained ones). With `prune`, the entries are removed from the model
// flags instead. Every other flag is kept as written.
//
// Each model entry (of --model_id_with_origin_paths and --model_paths) is mapped to the
// pipeline's model attributes, and the plan says how: "files" (the entry's safetensors
// files, found where DiffSynth looks for them, hashed as DiffSynth hashes them, looked
// up in the checkout's model_configs.py and joined with what from_pretrained fetches),
// "configs" (no files: the example comment in model_configs.py that names this entry,
// checked against its names, which win when they disagree, with a warning), "names"
// (the entry's path names the attribute: text_encoder/ for text_encoder, transformer/
// for dit), or "user" (`models`). An entry that none of these decides is
// an error that says what was tried; nothing is guessed. The units of each stage are
// DiffSynth's seed split for the command's --trainable_models and --lora_base_model,
// computed as DiffSynth computes them (no blanks trimmed); both commands are read back
// and checked to give that same split.

struct PlanInput {
    std::string script;     // a .sh file's text, or the command
    std::string scriptName; // for messages
    int line = 0;           // the train.py command that starts on this line; 0: the only one
    std::string checkout;   // a DiffSynth-Studio checkout: the pipeline comes from the train.py the command runs
    std::optional<Pipeline> pipeline; // else this description (no from_pretrained: entries resolve by names)
    std::string workdir = ".";        // where the command runs (relative model and dataset paths)
    std::string modelBase;            // the model base folder; empty: the checkout's variable, else its default
    std::map<std::string, std::string> environment; // the user's, for the model base variable
    std::string cachePath;            // stage one's --output_path; empty: OUTPUT-cache
    std::string outputPath;           // stage two's --output_path; empty: the command's
    std::vector<std::pair<std::string, std::vector<std::string>>> models; // user: entry -> attributes
    bool prune = false;
    // Another training choice than the command's: its --trainable_models and
    // --lora_base_model are replaced (the app's training panel).
    std::optional<TrainingConfig> training;
};

struct PlannedModel {
    std::string flag;  // "model_id_with_origin_paths" or "model_paths"
    std::string entry; // as written in the command
    std::vector<std::string> models; // pipeline model attributes (one file can hold several)
    std::string resolvedBy;          // "files", "configs", "names" or "user"
    std::string how;                 // for people: the hash and where it is listed, the name matched, ...
    std::vector<std::string> files;
    std::optional<std::uint64_t> bytes;
    bool stageOne = false; // needed in stage one
    bool stageTwo = false;
};

struct PlannedStage {
    std::string task; // "sft:data_process"
    std::vector<std::string> units;
    std::vector<std::string> models;  // the model attributes it needs of those the command loads
    std::vector<std::string> offload; // the entries it offloads (or, with prune, removes)
    std::string command;
};

struct Plan {
    std::string pipeline;
    Pipeline description; // what was planned against: imported from the train.py, or given
    TrainingConfig trainingConfig; // the command's --trainable_models and --lora_base_model
    std::string trainScript;                        // the train.py the command runs, as written
    std::vector<std::string> modelsRequiringBackward; // as DiffSynth builds the list
    std::string training;                            // "--lora_base_model dit"
    std::vector<PlannedModel> models;
    PlannedStage stageOne;
    PlannedStage stageTwo;
    std::vector<std::string> hazards; // of DiffSynth's split for this training, with what to do
    std::vector<std::string> warnings;
    bool prune = false;
    std::string source;  // the script's name and line of the command
    std::string workdir; // where the commands run
};

struct PlanResult {
    std::optional<Plan> plan;
    Diagnostics diagnostics; // errors name the file and line (of the script, the checkout, the description)
};

PlanResult makePlan(const PlanInput &input);

// One `--model` value, "ENTRY=ATTR[,ATTR]" (the last '=' splits: entries may hold one),
// into `mapping`; false with `error` saying what is wrong with it.
bool parseModelMapping(const std::string &value, std::pair<std::string, std::vector<std::string>> &mapping,
    std::string &error);

// For people; `splitscope.plan/1` JSON; a runnable script with both commands and a
// comment block saying what was decided and why.
std::string planToText(const Plan &plan);
std::string planToJson(const Plan &plan);
std::string planToShell(const Plan &plan);

} // namespace splitscope::plan
