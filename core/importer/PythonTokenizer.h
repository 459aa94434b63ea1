// SPDX-License-Identifier: MIT
#pragma once

#include "PythonToken.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// Splits Python 3 source into tokens the way CPython's tokenizer does:
// names, numbers (all bases, underscores, exponents, imaginary), strings with every
// prefix (r, u, b, f and their combinations, any case) in single, double and triple
// quotes with escapes decoded, operators and delimiters (longest match), comments
// (dropped), implicit line joining inside (), [] and {}, explicit joining with a
// backslash, and INDENT/DEDENT from leading whitespace (tabs to multiples of 8).
//
// The source is UTF-8, or Latin-1 or ASCII when a coding cookie says so
// (PythonSourceEncoding.h; other encodings are refused). As for CPython's compile() (what
// `import` uses), invalid UTF-8 is an error in a name, not in a comment. "\N{name}" in a
// str literal is the character Python 3.11's unicodedata names (PythonUnicodeNames.h). A
// string literal CPython's parser refuses (invalid UTF-8, a non-ASCII character in bytes,
// a "\N{name}" it does not know, an f-string's single '}', empty or unclosed field, a
// backslash or '#' in a field's expression, a conversion other than !r, !s, !a, fields
// nested past two format specs, a field's expression that is not one: "{a b}", "{*a}",
// "{lambda: 1}") is a token with Token::literalError for the parser to report where CPython
// does (a field's expression is tokenized and parsed on its own, as in parentheses, as
// CPython 3.11 does; its error is put where it is in the file). An f-string's field may
// hold a string in the same quotes (Python 3.12). Names are checked as CPython
// checks them (PEP 3131, PythonIdentifier.h) and NFKC-normalized as it normalizes them
// (Token::normalized: "ｌatents" is the name "latents", never a keyword). Errors are Python's:
// an unterminated string (for an f-string Python 3.11 ends at a quote in a field, "f-string:
// expecting '}'" where CPython reports it), invalid UTF-8 in a name, a bracket that does not match or never closes, inconsistent
// dedent, a character that cannot be in a name or between tokens ("invalid character
// '€' (U+20AC)"); the first one stops tokenizing and is reported with its line and
// column (in characters). Limits keep hostile input harmless: nesting of
// brackets (kMaxBracketDepth) and of indentation (kMaxIndentDepth) are bounded as in
// CPython, and the work is linear in the input size.
//
// Usage:
//     const TokenizeResult r = tokenizePython(source);
//     if (!r.ok()) report(r.errorLine, r.errorColumn, r.error);
//     for (const Token &t : r.tokens) ...   // ends with EndOfInput
struct TokenizeResult {
    std::vector<Token> tokens; // on error: the tokens before it, then EndOfInput
    std::string error;         // empty when the whole input tokenized
    int errorLine = 0;
    int errorColumn = 0;
    bool ok() const { return error.empty(); }
};

// CPython's limits: 200 nested brackets, 100 indentation levels.
constexpr int kMaxBracketDepth = 200;
constexpr int kMaxIndentDepth = 100;

TokenizeResult tokenizePython(std::string_view source);

// Appends the UTF-8 encoding of `codePoint` (surrogates and values past U+10FFFF become U+FFFD).
void appendUtf8(std::string &out, unsigned long codePoint);

// Byte offset of the first invalid UTF-8 sequence in `text`, or npos when it is valid.
std::size_t findInvalidUtf8(std::string_view text);

// CPython's UTF-8 decoder on `bytes`: its first error as UnicodeDecodeError words it ("'utf-8'
// codec can't decode byte 0xff in position 3: invalid start byte", the first byte of `bytes`
// being position `firstPosition`), and where that sequence starts in `*at`; empty when
// `bytes` is valid UTF-8.
std::string utf8DecodeError(std::string_view bytes, std::size_t *at = nullptr, std::size_t firstPosition = 0);

} // namespace splitscope::importer
