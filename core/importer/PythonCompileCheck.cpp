// SPDX-License-Identifier: MIT
#include "PythonCompileCheck.h"

#include "PythonExpression.h"
#include "PythonTokenizer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace splitscope::importer {

namespace {

// What the symbol table notes of a name in a scope (CPython's DEF_* and USE flags).
// kIteration: a comprehension's target (DEF_COMP_ITER); kWalrus: a comprehension's `:=` target,
// which binds in the scope around it (what CPython marks DEF_NONLOCAL or DEF_GLOBAL there).
enum : unsigned {
    kParam = 1,
    kLocal = 2,
    kUse = 4,
    kGlobal = 8,
    kNonlocal = 16,
    kAnnotated = 32,
    kImported = 64,
    kIteration = 128,
    kWalrus = 256,
};

enum class ScopeKind { Module, Class, Function, Lambda, Comprehension };
enum class Context { Load, Store, Iteration }; // Iteration: a comprehension's target

using Position = std::pair<int, int>; // line, column

struct Scope {
    ScopeKind kind = ScopeKind::Module;
    bool async = false;        // an async def
    std::string comprehension; // a comprehension's kind: "list", "set", "dict" or "generator"
    Position at;               // where its def, class, lambda or comprehension is: its key in Facts
    bool generator = false;    // holds yield
    bool coroutine = false;    // an async def, or holds await (a comprehension: or an async clause)
    std::vector<std::string> names; // in the order first seen
    std::map<std::string, unsigned> flags;
    std::map<std::string, Position> directives; // the first global or nonlocal statement naming it
    std::vector<int> children;
    int loops = 0; // loops the code generator is in, in this scope
    int iterables = 0; // comprehension iterables the symbol table is in, in this scope
    // The `finally` blocks around the statement the code generator is at, innermost last, with
    // `loops` where each is: a break, continue or return compiles them first.
    std::vector<std::pair<const Statement *, int>> finallies;
};

// What the symbol table learned of a scope, for the code generator (CPython's ste_generator
// and ste_coroutine), by where the scope is.
struct Facts {
    bool generator = false;
    bool coroutine = false;
};

bool isOpenBracket(const Token &t)
{
    return t.kind == TokenKind::Operator && (t.text == "(" || t.text == "[" || t.text == "{");
}

bool isCloseBracket(const Token &t)
{
    return t.kind == TokenKind::Operator && (t.text == ")" || t.text == "]" || t.text == "}");
}

std::size_t closingBracket(const std::vector<Token> &tokens, std::size_t open, std::size_t last)
{
    int depth = 0;
    for (std::size_t i = open; i < last; ++i) {
        if (isOpenBracket(tokens[i]))
            ++depth;
        else if (isCloseBracket(tokens[i]) && --depth == 0)
            return i;
    }
    return last;
}

// What CPython's future.c reads of a module before its compiler runs: the `from __future__`
// imports that lead it (after a docstring), the features they name, and the first error.
struct Future {
    CompileIssue issue;
    int line = -1; // the last leading future import's line; one after it is the code generator's error
    bool annotations = false;
};

bool isFutureImport(const std::vector<Token> &tokens, const Statement &s)
{
    return !s.compound && s.tokens.last - s.tokens.first >= 3 && tokens[s.tokens.first].isName("from")
        && tokens[s.tokens.first + 1].isName("__future__");
}

Future readFuture(const std::vector<Token> &tokens, const std::vector<Statement> &statements)
{
    static const char *const kFeatures[] = {"nested_scopes", "generators", "division", "absolute_import",
        "with_statement", "print_function", "unicode_literals", "barry_as_FLUFL", "generator_stop", "annotations"};
    Future future;
    std::size_t k = 0;
    // A docstring: a first statement that is one plain string.
    if (!statements.empty() && !statements[0].compound && !statements[0].tokens.empty()) {
        const TokenRange r = statements[0].tokens;
        bool strings = true;
        for (std::size_t i = r.first; i < r.last; ++i)
            strings = strings && tokens[i].kind == TokenKind::String && !tokens[i].fString && !tokens[i].bytes;
        k = strings ? 1 : 0;
    }
    bool done = false;
    int previousLine = 0;
    for (; k < statements.size(); ++k) {
        const Statement &s = statements[k];
        if (s.tokens.empty() || (done && s.line > previousLine))
            break;
        previousLine = s.line;
        if (!isFutureImport(tokens, s)) {
            done = true;
            continue;
        }
        if (done) {
            // future.c puts this one a column before the statement (its 0-based offset).
            future.issue = {"from __future__ imports must occur at the beginning of the file", tokens[s.tokens.first].line,
                tokens[s.tokens.first].column - 1};
            break;
        }
        for (std::size_t i = s.tokens.first + 3; i < s.tokens.last; ++i) {
            const Token &t = tokens[i];
            if (i > s.tokens.first + 3 && (tokens[i - 1].isName("as")))
                continue;
            if (!(t.kind == TokenKind::Name || t.isOperator("*")) || t.isName("as"))
                continue;
            if (t.isName("annotations")) {
                future.annotations = true;
            } else if (t.isName("braces")) {
                future.issue = {"not a chance", tokens[s.tokens.first].line, tokens[s.tokens.first].column};
                return future;
            } else if (std::none_of(std::begin(kFeatures), std::end(kFeatures), [&](const char *f) { return t.text == f; })) {
                future.issue = {"future feature " + t.text + " is not defined", tokens[s.tokens.first].line, tokens[s.tokens.first].column};
                return future;
            }
        }
        future.line = s.line;
    }
    return future;
}

// Walks a module the way one of CPython's two compiler passes does: the symbol table
// (`codegen` false) or the code generator; the first error of that pass stops it.
class Walker {
public:
    Walker(const std::vector<Token> &tokens, bool codegen, std::map<Position, Facts> &facts, const CompileIssue &pending)
        : m_tokens(tokens), m_codegen(codegen), m_facts(facts), m_pending(pending)
    {
    }

