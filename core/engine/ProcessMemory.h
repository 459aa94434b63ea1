// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace splitscope::engine {

// The process's resources. Resident memory comes from /proc/self/statm (current) and
// /proc/self/status VmHWM (peak). 0 where /proc is not available.
std::uint64_t currentRssBytes();
std::uint64_t peakRssBytes();
// CPU seconds (user + system) the process has used, all threads together: a
// measure of work that, unlike wall time, other processes on the machine barely change.
double processCpuSeconds();

} // namespace splitscope::engine
