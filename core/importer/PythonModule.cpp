// SPDX-License-Identifier: MIT
#include "PythonModule.h"

#include "PythonCompileCheck.h"
#include "PythonSourceEncoding.h"
#include "PythonTokenizer.h"

#include <algorithm>
#include <utility>

namespace splitscope::importer {

namespace {

// An inline compound body (`if a: if b: ...` is not Python, but input can say it; it
// is a syntax error) nests at most this deep before the rest is read as one simple statement.
constexpr int kMaxInlineNesting = 100;
// Messages quote at most this many characters of source.
constexpr std::size_t kMaxDescribedLength = 80;

bool isCompoundKeyword(const Token &t)
{
    if (t.kind != TokenKind::Name || t.normalized)
        return false;
    static const char *const kKeywords[] = {"if", "elif", "else", "for", "while", "with", "try", "except",
        "finally", "class", "def", "async"};
    return std::any_of(std::begin(kKeywords), std::end(kKeywords), [&](const char *k) { return t.text == k; });
}

bool isOpen(const Token &t)
{
    return t.kind == TokenKind::Operator && (t.text == "(" || t.text == "[" || t.text == "{");
}

bool isClose(const Token &t)
{
    return t.kind == TokenKind::Operator && (t.text == ")" || t.text == "]" || t.text == "}");
}

// The bracket matching the one at `open`, or range.last.
std::size_t matchingBracket(const std::vector<Token> &tokens, std::size_t open, std::size_t last)
{
    int depth = 0;
    for (std::size_t i = open; i < last; ++i) {
        if (isOpen(tokens[i]))
            ++depth;
        else if (isClose(tokens[i]) && --depth == 0)
            return i;
    }
    return last;
}

// The ':' that ends a compound statement's header (a lambda's ':' is skipped).
std::size_t headerColon(const std::vector<Token> &tokens, TokenRange range)
{
    int pendingLambdas = 0;
    return findTopLevel(tokens, range, [&](const Token &t) {
        if (t.isName("lambda")) {
            ++pendingLambdas;
            return false;
        }
        if (!t.isOperator(":"))
            return false;
        if (pendingLambdas > 0) {
            --pendingLambdas;
            return false;
        }
        return true;
    });
}

// Where a problem at token `at` is reported: past the end of the last line when `at`
// only ends the input (EndOfInput, or the DEDENTs before it), as CPython reports it.
std::pair<int, int> positionOf(const std::vector<Token> &tokens, std::size_t at)
{
    std::size_t next = at;
    while (next + 1 < tokens.size() && tokens[next].kind == TokenKind::Newline)
        ++next;
    std::size_t i = next;
    while (i < tokens.size() && (tokens[i].kind == TokenKind::Dedent || tokens[i].kind == TokenKind::Newline))
        ++i;
    if (i < tokens.size() && tokens[i].kind != TokenKind::EndOfInput)
        return {tokens[next].line, tokens[next].column};
    std::size_t last = std::min(at, tokens.size() - 1);
    while (last > 0 && tokens[last].kind != TokenKind::Name && tokens[last].kind != TokenKind::Number
        && tokens[last].kind != TokenKind::String && tokens[last].kind != TokenKind::Operator)
        --last;
    return {tokens[last].endLine, tokens[last].endColumn};
}

// The first syntax error found, by position in the source.
struct SyntaxIssue {
    std::string message;
    int line = 0;
    int column = 0;
    bool found() const { return !message.empty(); }
    void report(std::string text, int atLine, int atColumn)
    {
        if (found() && (line < atLine || (line == atLine && column <= atColumn)))
            return;
        message = std::move(text);
        line = atLine;
        column = atColumn;
    }
};

// Groups logical lines into blocks, and reports what Python's indentation rules
// refuse: a block that no compound statement opens ("unexpected indent"), and a
// compound statement whose line ends in ':' without a block after it.
class StatementReader {
public:
    explicit StatementReader(const std::vector<Token> &tokens) : m_tokens(tokens) {}

    const SyntaxIssue &issue() const { return m_issue; }

    // `inMatch`: the block of a match statement, where `case` opens a compound statement.
    void readBlock(std::vector<Statement> &out, bool inMatch = false)
    {
        while (m_pos < m_tokens.size()) {
            const Token &t = m_tokens[m_pos];
            if (t.kind == TokenKind::EndOfInput || t.kind == TokenKind::Dedent)
                return;
            if (t.kind == TokenKind::Newline) {
                ++m_pos;
                continue;
            }
            if (t.kind == TokenKind::Indent) {
                // An indented block with no header (Python's "unexpected indent"): kept as
                // a headless statement so that nothing inside is lost to the readers.
                m_issue.report("unexpected indent", t.line, t.column);
                ++m_pos;
                Statement s;
                s.tokens = {m_pos, m_pos};
                s.line = t.line;
                s.column = t.column;
                s.block = true;
                readBlock(s.body);
                if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Dedent)
                    ++m_pos;
                s.end = m_pos;
                out.push_back(std::move(s));
                continue;
            }
            readLogicalLine(out, inMatch);
        }
    }

private:
    void readLogicalLine(std::vector<Statement> &out, bool inMatch)
    {
        const std::size_t start = m_pos;
        while (m_pos < m_tokens.size() && m_tokens[m_pos].kind != TokenKind::Newline
            && m_tokens[m_pos].kind != TokenKind::EndOfInput && m_tokens[m_pos].kind != TokenKind::Indent
            && m_tokens[m_pos].kind != TokenKind::Dedent)
            ++m_pos;
        const std::size_t lineEnd = m_pos;
        if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Newline)
            ++m_pos;
        const std::size_t before = out.size();
        splitSimpleStatements({start, lineEnd}, out, 0, inMatch);
        // A compound statement whose header ends the line: its block must follow.
        const bool opensBlock = out.size() > before && out.back().compound && out.back().body.empty();
        if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Indent && out.size() > before) {
            if (!opensBlock)
                m_issue.report("unexpected indent", m_tokens[m_pos].line, m_tokens[m_pos].column);
            ++m_pos;
            // Only out.back().body grows while the block is read, so the reference stays valid.
            Statement &header = out.back();
            header.block = true;
            readBlock(header.body, opensBlock && header.keyword(m_tokens) == "match");
            if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Dedent)
                ++m_pos;
            header.end = m_pos;
        } else if (opensBlock && m_pos < m_tokens.size()) {
            const Statement &header = out.back();
            const std::string &keyword = header.keyword(m_tokens);
            const auto [line, column] = positionOf(m_tokens, m_pos);
            m_issue.report("expected an indented block after '"
                    + (keyword == "async" && header.tokens.last - header.tokens.first > 1
                              ? "async " + m_tokens[header.tokens.first + 1].text
                              : keyword)
                    + "' statement on line " + std::to_string(header.line),
                line, column);
        }
    }

    // Whether the logical line `range` starts a compound statement: a compound keyword,
    // or the soft keywords `match` (a line `match SUBJECT:`) and `case` (in a match block).
    bool isCompoundStart(TokenRange range, std::size_t colon, bool inMatch) const
    {
        const Token &first = m_tokens[range.first];
        if (isCompoundKeyword(first))
            return true;
        if (colon >= range.last || colon == range.first + 1)
            return false;
        // No simple statement ends in ':', so `match ...:` at the end of a line is a match statement.
        if (first.isName("match"))
            return colon + 1 == range.last;
        return inMatch && first.isName("case");
    }

    // A logical line: one compound statement header (with its inline body), or simple
    // statements separated by ';'. A compound statement after ':' or ';' on the same
    // line (`if a: if b: ...`) is not Python; it is read as one anyway, down to
    // kMaxInlineNesting, so that nothing on the line is lost.
    void splitSimpleStatements(TokenRange range, std::vector<Statement> &out, int nesting, bool inMatch)
    {
        bool lineStart = nesting == 0;
        while (!range.empty()) {
            const Token &first = m_tokens[range.first];
            if (nesting < kMaxInlineNesting) {
                const std::size_t colon = headerColon(m_tokens, range);
                if (colon < range.last && isCompoundStart(range, colon, inMatch)) {
                    if (!lineStart)
                        m_issue.report("invalid syntax: a compound statement ('" + first.text
                                + "') must start its own line", first.line, first.column);
                    Statement s = makeStatement({range.first, colon + 1});
                    s.compound = true;
                    splitSimpleStatements({colon + 1, range.last}, s.body, nesting + 1, false);
                    s.end = range.last;
                    out.push_back(std::move(s));
                    return;
                }
            }
            lineStart = false;
            const std::size_t semicolon = findTopLevel(m_tokens, range, [](const Token &t) { return t.isOperator(";"); });
            if (semicolon > range.first)
                out.push_back(makeStatement({range.first, semicolon}));
            else
                m_issue.report("invalid syntax: a statement is missing before ';'", first.line, first.column);
            range.first = semicolon < range.last ? semicolon + 1 : range.last;
        }
    }

    Statement makeStatement(TokenRange range) const
    {
        Statement s;
        s.tokens = range;
        s.end = range.last;
        s.line = m_tokens[std::min(range.first, m_tokens.size() - 1)].line;
        s.column = m_tokens[std::min(range.first, m_tokens.size() - 1)].column;
        return s;
    }

    const std::vector<Token> &m_tokens;
    std::size_t m_pos = 0;
    SyntaxIssue m_issue;
};