    CompileIssue run(const std::vector<Statement> &statements)
    {
        m_future = readFuture(m_tokens, statements);
        m_futureAnnotations = m_future.annotations;
        if (!m_codegen && m_future.issue.found())
            return m_future.issue;
        m_scopes.push_back(Scope());
        m_current = 0;
        block(statements);
        if (!m_codegen && !m_issue.found())
            analyze(0, nullptr);
        return m_issue;
    }

private:
    // --- errors

    void error(bool symbolTable, const std::string &message, int line, int column)
    {
        if (symbolTable != m_codegen && !m_issue.found())
            m_issue = {message, line, column};
    }
    void symbolTableError(const std::string &message, Position at) { error(true, message, at.first, at.second); }
    void codegenError(const std::string &message, Position at) { error(false, message, at.first, at.second); }
    bool stopped() const { return m_issue.found(); }

    static Position at(const Token &t) { return {t.line, t.column}; }
    static Position at(const Expr &e) { return {e.line, e.column}; }

    // --- scopes

    Scope &scope() { return m_scopes[static_cast<std::size_t>(m_current)]; }

    int enter(ScopeKind kind, Position where, bool async = false, std::string comprehension = {})
    {
        Scope s;
        s.kind = kind;
        s.async = async;
        s.at = where;
        s.coroutine = async;
        s.comprehension = std::move(comprehension);
        if (m_codegen) {
            const auto it = m_facts.find(where);
            if (it != m_facts.end()) {
                s.generator = it->second.generator;
                s.coroutine = it->second.coroutine;
            }
        }
        m_scopes.push_back(std::move(s));
        m_annotationBlocks.push_back(m_annotationBlock);
        m_annotationBlock = false;
        const int index = static_cast<int>(m_scopes.size() - 1);
        scope().children.push_back(index);
        const int outer = m_current;
        m_current = index;
        return outer;
    }

    void leave(int outer)
    {
        const Scope &inner = scope();
        if (!m_codegen)
            m_facts[inner.at] = {inner.generator, inner.coroutine};
        const bool asyncComprehension
            = inner.kind == ScopeKind::Comprehension && inner.coroutine && inner.comprehension != "generator";
        m_current = outer;
        m_annotationBlock = m_annotationBlocks.back();
        m_annotationBlocks.pop_back();
        // Python 3.11: what holds an asynchronous list, set or dict comprehension is asynchronous
        // too (a comprehension; a function then takes no `return VALUE` if it yields).
        if (asyncComprehension && !m_codegen)
            scope().coroutine = true;
    }

    bool inFunction() const
    {
        const ScopeKind k = m_scopes[static_cast<std::size_t>(m_current)].kind;
        return k != ScopeKind::Module && k != ScopeKind::Class;
    }

    void note(const std::string &name, unsigned flag, Position where = {})
    {
        Scope &s = scope();
        auto it = s.flags.find(name);
        if (it == s.flags.end()) {
            s.names.push_back(name);
            it = s.flags.emplace(name, 0u).first;
        }
        if ((flag & kParam) && (it->second & kParam))
            symbolTableError("duplicate argument '" + name + "' in function definition", where);
        it->second |= flag;
    }

    // The symbol table's last step (CPython's analyze): nonlocal names, scope by scope.
    void analyze(int index, const std::set<std::string> *bound)
    {
        const Scope &s = m_scopes[static_cast<std::size_t>(index)];
        std::set<std::string> passed = bound ? *bound : std::set<std::string>();
        for (const std::string &name : s.names) {
            const unsigned f = s.flags.at(name);
            const auto directive = s.directives.find(name);
            const Position where = directive != s.directives.end() ? directive->second : Position{0, 0};
            if ((f & kGlobal) && (f & kNonlocal)) {
                symbolTableError("name '" + name + "' is nonlocal and global", where);
                return;
            }
            if (f & kGlobal) {
                if (s.kind != ScopeKind::Class) // a class passes on what it was given
                    passed.erase(name);
            } else if (f & kNonlocal) {
                if (!bound) {
                    symbolTableError("nonlocal declaration not allowed at module level", where);
                    return;
                }
                if (!bound->count(name)) {
                    symbolTableError("no binding for nonlocal '" + name + "' found", where);
                    return;
                }
            } else if ((f & (kLocal | kParam | kImported)) && s.kind != ScopeKind::Module && s.kind != ScopeKind::Class) {
                passed.insert(name);
            }
        }
        if (s.kind == ScopeKind::Module)
            passed.clear();
        if (s.kind == ScopeKind::Class)
            passed.insert("__class__");
        for (const int child : s.children) {
            analyze(child, &passed);
            if (stopped())
                return;
        }
    }

    // --- expressions

    // Parses tokens [first, last) as `form` into m_arena; -1 when it does not parse (it did for the
    // statement checker, unless nested too deeply: then nothing is checked there).
    enum class Form { One, Named, List };
    int parse(std::size_t &first, std::size_t last, Form form)
    {
        if (first >= last)
            return -1;
        ExpressionParser parser(m_tokens, first, last, m_arena);
        const int e = form == Form::One ? parser.parseOne()
            : form == Form::Named       ? parser.parseNamed()
                                        : parser.parseList();
        if (e >= 0)
            first = parser.position();
        return e;
    }

