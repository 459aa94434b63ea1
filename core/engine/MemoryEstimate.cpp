// SPDX-License-Identifier: MIT
#include "MemoryEstimate.h"

#include "ProcessMemory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace splitscope::engine {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kBaseBytes = 150 * kMiB;

// /proc/meminfo's MemAvailable in bytes; 0 when unknown.
std::uint64_t memAvailable()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t value = 0;
    std::string unit;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemAvailable:")
            return value * 1024;
    }
    return 0;
}

// A number from a one-line file (cgroup's memory.max holds "max" when unlimited).
std::optional<std::uint64_t> numberIn(const char *path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::strtoull(text.c_str(), nullptr, 10);
}

// The process's address space in bytes (/proc/self/statm's first field).
std::uint64_t virtualBytes()
{
    std::FILE *file = std::fopen("/proc/self/statm", "r");
    if (!file)
        return 0;
    unsigned long long pages = 0;
    const int read = std::fscanf(file, "%llu", &pages);
    std::fclose(file);
    return read == 1 ? pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

} // namespace

std::uint64_t estimateStepBytes(const StepMemory &what, int width, int height)
{
    const double pixels = static_cast<double>(width) * static_cast<double>(height);
    double stageOne = 0;
    if (what.stageOneModels)
        stageOne = 25.0 * what.vae.baseChannels * pixels;
    double dit = 0;
    if (what.trainsDit) {
        const double block = static_cast<double>(what.vae.downsampleFactor()) * what.dit.patchSize;
        const double imageTokens = pixels / (block * block);
        const double tokens = imageTokens + what.textEncoder.maxLength;
        const double scores = 4.0 * what.dit.numHeads * tokens * tokens;
        dit = (2.0 * what.dit.numLayers + 1.0) * scores
            + 256.0 * what.dit.innerDim() * what.dit.numLayers * imageTokens;
    }
    const double total = static_cast<double>(kBaseBytes) + 2.0 * static_cast<double>(what.modelBytes) + std::max(stageOne, dit);
    return total >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

std::optional<MemoryLimit> memoryLimit()
{
    const std::uint64_t rss = currentRssBytes();
    std::optional<MemoryLimit> limit;
    auto consider = [&](std::uint64_t bytes, const std::string &what) {
        if (!limit || bytes < limit->bytes)
            limit = MemoryLimit{bytes, what};
    };
    if (const std::uint64_t available = memAvailable(); available > 0)
        consider(available + rss, "the memory available (MemAvailable in /proc/meminfo, plus what this process holds)");
    const auto cgroupMax = numberIn("/sys/fs/cgroup/memory.max");
    const auto cgroupUsed = numberIn("/sys/fs/cgroup/memory.current");
    if (cgroupMax && cgroupUsed) {
        consider((*cgroupMax > *cgroupUsed ? *cgroupMax - *cgroupUsed : 0) + rss,
            "the memory the cgroup may still use (/sys/fs/cgroup/memory.max)");
    }
    struct rlimit as {};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        // Address space the process holds beyond its resident memory (libraries, thread
        // stacks, reservations) counts against the limit too.
        const std::uint64_t virtualSize = virtualBytes();
        const std::uint64_t overhead = virtualSize > rss ? virtualSize - rss : 0;
        const auto cap = static_cast<std::uint64_t>(as.rlim_cur);
        consider(cap > overhead ? cap - overhead : 0, "the address-space limit (ulimit -v " + memoryText(cap) + ")");
    }
    return limit;
}

std::string memoryText(std::uint64_t bytes)
{
    char text[64];
    if (bytes >= 1024 * kMiB)
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(1024 * kMiB));
    else
        std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>((bytes + kMiB - 1) / kMiB));
    return text;
}

bool isAllocationFailure(const std::string &message)
{
    for (const char *marker : {"alloc_cpu", "DefaultCPUAllocator", "can't allocate memory", "not enough memory",
             "std::bad_alloc", "bad_alloc", "Cannot allocate memory"}) {
        if (message.find(marker) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace splitscope::engine