bool isAugmentedAssignment(const Token &t)
{
    return t.kind == TokenKind::Operator && t.text.size() >= 2 && t.text.back() == '=' && t.text != "=="
        && t.text != "<=" && t.text != ">=" && t.text != "!=" && t.text != ":=";
}

// "unexpected 'x'" for messages.
std::string unexpected(const Token &t)
{
    switch (t.kind) {
    case TokenKind::String: return "invalid syntax: unexpected string";
    case TokenKind::Newline:
    case TokenKind::Indent:
    case TokenKind::Dedent:
    case TokenKind::EndOfInput: return "invalid syntax: unexpected end of line";
    default: return "invalid syntax: unexpected '" + t.text + "'";
    }
}

// Checks statements against Python 3's statement grammar; expressions are
// ExpressionParser's. Reports the first problem in source order. An expression nested
// past ExpressionParser::kMaxExpressionDepth ends the check of its statement without a
// report (CPython may accept it; the readers report it where they need it).
class SyntaxChecker {
public:
    explicit SyntaxChecker(const std::vector<Token> &tokens) : m_tokens(tokens) {}

    const SyntaxIssue &issue() const { return m_issue; }
    // What CPython's compiler refuses once the parser accepted the file (checkUnstarred);
    // it counts only when issue() found nothing.
    const SyntaxIssue &compilerIssue() const { return m_compilerIssue; }

    // `parent`: the compound statement whose block this is (nullptr at the top level).
    void checkBlock(const std::vector<Statement> &body, const Statement *parent)
    {
        const bool matchBlock = parent && parent->keyword(m_tokens) == "match";
        Follows follows = Follows::Nothing;
        bool starHandlers = false; // the current try's first handler was `except*`
        const Statement *previous = nullptr;
        for (const Statement &s : body) {
            if (m_issue.found())
                return;
            if (s.tokens.empty())
                return; // an unexpected indent, reported by StatementReader
            const Token &first = m_tokens[s.tokens.first];
            const std::string &keyword = s.keyword(m_tokens);
            const bool isClause = s.compound && (keyword == "elif" || keyword == "else" || keyword == "except"
                || keyword == "finally");
            if (matchBlock && !(s.compound && keyword == "case")) {
                fail(first, "invalid syntax: a match statement's block holds only 'case' blocks");
                return;
            }
            if (follows == Follows::Try && !(isClause && (keyword == "except" || keyword == "finally"))) {
                fail(first, "expected 'except' or 'finally' block");
                return;
            }
            if (follows == Follows::Decorator && !startsDefinition(s)) {
                fail(first, "invalid syntax: a decorator must be followed by def or class");
                return;
            }
            if (isClause) {
                const bool afterTry = follows == Follows::Try || follows == Follows::Except;
                const bool fits = keyword == "elif" ? follows == Follows::If
                    : keyword == "else" ? (follows == Follows::If || follows == Follows::Loop || follows == Follows::Except)
                    : keyword == "except" ? afterTry
                                          : (afterTry || follows == Follows::TryElse);
                if (!fits) {
                    fail(first, "invalid syntax: '" + keyword + "' does not follow "
                            + (keyword == "elif" ? std::string("an 'if'")
                                    : keyword == "else" ? std::string("an 'if', 'for', 'while' or 'except'")
                                                        : std::string("a 'try'")));
                    return;
                }
            }
            if (s.compound && keyword == "except") {
                const bool star = s.tokens.last - s.tokens.first > 1 && m_tokens[s.tokens.first + 1].isOperator("*");
                if (follows == Follows::Try) {
                    starHandlers = star;
                } else if (star != starHandlers) {
                    fail(first, "cannot have both 'except' and 'except*' on the same 'try'");
                    return;
                }
            }
            checkStatement(s);
            follows = nextFollows(s, keyword, follows);
            previous = &s;
        }
        if (!m_issue.found() && previous && (follows == Follows::Try || follows == Follows::Decorator)) {
            const auto [line, column] = positionOf(m_tokens, std::min(previous->end, m_tokens.size() - 1));
            m_issue.report(follows == Follows::Try ? "expected 'except' or 'finally' block"
                                                   : "invalid syntax: a decorator must be followed by def or class",
                line, column);
        }
    }

private:
    // What the next statement of a block may or must be.
    enum class Follows { Nothing, If, Loop, Try, Except, TryElse, Decorator };
    // How an expression is read: `test`, `named_expression`, `star_expressions`.
    enum class Form { One, Named, List };
    // What a target is for: assignment and for (star allowed), del, annotation and augmented assignment.
    enum class Target { Assign, Delete, Annotated, Augmented };

    Follows nextFollows(const Statement &s, const std::string &keyword, Follows current) const
    {
        if (!s.compound)
            return m_tokens[s.tokens.first].isOperator("@") ? Follows::Decorator : Follows::Nothing;
        std::string k = keyword;
        if (k == "async" && s.tokens.last - s.tokens.first > 1)
            k = m_tokens[s.tokens.first + 1].text;
        if (k == "if" || k == "elif")
            return Follows::If;
        if (k == "for" || k == "while")
            return Follows::Loop;
        if (k == "try")
            return Follows::Try;
        if (k == "except")
            return Follows::Except;
        if (k == "else" && current == Follows::Except)
            return Follows::TryElse;
        return Follows::Nothing;
    }

    bool startsDefinition(const Statement &s) const
    {
        const Token &first = m_tokens[s.tokens.first];
        if (first.isOperator("@"))
            return true;
        if (!s.compound)
            return false;
        if (first.isName("def") || first.isName("class"))
            return true;
        return first.isName("async") && s.tokens.last - s.tokens.first > 1
            && m_tokens[s.tokens.first + 1].isName("def");
    }

    void fail(const Token &at, const std::string &message) { m_issue.report(message, at.line, at.column); }
    void failAfter(const Token &t, const std::string &message) { m_issue.report(message, t.endLine, t.endColumn); }

    // Nothing may follow in [i, last).
    bool expectEnd(std::size_t i, std::size_t last)
    {
        if (i < last) {
            fail(m_tokens[i], unexpected(m_tokens[i]));
            return false;
        }
        return true;
    }

    // EXPRESSION [SEPARATOR EXPRESSION] filling [i, last): `raise X from Y`, `assert C, M`.
    template <typename IsSeparator>
    void expressionPair(std::size_t i, std::size_t last, IsSeparator isSeparator)
    {
        if (expression(i, last, Form::One) < 0)
            return;
        if (i < last && isSeparator(m_tokens[i])) {
            ++i;
            if (expression(i, last, Form::One) < 0)
                return;
        }
        expectEnd(i, last);
    }

    void reportParserError(const ExpressionParser &parser)
    {
        m_issue.report(parser.errorIsComplete() ? parser.error() : "invalid syntax: " + parser.error(),
            parser.errorLine(), parser.errorColumn());
    }

    void reportCompilerError(const ExpressionParser &parser)
    {
        if (!parser.compilerError().empty())
            m_compilerIssue.report(parser.compilerError(), parser.compilerErrorLine(), parser.compilerErrorColumn());
    }