    void expression(const ExprArena &arena, const std::vector<Token> &tokens, int e, Context context = Context::Load)
    {
        if (e < 0 || stopped())
            return;
        const Expr &x = arena.at(e);
        switch (x.kind) {
        case ExprKind::Name:
            if (m_codegen || m_annotationBlock)
                return;
            if (context == Context::Iteration) {
                const auto it = scope().flags.find(x.text);
                if (it != scope().flags.end() && (it->second & kWalrus)) {
                    symbolTableError("comprehension inner loop cannot rebind assignment expression target '" + x.text + "'", at(x));
                    return;
                }
                note(x.text, kLocal | kIteration);
                return;
            }
            note(x.text, context == Context::Store ? kLocal : kUse);
            return;
        case ExprKind::Attribute: expression(arena, tokens, x.items.front()); return;
        case ExprKind::String:
            if (x.fString)
                fields(tokens, x);
            return;
        case ExprKind::Number:
        case ExprKind::Constant: return;
        case ExprKind::Starred:
            if (m_codegen && m_pending.found() && m_pending.line == x.line && m_pending.column == x.column) {
                m_issue = m_pending;
                return;
            }
            expression(arena, tokens, x.items.front(), context);
            return;
        case ExprKind::Tuple:
        case ExprKind::List:
        case ExprKind::Set:
            for (const int item : x.items)
                expression(arena, tokens, item, context);
            return;
        case ExprKind::Dict:
            for (const int item : x.items)
                expression(arena, tokens, item);
            return;
        case ExprKind::Call: call(arena, tokens, x); return;
        case ExprKind::Subscript:
        case ExprKind::Slice:
            for (const int item : x.items)
                expression(arena, tokens, item);
            return;
        case ExprKind::Comprehension: comprehension(arena, tokens, x); return;
        case ExprKind::Operation: operation(arena, tokens, x); return;
        }
    }

    void call(const ExprArena &arena, const std::vector<Token> &tokens, const Expr &x)
    {
        expression(arena, tokens, x.items.front());
        if (m_codegen) {
            // Checked before the arguments are compiled: the second of a pair is the error.
            for (std::size_t i = 0; i < x.keywords.size() && !stopped(); ++i) {
                if (x.keywords[i].first == "**")
                    continue;
                for (std::size_t j = i + 1; j < x.keywords.size(); ++j) {
                    if (x.keywords[j].first == x.keywords[i].first) {
                        codegenError("keyword argument repeated: " + x.keywords[i].first, x.keywordPositions[j]);
                        break;
                    }
                }
            }
        }
        for (std::size_t i = 1; i < x.items.size(); ++i)
            expression(arena, tokens, x.items[i]);
        for (const auto &keyword : x.keywords)
            expression(arena, tokens, keyword.second);
    }

    void operation(const ExprArena &arena, const std::vector<Token> &tokens, const Expr &x)
    {
        if (m_annotationBlock && (x.text == "yield" || x.text == "yield from" || x.text == "await" || x.text == ":=")) {
            // With `from __future__ import annotations` an annotation is a scope of its own.
            const char *what = x.text == "await" ? "await expression"
                : x.text == ":="                 ? "named expression"
                                                 : "yield expression";
            symbolTableError(std::string("'") + what + "' can not be used within an annotation", at(x));
            return;
        }
        if (x.text == "lambda") {
            for (const auto &parameter : x.keywords)
                expression(arena, tokens, parameter.second);
            const int outer = enter(ScopeKind::Lambda, at(x));
            if (!m_codegen) {
                std::vector<std::pair<std::string, Position>> list;
                for (std::size_t i = 0; i < x.keywords.size(); ++i)
                    list.emplace_back(x.keywords[i].first, x.keywordPositions[i]);
                parameters(tokens, std::move(list));
            }
            expression(arena, tokens, x.items.front());
            leave(outer);
            return;
        }
        if (x.text == "yield" || x.text == "yield from") {
            yield(x.text == "yield from", at(x));
            if (!x.items.empty())
                expression(arena, tokens, x.items.front());
            yielded(at(x));
            return;
        }
        if (x.text == "await") {
            await(at(x));
            expression(arena, tokens, x.items.front());
            return;
        }
        if (x.text == ":=") {
            if (!m_codegen && !walrus(arena.at(x.items[0]).text, at(x)))
                return;
            expression(arena, tokens, x.items[1]);
            return;
        }
        if (x.text == "if" && x.items.size() == 3) {
            expression(arena, tokens, x.items[1]);
            expression(arena, tokens, x.items[0]);
            expression(arena, tokens, x.items[2]);
            return;
        }
        for (const int item : x.items)
            expression(arena, tokens, item);
    }

    // Where `a := ...` binds `name`: in the nearest scope that is not a comprehension (CPython's
    // symtable_handle_namedexpr); false once it reported an error.
    bool walrus(const std::string &name, Position where)
    {
        if (scope().iterables > 0) {
            symbolTableError("assignment expression cannot be used in a comprehension iterable expression", where);
            return false;
        }
        if (scope().kind != ScopeKind::Comprehension) {
            note(name, kLocal);
            return true;
        }
        const int current = m_current;
        while (scope().kind == ScopeKind::Comprehension && m_current > 0) {
            const auto it = scope().flags.find(name);
            if (it != scope().flags.end() && (it->second & kIteration)) {
                symbolTableError("assignment expression cannot rebind comprehension iteration variable '" + name + "'", where);
                m_current = current;
                return false;
            }
            m_current = parentOf(m_current);
        }
        if (scope().kind == ScopeKind::Class) {
            symbolTableError("assignment expression within a comprehension cannot be used in a class body", where);
            m_current = current;
            return false;
        }
        // A module takes it as a global (CPython's DEF_GLOBAL there), a function as a local.
        note(name, scope().kind == ScopeKind::Module ? kGlobal : kLocal);
        m_current = current;
        note(name, kWalrus);
        return true;
    }

