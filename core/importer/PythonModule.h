// SPDX-License-Identifier: MIT
#pragma once

#include "PythonAst.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// One Python module as the readers see it: CPython's syntax tree (PythonParser.h)
// and an index of what the module defines at its top level: classes (bases, methods,
// docstring), functions, module-level constants and the names its imports bind
// (also inside top-level if/try blocks, where optional dependencies are imported).
// Source that CPython refuses leaves the module empty with syntaxError() set.

struct Parameter {
    enum class Kind { Positional, VarPositional, KeywordOnly, VarKeyword };
    std::string name;
    Kind kind = Kind::Positional;
    NodeId defaultValue = kNoNode;
    int line = 0;
    int column = 0;
};

struct FunctionDef {
    std::string name;
    std::vector<Parameter> parameters; // `self` included for methods
    NodeId node = kNoNode;             // the FunctionDef or AsyncFunctionDef
    int line = 0;
    int column = 0;

    // The index of the parameter named `name`, or -1.
    int parameterIndex(const std::string &name) const;
};

struct ClassDef {
    std::string name;
    std::vector<NodeId> bases;
    std::vector<FunctionDef> methods;
    std::optional<std::string> docstring; // cleaned as inspect.cleandoc does
    NodeId node = kNoNode;
    int line = 0;
    int column = 0;

    const FunctionDef *method(const std::string &methodName) const;
};

// `from MODULE import NAME as ALIAS` binds ALIAS to {MODULE, NAME};
// `import A.B as C` binds C to {A.B, ""}.
struct ImportedName {
    std::string module; // relative dots kept (".qwen_image", "..diffusion.base_pipeline")
    std::string name;
    int line = 0;
};

// A module-level `NAME = value`.
struct Constant {
    NodeId value = kNoNode;
    int line = 0;
    int column = 0;
    int assignments = 0; // more than one: the value depends on execution order
};

class PythonModule {
public:
    // `compile`: as parsePython's.
    static std::unique_ptr<PythonModule> read(std::string_view source, std::string fileName, bool compile = true);

    const std::string &fileName() const { return m_fileName; }
    // The file name without folders and without ".py" ("qwen_image").
    const std::string &stem() const { return m_stem; }

    bool ok() const { return m_syntaxError.empty(); }
    const std::string &syntaxError() const { return m_syntaxError; }
    int syntaxErrorLine() const { return m_syntaxErrorLine; }
    int syntaxErrorColumn() const { return m_syntaxErrorColumn; }

    const AstTree &tree() const { return m_tree; }
    const std::vector<ClassDef> &classes() const { return m_classes; }
    const std::vector<FunctionDef> &functions() const { return m_functions; }
    const std::map<std::string, ImportedName> &imports() const { return m_imports; }
    const std::map<std::string, Constant> &constants() const { return m_constants; }

    const ClassDef *findClass(const std::string &name) const;
    const FunctionDef *findFunction(const std::string &name) const;

    // The source text of a node, for messages ("input_params=make_params()").
    std::string describe(NodeId id) const { return m_tree.sourceText(id); }

    PythonModule(const PythonModule &) = delete;
    PythonModule &operator=(const PythonModule &) = delete;

private:
    PythonModule() = default;
    void index();
    void readImports(NodeId statement);

    std::string m_fileName;
    std::string m_stem;
    AstTree m_tree;
    std::vector<ClassDef> m_classes;
    std::vector<FunctionDef> m_functions;
    std::map<std::string, ImportedName> m_imports;
    std::map<std::string, Constant> m_constants;
    // Name -> index of the last class / function of that name (the one Python keeps).
    std::map<std::string, std::size_t> m_classIndex;
    std::map<std::string, std::size_t> m_functionIndex;
    std::string m_syntaxError;
    int m_syntaxErrorLine = 0;
    int m_syntaxErrorColumn = 0;
};

// A function's parameters as its `arguments` node lists them.
FunctionDef readFunction(const AstTree &tree, NodeId def);

// A statement read as an assignment: `a = b = value`, `a: T = value`, `a += value`.
struct Assignment {
    std::vector<NodeId> targets;
    NodeId annotation = kNoNode; // `a: T = v`
    NodeId value = kNoNode;      // none for a bare annotation `a: T`
    std::string augmented;       // "+=" etc. for augmented assignment
};
// nullopt when the statement is not an assignment.
std::optional<Assignment> readAssignment(const AstTree &tree, NodeId statement);

// The names of an attribute chain: {"torch", "randn"} for `torch.randn`, {"b", "c"} for
// `f().b.c` (a root that is not a name is left out); empty for anything else.
std::vector<std::string> attributeChain(const AstTree &tree, NodeId id);

// `self.NAME` (or `OBJECT.NAME` for another name): NAME; empty otherwise.
std::string attributeOf(const AstTree &tree, NodeId id, std::string_view object = "self");

} // namespace splitscope::importer
