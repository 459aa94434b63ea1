// SPDX-License-Identifier: MIT
#include "PythonModule.h"

#include "PythonTokenizer.h"

#include <algorithm>

namespace splitscope::importer {

namespace {

// An inline compound body (`if a: if b: ...` is not Python, but input can say it)
// nests at most this deep before the rest is read as one simple statement.
constexpr int kMaxInlineNesting = 100;
// Messages quote at most this many characters of source.
constexpr std::size_t kMaxDescribedLength = 80;

bool isCompoundKeyword(const Token &t)
{
    if (t.kind != TokenKind::Name)
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

// Groups logical lines into blocks.
class StatementReader {
public:
    explicit StatementReader(const std::vector<Token> &tokens) : m_tokens(tokens) {}

    void readBlock(std::vector<Statement> &out)
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
                ++m_pos;
                Statement s;
                s.tokens = {m_pos, m_pos};
                s.line = t.line;
                s.column = t.column;
                readBlock(s.body);
                if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Dedent)
                    ++m_pos;
                s.end = m_pos;
                out.push_back(std::move(s));
                continue;
            }
            readLogicalLine(out);
        }
    }

private:
    void readLogicalLine(std::vector<Statement> &out)
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
        splitSimpleStatements({start, lineEnd}, out, 0);
        if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Indent && out.size() > before) {
            ++m_pos;
            // Only out.back().body grows while the block is read, so the reference stays valid.
            Statement &header = out.back();
            readBlock(header.body);
            if (m_pos < m_tokens.size() && m_tokens[m_pos].kind == TokenKind::Dedent)
                ++m_pos;
            header.end = m_pos;
        }
    }

    void splitSimpleStatements(TokenRange range, std::vector<Statement> &out, int nesting)
    {
        while (!range.empty()) {
            const Token &first = m_tokens[range.first];
            if (isCompoundKeyword(first) && nesting < kMaxInlineNesting) {
                const std::size_t colon = headerColon(m_tokens, range);
                if (colon < range.last) {
                    Statement s = makeStatement({range.first, colon + 1});
                    splitSimpleStatements({colon + 1, range.last}, s.body, nesting + 1);
                    s.end = range.last;
                    out.push_back(std::move(s));
                    return;
                }
            }
            const std::size_t semicolon = findTopLevel(m_tokens, range, [](const Token &t) { return t.isOperator(";"); });
            if (semicolon > range.first)
                out.push_back(makeStatement({range.first, semicolon}));
            range.first = semicolon < range.last ? semicolon + 1 : range.last;
        }
    }

    Statement makeStatement(TokenRange range) const
    {
        Statement s;
        s.tokens = range;
        s.end = range.last;
        s.line = m_tokens[range.first].line;
        s.column = m_tokens[range.first].column;
        return s;
    }

    const std::vector<Token> &m_tokens;
    std::size_t m_pos = 0;
};

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

} // namespace

const std::string &Statement::keyword(const std::vector<Token> &tokens) const
{
    static const std::string kNone;
    if (tokens.empty() || this->tokens.empty() || tokens[this->tokens.first].kind != TokenKind::Name)
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
        const bool tight = out.empty() || out.back() == '(' || out.back() == '[' || out.back() == '{'
            || out.back() == '.' || (t.kind == TokenKind::Operator
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
