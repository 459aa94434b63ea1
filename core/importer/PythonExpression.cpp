// SPDX-License-Identifier: MIT
#include "PythonExpression.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace splitscope::importer {

namespace {

// Keywords that cannot start an expression (they end one, or start a statement).
constexpr std::array<std::string_view, 28> kNonExpressionKeywords = {
    "and", "as", "assert", "async", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "nonlocal", "or", "pass",
    "raise", "return", "try", "while", "with",
};

bool isNonExpressionKeyword(const Token &t)
{
    if (t.kind != TokenKind::Name || t.normalized)
        return false;
    for (const std::string_view k : kNonExpressionKeywords) {
        if (t.text == k)
            return true;
    }
    return false;
}

// Python's hard keywords (keyword.kwlist).
constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
};

bool canStartExpression(const Token &t)
{
    switch (t.kind) {
    case TokenKind::Name: return !isNonExpressionKeyword(t);
    case TokenKind::Number:
    case TokenKind::String: return true;
    case TokenKind::Operator:
        return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~"
            || t.text == "*" || t.text == "..." || t.text == "**";
    default: return false;
    }
}

// CPython's message for `[a, b for b in c]`.
constexpr const char *kUnparenthesizedTarget = "did you forget parentheses around the comprehension target?";

bool isClosingBracket(const char *op)
{
    return std::string_view(op) == ")" || std::string_view(op) == "]" || std::string_view(op) == "}";
}

// Binary operators by precedence level, loosest first; level 5 binds tightest.
constexpr int kBinaryLevels = 6;
bool isBinaryAtLevel(const Token &t, int level)
{
    if (t.kind != TokenKind::Operator)
        return false;
    const std::string &op = t.text;
    switch (level) {
    case 0: return op == "|";
    case 1: return op == "^";
    case 2: return op == "&";
    case 3: return op == "<<" || op == ">>";
    case 4: return op == "+" || op == "-";
    case 5: return op == "*" || op == "@" || op == "/" || op == "//" || op == "%";
    default: return false;
    }
}

} // namespace

bool isPythonKeyword(std::string_view word)
{
    for (const std::string_view k : kKeywords) {
        if (word == k)
            return true;
    }
    return false;
}

bool isKeywordSpelling(std::string_view word, bool soft)
{
    return isPythonKeyword(word) || (soft && (word == "match" || word == "case" || word == "_" || word == "type"));
}

namespace {

bool isComparison(const Expr &e)
{
    if (e.kind != ExprKind::Operation)
        return false;
    const std::string &op = e.text;
    return op == "<" || op == ">" || op == "==" || op == ">=" || op == "<=" || op == "!=" || op == "in"
        || op == "not in" || op == "is" || op == "is not";
}

} // namespace

int findInvalidTarget(const ExprArena &arena, int e, bool forHeader)
{
    const Expr &x = arena.at(e);
    switch (x.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript: return -1;
    case ExprKind::Starred: return findInvalidTarget(arena, x.items.front(), forHeader);
    case ExprKind::Tuple:
    case ExprKind::List:
        for (const int item : x.items) {
            const int invalid = findInvalidTarget(arena, item, forHeader);
            if (invalid >= 0)
                return invalid;
        }
        return -1;
    default: break;
    }
    if (forHeader && isComparison(x)) {
        // `a < b in c` is one comparison for CPython, nested to the left here: its first
        // operator is the innermost one of the chain (parentheses start another chain).
        const Expr *first = &x;
        while (isComparison(arena.at(first->items.front())) && !arena.at(first->items.front()).parenthesized)
            first = &arena.at(first->items.front());
        return first->text == "in" ? findInvalidTarget(arena, first->items.front(), forHeader) : -1;
    }
    return e;
}

const Expr &expressionStart(const ExprArena &arena, int e)
{
    const Expr *x = &arena.at(e);
    while ((x->kind == ExprKind::Attribute || x->kind == ExprKind::Subscript || x->kind == ExprKind::Call)
        && !x->parenthesized && !x->items.empty())
        x = &arena.at(x->items.front());
    return *x;
}

std::string targetDescription(const Expr &e)
{
    switch (e.kind) {
    case ExprKind::Name: return "name";
    case ExprKind::Attribute: return "attribute";
    case ExprKind::Subscript: return "subscript";
    case ExprKind::Call: return "function call";
    case ExprKind::String: return e.fString ? "f-string expression" : "literal";
    case ExprKind::Number: return "literal";
    case ExprKind::Constant: return e.text == "..." ? "ellipsis" : e.text;
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::Comprehension: return e.text == "generator" ? "generator expression" : e.text + " comprehension";
    case ExprKind::Starred: return "starred";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::List: return "list";
    case ExprKind::Operation:
        if (e.text == "lambda")
            return "lambda";
        if (e.text == "if")
            return "conditional expression";
        if (e.text == ":=")
            return "named expression";
        if (e.text == "yield")
            return "yield expression";
        if (e.text == "await")
            return "await expression";
        if (isComparison(e))
            return "comparison";
        return "expression";
    default: return "expression";
    }
}

