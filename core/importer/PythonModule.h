// SPDX-License-Identifier: MIT
#pragma once

#include "PythonExpression.h"
#include "PythonToken.h"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// The statement structure of one Python module: logical lines grouped into blocks by
// INDENT/DEDENT, with the module's classes (their bases, methods and docstring),
// functions, imports and module-level constants. Expressions are parsed on demand
// (ExpressionParser) into the module's arena.
//
// Reading never throws. Source that is not valid Python 3 leaves the module empty with
// syntaxError set (message, line and column of the first problem, as CPython's parser
// would reject the file): tokenizer errors, indentation (an unexpected indent, a
// compound statement without its indented block), and the grammar of every statement:
// compound headers end in ':' and read as their statement says (`for TARGETS in
// EXPRESSIONS:`, `def NAME(PARAMETERS) -> X:`, ...), a simple statement is one
// assignment, expression or keyword statement, targets (a comprehension's too) can be
// assigned to (findInvalidTarget), keywords are never names, attributes or argument
// names (a name written otherwise that NFKC makes one is a name: Token::normalized),
// elif/else/except/finally follow what they belong to, decorators precede a def or
// class, a class's bases are a call's
// arguments less a lone generator expression, case patterns follow PEP 634's grammar
// (`case 1 + 1:` is refused: '+' and '-' join a real and an imaginary number only),
// and string literals are ones CPython's parser takes (Token::literalError: valid UTF-8,
// ASCII bytes, known "\N{name}" characters, f-string fields whose expressions parse).
// Every valid Python 3 construct is accepted (f-strings, match, async, walrus,
// decorators, type hints, type parameters, `type X = ...`, lambda, star arguments).
// What the grammar leaves to CPython's compiler is reported when the grammar found nothing,
// as CPython compiles only what parsed: a starred expression outside a tuple, list, set or
// call arguments (`x = *a`, `*a = b`, `[x for *a in b]`), and what checkCompile finds
// (PythonCompileCheck.h: `return`, `yield` or `await` outside a function, a repeated keyword
// argument, a duplicate parameter, `break` outside a loop, global and nonlocal conflicts,
// ...), with its column in UTF-8 bytes as CPython's compiler counts it. Not checked: a name
// bound twice in a pattern and the compiler's other pattern rules, and expressions or
// patterns nested past ExpressionParser::kMaxExpressionDepth (the readers report them
// where they need them; a string literal in one is still checked).

// A half-open range [first, last) of token indices.
struct TokenRange {
    std::size_t first = 0;
    std::size_t last = 0;
    bool empty() const { return first >= last; }
};

struct Statement {
    TokenRange tokens;       // the logical line (a compound statement's header, up to and including ':')
    std::size_t end = 0;     // token index just past the whole statement, its block included
    int line = 0;
    int column = 0;
    std::vector<Statement> body; // the block a compound statement opens (or its inline body)
    bool compound = false;   // a compound statement's header (if, for, def, class, match, case, ...)
    bool block = false;      // `body` is an indented block (not the rest of the header's line)

    // First token's text when it is a name ("class", "def", "if", "for", ...), else empty.
    const std::string &keyword(const std::vector<Token> &tokens) const;
};

struct Parameter {
    enum class Kind { Positional, VarPositional, KeywordOnly, VarKeyword };
    std::string name;
    Kind kind = Kind::Positional;
    TokenRange defaultValue; // empty when none
    int line = 0;
    int column = 0;
};

struct FunctionDef {
    std::string name;
    std::vector<Parameter> parameters; // `self` included for methods
    const Statement *statement = nullptr;
    int line = 0;
    int column = 0;
};

struct ClassDef {
    std::string name;
    std::vector<int> bases; // expressions in the module's arena; -1 where a base did not parse
    std::vector<FunctionDef> methods;
    std::optional<std::string> docstring;
    const Statement *statement = nullptr;
    int line = 0;
    int column = 0;

    const FunctionDef *method(const std::string &methodName) const;
};

