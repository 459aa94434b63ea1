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

// glibc gives each thread that allocates an arena of its own, up to 8 per core, and
// each reserves 64 MiB of address space, most of it never resident: under `ulimit -v`
// a run's threads (LibTorch's, OpenBLAS's, the cache reader's) took hundreds of MiB
// that no estimate of resident memory sees. Caps them at `arenas` (M_ARENA_MAX)
// unless the environment sets it (MALLOC_ARENA_MAX, or GLIBC_TUNABLES); call it at
// start, before any thread. Measured here on stage two at 512x512 with two threads,
// 8 steps: a cap of 2 against 16 took 95 MiB less address space at its peak and 31
// MiB less resident memory, and no more time (8.7 and 12.4 s against 10.8 and 13.6 s).
void limitMallocArenas(int arenas);
// The address space `threads` more threads may take beyond their resident memory:
// a stack each (the default pthread stack size) and, while the arena cap allows, a
// 64 MiB arena each. On the high side: a thread that exists already counts again.
std::uint64_t threadAddressSpaceBytes(int threads);

} // namespace splitscope::engine