StringsError checkAdjacentStrings(const std::vector<Token> &tokens, std::size_t first, std::size_t last)
{
    // Where CPython's parser stands when it reads them: at the next token, or just past the
    // last literal when the line ends there.
    const auto after = [&](std::string message) {
        const Token &next = tokens[std::min(last, tokens.size() - 1)];
        if (last < tokens.size() && next.kind != TokenKind::Newline && next.kind != TokenKind::Indent
            && next.kind != TokenKind::Dedent && next.kind != TokenKind::EndOfInput)
            return StringsError{std::move(message), next.line, next.column};
        return StringsError{std::move(message), tokens[last - 1].endLine, tokens[last - 1].endColumn};
    };
    for (std::size_t i = first; i < last; ++i) {
        const Token &t = tokens[i];
        // CPython checks that a literal is not mixed with bytes after it decodes it, before
        // it parses it when it is an f-string.
        const bool mixed = t.bytes != tokens[first].bytes;
        if (mixed && t.fString)
            return after("cannot mix bytes and nonbytes literals");
        if (t.literalError == LiteralError::AtLiteral)
            return {t.text, t.line, t.column};
        if (t.literalError == LiteralError::Inside)
            return {t.text, t.problemLine, t.problemColumn};
        if (t.literalError == LiteralError::AfterLiterals)
            return after(t.text);
        if (mixed)
            return after("cannot mix bytes and nonbytes literals");
    }
    return {};
}

int ExprArena::add(Expr expr)
{
    m_nodes.push_back(std::move(expr));
    return static_cast<int>(m_nodes.size() - 1);
}

std::string ExprArena::dottedName(int index) const
{
    // Iterative: the chain can be as long as the input.
    std::vector<const std::string *> parts;
    int current = index;
    while (current >= 0) {
        const Expr &e = at(current);
        if (e.kind == ExprKind::Name) {
            parts.push_back(&e.text);
            break;
        }
        if (e.kind != ExprKind::Attribute || e.items.empty())
            return {};
        parts.push_back(&e.text);
        current = e.items[0];
    }
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!out.empty())
            out += '.';
        out += **it;
    }
    return out;
}

struct ExpressionParser::DepthGuard {
    explicit DepthGuard(ExpressionParser &parser) : m_parser(parser) { ++m_parser.m_depth; }
    ~DepthGuard() { --m_parser.m_depth; }
    bool tooDeep() const { return m_parser.m_depth > kMaxExpressionDepth; }
    ExpressionParser &m_parser;
};

ExpressionParser::ExpressionParser(const std::vector<Token> &tokens, std::size_t first, std::size_t last,
    ExprArena &arena)
    : m_tokens(tokens), m_pos(first), m_last(last < tokens.size() ? last : tokens.size()), m_arena(arena)
{
}

const Token &ExpressionParser::peek(std::size_t ahead) const
{
    static const Token kEnd;
    const std::size_t at = m_pos + ahead;
    return at < m_last ? m_tokens[at] : kEnd;
}

bool ExpressionParser::acceptOperator(const char *op)
{
    if (peek().isOperator(op)) {
        ++m_pos;
        return true;
    }
    return false;
}

bool ExpressionParser::expectOperator(const char *op)
{
    if (acceptOperator(op))
        return true;
    // `f(a b)`, `("a" "b" c)`: another expression where the bracket should close.
    const bool missingComma = isClosingBracket(op) && !atEnd() && canStartExpression(peek());
    fail(std::string("expected '") + op + "'");
    if (missingComma && m_errorLine == peek().line && m_errorColumn == peek().column)
        m_error += " (perhaps a comma is missing)";
    return false;
}

int ExpressionParser::fail(const std::string &message, bool describeToken)
{
    if (m_error.empty()) {
        const Token &at = m_pos < m_last ? m_tokens[m_pos] : (m_last > 0 ? m_tokens[m_last - 1] : peek());
        m_error = message;
        if (m_pos < m_last) {
            if (describeToken)
                m_error += at.kind == TokenKind::String ? " before a string" : " before '" + at.text + "'";
        } else {
            m_error += " at the end of the expression";
        }
        m_errorLine = at.line;
        m_errorColumn = at.column;
    }
    return -1;
}

int ExpressionParser::failAt(int line, int column, const std::string &message, bool complete)
{
    if (m_error.empty()) {
        m_error = message;
        m_errorLine = line;
        m_errorColumn = column;
        m_errorComplete = complete;
    }
    return -1;
}

int ExpressionParser::makeNode(ExprKind kind, const Token &at, std::string text)
{
    Expr e;
    e.kind = kind;
    e.text = std::move(text);
    e.line = at.line;
    e.column = at.column;
    return m_arena.add(std::move(e));
}

