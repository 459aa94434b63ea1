// SPDX-License-Identifier: MIT
#pragma once

#include "core/Pipeline.h"

#include <cstdint>

namespace splitscope {

// Seeded random pipelines, for property tests and benchmarks.
// The same options and seed always give the same pipeline on the same build.
struct RandomPipelineOptions {
    int units = 8;
    int paramPool = 6;              // small: many rewrites and update chains (ignored when layered)
    int models = 3;                 // named m0, m1, ...
    double modelProbability = 0.3;  // chance that a unit calls a model (each model drawn independently)
    int maxReads = 3;
    int maxWrites = 2;
    double posiProbability = 0.15;  // chance of an input_params_posi map
    double stochasticProbability = 0.1;
    double lossDeclaredProbability = 0.8;

    // Layered mode (benchmarks): units read about `maxReads` params from a window of
    // recent outputs and write `maxWrites`, of which a share `rewriteProbability`
    // rewrite an existing param; fresh params otherwise. Scales to 10^6 units.
    bool layered = false;
    int window = 64;
    double rewriteProbability = 0.2;

    std::uint64_t seed = 1;
};

Pipeline makeRandomPipeline(const RandomPipelineOptions &options);

} // namespace splitscope