    // An expression from `i` (moved past it); -1 on a syntax error (reported) or one nested too deeply.
    int expression(std::size_t &i, std::size_t last, Form form, bool walrus = false)
    {
        if (i >= last) {
            const Token &before = m_tokens[last > 0 ? last - 1 : 0];
            failAfter(before, "invalid syntax: expected an expression");
            return -1;
        }
        ExpressionParser parser(m_tokens, i, last, m_arena);
        const int e = form == Form::One ? parser.parseOne()
            : form == Form::Named       ? parser.parseNamed()
                                        : parser.parseList();
        if (e < 0) {
            if (!parser.tooDeep())
                reportParserError(parser);
            return -1;
        }
        reportCompilerError(parser);
        if (!walrus && form == Form::List) {
            // `a := b` needs parentheses in a statement or an expression list.
            const std::size_t at
                = findTopLevel(m_tokens, {i, parser.position()}, [](const Token &t) { return t.isOperator(":="); });
            if (at < parser.position()) {
                fail(m_tokens[at], "invalid syntax: an assignment expression (':=') needs parentheses here");
                return -1;
            }
        }
        i = parser.position();
        return e;
    }

    // `yield`, `yield EXPRESSIONS`, `yield from EXPRESSION` at `i`; false on an error.
    bool yieldExpression(std::size_t &i, std::size_t last)
    {
        ++i; // yield
        if (i < last && m_tokens[i].isName("from")) {
            ++i;
            return expression(i, last, Form::One) >= 0;
        }
        if (i < last && !m_tokens[i].isOperator("=")) {
            const int value = expression(i, last, Form::List);
            checkUnstarred(value, false);
            return value >= 0;
        }
        return true;
    }

    // CPython's compiler takes a starred expression only in a tuple, a list, a set or a
    // call's arguments; its parser lets one through alone as a statement or a value
    // (`x = *a`, `return *a`), and as a target (`*a = b`, `for *a in b`). `e` < 0: nothing.
    void checkUnstarred(int e, bool target)
    {
        if (e < 0 || m_arena.at(e).kind != ExprKind::Starred)
            return;
        m_compilerIssue.report(target ? "starred assignment target must be in a list or tuple"
                                      : "can't use starred expression here",
            m_arena.at(e).line, m_arena.at(e).column);
    }

    // The value after '=' (or an augmented operator): a yield expression or an expression list.
    // Sets `isYield`; -1 on an error, -2 for a yield expression.
    int assignedValue(std::size_t &i, std::size_t last)
    {
        if (i < last && m_tokens[i].isName("yield"))
            return yieldExpression(i, last) ? -2 : -1;
        return expression(i, last, Form::List);
    }

    // Whether `e` can be assigned to (deleted, annotated) as `kind` requires; reports when not.
    bool checkTarget(int e, Target kind)
    {
        if (kind == Target::Assign) {
            // The check ExpressionParser makes of a comprehension's target.
            const int invalid = findInvalidTarget(m_arena, e);
            if (invalid < 0)
                return true;
            const Expr &start = expressionStart(m_arena, invalid);
            m_issue.report("cannot assign to " + targetDescription(m_arena.at(invalid)), start.line, start.column);
            return false;
        }
        const Expr &x = m_arena.at(e);
        const Expr &start = expressionStart(m_arena, e);
        const bool single = kind == Target::Annotated || kind == Target::Augmented;
        const char *verb = kind == Target::Delete ? "cannot delete " : "cannot assign to ";
        switch (x.kind) {
        case ExprKind::Name:
        case ExprKind::Attribute:
        case ExprKind::Subscript: return true;
        case ExprKind::Starred:
            if (kind != Target::Assign) {
                m_issue.report(kind == Target::Augmented ? "'starred' is an illegal expression for augmented assignment"
                                                         : std::string(verb) + "starred",
                    start.line, start.column);
                return false;
            }
            return checkTarget(x.items.front(), kind);
        case ExprKind::Tuple:
        case ExprKind::List:
            if (single) {
                m_issue.report(kind == Target::Annotated
                        ? "only a single target (not a " + targetDescription(x) + ") can be annotated"
                        : "'" + targetDescription(x) + "' is an illegal expression for augmented assignment",
                    start.line, start.column);
                return false;
            }
            for (const int item : x.items) {
                if (!checkTarget(item, kind))
                    return false;
            }
            return true;
        default:
            break;
        }
        m_issue.report(kind == Target::Augmented
                ? "'" + targetDescription(x) + "' is an illegal expression for augmented assignment"
                : std::string(verb) + targetDescription(x),
            start.line, start.column);
        return false;
    }

    void checkStatement(const Statement &s)
    {
        m_arena = ExprArena();
        if (!s.compound) {
            checkSimple(s.tokens);
            return; // a block after it is an unexpected indent, reported by StatementReader
        }
        checkHeader(s.tokens.first, s.tokens.last - 1); // without the ':'
        if (m_issue.found())
            return;
        if (s.block) {
            checkBlock(s.body, &s);
            return;
        }
        for (const Statement &inner : s.body) {
            if (m_issue.found() || inner.compound)
                return; // a compound statement on the header's line: reported by StatementReader
            if (m_tokens[inner.tokens.first].isOperator("@")) {
                fail(m_tokens[inner.tokens.first], "invalid syntax: a decorator must start its own line");
                return;
            }
            m_arena = ExprArena();
            checkSimple(inner.tokens);
        }
    }

