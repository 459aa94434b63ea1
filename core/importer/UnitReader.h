// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include "core/Pipeline.h"

#include <string>

namespace splitscope::importer {

// Reads one DiffSynth pipeline unit (a subclass of PipelineUnit) statically: the arguments its __init__ passes to
// PipelineUnit.__init__ become the unit's declaration (DESIGN.md §2), as DiffSynth stores them, through locals,
// constructor parameters and base unit classes. What cannot be read is a warning where it is written: a str where a
// tuple belongs is read as a one-element list with Unit::scalarListFields set (string-as-list), as the core's loader
// does; adjacent literals are read as Python joins them (missing-comma). `stochastic` is a heuristic (outputs `noise`,
// or calls a random-number function: randomCallName), said by an info diagnostic (stochastic-inferred).
class UnitReader {
public:
    explicit UnitReader(ImportContext &context) : m_context(context) {}

    // The declaration of `cls` constructed with `arguments`, named after the class.
    Unit read(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments);

    // Whether its bases lead to PipelineUnit.
    bool isUnitClass(const PythonModule &module, const ClassDef &cls, int depth = 0) const;

    static const std::vector<std::string> &fieldNames();
    // A unit as PipelineUnit.__init__ leaves it without arguments: False, False, None for every list and dict.
    static void setDefaults(Unit &unit);
    // `FIELD is ("a" "b"), adjacent str literals that Python joins into the one str "ab": most likely a comma is
    // missing, as in ("a", "b")`: how a missing-comma warning about a whole field starts.
    static std::string missingCommaMessage(const std::string &field, const Value &value);

private:
    void readInit(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments, Unit &unit,
        int depth);
    void passToBase(const PythonModule &module, const BaseClass &base, const CallArguments &arguments, Unit &unit,
        int depth);
    void applyPipelineUnitArguments(const PythonModule &module, const CallArguments &arguments, Unit &unit);
    void applyField(const PythonModule &module, const std::string &field, const Value &value, Unit &unit);
    void applyNames(const PythonModule &module, const std::string &field, const Value &value, Unit &unit);
    void inferStochastic(const PythonModule &module, const ClassDef &cls, Unit &unit);
    bool callsRandom(const PythonModule &module, const ClassDef &cls, std::string &why, int depth) const;

    ImportContext &m_context;
    std::string m_unitName; // for diagnostics: the class being read
};

} // namespace splitscope::importer
