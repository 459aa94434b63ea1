// SPDX-License-Identifier: MIT
#include "PythonTokenizer.h"

#include "PythonExpression.h"
#include "PythonIdentifier.h"
#include "PythonSourceEncoding.h"
#include "PythonUnicodeNames.h"
#include "core/Utf8.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace splitscope::importer {

namespace {

// As CPython's tokenizer, a name is first read as a run of ASCII letters, digits, '_'
// and any non-ASCII character; checkIdentifier() then decides whether its characters
// may be in a name (PEP 3131).
bool startsNameRun(unsigned char c)
{
    return std::isalpha(c) || c == '_' || c >= 0x80;
}

bool continuesNameRun(unsigned char c)
{
    return startsNameRun(c) || std::isdigit(c);
}

bool isHexDigit(char c)
{
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

// Reads UTF-8 a byte at a time as CPython's decoder does: whether each byte continues the
// character before it, or starts another (a character, or a sequence the decoder rejects).
class Utf8Sequence {
public:
    bool continues(unsigned char byte)
    {
        if (m_remaining > 0 && byte >= m_low && byte <= m_high) {
            --m_remaining;
            m_low = 0x80;
            m_high = 0xBF;
            return true;
        }
        // A lead byte announces its continuation bytes; the second one's range excludes
        // overlong forms, surrogates and values past U+10FFFF.
        m_remaining = byte < 0xC2 || byte > 0xF4 ? 0 : byte < 0xE0 ? 1 : byte < 0xF0 ? 2 : 3;
        m_low = byte == 0xE0 ? 0xA0 : byte == 0xF0 ? 0x90 : 0x80;
        m_high = byte == 0xED ? 0x9F : byte == 0xF4 ? 0x8F : 0xBF;
        return false;
    }

private:
    int m_remaining = 0;
    unsigned char m_low = 0x80;
    unsigned char m_high = 0xBF;
};

// Operators and delimiters, longest first so that the first match is the longest.
constexpr std::array<std::string_view, 47> kOperators = {
    "**=", "//=", ">>=", "<<=", "...",
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
    "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

// F-strings nested in replacement fields deeper than this are read for where they end but
// their fields are not checked: Python 3.11 cannot nest them past four (a nested string
// cannot reuse an enclosing quote), and this bounds the work to a multiple of the input.
constexpr int kMaxCheckedFieldNesting = 20;

class Tokenizer {
public:
    // `fieldNesting`: 0 for a file; n for the expression of a replacement field of an
    // f-string nested n - 1 deep in other fields (already UTF-8, in parentheses).
    explicit Tokenizer(std::string_view source, int fieldNesting = 0) : m_src(source), m_fieldNesting(fieldNesting) {}

    TokenizeResult run()
    {
        if (m_fieldNesting == 0 && !readSourceEncoding())
            return finish();
        while (!m_failed && m_pos < m_src.size()) {
            if (m_atLineStart && m_brackets.empty()) {
                m_atLineStart = false;
                // Whitespace may run to the very end of the input.
                if (!readIndentation() || m_pos >= m_src.size())
                    continue;
            }
            const char c = m_src[m_pos];
            if (c == ' ' || c == '\t' || c == '\f') {
                ++m_pos;
            } else if (c == '#') {
                while (m_pos < m_src.size() && m_src[m_pos] != '\n' && m_src[m_pos] != '\r')
                    ++m_pos;
            } else if (c == '\n' || c == '\r') {
                consumeNewline();
                if (m_brackets.empty()) {
                    emitNewline();
                    m_atLineStart = true;
                }
            } else if (c == '\\') {
                // CPython 3.11 refuses a continuation with nothing after it, where the file
                // ends: "unexpected EOF while parsing" just past the backslash, its column
                // counted in bytes unless the encoding is declared (its newline translation adds a line after a final "\r\n",
                // which it then takes), or a bracket that was never closed (reported below).
                const int atLine = m_line;
                const int atColumn
                    = m_declaredEncoding ? column(m_pos + 1) : static_cast<int>(m_pos + 1 - m_lineStart) + 1;
                ++m_pos;
                bool atEnd = m_pos >= m_src.size();
                if (!atEnd && (m_src[m_pos] == '\n' || m_src[m_pos] == '\r')) {
                    const bool crlf = m_src[m_pos] == '\r' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '\n';
                    consumeNewline(); // explicit line joining: the logical line goes on
                    atEnd = m_pos >= m_src.size() && !crlf;
                } else if (!atEnd) {
                    fail("unexpected character after the line continuation character");
                }
                if (atEnd && m_brackets.empty())
                    failAt(atLine, atColumn, "unexpected EOF while parsing");
            } else if (startsNameRun(static_cast<unsigned char>(c))) {
                readNameOrPrefixedString();
            } else if (std::isdigit(static_cast<unsigned char>(c))
                || (c == '.' && m_pos + 1 < m_src.size() && std::isdigit(static_cast<unsigned char>(m_src[m_pos + 1])))) {
                readNumber();
            } else if (c == '"' || c == '\'') {
                readString(m_pos, false, false, false);
            } else {
                readOperator();
            }
        }
        if (!m_failed && !m_brackets.empty()) {
            const Open &open = m_brackets.back();
            failAt(open.line, open.column, std::string("'") + open.bracket + "' was never closed");
        }
        return finish();
    }

private:
    struct Open {
        char bracket;
        int line;
        int column;
    };

    // The first problem CPython's parser finds in the string literal being read, by source offset.
    struct LiteralProblems {
        std::size_t at = std::string_view::npos;
        std::string message;
        LiteralError where = LiteralError::None;
        int line = 0; // LiteralError::Inside: where it is
        int column = 0;
        bool found() const { return where != LiteralError::None; }
        void note(std::size_t offset, std::string text, LiteralError kind, int atLine = 0, int atColumn = 0)
        {
            if (offset >= at)
                return;
            at = offset;
            message = std::move(text);
            where = kind;
            line = atLine;
            column = atColumn;
        }
    };

    // Where readString stands in an f-string's replacement field.
    enum class FieldPart {
        Expression,      // {expression
        AfterEquals,     // {expression=
        Conversion,      // {expression!
        AfterConversion, // {expression!r
        Spec,            // {expression:spec
    };

    // The string literal readString is reading.
    struct StringState {
        struct Field {
            FieldPart part = FieldPart::Expression;
            std::string brackets; // ( [ { open in the expression, innermost last
            std::size_t expressionStart = 0; // just past the '{'
            int expressionLine = 0;
            int expressionColumn = 0;
        };
        std::string_view closing; // its quote, or three
        // An f-string's replacement fields, innermost last. Inside a field's expression a
        // quote starts a nested string (Python 3.12 allows even the enclosing quote there),
        // so it does not end the f-string.
        std::vector<Field> fields;
        // Python 3.11 ends a string at its first closing quote, even one that starts or is in
        // a nested string: just past it, and the line it is on (npos: none in a field).
        std::size_t end311 = std::string_view::npos;
        int end311Line = 0;
        std::size_t end311LineStart = 0;
        // Where the text CPython decodes on its own begins: the literal's, or in an f-string
        // the text after a field or a doubled brace, or a format spec's.
        std::size_t partStart = 0;
        LiteralProblems problems;
        // The expressions of the fields read so far (Token::fields).
        std::vector<FieldExpression> expressions;

        void reset(std::string_view quotes)
        {
            closing = quotes;
            fields.clear();
            expressions.clear();
            end311 = std::string_view::npos;
            problems = LiteralProblems();
        }
        bool inExpression() const { return !fields.empty() && fields.back().part == FieldPart::Expression; }
        bool inFieldTail() const
        {
            return !fields.empty() && fields.back().part != FieldPart::Expression && fields.back().part != FieldPart::Spec;
        }
        void noteEnd311(std::string_view source, std::size_t pos, int line, std::size_t lineStart)
        {
            if (end311 == std::string_view::npos && source.compare(pos, closing.size(), closing) == 0) {
                end311 = pos + closing.size();
                end311Line = line;
                end311LineStart = lineStart;
            }
        }
    };

    // A coding cookie may declare Latin-1: the tokenizer then reads its UTF-8 re-encoding.
    // False on an error.
    bool readSourceEncoding()
    {
        DecodedSource decoded = decodePythonSource(m_src);
        if (!decoded.ok()) {
            failAt(decoded.errorLine, decoded.errorColumn, decoded.error);
            return false;
        }
        if (decoded.converted) {
            m_decoded = std::move(decoded.text);
            m_src = m_decoded;
        }
        if (decoded.decodeWholeFile && !checkWholeFileUtf8(decoded.encoding))
            return false;
        // A UTF-8 byte order mark is allowed at the very start, as in Python.
        if (m_src.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = m_lineStart = 3;
        m_declaredEncoding = !decoded.encoding.empty() || m_pos == 3;
        return true;
    }

    // A cookie that names UTF-8 otherwise than "utf-8" makes CPython decode the whole file
    // before it tokenizes: the first invalid sequence, a comment's too, is an error. Its
    // message counts positions in the file as CPython's tokenizer holds it ("\r\n" read as
    // "\n", a newline added at the end when there is none); the error is put where it is.
    bool checkWholeFileUtf8(const std::string &encoding)
    {
        const std::size_t bad = findInvalidUtf8(m_src);
        if (bad == std::string_view::npos)
            return true;
        int line = 1, column = 1;
        std::size_t position = 0;
        for (std::size_t i = 0; i < bad; ++i) {
            const char c = m_src[i];
            if (c == '\r' && i + 1 < m_src.size() && m_src[i + 1] == '\n')
                continue; // counted with its '\n'
            ++position;
            if (c == '\n' || c == '\r') {
                ++line;
                column = 1;
            } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
                ++column;
            }
        }
        std::string tail(m_src.substr(bad));
        if (m_src.back() != '\n' && m_src.back() != '\r')
            tail += '\n';
        failAt(line, column, utf8DecodeError(tail, nullptr, position) + " (the coding cookie '" + encoding
                + "' makes Python decode the whole file first, comments included)");
        return false;
    }

    // 1-based column of `pos` on the current line, in code points (as the JSON reader
    // counts them): UTF-8 continuation bytes do not count. Invalid UTF-8 (in a comment or
    // a string) counts as Python counts it once it decodes the line, one character for each
    // sequence its decoder rejects (U+FFFD), so that the columns after it are still Python's.
    // Tokens come in order, so the count carries on from the previous call instead of
    // rescanning the line.
    int column(std::size_t pos)
    {
        if (m_columnLineStart != m_lineStart || pos < m_columnPos) {
            m_columnLineStart = m_lineStart;
            m_columnPos = m_lineStart;
            m_columnContinuations = 0;
            m_columnSequence = Utf8Sequence();
        }
        for (; m_columnPos < pos && m_columnPos < m_src.size(); ++m_columnPos) {
            if (m_columnSequence.continues(static_cast<unsigned char>(m_src[m_columnPos])))
                ++m_columnContinuations;
        }
        return static_cast<int>(pos - m_lineStart - m_columnContinuations) + 1;
    }

    void fail(const std::string &message) { failAt(m_line, column(m_pos), message); }

    void failAt(int line, int col, const std::string &message)
    {
        if (m_failed)
            return;
        m_failed = true;
        m_error = message;
        m_errorLine = line;
        m_errorColumn = col;
    }

    void push(TokenKind kind, std::string text, int line, int col)
    {
        Token t;
        t.kind = kind;
        t.text = std::move(text);
        t.line = line;
        t.column = col;
        t.endLine = line;
        t.endColumn = col;
        m_tokens.push_back(std::move(t));
    }

    // The last token ends at m_pos.
    void markEnd()
    {
        m_tokens.back().endLine = m_line;
        m_tokens.back().endColumn = column(m_pos);
    }

    void emitNewline()
    {
        if (m_tokens.empty())
            return;
        const TokenKind last = m_tokens.back().kind;
        if (last == TokenKind::Newline || last == TokenKind::Indent || last == TokenKind::Dedent)
            return;
        push(TokenKind::Newline, std::string(), m_line - 1, 0);
    }

    // \n, \r\n and \r all end a physical line.
    void consumeNewline()
    {
        if (m_src[m_pos] == '\r' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '\n')
            ++m_pos;
        ++m_pos;
        ++m_line;
        m_lineStart = m_pos;
    }

    // At the start of a logical line: measures the indentation and emits INDENT or
    // DEDENTs. Blank and comment-only lines change nothing (false: nothing to tokenize).
    bool readIndentation()
    {
        // As CPython: the width with tabs to multiples of 8, and again with a tab as one
        // column; indentation that compares differently under the two is ambiguous.
        int width = 0, altWidth = 0;
        std::size_t pos = m_pos;
        for (; pos < m_src.size(); ++pos) {
            const char c = m_src[pos];
            if (c == ' ') {
                ++width;
                ++altWidth;
            } else if (c == '\t') {
                width = (width / 8 + 1) * 8;
                ++altWidth;
            } else if (c == '\f') {
                width = altWidth = 0;
            } else {
                break;
            }
        }
        const auto inconsistent = [this]() {
            failAt(m_line, 1, "inconsistent use of tabs and spaces in indentation"); // where CPython puts it
            return false;
        };
        m_pos = pos;
        if (pos >= m_src.size() || m_src[pos] == '#' || m_src[pos] == '\n' || m_src[pos] == '\r')
            return true; // blank line: the main loop skips the comment and the newline
        if (m_src[pos] == '\\' && pos + 1 < m_src.size() && (m_src[pos + 1] == '\n' || m_src[pos + 1] == '\r')) {
            // A line that is only a continuation: its indentation counts (CPython reads
            // "    \\" + "    return 1" as an indented `return 1`), unless the line it
            // joins is blank too, which makes an empty logical line.
            std::size_t next = pos + 1;
            if (m_src[next] == '\r' && next + 1 < m_src.size() && m_src[next + 1] == '\n')
                ++next;
            ++next;
            while (next < m_src.size() && (m_src[next] == ' ' || m_src[next] == '\t' || m_src[next] == '\f'))
                ++next;
            if (next >= m_src.size() || m_src[next] == '\n' || m_src[next] == '\r' || m_src[next] == '#')
                return true;
        }
        if (width > m_indents.back()) {
            if (altWidth <= m_altIndents.back())
                return inconsistent();
            if (static_cast<int>(m_indents.size()) > kMaxIndentDepth) {
                fail("too many levels of indentation (Python allows " + std::to_string(kMaxIndentDepth) + ")");
                return false;
            }
            m_indents.push_back(width);
            m_altIndents.push_back(altWidth);
            push(TokenKind::Indent, std::string(), m_line, column(pos));
        } else {
            while (width < m_indents.back()) {
                m_indents.pop_back();
                m_altIndents.pop_back();
                push(TokenKind::Dedent, std::string(), m_line, column(pos));
            }
            if (width != m_indents.back()) {
                fail("unindent does not match any outer indentation level");
                return false;
            }
            if (altWidth != m_altIndents.back())
                return inconsistent();
        }
        return true;
    }

    void readNameOrPrefixedString()
    {
        const std::size_t start = m_pos;
        std::size_t end = m_pos;
        while (end < m_src.size() && continuesNameRun(static_cast<unsigned char>(m_src[end])))
            ++end;
        const std::string_view word = m_src.substr(start, end - start);
        // Invalid UTF-8: CPython decodes the run before it checks its characters, and puts
        // the decoder's error at the run's last character.
        if (std::string message = utf8DecodeError(word); !message.empty()) {
            failAt(m_line, column(end) - 1, "(unicode error) " + message);
            return;
        }
        // "a€b", "x = «1»", and a byte order mark past the start of the file (U+FEFF,
        // an invisible character): CPython names the first character that cannot be in a name.
        const IdentifierCheck check = checkIdentifier(word);
        if (!check.valid()) {
            failAt(m_line, column(start + check.invalidAt), invalidCharacterMessage(check.invalidCodePoint));
            return;
        }
        if (end < m_src.size() && (m_src[end] == '"' || m_src[end] == '\'') && word.size() <= 2) {
            bool raw = false, format = false, bytes = false, unicode = false, valid = true;
            for (const char ch : word) {
                switch (std::tolower(static_cast<unsigned char>(ch))) {
                case 'r': valid = valid && !raw; raw = true; break;
                case 'f': valid = valid && !format; format = true; break;
                case 'b': valid = valid && !bytes; bytes = true; break;
                case 'u': valid = valid && !unicode; unicode = true; break;
                default: valid = false;
                }
            }
            // Python's prefixes: r u f b br rb fr rf (any case); u combines with nothing.
            valid = valid && !(format && bytes) && !(unicode && word.size() > 1);
            if (valid) {
                m_pos = end;
                readString(start, raw, format, bytes);
                return;
            }
        }
        // The name Python reads: NFKC of what is written (PEP 3131), keywords aside (Token::normalized).
        std::string name = normalizeName(word);
        const bool normalized = name != word;
        push(TokenKind::Name, std::move(name), m_line, column(start));
        m_pos = end;
        markEnd();
        m_tokens.back().normalized = normalized;
    }

    void readNumber()
    {
        const std::size_t start = m_pos;
        const auto digitsWhile = [this](auto predicate) {
            while (m_pos < m_src.size() && (predicate(m_src[m_pos]) || m_src[m_pos] == '_'))
                ++m_pos;
        };
        const auto isDecimal = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
        const char second = m_pos + 1 < m_src.size() ? m_src[m_pos + 1] : ' ';
        if (m_src[m_pos] == '0' && std::strchr("xXoObB", second) != nullptr && second != '\0') {
            m_pos += 2;
            digitsWhile(isHexDigit);
        } else {
            digitsWhile(isDecimal);
            if (m_pos < m_src.size() && m_src[m_pos] == '.') {
                ++m_pos;
                digitsWhile(isDecimal);
            }
            if (m_pos < m_src.size() && (m_src[m_pos] == 'e' || m_src[m_pos] == 'E')) {
                std::size_t p = m_pos + 1;
                if (p < m_src.size() && (m_src[p] == '+' || m_src[p] == '-'))
                    ++p;
                if (p < m_src.size() && isDecimal(m_src[p])) {
                    m_pos = p;
                    digitsWhile(isDecimal);
                }
            }
            if (m_pos < m_src.size() && (m_src[m_pos] == 'j' || m_src[m_pos] == 'J'))
                ++m_pos;
        }
        std::string text(m_src.substr(start, m_pos - start));
        if (!isPythonNumber(text)) {
            failAt(m_line, column(start), "invalid number literal '" + text
                    + "' (an underscore goes only between digits; a decimal integer has no leading zero)");
            return;
        }
        push(TokenKind::Number, std::move(text), m_line, column(start));
        markEnd();
    }

    // Python 3's numeric literal grammar (integers in any base, floats, imaginary
    // numbers), applied to what readNumber took: "1__0", "1_", "1.0_", "0x", "0b2" and
    // "012" are not numbers. Iterative (no std::regex: it recurses per character).
    static bool isPythonNumber(std::string_view t)
    {
        const std::size_t n = t.size(), bad = std::string_view::npos;
        // One or more digits with single underscores between them; the end, or npos.
        const auto digits = [&](std::size_t i, auto isDigit) {
            if (i >= n || !isDigit(t[i]))
                return bad;
            for (++i; i < n; ++i) {
                if (t[i] == '_') {
                    if (i + 1 >= n || !isDigit(t[i + 1]))
                        return bad;
                    ++i;
                } else if (!isDigit(t[i])) {
                    break;
                }
            }
            return i;
        };
        const auto decimal = [](char c) { return c >= '0' && c <= '9'; };
        if (n >= 2 && t[0] == '0' && std::strchr("xXoObB", t[1]) != nullptr) {
            const char base = static_cast<char>(std::tolower(static_cast<unsigned char>(t[1])));
            const auto inBase = [base](char c) {
                return base == 'x' ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                    : base == 'o'  ? c >= '0' && c <= '7'
                                   : c == '0' || c == '1';
            };
            return digits(t.size() > 2 && t[2] == '_' ? 3 : 2, inBase) == n;
        }
        std::size_t i = digits(0, decimal);
        const bool whole = i != bad;
        if (!whole)
            i = 0;
        bool real = false, imaginary = false;
        if (i < n && t[i] == '.') {
            real = true;
            const std::size_t fraction = digits(i + 1, decimal);
            if (fraction != bad)
                i = fraction;
            else if (!whole)
                return false;
            else
                ++i; // "5."
        } else if (!whole) {
            return false;
        }
        if (i < n && (t[i] == 'e' || t[i] == 'E')) {
            real = true;
            std::size_t e = i + 1;
            if (e < n && (t[e] == '+' || t[e] == '-'))
                ++e;
            if ((i = digits(e, decimal)) == bad)
                return false;
        }
        if (i < n && (t[i] == 'j' || t[i] == 'J')) {
            imaginary = true;
            ++i;
        }
        if (i != n)
            return false;
        // A decimal integer has no leading zero, unless it is all zeros.
        return real || imaginary || t[0] != '0' || t.find_first_not_of("0_") == bad;
    }

    // m_pos is at the opening quote; `start` is where the prefix began.
    void readString(std::size_t start, bool raw, bool format, bool bytes)
    {
        const int line = m_line;
        const int col = column(start);
        const char quote = m_src[m_pos];
        const bool triple = m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote;
        m_string.reset(m_src.substr(m_pos, triple ? 3 : 1));
        m_pos += m_string.closing.size();
        const std::size_t body = m_pos;
        m_string.partStart = body;
        std::string value;
        while (true) {
            if (m_pos >= m_src.size()) {
                failUnterminated(line, col,
                    triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
                return;
            }
            const char c = m_src[m_pos];
            if (format && m_string.inFieldTail() && readFieldTail(c, value))
                continue;
            if (format && c != '\\' && c != '\n' && c != '\r' && readFormatCharacter(c, value))
                continue;
            if (c == quote) {
                if (!triple) {
                    ++m_pos;
                    break;
                }
                if (m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote) {
                    m_pos += 3;
                    break;
                }
                value += c;
                ++m_pos;
            } else if (c == '\n' || c == '\r') {
                if (!triple) {
                    failUnterminated(line, col, "unterminated string literal (a newline inside a single-quoted string)");
                    return;
                }
                consumeNewline();
                value += '\n';
            } else if (c == '\\') {
                if (m_pos + 1 >= m_src.size()) {
                    ++m_pos;
                    continue; // reported as unterminated on the next round
                }
                if (format && m_string.inExpression()) {
                    m_string.problems.note(m_pos, "f-string expression part cannot include a backslash",
                        LiteralError::AfterLiterals);
                }
                const char next = m_src[m_pos + 1];
                if (raw) {
                    // A raw string keeps its backslashes; one still pairs with a backslash or
                    // the quote after it (r"\\", r"\"" do not end there) and joins lines. What
                    // else follows is read as usual: in an f-string a brace is still a brace
                    // (rf"\{{" is "\{", rf"\{x}" a backslash and a field).
                    value += c;
                    ++m_pos;
                    if (next == '\n' || next == '\r') {
                        consumeNewline();
                        value += '\n';
                    } else if (next == '\\' || next == quote) {
                        value += next;
                        ++m_pos;
                    }
                } else if (format && next == 'N' && !m_string.inExpression()) {
                    readNamedEscape(value, quote);
                } else if (!readEscape(value, bytes)) {
                    return;
                }
            } else {
                value += c;
                ++m_pos;
            }
        }
        const std::size_t bodyEnd = m_pos - m_string.closing.size();
        if (format && !m_string.fields.empty()) {
            // A quote ended it inside a format spec (f"{x:"): the field never closed.
            m_string.problems.note(bodyEnd, "f-string: expecting '}'", LiteralError::AfterLiterals);
        }
        checkLiteralText(body, bodyEnd, raw, format, bytes);
        const LiteralProblems &problems = m_string.problems;
        push(TokenKind::String, problems.found() ? problems.message : std::move(value), line, col);
        markEnd();
        m_tokens.back().fString = format;
        m_tokens.back().bytes = bytes;
        m_tokens.back().literalError = problems.where;
        m_tokens.back().problemLine = problems.line;
        m_tokens.back().problemColumn = problems.column;
        if (!problems.found())
            m_tokens.back().fields = std::move(m_string.expressions);
    }

    // A string that does not end. An f-string may yet end for Python 3.11, at the first
    // closing quote inside a replacement field, where Python 3.12 reads a nested string
    // (f"{"): its parser then reports the f-string after it ("f-string: expecting '}'").
    // Otherwise the string is reported where it starts.
    void failUnterminated(int line, int col, const std::string &message)
    {
        if (m_string.end311 == std::string_view::npos) {
            failAt(line, col, message);
            return;
        }
        LiteralProblems &problems = m_string.problems;
        problems.note(m_string.end311 - m_string.closing.size(), "f-string: expecting '}'",
            LiteralError::AfterLiterals);
        if (problems.where == LiteralError::AtLiteral || problems.where == LiteralError::Inside) {
            failAt(problems.where == LiteralError::Inside ? problems.line : line,
                problems.where == LiteralError::Inside ? problems.column : col, problems.message);
            return;
        }
        // Where CPython's parser stands after the string: its next token.
        m_pos = m_string.end311;
        m_line = m_string.end311Line;
        m_lineStart = m_string.end311LineStart;
        while (m_pos < m_src.size() && (m_src[m_pos] == ' ' || m_src[m_pos] == '\t' || m_src[m_pos] == '\f'))
            ++m_pos;
        fail(problems.message);
    }

    // One character of an f-string at m_pos, read for its replacement fields; false when
    // it is ordinary text (or the closing quote) for readString to read.
    bool readFormatCharacter(char c, std::string &value)
    {
        auto &fields = m_string.fields;
        if (!m_string.inExpression()) {
            // Literal text, or a format spec, where '{' opens a nested field and '}' ends the field.
            const char next = m_pos + 1 < m_src.size() ? m_src[m_pos + 1] : '\0';
            if (c == '{' && fields.empty() && next == '{') {
                value += "{{";
                m_pos += 2;
                m_string.partStart = m_pos;
            } else if (c == '{') {
                value += c;
                ++m_pos;
                openField();
            } else if (c == '}' && !fields.empty()) {
                fields.pop_back();
                value += c;
                ++m_pos;
                m_string.partStart = m_pos;
            } else if (c == '}' && next == '}') {
                value += "}}";
                m_pos += 2;
                m_string.partStart = m_pos;
            } else if (c == '}') {
                m_string.problems.note(m_pos, "f-string: single '}' is not allowed", LiteralError::AfterLiterals);
                value += c;
                ++m_pos;
            } else {
                return false;
            }
            return true;
        }
        // A replacement field's expression, read as Python 3.11 reads it to find where it ends:
        // at '!', ':', '=' or '}' outside brackets ("!=", "==", "<=" and ">=" do not end it).
        auto &field = fields.back();
        const char next = m_pos + 1 < m_src.size() ? m_src[m_pos + 1] : '\0';
        if (c == '\'' || c == '"') {
            readNestedString(value);
            return true;
        }
        const auto problem = [this](std::string message) {
            m_string.problems.note(m_pos, std::move(message), LiteralError::AfterLiterals);
        };
        if (c == '#') {
            problem("f-string expression part cannot include '#'");
        } else if (c == '(' || c == '[' || c == '{') {
            if (static_cast<int>(field.brackets.size()) >= kMaxBracketDepth)
                problem("f-string: too many nested parenthesis"); // kept: the rest is read as before
            field.brackets += c;
        } else if (c == ')' || c == ']' || (c == '}' && !field.brackets.empty())) {
            if (field.brackets.empty()) {
                problem(std::string("f-string: unmatched '") + c + "'");
            } else {
                const char open = field.brackets.back();
                field.brackets.pop_back();
                if (open != (c == ')' ? '(' : c == ']' ? '[' : '{')) {
                    problem(std::string("f-string: closing parenthesis '") + c
                        + "' does not match opening parenthesis '" + open + "'");
                }
            }
        } else if (field.brackets.empty() && std::strchr("!=<>", c) != nullptr && next == '=') {
            value.append(m_src.substr(m_pos, 2));
            m_pos += 2;
            return true;
        } else if (field.brackets.empty() && (c == '!' || c == ':' || c == '=' || c == '}')) {
            checkFieldExpression(field);
            m_string.partStart = m_pos + 1; // a format spec's text, or the text after the field
            if (c == '}')
                fields.pop_back();
            else
                field.part = c == '!' ? FieldPart::Conversion : c == ':' ? FieldPart::Spec : FieldPart::AfterEquals;
        } else if (static_cast<unsigned char>(c) >= 0x80) {
            checkFieldUtf8();
        }
        value += c;
        ++m_pos;
        return true;
    }

    // A field past its expression, as Python 3.11 reads it: after '=' (whitespace, then '!',
    // ':' or '}'), after '!' (one conversion character: s, r or a) and after the conversion
    // (':' or '}'). False when readString is to read the character (a newline, a backslash,
    // the closing quote), which still counts here.
    bool readFieldTail(char c, std::string &value)
    {
        auto &fields = m_string.fields;
        FieldPart &part = fields.back().part;
        if (m_src.compare(m_pos, m_string.closing.size(), m_string.closing) == 0)
            return false; // readString reports the field that does not close
        const auto problem = [this](const char *message) {
            m_string.problems.note(m_pos, message, LiteralError::AfterLiterals);
        };
        if (part == FieldPart::Conversion) {
            if (c != 's' && c != 'r' && c != 'a')
                problem("f-string: invalid conversion character: expected 's', 'r', or 'a'");
            part = FieldPart::AfterConversion;
            if (c != ':' && c != '}')
                return takeFieldTail(c, value);
        } else if (part == FieldPart::AfterEquals && std::strchr(" \t\n\r\f\v", c) != nullptr) {
            return takeFieldTail(c, value);
        } else if (c == '!' && part == FieldPart::AfterEquals) {
            part = FieldPart::Conversion;
            return takeFieldTail(c, value);
        } else if (c != ':' && c != '}') {
            problem("f-string: expecting '}'");
            part = FieldPart::AfterConversion;
            return takeFieldTail(c, value);
        }
        if (c == ':')
            part = FieldPart::Spec;
        else
            fields.pop_back();
        m_string.partStart = m_pos + 1;
        return takeFieldTail(c, value);
    }

    // The character at m_pos, read past the end of a field's expression: readString reads a
    // newline or a backslash (false), the rest is taken here.
    bool takeFieldTail(char c, std::string &value)
    {
        if (c == '\n' || c == '\r' || c == '\\')
            return false;
        value += c;
        ++m_pos;
        return true;
    }

    // A field's expression, from just past its '{' to m_pos, where it ends: Python 3.11 parses
    // it on its own, in parentheses, when it reaches its end ("{a b}", "{lambda: 1}", "{*a}"
    // are errors), and reports what is wrong in it before what follows. The importer reads it
    // with its own tokenizer and expression parser, and puts the error where it is in the file.
    void checkFieldExpression(const StringState::Field &field)
    {
        if (m_string.problems.found() || m_fieldNesting >= kMaxCheckedFieldNesting)
            return; // an earlier problem is the one reported
        const std::string_view text = m_src.substr(field.expressionStart, m_pos - field.expressionStart);
        if (text.find_first_not_of(" \t\f\n\r") == std::string_view::npos)
            return; // openField() reported it
        std::string source;
        source.reserve(text.size() + 2);
        source += '(';
        source.append(text);
        source += ')';
        // Positions in `source` to the file's: its first line starts one character before the
        // expression (the parenthesis); the lines after it are the file's.
        const auto report = [&](const std::string &message, int line, int column) {
            const int fileColumn = line <= 1 ? field.expressionColumn + column - 2 : column;
            m_string.problems.note(m_pos, message, LiteralError::Inside, field.expressionLine + std::max(line, 1) - 1,
                std::max(fileColumn, 1));
        };
        const TokenizeResult tokens = Tokenizer(source, m_fieldNesting + 1).run();
        if (!tokens.ok()) {
            report(tokens.error, tokens.errorLine, tokens.errorColumn);
            return;
        }
        std::size_t last = 0;
        while (tokens.tokens[last].kind != TokenKind::Newline && tokens.tokens[last].kind != TokenKind::EndOfInput)
            ++last;
        ExprArena arena;
        ExpressionParser parser(tokens.tokens, 0, last, arena);
        if (parser.parseAll() >= 0 || parser.tooDeep()) {
            m_string.expressions.push_back({std::move(source), field.expressionLine, field.expressionColumn - 1});
            return;
        }
        std::string detail = parser.error();
        if (!parser.errorIsComplete()) {
            // The parentheses are not the source's: what the parser says of them it says of the field.
            std::size_t at = 0;
            int depth = 0;
            for (; at + 1 < last; ++at) {
                const Token &t = tokens.tokens[at];
                if (t.line == parser.errorLine() && t.column == parser.errorColumn())
                    break;
                if (t.kind == TokenKind::Operator && t.text.size() == 1 && std::strchr("([{", t.text[0]) != nullptr)
                    ++depth;
                else if (t.kind == TokenKind::Operator && t.text.size() == 1 && std::strchr(")]}", t.text[0]) != nullptr)
                    --depth;
            }
            if (at + 1 == last)
                replaceEdge(detail, "before ')'", "at the end of the field", true);
            else if (depth == 1)
                replaceEdge(detail, "expected ')'", "expected '}'", false);
            detail = "invalid syntax: " + detail;
        }
        // CPython's parser words its errors in a field "f-string: ...".
        if (detail.compare(0, 8, "f-string") != 0)
            detail = "f-string: " + detail;
        report(detail, parser.errorLine(), parser.errorColumn());
    }

    // Replaces `from` by `to` when `text` ends (`atEnd`) or starts with it.
    static void replaceEdge(std::string &text, std::string_view from, std::string_view to, bool atEnd)
    {
        if (text.size() < from.size())
            return;
        const std::size_t at = atEnd ? text.size() - from.size() : 0;
        if (text.compare(at, from.size(), from) == 0)
            text.replace(at, from.size(), to);
    }

    // Just past a field's '{': "{}", "{!r}", "{:x}" and "{=}" lack the expression CPython wants
    // first; a field in a field's format spec in a field's format spec is nested too deeply.
    void openField()
    {
        if (m_string.fields.size() >= 2)
            m_string.problems.note(m_pos - 1, "f-string: expressions nested too deeply", LiteralError::AfterLiterals);
        StringState::Field &field = m_string.fields.emplace_back();
        field.expressionStart = m_pos;
        field.expressionLine = m_line;
        field.expressionColumn = column(m_pos);
        std::size_t k = m_pos;
        while (k < m_src.size() && std::string_view(" \t\f\n\r").find(m_src[k]) != std::string_view::npos)
            ++k;
        if (k >= m_src.size())
            return;
        const char c = m_src[k];
        const char next = k + 1 < m_src.size() ? m_src[k + 1] : '\0';
        if (c == '}') {
            m_string.problems.note(m_pos - 1, "f-string: empty expression not allowed", LiteralError::AfterLiterals);
        } else if (c == ':' || ((c == '!' || c == '=') && next != '=')) {
            m_string.problems.note(m_pos - 1, std::string("f-string: expression required before '") + c + "'",
                LiteralError::AfterLiterals);
        }
    }

    // "\N{name}" in an f-string's text, m_pos at the backslash: its braces are the escape's,
    // not a field's. As CPython, a character after "\N" other than '{' is taken with it. The
    // text keeps the escape as written; the name is checked (checkNamedEscape).
    void readNamedEscape(std::string &value, char quote)
    {
        checkNamedEscape(m_pos);
        const auto ordinary = [&](std::size_t at) {
            return at < m_src.size() && std::string_view("\n\r\\").find(m_src[at]) == std::string_view::npos
                && m_src[at] != quote;
        };
        value += "\\N";
        m_pos += 2;
        if (!ordinary(m_pos))
            return;
        const bool braced = m_src[m_pos] == '{';
        value += m_src[m_pos++];
        if (!braced)
            return;
        while (ordinary(m_pos)) {
            const char c = m_src[m_pos++];
            value += c;
            if (c == '}')
                return;
        }
    }

    // "\N{name}" in a str literal (not raw), m_pos at the backslash: the character Python's
    // unicodedata names (PythonUnicodeNames.h), appended to `value`.
    void readNamedCharacter(std::string &value)
    {
        const std::size_t backslash = m_pos;
        const long codePoint = checkNamedEscape(backslash);
        m_pos = backslash + 2;
        if (codePoint < 0 || m_pos >= m_src.size() || m_src[m_pos] != '{') {
            value += "\\N"; // the literal is refused: its value does not matter
            return;
        }
        appendUtf8(value, static_cast<unsigned long>(codePoint));
        m_pos = m_src.find('}', m_pos) + 1; // checkNamedEscape found it, on this line
    }

    // The escape "\N..." at `backslash`: the character it names; -1 when it is malformed (no
    // "{name}") or names none, a problem of the literal in the words of CPython's decoder,
    // which counts positions from where it starts decoding (StringState::partStart) in its own
    // copy of the text, where a character past ASCII takes ten ("\U000000e9"). Also -1 once
    // the literal has a problem: that one is reported, and the work stays linear.
    long checkNamedEscape(std::size_t backslash)
    {
        if (m_string.problems.found())
            return -1;
        // The name runs to the first '}'; the text ends at the closing quote (not an escaped one).
        const std::size_t open = backslash + 2;
        const bool braced = open < m_src.size() && m_src[open] == '{';
        std::size_t close = std::string_view::npos;
        std::size_t end = open;
        for (std::size_t i = open + 1; braced; ++i) {
            if (i >= m_src.size() || m_src.compare(i, m_string.closing.size(), m_string.closing) == 0
                || (m_string.closing.size() == 1 && (m_src[i] == '\n' || m_src[i] == '\r'))) {
                end = std::min(i, m_src.size());
                break;
            }
            if (m_src[i] == '}') {
                close = i;
                break;
            }
            if (m_src[i] == '\\' && i + 1 < m_src.size() && m_src[i + 1] != '}')
                ++i;
        }
        long codePoint = -1;
        const char *message = "malformed \\N character escape";
        if (close != std::string_view::npos && close > open + 1) {
            const std::string_view name = m_src.substr(open + 1, close - open - 1);
            if (name.find_first_of("\n\r") == std::string_view::npos)
                codePoint = lookupUnicodeName(name);
            message = "unknown Unicode character name";
        }
        if (codePoint >= 0)
            return codePoint;
        // Where CPython's decoder stopped: past the name's '}', at an empty name's, at the end
        // of the text, or past the 'N' of "\N" without '{'.
        const std::size_t first = decoderOffset(m_string.partStart, backslash);
        const std::size_t last = close != std::string_view::npos ? first + decoderOffset(backslash, close) - (close == open + 1)
            : braced ? first + decoderOffset(backslash, end) - 1
                     : first + 1;
        m_string.problems.note(backslash,
            "(unicode error) 'unicodeescape' codec can't decode bytes in position " + std::to_string(first) + "-"
                + std::to_string(last) + ": " + message,
            LiteralError::AfterLiterals);
        return -1;
    }

    // How many characters source bytes [from, to) of a literal's text make in the copy
    // CPython's decoder reads: a character past ASCII is "\U%08x" (ten), a backslash before
    // one is "\u005c" (six), "\r\n" is one newline.
    std::size_t decoderOffset(std::size_t from, std::size_t to) const
    {
        std::size_t count = 0;
        bool afterBackslash = false;
        for (std::size_t i = from; i < to && i < m_src.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(m_src[i]);
            if (c == '\r' && i + 1 < m_src.size() && m_src[i + 1] == '\n')
                continue;
            if (c >= 0x80) {
                if ((c & 0xC0) != 0x80)
                    count += afterBackslash ? 15 : 10;
            } else if (c == '\\' && !afterBackslash) {
                ++count;
                afterBackslash = true;
                continue;
            } else {
                ++count;
            }
            afterBackslash = false;
        }
        return count;
    }

    // A string inside an f-string's replacement field, copied as written (m_pos is at its quote).
    void readNestedString(std::string &value)
    {
        const char quote = m_src[m_pos];
        const bool triple = m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote;
        const std::size_t length = triple ? 3 : 1;
        m_string.noteEnd311(m_src, m_pos, m_line, m_lineStart);
        value.append(m_src.substr(m_pos, length));
        m_pos += length;
        while (m_pos < m_src.size()) {
            const char c = m_src[m_pos];
            m_string.noteEnd311(m_src, m_pos, m_line, m_lineStart);
            if (c == quote && (!triple || (m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote))) {
                value.append(m_src.substr(m_pos, length));
                m_pos += length;
                return;
            }
            if (c == '\n' || c == '\r') {
                if (!triple)
                    return; // the enclosing string reports it
                consumeNewline();
                value += '\n';
                continue;
            }
            if (c == '\\' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] != '\n' && m_src[m_pos + 1] != '\r') {
                value += c;
                ++m_pos;
            }
            if (static_cast<unsigned char>(m_src[m_pos]) >= 0x80)
                checkFieldUtf8();
            value += m_src[m_pos];
            ++m_pos;
        }
    }

    // At a non-ASCII byte of a replacement field: CPython compiles the field's expression
    // on its own, and reports invalid UTF-8 in it at the f-string. Checked once per run of
    // non-ASCII bytes, from its first.
    void checkFieldUtf8()
    {
        if (m_pos > 0 && static_cast<unsigned char>(m_src[m_pos - 1]) >= 0x80)
            return;
        std::size_t end = m_pos;
        while (end < m_src.size() && static_cast<unsigned char>(m_src[end]) >= 0x80)
            ++end;
        std::size_t bad = 0;
        const std::string message = utf8DecodeError(m_src.substr(m_pos, end - m_pos), &bad);
        if (!message.empty())
            m_string.problems.note(m_pos + bad, "f-string: (unicode error) " + message, LiteralError::AtLiteral);
    }

    // What CPython's parser finds in a literal's text, source bytes [body, bodyEnd): a bytes
    // literal holds ASCII only; the rest must be valid UTF-8, the message counting positions
    // from where CPython starts decoding (the whole text when it has no escapes to decode,
    // else the run of non-ASCII bytes, as always in an f-string).
    void checkLiteralText(std::size_t body, std::size_t bodyEnd, bool raw, bool format, bool bytes)
    {
        const std::string_view text = m_src.substr(body, bodyEnd - body);
        const auto high = [&](std::size_t at) { return static_cast<unsigned char>(text[at]) >= 0x80; };
        if (bytes) {
            for (std::size_t at = 0; at < text.size(); ++at) {
                if (high(at)) {
                    m_string.problems.note(body + at, "bytes can only contain ASCII literal characters",
                        LiteralError::AtLiteral);
                    return;
                }
            }
            return;
        }
        const std::size_t bad = findInvalidUtf8(text);
        if (bad == std::string_view::npos)
            return;
        std::size_t first = 0, last = text.size();
        if (format || (!raw && text.find('\\') != std::string_view::npos)) {
            for (first = bad; first > 0 && high(first - 1); --first) {
            }
            for (last = bad; last < text.size() && high(last); ++last) {
            }
        }
        // CPython decodes a str literal's UTF-8 before its escapes ("\N{...}", noted from `body`
        // on), an f-string's text a part at a time.
        m_string.problems.note(format ? body + bad : body - 1,
            "(unicode error) " + utf8DecodeError(text.substr(first, last - first)), LiteralError::AfterLiterals);
    }

    // m_pos is at the backslash of an escape in a non-raw string.
    bool readEscape(std::string &value, bool bytes)
    {
        const std::size_t escapeStart = m_pos;
        ++m_pos;
        const char e = m_src[m_pos];
        switch (e) {
        case '\n':
        case '\r':
            consumeNewline(); // backslash-newline: both vanish
            return true;
        case '\\': value += '\\'; break;
        case '\'': value += '\''; break;
        case '"': value += '"'; break;
        case 'a': value += '\a'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'n': value += '\n'; break;
        case 'r': value += '\r'; break;
        case 't': value += '\t'; break;
        case 'v': value += '\v'; break;
        case 'x': {
            if (m_pos + 2 >= m_src.size() || !isHexDigit(m_src[m_pos + 1]) || !isHexDigit(m_src[m_pos + 2])) {
                m_pos = escapeStart;
                fail("truncated \\xXX escape");
                return false;
            }
            const int v = hexValue(m_src[m_pos + 1]) * 16 + hexValue(m_src[m_pos + 2]);
            if (bytes)
                value += static_cast<char>(v);
            else
                appendUtf8(value, static_cast<unsigned long>(v));
            m_pos += 3;
            return true;
        }
        case 'u':
        case 'U': {
            if (bytes) {
                value += '\\';
                value += e;
                break;
            }
            const std::size_t digits = e == 'u' ? 4 : 8;
            unsigned long v = 0;
            for (std::size_t i = 1; i <= digits; ++i) {
                if (m_pos + i >= m_src.size() || !isHexDigit(m_src[m_pos + i])) {
                    m_pos = escapeStart;
                    fail(std::string("truncated \\") + e + std::string(digits, 'X') + " escape");
                    return false;
                }
                v = v * 16 + static_cast<unsigned long>(hexValue(m_src[m_pos + i]));
            }
            if (v > 0x10FFFF) {
                m_pos = escapeStart;
                fail("illegal Unicode character in a \\U escape");
                return false;
            }
            appendUtf8(value, v);
            m_pos += digits + 1;
            return true;
        }
        case 'N':
            if (!bytes) {
                m_pos = escapeStart;
                readNamedCharacter(value);
                return true;
            }
            value += '\\'; // bytes: not an escape
            return true;
        default:
            if (e >= '0' && e <= '7') {
                unsigned long v = 0;
                std::size_t n = 0;
                while (n < 3 && m_pos < m_src.size() && m_src[m_pos] >= '0' && m_src[m_pos] <= '7') {
                    v = v * 8 + static_cast<unsigned long>(m_src[m_pos] - '0');
                    ++m_pos;
                    ++n;
                }
                if (bytes)
                    value += static_cast<char>(v & 0xFF);
                else
                    appendUtf8(value, v);
                return true;
            }
            // Unknown escapes stay as written.
            value += '\\';
            return true; // the character after the backslash is read as ordinary text
        }
        ++m_pos;
        return true;
    }

    void readOperator()
    {
        const std::size_t start = m_pos;
        for (const std::string_view op : kOperators) {
            if (m_src.compare(m_pos, op.size(), op) != 0)
                continue;
            const int col = column(start);
            const char c = op.front();
            if (op.size() == 1 && (c == '(' || c == '[' || c == '{')) {
                if (static_cast<int>(m_brackets.size()) >= kMaxBracketDepth) {
                    fail("too many nested parentheses (Python allows " + std::to_string(kMaxBracketDepth) + ")");
                    return;
                }
                m_brackets.push_back(Open{c, m_line, col});
            } else if (op.size() == 1 && (c == ')' || c == ']' || c == '}')) {
                const char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
                if (m_brackets.empty()) {
                    fail(std::string("unmatched '") + c + "'");
                    return;
                }
                if (m_brackets.back().bracket != expected) {
                    fail(std::string("closing '") + c + "' does not match '" + m_brackets.back().bracket
                        + "' opened at line " + std::to_string(m_brackets.back().line));
                    return;
                }
                m_brackets.pop_back();
            }
            push(TokenKind::Operator, std::string(op), m_line, col);
            m_pos += op.size();
            markEnd();
            return;
        }
        const unsigned char c = static_cast<unsigned char>(m_src[m_pos]);
        if (c == 0)
            fail("the source contains a NUL byte");
        else if (std::isprint(c))
            fail(std::string("invalid character '") + static_cast<char>(c) + "'");
        else
            fail("invalid character (byte " + std::to_string(static_cast<int>(c)) + ")");
    }

    TokenizeResult finish()
    {
        TokenizeResult result;
        if (m_failed) {
            result.error = m_error;
            result.errorLine = m_errorLine;
            result.errorColumn = m_errorColumn;
        } else {
            // Python ends the last logical line and closes every open block.
            if (!m_tokens.empty() && m_tokens.back().kind != TokenKind::Newline
                && m_tokens.back().kind != TokenKind::Dedent && m_tokens.back().kind != TokenKind::Indent)
                push(TokenKind::Newline, std::string(), m_line, 0);
            while (m_indents.size() > 1) {
                m_indents.pop_back();
                push(TokenKind::Dedent, std::string(), m_line + 1, 1);
            }
        }
        push(TokenKind::EndOfInput, std::string(), m_line + 1, 1);
        result.tokens = std::move(m_tokens);
        return result;
    }

    std::string_view m_src;
    std::string m_decoded; // the source re-encoded as UTF-8 when it is not UTF-8 (m_src views it)
    // A coding cookie or a byte order mark: CPython then counts some error columns in
    // characters where it otherwise counts bytes (a continuation at the end of the file).
    bool m_declaredEncoding = false;
    int m_fieldNesting = 0;
    std::size_t m_pos = 0;
    int m_line = 1;
    std::size_t m_lineStart = 0;
    std::size_t m_columnLineStart = 0; // column(): the line, position and count it reached
    std::size_t m_columnPos = 0;
    std::size_t m_columnContinuations = 0;
    Utf8Sequence m_columnSequence;
    bool m_atLineStart = true;
    std::vector<int> m_indents{0};
    std::vector<int> m_altIndents{0}; // the same levels with a tab counted as one column
    std::vector<Open> m_brackets;
    std::vector<Token> m_tokens;
    StringState m_string;
    bool m_failed = false;
    std::string m_error;
    int m_errorLine = 0;
    int m_errorColumn = 0;
};

} // namespace

void appendUtf8(std::string &out, unsigned long cp)
{
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD; // a lone surrogate cannot be written as UTF-8 (JSON output must be valid)
    splitscope::appendUtf8(out, static_cast<std::uint32_t>(cp));
}

namespace {

// The first invalid UTF-8 sequence in `bytes` as CPython's decoder delimits it: from `start`
// to `end` (exclusive), and why.
struct Utf8Error {
    std::size_t start = std::string_view::npos;
    std::size_t end = 0;
    const char *reason = nullptr;
};

Utf8Error firstUtf8Error(std::string_view bytes)
{
    std::size_t i = 0;
    while (i < bytes.size()) {
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        // The length a lead byte announces; 0x80-0xC1 (continuations, overlong two-byte
        // forms) and 0xF5-0xFF (past U+10FFFF) start nothing.
        const std::size_t length = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
        if (length == 0)
            return {i, i + 1, "invalid start byte"};
        // The second byte's range excludes overlong forms, surrogates and values past U+10FFFF.
        const unsigned char low = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        const unsigned char high = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        std::size_t k = 1;
        for (; k < length && i + k < bytes.size(); ++k) {
            const unsigned char b = static_cast<unsigned char>(bytes[i + k]);
            if (k == 1 ? (b < low || b > high) : (b & 0xC0) != 0x80)
                return {i, i + k, "invalid continuation byte"};
        }
        if (k < length)
            return {i, bytes.size(), "unexpected end of data"};
        i += length;
    }
    return {};
}

} // namespace

std::size_t findInvalidUtf8(std::string_view text)
{
    return firstUtf8Error(text).start;
}

std::string utf8DecodeError(std::string_view bytes, std::size_t *at, std::size_t firstPosition)
{
    const Utf8Error e = firstUtf8Error(bytes);
    if (at)
        *at = e.start;
    if (e.start == std::string_view::npos)
        return {};
    // UnicodeDecodeError's own wording (lower-case hex, as Python prints it).
    char text[160];
    const std::size_t position = firstPosition + e.start;
    if (e.end == e.start + 1) {
        std::snprintf(text, sizeof text, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
            static_cast<unsigned>(static_cast<unsigned char>(bytes[e.start])), position, e.reason);
    } else {
        std::snprintf(text, sizeof text, "'utf-8' codec can't decode bytes in position %zu-%zu: %s", position,
            firstPosition + e.end - 1, e.reason);
    }
    return text;
}

TokenizeResult tokenizePython(std::string_view source)
{
    return Tokenizer(source).run();
}

} // namespace splitscope::importer