int ExpressionParser::parseAll()
{
    const int e = expressionList(true);
    if (e < 0)
        return -1;
    if (!atEnd())
        return fail("unexpected token");
    return e;
}

int ExpressionParser::parseOne()
{
    return test();
}

int ExpressionParser::parseNamed()
{
    return namedExpression();
}

int ExpressionParser::parseList()
{
    return expressionList(true);
}

int ExpressionParser::parseArguments()
{
    const Token &open = peek();
    if (!expectOperator("("))
        return -1;
    return arguments(makeNode(ExprKind::Constant, open, "..."), true);
}

int ExpressionParser::failTooDeep()
{
    m_tooDeep = m_error.empty();
    return fail("expression nested too deeply");
}

// a, *b, c  (a Tuple when there is a comma; a trailing comma makes a one-element Tuple)
int ExpressionParser::expressionList(bool allowStar)
{
    const Token &start = peek();
    std::vector<int> items;
    bool sawComma = false;
    while (true) {
        const int item = allowStar ? starredOrNamed() : namedExpression();
        if (item < 0)
            return -1;
        items.push_back(item);
        if (!acceptOperator(","))
            break;
        sawComma = true;
        if (!canStartExpression(peek()) || peek().isOperator("**"))
            break;
    }
    if (!sawComma)
        return items.front();
    const int tuple = makeNode(ExprKind::Tuple, start);
    m_arena.at(tuple).items = std::move(items);
    return tuple;
}

// `*expr` (a Starred node), or a named expression.
int ExpressionParser::starredOrNamed()
{
    if (!peek().isOperator("*"))
        return namedExpression();
    const Token &star = peek();
    ++m_pos;
    const int inner = binary(0);
    if (inner < 0)
        return -1;
    const int node = makeNode(ExprKind::Starred, star, "*");
    m_arena.at(node).items.push_back(inner);
    return node;
}

int ExpressionParser::namedExpression()
{
    const Token &start = peek();
    const int target = test();
    if (target < 0)
        return -1;
    if (peek().isOperator(":=")) {
        if (m_arena.at(target).kind != ExprKind::Name)
            return fail("the target of ':=' must be a name");
        ++m_pos;
        const int value = test();
        if (value < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, start, ":=");
        m_arena.at(node).items = {target, value};
        return node;
    }
    return target;
}

int ExpressionParser::test()
{
    DepthGuard guard(*this);
    if (guard.tooDeep())
        return failTooDeep();
    if (peek().isName("lambda"))
        return lambda();
    const Token &start = peek();
    const int body = orTest();
    if (body < 0)
        return -1;
    if (!peek().isName("if"))
        return body;
    ++m_pos;
    const int condition = orTest();
    if (condition < 0)
        return -1;
    // CPython names the missing 'else' where the conditional starts, unless a ':' follows,
    // where it reads on (a lambda's or a dict's ':' makes another error).
    if (!peek().isName("else"))
        return peek().isOperator(":") ? fail("expected 'else' in a conditional expression")
                                      : failAt(start.line, start.column, "expected 'else' after 'if' expression", true);
    ++m_pos;
    const int otherwise = test();
    if (otherwise < 0)
        return -1;
    const int node = makeNode(ExprKind::Operation, start, "if");
    m_arena.at(node).items = {body, condition, otherwise};
    return node;
}

int ExpressionParser::lambda()
{
    const Token &start = peek();
    ++m_pos; // lambda
    bool bareStar = false; // a `*` alone, which named parameters must follow (not **kwargs)
    bool kwargs = false;
    std::vector<std::pair<std::string, int>> parameters;
    std::vector<std::pair<int, int>> positions;
    while (!atEnd() && !peek().isOperator(":")) {
        if (peek().isOperator("*") || peek().isOperator("**") || peek().isOperator("/")) {
            const bool star = peek().isOperator("*");
            kwargs = peek().isOperator("**");
            ++m_pos;
            if (acceptOperator(",") || peek().isOperator(":"))
                bareStar = bareStar || star; // a bare `*` or `/`
            continue;
        }
        if (peek().kind != TokenKind::Name || peek().isKeyword())
            return fail("expected a parameter name in a lambda");
        if (!kwargs)
            bareStar = false;
        kwargs = false;
        parameters.emplace_back(peek().text, -1);
        positions.emplace_back(peek().line, peek().column);
        ++m_pos;
        if (acceptOperator("=")) {
            const int value = test();
            if (value < 0)
                return -1;
            parameters.back().second = value;
        }
        if (!peek().isOperator(":") && !atEnd() && !expectOperator(","))
            return -1;
    }
    if (bareStar)
        return fail("named arguments must follow bare *");
    if (!expectOperator(":"))
        return -1;
    const int body = test();
    if (body < 0)
        return -1;
    const int node = makeNode(ExprKind::Operation, start, "lambda");
    m_arena.at(node).items.push_back(body);
    m_arena.at(node).keywords = std::move(parameters);
    m_arena.at(node).keywordPositions = std::move(positions);
    return node;
}

