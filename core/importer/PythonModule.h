// SPDX-License-Identifier: MIT
#pragma once

#include "core/python/PythonAst.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// The importer reads CPython's syntax trees (core/python).
using python::AstNode;
using python::AstTree;
using python::isContinuationByte;
using python::kNoNode;
using python::NodeId;
using python::shortened;

struct Parameter {
    enum class Kind { Positional, VarPositional, KeywordOnly, VarKeyword };
    std::string name;
    Kind kind = Kind::Positional;
    NodeId defaultValue = kNoNode;
    NodeId node = kNoNode; // the `arg`
};

struct FunctionDef {
    std::string name;
    std::vector<Parameter> parameters; // `self` included for methods
    NodeId node = kNoNode;             // the FunctionDef or AsyncFunctionDef

    int parameterIndex(const std::string &name) const;
};

struct ClassDef {
    std::string name;
    std::vector<NodeId> bases;
    std::vector<FunctionDef> methods;
    std::optional<std::string> docstring; // cleaned as inspect.cleandoc does
    NodeId node = kNoNode;

    const FunctionDef *method(const std::string &methodName) const;
};

// `from MODULE import NAME as ALIAS` binds ALIAS to {MODULE, NAME}; `import A.B as C` binds C to {A.B, ""}.
struct ImportedName {
    std::string module; // relative dots kept (".qwen_image", "..diffusion.base_pipeline")
    std::string name;
};

// A module-level `NAME = value`.
struct Constant {
    NodeId value = kNoNode;
    int assignments = 0; // more than one: the value depends on execution order
};

// One Python module: CPython's syntax tree and an index of its top level (classes, functions, constants, and the
// names its imports bind, also in top-level if/try blocks). Source CPython refuses leaves it empty, syntaxError() set.
class PythonModule {
public:
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
    const std::map<std::string, ImportedName> &imports() const { return m_imports; }
    const std::map<std::string, Constant> &constants() const { return m_constants; }

    const ClassDef *findClass(const std::string &name) const;
    const FunctionDef *findFunction(const std::string &name) const;

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
    // The last class / function of a name, the one Python keeps.
    std::map<std::string, std::size_t> m_classIndex;
    std::map<std::string, std::size_t> m_functionIndex;
    std::string m_syntaxError;
    int m_syntaxErrorLine = 0;
    int m_syntaxErrorColumn = 0;
};

// A statement read as an assignment: `a = b = value`, `a: T = value`, `a += value`.
struct Assignment {
    std::vector<NodeId> targets;
    NodeId annotation = kNoNode; // `a: T = v`
    NodeId value = kNoNode;      // none for a bare annotation `a: T`
    std::string augmented;       // "+=" etc. for augmented assignment
};
std::optional<Assignment> readAssignment(const AstTree &tree, NodeId statement);

// The names of an attribute chain: {"torch", "randn"} for `torch.randn`, {"b", "c"} for `f().b.c` (a root that is
// not a name is left out); empty for anything else.
std::vector<std::string> attributeChain(const AstTree &tree, NodeId id);

// `self.NAME` (or `OBJECT.NAME` for another name): NAME; empty otherwise.
std::string attributeOf(const AstTree &tree, NodeId id, std::string_view object = "self");

} // namespace splitscope::importer
