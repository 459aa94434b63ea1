// SPDX-License-Identifier: MIT
#include "PythonIdentifier.h"

#include "PythonIdentifierTables.h"
#include "PythonNfkcTables.h"
#include "core/Utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

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

// NFKC (UAX #15) from the tables of PythonNfkcTables.h, read once into sorted arrays.
class NfkcData {
public:
    static const NfkcData &instance()
    {
        static const NfkcData data;
        return data;
    }

    // Appends the full compatibility decomposition of `c` (an XID_Continue character).
    void decompose(char32_t c, std::u32string &out) const
    {
        if (c >= kHangulFirst && c < kHangulFirst + kHangulCount) {
            const char32_t index = c - kHangulFirst;
            out += kLeadingFirst + index / (kVowelCount * kTrailingCount);
            out += kVowelFirst + index % (kVowelCount * kTrailingCount) / kTrailingCount;
            if (index % kTrailingCount != 0)
                out += kTrailingFirst + index % kTrailingCount;
            return;
        }
        const auto it = std::upper_bound(m_decompositions.begin(), m_decompositions.end(), c,
            [](char32_t cp, const Decomposition &d) { return cp < d.first; });
        if (it == m_decompositions.begin() || c > std::prev(it)->last) {
            out += c;
            return;
        }
        const Decomposition &d = *std::prev(it);
        if (d.length == 1)
            out += static_cast<char32_t>(static_cast<std::int64_t>(c) + d.offset);
        else
            out.append(m_pool, static_cast<std::size_t>(d.offset), d.length);
    }

    unsigned combiningClass(char32_t c) const
    {
        const auto it = std::upper_bound(m_classes.begin(), m_classes.end(), c,
            [](char32_t cp, const ClassRange &r) { return cp < r.first; });
        return it != m_classes.begin() && c <= std::prev(it)->last ? std::prev(it)->value : 0;
    }

    // The primary composite of `first` and `second`, or 0 when they do not compose.
    char32_t compose(char32_t first, char32_t second) const
    {
        if (first >= kLeadingFirst && first < kLeadingFirst + kLeadingCount && second >= kVowelFirst
            && second < kVowelFirst + kVowelCount)
            return kHangulFirst + ((first - kLeadingFirst) * kVowelCount + second - kVowelFirst) * kTrailingCount;
        if (first >= kHangulFirst && first < kHangulFirst + kHangulCount && (first - kHangulFirst) % kTrailingCount == 0
            && second > kTrailingFirst && second < kTrailingFirst + kTrailingCount)
            return first + (second - kTrailingFirst);
        const std::uint64_t key = pairKey(first, second);
        const auto it = std::lower_bound(m_compositions.begin(), m_compositions.end(), key,
            [](const Composition &c, std::uint64_t k) { return c.key < k; });
        return it != m_compositions.end() && it->key == key ? it->composite : 0;
    }

private:
    static constexpr char32_t kHangulFirst = 0xAC00;
    static constexpr char32_t kLeadingFirst = 0x1100;
    static constexpr char32_t kVowelFirst = 0x1161;
    static constexpr char32_t kTrailingFirst = 0x11A7; // "no trailing consonant"; the first is 0x11A8
    static constexpr char32_t kLeadingCount = 19;
    static constexpr char32_t kVowelCount = 21;
    static constexpr char32_t kTrailingCount = 28;
    static constexpr char32_t kHangulCount = kLeadingCount * kVowelCount * kTrailingCount;

    struct Decomposition {
        char32_t first;
        char32_t last;
        std::int32_t offset; // length 1: mapping - code point; else: where the mapping starts in m_pool
        unsigned length;
    };
    struct ClassRange {
        char32_t first;
        char32_t last;
        unsigned value;
    };
    struct Composition {
        std::uint64_t key; // pairKey(first, second)
        char32_t composite;
    };

    static std::uint64_t pairKey(char32_t first, char32_t second)
    {
        return (static_cast<std::uint64_t>(first) << 21) | second;
    }

    // Reads the numbers of a table string (generate_nfkc_tables.py says how they are written).
    class Reader {
    public:
        explicit Reader(const char *data) : m_data(data) {}
        bool atEnd() const { return *m_data == '\0'; }
        std::uint32_t next()
        {
            std::uint32_t value = 0;
            for (unsigned shift = 0;; shift += 5) {
                const char *digit = std::strchr(nfkc_tables::kDigits, *m_data++);
                const auto d = static_cast<std::uint32_t>(digit - nfkc_tables::kDigits);
                value |= (d & 31) << shift;
                if (d < 32)
                    return value;
            }
        }
        std::int32_t nextSigned()
        {
            const std::uint32_t z = next();
            return (z & 1) != 0 ? -static_cast<std::int32_t>(z >> 1) - 1 : static_cast<std::int32_t>(z >> 1);
        }