int ExpressionParser::orTest()
{
    return booleanChain("or", &ExpressionParser::andTest);
}

int ExpressionParser::andTest()
{
    return booleanChain("and", &ExpressionParser::notTest);
}

// OPERAND (KEYWORD OPERAND)*, left-associative.
int ExpressionParser::booleanChain(const char *keyword, int (ExpressionParser::*operand)())
{
    const Token &start = peek();
    int left = (this->*operand)();
    while (left >= 0 && peek().isName(keyword)) {
        ++m_pos;
        const int right = (this->*operand)();
        if (right < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, start, keyword);
        m_arena.at(node).items = {left, right};
        left = node;
    }
    return left;
}

int ExpressionParser::notTest()
{
    DepthGuard guard(*this);
    if (guard.tooDeep())
        return failTooDeep();
    if (peek().isName("not")) {
        const Token &start = peek();
        ++m_pos;
        const int operand = notTest();
        if (operand < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, start, "not");
        m_arena.at(node).items.push_back(operand);
        return node;
    }
    return comparison();
}

int ExpressionParser::comparison()
{
    const Token &start = peek();
    int left = binary(0);
    while (left >= 0) {
        std::string op;
        const Token &t = peek();
        if (t.kind == TokenKind::Operator
            && (t.text == "<" || t.text == ">" || t.text == "==" || t.text == ">=" || t.text == "<=" || t.text == "!=")) {
            op = t.text;
            ++m_pos;
        } else if (t.isName("in")) {
            op = "in";
            ++m_pos;
        } else if (t.isName("not") && peek(1).isName("in")) {
            op = "not in";
            m_pos += 2;
        } else if (t.isName("is")) {
            ++m_pos;
            op = "is";
            if (peek().isName("not")) {
                ++m_pos;
                op = "is not";
            }
        } else {
            break;
        }
        const int right = binary(0);
        if (right < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, start, op);
        m_arena.at(node).items = {left, right};
        left = node;
    }
    return left;
}

int ExpressionParser::binary(int level)
{
    if (level >= kBinaryLevels)
        return factor();
    const Token &start = peek();
    int left = binary(level + 1);
    while (left >= 0 && isBinaryAtLevel(peek(), level)) {
        const std::string op = peek().text;
        ++m_pos;
        const int right = binary(level + 1);
        if (right < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, start, op);
        m_arena.at(node).items = {left, right};
        left = node;
    }
    return left;
}

int ExpressionParser::factor()
{
    DepthGuard guard(*this);
    if (guard.tooDeep())
        return failTooDeep();
    const Token &t = peek();
    if (t.isOperator("-") || t.isOperator("+") || t.isOperator("~")) {
        ++m_pos;
        const int operand = factor();
        if (operand < 0)
            return -1;
        const int node = makeNode(ExprKind::Operation, t, "unary " + t.text);
        m_arena.at(node).items.push_back(operand);
        return node;
    }
    return power();
}

int ExpressionParser::power()
{
    const Token &start = peek();
    const bool await = start.isName("await");
    if (await)
        ++m_pos;
    int base = primary();
    if (base >= 0 && await) {
        const int node = makeNode(ExprKind::Operation, start, "await");
        m_arena.at(node).items.push_back(base);
        base = node;
    }
    if (base < 0 || !peek().isOperator("**"))
        return base;
    ++m_pos;
    const int exponent = factor();
    if (exponent < 0)
        return -1;
    const int node = makeNode(ExprKind::Operation, start, "**");
    m_arena.at(node).items = {base, exponent};
    return node;
}

int ExpressionParser::primary()
{
    int e = atom();
    while (e >= 0) {
        const Token &t = peek();
        if (t.isOperator(".")) {
            ++m_pos;
            if (peek().kind != TokenKind::Name)
                return fail("expected an attribute name after '.'");
            if (peek().isKeyword())
                return fail("'" + peek().text + "' is a keyword and cannot be an attribute name", false);
            const int node = makeNode(ExprKind::Attribute, peek(), peek().text);
            ++m_pos;
            m_arena.at(node).items.push_back(e);
            e = node;
        } else if (t.isOperator("(")) {
            ++m_pos;
            e = arguments(e);
        } else if (t.isOperator("[")) {
            ++m_pos;
            e = subscript(e);
        } else {
            break;
        }
    }
    return e;
}