    // A compound statement's header, [first, last) without its ':'.
    void checkHeader(std::size_t first, std::size_t last)
    {
        const Token &keyword = m_tokens[first];
        std::size_t i = first + 1;
        const std::string &k = keyword.text;
        if (k == "async") {
            if (i >= last || !(m_tokens[i].isName("def") || m_tokens[i].isName("for") || m_tokens[i].isName("with"))) {
                fail(i < last ? m_tokens[i] : keyword, "invalid syntax: 'async' must be followed by def, for or with");
                return;
            }
            checkHeader(i, last);
            return;
        }
        if (k == "if" || k == "elif" || k == "while") {
            if (expression(i, last, Form::Named) >= 0)
                expectEnd(i, last);
        } else if (k == "else" || k == "try" || k == "finally") {
            expectEnd(i, last);
        } else if (k == "for") {
            const std::size_t in = findTopLevel(m_tokens, {i, last}, [](const Token &t) { return t.isName("in"); });
            if (in >= last) {
                fail(i < last ? m_tokens[i] : keyword, "invalid syntax: expected 'in' in the for statement");
                return;
            }
            const int targets = expression(i, in, Form::List);
            if (targets < 0 || !expectEnd(i, in) || !checkTarget(targets, Target::Assign))
                return;
            checkUnstarred(targets, true);
            i = in + 1;
            const int iterable = expression(i, last, Form::List);
            if (iterable >= 0 && expectEnd(i, last))
                checkUnstarred(iterable, false);
        } else if (k == "with") {
            checkWithItems(i, last);
        } else if (k == "except") {
            if (i < last && m_tokens[i].isOperator("*")) {
                ++i;
                if (i >= last) {
                    failAfter(m_tokens[i - 1], "invalid syntax: expected an exception type after 'except*'");
                    return;
                }
            }
            if (i >= last)
                return;
            const std::size_t types = i;
            if (expression(i, last, Form::List) < 0)
                return;
            // Python 2's `except E, e:` reads as a tuple here; Python 3 wants it in brackets.
            if (findTopLevel(m_tokens, {types, i}, [](const Token &t) { return t.isOperator(","); }) < i) {
                fail(m_tokens[types], "multiple exception types must be parenthesized");
                return;
            }
            if (i < last && m_tokens[i].isName("as")) {
                ++i;
                if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                    fail(i < last ? m_tokens[i] : m_tokens[i - 1], "invalid syntax: expected a name after 'as'");
                    return;
                }
                ++i;
            }
            expectEnd(i, last);
        } else if (k == "def" || k == "class") {
            if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                fail(i < last ? m_tokens[i] : keyword,
                    "invalid syntax: expected a " + std::string(k == "def" ? "function" : "class") + " name after '" + k + "'");
                return;
            }
            ++i;
            if (i < last && m_tokens[i].isOperator("[")) {
                // Type parameters (Python 3.12): `[T, *Ts, **P]`, bounds and defaults.
                i = matchingBracket(m_tokens, i, last) + 1;
            }
            if (k == "def") {
                if (i >= last || !m_tokens[i].isOperator("(")) {
                    fail(i < last ? m_tokens[i] : m_tokens[last - 1],
                        "invalid syntax: expected '(' after the function name");
                    return;
                }
                const std::size_t close = matchingBracket(m_tokens, i, last);
                if (!checkParameters(i + 1, close))
                    return;
                i = close + 1;
                if (i < last && m_tokens[i].isOperator("->")) {
                    ++i;
                    if (expression(i, last, Form::One) < 0)
                        return;
                }
            } else if (i < last && m_tokens[i].isOperator("(")) {
                ExpressionParser parser(m_tokens, i, last, m_arena);
                if (parser.parseArguments() < 0) {
                    if (!parser.tooDeep())
                        reportParserError(parser);
                    return;
                }
                reportCompilerError(parser);
                // A call takes a lone generator expression (`f(x for x in y)`); a class's
                // bases do not: CPython's grammar has no such form there. In arguments that
                // parsed, a `for` outside brackets can only be such a generator's.
                const std::size_t comprehension = findTopLevel(m_tokens, {i + 1, parser.position() - 1},
                    [](const Token &t) { return t.isName("for") || t.isName("async"); });
                if (comprehension < parser.position() - 1) {
                    fail(m_tokens[comprehension],
                        "invalid syntax: a generator expression cannot be a class's base (parenthesize it)");
                    return;
                }
                i = parser.position();
            }
            expectEnd(i, last);
        } else if (k == "match") {
            if (expression(i, last, Form::List, true) >= 0)
                expectEnd(i, last);
        } else if (k == "case") {
            // No pattern holds `if`: the first one at the top level starts the guard.
            const std::size_t guard = findTopLevel(m_tokens, {i, last}, [](const Token &t) { return t.isName("if"); });
            if (guard == i) {
                fail(m_tokens[i], "invalid syntax: expected a pattern after 'case'");
                return;
            }
            m_patternDepth = 0;
            if (!patterns(i, guard) || !expectEnd(i, guard))
                return;
            if (guard < last) {
                i = guard + 1;
                if (expression(i, last, Form::Named) >= 0)
                    expectEnd(i, last);
            }
        }
    }

    // Case patterns (PEP 634), CPython's grammar from `patterns` down: sequences with
    // at most star patterns and captures inside, mappings whose keys are literals or
    // dotted names, class patterns with keyword patterns last, `|` and `as`, and
    // literals where a '+' or '-' joins a real and an imaginary number only (`-1 + 2j`).
    // What CPython's compiler checks after parsing (a name bound twice, `_` or a capture
    // before other alternatives) is not. Each reads from `i` (moved past what it read)
    // to `last`; false when it reported an error, or when the pattern nests past
    // ExpressionParser::kMaxExpressionDepth (not reported, as for expressions).

    // The patterns after `case`: one pattern, or an open sequence `a, *rest`.
    bool patterns(std::size_t &i, std::size_t last)
    {
        bool star = false;
        if (!maybeStarPattern(i, last, star))
            return false;
        if (i < last && m_tokens[i].isOperator(","))
            return sequenceRest(i, last);
        if (star) {
            patternFail(i, last, "invalid syntax: a star pattern must be in a sequence pattern (add ',')");
            return false;
        }
        return true;
    }

    // After the first item and at its ',': more items, a trailing comma allowed.
    bool sequenceRest(std::size_t &i, std::size_t last)
    {
        while (i < last && m_tokens[i].isOperator(",")) {
            ++i;
            if (i >= last)
                return true;
            bool star = false;
            if (!maybeStarPattern(i, last, star))
                return false;
        }
        return true;
    }

    // `*name`, `*_` or a pattern; `star` says which.
    bool maybeStarPattern(std::size_t &i, std::size_t last, bool &star)
    {
        star = i < last && m_tokens[i].isOperator("*");
        if (!star)
            return pattern(i, last);
        ++i;
        if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
            patternFail(i, last, "invalid syntax: expected a name after '*' in a pattern");
            return false;
        }
        ++i;
        return true;
    }

    // `or_pattern ['as' NAME]`.
    bool pattern(std::size_t &i, std::size_t last)
    {
        if (++m_patternDepth > ExpressionParser::kMaxExpressionDepth)
            return false;
        const bool ok = orPattern(i, last) && asTarget(i, last);
        --m_patternDepth;
        return ok;
    }

    bool orPattern(std::size_t &i, std::size_t last)
    {
        if (!closedPattern(i, last))
            return false;
        while (i < last && m_tokens[i].isOperator("|")) {
            ++i;
            if (!closedPattern(i, last))
                return false;
        }
        return true;
    }

    bool asTarget(std::size_t &i, std::size_t last)
    {
        if (i >= last || !m_tokens[i].isName("as"))
            return true;
        ++i;
        if (i < last && m_tokens[i].isName("_")) {
            fail(m_tokens[i], "cannot use '_' as a target");
            return false;
        }
        if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
            patternFail(i, last, "invalid pattern target (expected a name after 'as')");
            return false;
        }
        ++i;
        if (i < last && (m_tokens[i].isOperator(".") || m_tokens[i].isOperator("(") || m_tokens[i].isOperator("="))) {
            fail(m_tokens[i], "invalid pattern target (expected a name after 'as')");
            return false;
        }
        return true;
    }

    // A literal, capture, wildcard, value, group, sequence, mapping or class pattern.
    bool closedPattern(std::size_t &i, std::size_t last)
    {
        if (i >= last) {
            patternFail(i, last, "invalid syntax: expected a pattern");
            return false;
        }
        const Token &t = m_tokens[i];
        if (t.kind == TokenKind::Number || t.isOperator("-") || t.kind == TokenKind::String || t.isName("None")
            || t.isName("True") || t.isName("False"))
            return literalPattern(i, last);
        if (t.isName("_")) {
            // The wildcard: CPython's grammar tries it before value and class patterns,
            // so `_.a` and `_()` are not patterns.
            ++i;
            return true;
        }
        if (t.kind == TokenKind::Name && !t.isKeyword()) {
            if (!dottedName(i, last))
                return false;
            if (i < last && m_tokens[i].isOperator("("))
                return classArguments(i, last);
            return true; // a capture or `_` (one name), or a value (dotted)
        }
        if (t.isOperator("(") || t.isOperator("[")) {
            const bool round = t.isOperator("(");
            const std::size_t close = matchingBracket(m_tokens, i, last);
            std::size_t k = i + 1;
            if (k < close) {
                bool star = false;
                if (!maybeStarPattern(k, close, star))
                    return false;
                if (k < close && m_tokens[k].isOperator(",")) {
                    if (!sequenceRest(k, close))
                        return false;
                } else if (round && star) {
                    // `(*rest)` is neither a group (no star) nor a sequence (no comma).
                    patternFail(k, close, "invalid syntax: a star pattern must be in a sequence pattern (add ',')");
                    return false;
                }
                if (!expectEnd(k, close))
                    return false;
            }
            i = close + 1;
            return true;
        }
        if (t.isOperator("{"))
            return mappingPattern(i, last);
        patternFail(i, last, t.isOperator("*") ? "invalid syntax: a star pattern must be in a sequence pattern"
                                               : "invalid syntax: expected a pattern, not " + describeToken(t));
        return false;
    }

    // A number (`-1`), a complex number (`1 - 2j`), strings, None, True, False: a
    // literal pattern or a mapping pattern's key.
    bool literalPattern(std::size_t &i, std::size_t last)
    {
        const Token &t = m_tokens[i];
        if (t.kind == TokenKind::String) {
            const std::size_t first = i;
            while (i < last && m_tokens[i].kind == TokenKind::String)
                ++i;
            const StringsError problem = checkAdjacentStrings(m_tokens, first, i);
            if (!problem.message.empty()) {
                m_issue.report(problem.message, problem.line, problem.column);
                return false;
            }
            return true;
        }
        if (t.kind == TokenKind::Name) {
            ++i;
            return true;
        }
        if (t.isOperator("-"))
            ++i;
        if (i >= last || m_tokens[i].kind != TokenKind::Number) {
            patternFail(i, last, "invalid syntax: expected a number after '-' in a pattern");
            return false;
        }
        const Token &real = m_tokens[i];
        ++i;
        if (i >= last || !(m_tokens[i].isOperator("+") || m_tokens[i].isOperator("-")))
            return true;
        // A complex literal: real +/- imaginary, as CPython's grammar has it.
        if (isImaginary(real)) {
            fail(real, "real number required in complex literal");
            return false;
        }
        ++i;
        if (i >= last || m_tokens[i].kind != TokenKind::Number) {
            patternFail(i, last, "invalid syntax: expected an imaginary number in the complex literal");
            return false;
        }
        if (!isImaginary(m_tokens[i])) {
            fail(m_tokens[i], "imaginary number required in complex literal");
            return false;
        }
        ++i;
        return true;
    }

    static bool isImaginary(const Token &number)
    {
        return !number.text.empty() && (number.text.back() == 'j' || number.text.back() == 'J');
    }

    // NAME ('.' NAME)*.
    bool dottedName(std::size_t &i, std::size_t last)
    {
        ++i;
        while (i < last && m_tokens[i].isOperator(".")) {
            ++i;
            if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                patternFail(i, last, "invalid syntax: expected an attribute name after '.'");
                return false;
            }
            ++i;
        }
        return true;
    }

    // `Class(p, q, name=r)` at '(': positional patterns, then keyword patterns.
    bool classArguments(std::size_t &i, std::size_t last)
    {
        const std::size_t close = matchingBracket(m_tokens, i, last);
        std::size_t k = i + 1;
        bool keywords = false;
        while (k < close) {
            if (m_tokens[k].kind == TokenKind::Name && k + 1 < close && m_tokens[k + 1].isOperator("=")) {
                if (m_tokens[k].isKeyword()) {
                    fail(m_tokens[k], "'" + m_tokens[k].text + "' is a keyword and cannot be an attribute name");
                    return false;
                }
                keywords = true;
                k += 2;
            } else if (keywords) {
                fail(m_tokens[k], "positional patterns follow keyword patterns");
                return false;
            }
            if (!itemPattern(k, close))
                return false;
        }
        i = close + 1;
        return true;
    }

    // One item of a bracketed pattern list, then ',' or the list's end (`close`):
    // k is past the ',' or at `close`; false once an error is reported.
    bool itemPattern(std::size_t &k, std::size_t close)
    {
        if (!pattern(k, close))
            return false;
        if (k >= close)
            return true;
        if (!m_tokens[k].isOperator(",")) {
            expectEnd(k, close);
            return false;
        }
        ++k;
        return true;
    }

    // `{key: pattern, ..., **rest}` at '{'; keys are literals or dotted names (`a.B`).
    bool mappingPattern(std::size_t &i, std::size_t last)
    {
        const std::size_t close = matchingBracket(m_tokens, i, last);
        std::size_t k = i + 1;
        while (k < close) {
            if (m_tokens[k].isOperator("**")) {
                ++k;
                if (k >= close || m_tokens[k].kind != TokenKind::Name || m_tokens[k].isKeyword()
                    || m_tokens[k].text == "_") {
                    patternFail(k, close, "invalid syntax: expected a name after '**' in a mapping pattern");
                    return false;
                }
                const std::string &rest = m_tokens[k].text;
                ++k;
                if (k < close && !m_tokens[k].isOperator(",")) {
                    expectEnd(k, close);
                    return false;
                }
                if (k + 1 < close) {
                    fail(m_tokens[k + 1], "invalid syntax: '**" + rest + "' must be the last item of a mapping pattern");
                    return false;
                }
                break;
            }
            const Token &key = m_tokens[k];
            if (key.kind == TokenKind::Name && !key.isKeyword()) {
                const std::size_t start = k;
                if (!dottedName(k, close))
                    return false;
                if (k == start + 1) {
                    // Where CPython puts it: after the name, where it wanted a '.'.
                    patternFail(k, close, "invalid syntax: a mapping pattern's key is a literal or a dotted name (a.b), not '"
                            + key.text + "'");
                    return false;
                }
            } else if (key.kind == TokenKind::Number || key.isOperator("-") || key.kind == TokenKind::String
                || key.isName("None") || key.isName("True") || key.isName("False")) {
                if (!literalPattern(k, close))
                    return false;
            } else {
                fail(key, "invalid syntax: a mapping pattern's key is a literal or a dotted name, not "
                        + describeToken(key));
                return false;
            }
            if (k >= close || !m_tokens[k].isOperator(":")) {
                patternFail(k, close, "invalid syntax: expected ':' after the key in a mapping pattern");
                return false;
            }
            ++k;
            if (!itemPattern(k, close))
                return false;
        }
        i = close + 1;
        return true;
    }

    // At token `i`, or at the token that ends the range (a closing bracket, the guard's
    // `if`, the header's ':'), where CPython reports it.
    void patternFail(std::size_t i, std::size_t last, const std::string &message)
    {
        fail(m_tokens[std::min({i, last, m_tokens.size() - 1})], message);
    }

    static std::string describeToken(const Token &t)
    {
        return t.kind == TokenKind::String ? std::string("a string") : "'" + t.text + "'";
    }

    // `with a as b, c:` or `with (a as b, c,):`.
    void checkWithItems(std::size_t i, std::size_t last)
    {
        if (i < last && m_tokens[i].isOperator("(") && matchingBracket(m_tokens, i, last) + 1 == last
            && findTopLevel(m_tokens, {i + 1, last - 1}, [](const Token &t) { return t.isName("as"); }) < last - 1) {
            checkItems(i + 1, last - 1, true);
            return;
        }
        checkItems(i, last, false);
    }

    void checkItems(std::size_t i, std::size_t last, bool trailingComma)
    {
        if (i >= last) {
            fail(m_tokens[i < m_tokens.size() ? i : m_tokens.size() - 1], "invalid syntax: expected a context manager");
            return;
        }
        while (i < last) {
            if (expression(i, last, Form::One) < 0)
                return;
            if (i < last && m_tokens[i].isName("as")) {
                ++i;
                // `as *a` passes CPython's grammar (a star_target); its compiler refuses it.
                const Token &star = m_tokens[i < last ? i : last - 1];
                if (star.isOperator("*"))
                    ++i;
                const int target = expression(i, last, Form::One);
                if (target < 0 || !checkTarget(target, Target::Assign))
                    return;
                if (star.isOperator("*"))
                    m_compilerIssue.report("starred assignment target must be in a list or tuple", star.line, star.column);
            }
            if (i >= last)
                return;
            if (!m_tokens[i].isOperator(",")) {
                expectEnd(i, last);
                return;
            }
            ++i;
            if (i >= last && !trailingComma) {
                failAfter(m_tokens[i - 1], "invalid syntax: expected a context manager after ','");
                return;
            }
        }
    }

    // A def's parameter list, [i, last) inside its parentheses.
    bool checkParameters(std::size_t i, std::size_t last)
    {
        bool slash = false, star = false, bareStar = false, keywordOnly = false, doubleStar = false, defaults = false;
        bool any = false;
        while (i < last) {
            const Token &t = m_tokens[i];
            if (doubleStar) {
                fail(t, "invalid syntax: parameters cannot follow the var-keyword parameter");
                return false;
            }
            if (t.isOperator("/")) {
                if (slash || star || !any) {
                    fail(t, "invalid syntax: '/' must follow positional parameters, once");
                    return false;
                }
                slash = true;
                ++i;
            } else {
                const bool isStar = t.isOperator("*");
                const bool isDoubleStar = t.isOperator("**");
                if (isStar && star) {
                    fail(t, "invalid syntax: '*' may appear only once");
                    return false;
                }
                if (isStar || isDoubleStar)
                    ++i;
                if (isStar && (i >= last || m_tokens[i].isOperator(","))) {
                    star = bareStar = true;
                    any = true;
                } else {
                    if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                        fail(i < last ? m_tokens[i] : m_tokens[i - 1], "invalid syntax: expected a parameter name");
                        return false;
                    }
                    ++i;
                    if (i < last && m_tokens[i].isOperator(":")) {
                        ++i;
                        // `*args: *Ts` (Python 3.11) is a starred annotation.
                        if (isStar && i < last && m_tokens[i].isOperator("*"))
                            ++i;
                        if (expression(i, last, Form::One) < 0)
                            return false;
                    }
                    if (i < last && m_tokens[i].isOperator("=")) {
                        if (isStar || isDoubleStar) {
                            fail(m_tokens[i],
                                "invalid syntax: a var-positional or var-keyword parameter cannot have a default");
                            return false;
                        }
                        ++i;
                        if (expression(i, last, Form::One) < 0)
                            return false;
                        defaults = defaults || !star;
                    } else if (defaults && !star && !isStar && !isDoubleStar) {
                        fail(m_tokens[i - 1], "non-default argument follows default argument");
                        return false;
                    }
                    star = star || isStar;
                    keywordOnly = keywordOnly || (bareStar && !isStar && !isDoubleStar);
                    doubleStar = isDoubleStar;
                    any = true;
                }
            }
            if (i < last && !m_tokens[i].isOperator(",")) {
                fail(m_tokens[i], unexpected(m_tokens[i]));
                return false;
            }
            if (i < last)
                ++i;
        }
        if (bareStar && !keywordOnly) {
            fail(m_tokens[last < m_tokens.size() ? last : m_tokens.size() - 1], "named arguments must follow bare *");
            return false;
        }
        return true;
    }

    // One simple statement (no ';' inside).
    void checkSimple(TokenRange r)
    {
        std::size_t i = r.first;
        const std::size_t last = r.last;
        const Token &first = m_tokens[i];
        if (first.isOperator("@")) {
            ++i;
            if (expression(i, last, Form::Named) >= 0)
                expectEnd(i, last);
            return;
        }
        if (first.kind == TokenKind::Name) {
            const std::string &k = first.text;
            if (k == "pass" || k == "break" || k == "continue") {
                expectEnd(i + 1, last);
                return;
            }
            if (k == "return") {
                ++i;
                if (i < last) {
                    const int value = expression(i, last, Form::List);
                    if (value < 0)
                        return;
                    checkUnstarred(value, false);
                }
                expectEnd(i, last);
                return;
            }
            if (k == "raise") {
                ++i;
                if (i < last)
                    expressionPair(i, last, [](const Token &t) { return t.isName("from"); });
                else
                    expectEnd(i, last);
                return;
            }
            if (k == "global" || k == "nonlocal") {
                ++i;
                while (true) {
                    if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                        fail(i < last ? m_tokens[i] : m_tokens[i - 1],
                            "invalid syntax: expected a name after '" + k + "'");
                        return;
                    }
                    ++i;
                    if (i >= last)
                        return;
                    if (!m_tokens[i].isOperator(",")) {
                        expectEnd(i, last);
                        return;
                    }
                    ++i;
                }
            }
            if (k == "del") {
                ++i;
                const int targets = expression(i, last, Form::List);
                if (targets >= 0 && expectEnd(i, last))
                    checkTarget(targets, Target::Delete);
                return;
            }
            if (k == "assert") {
                ++i;
                expressionPair(i, last, [](const Token &t) { return t.isOperator(","); });
                return;
            }
            if (k == "import" || k == "from") {
                checkImport(r);
                return;
            }
            if (k == "yield") {
                if (yieldExpression(i, last)) {
                    if (i < last && m_tokens[i].isOperator("="))
                        fail(first, "invalid syntax: cannot assign to yield expression");
                    else
                        expectEnd(i, last);
                }
                return;
            }
            if (isCompoundKeyword(first)) {
                // A compound statement's header without its ':'.
                checkHeader(r.first, last);
                if (!m_issue.found())
                    failAfter(m_tokens[last - 1], "expected ':'");
                return;
            }
            if (k == "type" && i + 2 < last && m_tokens[i + 1].kind == TokenKind::Name
                && !m_tokens[i + 1].isKeyword()
                && (m_tokens[i + 2].isOperator("=") || m_tokens[i + 2].isOperator("["))) {
                // `type X[T] = ...` (Python 3.12).
                i += 2;
                if (m_tokens[i].isOperator("["))
                    i = matchingBracket(m_tokens, i, last) + 1;
                if (i >= last || !m_tokens[i].isOperator("=")) {
                    fail(i < last ? m_tokens[i] : m_tokens[last - 1], "invalid syntax: expected '=' in the type alias");
                    return;
                }
                ++i;
                if (expression(i, last, Form::One) >= 0)
                    expectEnd(i, last);
                return;
            }
        }
        // An expression statement or an assignment.
        int e = expression(i, last, Form::List);
        if (e < 0)
            return;
        if (i >= last) {
            checkUnstarred(e, false);
            return;
        }
        const Token &op = m_tokens[i];
        if (op.isOperator("=")) {
            while (i < last && m_tokens[i].isOperator("=")) {
                if (e == -2) {
                    fail(m_tokens[i], "invalid syntax: cannot assign to yield expression");
                    return;
                }
                if (!checkTarget(e, Target::Assign))
                    return;
                checkUnstarred(e, true);
                ++i;
                e = assignedValue(i, last);
                if (e == -1)
                    return;
            }
            checkUnstarred(e, false);
            expectEnd(i, last);
            return;
        }
        if (op.isOperator(":")) {
            if (!checkTarget(e, Target::Annotated))
                return;
            ++i;
            if (expression(i, last, Form::One) < 0)
                return;
            if (i < last && m_tokens[i].isOperator("=")) {
                ++i;
                const int value = assignedValue(i, last);
                if (value == -1)
                    return;
                checkUnstarred(value, false);
            }
            expectEnd(i, last);
            return;
        }
        if (isAugmentedAssignment(op)) {
            if (!checkTarget(e, Target::Augmented))
                return;
            ++i;
            const int value = assignedValue(i, last);
            checkUnstarred(value, false);
            if (value != -1)
                expectEnd(i, last);
            return;
        }
        // `print "x"`: Python 2's print statement.
        if ((first.isName("print") || first.isName("exec")) && i == r.first + 1) {
            fail(first, "Missing parentheses in call to '" + first.text + "'. Did you mean " + first.text + "(...)?");
            return;
        }
        fail(op, unexpected(op));
    }

    // `import a.b as c, d` and `from ..a import (b as c, d)`, `from . import *`.
    void checkImport(TokenRange r)
    {
        std::size_t i = r.first;
        const std::size_t last = r.last;
        const auto name = [&](const char *what) {
            if (i >= last || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                fail(i < last ? m_tokens[i] : m_tokens[i - 1], std::string("invalid syntax: expected ") + what);
                return false;
            }
            ++i;
            return true;
        };
        const auto dotted = [&]() {
            if (!name("a module name"))
                return false;
            while (i < last && m_tokens[i].isOperator(".")) {
                ++i;
                if (!name("a module name after '.'"))
                    return false;
            }
            return true;
        };
        const auto alias = [&]() { return i >= last || !m_tokens[i].isName("as") || (++i, name("a name after 'as'")); };
        if (m_tokens[i].isName("import")) {
            ++i;
            while (true) {
                if (!dotted() || !alias())
                    return;
                if (i >= last)
                    return;
                if (!m_tokens[i].isOperator(",")) {
                    expectEnd(i, last);
                    return;
                }
                ++i;
            }
        }
        ++i; // from
        bool dots = false;
        while (i < last && (m_tokens[i].isOperator(".") || m_tokens[i].isOperator("..."))) {
            dots = true;
            ++i;
        }
        if (!(dots && i < last && m_tokens[i].isName("import")) && !dotted())
            return;
        if (i >= last || !m_tokens[i].isName("import")) {
            fail(i < last ? m_tokens[i] : m_tokens[i - 1], "invalid syntax: expected 'import'");
            return;
        }
        ++i;
        if (i < last && m_tokens[i].isOperator("*")) {
            expectEnd(i + 1, last);
            return;
        }
        std::size_t end = last;
        const bool parenthesized = i < last && m_tokens[i].isOperator("(");
        if (parenthesized) {
            end = matchingBracket(m_tokens, i, last);
            if (!expectEnd(end + 1, last))
                return;
            ++i;
        }
        while (true) {
            if (i >= end || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                fail(i < end ? m_tokens[i] : m_tokens[i - 1], "invalid syntax: expected a name to import");
                return;
            }
            ++i;
            if (i < end && m_tokens[i].isName("as")) {
                ++i;
                if (i >= end || m_tokens[i].kind != TokenKind::Name || m_tokens[i].isKeyword()) {
                    fail(i < end ? m_tokens[i] : m_tokens[i - 1], "invalid syntax: expected a name after 'as'");
                    return;
                }
                ++i;
            }
            if (i >= end)
                return;
            if (!m_tokens[i].isOperator(",")) {
                expectEnd(i, end);
                return;
            }
            ++i;
            if (i >= end) {
                if (!parenthesized)
                    failAfter(m_tokens[i - 1], "trailing comma not allowed without surrounding parentheses");
                return;
            }
        }
    }

    const std::vector<Token> &m_tokens;
    ExprArena m_arena; // one statement's expressions
    SyntaxIssue m_issue;
    SyntaxIssue m_compilerIssue;
    int m_patternDepth = 0; // patterns nested in the case being checked
};