// `from MODULE import NAME as ALIAS` binds ALIAS to {MODULE, NAME};
// `import A.B as C` binds C to {A.B, ""}.
struct ImportedName {
    std::string module; // as written, relative dots kept (".qwen_image", "..diffusion.base_pipeline")
    std::string name;
    int line = 0;
};

// A module-level `NAME = value`.
struct Constant {
    TokenRange value;
    int line = 0;
    int column = 0;
    int assignments = 0; // more than one: the value depends on execution order
};

class PythonModule {
public:
    // The tokenizer's and the statement reader's limits apply (see PythonTokenizer.h).
    static std::unique_ptr<PythonModule> read(std::string_view source, std::string fileName);

    const std::string &fileName() const { return m_fileName; }
    // The file name without folders and without ".py" ("qwen_image").
    const std::string &stem() const { return m_stem; }

    bool ok() const { return m_syntaxError.empty(); }
    const std::string &syntaxError() const { return m_syntaxError; }
    int syntaxErrorLine() const { return m_syntaxErrorLine; }
    int syntaxErrorColumn() const { return m_syntaxErrorColumn; }

    const std::vector<Token> &tokens() const { return m_tokens; }
    const std::vector<Statement> &statements() const { return m_statements; }
    const std::vector<ClassDef> &classes() const { return m_classes; }
    const std::vector<FunctionDef> &functions() const { return m_functions; }
    const std::map<std::string, ImportedName> &imports() const { return m_imports; }
    const std::map<std::string, Constant> &constants() const { return m_constants; }

    const ClassDef *findClass(const std::string &name) const;
    const FunctionDef *findFunction(const std::string &name) const;

    // Parses tokens `range` as one expression list into the arena; -1 with `error`
    // (message, line, column) when it is not a valid expression.
    struct ParseError {
        std::string message;
        int line = 0;
        int column = 0;
    };
    int parseExpression(TokenRange range, ParseError *error = nullptr) const;
    const ExprArena &arena() const { return m_arena; }

    // The source text of a token range, tokens joined by single spaces where the
    // source had space (for messages: "input_params=make_params()").
    std::string describe(TokenRange range) const;

    PythonModule(const PythonModule &) = delete;
    PythonModule &operator=(const PythonModule &) = delete;

private:
    PythonModule() = default;

    void readStructure();
    void readClass(const Statement &statement);
    FunctionDef readFunction(const Statement &statement) const;
    void readImports(const Statement &statement);
    void readConstant(const Statement &statement);

    std::string m_fileName;
    std::string m_stem;
    std::string m_source;
    std::vector<Token> m_tokens;
    std::vector<Statement> m_statements;
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
    // Parsing on demand fills the arena from const readers; the module is otherwise immutable.
    mutable ExprArena m_arena;
};

// Statement helpers shared by the readers.

// Index of the first token in `range` at bracket depth 0 for which `match` holds, or range.last.
template <typename Match>
std::size_t findTopLevel(const std::vector<Token> &tokens, TokenRange range, Match match)
{
    int depth = 0;
    for (std::size_t i = range.first; i < range.last; ++i) {
        const Token &t = tokens[i];
        if (t.kind == TokenKind::Operator) {
            if (t.text == "(" || t.text == "[" || t.text == "{") {
                ++depth;
                continue;
            }
            if (t.text == ")" || t.text == "]" || t.text == "}") {
                --depth;
                continue;
            }
        }
        if (depth == 0 && match(t))
            return i;
    }
    return range.last;
}

// A simple statement read as an assignment: `a = b = value`, `a: T = value`, `a += value`.
struct Assignment {
    std::vector<TokenRange> targets;
    TokenRange annotation; // `a: T = v`
    TokenRange value;      // empty for a bare annotation `a: T`
    std::string augmented; // "+=" etc. for augmented assignment
};
// nullopt when the statement is not an assignment.
std::optional<Assignment> readAssignment(const std::vector<Token> &tokens, const Statement &statement);

} // namespace splitscope::importer