int ExpressionParser::atom()
{
    const Token &t = peek();
    if (atEnd())
        return fail("expected an expression");
    switch (t.kind) {
    case TokenKind::Name:
        if (isNonExpressionKeyword(t) || t.isName("lambda") || t.isName("not") || t.isName("yield"))
            return fail("expected an expression");
        ++m_pos;
        if (t.isName("None") || t.isName("True") || t.isName("False"))
            return makeNode(ExprKind::Constant, t, t.text);
        return makeNode(ExprKind::Name, t, t.text);
    case TokenKind::Number:
        ++m_pos;
        return makeNode(ExprKind::Number, t, t.text);
    case TokenKind::String: {
        // Adjacent literals are one string ("a" "b" == "ab"), all bytes or none.
        const std::size_t first = m_pos;
        const int node = makeNode(ExprKind::String, t);
        while (peek().kind == TokenKind::String && !atEnd()) {
            Expr &e = m_arena.at(node);
            e.literals.push_back(peek().text);
            e.text += peek().text;
            e.fString = e.fString || peek().fString;
            e.bytes = e.bytes || peek().bytes;
            ++m_pos;
        }
        if (m_arena.at(node).literals.size() < 2)
            m_arena.at(node).literals.clear(); // one literal: its text is the node's
        const StringsError problem = checkAdjacentStrings(m_tokens, first, m_pos);
        if (!problem.message.empty())
            return failAt(problem.line, problem.column, problem.message, true);
        return node;
    }
    case TokenKind::Operator:
        break;
    default:
        return fail("expected an expression");
    }
    if (t.isOperator("...")) {
        ++m_pos;
        return makeNode(ExprKind::Constant, t, "...");
    }
    if (t.isOperator("[")) {
        ++m_pos;
        return display("]", ExprKind::List);
    }
    if (t.isOperator("{")) {
        ++m_pos;
        return dictOrSet();
    }
    if (!t.isOperator("("))
        return fail("expected an expression");
    ++m_pos;
    if (acceptOperator(")"))
        return makeNode(ExprKind::Tuple, t);
    if (peek().isName("yield")) {
        const Token &y = peek();
        ++m_pos;
        const bool from = peek().isName("from");
        if (from)
            ++m_pos;
        const int node = makeNode(ExprKind::Operation, y, from ? "yield from" : "yield");
        if (!peek().isOperator(")")) {
            const int value = expressionList(true);
            if (value < 0)
                return -1;
            m_arena.at(node).items.push_back(value);
        }
        return expectOperator(")") ? node : -1;
    }
    const int inner = display(")", ExprKind::Tuple);
    if (inner < 0)
        return -1;
    return inner;
}

// After the opening bracket of (...) or [...]: elements, a comprehension, or for
// parentheses a single parenthesized expression.
int ExpressionParser::display(const char *close, ExprKind kind)
{
    const Token &open = m_tokens[m_pos - 1];
    std::vector<int> items;
    const Token *firstItem = nullptr; // where CPython puts an error about the elements
    bool sawComma = false;
    while (!peek().isOperator(close)) {
        if (sawComma && kind == ExprKind::List && startsComprehension())
            return failBeforeClauses(firstItem->line, firstItem->column, kUnparenthesizedTarget, true);
        if (kind == ExprKind::Tuple && items.empty() && peek().isOperator("**")) {
            // `(**a)`: CPython names it; anything else after "(**" is just not an expression.
            const std::size_t stars = m_pos;
            ++m_pos;
            if (test() < 0)
                return -1;
            const Token &at = m_tokens[stars];
            if (peek().isOperator(")"))
                return failAt(at.line, at.column, "cannot use double starred expression here", true);
            m_pos = stars;
            return fail("expected an expression");
        }
        const std::size_t start = m_pos;
        const int item = starredOrNamed();
        if (item < 0)
            return -1;
        const Expr &element = m_arena.at(item);
        if (!firstItem)
            firstItem = &startOf(start, item);
        if (startsComprehension() && (!items.empty() || sawComma) && kind == ExprKind::List)
            return failBeforeClauses(firstItem->line, firstItem->column, kUnparenthesizedTarget, true);
        if (items.empty() && !sawComma && startsComprehension()) {
            if (element.kind == ExprKind::Starred)
                return failBeforeClauses(element.line, element.column, "iterable unpacking cannot be used in comprehension", true);
            std::vector<ExprClause> clauses;
            if (!comprehensionTail(&clauses))
                return -1;
            if (!expectOperator(close))
                return -1;
            const int node = makeNode(ExprKind::Comprehension, open, kind == ExprKind::List ? "list" : "generator");
            m_arena.at(node).items.push_back(item);
            m_arena.at(node).clauses = std::move(clauses);
            return node;
        }
        items.push_back(item);
        if (!acceptOperator(","))
            break;
        sawComma = true;
    }
    if (!expectOperator(close))
        return -1;
    if (kind == ExprKind::Tuple && !sawComma && items.size() == 1) {
        const Expr &only = m_arena.at(items.front());
        // `(*a)` is neither a tuple (no comma) nor a parenthesized expression.
        if (only.kind == ExprKind::Starred)
            return failAt(only.line, only.column, "cannot use starred expression here", true);
        // (x) is x itself; remember the parentheses: ("noise") is a string, not a tuple.
        m_arena.at(items.front()).parenthesized = true;
        return items.front();
    }
    const int node = makeNode(kind, open);
    m_arena.at(node).items = std::move(items);
    return node;
}