    int parentOf(int index) const
    {
        for (std::size_t i = 0; i < m_scopes.size(); ++i) {
            const auto &children = m_scopes[i].children;
            if (std::find(children.begin(), children.end(), index) != children.end())
                return static_cast<int>(i);
        }
        return 0;
    }

    // Before a yield's value: what the code generator checks.
    void yield(bool from, Position where)
    {
        if (!m_codegen)
            return;
        if (!inFunction())
            codegenError("'yield' outside function", where);
        else if (from && scope().kind == ScopeKind::Function && scope().async)
            codegenError("'yield from' inside async function", where);
    }

    // After a yield's value: what the symbol table checks.
    void yielded(Position where)
    {
        if (m_codegen)
            return;
        scope().generator = true;
        if (scope().kind == ScopeKind::Comprehension) {
            const std::string &kind = scope().comprehension;
            symbolTableError(kind == "generator" ? std::string("'yield' inside generator expression")
                                                 : "'yield' inside " + kind + " comprehension",
                where);
        }
    }

    void await(Position where)
    {
        if (!m_codegen) {
            scope().coroutine = true;
            return;
        }
        if (!inFunction())
            codegenError("'await' outside function", where);
        else if (scope().kind != ScopeKind::Comprehension && !(scope().kind == ScopeKind::Function && scope().async))
            codegenError("'await' outside async function", where);
    }

    void comprehension(const ExprArena &arena, const std::vector<Token> &tokens, const Expr &x)
    {
        if (x.clauses.empty())
            return;
        // The first iterable is the enclosing scope's: the symbol table reads it first, the
        // code generator after the comprehension's own code.
        if (!m_codegen) {
            ++scope().iterables;
            expression(arena, tokens, x.clauses.front().iterable);
            --scope().iterables;
        }
        const bool enclosingAsync = (scope().kind == ScopeKind::Function && scope().async)
            || scope().kind == ScopeKind::Comprehension;
        const int outer = enter(ScopeKind::Comprehension, at(x), false, x.text);
        if (m_codegen && scope().coroutine && x.text != "generator" && !enclosingAsync)
            codegenError("asynchronous comprehension outside of an asynchronous function", at(x));
        for (std::size_t i = 0; i < x.clauses.size(); ++i) {
            const ExprClause &clause = x.clauses[i];
            if (clause.async && !m_codegen)
                scope().coroutine = true;
            if (i > 0 && m_codegen)
                expression(arena, tokens, clause.iterable);
            expression(arena, tokens, clause.target, Context::Iteration);
            if (i > 0 && !m_codegen) {
                ++scope().iterables;
                expression(arena, tokens, clause.iterable);
                --scope().iterables;
            }
            for (const int condition : clause.conditions)
                expression(arena, tokens, condition);
        }
        if (m_codegen) {
            for (const int item : x.items)
                expression(arena, tokens, item);
        } else {
            for (auto it = x.items.rbegin(); it != x.items.rend(); ++it)
                expression(arena, tokens, *it); // a dict's value before its key
        }
        leave(outer);
        if (m_codegen)
            expression(arena, tokens, x.clauses.front().iterable);
    }

    // The first token at `where` that is not an INDENT or DEDENT.
    static std::vector<Token>::const_iterator tokenAt(const std::vector<Token> &tokens, Position where)
    {
        // Tokens are in source order, a NEWLINE (column 0) last on its line.
        auto it = std::lower_bound(tokens.begin(), tokens.end(), where, [](const Token &t, const Position &p) {
            return std::make_pair(t.line, t.column == 0 ? std::numeric_limits<int>::max() : t.column) < p;
        });
        while (it != tokens.end() && (it->kind == TokenKind::Indent || it->kind == TokenKind::Dedent) && at(*it) == where)
            ++it;
        return it;
    }

    // Parameters as the symbol table adds them: the named ones in order, then `*args`, then `**kwargs`.
    void parameters(const std::vector<Token> &tokens, std::vector<std::pair<std::string, Position>> list)
    {
        const auto stars = [&](const Position &where) {
            const auto it = tokenAt(tokens, where);
            if (it == tokens.begin() || it == tokens.end())
                return 0;
            const Token &before = *(it - 1);
            return before.isOperator("*") ? 1 : before.isOperator("**") ? 2 : 0;
        };
        std::stable_sort(list.begin(), list.end(),
            [&](const auto &a, const auto &b) { return stars(a.second) < stars(b.second); });
        for (const auto &[name, where] : list)
            note(name, kParam, where);
    }

    // The replacement fields of the f-strings a String node `x` was read from.
    void fields(const std::vector<Token> &tokens, const Expr &x)
    {
        auto it = tokenAt(tokens, at(x));
        for (; it != tokens.end() && it->kind == TokenKind::String && !stopped(); ++it) {
            for (const FieldExpression &f : it->fields) {
                fieldExpression(f);
                if (stopped())
                    return;
            }
        }
    }

    void fieldExpression(const FieldExpression &f)
    {
        // As deep as the tokenizer checks fields (Python 3.11 cannot nest f-strings past four).
        if (m_fieldDepth >= kMaxFieldDepth)
            return;
        ++m_fieldDepth;
        checkField(f);
        --m_fieldDepth;
    }

