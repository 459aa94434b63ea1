// SPDX-License-Identifier: MIT
#include "PythonUnicodeNames.h"

#include "PythonUnicodeNameTables.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace splitscope::importer {

namespace {

namespace tables = unicode_name_tables;

// A Hangul syllable's name is "HANGUL SYLLABLE " and the short names (Jamo.txt) of its
// leading consonant, its vowel and its trailing consonant; the syllable is
// U+AC00 + (leading * 21 + vowel) * 28 + trailing.
constexpr std::string_view kHangulPrefix = "HANGUL SYLLABLE ";
constexpr std::array<std::string_view, 19> kLeading = {
    "G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H",
};
constexpr std::array<std::string_view, 21> kVowels = {
    "A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU",
    "EU", "YI", "I",
};
constexpr std::array<std::string_view, 28> kTrailing = {
    "", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S",
    "SS", "NG", "J", "C", "K", "T", "P", "H",
};
constexpr char32_t kHangulFirst = 0xAC00;
constexpr char32_t kHangulCount = 19 * 21 * 28;

constexpr std::string_view kCjkPrefix = "CJK UNIFIED IDEOGRAPH-";

bool isCjkUnified(char32_t cp)
{
    for (const tables::CodePointRange &r : tables::kCjkUnified) {
        if (cp >= r.first && cp <= r.last)
            return true;
    }
    return false;
}

// The longest of `parts` that `text` has at `pos` (the empty part matches anywhere): its
// index, `pos` moved past it; -1 when none matches.
template <std::size_t N>
int longestPart(std::string_view text, std::size_t &pos, const std::array<std::string_view, N> &parts)
{
    int best = -1;
    for (std::size_t i = 0; i < N; ++i) {
        if (text.compare(pos, parts[i].size(), parts[i]) == 0
            && (best < 0 || parts[i].size() > parts[static_cast<std::size_t>(best)].size()))
            best = static_cast<int>(i);
    }
    if (best >= 0)
        pos += parts[static_cast<std::size_t>(best)].size();
    return best;
}

// "HANGUL SYLLABLE ..." past its prefix, as CPython reads it: the longest leading consonant,
// vowel and trailing consonant, which must end the name.
long hangulSyllable(std::string_view jamo)
{
    std::size_t pos = 0;
    const int leading = longestPart(jamo, pos, kLeading);
    const int vowel = longestPart(jamo, pos, kVowels);
    const int trailing = longestPart(jamo, pos, kTrailing);
    if (leading < 0 || vowel < 0 || trailing < 0 || pos != jamo.size())
        return -1;
    return static_cast<long>(kHangulFirst) + (leading * 21 + vowel) * 28 + trailing;
}

// "CJK UNIFIED IDEOGRAPH-..." past its prefix: four or five upper-case hex digits of a unified ideograph.
long cjkIdeograph(std::string_view digits)
{
    if (digits.size() != 4 && digits.size() != 5)
        return -1;
    long value = 0;
    for (const char c : digits) {
        if (c >= '0' && c <= '9')
            value = value * 16 + (c - '0');
        else if (c >= 'A' && c <= 'F')
            value = value * 16 + (c - 'A' + 10);
        else
            return -1;
    }
    return isCjkUnified(static_cast<char32_t>(value)) ? value : -1;
}

std::uint64_t hashName(std::string_view upperName)
{
    std::uint64_t h = 0xCBF29CE484222325ULL; // FNV-1a
    for (const char c : upperName) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001B3ULL;
    }
    return h;
}

// The names of PythonUnicodeNameTables.h, decoded once, on the first lookup.
class NameTable {
public:
    NameTable()
    {
        std::array<int, 128> value;
        value.fill(-1);
        for (std::size_t i = 0; tables::kSymbols[i] != '\0'; ++i)
            value[static_cast<unsigned char>(tables::kSymbols[i])] = static_cast<int>(i);
        constexpr int base = static_cast<int>(sizeof tables::kSymbols - 1);

        for (const std::string_view piece : tables::kNameWords) {
            for (std::size_t start = 0;;) {
                const std::size_t space = piece.find(' ', start);
                m_words.push_back(piece.substr(start, space == std::string_view::npos ? space : space - start));
                if (space == std::string_view::npos)
                    break;
                start = space + 1;
            }
        }

        // The pieces of kNameData hold whole names; a name follows on from the one before it.
        std::vector<std::uint16_t> previous;
        long cp = -1;
        m_codePoints.reserve(tables::kTableNameCount);
        m_starts.reserve(tables::kTableNameCount + 1);
        for (const std::string_view data : tables::kNameData) {
            std::size_t at = 0;
            const auto next = [&]() { return at < data.size() ? value[static_cast<unsigned char>(data[at++]) & 0x7F] : 0; };
            while (at < data.size()) {
                const int header = next();
                std::vector<std::uint16_t> words(previous.begin(),
                    previous.begin() + std::min<std::ptrdiff_t>(header / 4, static_cast<std::ptrdiff_t>(previous.size())));
                long skipped = 0;
                if (header & 1) {
                    for (int i = 0; i < 3; ++i)
                        skipped = skipped * base + next();
                }
                cp += 1 + skipped;
                for (int symbol = next(); symbol > 0; symbol = next()) {
                    int index = symbol - 1;
                    if (index >= tables::kOneSymbolWords) {
                        const int lead = index - tables::kOneSymbolWords;
                        if (lead < tables::kTwoSymbolLeads) {
                            index = tables::kOneSymbolWords + lead * base + next();
                        } else {
                            const int high = lead - tables::kTwoSymbolLeads;
                            const int middle = next();
                            index = tables::kOneSymbolWords + tables::kTwoSymbolLeads * base + (high * base + middle) * base
                                + next();
                        }
                    }
                    words.push_back(static_cast<std::uint16_t>(index));
                }
                m_starts.push_back(static_cast<std::uint32_t>(m_nameWords.size()));
                m_nameWords.insert(m_nameWords.end(), words.begin(), words.end());
                m_codePoints.push_back(static_cast<char32_t>(cp) | ((header & 2) ? kHexSuffix : 0));
                previous = std::move(words);
            }
        }
        m_starts.push_back(static_cast<std::uint32_t>(m_nameWords.size()));

        const std::string_view aliases = tables::kNameAliases;
        for (std::size_t start = 0; start < aliases.size();) {
            const std::size_t end = aliases.find('\n', start);
            const std::string_view line = aliases.substr(start, end - start);
            const std::size_t space = line.find(' ');
            unsigned long alias = 0;
            for (const char c : line.substr(0, space))
                alias = alias * 16 + static_cast<unsigned long>(c <= '9' ? c - '0' : c - 'A' + 10);
            m_aliases.emplace_back(line.substr(space + 1), static_cast<char32_t>(alias));
            start = end + 1;
        }

        m_byHash.reserve(m_codePoints.size() + m_aliases.size());
        for (std::size_t i = 0; i < m_codePoints.size(); ++i)
            m_byHash.emplace_back(hashName(tableName(i)), static_cast<std::uint32_t>(i));
        for (std::size_t i = 0; i < m_aliases.size(); ++i)
            m_byHash.emplace_back(hashName(m_aliases[i].first), static_cast<std::uint32_t>(m_codePoints.size() + i));
        std::sort(m_byHash.begin(), m_byHash.end());
    }