int ExpressionParser::dictOrSet()
{
    const Token &open = m_tokens[m_pos - 1];
    if (acceptOperator("}"))
        return makeNode(ExprKind::Dict, open);
    bool isDict = false;
    std::vector<int> items;
    const Token *firstItem = nullptr; // where CPython puts an error about the elements
    bool first = true;
    while (!peek().isOperator("}")) {
        const std::size_t start = m_pos;
        if (!first && !isDict && startsComprehension())
            return failBeforeClauses(firstItem->line, firstItem->column, kUnparenthesizedTarget, true);
        if (peek().isOperator("**")) {
            if (!first && !isDict)
                return fail("'**' inside a set display");
            const Token &stars = peek();
            isDict = true;
            ++m_pos;
            const int mapping = binary(0);
            if (mapping < 0)
                return -1;
            if (first && startsComprehension())
                return failBeforeClauses(stars.line, stars.column, "dict unpacking cannot be used in dict comprehension", true);
            items.push_back(-1);
            items.push_back(mapping);
        } else if (peek().isOperator("*")) {
            if (isDict)
                return fail("'*' inside a dict display");
            const Token &star = peek();
            ++m_pos;
            const int inner = binary(0);
            if (inner < 0)
                return -1;
            if (first && startsComprehension())
                return failBeforeClauses(star.line, star.column, "iterable unpacking cannot be used in comprehension", true);
            const int item = makeNode(ExprKind::Starred, star, "*");
            m_arena.at(item).items.push_back(inner);
            items.push_back(item);
        } else {
            const int key = namedExpression();
            if (key < 0)
                return -1;
            if (first && peek().isOperator(":"))
                isDict = true;
            if (isDict) {
                if (!expectOperator(":"))
                    return -1;
                const Token &star = peek();
                if (star.isOperator("*"))
                    return failAt(star.line, star.column, "cannot use a starred expression in a dictionary value", true);
                const int value = test();
                if (value < 0)
                    return -1;
                items.push_back(key);
                items.push_back(value);
            } else {
                items.push_back(key);
            }
            if (first && startsComprehension()) {
                std::vector<ExprClause> clauses;
                if (!comprehensionTail(&clauses) || !expectOperator("}"))
                    return -1;
                const int node = makeNode(ExprKind::Comprehension, open, isDict ? "dict" : "set");
                m_arena.at(node).items.push_back(key);
                if (isDict)
                    m_arena.at(node).items.push_back(items.back());
                m_arena.at(node).clauses = std::move(clauses);
                return node;
            }
        }
        if (first && !isDict)
            firstItem = &startOf(start, items.back());
        else if (!isDict && startsComprehension())
            return failBeforeClauses(firstItem->line, firstItem->column, kUnparenthesizedTarget, true);
        first = false;
        if (!acceptOperator(","))
            break;
    }
    if (!expectOperator("}"))
        return -1;
    const int node = makeNode(isDict ? ExprKind::Dict : ExprKind::Set, open);
    m_arena.at(node).items = std::move(items);
    return node;
}

// An element CPython refuses before a comprehension's clauses (`[*a for ...]`, `[a, b for
// ...]`, `f(a, b for ...)`): it reads the clauses first, so an error it names there comes
// first (`[*a for 1 in b]`: "cannot assign to literal").
int ExpressionParser::failBeforeClauses(int line, int column, const std::string &message, bool complete)
{
    if (!comprehensionTail() && (m_errorComplete || m_tooDeep))
        return -1;
    m_error.clear();
    return failAt(line, column, message, complete);
}

bool ExpressionParser::startsComprehension() const
{
    return peek().isName("for") || peek().isName("async");
}

const Token &ExpressionParser::startOf(std::size_t start, int node) const
{
    return m_arena.at(node).parenthesized && start + 1 < m_last ? m_tokens[start + 1] : m_tokens[start];
}

