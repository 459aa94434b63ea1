// SPDX-License-Identifier: MIT
// Trainer::runDataProcess: stage one (`*:data_process`). V2 runs once per sample
// under no-grad; the cache set goes into safetensors shards with a manifest.
#include "CacheWriter.h"
#include "Dataset.h"
#include "Hash.h"
#include "ModelSet.h"
#include "OrderedPrefetcher.h"
#include "ProcessMemory.h"
#include "Runner.h"
#include "Trainer.h"
#include "UnitRuntime.h"
#include "core/CountText.h"
#include "core/AtomicFile.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

// How far the loader threads may run ahead of the computing thread, per worker.
constexpr std::size_t kPrefetchPerWorker = 2;
// Minimum seconds between `unit` events and between `progress` events.
constexpr double kUnitEventInterval = 0.05;
constexpr double kProgressEventInterval = 0.1;
// Seconds between `memory` events.
constexpr double kMemoryEventInterval = 1.0;

struct LoadedSample {
    ValueMap values;
    std::string error;
    bool outOfMemory = false; // `error` is an allocation that failed
};

// The first line of an allocation failure's message; empty for another exception.
std::string allocationFailure(const std::exception_ptr &exception)
{
    try {
        std::rethrow_exception(exception);
    } catch (const c10::Error &e) {
        const std::string what = e.what_without_backtrace();
        return isAllocationFailure(what) ? "LibTorch: " + what.substr(0, what.find('\n')) : std::string();
    } catch (const std::bad_alloc &) {
        return "std::bad_alloc";
    } catch (...) {
        return {};
    }
}

// Why a finished shard the manifest lists must be made again; empty when it is intact.
std::string shardDamage(const std::string &cacheDir, const CacheShard &shard)
{
    std::uint64_t checksum = 0;
    const std::string path = (fs::path(cacheDir) / shard.file).string();
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        return "missing or unreadable: " + ec.message();
    if (size != shard.bytes) {
        return std::string(size < shard.bytes ? "truncated" : "too long") + ": " + std::to_string(size)
            + " bytes, the manifest says " + std::to_string(shard.bytes);
    }
    if (!hashFile(path, checksum))
        return "unreadable";
    if (checksum != shard.checksum)
        return "corrupt: checksum " + hashToHex(checksum) + ", the manifest says " + hashToHex(shard.checksum);
    return {};
}

} // namespace

CacheManifest Trainer::wantedManifest(const ImageDataset &dataset,
    const std::vector<std::pair<std::string, std::uint64_t>> &hashes) const
{
    CacheManifest m;
    m.createdBy = std::string("splitscope-cli ") + SPLITSCOPE_VERSION;
    m.pipeline = m_declaration->name;
    m.pipelineHash = pipelineHash(m_pipeline);
    m.task = m_task.loss;
    m.loss = m_loss->name;
    m.splitMode = splitModeName(m_params.splitMode);
    m.modelsRequiringBackward = m_modelsRequiringBackward;
    for (std::size_t i = 0; i < m_declaration->units.size(); ++i)
        (m_split.trained[i] ? m.stageTwoUnits : m.stageOneUnits).push_back(m_declaration->units[i].name);
    m.allowHazards = m_params.allowHazards;
    for (const Hazard &h : m_verification.hazards) {
        m.hazards.push_back(std::string(hazardKindName(h.kind)) + ": " + m_graph->unitName(h.reader) + " reads "
            + m_graph->paramName(h.param));
    }
    m.cacheSet = m_cacheSet;
    m.cacheAllParams = m_params.cacheAllParams;
    for (const auto &[name, hash] : hashes) {
        const ResolvedModel *resolved = nullptr;
        for (const auto &r : m_models) {
            if (r.name == name)
                resolved = &r;
        }
        m.models.push_back(CacheModelRecord{name, resolved ? resolved->spec.text : std::string(), hash});
    }
    m.datasetBasePath = m_params.datasetBasePath;
    m.datasetMetadataPath = dataset.metadataPath();
    m.datasetFingerprint = dataset.fingerprint();
    m.samples = dataset.size();
    auto list = [](const std::vector<std::string> &items) {
        std::string out;
        for (const auto &i : items)
            out += (out.empty() ? "" : ",") + i;
        return out;
    };
    m.settings["seed"] = std::to_string(m_params.seed);
    m.settings["max_pixels"] = std::to_string(m_params.maxPixels);
    m.settings["height"] = std::to_string(m_params.height);
    m.settings["width"] = std::to_string(m_params.width);
    m.settings["data_file_keys"] = list(m_params.dataFileKeys);
    m.settings["extra_inputs"] = list(m_params.extraInputs);
    m.settings["num_inference_steps"] = std::to_string(m_params.numInferenceSteps);
    m.settings["cache_shard_size"] = std::to_string(m_params.cacheShardSize);
    m.settings["num_threads"] = std::to_string(m_threads);
    return m;
}