    void checkField(const FieldExpression &f)
    {
        TokenizeResult read = tokenizePython(f.source);
        if (!read.ok())
            return;
        const auto toFile = [&](int &line, int &column) {
            if (line <= 1)
                column += f.column - 1;
            line += f.line - 1;
        };
        std::size_t last = read.tokens.size();
        for (std::size_t i = 0; i < read.tokens.size(); ++i) {
            Token &t = read.tokens[i];
            if (last == read.tokens.size() && (t.kind == TokenKind::Newline || t.kind == TokenKind::EndOfInput))
                last = i;
            toFile(t.line, t.column);
            toFile(t.endLine, t.endColumn);
            for (FieldExpression &inner : t.fields)
                toFile(inner.line, inner.column);
        }
        ExprArena arena;
        ExpressionParser parser(read.tokens, 0, last, arena);
        const int e = parser.parseAll();
        if (e < 0)
            return;
        // What the statement checker finds in the file's own expressions (a comprehension's
        // target starred alone), found here in a field's.
        if (m_codegen && !parser.compilerError().empty()) {
            codegenError(parser.compilerError(), {parser.compilerErrorLine(), parser.compilerErrorColumn()});
            return;
        }
        expression(arena, read.tokens, e);
    }

    // --- statements

    void block(const std::vector<Statement> &body)
    {
        std::vector<const Statement *> decorators;
        for (std::size_t k = 0; k < body.size(); ++k) {
            const Statement &s = body[k];
            if (stopped() || s.tokens.empty())
                return;
            if (m_tokens[s.tokens.first].isOperator("@") && !s.compound) {
                decorators.push_back(&s);
                continue;
            }
            if (s.compound && s.keyword(m_tokens) == "try") {
                k = tryStatement(body, k);
                continue;
            }
            statement(s, decorators);
            decorators.clear();
        }
    }

    // The compiler reads a try statement's `else` before its handlers. Returns the index of its
    // last clause in `body`.
    std::size_t tryStatement(const std::vector<Statement> &body, std::size_t k)
    {
        std::size_t end = k + 1;
        std::vector<const Statement *> handlers;
        const Statement *otherwise = nullptr;
        const Statement *finally = nullptr;
        for (; end < body.size() && body[end].compound && !body[end].tokens.empty(); ++end) {
            const std::string &keyword = body[end].keyword(m_tokens);
            if (keyword == "except")
                handlers.push_back(&body[end]);
            else if (keyword == "else" && !otherwise && !finally)
                otherwise = &body[end];
            else if (keyword == "finally" && !finally)
                finally = &body[end];
            else
                break;
        }
        const std::vector<const Statement *> none;
        if (finally)
            scope().finallies.emplace_back(finally, scope().loops);
        statement(body[k], none);
        if (otherwise)
            statement(*otherwise, none);
        for (const Statement *handler : handlers)
            statement(*handler, none);
        if (finally) {
            scope().finallies.pop_back();
            statement(*finally, none);
        }
        return end - 1;
    }

    void decoratorsOf(const std::vector<const Statement *> &decorators)
    {
        for (const Statement *d : decorators) {
            ExprArena arena;
            ExpressionParser parser(m_tokens, d->tokens.first + 1, d->tokens.last, arena);
            expression(arena, m_tokens, parser.parseNamed());
        }
    }

    void statement(const Statement &s, const std::vector<const Statement *> &decorators)
    {
        m_arena = ExprArena();
        if (!s.compound) {
            simple(s);
            return;
        }
        std::size_t i = s.tokens.first;
        const std::size_t last = s.tokens.last - 1; // without the ':'
        bool async = false;
        if (m_tokens[i].isName("async")) {
            async = true;
            ++i;
        }
        const Token &keyword = m_tokens[i];
        const std::string &k = keyword.text;
        ++i;
        if (k == "def") {
            function(s, i, last, async, decorators);
            return;
        }
        if (k == "class") {
            classDef(s, i, last, decorators);
            return;
        }
        if (async && m_codegen && !(scope().kind == ScopeKind::Function && scope().async))
            codegenError("'async " + k + "' outside async function", at(m_tokens[s.tokens.first]));
        bool loop = false;
        if (k == "if" || k == "elif" || k == "while") {
            expression(m_arena, m_tokens, parse(i, last, Form::Named));
            loop = k == "while";
        } else if (k == "for") {
            const std::size_t in = findTopLevel(m_tokens, {i, last}, [](const Token &t) { return t.isName("in"); });
            std::size_t j = in + 1;
            const int target = parse(i, in, Form::List);
            const int iterable = parse(j, last, Form::List);
            if (m_codegen) {
                expression(m_arena, m_tokens, iterable);
                expression(m_arena, m_tokens, target, Context::Store);
            } else {
                expression(m_arena, m_tokens, target, Context::Store);
                expression(m_arena, m_tokens, iterable);
            }
            loop = true;
        } else if (k == "with") {
            withItems(i, last);
        } else if (k == "except") {
            if (i < last && m_tokens[i].isOperator("*"))
                ++i;
            expression(m_arena, m_tokens, parse(i, last, Form::List));
            if (i + 1 < last && m_tokens[i].isName("as") && !m_codegen)
                note(m_tokens[i + 1].text, kLocal);
        } else if (k == "match") {
            expression(m_arena, m_tokens, parse(i, last, Form::List));
        } else if (k == "case") {
            casePattern(i, last);
        }
        if (loop)
            ++scope().loops;
        block(s.body);
        if (loop)
            --scope().loops;
    }

