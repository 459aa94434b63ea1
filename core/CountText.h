// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>

namespace splitscope {

// A count with its noun for messages and reports: "1 unit", "0 units", "3 shards" (the
// plural adds an "s"; every noun the command line and the engine count takes it).
inline std::string countText(std::size_t count, const std::string &noun)
{
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace splitscope