// A string literal CPython's parser refuses that the checker did not read (one inside
// type parameters, or in an expression nested past its depth limit): with the rest of the
// file valid, the first one is the error.
SyntaxIssue refusedLiteral(const std::vector<Token> &tokens)
{
    SyntaxIssue issue;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind != TokenKind::String || tokens[i].literalError == LiteralError::None)
            continue;
        std::size_t first = i, last = i + 1;
        while (first > 0 && tokens[first - 1].kind == TokenKind::String)
            --first;
        while (last < tokens.size() && tokens[last].kind == TokenKind::String)
            ++last;
        const StringsError problem = checkAdjacentStrings(tokens, first, last);
        issue.report(problem.message, problem.line, problem.column);
        break;
    }
    return issue;
}

// inspect.cleandoc: strip the first line, dedent the rest by their common indentation,
// drop blank lines at both ends.
std::string cleanDocstring(const std::string &raw)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= raw.size()) {
        const std::size_t nl = raw.find('\n', start);
        lines.push_back(raw.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    std::size_t indent = std::string::npos;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::size_t first = lines[i].find_first_not_of(" \t");
        if (first != std::string::npos)
            indent = std::min(indent, first);
    }
    const auto trim = [](const std::string &s) {
        const std::size_t a = s.find_first_not_of(" \t\r");
        if (a == std::string::npos)
            return std::string();
        return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
    };
    lines.front() = trim(lines.front());
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::string &l = lines[i];
        l = (indent != std::string::npos && l.size() >= indent) ? l.substr(indent) : trim(l);
        while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r'))
            l.pop_back();
    }
    while (!lines.empty() && lines.front().empty())
        lines.erase(lines.begin());
    while (!lines.empty() && lines.back().empty())
        lines.pop_back();
    std::string out;
    for (const auto &l : lines) {
        if (!out.empty())
            out += '\n';
        out += l;
    }
    return out;
}

