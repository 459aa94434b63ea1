// SPDX-License-Identifier: MIT
#pragma once

#include "CacheManifest.h"
#include "Safetensors.h"
#include "TinyQwenImage.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace splitscope::engine {

// What stage two expects in the shards of a cache: the params a sample may hold (what
// the manifest says the cache stores), those it must hold (what stage two reads,
// unless the pipeline says it may be None), and each value's kind, dtype and shape
// (the pipeline's ParamSpecs, with sizes from this run's model configs).
//
// checkShard compares a shard's header with it: names, dtypes, shapes and metadata,
// never the tensor data, so checking every shard of a cache costs a small part of
// reading it once. Immutable once made; safe to use from several threads.
class CacheLayout {
public:
    // `read`: the params stage two reads from the cache; `specs`: the pipeline's
    // (PipelineDeclaration::params); `modelDims`: sizes by "<model>.<config key>"
    // (ModelFiles.h: modelDimensions). A size the map lacks (a model this run does
    // not name) is only held equal across the tensors of a sample.
    CacheLayout(const CacheManifest &manifest, const std::vector<std::string> &read,
        const std::map<std::string, ParamSpec> &specs, const std::map<std::string, std::int64_t> &modelDims);

    // Checks the header of `file`, which the manifest lists as `shard`: the shard
    // format; the samples it says it holds; each tensor's name ("<sample>/<param>": a
    // sample of this shard, a param the cache stores), recorded kind, dtype and
    // shape; and that every sample holds the params stage two needs. False with
    // `error` naming the file and, where one is at fault, the tensor. On success
    // `kinds` maps each tensor to its kind's name (Values.h).
    bool checkShard(const SafetensorsFile &file, const CacheShard &shard, std::map<std::string, std::string> &kinds,
        std::string *error) const;

private:
    // One dimension of a ParamSpec shape: a size (a number, or a model's config
    // value), or a name whose size a sample's tensors must agree on.
    struct Dim {
        bool fixed = false;
        std::int64_t size = 0;
        std::string name; // the spec's text: "1", "dit.latent_channels", "h"
    };
    struct Expected {
        ParamSpec spec;
        std::vector<Dim> dims;
        std::string text; // "F32 [1, 16 (dit.latent_channels), h, w]"
    };

    bool m_storesAll = false;
    std::vector<std::string> m_stored; // sorted
    std::vector<std::string> m_required;
    std::map<std::string, Expected> m_expected;
};

// Splits a cached tensor's name, "<sample>/<param>" with the sample written as
// std::to_string writes it (CacheWriter); false for another name.
bool splitTensorName(const std::string &name, std::size_t &sample, std::string &param);

} // namespace splitscope::engine