// for TARGETS in ITER [if COND]... [for ...]...
bool ExpressionParser::comprehensionTail(std::vector<ExprClause> *clauses)
{
    while (peek().isName("for") || peek().isName("async")) {
        ExprClause clause;
        clause.async = peek().isName("async");
        if (clause.async)
            ++m_pos;
        if (!peek().isName("for")) {
            fail("expected 'for'");
            return false;
        }
        ++m_pos;
        const std::size_t targetStart = m_pos;
        const int target = comprehensionTarget();
        if (target < 0 || !peek().isName("in") || findInvalidTarget(m_arena, target) >= 0)
            return invalidComprehensionTarget(targetStart, target);
        const Expr &alone = m_arena.at(target);
        if (alone.kind == ExprKind::Starred && m_compilerError.empty()) {
            m_compilerError = "starred assignment target must be in a list or tuple";
            m_compilerErrorLine = alone.line;
            m_compilerErrorColumn = alone.column;
        }
        ++m_pos;
        clause.target = target;
        clause.iterable = orTest();
        if (clause.iterable < 0)
            return false;
        while (peek().isName("if")) {
            ++m_pos;
            const int condition = orTest();
            if (condition < 0)
                return false;
            clause.conditions.push_back(condition);
        }
        if (clauses)
            clauses->push_back(std::move(clause));
    }
    return true;
}

// Targets separated by commas, each possibly starred: a Tuple when there is a comma.
int ExpressionParser::comprehensionTarget()
{
    const Token &start = peek();
    std::vector<int> items;
    bool sawComma = false;
    while (true) {
        const Token &star = peek();
        const bool starred = acceptOperator("*");
        int item = binary(0);
        if (item < 0)
            return -1;
        if (starred) {
            const int node = makeNode(ExprKind::Starred, star, "*");
            m_arena.at(node).items.push_back(item);
            item = node;
        }
        items.push_back(item);
        if (!acceptOperator(",") || peek().isName("in"))
            break;
        sawComma = true;
    }
    if (!sawComma && items.size() == 1 && !m_tokens[m_pos - 1].isOperator(","))
        return items.front();
    const int tuple = makeNode(ExprKind::Tuple, start);
    m_arena.at(tuple).items = std::move(items);
    return tuple;
}

// The comprehension's target from `targetStart` (after `for`) did not parse, is not followed
// by `in`, or cannot be assigned to (`target`, -1 when it did not parse). CPython then reads
// what follows `for` as an expression list and names the first part of it that cannot be
// assigned to, where it is ("cannot assign to literal"); when that finds nothing, the error
// is the first reading's. Always false (an error is set).
bool ExpressionParser::invalidComprehensionTarget(std::size_t targetStart, int target)
{
    // An error CPython names on its own (a comprehension's target inside this one), or
    // nesting too deep: it stands.
    if (target < 0 && (m_errorComplete || m_tooDeep))
        return false;
    const std::size_t stoppedAt = m_pos;
    const std::string error = m_error;
    const int errorLine = m_errorLine;
    const int errorColumn = m_errorColumn;
    m_error.clear();
    m_pos = targetStart;
    const int list = expressionList(true);
    int invalid = -1;
    if (list >= 0) {
        invalid = findInvalidTarget(m_arena, list, true);
        // Without parentheses `a := 1` is no part of such a list: CPython's reading ends before it.
        if (invalid >= 0 && m_arena.at(invalid).text == ":=" && !m_arena.at(invalid).parenthesized)
            invalid = -1;
    } else if (m_errorComplete || m_tooDeep) {
        return false; // CPython stops at an error it names on the way ("expected 'else' after 'if' expression")
    } else if (target >= 0 && stoppedAt < m_last && m_tokens[stoppedAt].isName("in")) {
        // `[x for 1 in c +]`: CPython's reading backs off from `c +` to `1 in c`; this parser
        // does not, so the target as first read stands for it.
        invalid = findInvalidTarget(m_arena, target, true);
        m_error.clear();
    }
    if (invalid >= 0) {
        const Expr &start = expressionStart(m_arena, invalid);
        failAt(start.line, start.column, "cannot assign to " + targetDescription(m_arena.at(invalid)), true);
        return false;
    }
    m_error = error;
    m_errorLine = errorLine;
    m_errorColumn = errorColumn;
    m_errorComplete = false;
    m_pos = stoppedAt;
    if (target < 0)
        return false;
    if (!peek().isName("in")) {
        fail("expected 'in' in a comprehension");
        return false;
    }
    // A target CPython refuses without naming it (`(a < b)`): "invalid syntax" at the `in`.
    fail("cannot assign to " + targetDescription(m_arena.at(findInvalidTarget(m_arena, target))));
    return false;
}