    void withItems(std::size_t i, std::size_t last)
    {
        if (i < last && m_tokens[i].isOperator("(") && closingBracket(m_tokens, i, last) + 1 == last
            && findTopLevel(m_tokens, {i + 1, last - 1}, [](const Token &t) { return t.isName("as"); }) < last - 1) {
            ++i;
            --last;
        }
        while (i < last && !stopped()) {
            const int context = parse(i, last, Form::One);
            if (context < 0)
                return;
            expression(m_arena, m_tokens, context);
            if (i < last && m_tokens[i].isName("as")) {
                ++i;
                if (i < last && m_tokens[i].isOperator("*")) {
                    if (m_codegen && m_pending.found() && at(m_tokens[i]) == Position{m_pending.line, m_pending.column}) {
                        m_issue = m_pending;
                        return;
                    }
                    ++i;
                }
                expression(m_arena, m_tokens, parse(i, last, Form::One), Context::Store);
            }
            if (i < last && m_tokens[i].isOperator(","))
                ++i;
            else
                return;
        }
    }

    // The names a case's patterns bind (captures) and read (values, classes), and its guard.
    void casePattern(std::size_t i, std::size_t last)
    {
        const std::size_t guard = findTopLevel(m_tokens, {i, last}, [](const Token &t) { return t.isName("if"); });
        for (std::size_t k = i; k < guard && !m_codegen; ++k) {
            const Token &t = m_tokens[k];
            if (t.kind != TokenKind::Name || t.isKeyword() || t.isName("_"))
                continue;
            const bool dotted = k > i && m_tokens[k - 1].isOperator(".");
            const bool followed = k + 1 < guard
                && (m_tokens[k + 1].isOperator(".") || m_tokens[k + 1].isOperator("(") || m_tokens[k + 1].isOperator("="));
            if (dotted)
                continue;
            if (k + 1 < guard && m_tokens[k + 1].isOperator("="))
                continue; // a keyword pattern's attribute name
            note(t.text, followed ? kUse : kLocal);
        }
        if (guard < last) {
            std::size_t j = guard + 1;
            expression(m_arena, m_tokens, parse(j, last, Form::Named));
        }
    }

    struct ParameterInfo {
        std::string name;
        Position where;
    };

    // The name a def or class statement binds (at i) is a local of the enclosing scope;
    // i moves past it and its type parameters ("[T]", as 3.12 writes them).
    void declareName(std::size_t &i, std::size_t last)
    {
        if (!m_codegen)
            note(m_tokens[i].text, kLocal);
        ++i;
        if (i < last && m_tokens[i].isOperator("["))
            i = closingBracket(m_tokens, i, last) + 1;
    }

    void function(const Statement &s, std::size_t i, std::size_t last, bool async,
        const std::vector<const Statement *> &decorators)
    {
        declareName(i, last);
        const std::size_t close = closingBracket(m_tokens, i, last);
        std::vector<ParameterInfo> parameters;
        std::vector<int> defaults, annotations;
        for (std::size_t k = i + 1; k < close;) {
            if (m_tokens[k].isOperator("*") || m_tokens[k].isOperator("**") || m_tokens[k].isOperator("/"))
                ++k;
            if (k < close && m_tokens[k].kind == TokenKind::Name) {
                parameters.push_back({m_tokens[k].text, at(m_tokens[k])});
                ++k;
                if (k < close && m_tokens[k].isOperator(":")) {
                    ++k;
                    if (k < close && m_tokens[k].isOperator("*"))
                        ++k;
                    annotations.push_back(parse(k, close, Form::One));
                }
                if (k < close && m_tokens[k].isOperator("=")) {
                    ++k;
                    defaults.push_back(parse(k, close, Form::One));
                }
            }
            if (k < close && m_tokens[k].isOperator(","))
                ++k;
            else if (k < close && !(m_tokens[k].isOperator("*") || m_tokens[k].isOperator("**") || m_tokens[k].isOperator("/")))
                return; // did not parse: nested too deeply
        }
        std::size_t k = close + 1;
        if (k < last && m_tokens[k].isOperator("->")) {
            ++k;
            annotations.push_back(parse(k, last, Form::One));
        }
        if (m_codegen)
            decoratorsOf(decorators);
        for (const int d : defaults)
            expression(m_arena, m_tokens, d);
        // Annotations are compiled unless `from __future__ import annotations` makes them strings.
        if (!m_codegen || !m_futureAnnotations) {
            m_annotationBlock = m_futureAnnotations;
            for (const int a : annotations)
                expression(m_arena, m_tokens, a);
            m_annotationBlock = false;
        }
        if (!m_codegen)
            decoratorsOf(decorators);
        const int outer = enter(ScopeKind::Function, at(m_tokens[s.tokens.first]), async);
        if (!m_codegen) {
            std::vector<std::pair<std::string, Position>> list;
            for (const ParameterInfo &p : parameters)
                list.emplace_back(p.name, p.where);
            this->parameters(m_tokens, std::move(list));
        }
        block(s.body);
        leave(outer);
    }

    void classDef(const Statement &s, std::size_t i, std::size_t last, const std::vector<const Statement *> &decorators)
    {
        declareName(i, last);
        int bases = -1;
        ExprArena arena; // the body's statements use m_arena
        if (i < last && m_tokens[i].isOperator("(")) {
            ExpressionParser parser(m_tokens, i, last, arena);
            bases = parser.parseArguments();
        }
        if (m_codegen) {
            decoratorsOf(decorators);
        } else {
            expression(arena, m_tokens, bases);
            decoratorsOf(decorators);
        }
        const int outer = enter(ScopeKind::Class, at(m_tokens[s.tokens.first]));
        block(s.body);
        leave(outer);
        if (m_codegen)
            expression(arena, m_tokens, bases);
    }