std::string stemOf(const std::string &fileName)
{
    std::string base = fileName;
    if (const std::size_t slash = base.find_last_of("/\\"); slash != std::string::npos)
        base = base.substr(slash + 1);
    if (base.size() > 3 && base.compare(base.size() - 3, 3, ".py") == 0)
        base.resize(base.size() - 3);
    return base;
}

// CPython's compiler counts a column in UTF-8 bytes: the byte column of character column
// `column` on line `line` of `source` (decoded as the tokenizer decodes it).
int byteColumn(std::string_view source, int line, int column)
{
    const DecodedSource decoded = decodePythonSource(source);
    const std::string_view text = decoded.converted ? std::string_view(decoded.text) : source;
    std::size_t start = 0;
    for (int l = 1; l < line && start < text.size(); ++l) {
        const std::size_t end = text.find_first_of("\r\n", start);
        if (end == std::string_view::npos)
            return column;
        start = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
    }
    if (start < 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0 && line == 1)
        start = 3; // a byte order mark is no column
    std::size_t at = start;
    for (int c = 1; c < column && at < text.size(); ++c) {
        ++at;
        while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
            ++at;
    }
    return static_cast<int>(at - start) + 1;
}

} // namespace

const std::string &Statement::keyword(const std::vector<Token> &tokens) const
{
    static const std::string kNone;
    if (tokens.empty() || this->tokens.empty() || tokens[this->tokens.first].kind != TokenKind::Name
        || tokens[this->tokens.first].normalized)
        return kNone;
    return tokens[this->tokens.first].text;
}

