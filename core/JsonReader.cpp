// SPDX-License-Identifier: MIT
#include "JsonReader.h"

#include "Utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

namespace splitscope {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string describeChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F)
        return std::string("'") + c + "'";
    static const char *kHex = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

// The encoding of text that starts like UTF-16 or UTF-32 (a byte order mark, or NUL
// bytes around the first character, which JSON text starts with an ASCII one), or
// nullptr. Windows editors save "Unicode" files this way.
const char *wideEncoding(std::string_view s)
{
    auto startsWith = [s](std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; };
    using namespace std::string_view_literals;
    if (startsWith("\x00\x00\xFE\xFF"sv))
        return "UTF-32 (it starts with the byte order mark 00 00 FE FF)";
    if (startsWith("\xFF\xFE\x00\x00"sv))
        return "UTF-32 (it starts with the byte order mark FF FE 00 00)";
    if (startsWith("\xFF\xFE"sv))
        return "UTF-16 (it starts with the byte order mark FF FE)";
    if (startsWith("\xFE\xFF"sv))
        return "UTF-16 (it starts with the byte order mark FE FF)";
    if (s.size() >= 4 && ((s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] != 0)
                             || (s[0] != 0 && s[1] == 0 && s[2] == 0 && s[3] == 0)))
        return "UTF-32 (every character takes four bytes, three of them zero here)";
    if (s.size() >= 2 && ((s[0] == 0) != (s[1] == 0)))
        return "UTF-16 (every character takes two bytes, one of them zero here)";
    return nullptr;
}

// from_chars reports both overflow and underflow as result_out_of_range and leaves
// the value alone. Tells them apart from the text of a valid JSON number: the
// magnitude is at least 1 (overflow) when its leading non-zero digit stands at a
// non-negative power of ten.
bool numberOverflows(std::string_view number)
{
    std::size_t p = number[0] == '-' ? 1 : 0;
    long long leadingPower = 0;
    bool nonZero = false;
    const std::size_t intStart = p;
    while (p < number.size() && isDigit(number[p]))
        ++p;
    const std::size_t intEnd = p;
    for (std::size_t i = intStart; i < intEnd && !nonZero; ++i) {
        if (number[i] != '0') {
            leadingPower = static_cast<long long>(intEnd - i - 1);
            nonZero = true;
        }
    }
    if (p < number.size() && number[p] == '.') {
        const std::size_t fracStart = ++p;
        while (p < number.size() && isDigit(number[p]))
            ++p;
        for (std::size_t i = fracStart; i < p && !nonZero; ++i) {
            if (number[i] != '0') {
                leadingPower = -static_cast<long long>(i - fracStart + 1);
                nonZero = true;
            }
        }
    }
    if (!nonZero)
        return false; // zero never overflows
    long long exponent = 0;
    if (p < number.size() && (number[p] == 'e' || number[p] == 'E')) {
        ++p;
        const bool negative = p < number.size() && number[p] == '-';
        if (p < number.size() && (number[p] == '+' || number[p] == '-'))
            ++p;
        // Saturates: beyond 10^12 the sign decides alone (digit counts stay far below).
        constexpr long long kSaturation = 1000000000000LL;
        for (; p < number.size() && isDigit(number[p]); ++p)
            exponent = std::min(kSaturation, exponent * 10 + (number[p] - '0'));
        if (negative)
            exponent = -exponent;
    }
    return leadingPower + exponent >= 0;
}

} // namespace

JsonReader::JsonReader(std::string_view text) : m_text(text)
{
    // A UTF-8 byte order mark is tolerated at the very start.
    if (m_text.size() >= 3 && m_text.substr(0, 3) == "\xEF\xBB\xBF") {
        m_pos = 3;
        m_lineStart = 3;
    } else if (const char *encoding = wideEncoding(m_text)) {
        // Otherwise the first byte would be reported as "unexpected byte 0xff", which
        // does not tell the user that an editor saved the file in the wrong encoding.
        fail(std::string("the text looks like ") + encoding + "; save the file as UTF-8");
    }
}

