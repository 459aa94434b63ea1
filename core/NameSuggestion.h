// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope {

// The candidate closest to `name` by edit distance, for "did you mean" hints (the
// command line, the importer, the GUI); when none is within a third of the name's
// length plus two, the first candidate that contains `name`; else empty.
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);

// For names that may rightly be unknown, such as a pipeline's external inputs: the
// candidate that a name is most likely a typo of. Stricter than closestName, so that
// true unknowns stay free of noise: within min(2, size / 4) edits of the name (none
// for names under 4 bytes), no containment fallback, and never a candidate that
// differs from the name only in its digits (p1 and p2, layer_1 and layer_2 are
// different names by design). The closest wins, the first of equals. Names and
// candidates longer than 256 bytes are not compared. The candidates are indexed by
// length once; the work over all find() calls is bounded (kWorkBudget, some 10^8
// steps), past which find() gives up and finds nothing: no real pipeline comes near
// it (10^4 unknown names against 10^4 candidates of about their length would).
class TypoFinder {
public:
    static constexpr std::size_t kMaxLength = 256;
    static constexpr std::uint64_t kWorkBudget = 100'000'000;

    // The views must outlive the finder.
    explicit TypoFinder(std::vector<std::string_view> candidates);

    // The index in the candidates of the one `name` is likely a typo of; -1 when none.
    std::ptrdiff_t find(std::string_view name);

    // The most edits find() accepts for a name of `size` bytes.
    static std::size_t maxEdits(std::size_t size) { return size / 4 < 2 ? size / 4 : 2; }

private:
    std::vector<std::string_view> m_candidates;
    std::vector<std::uint64_t> m_masks; // per candidate: the bytes it holds, folded to 64 bits
    std::array<std::vector<std::uint32_t>, kMaxLength + 1> m_byLength; // candidate indexes, ascending
    std::uint64_t m_work = 0;
};

} // namespace splitscope
