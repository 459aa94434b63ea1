// SPDX-License-Identifier: MIT
#pragma once

#include "ModuleSet.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::importer {

// A value the importer can know without running Python: literals and what is built from them. Everything else
// is Unresolved, with the reason and where it is.
struct Value {
    enum class Kind { None, Bool, Number, String, Sequence, Dict, Unresolved };
    Kind kind = Kind::Unresolved;
    bool boolean = false;
    std::string text;                                    // String: the value; Number: the literal; Unresolved: why
    std::vector<Value> items;                            // Sequence
    std::vector<std::pair<std::string, Value>> entries; // Dict (str keys only), in insertion order
    bool tuple = false;                                  // Sequence written as a tuple
    bool parenthesized = false;                          // a String written as ("x"): the trailing-comma pitfall
    std::vector<std::string> literals;                   // a String of adjacent literals ("a" "b"): each one's text
    const PythonModule *module = nullptr;                // where the expression is
    int line = 0;
    int column = 0;

    bool isUnresolved() const { return kind == Kind::Unresolved; }
    std::string typeName() const;
};

using Locals = std::map<std::string, Value>;

// Python's truth value of a known value (Unresolved is false; check first).
bool truthValue(const Value &value);

// A str of adjacent literals that Python joins ("height" "width"), where names belong: most likely a missing comma.
// Not when a literal is empty or two meet at an underscore ("use_gradient" "_checkpointing" is on purpose).
bool looksLikeMissingComma(const Value &value);

// Evaluates the literal subset of Python: literals, displays, names of locals and module-level constants (also
// imported ones), `+`, tuple()/list()/set()/dict(), subscripts with a literal key, `not` and `A if C else B`.
// Anything else is Unresolved. Constants are memoized, and nesting and sizes bounded.
class ValueEvaluator {
public:
    static constexpr int kMaxDepth = 64;
    static constexpr std::size_t kMaxItems = 10000;
    static constexpr std::size_t kMaxStringBytes = 65536;

    explicit ValueEvaluator(const ModuleSet &modules) : m_modules(modules) {}

    Value evaluate(const PythonModule &module, NodeId expr, const Locals *locals = nullptr)
    {
        return eval(module, expr, locals, 0);
    }

private:
    Value eval(const PythonModule &module, NodeId expr, const Locals *locals, int depth);
    Value name(const PythonModule &module, NodeId e, const Locals *locals, int depth);
    Value call(const PythonModule &module, NodeId e, const Locals *locals, int depth);
    Value add(const Value &left, const Value &right, const PythonModule &module, NodeId e);
    Value subscript(const PythonModule &module, NodeId e, const Locals *locals, int depth);

    const ModuleSet &m_modules;
    struct Memo {
        Value value;
        bool inProgress = false;
    };
    std::map<const Constant *, Memo> m_constants; // memoized, `inProgress` marks a cycle
};

// `v` at the position of `e` in `module`.
Value located(Value v, const PythonModule &module, NodeId e);
// An Unresolved value saying `why`, at the position of `e` in `module`.
Value unresolved(const PythonModule &module, NodeId e, std::string why);
// The str `text`, where `base` is.
Value stringValue(Value base, std::string text);

} // namespace splitscope::importer