void JsonReader::skipWhitespace()
{
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos];
        if (c == '\n' || (c == '\r' && (m_pos + 1 == m_text.size() || m_text[m_pos + 1] != '\n'))) {
            // LF, CR LF (its CR is skipped as a blank) and a lone CR (classic Mac OS) each end a line.
            ++m_pos;
            ++m_line;
            m_lineStart = m_pos;
            m_lineContinuationBytes = 0;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ++m_pos;
        } else {
            break;
        }
    }
}

bool JsonReader::fail(const std::string &message)
{
    if (!m_failed) {
        m_failed = true;
        m_error = message;
        m_errorLine = m_line;
        m_errorColumn = column();
    }
    return false;
}

JsonReader::Kind JsonReader::peekKind()
{
    if (m_failed)
        return Kind::Invalid;
    skipWhitespace();
    if (m_pos >= m_text.size()) {
        fail("unexpected end of input, a value was expected");
        return Kind::Invalid;
    }
    const char c = m_text[m_pos];
    switch (c) {
    case 'n': return Kind::Null;
    case 't':
    case 'f': return Kind::Bool;
    case '"': return Kind::String;
    case '[': return Kind::Array;
    case '{': return Kind::Object;
    default:
        if (c == '-' || isDigit(c))
            return Kind::Number;
        fail("unexpected " + describeChar(c) + ", a value was expected");
        return Kind::Invalid;
    }
}

bool JsonReader::expectLiteral(std::string_view literal)
{
    if (m_text.substr(m_pos, literal.size()) != literal)
        return fail("invalid literal, expected '" + std::string(literal) + "'");
    m_pos += literal.size();
    return true;
}

bool JsonReader::readNull()
{
    if (peekKind() != Kind::Null)
        return fail("null expected");
    return expectLiteral("null");
}

bool JsonReader::readBool(bool &value)
{
    if (peekKind() != Kind::Bool)
        return fail("true or false expected");
    value = m_text[m_pos] == 't';
    return expectLiteral(value ? "true" : "false");
}

bool JsonReader::parseNumber(double *value, bool *outOfRange)
{
    const std::size_t start = m_pos;
    std::size_t p = m_pos;
    if (p < m_text.size() && m_text[p] == '-')
        ++p;
    if (p >= m_text.size() || !isDigit(m_text[p]))
        return fail("invalid number: a digit must follow '-'");
    if (m_text[p] == '0') {
        ++p;
    } else {
        while (p < m_text.size() && isDigit(m_text[p]))
            ++p;
    }
    if (p < m_text.size() && m_text[p] == '.') {
        ++p;
        if (p >= m_text.size() || !isDigit(m_text[p])) {
            m_pos = p;
            return fail("invalid number: a digit must follow '.'");
        }
        while (p < m_text.size() && isDigit(m_text[p]))
            ++p;
    }
    if (p < m_text.size() && (m_text[p] == 'e' || m_text[p] == 'E')) {
        ++p;
        if (p < m_text.size() && (m_text[p] == '+' || m_text[p] == '-'))
            ++p;
        if (p >= m_text.size() || !isDigit(m_text[p])) {
            m_pos = p;
            return fail("invalid number: the exponent has no digits");
        }
        while (p < m_text.size() && isDigit(m_text[p]))
            ++p;
    }
    // skipValue() converts only what may be out of range: numbers with an exponent or
    // with more digits than the largest double has before its point.
    constexpr std::size_t kMaxPlainDigits = 300;
    const std::string_view number = m_text.substr(start, p - start);
    const bool checkSkipped = !value && m_outOfRange && m_outOfRange->line == 0
        && (number.size() > kMaxPlainDigits || number.find_first_of("eE") != std::string_view::npos);
    if (value || checkSkipped) {
        // from_chars does not depend on the C locale (Qt sets LC_NUMERIC from the environment).
        double v = 0;
        const auto res = std::from_chars(number.data(), number.data() + number.size(), v);
        bool overflow = false;
        if (res.ec == std::errc::result_out_of_range) {
            overflow = numberOverflows(number);
            v = overflow ? std::numeric_limits<double>::infinity() : 0.0;
            if (number[0] == '-')
                v = -v;
        }
        if (value)
            *value = v;
        if (outOfRange)
            *outOfRange = overflow;
        if (checkSkipped && overflow)
            *m_outOfRange = Position{m_line, column()};
    }
    m_pos = p;
    return true;
}

