// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace splitscope::importer {

// The character Python 3.11's "\N{name}" escape names (Unicode 14.0, as its unicodedata):
// a character's name or a name alias (NameAliases.txt) in any case, "CJK UNIFIED
// IDEOGRAPH-XXXX" (four or five upper-case hex digits of a unified ideograph) and "HANGUL
// SYLLABLE GAG" in upper case only; not a named sequence. -1 when it names none. The names
// are kept whole (PythonUnicodeNameTables.h): a name is found only when it is one.
long lookupUnicodeName(std::string_view name);

// The name unicodedata.name gives `codePoint` (computed ones included), or empty.
std::string unicodeName(char32_t codePoint);

// For tests: every name alias with its character.
void forEachUnicodeNameAlias(const std::function<void(std::string_view alias, char32_t codePoint)> &visit);

} // namespace splitscope::importer