const FunctionDef *ClassDef::method(const std::string &methodName) const
{
    // The last definition wins, as in Python.
    for (auto it = methods.rbegin(); it != methods.rend(); ++it) {
        if (it->name == methodName)
            return &*it;
    }
    return nullptr;
}

std::unique_ptr<PythonModule> PythonModule::read(std::string_view source, std::string fileName)
{
    std::unique_ptr<PythonModule> module(new PythonModule());
    module->m_fileName = std::move(fileName);
    module->m_stem = stemOf(module->m_fileName);
    TokenizeResult tokenized = tokenizePython(source);
    if (!tokenized.ok()) {
        module->m_syntaxError = tokenized.error;
        module->m_syntaxErrorLine = tokenized.errorLine;
        module->m_syntaxErrorColumn = tokenized.errorColumn;
        module->m_tokens.clear();
        Token end;
        module->m_tokens.push_back(end);
        return module;
    }
    module->m_tokens = std::move(tokenized.tokens);
    StatementReader reader(module->m_tokens);
    reader.readBlock(module->m_statements);
    SyntaxChecker checker(module->m_tokens);
    checker.checkBlock(module->m_statements, nullptr);
    SyntaxIssue issue = reader.issue();
    if (checker.issue().found())
        issue.report(checker.issue().message, checker.issue().line, checker.issue().column);
    if (!issue.found())
        issue = refusedLiteral(module->m_tokens);
    if (!issue.found()) {
        // CPython compiles only what parsed.
        CompileIssue pending{checker.compilerIssue().message, checker.compilerIssue().line, checker.compilerIssue().column};
        const CompileIssue compiled = checkCompile(module->m_tokens, module->m_statements, pending);
        if (compiled.found())
            issue.report(compiled.message, compiled.line, byteColumn(source, compiled.line, compiled.column));
    }
    if (issue.found()) {
        // As for a tokenizer error: Python would not run the file, so nothing in it is read.
        module->m_syntaxError = issue.message;
        module->m_syntaxErrorLine = issue.line;
        module->m_syntaxErrorColumn = issue.column;
        module->m_statements.clear();
        module->m_tokens.assign(1, Token());
        return module;
    }
    module->readStructure();
    return module;
}

void PythonModule::readStructure()
{
    // Imports may sit inside top-level if/try blocks (optional dependencies); classes,
    // functions and constants count only at the top level.
    std::vector<const Statement *> pending;
    for (const Statement &s : m_statements)
        pending.push_back(&s);
    for (const Statement &s : m_statements) {
        const std::string &keyword = s.keyword(m_tokens);
        if (keyword == "class")
            readClass(s);
        else if (keyword == "def" || keyword == "async")
            m_functions.push_back(readFunction(s));
        else
            readConstant(s);
    }
    for (std::size_t i = 0; i < m_classes.size(); ++i)
        m_classIndex[m_classes[i].name] = i;
    for (std::size_t i = 0; i < m_functions.size(); ++i)
        m_functionIndex[m_functions[i].name] = i;
    while (!pending.empty()) {
        const Statement *s = pending.back();
        pending.pop_back();
        const std::string &keyword = s->keyword(m_tokens);
        if (keyword == "import" || keyword == "from") {
            readImports(*s);
        } else if (keyword == "if" || keyword == "else" || keyword == "elif" || keyword == "try"
            || keyword == "except" || keyword == "finally") {
            for (const Statement &inner : s->body)
                pending.push_back(&inner);
        }
    }
}

void PythonModule::readClass(const Statement &statement)
{
    const TokenRange header = statement.tokens;
    if (header.last - header.first < 2 || m_tokens[header.first + 1].kind != TokenKind::Name)
        return;
    ClassDef c;
    c.name = m_tokens[header.first + 1].text;
    c.statement = &statement;
    c.line = statement.line;
    c.column = m_tokens[header.first + 1].column;
    const std::size_t nameIndex = header.first + 1;
    if (nameIndex + 1 < header.last && m_tokens[nameIndex + 1].isOperator("(")) {
        // `Name(Base1, Base2, metaclass=M)` parses as a call: the bases are its arguments.
        const std::size_t close = matchingBracket(m_tokens, nameIndex + 1, header.last);
        const int call = parseExpression({nameIndex, std::min(close + 1, header.last)});
        if (call >= 0 && m_arena.at(call).kind == ExprKind::Call) {
            const std::vector<int> items = m_arena.at(call).items;
            c.bases.assign(items.begin() + 1, items.end());
        } else {
            c.bases.push_back(-1);
        }
    }
    for (std::size_t i = 0; i < statement.body.size(); ++i) {
        const Statement &member = statement.body[i];
        if (i == 0 && !member.tokens.empty()) {
            bool allStrings = true;
            std::string doc;
            for (std::size_t k = member.tokens.first; k < member.tokens.last; ++k) {
                allStrings = allStrings && m_tokens[k].kind == TokenKind::String && !m_tokens[k].fString;
                doc += m_tokens[k].text;
            }
            if (allStrings) {
                c.docstring = cleanDocstring(doc);
                continue;
            }
        }
        const std::string &keyword = member.keyword(m_tokens);
        if (keyword == "def" || keyword == "async")
            c.methods.push_back(readFunction(member));
    }
    m_classes.push_back(std::move(c));
}

