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
constexpr std::uint64_t kBaseBytes = 180 * kMiB;
// Stage-one models that VAE-encode an edit image besides the training image.
constexpr std::uint64_t kEditEncodeBytes = 64 * kMiB;
// The allocator's pools after the first step (see estimateStepBytes).
constexpr std::uint64_t kRetainedBytes = 32 * kMiB;
constexpr std::uint64_t kRetainedCapBytes = 192 * kMiB;

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

std::string StepSize::text() const
{
    std::string out = std::to_string(width) + "x" + std::to_string(height);
    if (editWidth > 0 && editHeight > 0)
        out += " with a " + std::to_string(editWidth) + "x" + std::to_string(editHeight) + " edit image";
    else if (editLatentWidth > 0 && editLatentHeight > 0)
        out += " with a " + std::to_string(editLatentWidth) + "x" + std::to_string(editLatentHeight) + " edit image";
    return out;
}

std::uint64_t estimateStepBytes(const StepMemory &what, const StepSize &size)
{
    const double pixels = static_cast<double>(size.width) * static_cast<double>(size.height);
    const double editPixels = static_cast<double>(size.editLatentWidth) * static_cast<double>(size.editLatentHeight);
    const bool edit = size.editWidth > 0 && size.editHeight > 0;

    // The text encoder's tokens: the prompt's, and the edit image's patches between two markers.
    double textTokens = what.textEncoder.maxLength;
    if (edit) {
        const int patch = std::max(1, what.textEncoder.visionPatchSize);
        textTokens += 2.0 + static_cast<double>(size.editWidth / patch) * static_cast<double>(size.editHeight / patch);
    }
    const double textScores = 4.0 * what.textEncoder.numHeads * textTokens * textTokens;

    double stageOne = 0;
    if (what.stageOneModels) {
        stageOne = 25.0 * what.vae.baseChannels * std::max(pixels, editPixels);
        if (editPixels > 0)
            stageOne += static_cast<double>(kEditEncodeBytes);
    }
    if (what.textEncoderRuns && !what.trainsTextEncoder)
        stageOne = std::max(stageOne, 4.0 * textScores);
    double trained = 0;
    if (what.trainsDit) {
        const double block = static_cast<double>(what.vae.downsampleFactor()) * what.dit.patchSize;
        const double imageTokens = (pixels + editPixels) / (block * block);
        const double tokens = imageTokens + (size.promptTokens > 0 ? static_cast<double>(size.promptTokens) : textTokens);
        const double scores = 4.0 * what.dit.numHeads * tokens * tokens;
        trained = (2.0 * what.dit.numLayers + 1.0) * scores + 256.0 * what.dit.innerDim() * what.dit.numLayers * tokens;
    }
    if (what.textEncoderRuns && what.trainsTextEncoder) {
        trained += (what.textEncoder.numLayers + 3.0) * textScores
            + 64.0 * what.textEncoder.hiddenSize * what.textEncoder.numLayers * textTokens;
    }
    // What the allocator keeps from the second step (or sample) on: glibc serves blocks
    // up to 32 MiB from mmap until the first is freed, then from its heap, where they
    // stay resident and fragment. Half the activations, at most 192 MiB, and 32 MiB.
    const double activations = std::max(stageOne, trained);
    const double retained = std::min(0.5 * activations, static_cast<double>(kRetainedCapBytes)) + static_cast<double>(kRetainedBytes);
    const double total = static_cast<double>(kBaseBytes) + 2.0 * static_cast<double>(what.modelBytes)
        + 10.0 * static_cast<double>(what.fullyTrainedBytes) + activations + retained;
    return total >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

std::optional<MemoryLimit> memoryLimit(int threadsToCome)
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
        // stacks, reservations) counts against the limit too, and so does what the
        // threads still to come will hold: measured only here, it was 515 MiB before
        // stage two's first step at 512x512 with two threads, and up to 850 MiB during
        // the steps (with glibc's default arenas, before limitMallocArenas).
        const std::uint64_t virtualSize = virtualBytes();
        const std::uint64_t overhead = (virtualSize > rss ? virtualSize - rss : 0) + threadAddressSpaceBytes(threadsToCome);
        const auto cap = static_cast<std::uint64_t>(as.rlim_cur);
        consider(cap > overhead ? cap - overhead : 0, "the address-space limit (ulimit -v " + memoryText(cap) + ")");
    }
    return limit;
}

std::uint64_t memoryHeadroom(std::uint64_t limit)
{
    return std::max<std::uint64_t>(limit / 10, std::uint64_t(64) * kMiB);
}

bool fitsInMemory(std::uint64_t needed, std::uint64_t limit)
{
    const std::uint64_t headroom = memoryHeadroom(limit);
    return headroom <= limit && needed <= limit - headroom;
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
