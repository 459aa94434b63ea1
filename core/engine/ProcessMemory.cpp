// SPDX-License-Identifier: MIT
#include "ProcessMemory.h"

#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

namespace splitscope::engine {

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

} // namespace splitscope::engine
