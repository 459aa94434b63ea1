// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope {

// The candidate closest to `name` by edit distance, for "did you mean" hints (the
// command line, the importer, the GUI); when none is within a third of the name's
// length plus two, the first candidate that contains `name`; else empty.
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);

} // namespace splitscope