int ExpressionParser::arguments(int callee, bool classBases)
{
    static const std::string kGenerator = "a generator expression must be parenthesized unless it is the only argument";
    const Token &open = m_tokens[m_pos - 1];
    const int call = makeNode(ExprKind::Call, open);
    m_arena.at(call).line = m_arena.at(callee).line;
    m_arena.at(call).column = m_arena.at(callee).column;
    m_arena.at(call).items.push_back(callee);
    bool first = true;
    bool sawKeyword = false;    // name=value
    bool sawDoubleStar = false; // **mapping
    // A generator among other arguments is reported at its element, where CPython puts it:
    // when another argument precedes it (f(a, x for x in y)) or a comma follows it.
    while (!peek().isOperator(")")) {
        if (peek().isOperator("*") || peek().isOperator("**")) {
            const Token &star = peek();
            if (star.text == "*" && sawDoubleStar)
                return fail("iterable argument unpacking follows keyword argument unpacking", false);
            ++m_pos;
            const int inner = test();
            if (inner < 0)
                return -1;
            // f(*a for a in b) reads as a call of a generator, which cannot start with '*';
            // a class's bases have no such form (the `for` is just unexpected there).
            if (star.text == "*" && startsComprehension() && !first)
                return failBeforeClauses(star.line, star.column, kGenerator, false);
            if (star.text == "*" && startsComprehension() && !classBases)
                return failBeforeClauses(star.line, star.column, "iterable unpacking cannot be used in comprehension", true);
            if (star.text == "**") {
                sawDoubleStar = true;
                m_arena.at(call).keywords.emplace_back("**", inner);
                m_arena.at(call).keywordPositions.emplace_back(star.line, star.column);
            } else {
                const int node = makeNode(ExprKind::Starred, star, "*");
                m_arena.at(node).items.push_back(inner);
                m_arena.at(call).items.push_back(node);
            }
        } else if (peek().kind == TokenKind::Name && peek(1).isOperator("=")) {
            if (peek().isKeyword())
                return fail("'" + peek().text + "' is a keyword and cannot be an argument name", false);
            const Token &name = peek();
            m_pos += 2;
            const int value = test();
            if (value < 0)
                return -1;
            if (startsComprehension())
                return failBeforeClauses(name.line, name.column, "maybe you meant '==' or ':=' instead of '='", false);
            sawKeyword = true;
            m_arena.at(call).keywords.emplace_back(name.text, value);
            m_arena.at(call).keywordPositions.emplace_back(name.line, name.column);
        } else {
            const std::size_t start = m_pos;
            const int value = namedExpression();
            if (value < 0)
                return -1;
            if (startsComprehension()) {
                const Token &element = startOf(start, value);
                if (!first)
                    return failBeforeClauses(element.line, element.column, kGenerator, false);
                std::vector<ExprClause> clauses;
                if (!comprehensionTail(&clauses))
                    return -1;
                if (peek().isOperator(","))
                    return failAt(element.line, element.column, kGenerator);
                const int node = makeNode(ExprKind::Comprehension, m_tokens[m_pos - 1], "generator");
                m_arena.at(node).items.push_back(value);
                m_arena.at(node).clauses = std::move(clauses);
                m_arena.at(call).items.push_back(node);
            } else if (sawKeyword || sawDoubleStar) {
                const Token &at = m_tokens[start];
                return failAt(at.line, at.column,
                    sawDoubleStar ? "positional argument follows keyword argument unpacking"
                                  : "positional argument follows keyword argument");
            } else {
                m_arena.at(call).items.push_back(value);
            }
        }
        first = false;
        if (!acceptOperator(","))
            break;
    }
    return expectOperator(")") ? call : -1;
}

int ExpressionParser::sliceItem()
{
    const Token &start = peek();
    int lower = -1;
    if (!peek().isOperator(":")) {
        if (peek().isOperator("*")) {
            ++m_pos;
            const int inner = binary(0);
            if (inner < 0)
                return -1;
            const int node = makeNode(ExprKind::Starred, start, "*");
            m_arena.at(node).items.push_back(inner);
            return node;
        }
        lower = namedExpression();
        if (lower < 0 || !peek().isOperator(":"))
            return lower;
    }
    const int node = makeNode(ExprKind::Slice, start);
    if (lower >= 0)
        m_arena.at(node).items.push_back(lower);
    ++m_pos; // ':'
    for (int part = 0; part < 2; ++part) {
        if (!peek().isOperator(":") && !peek().isOperator(",") && !peek().isOperator("]")) {
            const int bound = test();
            if (bound < 0)
                return -1;
            m_arena.at(node).items.push_back(bound);
        }
        if (part == 0 && !acceptOperator(":"))
            break;
    }
    return node;
}

int ExpressionParser::subscript(int object)
{
    const Token &open = m_tokens[m_pos - 1];
    std::vector<int> indices;
    bool sawComma = false;
    while (!peek().isOperator("]")) {
        const int item = sliceItem();
        if (item < 0)
            return -1;
        indices.push_back(item);
        if (!acceptOperator(","))
            break;
        sawComma = true;
    }
    if (!expectOperator("]"))
        return -1;
    if (indices.empty())
        return fail("empty subscript");
    int index = indices.front();
    if (sawComma) {
        index = makeNode(ExprKind::Tuple, open);
        m_arena.at(index).items = std::move(indices);
    }
    const int node = makeNode(ExprKind::Subscript, open);
    m_arena.at(node).items = {object, index};
    return node;
}

} // namespace splitscope::importer
