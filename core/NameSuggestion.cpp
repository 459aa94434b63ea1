// SPDX-License-Identifier: MIT
#include "NameSuggestion.h"

#include <algorithm>
#include <bitset>

namespace splitscope {

namespace {

// The edit distance of `a` and `b` when it is at most `limit`, else limit + 1; stops at the
// first row whose every entry is above the limit.
std::size_t editDistanceWithin(std::string_view a, std::string_view b, std::size_t limit)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        std::size_t rowMin = row[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
            rowMin = std::min(rowMin, row[j]);
        }
        if (rowMin > limit)
            return limit + 1;
    }
    return std::min(row[b.size()], limit + 1);
}

// The edit distance itself: it is never more than the longer name's length.
std::size_t editDistance(std::string_view a, std::string_view b)
{
    return editDistanceWithin(a, b, std::max(a.size(), b.size()));
}

std::uint64_t byteMask(std::string_view s)
{
    std::uint64_t mask = 0;
    for (const char c : s)
        mask |= std::uint64_t(1) << (static_cast<unsigned char>(c) & 63);
    return mask;
}

bool sameBesidesDigits(std::string_view a, std::string_view b)
{
    const auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t i = 0, j = 0;
    while (true) {
        while (i < a.size() && isDigit(a[i]))
            ++i;
        while (j < b.size() && isDigit(b[j]))
            ++j;
        if (i == a.size() || j == b.size())
            return i == a.size() && j == b.size();
        if (a[i++] != b[j++])
            return false;
    }
}

} // namespace

TypoFinder::TypoFinder(std::vector<std::string_view> candidates) : m_candidates(std::move(candidates))
{
    m_masks.reserve(m_candidates.size());
    for (std::size_t i = 0; i < m_candidates.size(); ++i) {
        m_masks.push_back(byteMask(m_candidates[i]));
        if (m_candidates[i].size() <= kMaxLength)
            m_byLength[m_candidates[i].size()].push_back(static_cast<std::uint32_t>(i));
    }
}

std::ptrdiff_t TypoFinder::find(std::string_view name)
{
    const std::size_t limit = maxEdits(name.size());
    if (limit == 0 || name.size() > kMaxLength)
        return -1;
    const std::uint64_t mask = byteMask(name);
    std::ptrdiff_t best = -1;
    std::size_t bestDistance = limit + 1;
    const std::size_t shortest = name.size() - limit;
    const std::size_t longest = std::min(name.size() + limit, kMaxLength);
    for (std::size_t length = shortest; length <= longest; ++length) {
        for (const std::uint32_t i : m_byLength[length]) {
            if (m_work >= kWorkBudget)
                return -1; // a partial search could name a worse candidate than a full one
            ++m_work;
            // Each edit changes at most two of the bytes present (a substitution).
            if (std::bitset<64>(m_masks[i] ^ mask).count() > 2 * limit)
                continue;
            m_work += name.size();
            if (sameBesidesDigits(name, m_candidates[i]))
                continue;
            m_work += name.size() * length;
            const std::size_t d = editDistanceWithin(name, m_candidates[i], limit);
            if (d == 0 || d > bestDistance || (d == bestDistance && static_cast<std::ptrdiff_t>(i) > best))
                continue;
            bestDistance = d;
            best = static_cast<std::ptrdiff_t>(i);
        }
    }
    return best;
}

std::string closestName(const std::string &name, const std::vector<std::string> &candidates)
{
    std::string best;
    std::size_t bestDistance = name.size() / 3 + 2;
    for (const std::string &c : candidates) {
        // Long names are not worth the quadratic comparison (and cannot be typos of short ones).
        if (c.size() > 256 || name.size() > 256)
            continue;
        const std::size_t d = editDistance(name, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    if (best.empty() && !name.empty()) {
        for (const std::string &c : candidates) {
            if (c.find(name) != std::string::npos)
                return c;
        }
    }
    return best;
}

} // namespace splitscope
