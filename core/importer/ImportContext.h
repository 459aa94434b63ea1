// SPDX-License-Identifier: MIT
#pragma once

#include "ModuleSet.h"
#include "PythonValue.h"

#include "core/Diagnostic.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace splitscope::importer {

// What the readers of one import share: the modules, one value evaluator, and the diagnostics (capped).
class ImportContext {
public:
    static constexpr std::size_t kMaxDiagnostics = 1000;

    ImportContext(const ModuleSet &modules, Diagnostics &diagnostics)
        : m_modules(modules), m_evaluator(modules), m_diagnostics(diagnostics)
    {
    }

    const ModuleSet &modules() const { return m_modules; }
    ValueEvaluator &evaluator() { return m_evaluator; }

    // A model attribute's class may live outside the import (a checkout's diffsynth/models/): findClass asks the
    // loader when the modules have none.
    using ClassLoader = std::function<ModuleSet::Found<ClassDef>(const PythonModule &, const std::string &)>;
    void setClassLoader(ClassLoader loader) { m_classLoader = std::move(loader); }
    ModuleSet::Found<ClassDef> findClass(const PythonModule &from, const std::string &name) const
    {
        const ModuleSet::Found<ClassDef> found = m_modules.findClass(from, name);
        return found || !m_classLoader ? found : m_classLoader(from, name);
    }

    // `where` is the Python-side place ("QwenImageUnit_X.output_params"). Repeats are dropped: a unit shared by
    // several pipelines is read once per pipeline.
    void report(Severity severity, const char *code, const PythonModule &module, int line, int column,
        std::string where, std::string message);
    // At the node `at` of `module`.
    void report(Severity severity, const char *code, const PythonModule &module, NodeId at, std::string where,
        std::string message)
    {
        if (at == kNoNode) // no place to name: the file alone
            return report(severity, code, module, 0, 0, std::move(where), std::move(message));
        const AstNode &n = module.tree().node(at);
        report(severity, code, module, n.line, n.column, std::move(where), std::move(message));
    }
    // Where a value came from (an Unresolved value: the part that was not resolved).
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

bool contains(const std::vector<std::string> &list, std::string_view item);
std::string joined(const std::vector<std::string> &items, const char *separator);

struct CallArguments {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keywords;
    std::vector<Value> unknownSpreads; // `*args` / `**kwargs` whose contents are not known
};

// The arguments of the Call `call`, less `skip` leading positional ones (`self` in `Base.__init__(self, ...)`).
CallArguments evaluateCallArguments(ImportContext &context, const PythonModule &module, NodeId call,
    const Locals *locals, std::size_t skip = 0);

// Binds `arguments` to the parameters of `function` as Python would (`self` skipped for methods); what does not fit
// is a warning at `where`.
Locals bindParameters(ImportContext &context, const PythonModule &module, const FunctionDef &function,
    const CallArguments &arguments, bool isMethod, const std::string &where);

struct BaseClass {
    std::string name;                      // the name it stands for, aliases resolved ("PipelineUnit")
    ModuleSet::Found<ClassDef> definition; // its class statement in the set, when there is one
    NodeId node = kNoNode;                 // where it is named
};
std::vector<BaseClass> baseClasses(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls);

// False only when every base of `cls` leads, through classes found, to none, `object`, ABC or Protocol.
bool isTorchModule(const ImportContext &context, const PythonModule &module, const ClassDef &cls);

// The method `name` of `cls` or of its nearest base class in the set (PipelineUnit's stubs left out).
ModuleSet::Found<FunctionDef> findMethod(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls,
    const std::string &name, int depth = 0);

// The call `super().__init__(...)`, `super(X, self).__init__(...)` or `Base.__init__(self, ...)` an expression is.
struct SuperInitCall {
    NodeId call = kNoNode;
    std::size_t skip = 0;     // 1 for Base.__init__(self, ...): `self` is not an argument of the base
    std::string explicitBase; // "Base" for Base.__init__, empty for super()
};
std::optional<SuperInitCall> superInitCall(const AstTree &tree, NodeId expression);

// "torch.randn" for a callee ({"torch", "randn"}) that draws random numbers (randn, normal_, ..., anything in a
// `random` module), else "".
std::string randomCallName(const std::vector<std::string> &chain);
// The first such call under `node`.
struct RandomCall {
    std::string name; // "torch.randn"
    int line = 0;
};
std::optional<RandomCall> randomCall(const AstTree &tree, NodeId node);

// The statements of a function body in order, with the blocks they run in; nested definitions left out.
struct BodyStatement {
    NodeId statement = kNoNode;
    bool conditional = false; // inside if/else, a try's except or else, a loop or a match case: may not run
    bool loop = false;        // inside for/while: may run many times
};
std::vector<BodyStatement> flattenBody(const AstTree &tree, NodeId function);

} // namespace splitscope::importer
