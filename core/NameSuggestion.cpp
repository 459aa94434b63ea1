// SPDX-License-Identifier: MIT
#include "NameSuggestion.h"

#include <algorithm>

namespace splitscope {

namespace {

std::size_t editDistance(const std::string &a, const std::string &b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

} // namespace

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