bool JsonReader::readNumber(double &value, std::string_view *raw, bool *outOfRange)
{
    if (peekKind() != Kind::Number)
        return fail("number expected");
    const std::size_t start = m_pos;
    if (!parseNumber(&value, outOfRange))
        return false;
    if (raw)
        *raw = m_text.substr(start, m_pos - start);
    return true;
}

bool JsonReader::parseString(std::string *out)
{
    // m_text[m_pos] == '"'
    ++m_pos;
    std::size_t runStart = m_pos;
    auto flush = [&]() {
        if (out)
            out->append(m_text.data() + runStart, m_pos - runStart);
    };
    while (true) {
        if (m_pos >= m_text.size())
            return fail("unterminated string");
        const char c = m_text[m_pos];
        const auto u = static_cast<unsigned char>(c);
        if (c == '"') {
            flush();
            ++m_pos;
            return true;
        }
        if (u < 0x20)
            return fail(c == '\n' ? "unterminated string (line break inside a string)"
                                  : "control character " + describeChar(c) + " inside a string must be escaped");
        if (u >= 0x80) {
            const std::size_t len = utf8SequenceLength(m_text, m_pos);
            if (len == 0)
                return fail("invalid UTF-8 in string");
            m_pos += len;
            m_lineContinuationBytes += len - 1;
            continue;
        }
        if (c != '\\') {
            ++m_pos;
            continue;
        }
        flush();
        const std::size_t escapeStart = m_pos; // errors point at the backslash
        auto escapeError = [&](const std::string &message) {
            m_pos = escapeStart;
            return fail(message);
        };
        ++m_pos;
        if (m_pos >= m_text.size())
            return fail("unterminated string");
        const char e = m_text[m_pos];
        std::string decoded;
        switch (e) {
        case '"': decoded = "\""; break;
        case '\\': decoded = "\\"; break;
        case '/': decoded = "/"; break;
        case 'b': decoded = "\b"; break;
        case 'f': decoded = "\f"; break;
        case 'n': decoded = "\n"; break;
        case 'r': decoded = "\r"; break;
        case 't': decoded = "\t"; break;
        case 'u': {
            auto readHex4 = [&](std::size_t at, std::uint32_t &cp) {
                if (at + 4 > m_text.size())
                    return false;
                cp = 0;
                for (std::size_t k = 0; k < 4; ++k) {
                    const int h = hexValue(m_text[at + k]);
                    if (h < 0)
                        return false;
                    cp = (cp << 4) | static_cast<std::uint32_t>(h);
                }
                return true;
            };
            std::uint32_t cp = 0;
            if (!readHex4(m_pos + 1, cp))
                return escapeError("invalid \\u escape: four hex digits expected");
            m_pos += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                std::uint32_t low = 0;
                if (m_pos + 2 < m_text.size() && m_text[m_pos + 1] == '\\' && m_text[m_pos + 2] == 'u'
                    && readHex4(m_pos + 3, low) && low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    m_pos += 6;
                } else {
                    return escapeError("invalid \\u escape: unpaired high surrogate");
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return escapeError("invalid \\u escape: unpaired low surrogate");
            }
            appendUtf8(decoded, cp);
            break;
        }
        default:
            return escapeError("invalid escape \\" + std::string(1, e) + " in string");
        }
        if (out)
            *out += decoded;
        ++m_pos;
        runStart = m_pos;
    }
}

bool JsonReader::readString(std::string &value)
{
    if (peekKind() != Kind::String)
        return fail("string expected");
    value.clear();
    return parseString(&value);
}

