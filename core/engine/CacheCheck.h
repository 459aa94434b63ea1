// SPDX-License-Identifier: MIT
#pragma once

#include "CacheManifest.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace splitscope {
struct Pipeline;
}

namespace splitscope::engine {

// A hash of the serialized description (stage one records it in the manifest,
// stage two and the app compare it).
std::uint64_t pipelineHash(const Pipeline &pipeline);

// What stage two wants of a cache, apart from what only the files can tell (the
// weights of the models stage one ran, its tokenizer): the one check the engine makes
// before it reads a cache and the app makes before it launches (no Torch here).
struct CacheExpectation {
    std::string pipeline;                   // "tiny-qwen-image"
    std::string task;                       // "sft"
    std::optional<std::string> loss;        // "FlowMatchSFTLoss"; unset: not compared
    std::optional<std::uint64_t> pipelineHash; // unset: not compared
    std::vector<std::string> modelsRequiringBackward; // TrainingConfig::modelsRequiringBackward()
    std::vector<std::string> stageOneUnits;
    std::vector<std::string> cacheSet; // the params stage two reads from the cache
    // The models stage one's units run, each of which the manifest must record (its
    // weights are compared); empty: not checked.
    std::vector<std::string> stageOneModels;
};

// The manifest's stage-one settings that shape what the cache holds: each must be
// there (a manifest without one, written by hand or damaged, is refused).
extern const char *const kRequiredCacheSettings[8];

struct CacheMismatch {
    // MissingRecord: a required setting or a model record absent (`wanted` names it).
    enum class What { Pipeline, Task, PipelineHash, ModelsRequiringBackward, StageOneUnits, CachedParam, MissingRecord };
    What what;
    std::string cached; // the manifest's value ("[dit]"), empty for a missing param
    std::string wanted; // this run's (for CachedParam: the param)
    // One line, as the engine reports it: "pipeline: the cache has A, this run B".
    std::string text() const;
};

// Empty when the cache fits; the task and pipeline hash are compared only where the
// pipeline and task agree (another pipeline's hash says nothing more).
std::vector<CacheMismatch> cacheMismatches(const CacheManifest &manifest, const CacheExpectation &wanted);

// "[a, b]", as the messages write lists.
std::string listText(const std::vector<std::string> &items);

} // namespace splitscope::engine
