// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope::importer {

// The candidate closest to `name` by edit distance, for "did you mean" hints; empty
// when none is within a third of the name's length (plus two).
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);

} // namespace splitscope::importer
