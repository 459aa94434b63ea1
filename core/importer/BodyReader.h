// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include "core/Pipeline.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::importer {

// Reads what a unit's process() really does (DESIGN.md §1.2) into Unit::usesModels,
// reads and returns, following the unit's own helper methods (`self.encode(pipe, x)`)
// and the pipeline's (`pipe.encode_prompt(...)`) one level deep:
//
// * models called: `pipe.X(...)` and `pipe.X.method(...)` where X is a model attribute
//   of the pipeline, also through a local alias (`enc = pipe.text_encoder; enc(...)`)
//   or a helper's parameter that receives one, and a model passed to a call (`f(pipe.dit)`,
//   but not to getattr, isinstance, ...); bookkeeping methods (`pipe.vae.to(...)`,
//   `.eval()`, `.parameters()`, ...), methods of the model's class that never use `self`
//   and settings (`pipe.dit.in_dim`) are no calls;
// * params read: process()'s parameters as DiffSynth's runner binds them (a
//   seperate_cfg unit's posi/nega arguments read both params they map to; a parameter
//   the unit does not declare is read under its own name), the keys a take-over unit
//   reads from inputs_shared/_posi/_nega, and the keys read from a **kwargs parameter;
// * keys returned: of dict displays, dict() calls, a local dict filled by `d[k] = v` and
//   `d.update(...)`, a helper's returns, and what a take-over unit writes into the
//   input dicts. Each key with the params its value is computed from (assignments,
//   calls and mutations of locals, followed without regard to control flow) and
//   whether it carries random draws (a random-number call, ImportContext.h). When a
//   return cannot be read (a key computed at run time, a value from elsewhere),
//   `returns` stays unset and an info diagnostic (returns-unknown) says where.
//
// Each fact names the file (without folders) and line. Bounded: helpers are followed
// one level, fixed points over a function's assignments stop after kMaxRounds.
class BodyReader {
public:
    static constexpr int kMaxRounds = 16;

    // The pipeline the units run in: its class (for `pipe.method` helpers) and model attributes.
    struct PipelineInfo {
        const PythonModule *module = nullptr;
        const ClassDef *cls = nullptr;
        std::vector<std::string> models;
        // The classes of model attributes, where found: a method of one that never uses
        // `self` (patchify, prepare_image_ids) computes nothing with the model's weights.
        std::map<std::string, ModuleSet::Found<ClassDef>> modelClasses;
    };

    explicit BodyReader(ImportContext &context) : m_context(context) {}

    void read(const PythonModule &module, const ClassDef &cls, const PipelineInfo &pipeline, Unit &unit);

    // What a loss function does with its **inputs, in order: the keys it reads (itself,
    // or through `pipe.model_fn(**inputs)`: model_fn's parameters less what it passes
    // explicitly and the models), and the keys it writes before any read.
    struct LossFacts {
        std::vector<std::string> reads;
        std::vector<std::string> writes;
    };
    static std::optional<LossFacts> readLoss(const PythonModule &module, const FunctionDef &loss,
        const std::vector<std::string> &modelFnParameters, const std::vector<std::string> &models);

private:
    struct Function;
    struct Taint;
    Function analyze(const PythonModule &module, const FunctionDef &fn, const std::string &pipe,
        const std::vector<std::pair<std::string, Taint>> &bound, int depth);

    ImportContext &m_context;
    const PipelineInfo *m_pipeline = nullptr;
    const ClassDef *m_unitClass = nullptr;
    const PythonModule *m_unitModule = nullptr;
    const Unit *m_unit = nullptr;
};

} // namespace splitscope::importer
