// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace splitscope::importer {

// Python 3 names (PEP 3131), exactly as CPython decides them: the first character is
// '_' or XID_Start, the others XID_Continue, from the Unicode tables of the Python that
// generated PythonIdentifierTables.h (its header says which).
//
// CPython then normalizes a non-ASCII name with NFKC ("ﬁle" is the name "file", "ｌatents"
// is "latents"), and so does normalizeName, with the same Unicode version's data
// (PythonNfkcTables.h). Keywords are not normalized: CPython matches them as written, so
// `ｉf = 1` binds the name "if".
//
// Usage:
//     const IdentifierCheck c = checkIdentifier(word);
//     if (!c.valid()) fail(offset + c.invalidAt, invalidCharacterMessage(c.invalidCodePoint));
struct IdentifierCheck {
    static constexpr std::size_t kValid = std::string_view::npos;
    std::size_t invalidAt = kValid; // byte offset of the first character that cannot be there
    char32_t invalidCodePoint = 0;
    bool valid() const { return invalidAt == kValid; }
};

// `word`: UTF-8 (a malformed sequence is an invalid character U+FFFD).
IdentifierCheck checkIdentifier(std::string_view word);

// The name Python reads for `name`, a valid identifier (checkIdentifier) in UTF-8: its NFKC
// normalization, as unicodedata.normalize("NFKC", name). An ASCII name is returned as it is.
std::string normalizeName(std::string_view name);
// The same on code points. Only characters a name may hold (XID_Continue) are decomposed.
std::u32string normalizeNameNfkc(std::u32string_view name);

bool isIdentifierStart(char32_t codePoint);    // '_', ASCII letters, XID_Start
bool isIdentifierContinue(char32_t codePoint); // also digits, XID_Continue
bool isPrintable(char32_t codePoint);          // as Python's str.isprintable

// CPython's message for a character that cannot be in a name: "invalid character '€'
// (U+20AC)", or "invalid non-printable character U+00A0" for one that would not show.
std::string invalidCharacterMessage(char32_t codePoint);

// The code point at `pos` of UTF-8 `text` and its length in bytes (at least 1); a
// malformed or truncated sequence is U+FFFD of length 1.
char32_t decodeUtf8At(std::string_view text, std::size_t pos, std::size_t *length);

} // namespace splitscope::importer