    // `yield ...` at tokens[i], to `last`, as a statement or an assigned value.
    void yieldAt(std::size_t i, std::size_t last)
    {
        const Position where = at(m_tokens[i]);
        ++i;
        const bool from = i < last && m_tokens[i].isName("from");
        if (from)
            ++i;
        yield(from, where);
        if (i < last)
            expression(m_arena, m_tokens, parse(i, last, from ? Form::One : Form::List));
        yielded(where);
    }

    // A value after '=' (or an augmented operator, or an annotation's '='): maybe a yield expression.
    void value(std::size_t i, std::size_t last)
    {
        if (i < last && m_tokens[i].isName("yield")) {
            yieldAt(i, last);
            return;
        }
        expression(m_arena, m_tokens, parse(i, last, Form::List));
    }

    void simple(const Statement &s)
    {
        std::size_t i = s.tokens.first;
        const std::size_t last = s.tokens.last;
        const Token &first = m_tokens[i];
        const Position where = at(first);
        if (first.kind == TokenKind::Name && !first.normalized) {
            const std::string &k = first.text;
            if (k == "pass")
                return;
            if (k == "break" || k == "continue") {
                if (!m_codegen)
                    return;
                unwind(true);
                if (scope().loops == 0)
                    codegenError(k == "break" ? "'break' outside loop" : "'continue' not properly in loop", where);
                return;
            }
            if (k == "return") {
                if (m_codegen && !inFunction())
                    codegenError("'return' outside function", where);
                else if (m_codegen && i + 1 < last && scope().generator && scope().coroutine)
                    codegenError("'return' with value in async generator", where);
                ++i;
                expression(m_arena, m_tokens, parse(i, last, Form::List));
                if (m_codegen && inFunction())
                    unwind(false);
                return;
            }
            if (k == "raise" || k == "assert") {
                ++i;
                expression(m_arena, m_tokens, parse(i, last, Form::One));
                if (i < last) {
                    ++i; // `from` or ','
                    expression(m_arena, m_tokens, parse(i, last, Form::One));
                }
                return;
            }
            if (k == "global" || k == "nonlocal") {
                if (!m_codegen)
                    declaration(s, k == "global");
                return;
            }
            if (k == "del") {
                ++i;
                expression(m_arena, m_tokens, parse(i, last, Form::List), Context::Store);
                return;
            }
            if (k == "import" || k == "from") {
                if (!m_codegen)
                    import(s);
                else if (k == "from" && i + 1 < last && m_tokens[i + 1].isName("__future__") && s.line > m_future.line)
                    codegenError("from __future__ imports must occur at the beginning of the file", where);
                return;
            }
            if (k == "yield") {
                yieldAt(i, last);
                return;
            }
            if (k == "type" && i + 2 < last && m_tokens[i + 1].kind == TokenKind::Name
                && (m_tokens[i + 2].isOperator("=") || m_tokens[i + 2].isOperator("[")))
                return; // a type alias (Python 3.12)
        }
        assignment(s);
    }

    // What a break or continue (`loop`: up to the loop it is in) or a return compiles before it
    // jumps: the `finally` blocks it leaves, innermost first.
    void unwind(bool loop)
    {
        const auto saved = scope().finallies;
        const int loops = scope().loops;
        while (!scope().finallies.empty() && !stopped() && (!loop || scope().finallies.back().second == loops)) {
            const Statement *finally = scope().finallies.back().first;
            scope().finallies.pop_back();
            block(finally->body);
        }
        scope().finallies = saved;
    }

    void declaration(const Statement &s, bool global)
    {
        const Position where = at(m_tokens[s.tokens.first]);
        for (std::size_t i = s.tokens.first + 1; i < s.tokens.last && !stopped(); i += 2) {
            const std::string &name = m_tokens[i].text;
            const auto it = scope().flags.find(name);
            const unsigned f = it != scope().flags.end() ? it->second : 0u;
            const std::string kind = global ? "global" : "nonlocal";
            if (f & kParam)
                symbolTableError("name '" + name + "' is parameter and " + kind, where);
            else if (f & kUse)
                symbolTableError("name '" + name + "' is used prior to " + kind + " declaration", where);
            else if (f & kAnnotated)
                symbolTableError("annotated name '" + name + "' can't be " + kind, where);
            else if (f & kLocal)
                symbolTableError("name '" + name + "' is assigned to before " + kind + " declaration", where);
            note(name, global ? kGlobal : kNonlocal);
            scope().directives.emplace(name, where);
            if (global && m_current != 0) {
                // CPython notes a global name in the module's table too.
                const int current = m_current;
                m_current = 0;
                note(name, kGlobal);
                m_current = current;
            }
        }
    }

    void import(const Statement &s)
    {
        std::size_t i = s.tokens.first;
        const std::size_t last = s.tokens.last;
        if (m_tokens[i].isName("from")) {
            while (i < last && !m_tokens[i].isName("import"))
                ++i;
            ++i;
            if (i < last && m_tokens[i].isOperator("*")) {
                if (scope().kind != ScopeKind::Module)
                    symbolTableError("import * only allowed at module level", at(m_tokens[i]));
                return;
            }
        } else {
            ++i;
        }
        // Names separated by ',' (dotted after `import`), each maybe `as NAME`; brackets aside.
        std::string bound;
        bool afterAs = false;
        bool first = true;
        for (; i <= last; ++i) {
            const Token &t = i < last ? m_tokens[i] : m_tokens[last - 1];
            if (i == last || t.isOperator(",")) {
                if (!bound.empty())
                    note(bound, kImported);
                bound.clear();
                first = true;
                afterAs = false;
                continue;
            }
            if (t.isName("as")) {
                afterAs = true;
                continue;
            }
            if (t.kind == TokenKind::Name && (first || afterAs)) {
                bound = t.text;
                first = false;
            }
        }
    }