TrainResult Trainer::runDataProcess()
{
    ImageDataset dataset;
    if (auto failure = openDataset(dataset))
        return fail(*failure);
    warnIgnoredFlags(nullptr);
    if (auto failure = checkDatasetStepMemory(dataset))
        return fail(*failure);
    const std::string cacheDir = m_params.outputPath;
    std::error_code sameError;
    if (fs::equivalent(m_params.datasetBasePath, cacheDir, sameError))
        return fail({kTrainBadInput, "bad-flag",
            "--output_path must not be the dataset folder (--dataset_base_path): stage one writes its cache there"});
    // The cache folder is this run's from here on: another stage one into it is refused.
    if (auto failure = lockOutputFolder(false, true))
        return fail(*failure);
    const std::vector<std::string> modelNames = stageModels(m_units, false);

    // Hash the weights of the models stage one runs: stage two checks them.
    std::vector<std::pair<std::string, std::uint64_t>> hashes;
    for (const auto &name : modelNames) {
        for (const auto &r : m_models) {
            if (r.name != name)
                continue;
            std::uint64_t hash = 0;
            std::string error;
            if (!hashModelWeights(r, hash, &error))
                return fail({kTrainBadInput, "model", name + ": " + error});
            hashes.emplace_back(name, hash);
        }
    }
    CacheManifest manifest = wantedManifest(dataset, hashes);
    // The text encoder reads prompts through the tokenizer: its file is part of what
    // the cached embeddings depend on. (With no text encoder named, and no
    // --tokenizer_path, there is none: loading the text encoder says what is missing.)
    const std::string tokenizerPath = tokenizerPathFor(m_params.tokenizerPath, m_models);
    if (std::find(modelNames.begin(), modelNames.end(), "text_encoder") != modelNames.end() && !tokenizerPath.empty()) {
        CacheTokenizerRecord record{tokenizerPath, 0};
        std::string error;
        if (!hashFileSet({tokenizerPath}, record.hash, &error))
            return fail({kTrainBadInput, "model", "tokenizer: " + error + " (--tokenizer_path overrides where it is looked for)"});
        manifest.tokenizer = record;
    }

    // Resume: keep a matching cache's intact shards; refuse a cache made otherwise.
    std::error_code ec;
    const std::string manifestPath = (fs::path(cacheDir) / "manifest.json").string();
    std::vector<char> finished;
    const std::size_t shardSize = static_cast<std::size_t>(m_params.cacheShardSize);
    const std::size_t shardCount = (dataset.size() + shardSize - 1) / shardSize;
    finished.assign(shardCount, 0);
    if (fs::exists(manifestPath, ec)) {
        std::string text;
        std::string error;
        CacheManifest existing;
        if (!readWholeFile(manifestPath, text, &error) || !CacheManifest::parse(text, manifestPath, existing, &error))
            return fail({kTrainBadInput, "manifest-mismatch", error + " (not overwriting it: choose another --output_path)"});
        const auto diffs = compareCacheSettings(existing, manifest);
        if (!diffs.empty()) {
            std::string message = "--output_path '" + cacheDir + "' already holds a cache made differently:";
            for (const auto &d : diffs)
                message += "\n  " + d;
            return fail({kTrainBadInput, "manifest-mismatch", message + "\nchoose another --output_path, or delete that folder to rebuild it"});
        }
        std::vector<std::string> redone;
        for (const CacheShard &s : existing.shards) {
            const std::size_t index = s.first / shardSize;
            if (s.first % shardSize != 0 || index >= shardCount || s.count != std::min(shardSize, dataset.size() - s.first))
                continue;
            const std::string damage = shardDamage(cacheDir, s);
            if (damage.empty()) {
                finished[index] = 1;
                manifest.shards.push_back(s);
            } else {
                redone.push_back(s.file + " (" + damage + ")");
            }
        }
        if (!manifest.shards.empty() || !redone.empty()) {
            std::string text = "resuming stage one: " + std::to_string(manifest.shards.size()) + " of "
                + std::to_string(shardCount) + " shards are done";
            if (!redone.empty()) {
                text += "; making " + countText(redone.size(), "damaged shard") + " again:";
                for (const std::string &r : redone)
                    text += " " + r + ",";
                text.pop_back();
            }
            m_events.log(text);
        }
    }
    if (auto failure = lockOutputFolder(true, true))
        return fail(*failure);
    std::string error;
    if (!writeFileAtomically(manifestPath, manifest.toJson(), &error))
        return fail({kTrainFailed, "io", error});
    // The flags this run used, and apart from them those it was given but ignores, as training writes them.
    const std::string argsPath = (fs::path(cacheDir) / "training_args.json").string();
    if (!writeFileAtomically(argsPath, settingsJson(), &error))
        return fail({kTrainFailed, "io", error});

    emitStart("data_process");
    std::vector<std::size_t> todo;
    for (std::size_t s = 0; s < shardCount; ++s) {
        if (finished[s])
            continue;
        for (std::size_t i = s * shardSize; i < std::min(dataset.size(), (s + 1) * shardSize); ++i)
            todo.push_back(i);
    }
    m_events.emit(Event(events::kStage)
                      .set("stage", "data_process")
                      .set("total_samples", static_cast<std::uint64_t>(dataset.size()))
                      .set("to_process", static_cast<std::uint64_t>(todo.size()))
                      .set("message", "stage one: " + std::to_string(todo.size()) + " of " + std::to_string(dataset.size()) + " samples to cache")
                      .text("stage one: " + std::to_string(todo.size()) + " of " + std::to_string(dataset.size()) + " samples to cache"));

    ModelSet models(m_models, m_offloaded, m_params.tokenizerPath, &m_events);
    const Runner runner(*m_declaration, *m_loss, models);
    RunContext context;
    context.models = &models;
    context.seed = m_params.seed;

    const int workers = m_params.datasetNumWorkers;
    OrderedPrefetcher<LoadedSample> loader(todo.size(), workers, kPrefetchPerWorker * static_cast<std::size_t>(std::max(1, workers)),
        [&](std::size_t i) {
            LoadedSample item;
            try {
                DatasetSample sample;
                if (!dataset.load(todo[i], sample, &item.error)) {
                    // (libpng's allocations that fail)
                    const std::string suffix = ": out of memory";
                    item.outOfMemory = item.error.size() >= suffix.size()
                        && item.error.compare(item.error.size() - suffix.size(), suffix.size(), suffix) == 0;
                    return item;
                }
                item.values = pipelineInputs(sample);
            } catch (...) {
                item.error = allocationFailure(std::current_exception());
                if (item.error.empty())
                    throw;
                item.outOfMemory = true;
            }
            return item;
        });

    TrainResult result;
    std::uint64_t written = manifest.shardBytes();
    const double start = m_events.elapsed();
    double lastUnitEvent = -1;
    double lastProgress = -1;
    double lastMemory = -1;
    CacheWriter writer;
    std::size_t done = 0;
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < todo.size(); ++i) {
        if (aborted()) {
            result.status = kTrainCancelled;
            m_events.log("cancelled: " + std::to_string(manifest.shards.size()) + " of " + std::to_string(shardCount)
                + " shards are kept; the same command resumes");
            break;
        }
        const std::size_t sample = todo[i];
        // An allocation that fails (an image too large for the memory left) ends the run
        // with a message that says so; the shards finished so far stay, and the same
        // command resumes from them.
        auto outOfMemory = [&](const std::string &image, const std::string &what) {
            return fail({kTrainFailed, "out-of-memory", "out of memory at sample " + std::to_string(sample) + " (" + image
                + "): " + what + "; " + std::to_string(manifest.shards.size()) + " of " + std::to_string(shardCount)
                + " shards are kept in " + cacheDir + ": the same command resumes from them where more memory is free"});
        };
        LoadedSample item = loader.take();
        if (item.outOfMemory)
            return outOfMemory("loading it", item.error);
        if (!item.error.empty())
            return fail({kTrainBadInput, "dataset", item.error});
        const std::size_t shardIndex = sample / shardSize;
        const std::size_t shardEnd = std::min(dataset.size(), (shardIndex + 1) * shardSize);
        CacheShard shard;
        try {
            runner.runUnits(m_units, item.values, context, [&](int unit) {
                const double now = m_events.elapsed();
                if (now - lastUnitEvent < kUnitEventInterval)
                    return;
                lastUnitEvent = now;
                m_events.emit(Event(events::kUnit)
                                  .set("stage", "data_process")
                                  .set("sample", static_cast<std::uint64_t>(sample))
                                  .set("unit", m_declaration->units[static_cast<std::size_t>(unit)].name)
                                  .set("unit_index", unit));
            });
            ValueMap stored;
            for (auto &[param, value] : item.values) {
                if (m_params.cacheAllParams || std::find(m_cacheSet.begin(), m_cacheSet.end(), param) != m_cacheSet.end())
                    stored.emplace(param, std::move(value));
            }
            writer.add(sample, stored);
            if (sample + 1 == shardEnd)
                shard = writer.write(cacheDir, 0, shardIndex, shardIndex * shardSize);
        } catch (...) {
            const std::string what = allocationFailure(std::current_exception());
            if (what.empty())
                throw;
            auto side = [&item](const char *key) {
                const auto it = item.values.find(key);
                return it == item.values.end() || it->second.kind != Value::Kind::Int ? std::string("?")
                                                                                       : std::to_string(it->second.integer);
            };
            return outOfMemory("image " + side("height") + "x" + side("width"), what);
        }
        ++done;
        if (sample + 1 == shardEnd) {
            writer = CacheWriter();
            manifest.shards.push_back(shard);
            std::sort(manifest.shards.begin(), manifest.shards.end(),
                [](const CacheShard &a, const CacheShard &b) { return a.first < b.first; });
            if (!writeFileAtomically(manifestPath, manifest.toJson(), &error))
                return fail({kTrainFailed, "io", error});
            written += shard.bytes;
            m_events.emit(Event(events::kCheckpoint)
                              .set("kind", "shard")
                              .set("path", (fs::path(cacheDir) / shard.file).string())
                              .set("shard", static_cast<std::uint64_t>(shardIndex))
                              .set("samples", static_cast<std::uint64_t>(shard.count))
                              .set("bytes", shard.bytes));
        }
        const double now = m_events.elapsed();
        if (now - lastProgress >= kProgressEventInterval || i + 1 == todo.size()) {
            lastProgress = now;
            const double rate = done / std::max(1e-9, now - start);
            const double eta = (todo.size() - done) / std::max(1e-9, rate);
            m_events.emit(Event(events::kProgress)
                              .set("stage", "data_process")
                              .set("done", static_cast<std::uint64_t>(manifest.finishedSamples() + writer.sampleCount()))
                              .set("total", static_cast<std::uint64_t>(dataset.size()))
                              .set("samples_per_s", rate)
                              .set("eta_s", eta)
                              .set("cache_bytes_written", written)
                              .set("cpu_s", processCpuSeconds())
                              .text("stage one: " + std::to_string(done) + "/" + std::to_string(todo.size()) + " samples, "
                                  + std::to_string(static_cast<int>(rate * 10) / 10.0).substr(0, 5) + " samples/s"));
        }
        if (now - lastMemory >= kMemoryEventInterval) {
            lastMemory = now;
            emitMemory(models, written, 0);
        }
    }
    emitMemory(models, written, 0);
    result.samples = done;
    result.outputs = {{"cache", cacheDir}, {"manifest", manifestPath}, {"training_args", argsPath}};
    if (result.status == kTrainCancelled)
        return result;
    manifest.complete = manifest.finishedSamples() == dataset.size();
    if (!writeFileAtomically(manifestPath, manifest.toJson(), &error))
        return fail({kTrainFailed, "io", error});
    m_events.log("stage one done: " + std::to_string(dataset.size()) + " samples in " + std::to_string(manifest.shards.size())
        + " shards (" + std::to_string(manifest.shardBytes() / 1024) + " KiB) at " + cacheDir);
    return result;
}

} // namespace splitscope::engine
