// SPDX-License-Identifier: MIT
#include "PythonTokenizer.h"

#include "PythonIdentifier.h"
#include "PythonSourceEncoding.h"
#include "core/Utf8.h"

#include <array>
#include <cctype>
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

// Operators and delimiters, longest first so that the first match is the longest.
constexpr std::array<std::string_view, 47> kOperators = {
    "**=", "//=", ">>=", "<<=", "...",
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
    "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

class Tokenizer {
public:
    explicit Tokenizer(std::string_view source) : m_src(source) {}

    TokenizeResult run()
    {
        // A coding cookie may declare Latin-1: the tokenizer then reads its UTF-8 re-encoding.
        DecodedSource decoded = decodePythonSource(m_src);
        if (!decoded.ok()) {
            failAt(decoded.errorLine, decoded.errorColumn, decoded.error);
            return finish();
        }
        if (decoded.converted) {
            m_decoded = std::move(decoded.text);
            m_src = m_decoded;
        }
        if (const std::size_t bad = findInvalidUtf8(m_src); bad != std::string_view::npos) {
            // Line and column (in code points, as everywhere) of the first bad byte;
            // \n, \r\n and \r end lines, as in consumeNewline().
            int line = 1, column = 1;
            for (std::size_t i = 0; i < bad; ++i) {
                const char c = m_src[i];
                if (c == '\n' || (c == '\r' && (i + 1 >= m_src.size() || m_src[i + 1] != '\n'))) {
                    ++line;
                    column = 1;
                } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80
                    && !(i < 3 && m_src.substr(0, 3) == "\xEF\xBB\xBF")) {
                    ++column;
                }
            }
            failAt(line, column,
                "the file is not valid UTF-8 here (Python reads source as UTF-8)");
            return finish();
        }
        // A UTF-8 byte order mark is allowed at the very start, as in Python.
        if (m_src.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = m_lineStart = 3;
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
                ++m_pos;
                if (m_pos < m_src.size() && (m_src[m_pos] == '\n' || m_src[m_pos] == '\r'))
                    consumeNewline(); // explicit line joining: the logical line goes on
                else if (m_pos >= m_src.size())
                    fail("unexpected end of file after the line continuation character");
                else
                    fail("unexpected character after the line continuation character");
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

    // 1-based column of `pos` on the current line, in code points (as the JSON reader
    // counts them): UTF-8 continuation bytes do not count. Tokens come in order, so
    // the count carries on from the previous call instead of rescanning the line.
    int column(std::size_t pos)
    {
        if (m_columnLineStart != m_lineStart || pos < m_columnPos) {
            m_columnLineStart = m_lineStart;
            m_columnPos = m_lineStart;
            m_columnContinuations = 0;
        }
        for (; m_columnPos < pos && m_columnPos < m_src.size(); ++m_columnPos) {
            if ((static_cast<unsigned char>(m_src[m_columnPos]) & 0xC0) == 0x80)
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
        push(TokenKind::Name, std::string(word), m_line, column(start));
        m_pos = end;
        markEnd();
        m_tokens.back().nfkcMayChange = check.nfkcMayChange;
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
        m_pos += triple ? 3 : 1;
        std::string value;
        // An f-string's replacement fields, innermost last: inside a field's expression a
        // quote starts a nested string (Python 3.12 allows even the enclosing quote there),
        // so it does not end the f-string.
        struct Field {
            int brackets = 0;  // ( [ { open in the field's expression
            bool spec = false; // in its format spec (after a top-level ':')
        };
        std::vector<Field> fields;
        while (true) {
            if (m_pos >= m_src.size()) {
                failAt(line, col, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
                return;
            }
            const char c = m_src[m_pos];
            if (format && c != '\\' && c != '\n' && c != '\r' && readFormatCharacter(c, fields, value))
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
                    failAt(line, col, "unterminated string literal (a newline inside a single-quoted string)");
                    return;
                }
                consumeNewline();
                value += '\n';
            } else if (c == '\\') {
                if (m_pos + 1 >= m_src.size()) {
                    ++m_pos;
                    continue; // reported as unterminated on the next round
                }
                if (raw) {
                    // Raw strings keep the backslash; it still stops the next quote ending the string.
                    value += c;
                    ++m_pos;
                    if (m_src[m_pos] == '\n' || m_src[m_pos] == '\r') {
                        consumeNewline();
                        value += '\n';
                    } else {
                        value += m_src[m_pos++];
                    }
                } else if (!readEscape(value, bytes)) {
                    return;
                }
            } else {
                value += c;
                ++m_pos;
            }
        }
        push(TokenKind::String, std::move(value), line, col);
        markEnd();
        m_tokens.back().fString = format;
        m_tokens.back().bytes = bytes;
    }

    // One character of an f-string at m_pos, read for its replacement fields; false when
    // it is ordinary text (or the closing quote) for readString to read.
    template <typename Fields>
    bool readFormatCharacter(char c, Fields &fields, std::string &value)
    {
        const bool literal = fields.empty() || fields.back().spec;
        if (literal) {
            if (c == '{') {
                if (fields.empty() && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '{') {
                    value += "{{";
                    m_pos += 2;
                    return true;
                }
                fields.push_back({});
            } else if (c == '}' && !fields.empty()) {
                fields.pop_back();
            } else {
                return false;
            }
            value += c;
            ++m_pos;
            return true;
        }
        auto &field = fields.back();
        if (c == '\'' || c == '"') {
            readNestedString(value);
            return true;
        }
        if (c == '(' || c == '[' || c == '{') {
            ++field.brackets;
        } else if (c == ')' || c == ']') {
            field.brackets = field.brackets > 0 ? field.brackets - 1 : 0;
        } else if (c == '}') {
            if (field.brackets > 0)
                --field.brackets;
            else
                fields.pop_back();
        } else if (c == ':' && field.brackets == 0) {
            field.spec = true;
        }
        value += c;
        ++m_pos;
        return true;
    }

    // A string inside an f-string's replacement field, copied as written (m_pos is at its quote).
    void readNestedString(std::string &value)
    {
        const char quote = m_src[m_pos];
        const bool triple = m_pos + 2 < m_src.size() && m_src[m_pos + 1] == quote && m_src[m_pos + 2] == quote;
        const std::size_t length = triple ? 3 : 1;
        value.append(m_src.substr(m_pos, length));
        m_pos += length;
        while (m_pos < m_src.size()) {
            const char c = m_src[m_pos];
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
            value += m_src[m_pos];
            ++m_pos;
        }
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
            // Unknown escapes (and \N{...}, which needs the Unicode name table) stay as written.
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
    std::size_t m_pos = 0;
    int m_line = 1;
    std::size_t m_lineStart = 0;
    std::size_t m_columnLineStart = 0; // column(): the line, position and count it reached
    std::size_t m_columnPos = 0;
    std::size_t m_columnContinuations = 0;
    bool m_atLineStart = true;
    std::vector<int> m_indents{0};
    std::vector<int> m_altIndents{0}; // the same levels with a tab counted as one column
    std::vector<Open> m_brackets;
    std::vector<Token> m_tokens;
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

std::size_t findInvalidUtf8(std::string_view text)
{
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        std::size_t length = 0;
        unsigned long cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            length = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            length = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            length = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + length > text.size())
            return i;
        for (std::size_t k = 1; k < length; ++k) {
            const unsigned char cc = static_cast<unsigned char>(text[i + k]);
            if ((cc & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (cc & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are invalid UTF-8.
        const unsigned long minimum = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
        if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += length;
    }
    return std::string_view::npos;
}

TokenizeResult tokenizePython(std::string_view source)
{
    return Tokenizer(source).run();
}

} // namespace splitscope::importer
