// SPDX-License-Identifier: MIT
#include "SeedSequence.h"

#include <numeric>

namespace splitscope::engine {

std::uint64_t SplitMix64::next()
{
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t SplitMix64::below(std::uint64_t bound)
{
    // Rejection sampling: drop the top sliver that would favour small values.
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
    std::uint64_t value = next();
    while (value >= limit)
        value = next();
    return value % bound;
}

double SplitMix64::uniform()
{
    return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t sample, RandomPurpose purpose)
{
    // Each field goes through a full splitmix round, so nearby tuples give unrelated seeds.
    SplitMix64 mixer(seed);
    std::uint64_t state = mixer.next();
    for (const std::uint64_t field : {epoch, sample, static_cast<std::uint64_t>(purpose)}) {
        SplitMix64 round(state ^ field);
        state = round.next();
    }
    return state;
}

std::vector<std::size_t> shuffledOrder(std::size_t count, std::uint64_t seed)
{
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    SplitMix64 random(seed);
    for (std::size_t i = count; i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(random.below(i));
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

} // namespace splitscope::engine
