// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include "core/Pipeline.h"

#include <string>

namespace splitscope::importer {

// Reads one DiffSynth pipeline unit (a subclass of PipelineUnit) statically: the
// keyword arguments its __init__ passes to PipelineUnit.__init__ become the unit's
// declaration (DESIGN.md §2), exactly as DiffSynth stores them:
//
//   class QwenImageUnit_NoiseInitializer(PipelineUnit):
//       def __init__(self):
//           super().__init__(
//               input_params=("height", "width", "seed", "rand_device"),
//               output_params=("noise",),
//           )
//
// What it follows: literal tuples/lists/sets/dicts/strings/None/booleans and the
// constants ValueEvaluator resolves; local variables assigned before the call;
// the unit's own __init__ parameters bound to the arguments of the constructor
// call in `self.units` (or their defaults); subclasses of other unit classes
// (an __init__ that passes arguments up to its base's __init__, or no __init__ at
// all); `self.<field> = ...` after the call; positional arguments, mapped by
// DiffSynth's signature (seperate_cfg, take_over, input_params, output_params,
// input_params_posi, input_params_nega, onload_model_names).
//
// Everything else is a warning at the file and line where it is written, naming
// the unit and the argument: computed arguments (computed-argument), a
// parenthesized string where a tuple belongs (string-as-list; read as a one-element
// list with Unit::scalarListFields set, as the core's loader does), adjacent string
// literals where names belong, which Python joins into one ("height" "width"; a likely
// missing comma: missing-comma, read as Python reads it), values of the
// wrong type (wrong-type), unknown keywords (unknown-keyword), positional arguments
// (positional-argument), a call made only under a condition (conditional-init), an
// __init__ that never calls its base's (no-super-init), bases that do not lead to
// PipelineUnit (unknown-base-class).
//
// `stochastic` is a heuristic (the source cannot say it): a unit is marked
// stochastic when it outputs `noise`, or when its class (or a unit base class in
// the set) calls a random-number function: one named generate_noise, randn,
// randn_like, rand, rand_like, randint, randint_like, randperm, normal, normal_,
// uniform_, bernoulli, bernoulli_, multinomial, poisson, exponential_, geometric_,
// cauchy_, log_normal_, random_, sample or rsample, or anything reached through a
// `random` module (random.x, np.random.x, torch.random.x). Helpers outside the
// class are not followed. Each inference is an info diagnostic (stochastic-inferred)
// saying why; otherwise `stochastic` is left unset.
class UnitReader {
public:
    explicit UnitReader(ImportContext &context) : m_context(context) {}

    // The declaration of `cls` as constructed with `arguments` (the unit is named after the class).
    Unit read(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments);

    // Whether the bases of `cls` lead to a class named PipelineUnit.
    bool isUnitClass(const PythonModule &module, const ClassDef &cls) const;

    // DiffSynth's PipelineUnit.__init__ parameters, in its order.
    static const std::vector<std::string> &fieldNames();

private:
    void readInit(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments, Unit &unit,
        int depth);
    // The arguments of a call that reaches `base` (a base of the class being read).
    void passToBase(const PythonModule &module, const BaseClass &base, const CallArguments &arguments, Unit &unit,
        int depth);
    void applyPipelineUnitArguments(const PythonModule &module, const CallArguments &arguments, Unit &unit);
    void applyField(const PythonModule &module, const std::string &field, const Value &value, Unit &unit);
    void inferStochastic(const PythonModule &module, const ClassDef &cls, Unit &unit);
    bool callsRandom(const PythonModule &module, const ClassDef &cls, std::string &why, int depth) const;
    bool isUnitClass(const PythonModule &module, const ClassDef &cls, int depth) const;

    ImportContext &m_context;
    std::string m_unitName; // for diagnostics: the class being read
};

} // namespace splitscope::importer
