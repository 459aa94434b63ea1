// SPDX-License-Identifier: MIT
#pragma once

#include "core/Pipeline.h"

#include <string>
#include <utility>
#include <vector>

// A literal transcription of the pseudocode in the feature document
// (spec/split-training.zh.md, split_pipeline_units and its helpers): repeated edge
// scans, Python set semantics, no cleverness. The tests compare the core's
// near-linear implementation against it.
namespace oracle {

struct Result {
    std::vector<int> x0;
    // Per iteration of the while loop: units added by forward_reachable, then by updating_units.
    std::vector<std::pair<std::vector<int>, std::vector<int>>> iterations;
    std::vector<int> v1; // related units, sorted
    std::vector<int> v2;
};

Result splitPipelineUnits(const splitscope::Pipeline &pipeline, const std::vector<std::string> &modelNames);

} // namespace oracle