FunctionDef PythonModule::readFunction(const Statement &statement) const
{
    FunctionDef f;
    f.statement = &statement;
    f.line = statement.line;
    f.column = statement.column;
    TokenRange header = statement.tokens;
    if (!header.empty() && m_tokens[header.first].isName("async"))
        ++header.first;
    if (header.last - header.first < 2)
        return f;
    f.name = m_tokens[header.first + 1].text;
    const std::size_t open = header.first + 2;
    if (open >= header.last || !m_tokens[open].isOperator("("))
        return f;
    const std::size_t close = matchingBracket(m_tokens, open, header.last);
    bool keywordOnly = false;
    TokenRange rest{open + 1, close};
    while (!rest.empty()) {
        const std::size_t comma = findTopLevel(m_tokens, rest, [](const Token &t) { return t.isOperator(","); });
        const TokenRange part{rest.first, comma};
        rest.first = comma < rest.last ? comma + 1 : rest.last;
        if (part.empty())
            continue;
        const Token &first = m_tokens[part.first];
        Parameter p;
        p.line = first.line;
        p.column = first.column;
        std::size_t nameIndex = part.first;
        if (first.isOperator("/"))
            continue;
        if (first.isOperator("*") || first.isOperator("**")) {
            if (part.last - part.first == 1) {
                keywordOnly = true; // a bare `*`
                continue;
            }
            p.kind = first.text == "*" ? Parameter::Kind::VarPositional : Parameter::Kind::VarKeyword;
            if (first.text == "*")
                keywordOnly = true;
            ++nameIndex;
        } else if (keywordOnly) {
            p.kind = Parameter::Kind::KeywordOnly;
        }
        if (nameIndex >= part.last || m_tokens[nameIndex].kind != TokenKind::Name)
            continue;
        p.name = m_tokens[nameIndex].text;
        const std::size_t equals = findTopLevel(m_tokens, part, [](const Token &t) { return t.isOperator("="); });
        if (equals < part.last)
            p.defaultValue = {equals + 1, part.last};
        f.parameters.push_back(std::move(p));
    }
    return f;
}

void PythonModule::readImports(const Statement &statement)
{
    const TokenRange r = statement.tokens;
    std::size_t i = r.first;
    std::string module;
    const auto readDotted = [&](std::size_t &at) {
        std::string out;
        while (at < r.last && (m_tokens[at].kind == TokenKind::Name || m_tokens[at].isOperator(".")
                                 || m_tokens[at].isOperator("..."))) {
            if (m_tokens[at].isName("import") || m_tokens[at].isName("as"))
                break;
            out += m_tokens[at].text;
            ++at;
        }
        return out;
    };
    if (m_tokens[i].isName("from")) {
        ++i;
        module = readDotted(i);
        if (i >= r.last || !m_tokens[i].isName("import"))
            return;
        ++i;
        while (i < r.last) {
            const Token &t = m_tokens[i];
            if (t.kind != TokenKind::Name) {
                ++i; // '(', ')', ',', '*'
                continue;
            }
            ImportedName binding{module, t.text, t.line};
            std::string alias = t.text;
            ++i;
            if (i + 1 < r.last && m_tokens[i].isName("as") && m_tokens[i + 1].kind == TokenKind::Name) {
                alias = m_tokens[i + 1].text;
                i += 2;
            }
            m_imports[alias] = std::move(binding);
        }
        return;
    }
    ++i; // import
    while (i < r.last) {
        const int line = m_tokens[i].line;
        const std::string dotted = readDotted(i);
        if (dotted.empty()) {
            ++i;
            continue;
        }
        std::string alias = dotted.substr(0, dotted.find('.'));
        if (i + 1 < r.last && m_tokens[i].isName("as") && m_tokens[i + 1].kind == TokenKind::Name) {
            alias = m_tokens[i + 1].text;
            i += 2;
        }
        m_imports[alias] = ImportedName{dotted, std::string(), line};
    }
}

void PythonModule::readConstant(const Statement &statement)
{
    const std::optional<Assignment> a = readAssignment(m_tokens, statement);
    if (!a || !a->augmented.empty() || a->value.empty())
        return;
    for (const TokenRange &target : a->targets) {
        if (target.last - target.first != 1 || m_tokens[target.first].kind != TokenKind::Name)
            continue;
        Constant &c = m_constants[m_tokens[target.first].text];
        c.value = a->value;
        c.line = statement.line;
        c.column = m_tokens[a->value.first].column;
        ++c.assignments;
    }
}

const ClassDef *PythonModule::findClass(const std::string &name) const
{
    const auto it = m_classIndex.find(name);
    return it == m_classIndex.end() ? nullptr : &m_classes[it->second];
}

const FunctionDef *PythonModule::findFunction(const std::string &name) const
{
    const auto it = m_functionIndex.find(name);
    return it == m_functionIndex.end() ? nullptr : &m_functions[it->second];
}

int PythonModule::parseExpression(TokenRange range, ParseError *error) const
{
    ExpressionParser parser(m_tokens, range.first, range.last, m_arena);
    const int e = range.empty() ? -1 : parser.parseAll();
    if (e < 0 && error) {
        error->message = range.empty() ? "an empty expression" : parser.error();
        const Token &at = m_tokens[std::min(range.first, m_tokens.size() - 1)];
        error->line = parser.errorLine() > 0 ? parser.errorLine() : at.line;
        error->column = parser.errorLine() > 0 ? parser.errorColumn() : at.column;
    }
    return e;
}

std::string PythonModule::describe(TokenRange range) const
{
    std::string out;
    for (std::size_t i = range.first; i < range.last && i < m_tokens.size(); ++i) {
        const Token &t = m_tokens[i];
        // A prefix * or ** (star arguments, `lambda **kwargs`) sticks to what follows: it
        // is one when it comes first, or after an operator other than a closing bracket,
        // or after a keyword.
        const auto prefixStar = [&](std::size_t j) {
            if (!(m_tokens[j].isOperator("*") || m_tokens[j].isOperator("**")))
                return false;
            if (j == range.first)
                return true;
            const Token &before = m_tokens[j - 1];
            if (before.kind == TokenKind::Operator)
                return before.text != ")" && before.text != "]" && before.text != "}";
            return before.kind == TokenKind::Name && before.isKeyword();
        };
        const bool tight = out.empty() || out.back() == '(' || out.back() == '[' || out.back() == '{'
            || out.back() == '.' || (i > range.first && prefixStar(i - 1)) || (t.kind == TokenKind::Operator
                && (t.text == ")" || t.text == "]" || t.text == "}" || t.text == "," || t.text == "."
                    || t.text == "(" || t.text == "[" || t.text == ":" || t.text == "="))
            || (i > range.first && m_tokens[i - 1].isOperator("="));
        if (!tight)
            out += ' ';
        out += t.kind == TokenKind::String ? '"' + t.text + '"' : t.text;
        if (out.size() > kMaxDescribedLength) {
            // Cut at a character boundary so that the message stays valid UTF-8.
            std::size_t cut = kMaxDescribedLength;
            while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
                --cut;
            out.resize(cut);
            out += "...";
            break;
        }
    }
    return out;
}

std::optional<Assignment> readAssignment(const std::vector<Token> &tokens, const Statement &statement)
{
    const TokenRange r = statement.tokens;
    if (r.empty() || !statement.body.empty() || isCompoundKeyword(tokens[r.first]))
        return std::nullopt;
    Assignment a;
    // `a: T = v` when a top-level ':' comes before any '='; lambda bodies cannot
    // appear in targets, so the first top-level ':' or '=' decides.
    const std::size_t split = findTopLevel(tokens, r, [](const Token &t) {
        return t.kind == TokenKind::Operator && (t.text == "=" || t.text == ":" || (t.text.size() >= 2 && t.text.back() == '='
            && t.text != "==" && t.text != "<=" && t.text != ">=" && t.text != "!="));
    });
    if (split >= r.last || split == r.first)
        return std::nullopt;
    const Token &op = tokens[split];
    if (op.text == ":") {
        const std::size_t equals = findTopLevel(tokens, {split + 1, r.last}, [](const Token &t) { return t.isOperator("="); });
        a.targets.push_back({r.first, split});
        a.annotation = {split + 1, equals};
        if (equals < r.last)
            a.value = {equals + 1, r.last};
        return a;
    }
    if (op.text != "=") {
        if (op.text == ":=")
            return std::nullopt;
        a.augmented = op.text;
        a.targets.push_back({r.first, split});
        a.value = {split + 1, r.last};
        return a;
    }
    // a = b = value: every range before the last '=' is a target.
    TokenRange rest{r.first, r.last};
    while (true) {
        const std::size_t equals = findTopLevel(tokens, rest, [](const Token &t) { return t.isOperator("="); });
        if (equals >= rest.last) {
            a.value = rest;
            break;
        }
        a.targets.push_back({rest.first, equals});
        rest.first = equals + 1;
    }
    if (a.value.empty())
        return std::nullopt;
    return a;
}

} // namespace splitscope::importer