    std::size_t size() const { return m_codePoints.size(); }
    char32_t codePoint(std::size_t i) const { return m_codePoints[i] & ~kHexSuffix; }

    std::string tableName(std::size_t i) const
    {
        std::string name;
        for (std::uint32_t k = m_starts[i]; k < m_starts[i + 1]; ++k) {
            const std::string_view word = m_words[m_nameWords[k]];
            if (k > m_starts[i] && (word.empty() || word.front() != '-'))
                name += ' ';
            name.append(word);
        }
        if (m_codePoints[i] & kHexSuffix) {
            char hex[16];
            std::snprintf(hex, sizeof hex, "-%04X", static_cast<unsigned>(codePoint(i)));
            name += hex;
        }
        return name;
    }

    // The character named `upperName` (upper case), the name checked whole; -1 when none.
    long find(std::string_view upperName) const
    {
        const std::uint64_t h = hashName(upperName);
        auto it = std::lower_bound(m_byHash.begin(), m_byHash.end(), std::make_pair(h, std::uint32_t(0)));
        for (; it != m_byHash.end() && it->first == h; ++it) {
            const std::size_t i = it->second;
            if (i < m_codePoints.size()) {
                if (tableName(i) == upperName)
                    return static_cast<long>(codePoint(i));
            } else if (m_aliases[i - m_codePoints.size()].first == upperName) {
                return static_cast<long>(m_aliases[i - m_codePoints.size()].second);
            }
        }
        return -1;
    }

    // The index of `cp` among the names, or size().
    std::size_t indexOf(char32_t cp) const
    {
        std::size_t low = 0, high = m_codePoints.size();
        while (low < high) {
            const std::size_t middle = (low + high) / 2;
            if (codePoint(middle) < cp)
                low = middle + 1;
            else
                high = middle;
        }
        return low < m_codePoints.size() && codePoint(low) == cp ? low : m_codePoints.size();
    }

    const std::vector<std::pair<std::string_view, char32_t>> &aliases() const { return m_aliases; }

private:
    static constexpr char32_t kHexSuffix = 0x80000000; // in m_codePoints: the name ends in its code point

    std::vector<std::string_view> m_words;
    std::vector<std::uint16_t> m_nameWords;  // every name's words, one name after the other
    std::vector<std::uint32_t> m_starts;     // where each name's words start in m_nameWords, and the end
    std::vector<char32_t> m_codePoints;      // each name's character (| kHexSuffix)
    std::vector<std::pair<std::string_view, char32_t>> m_aliases;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> m_byHash; // each name's hash: names, then aliases
};

const NameTable &nameTable()
{
    static const NameTable table;
    return table;
}

} // namespace

long lookupUnicodeName(std::string_view name)
{
    // The computed names, in upper case only (CPython compares them as written).
    if (name.substr(0, kHangulPrefix.size()) == kHangulPrefix)
        return hangulSyllable(name.substr(kHangulPrefix.size()));
    if (name.substr(0, kCjkPrefix.size()) == kCjkPrefix)
        return cjkIdeograph(name.substr(kCjkPrefix.size()));
    // The others in any case: names are ASCII, a non-ASCII character never matches.
    std::string upper(name);
    for (char &c : upper) {
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    }
    return nameTable().find(upper);
}

std::string unicodeName(char32_t codePoint)
{
    if (codePoint >= kHangulFirst && codePoint < kHangulFirst + kHangulCount) {
        const char32_t s = codePoint - kHangulFirst;
        return std::string(kHangulPrefix).append(kLeading[s / (21 * 28)]).append(kVowels[s / 28 % 21]).append(kTrailing[s % 28]);
    }
    if (isCjkUnified(codePoint)) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(codePoint));
        return std::string(kCjkPrefix) + hex;
    }
    const NameTable &table = nameTable();
    const std::size_t i = table.indexOf(codePoint);
    return i < table.size() ? table.tableName(i) : std::string();
}

void forEachUnicodeNameAlias(const std::function<void(std::string_view alias, char32_t codePoint)> &visit)
{
    for (const auto &[alias, codePoint] : nameTable().aliases())
        visit(alias, codePoint);
}

} // namespace splitscope::importer