bool JsonReader::beginArray()
{
    if (peekKind() != Kind::Array)
        return fail("'[' expected");
    if (m_depth >= kMaxDepth)
        return fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    ++m_pos;
    ++m_depth;
    m_first = true;
    return true;
}

bool JsonReader::afterElement(char close, bool &more)
{
    skipWhitespace();
    if (m_pos >= m_text.size())
        return fail(std::string("unexpected end of input, '") + close + "' expected");
    const char c = m_text[m_pos];
    if (c == close) {
        ++m_pos;
        --m_depth;
        more = false;
        // The enclosing container has had at least this element.
        m_first = false;
        return true;
    }
    if (m_first) {
        more = true;
        m_first = false;
        return true;
    }
    if (c != ',')
        return fail("unexpected " + describeChar(c) + ", ',' or '" + close + "' expected");
    ++m_pos;
    skipWhitespace();
    if (m_pos < m_text.size() && m_text[m_pos] == close)
        return fail(std::string("trailing comma before '") + close + "'");
    more = true;
    return true;
}

bool JsonReader::nextItem()
{
    if (m_failed)
        return false;
    bool more = false;
    if (!afterElement(']', more))
        return false;
    if (more)
        skipWhitespace();
    return more;
}

bool JsonReader::beginObject()
{
    if (peekKind() != Kind::Object)
        return fail("'{' expected");
    if (m_depth >= kMaxDepth)
        return fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    ++m_pos;
    ++m_depth;
    m_first = true;
    return true;
}

bool JsonReader::nextMember(std::string &key)
{
    if (m_failed)
        return false;
    bool more = false;
    if (!afterElement('}', more) || !more)
        return false;
    skipWhitespace();
    if (m_pos >= m_text.size() || m_text[m_pos] != '"')
        return fail(m_pos >= m_text.size() ? "unexpected end of input, a member name was expected"
                                           : "unexpected " + describeChar(m_text[m_pos]) + ", a member name in double quotes was expected");
    m_memberLine = m_line;
    m_memberColumn = column();
    key.clear();
    if (!parseString(&key))
        return false;
    skipWhitespace();
    if (m_pos >= m_text.size() || m_text[m_pos] != ':')
        return fail("':' expected after member name \"" + key + "\"");
    ++m_pos;
    skipWhitespace();
    return true;
}

bool JsonReader::skipValueAt(int depth)
{
    switch (peekKind()) {
    case Kind::Invalid: return false;
    case Kind::Null: return expectLiteral("null");
    case Kind::Bool: return expectLiteral(m_text[m_pos] == 't' ? "true" : "false");
    case Kind::Number: return parseNumber(nullptr, nullptr);
    case Kind::String: return parseString(nullptr);
    case Kind::Array:
        if (!beginArray())
            return false;
        while (nextItem()) {
            if (!skipValueAt(depth + 1))
                return false;
        }
        return !m_failed;
    case Kind::Object: {
        if (!beginObject())
            return false;
        std::string key;
        while (nextMember(key)) {
            if (!skipValueAt(depth + 1))
                return false;
        }
        return !m_failed;
    }
    }
    return false;
}

bool JsonReader::skipValue(std::string_view *raw, Position *outOfRange)
{
    if (outOfRange)
        *outOfRange = Position{};
    if (peekKind() == Kind::Invalid)
        return false;
    const std::size_t start = m_pos;
    m_outOfRange = outOfRange;
    const bool ok = skipValueAt(0);
    m_outOfRange = nullptr;
    if (!ok)
        return false;
    if (raw)
        *raw = m_text.substr(start, m_pos - start);
    return true;
}

bool JsonReader::expectEnd()
{
    if (m_failed)
        return false;
    skipWhitespace();
    if (m_pos < m_text.size())
        return fail("unexpected " + describeChar(m_text[m_pos]) + " after the end of the document");
    return true;
}

std::string jsonQuote(std::string_view text)
{
    static const char *kHex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += kHex[u >> 4];
                out += kHex[u & 15];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

} // namespace splitscope
