// SPDX-License-Identifier: MIT
#include "ProcessMemory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace splitscope::engine {

namespace {

// The arena cap limitMallocArenas set; 0: glibc's default (8 per core on 64 bits).
int g_arenaLimit = 0;
// What glibc reserves for an arena's heap (HEAP_MAX_SIZE on 64 bits).
constexpr std::uint64_t kArenaBytes = std::uint64_t(64) << 20;

} // namespace

std::uint64_t currentRssBytes()
{
    std::FILE *file = std::fopen("/proc/self/statm", "r");
    if (!file)
        return 0;
    unsigned long long size = 0;
    unsigned long long resident = 0;
    const int read = std::fscanf(file, "%llu %llu", &size, &resident);
    std::fclose(file);
    if (read != 2)
        return 0;
    return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::uint64_t peakRssBytes()
{
    std::FILE *file = std::fopen("/proc/self/status", "r");
    if (!file)
        return 0;
    char line[256];
    std::uint64_t peak = 0;
    while (std::fgets(line, sizeof(line), file)) {
        unsigned long long kib = 0;
        if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%llu", &kib) == 1) {
            peak = kib * 1024;
            break;
        }
    }
    std::fclose(file);
    return peak;
}

double processCpuSeconds()
{
    struct rusage usage {};
    if (::getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    auto seconds = [](const timeval &t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void limitMallocArenas(int arenas)
{
    if (std::getenv("MALLOC_ARENA_MAX") || std::getenv("GLIBC_TUNABLES"))
        return;
    if (::mallopt(M_ARENA_MAX, arenas) == 1)
        g_arenaLimit = arenas;
}

std::uint64_t threadAddressSpaceBytes(int threads)
{
    if (threads <= 0)
        return 0;
    std::uint64_t stack = std::uint64_t(8) << 20;
    pthread_attr_t attr;
    if (::pthread_getattr_default_np(&attr) == 0) {
        std::size_t size = 0;
        if (::pthread_attr_getstacksize(&attr, &size) == 0 && size > 0)
            stack = size;
        ::pthread_attr_destroy(&attr);
    }
    // The main thread has the main arena; the others share the rest of the cap.
    const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    const long arenas = g_arenaLimit > 0 ? g_arenaLimit - 1 : 8 * cores - 1;
    const auto withArena = static_cast<std::uint64_t>(std::min<long>(threads, std::max(0L, arenas)));
    return static_cast<std::uint64_t>(threads) * stack + withArena * kArenaBytes;
}

} // namespace splitscope::engine
