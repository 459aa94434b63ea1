// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include "core/Pipeline.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::importer {

// Reads what a unit's process() really does (DESIGN.md §1.2), following the unit's and the pipeline's helper
// methods one level: the models it calls (Unit::usesModels; not bookkeeping such as `pipe.vae.to(...)`), the params
// it reads (its parameters as DiffSynth's runner binds them, and keys of the input dicts or **kwargs), and the keys
// it returns with the params and random draws their values come from. Returns it cannot list leave Unit::returns
// unset, with an info diagnostic (returns-unknown). Each fact names the file (without folders) and line.
class BodyReader {
public:
    static constexpr int kMaxRounds = 16;

    // The pipeline the units run in: its class (for `pipe.method` helpers) and model attributes.
    struct PipelineInfo {
        const PythonModule *module = nullptr;
        const ClassDef *cls = nullptr;
        std::vector<std::string> models;
        // The classes of model attributes, where found: a method of one that never uses `self` (patchify,
        // prepare_image_ids) computes nothing with the model's weights.
        std::map<std::string, ModuleSet::Found<ClassDef>> modelClasses;
    };

    explicit BodyReader(ImportContext &context) : m_context(context) {}

    void read(const PythonModule &module, const ClassDef &cls, const PipelineInfo &pipeline, Unit &unit);

    // What a loss function does with its **inputs: the keys it reads (itself, or through `pipe.model_fn(**inputs)`:
    // model_fn's parameters less what it passes explicitly and the models), and those it writes before any read.
    struct LossFacts {
        std::vector<std::string> reads;
        std::vector<std::string> writes;
    };
    static std::optional<LossFacts> readLoss(const PythonModule &module, const FunctionDef &loss,
        const std::vector<std::string> &modelFnParameters, const std::vector<std::string> &models);

private:
    struct Function;
    struct Taint;
    class Analysis;
    Function analyze(const PythonModule &module, const FunctionDef &fn, const std::string &pipe,
        const std::vector<std::pair<std::string, Taint>> &bound, int depth);

    ImportContext &m_context;
    const PipelineInfo *m_pipeline = nullptr;
    const ClassDef *m_unitClass = nullptr;
    const PythonModule *m_unitModule = nullptr;
    const Unit *m_unit = nullptr;
};

} // namespace splitscope::importer