    void assignment(const Statement &s)
    {
        const std::size_t first = s.tokens.first;
        const std::size_t last = s.tokens.last;
        // The top-level '=', augmented operator or annotation ':' (a lambda's ':' and '=' aside).
        int pendingLambdas = 0;
        const std::size_t split = findTopLevel(m_tokens, {first, last}, [&](const Token &t) {
            if (t.isName("lambda")) {
                ++pendingLambdas;
                return false;
            }
            if (t.kind != TokenKind::Operator)
                return false;
            if (t.text == ":" && pendingLambdas > 0) {
                --pendingLambdas;
                return false;
            }
            if (pendingLambdas > 0)
                return false;
            return t.text == "=" || t.text == ":"
                || (t.text.size() >= 2 && t.text.back() == '=' && t.text != "==" && t.text != "<=" && t.text != ">="
                    && t.text != "!=" && t.text != ":=");
        });
        if (split >= last) {
            std::size_t i = first;
            expression(m_arena, m_tokens, parse(i, last, Form::List));
            return;
        }
        const Token &op = m_tokens[split];
        if (op.text == ":") {
            annotated(s, split);
            return;
        }
        if (op.text != "=") {
            std::size_t i = first;
            const int target = parse(i, split, Form::List);
            expression(m_arena, m_tokens, target, Context::Store);
            value(split + 1, last);
            return;
        }
        std::vector<int> targets;
        std::size_t i = first;
        std::size_t valueStart = first;
        while (true) {
            const std::size_t equals = findTopLevel(m_tokens, {i, last}, [](const Token &t) { return t.isOperator("="); });
            if (equals >= last || m_tokens[i].isName("yield")) {
                valueStart = i;
                break;
            }
            std::size_t j = i;
            targets.push_back(parse(j, equals, Form::List));
            i = equals + 1;
        }
        if (!m_codegen) {
            for (const int t : targets)
                expression(m_arena, m_tokens, t, Context::Store);
        }
        value(valueStart, last);
        if (m_codegen) {
            for (const int t : targets)
                expression(m_arena, m_tokens, t, Context::Store);
        }
    }

    void annotated(const Statement &s, std::size_t colon)
    {
        const std::size_t first = s.tokens.first;
        const std::size_t last = s.tokens.last;
        const std::size_t equals = findTopLevel(m_tokens, {colon + 1, last}, [](const Token &t) { return t.isOperator("="); });
        std::size_t i = first;
        const int target = parse(i, colon, Form::One);
        std::size_t j = colon + 1;
        const int annotation = parse(j, equals, Form::One);
        const bool simpleName = target >= 0 && m_arena.at(target).kind == ExprKind::Name && !m_arena.at(target).parenthesized;
        const bool atTop = scope().kind == ScopeKind::Module || scope().kind == ScopeKind::Class;
        if (!m_codegen) {
            if (simpleName) {
                const std::string &name = m_arena.at(target).text;
                const auto it = scope().flags.find(name);
                const unsigned f = it != scope().flags.end() ? it->second : 0u;
                if ((f & (kGlobal | kNonlocal)) && scope().kind != ScopeKind::Module)
                    symbolTableError("annotated name '" + name + "' can't be " + ((f & kGlobal) ? "global" : "nonlocal"),
                        at(m_tokens[first]));
                note(name, kAnnotated | kLocal);
            } else {
                expression(m_arena, m_tokens, target, Context::Store);
            }
            m_annotationBlock = m_futureAnnotations;
            expression(m_arena, m_tokens, annotation);
            m_annotationBlock = false;
            if (equals < last)
                value(equals + 1, last);
            return;
        }
        if (equals < last)
            value(equals + 1, last);
        if (!simpleName)
            expression(m_arena, m_tokens, target, Context::Store);
        // The code generator compiles an annotation only in a module or class (not as a string).
        if (atTop && !m_futureAnnotations)
            expression(m_arena, m_tokens, annotation);
    }

    const std::vector<Token> &m_tokens;
    const bool m_codegen;
    std::map<Position, Facts> &m_facts;
    const CompileIssue &m_pending;
    std::vector<Scope> m_scopes;
    int m_current = 0;
    ExprArena m_arena; // one statement's expressions
    static constexpr int kMaxFieldDepth = 20;
    int m_fieldDepth = 0; // f-string fields inside one another being checked
    Future m_future;
    bool m_futureAnnotations = false;
    bool m_annotationBlock = false; // in an annotation, made a scope by the future import
    std::vector<bool> m_annotationBlocks; // m_annotationBlock outside each scope entered
    CompileIssue m_issue;
};

} // namespace

CompileIssue checkCompile(const std::vector<Token> &tokens, const std::vector<Statement> &statements,
    const CompileIssue &pending)
{
    std::map<Position, Facts> facts;
    const CompileIssue symbolTable = Walker(tokens, false, facts, pending).run(statements);
    if (symbolTable.found())
        return symbolTable;
    const CompileIssue codegen = Walker(tokens, true, facts, pending).run(statements);
    if (codegen.found())
        return codegen;
    return pending;
}

} // namespace splitscope::importer
