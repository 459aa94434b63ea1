// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace splitscope {

// A pull parser for JSON text (RFC 8259) that knows the line and column of every
// value. The pipeline loader drives it directly, so loading a document builds the
// pipeline model without an intermediate tree (a 10^6-unit file loads in one pass).
//
// Usage:
//     JsonReader r(text);
//     if (r.beginObject()) {
//         std::string key;
//         while (r.nextMember(key)) { ... read or r.skipValue() ... }
//     }
//     if (r.failed()) report(r.errorMessage(), r.errorLine(), r.errorColumn());
//
// After the first syntax error every call returns false and failed() is true.
// No input crashes it or makes it recurse without bound (nesting is limited).
//
// Positions are 1-based: the line counts line breaks (LF, CR LF as one, and a lone CR,
// as editors count them); the column counts Unicode code points (not bytes) from the
// start of the line, so "ñ" advances it by one and a tab by one. A UTF-8 byte order
// mark at the start of the text is not counted. Text that starts like UTF-16 or UTF-32
// is rejected at 1:1 with a message saying so.
class JsonReader {
public:
    enum class Kind { Null, Bool, Number, String, Array, Object, Invalid };

    explicit JsonReader(std::string_view text);

    // Kind of the next value, after skipping whitespace; Invalid on a syntax error or at the end.
    Kind peekKind();
    // Position (1-based) of the next token; call after peekKind() for the position of a value.
    int line() const { return m_line; }
    int column() const { return static_cast<int>(m_pos - m_lineStart - m_lineContinuationBytes) + 1; }
    // Byte offset of the next token in the text, likewise (after a value: just past it).
    std::size_t offset() const { return m_pos; }

    bool readNull();
    bool readBool(bool &value);
    // Reads a number as the nearest double. JSON does not limit the range: a number too
    // small for a double (1e-400) reads as 0 of its sign, one too large (1e999) as
    // infinity of its sign with `outOfRange` set when given; the caller reports it.
    bool readNumber(double &value, std::string_view *raw = nullptr, bool *outOfRange = nullptr);
    bool readString(std::string &value);

    bool beginArray();
    // True when another element follows (its position is then line()/column());
    // false at ']' or on error.
    bool nextItem();

    bool beginObject();
    // Reads the next key and the ':' after it; false at '}' or on error.
    bool nextMember(std::string &key);
    int memberLine() const { return m_memberLine; }
    int memberColumn() const { return m_memberColumn; }

    struct Position {
        int line = 0; // 0: none
        int column = 0;
    };
    // Skips one value; when raw is given it receives the value's exact source text,
    // and when outOfRange is given the position of the value's first number too large
    // for a double (line 0 when none; such text cannot be turned into a double later).
    bool skipValue(std::string_view *raw = nullptr, Position *outOfRange = nullptr);

    // True when only whitespace remains; otherwise records an error.
    bool expectEnd();

    bool failed() const { return m_failed; }
    const std::string &errorMessage() const { return m_error; }
    int errorLine() const { return m_errorLine; }
    int errorColumn() const { return m_errorColumn; }

    // Deepest array/object nesting accepted before the input is rejected.
    static constexpr int kMaxDepth = 512;

private:
    enum class Context { Array, Object };
    void skipWhitespace();
    bool fail(const std::string &message);
    bool expectLiteral(std::string_view literal);
    bool parseString(std::string *out);
    bool parseNumber(double *value, bool *outOfRange);
    bool skipValueAt(int depth);
    bool afterElement(char close, bool &more);

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::size_t m_lineStart = 0;
    // UTF-8 continuation bytes between m_lineStart and m_pos: column() counts code points.
    std::size_t m_lineContinuationBytes = 0;
    int m_line = 1;
    int m_depth = 0;
    bool m_first = false;       // no element read yet in the innermost container
    int m_memberLine = 0;
    int m_memberColumn = 0;
    bool m_failed = false;
    std::string m_error;
    int m_errorLine = 0;
    int m_errorColumn = 0;
    Position *m_outOfRange = nullptr; // set while skipValue() looks for out-of-range numbers
};

// Writes `text` as a JSON string literal (quotes included), escaping as needed.
std::string jsonQuote(std::string_view text);

} // namespace splitscope
