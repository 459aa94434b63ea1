// SPDX-License-Identifier: MIT
#pragma once

#include "ModuleSet.h"
#include "PythonValue.h"

#include "core/Diagnostic.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::importer {

// What the readers of one import share: the modules, one value evaluator (its
// memo of constants), and the diagnostics, capped so that hostile input cannot
// make the list itself the problem.
class ImportContext {
public:
    // Past this many diagnostics one more says that the rest were left out.
    static constexpr std::size_t kMaxDiagnostics = 1000;

    ImportContext(const ModuleSet &modules, Diagnostics &diagnostics)
        : m_modules(modules), m_evaluator(modules), m_diagnostics(diagnostics)
    {
    }

    const ModuleSet &modules() const { return m_modules; }
    ValueEvaluator &evaluator() { return m_evaluator; }

    // Classes a model attribute's annotation names (`self.dit: QwenImageDiT`) may live in
    // files outside the import (a checkout's diffsynth/models/), which a loader reads on
    // demand. findClass looks in the modules first, then asks the loader.
    using ClassLoader = std::function<ModuleSet::Found<ClassDef>(const PythonModule &, const std::string &)>;
    void setClassLoader(ClassLoader loader) { m_classLoader = std::move(loader); }
    ModuleSet::Found<ClassDef> findClass(const PythonModule &from, const std::string &name) const
    {
        const ModuleSet::Found<ClassDef> found = m_modules.findClass(from, name);
        return found || !m_classLoader ? found : m_classLoader(from, name);
    }

    // `where` is the Python-side location ("QwenImageUnit_X.output_params"); it goes
    // into Diagnostic::jsonPath.
    void report(Severity severity, const char *code, const PythonModule &module, int line, int column,
        std::string where, std::string message)
    {
        if (m_diagnostics.size() > kMaxDiagnostics)
            return;
        // A unit shared by several pipelines is read once per pipeline; say things once.
        if (!m_seen.insert(std::string(code) + '\n' + module.fileName() + '\n' + std::to_string(line) + ':'
                + std::to_string(column) + '\n' + where + '\n' + message)
                 .second)
            return;
        Diagnostic d;
        d.severity = severity;
        d.code = code;
        d.file = module.fileName();
        d.jsonPath = std::move(where);
        d.line = line;
        d.column = column;
        d.message = std::move(message);
        if (m_diagnostics.size() == kMaxDiagnostics) {
            d.severity = Severity::Warning; // visible without --verbose: the list is incomplete
            d.code = "too-many-diagnostics";
            d.jsonPath.clear();
            d.message = "more than " + std::to_string(kMaxDiagnostics) + " diagnostics; the rest are not listed";
        }
        m_diagnostics.push_back(std::move(d));
    }

    // At the position a value came from (for Unresolved values: the part that was not resolved).
    void report(Severity severity, const char *code, const Value &at, const PythonModule &fallback, std::string where,
        std::string message)
    {
        report(severity, code, at.module ? *at.module : fallback, at.line, at.column, std::move(where),
            std::move(message));
    }

private:
    const ModuleSet &m_modules;
    ClassLoader m_classLoader;
    ValueEvaluator m_evaluator;
    Diagnostics &m_diagnostics;
    std::set<std::string> m_seen;
};

// Arguments of a call, evaluated where the call is written.
struct CallArguments {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keywords;
    // `*args` / `**kwargs` whose contents are not known: what they pass is unknown.
    std::vector<Value> unknownSpreads;
};

// Evaluates the arguments of the Call node `call`; `skip` leading positional
// arguments are dropped (the explicit `self` of `Base.__init__(self, ...)`).
CallArguments evaluateCallArguments(ImportContext &context, const PythonModule &module, NodeId call,
    const Locals *locals, std::size_t skip = 0);

// Binds `arguments` to the parameters of `function` (defaults evaluated in the
// function's module) as Python would; the first parameter (`self`) is skipped for
// methods. Arguments that fit no parameter and required parameters left without a
// value are warnings at `where`; unknown values become Unresolved locals.
Locals bindParameters(ImportContext &context, const PythonModule &module, const FunctionDef &function,
    const CallArguments &arguments, bool isMethod, const std::string &where);

// One base class as written in `class X(Base):`.
struct BaseClass {
    std::string name;                        // the name it stands for, aliases resolved ("PipelineUnit")
    ModuleSet::Found<ClassDef> definition;   // its class statement in the set, when there is one
    int line = 0;
    int column = 0;
};
std::vector<BaseClass> baseClasses(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls);

// Whether `cls` is a torch.nn.Module: false only when every base leads, through classes
// found, to none at all, `object`, ABC or Protocol (a tokenizer, a patchifier).
bool isTorchModule(const ImportContext &context, const PythonModule &module, const ClassDef &cls);

// The method `name` of `cls`, or of the nearest base class in the set that has one
// (PipelineUnit's own stubs left out).
ModuleSet::Found<FunctionDef> findMethod(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls,
    const std::string &name);

// The call `super().__init__(...)`, `super(X, self).__init__(...)` or `Base.__init__(self, ...)`
// that an expression is.
struct SuperInitCall {
    NodeId call = kNoNode;
    std::size_t skip = 0;          // 1 for Base.__init__(self, ...): `self` is not an argument of the base
    std::string explicitBase;      // "Base" for Base.__init__, empty for super()
};
std::optional<SuperInitCall> superInitCall(const AstTree &tree, NodeId expression);

// The dotted name of a call that draws random numbers, from its callee's chain of
// names ({"torch", "randn"}), or "": a function named generate_noise, randn,
// randn_like, rand, rand_like, randint, randint_like, randperm, normal, normal_,
// uniform_, bernoulli, bernoulli_, multinomial, poisson, exponential_, geometric_,
// cauchy_, log_normal_, random_, sample or rsample, or anything reached through a
// `random` module (random.x, np.random.x, torch.random.x).
std::string randomCallName(const std::vector<std::string> &chain);
// The first such call in the subtree of `node`.
struct RandomCall {
    std::string name; // "torch.randn"
    int line = 0;
};
std::optional<RandomCall> randomCall(const AstTree &tree, NodeId node);

// Statements of a function body in order, with the block context they run in;
// nested function and class definitions are left out (they do not run there).
struct BodyStatement {
    NodeId statement = kNoNode;
    bool conditional = false; // inside if/else/try/except/while/match/with: may not run
    bool loop = false;        // inside for/while: may run many times
};
std::vector<BodyStatement> flattenBody(const AstTree &tree, NodeId function);

} // namespace splitscope::importer
