// SPDX-License-Identifier: MIT
#include "CacheCheck.h"

#include "Hash.h"
#include "core/PipelineFile.h"

#include <algorithm>

namespace splitscope::engine {

const char *const kRequiredCacheSettings[8] = {"seed", "max_pixels", "height", "width", "data_file_keys",
    "extra_inputs", "num_inference_steps", "num_threads"};

std::uint64_t pipelineHash(const Pipeline &pipeline)
{
    const std::string text = serializePipeline(pipeline);
    return hashBytes(text.data(), text.size());
}

std::string listText(const std::vector<std::string> &items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + items[i];
    return out + "]";
}

std::string CacheMismatch::text() const
{
    const auto has = [this](const char *what) { return std::string(what) + ": the cache has " + cached + ", this run " + wanted; };
    switch (what) {
    case What::Pipeline: return has("pipeline");
    case What::Task: return has("task (loss)");
    case What::PipelineHash: return has("pipeline description (hash)");
    case What::ModelsRequiringBackward: return has("models requiring backward (--lora_base_model, --trainable_models)");
    case What::StageOneUnits: return has("stage-one units (the split)");
    case What::CachedParam: return "cached params: the cache lacks '" + wanted + "', which stage two reads";
    case What::MissingRecord: return "manifest.json lacks " + wanted + " (written by hand, or damaged?)";
    }
    return {};
}

std::vector<CacheMismatch> cacheMismatches(const CacheManifest &manifest, const CacheExpectation &wanted)
{
    std::vector<CacheMismatch> out;
    const auto compare = [&out](CacheMismatch::What what, const std::string &cached, const std::string &run) {
        if (cached != run)
            out.push_back({what, cached, run});
    };
    compare(CacheMismatch::What::Pipeline, manifest.pipeline, wanted.pipeline);
    if (wanted.loss)
        compare(CacheMismatch::What::Task, manifest.task + " (" + manifest.loss + ")", wanted.task + " (" + *wanted.loss + ")");
    else
        compare(CacheMismatch::What::Task, manifest.task, wanted.task);
    if (wanted.pipelineHash && manifest.pipeline == wanted.pipeline && manifest.task == wanted.task)
        compare(CacheMismatch::What::PipelineHash, hashToHex(manifest.pipelineHash), hashToHex(*wanted.pipelineHash));
    compare(CacheMismatch::What::ModelsRequiringBackward, listText(manifest.modelsRequiringBackward),
        listText(wanted.modelsRequiringBackward));
    compare(CacheMismatch::What::StageOneUnits, listText(manifest.stageOneUnits), listText(wanted.stageOneUnits));
    if (!manifest.cacheAllParams) {
        for (const std::string &param : wanted.cacheSet) {
            if (std::find(manifest.cacheSet.begin(), manifest.cacheSet.end(), param) == manifest.cacheSet.end())
                out.push_back({CacheMismatch::What::CachedParam, {}, param});
        }
    }
    for (const char *key : kRequiredCacheSettings) {
        if (manifest.settings.find(key) == manifest.settings.end())
            out.push_back({CacheMismatch::What::MissingRecord, {}, std::string("settings.") + key + ", a stage-one setting that shapes the cache"});
    }
    for (const std::string &model : wanted.stageOneModels) {
        if (!manifest.model(model))
            out.push_back({CacheMismatch::What::MissingRecord, {}, "the models[] record of " + model
                + ", which stage one's units run: its weights could not be compared"});
    }
    return out;
}

} // namespace splitscope::engine
