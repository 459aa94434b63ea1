// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace splitscope::engine {

// Every random draw of the engine comes from a generator seeded with
// deriveSeed(seed, epoch, sample, purpose), never from a shared stream. So a draw
// does not depend on what ran before it: one-stage and two-stage training, 0, 1 or
// N loader threads, and a run resumed after cancellation all draw the same numbers.
enum class RandomPurpose : std::uint64_t {
    Shuffle = 1,        // the sample order of an epoch (sample = 0)
    SampleSeed = 2,     // the per-sample `seed` pipeline input (epoch = kDataEpoch)
    UnitNoise = 3,      // a unit's draw from its `seed` input (NoiseInitializer)
    LossDraw = 4,       // the loss's timestep and noise for one step
    LoraInit = 5,       // LoRA A matrices (sample = the module's index)
    ModelInit = 6,      // init-models' weights (sample = the model's index)
    DatasetSynthesis = 7 // make-dataset's scenes (sample = the row)
};

// Data-level draws (the per-sample seed) belong to the sample, not to an epoch:
// they are what stage one computes once and caches.
constexpr std::uint64_t kDataEpoch = ~std::uint64_t{0};

std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t sample, RandomPurpose purpose);

// splitmix64: tiny, fast, and the same on every platform (unlike std:: distributions).
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed)
        : m_state(seed)
    {
    }
    std::uint64_t next();
    // Uniform in [0, bound) without modulo bias; bound > 0.
    std::uint64_t below(std::uint64_t bound);
    // Uniform in [0, 1).
    double uniform();

private:
    std::uint64_t m_state;
};

// A permutation of 0..count-1 (Fisher-Yates with SplitMix64).
std::vector<std::size_t> shuffledOrder(std::size_t count, std::uint64_t seed);

} // namespace splitscope::engine
