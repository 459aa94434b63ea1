// SPDX-License-Identifier: MIT
#pragma once

#include "PythonToken.h"

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace splitscope::importer {

// The syntax tree of one Python expression, kept in an arena (nodes refer to each
// other by index, so no input can make destruction recurse). Adding nodes never
// moves the existing ones: references stay valid while more is parsed on demand.
enum class ExprKind {
    Name,          // text = identifier
    Attribute,     // items[0].text
    String,        // text = value (adjacent literals concatenated)
    Number,        // text = literal
    Constant,      // text = "None", "True", "False" or "..."
    Tuple,         // items = elements
    List,          // items = elements
    Set,           // items = elements
    Dict,          // items = key0, value0, key1, value1, ...; a key of -1 is `**mapping`
    Call,          // items[0] = callee, items[1..] = positional arguments; keywords
    Subscript,     // items[0] = object, items[1] = index
    Starred,       // items[0]; text = "*" or "**"
    Comprehension, // items[0] = element (a dict's: key, items[1] = value); text = "list", "set", "dict" or "generator"; clauses
    Operation,     // text = operator ("+", "not", "and", "<", "unary -", "if", "lambda", ":=", "await", "yield",
                   // "yield from", ...); items = operands (a lambda's: its body; keywords = its parameters)
    Slice,         // a:b:c inside a subscript
};

// One `for` clause of a comprehension: `[async] for TARGET in ITERABLE [if CONDITION]...`.
struct ExprClause {
    int target = -1;
    int iterable = -1;
    std::vector<int> conditions;
    bool async = false;
};

struct Expr {
    ExprKind kind = ExprKind::Constant;
    std::string text;
    int line = 0;
    int column = 0;
    std::vector<int> items;
    // Call: name=value ("**" for `**mapping`); lambda: its parameters, name and default (-1 when none).
    std::vector<std::pair<std::string, int>> keywords;
    // Where each of `keywords` is: a keyword argument's name, a parameter's name (the `*` of `**mapping`).
    std::vector<std::pair<int, int>> keywordPositions;
    std::vector<ExprClause> clauses; // Comprehension: its clauses, in order
    bool parenthesized = false; // written in its own parentheses: ("noise") is a String with this set
    bool fString = false;       // a String containing an f-string part
    bool bytes = false;         // a bytes literal
    // A String of adjacent literals ("height" "width", which Python joins): each one's
    // text, in order; empty for a single literal.
    std::vector<std::string> literals;
};

class ExprArena {
public:
    int add(Expr expr);
    const Expr &at(int index) const { return m_nodes[static_cast<std::size_t>(index)]; }
    Expr &at(int index) { return m_nodes[static_cast<std::size_t>(index)]; }
    std::size_t size() const { return m_nodes.size(); }

    // `a.b.c` for Name/Attribute chains, empty for anything else.
    std::string dottedName(int index) const;

private:
    std::deque<Expr> m_nodes; // a deque: push_back keeps references to earlier nodes valid
};

// Python's hard keywords (`class`, `None`, `async`, ...): never a name, an attribute
// or an argument name. Soft keywords (match, case, type, _) are names.
bool isPythonKeyword(std::string_view word);

// Assignment targets (`a, b = ...`, `for a in ...`, `[x for a in ...]`), as CPython's parser
// checks them: the first part of `e` that cannot be assigned to (anything but a name, an
// attribute, a subscript, or a tuple or list of them, each possibly starred), or -1 when
// `e` can be. `forHeader`: `e` is what follows a `for`, read as one expression list that
// runs past the `in` (`1 in c`, `a, b in c`), as CPython reads it to name the culprit: a
// comparison whose first operator is `in` stands for its left operand, any other
// comparison for nothing (CPython then reports only "invalid syntax").
int findInvalidTarget(const ExprArena &arena, int e, bool forHeader = false);

// The node whose position is where `e` starts, where CPython reports an error about it: an
// attribute, a subscript or a call is kept at its own part (`.y`, `[`, the callee's), and
// starts where its object does (`x.y()` at `x`).
const Expr &expressionStart(const ExprArena &arena, int e);

// What CPython calls `e` in "cannot assign to ...": "literal", "function call",
// "comparison", "generator expression", "f-string expression", "None", ...
std::string targetDescription(const Expr &e);

// Adjacent string literals tokens[first, last), `last` being the token after them: the
// error CPython's parser reports when it reads them as one string, in its order (a literal
// it refuses, Token::literalError; bytes mixed with str), with where it reports it; an
// empty message when there is none.
struct StringsError {
    std::string message;
    int line = 0;
    int column = 0;
};
StringsError checkAdjacentStrings(const std::vector<Token> &tokens, std::size_t first, std::size_t last);

// Parses Python 3 expressions (the full expression grammar: lambda, conditional,
// boolean, comparison, bitwise, arithmetic, power, await, calls with keyword and
// star arguments, subscripts and slices, attribute access, tuple/list/set/dict
// displays, comprehensions, walrus, yield inside parentheses) from a token range.
// What Python's parser refuses is an error: a keyword as a name, attribute or argument
// name, a positional argument after a keyword one or after `**`, a generator argument
// next to others, two expressions without a comma between them, a starred expression in
// parentheses alone (`(*a)`), as a dict value or as a comprehension's element, a
// comprehension's target that cannot be assigned to (`[x for 1 in a]`: "cannot assign to
// literal", findInvalidTarget, where CPython names it), and a string literal it refuses
// (checkAdjacentStrings).
//
// Never throws; on a syntax error returns -1 with error() and the token where it
// happened. Nesting deeper than kMaxExpressionDepth is an error, so no input can
// exhaust the stack.
class ExpressionParser {
public:
    static constexpr int kMaxExpressionDepth = 150;

    // Tokens [first, last) of `tokens`; nodes go into `arena`.
    ExpressionParser(const std::vector<Token> &tokens, std::size_t first, std::size_t last, ExprArena &arena);

    // The whole range as an expression list: `a, b` is a Tuple. -1 on error or when
    // tokens remain after it.
    int parseAll();
    // One expression starting at the current position, leaving the rest (-1 on error).
    int parseOne();
    // One named expression (`a := b`, or an expression), leaving the rest.
    int parseNamed();
    // An expression list (`a, *b`, a Tuple when there is a comma), leaving the rest.
    int parseList();
    // `(arguments)` as in a call (a class's bases): a Call whose callee is the Constant `...`.
    int parseArguments();
    // Whether the error is only that the expression nests past kMaxExpressionDepth.
    bool tooDeep() const { return m_tooDeep; }

    std::size_t position() const { return m_pos; }
    const std::string &error() const { return m_error; }
    // Whether error() is a whole message, as CPython words it ("cannot use starred expression
    // here"), rather than what is wrong in an "invalid syntax" ("expected ')' before 'b'").
    bool errorIsComplete() const { return m_errorComplete; }
    int errorLine() const { return m_errorLine; }
    int errorColumn() const { return m_errorColumn; }
    // What CPython's compiler refuses once its parser took the expression: a comprehension
    // target starred alone (`[x for *a in b]`); empty when nothing. Only the first is kept.
    const std::string &compilerError() const { return m_compilerError; }
    int compilerErrorLine() const { return m_compilerErrorLine; }
    int compilerErrorColumn() const { return m_compilerErrorColumn; }

private:
    const Token &peek(std::size_t ahead = 0) const;
    bool atEnd() const { return m_pos >= m_last; }
    bool acceptOperator(const char *op);
    bool expectOperator(const char *op);
    // `message`, followed by where: " before 'x'" (unless !describeToken) or " at the end ...".
    int fail(const std::string &message, bool describeToken = true);
    // `message` at `line`:`column`, where CPython puts it (not where the parser stands);
    // `complete`: CPython's own message, not a detail of "invalid syntax" (errorIsComplete()).
    int failAt(int line, int column, const std::string &message, bool complete = false);
    int failTooDeep();
    int makeNode(ExprKind kind, const Token &at, std::string text = {});

    int expressionList(bool allowStar);
    int starredOrNamed();
    int namedExpression();
    int test();
    int lambda();
    int orTest();
    int andTest();
    int booleanChain(const char *keyword, int (ExpressionParser::*operand)());
    int notTest();
    int comparison();
    int binary(int level);
    int factor();
    int power();
    int primary();
    int atom();
    int arguments(int callee, bool classBases = false); // classBases: no generator argument at all
    int subscript(int object);
    int sliceItem();
    int display(const char *close, ExprKind kind);
    int dictOrSet();
    bool comprehensionTail(std::vector<ExprClause> *clauses = nullptr); // the clauses read, when wanted
    int comprehensionTarget(); // what follows `for` up to `in`, as CPython's star_targets reads it
    bool invalidComprehensionTarget(std::size_t targetStart, int target);
    bool startsComprehension() const; // at `for` or `async for`
    int failBeforeClauses(int line, int column, const std::string &message, bool complete); // `[*a for ...]`
    // Where the expression `node` read from token `start` begins for CPython, which puts
    // errors about it there: inside its parentheses when it has them ((x) is x).
    const Token &startOf(std::size_t start, int node) const;

    struct DepthGuard;

    const std::vector<Token> &m_tokens;
    std::size_t m_pos;
    std::size_t m_last;
    ExprArena &m_arena;
    int m_depth = 0;
    bool m_tooDeep = false;
    std::string m_error;
    bool m_errorComplete = false;
    int m_errorLine = 0;
    int m_errorColumn = 0;
    std::string m_compilerError;
    int m_compilerErrorLine = 0;
    int m_compilerErrorColumn = 0;
};

} // namespace splitscope::importer
