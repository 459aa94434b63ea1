// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace splitscope::engine {

// The process's resident memory, from /proc/self/statm (current) and
// /proc/self/status VmHWM (peak). 0 where /proc is not available.
std::uint64_t currentRssBytes();
std::uint64_t peakRssBytes();

} // namespace splitscope::engine