    private:
        const char *m_data;
    };

    NfkcData()
    {
        Reader decompositions(nfkc_tables::kDecompositions);
        for (char32_t after = 0; !decompositions.atEnd();) {
            Decomposition d{};
            d.first = after + decompositions.next();
            const std::uint32_t header = decompositions.next();
            d.length = header % 32;
            d.last = d.first + header / 32;
            if (d.length == 1) {
                d.offset = decompositions.nextSigned();
            } else {
                d.offset = static_cast<std::int32_t>(m_pool.size());
                for (unsigned k = 0; k < d.length; ++k)
                    m_pool += static_cast<char32_t>(decompositions.next());
            }
            m_decompositions.push_back(d);
            after = d.last + 1;
        }
        Reader classes(nfkc_tables::kCombiningClasses);
        for (char32_t after = 0; !classes.atEnd();) {
            ClassRange r{};
            r.first = after + classes.next();
            r.last = r.first + classes.next();
            r.value = classes.next();
            m_classes.push_back(r);
            after = r.last + 1;
        }
        Reader compositions(nfkc_tables::kCompositions);
        for (char32_t first = 0; !compositions.atEnd();) {
            first += compositions.next();
            const auto second = static_cast<char32_t>(compositions.next());
            const auto composite = static_cast<char32_t>(static_cast<std::int64_t>(first) + compositions.nextSigned());
            m_compositions.push_back({pairKey(first, second), composite});
        }
    }

    std::vector<Decomposition> m_decompositions;
    std::u32string m_pool;
    std::vector<ClassRange> m_classes;
    std::vector<Composition> m_compositions;
};

} // namespace

std::u32string normalizeNameNfkc(std::u32string_view name)
{
    const NfkcData &data = NfkcData::instance();
    std::u32string decomposed;
    decomposed.reserve(name.size());
    for (const char32_t c : name) {
        if (c < 0x80)
            decomposed += c;
        else
            data.decompose(c, decomposed);
    }
    // Canonical order: each run of combining marks (non-zero class) sorted by class, stably.
    std::vector<std::pair<unsigned, char32_t>> marked(decomposed.size());
    for (std::size_t k = 0; k < decomposed.size(); ++k)
        marked[k] = {decomposed[k] < 0x80 ? 0 : data.combiningClass(decomposed[k]), decomposed[k]};
    for (auto run = marked.begin(); run != marked.end();) {
        const auto end = std::find_if(run, marked.end(), [](const auto &m) { return m.first == 0; });
        std::stable_sort(run, end, [](const auto &a, const auto &b) { return a.first < b.first; });
        run = end == marked.end() ? end : end + 1;
    }
    // Canonical composition: a character joins the last starter unless a character between
    // them has a class of zero or one at least its own (it is blocked).
    std::u32string out;
    out.reserve(decomposed.size());
    std::size_t starter = std::u32string::npos;
    unsigned lastClass = 0;
    for (const auto &[cls, c] : marked) {
        if (starter != std::u32string::npos) {
            const bool adjacent = starter + 1 == out.size();
            if (adjacent || (lastClass != 0 && lastClass < cls)) {
                if (const char32_t composite = data.compose(out[starter], c)) {
                    out[starter] = composite;
                    continue;
                }
            }
        }
        if (cls == 0)
            starter = out.size();
        lastClass = cls;
        out += c;
    }
    return out;
}

std::string normalizeName(std::string_view name)
{
    bool ascii = true;
    for (const char c : name)
        ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii)
        return std::string(name);
    std::u32string codePoints;
    for (std::size_t pos = 0; pos < name.size();) {
        std::size_t length = 1;
        codePoints += decodeUtf8At(name, pos, &length);
        pos += length;
    }
    std::string out;
    for (const char32_t c : normalizeNameNfkc(codePoints))
        splitscope::appendUtf8(out, static_cast<std::uint32_t>(c));
    return out;
}

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
    for (std::size_t pos = 0; pos < word.size();) {
        std::size_t length = 1;
        const char32_t c = decodeUtf8At(word, pos, &length);
        if (!(pos == 0 ? isIdentifierStart(c) : isIdentifierContinue(c))) {
            check.invalidAt = pos;
            check.invalidCodePoint = c;
            return check;
        }
        pos += length;
    }
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
