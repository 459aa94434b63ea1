// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace splitscope {

// The in-memory form of a `splitscope.pipeline/1` document (DESIGN.md §2): an
// ordered list of DiffSynth pipeline units with their declared inputs, outputs and
// models, the loss, and the training configuration. Plain values, no behaviour
// beyond DiffSynth's `fetch_*_params` accessors; PipelineFile.h reads and writes it.

constexpr const char *kPipelineFormat = "splitscope.pipeline/1";

// `{process-arg: pipeline-param}` in declaration order.
using ParamMap = std::vector<std::pair<std::string, std::string>>;

// A field declared as a list that the document gave as a single string. DiffSynth
// writes `("noise")` without a trailing comma, which Python reads as a string; we
// read it as a one-element list (and warn). The bit remembers the original form so
// that saving gives back the same document.
enum ScalarListField : unsigned {
    kInputParamsWasString = 1u << 0,
    kOutputParamsWasString = 1u << 1,
    kOnloadModelNamesWasString = 1u << 2,
    kInputParamsWasNull = 1u << 3,
    kOutputParamsWasNull = 1u << 4,
};

// Keys we do not know, kept verbatim (raw JSON text) so that saving loses nothing.
using ExtraMembers = std::vector<std::pair<std::string, std::string>>;

struct SourceLocation {
    int line = 0; // 1-based; 0 when the value was not read from text
    int column = 0;
};

// What a unit's process() really does, read from its source by the DiffSynth importer
// (DESIGN.md §1.2): a model it calls, a param it reads from the inputs, or a key it
// returns, with where. `from` and `random` belong to returned keys: the inputs the
// value is computed from, and whether it carries random draws.
struct BodyFact {
    std::string name; // the model or the param
    std::string file; // the source file's name, without folders
    int line = 0;
    std::vector<std::string> from;
    bool random = false;
    ExtraMembers extra;
};

struct Unit {
    std::string name;
    std::vector<std::string> inputParams;
    std::optional<ParamMap> inputParamsPosi;
    std::optional<ParamMap> inputParamsNega;
    std::vector<std::string> outputParams;
    std::optional<std::vector<std::string>> onloadModelNames; // nullopt = null (calls no model)
    std::optional<bool> seperateCfg; // DiffSynth's spelling; runner flags, ignored by the split
    std::optional<bool> takeOver;
    std::optional<bool> stochastic; // draws random numbers (noise, timesteps)
    std::optional<std::string> doc;
    // Read from process() (nullopt: not read, nothing to check): the models it calls
    // ("uses_models"), the params it reads ("reads") and the keys it returns ("returns").
    std::optional<std::vector<BodyFact>> usesModels;
    std::optional<std::vector<BodyFact>> reads;
    std::optional<std::vector<BodyFact>> returns;
    unsigned scalarListFields = 0;
    ExtraMembers extra;
    SourceLocation location;

    // DiffSynth's fetch_input_params: sorted(set(input_params + posi values + nega values)).
    std::vector<std::string> fetchInputParams() const;
    // DiffSynth's fetch_output_params: output_params in declared order.
    const std::vector<std::string> &fetchOutputParams() const { return outputParams; }
    bool isStochastic() const { return stochastic.value_or(false); }
    // DiffSynth's `model in onload_model_names`: membership in the list, or, when the
    // document gave a string, a substring test on it ("vae" in "video_vae_encoder").
    bool callsModel(const std::string &model) const;
    bool onloadModelNamesIsString() const { return (scalarListFields & kOnloadModelNamesWasString) != 0; }
};

struct ModelSpec {
    std::string name;
    std::optional<double> params; // parameter count, for memory estimates
    std::optional<std::string> dtype;
    bool writtenAsObject = false;
    ExtraMembers extra;
};

struct LossSpec {
    std::string name;
    // nullopt: not declared, the loss may read every param.
    std::optional<std::vector<std::string>> inputParams;
    bool inputParamsWasString = false;
    ExtraMembers extra;
    // Params the loss writes before anything reads them (FlowMatchSFTLoss rebuilds
    // `latents` from fresh noise): what stage one left there is never used.
    std::optional<std::vector<std::string>> outputParams;
    // The models the loss runs (DiffSynth: in_iteration_models, handed to model_fn):
    // stage two must load them. nullopt: not said.
    std::optional<std::vector<std::string>> models;
};

// A pipeline document's `training` block, as written (TrainingChoice.h is the choice
// it makes).
struct TrainingConfig {
    std::optional<std::string> loraBaseModel;
    std::optional<std::string> trainableModels; // comma-separated
    ExtraMembers extra;

    // TrainingChoice::fromConfig(*this).modelsRequiringBackward() and modelsLabel().
    std::vector<std::string> modelsRequiringBackward() const;
    std::string label() const;
};

struct Pipeline {
    std::string format = kPipelineFormat;
    std::string name;
    std::optional<std::string> source;
    std::vector<ModelSpec> models;
    // `models` was a lone string, read as a one-element list (see ScalarListField):
    // saved as a string again while it holds one model written by name.
    bool modelsWasString = false;
    std::vector<Unit> units;
    std::optional<LossSpec> loss;
    std::optional<TrainingConfig> training;
    std::optional<std::vector<TrainingConfig>> alternativeTraining;
    ExtraMembers extra;

    // Index of the unit with this name, or -1.
    int findUnit(const std::string &unitName) const;
    std::vector<std::string> modelNames() const;
    // The training block, or an empty configuration when the document has none.
    TrainingConfig trainingOrDefault() const { return training.value_or(TrainingConfig{}); }
};

// Splits "a, b,,c" into {"a","b","c"}.
std::vector<std::string> splitCommaList(const std::string &list);
// Whether a non-empty `list` has a piece that splitCommaList drops (`a,,b`, `a, `):
// an entry that names nothing, which the command line warns about.
bool commaListHasEmptyEntry(const std::string &list);

} // namespace splitscope
