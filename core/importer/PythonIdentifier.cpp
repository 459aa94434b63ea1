// SPDX-License-Identifier: MIT
#include "PythonIdentifier.h"

#include "PythonIdentifierTables.h"
#include "core/Utf8.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace splitscope::importer {

namespace {

using unicode_tables::CodePointRange;

template <typename Range, std::size_t N>
const Range *findRange(const Range (&table)[N], char32_t codePoint)
{
    // The first range that does not end before the code point.
    const Range *it = std::lower_bound(std::begin(table), std::end(table), codePoint,
        [](const Range &r, char32_t cp) { return r.last < cp; });
    return it != std::end(table) && it->first <= codePoint ? it : nullptr;
}

bool isAsciiLetter(char32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

unsigned combiningClass(char32_t codePoint)
{
    if (codePoint < 0x80)
        return 0;
    const auto *range = findRange(unicode_tables::kCombiningClass, codePoint);
    return range ? range->value : 0;
}

} // namespace

bool isIdentifierStart(char32_t c)
{
    if (c < 0x80)
        return isAsciiLetter(c) || c == '_';
    return findRange(unicode_tables::kXidStart, c) != nullptr;
}

bool isIdentifierContinue(char32_t c)
{
    if (c < 0x80)
        return isAsciiLetter(c) || c == '_' || (c >= '0' && c <= '9');
    return findRange(unicode_tables::kXidContinue, c) != nullptr;
}

bool isPrintable(char32_t c)
{
    if (c < 0x80)
        return c >= 0x20 && c < 0x7F;
    return findRange(unicode_tables::kNonPrintable, c) == nullptr;
}

char32_t decodeUtf8At(std::string_view text, std::size_t pos, std::size_t *length)
{
    *length = 1;
    if (pos >= text.size())
        return 0xFFFD;
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c < 0x80)
        return c;
    std::size_t n = 0;
    char32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0xFFFD;
    }
    if (n > text.size() - pos)
        return 0xFFFD;
    for (std::size_t k = 1; k < n; ++k) {
        const unsigned char cc = static_cast<unsigned char>(text[pos + k]);
        if ((cc & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (cc & 0x3F);
    }
    const char32_t minimum = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    *length = n;
    return cp;
}

IdentifierCheck checkIdentifier(std::string_view word)
{
    IdentifierCheck check;
    bool ascii = true;
    unsigned previousClass = 0;
    for (std::size_t pos = 0; pos < word.size();) {
        std::size_t length = 1;
        const char32_t c = decodeUtf8At(word, pos, &length);
        if (!(pos == 0 ? isIdentifierStart(c) : isIdentifierContinue(c))) {
            check.invalidAt = pos;
            check.invalidCodePoint = c;
            check.nfkcMayChange = false;
            return check;
        }
        if (c >= 0x80) {
            ascii = false;
            // UAX #15's quick check: a character NFKC changes or may compose with the
            // one before, or combining marks out of canonical order.
            const unsigned currentClass = combiningClass(c);
            if (findRange(unicode_tables::kNfkcUnstable, c) || (currentClass != 0 && previousClass > currentClass))
                check.nfkcMayChange = true;
            previousClass = currentClass;
        } else {
            previousClass = 0;
        }
        pos += length;
    }
    if (ascii)
        check.nfkcMayChange = false;
    return check;
}

std::string invalidCharacterMessage(char32_t c)
{
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
    if (!isPrintable(c))
        return std::string("invalid non-printable character ") + hex;
    std::string shown;
    splitscope::appendUtf8(shown, static_cast<std::uint32_t>(c));
    return "invalid character '" + shown + "' (" + hex + ")";
}

} // namespace splitscope::importer
