// SPDX-License-Identifier: MIT
// Trainer::runDataProcess: stage one (`*:data_process`). V2 runs once per sample
// under no-grad; the cache set goes into safetensors shards with a manifest.
#include "CacheWriter.h"
#include "Dataset.h"
#include "Hash.h"
#include "Heartbeat.h"
#include "ModelSet.h"
#include "OrderedPrefetcher.h"
#include "ProcessGroup.h"
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

// The manifests a cache folder holds: its manifest.json and the parts that the ranks
// of a distributed stage one keep in their numbered sub-folders (N/manifest.json)
// until rank 0 joins them, parts first (they are newer). Empty `error`: read.
struct ManifestFile {
    std::string path;
    CacheManifest manifest;
};
std::vector<ManifestFile> readCacheManifests(const std::string &cacheDir, std::string *error)
{
    std::vector<std::string> paths;
    std::error_code ec;
    for (fs::directory_iterator it(cacheDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos && fs::exists(it->path() / "manifest.json"))
            paths.push_back((it->path() / "manifest.json").string());
    }
    std::sort(paths.begin(), paths.end());
    const std::string main = (fs::path(cacheDir) / "manifest.json").string();
    if (fs::exists(main, ec))
        paths.push_back(main);
    std::vector<ManifestFile> files;
    for (const std::string &path : paths) {
        std::string text;
        ManifestFile file{path, {}};
        if (!readWholeFile(path, text, error) || !CacheManifest::parse(text, path, file.manifest, error))
            return {};
        files.push_back(std::move(file));
    }
    return files;
}

// Removes the parts once manifest.json lists their shards.
void removeManifestParts(const std::string &cacheDir)
{
    std::error_code ec;
    for (fs::directory_iterator it(cacheDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code removeError;
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
            fs::remove(it->path() / "manifest.json", removeError);
    }
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
    m.splitMode = splitModeName(m_params.training.mode);
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

// Stage one over the context the Trainer prepared. In the order it runs: the dataset
// and the cache folder (openDataset), the manifest this run writes (makeManifest), the
// shards a previous run finished (keepFinishedShards), then each sample not yet cached
// (processSample) and the manifest marked complete (finish).
class StageOneRun {
public:
    explicit StageOneRun(Trainer &trainer);
    TrainResult run();

private:
    using Failure = Trainer::Failure;
    using Ending = std::optional<TrainResult>;
    using Loader = OrderedPrefetcher<LoadedSample>;

    std::optional<Failure> openDataset();
    std::optional<Failure> makeManifest();
    // Resume: keeps a matching cache's intact shards; refuses a cache made otherwise.
    std::optional<Failure> keepFinishedShards();
    std::optional<Failure> writeRunFiles();
    // This rank's manifest: manifest.json alone, or with several ranks its part.
    std::optional<Failure> writeManifest();
    // With several ranks, once every rank is done: rank 0 joins the parts into
    // manifest.json. Every rank learns whether any was cancelled (then none joins).
    std::optional<Failure> joinRanks();
    bool ownsShard(std::size_t shard) const { return shard % static_cast<std::size_t>(m_ranks) == static_cast<std::size_t>(m_rank); }
    void planSamples();
    LoadedSample load(std::size_t sample) const;
    Ending processSample(std::size_t i, Loader &loader);
    // Runs the stage-one units on one sample and adds its cache set to the shard being
    // written; the shard is written when the sample is its last.
    CacheShard cacheSample(std::size_t sample, LoadedSample &item, std::size_t shardIndex, bool lastOfShard);
    std::optional<Failure> addShard(const CacheShard &shard, std::size_t shardIndex);
    void emitProgress(std::size_t i);
    TrainResult outOfMemory(std::size_t sample, const std::string &image, const std::string &what);
    TrainResult finish();

    Trainer &m_trainer;
    const TrainParams &m_params;
    EventSink &m_events;
    const std::string m_cacheDir;
    const std::string m_manifestPath;
    const std::string m_argsPath;
    const std::size_t m_shardSize;
    // With several ranks, rank r makes the shards r, r+N, r+2N, ... (whole shards, so
    // that each stays one run of consecutive samples); a cache holds the same samples
    // however many ranks made it, and any number of ranks reads it.
    const int m_rank;
    const int m_ranks;
    const std::string m_partPath; // with several ranks: OUTPUT/<rank>/manifest.json
    ImageDataset m_dataset;
    std::vector<std::string> m_modelNames; // the models stage one runs
    CacheManifest m_manifest;
    std::size_t m_shardCount = 0;
    std::vector<char> m_finished; // by shard: kept from a previous run
    std::vector<std::size_t> m_todo; // the samples to cache, in order
    std::size_t m_ownSamples = 0;    // in the shards this rank makes (all, alone)

    std::optional<ModelSet> m_models;
    std::optional<Runner> m_runner;
    RunContext m_context;
    CacheWriter m_writer;
    std::uint64_t m_written = 0; // shard bytes in the cache
    std::size_t m_done = 0;
    double m_start = 0;
    double m_lastUnitEvent = -1;
    double m_lastProgress = -1;
    double m_lastMemory = -1;
    TrainResult m_result;
    Heartbeat m_heartbeat{m_events};
};

StageOneRun::StageOneRun(Trainer &trainer)
    : m_trainer(trainer)
    , m_params(trainer.m_params)
    , m_events(trainer.m_events)
    , m_cacheDir(trainer.m_params.outputPath)
    , m_manifestPath((fs::path(m_cacheDir) / "manifest.json").string())
    , m_argsPath((fs::path(m_cacheDir) / "training_args.json").string())
    , m_shardSize(static_cast<std::size_t>(trainer.m_params.cacheShardSize))
    , m_rank(trainer.rank())
    , m_ranks(trainer.worldSize())
    , m_partPath((fs::path(m_cacheDir) / std::to_string(m_rank) / "manifest.json").string())
{
}

TrainResult StageOneRun::run()
{
    if (auto failure = openDataset())
        return m_trainer.fail(*failure);
    if (auto failure = makeManifest())
        return m_trainer.fail(*failure);
    if (auto failure = keepFinishedShards())
        return m_trainer.fail(*failure);
    if (auto failure = writeRunFiles())
        return m_trainer.fail(*failure);
    if (m_trainer.m_group) {
        // Rank 0 has made the folder and removed what an interrupted run left there.
        m_trainer.m_group->barrier("waiting for rank 0 to prepare the cache folder");
        if (auto failure = writeManifest())
            return m_trainer.fail(*failure);
    }
    m_trainer.emitStart("data_process");
    planSamples();

    m_models.emplace(m_trainer.m_models, m_trainer.m_offloaded, m_params.tokenizerPath, &m_events);
    m_runner.emplace(*m_trainer.m_declaration, *m_trainer.m_loss, *m_models);
    m_context.models = &*m_models;
    m_context.seed = m_params.seed;
    const int workers = m_params.datasetNumWorkers;
    Loader loader(m_todo.size(), workers, kPrefetchPerWorker * static_cast<std::size_t>(std::max(1, workers)),
        [this](std::size_t i) { return load(m_todo[i]); });
    m_written = m_manifest.shardBytes();
    m_start = m_events.elapsed();
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < m_todo.size(); ++i) {
        if (m_trainer.aborted()) {
            m_result.status = kTrainCancelled;
            m_events.log("cancelled: " + std::to_string(m_manifest.shards.size()) + " of " + std::to_string(m_shardCount)
                + " shards are kept; the same command resumes");
            break;
        }
        if (Ending ending = processSample(i, loader))
            return std::move(*ending);
    }
    return finish();
}

std::optional<Trainer::Failure> StageOneRun::openDataset()
{
    if (auto failure = m_trainer.openDataset(m_dataset))
        return failure;
    m_trainer.warnIgnoredFlags(nullptr);
    if (auto failure = m_trainer.checkDatasetStepMemory(m_dataset))
        return failure;
    std::error_code sameError;
    if (fs::equivalent(m_params.datasetBasePath, m_cacheDir, sameError))
        return Failure{kTrainBadInput, "bad-flag",
            "--output_path must not be the dataset folder (--dataset_base_path): stage one writes its cache there"};
    // The cache folder is this run's from here on: another stage one into it is refused.
    return m_trainer.lockOutputFolder(false, true);
}

std::optional<Trainer::Failure> StageOneRun::makeManifest()
{
    m_modelNames = m_trainer.stageModels(m_trainer.m_units, false);
    // Hash the weights of the models stage one runs: stage two checks them.
    std::vector<std::pair<std::string, std::uint64_t>> hashes;
    for (const auto &name : m_modelNames) {
        for (const auto &r : m_trainer.m_models) {
            if (r.name != name)
                continue;
            std::uint64_t hash = 0;
            std::string error;
            if (!hashModelWeights(r, hash, &error, [this](const std::string &line) { m_trainer.m_events.log(line); }))
                return Failure{kTrainBadInput, "model", name + ": " + error};
            hashes.emplace_back(name, hash);
        }
    }
    m_manifest = m_trainer.wantedManifest(m_dataset, hashes);
    // The text encoder reads prompts through the tokenizer: its file is part of what
    // the cached embeddings depend on. (With no text encoder named, and no
    // --tokenizer_path, there is none: loading the text encoder says what is missing.)
    const std::string tokenizerPath = tokenizerPathFor(m_params.tokenizerPath, m_trainer.m_models);
    if (std::find(m_modelNames.begin(), m_modelNames.end(), "text_encoder") != m_modelNames.end() && !tokenizerPath.empty()) {
        CacheTokenizerRecord record{tokenizerPath, 0};
        std::string error;
        if (!hashFileSet({tokenizerPath}, record.hash, &error))
            return Failure{kTrainBadInput, "model", "tokenizer: " + error + " (--tokenizer_path overrides where it is looked for)"};
        m_manifest.tokenizer = record;
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> StageOneRun::keepFinishedShards()
{
    m_shardCount = (m_dataset.size() + m_shardSize - 1) / m_shardSize;
    m_finished.assign(m_shardCount, 0);
    std::string error;
    const std::vector<ManifestFile> files = readCacheManifests(m_cacheDir, &error);
    if (!error.empty())
        return Failure{kTrainBadInput, "manifest-mismatch", error + " (not overwriting it: choose another --output_path)"};
    // Each shard as the manifests list it, newest first: a shard made again after it
    // was found damaged is in a part, and its old entry still in manifest.json.
    std::vector<std::vector<CacheShard>> candidates(m_shardCount);
    for (const ManifestFile &file : files) {
        const auto diffs = compareCacheSettings(file.manifest, m_manifest);
        if (!diffs.empty()) {
            std::string message = "--output_path '" + m_cacheDir + "' already holds a cache made differently ("
                + file.path + "):";
            for (const auto &d : diffs)
                message += "\n  " + d;
            return Failure{kTrainBadInput, "manifest-mismatch", message + "\nchoose another --output_path, or delete that folder to rebuild it"};
        }
        for (const CacheShard &s : file.manifest.shards) {
            const std::size_t index = s.first / m_shardSize;
            if (s.first % m_shardSize == 0 && index < m_shardCount && s.count == std::min(m_shardSize, m_dataset.size() - s.first))
                candidates[index].push_back(s);
        }
    }
    std::vector<std::string> redone;
    std::size_t kept = 0;
    for (std::size_t index = 0; index < m_shardCount; ++index) {
        if (!ownsShard(index) || candidates[index].empty())
            continue;
        std::string damages;
        for (const CacheShard &s : candidates[index]) {
            const std::string damage = shardDamage(m_cacheDir, s);
            if (damage.empty()) {
                m_finished[index] = 1;
                m_manifest.shards.push_back(s);
                break;
            }
            damages += (damages.empty() ? "" : ", ") + s.file + " (" + damage + ")";
        }
        kept += m_finished[index];
        if (!m_finished[index])
            redone.push_back(damages);
    }
    if (kept > 0 || !redone.empty()) {
        std::size_t owned = 0;
        for (std::size_t index = 0; index < m_shardCount; ++index)
            owned += ownsShard(index) ? 1 : 0;
        std::string line = "resuming stage one: " + std::to_string(kept) + " of " + std::to_string(owned) + " shards are done";
        if (!redone.empty()) {
            line += "; making " + countText(redone.size(), "damaged shard") + " again:";
            for (const std::string &r : redone)
                line += " " + r + ",";
            line.pop_back();
        }
        m_events.log(line);
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> StageOneRun::writeRunFiles()
{
    if (auto failure = m_trainer.lockOutputFolder(true, true))
        return failure;
    if (!m_trainer.writesRunFiles())
        return std::nullopt;
    std::string error;
    std::error_code ec;
    // With several ranks each keeps its shards in its part until rank 0 joins them;
    // manifest.json, when there is one, stays as it was meanwhile.
    if (!m_trainer.m_group) {
        if (auto failure = writeManifest())
            return failure;
    } else if (!fs::exists(m_manifestPath, ec)) {
        CacheManifest empty = m_manifest;
        empty.shards.clear();
        if (!writeFileAtomically(m_manifestPath, empty.toJson(), &error))
            return Failure{kTrainFailed, "io", error};
    }
    // The flags this run used, and apart from them those it was given but ignores, as training writes them.
    if (!writeFileAtomically(m_argsPath, m_trainer.settingsJson(), &error))
        return Failure{kTrainFailed, "io", error};
    return std::nullopt;
}

std::optional<Trainer::Failure> StageOneRun::writeManifest()
{
    std::string error;
    if (!m_trainer.m_group) {
        if (!writeFileAtomically(m_manifestPath, m_manifest.toJson(), &error))
            return Failure{kTrainFailed, "io", error};
        return std::nullopt;
    }
    std::error_code ec;
    fs::create_directories(fs::path(m_partPath).parent_path(), ec);
    if (!writeFileAtomically(m_partPath, m_manifest.toJson(), &error))
        return Failure{kTrainFailed, "io", error};
    return std::nullopt;
}

std::optional<Trainer::Failure> StageOneRun::joinRanks()
{
    // No deadline: a rank whose share took less time waits for the others as long as
    // they work (ProcessGroup::gather), and a Cancel still ends the wait.
    std::optional<std::vector<std::string>> verdicts;
    try {
        verdicts = m_trainer.m_group->gather("stage-one-done", m_result.status == kTrainCancelled ? "cancelled" : "done",
            [this] { return m_trainer.aborted(); }, "waiting for every rank to finish stage one");
    } catch (const DistributedError &e) {
        return Failure{kTrainFailed, "distributed", std::string(e.what()) + "; the shards made so far are kept: the same "
            "command resumes from them"};
    }
    if (!verdicts || std::find(verdicts->begin(), verdicts->end(), "cancelled") != verdicts->end()) {
        m_result.status = kTrainCancelled;
        return std::nullopt;
    }
    if (!m_trainer.writesRunFiles())
        return std::nullopt;
    std::vector<CacheShard> shards;
    for (int rank = 0; rank < m_ranks; ++rank) {
        const std::string path = (fs::path(m_cacheDir) / std::to_string(rank) / "manifest.json").string();
        std::string text;
        std::string error;
        CacheManifest part;
        if (!readWholeFile(path, text, &error) || !CacheManifest::parse(text, path, part, &error))
            return Failure{kTrainFailed, "io", "joining the ranks' shards: " + error};
        shards.insert(shards.end(), part.shards.begin(), part.shards.end());
    }
    std::sort(shards.begin(), shards.end(), [](const CacheShard &a, const CacheShard &b) { return a.first < b.first; });
    // Every shard once, in order, the samples whole: what each rank said it made.
    std::size_t next = 0;
    for (const CacheShard &shard : shards) {
        if (shard.first != next)
            break;
        next += shard.count;
    }
    if (next != m_dataset.size()) {
        const std::size_t missing = next / std::max<std::size_t>(1, m_shardSize);
        const int rank = static_cast<int>(missing % static_cast<std::size_t>(m_ranks));
        return Failure{kTrainFailed, "io", "joining the ranks' shards: the shard of samples " + std::to_string(next)
            + " on is not listed in " + (fs::path(m_cacheDir) / std::to_string(rank) / "manifest.json").string()
            + " (rank " + std::to_string(rank) + "'s part) though every rank said it was done; the parts are kept: the "
            "same command makes what is missing"};
    }
    m_manifest.shards = shards;
    return std::nullopt;
}

void StageOneRun::planSamples()
{
    for (std::size_t s = 0; s < m_shardCount; ++s) {
        if (m_finished[s] || !ownsShard(s))
            continue;
        for (std::size_t i = s * m_shardSize; i < std::min(m_dataset.size(), (s + 1) * m_shardSize); ++i)
            m_todo.push_back(i);
    }
    for (std::size_t s = 0; s < m_shardCount; ++s) {
        if (ownsShard(s))
            m_ownSamples += std::min(m_dataset.size(), (s + 1) * m_shardSize) - s * m_shardSize;
    }
    const std::string text = "stage one: " + std::to_string(m_todo.size()) + " of " + std::to_string(m_dataset.size())
        + " samples to cache";
    m_events.emit(Event(events::kStage)
                      .set("stage", "data_process")
                      .set("total_samples", static_cast<std::uint64_t>(m_dataset.size()))
                      .set("to_process", static_cast<std::uint64_t>(m_todo.size()))
                      .set("message", text)
                      .text(text));
}

// Runs on a loader thread.
LoadedSample StageOneRun::load(std::size_t sample) const
{
    LoadedSample item;
    try {
        DatasetSample loaded;
        if (!m_dataset.load(sample, loaded, &item.error)) {
            // (libpng's allocations that fail)
            const std::string suffix = ": out of memory";
            item.outOfMemory = item.error.size() >= suffix.size()
                && item.error.compare(item.error.size() - suffix.size(), suffix.size(), suffix) == 0;
            return item;
        }
        item.values = m_trainer.pipelineInputs(loaded);
    } catch (...) {
        item.error = allocationFailure(std::current_exception());
        if (item.error.empty())
            throw;
        item.outOfMemory = true;
    }
    return item;
}

StageOneRun::Ending StageOneRun::processSample(std::size_t i, Loader &loader)
{
    const std::size_t sample = m_todo[i];
    LoadedSample item = loader.take();
    if (item.outOfMemory)
        return outOfMemory(sample, "loading it", item.error);
    if (!item.error.empty())
        return m_trainer.fail({kTrainBadInput, "dataset", item.error});
    const std::size_t shardIndex = sample / m_shardSize;
    const bool lastOfShard = sample + 1 == std::min(m_dataset.size(), (shardIndex + 1) * m_shardSize);
    CacheShard shard;
    const HeartbeatScope beat(m_heartbeat, "running stage one on sample " + std::to_string(sample));
    try {
        shard = cacheSample(sample, item, shardIndex, lastOfShard);
    } catch (...) {
        // An allocation that fails (an image too large for the memory left) ends the run
        // with a message that says so; the shards finished so far stay, and the same
        // command resumes from them.
        const std::string what = allocationFailure(std::current_exception());
        if (what.empty())
            throw;
        auto side = [&item](const char *key) {
            const auto it = item.values.find(key);
            return it == item.values.end() || it->second.kind != Value::Kind::Int ? std::string("?")
                                                                                   : std::to_string(it->second.integer);
        };
        return outOfMemory(sample, "image " + side("height") + "x" + side("width"), what);
    }
    ++m_done;
    if (lastOfShard) {
        if (auto failure = addShard(shard, shardIndex))
            return m_trainer.fail(*failure);
    }
    emitProgress(i);
    return std::nullopt;
}

CacheShard StageOneRun::cacheSample(std::size_t sample, LoadedSample &item, std::size_t shardIndex, bool lastOfShard)
{
    m_runner->runUnits(m_trainer.m_units, item.values, m_context, [&](int unit) {
        const double now = m_events.elapsed();
        if (now - m_lastUnitEvent < kUnitEventInterval)
            return;
        m_lastUnitEvent = now;
        m_events.emit(Event(events::kUnit)
                          .set("stage", "data_process")
                          .set("sample", static_cast<std::uint64_t>(sample))
                          .set("unit", m_trainer.m_declaration->units[static_cast<std::size_t>(unit)].name)
                          .set("unit_index", unit));
    });
    ValueMap stored;
    const auto &cacheSet = m_trainer.m_cacheSet;
    for (auto &[param, value] : item.values) {
        if (m_params.cacheAllParams || std::find(cacheSet.begin(), cacheSet.end(), param) != cacheSet.end())
            stored.emplace(param, std::move(value));
    }
    m_writer.add(sample, stored);
    if (!lastOfShard)
        return {};
    return m_writer.write(m_cacheDir, m_rank, shardIndex, shardIndex * m_shardSize);
}

std::optional<Trainer::Failure> StageOneRun::addShard(const CacheShard &shard, std::size_t shardIndex)
{
    m_writer = CacheWriter();
    m_manifest.shards.push_back(shard);
    std::sort(m_manifest.shards.begin(), m_manifest.shards.end(),
        [](const CacheShard &a, const CacheShard &b) { return a.first < b.first; });
    if (auto failure = writeManifest())
        return failure;
    m_written += shard.bytes;
    m_events.emit(Event(events::kCheckpoint)
                      .set("kind", "shard")
                      .set("path", (fs::path(m_cacheDir) / shard.file).string())
                      .set("shard", static_cast<std::uint64_t>(shardIndex))
                      .set("samples", static_cast<std::uint64_t>(shard.count))
                      .set("bytes", shard.bytes));
    return std::nullopt;
}

void StageOneRun::emitProgress(std::size_t i)
{
    const double now = m_events.elapsed();
    if (now - m_lastProgress >= kProgressEventInterval || i + 1 == m_todo.size()) {
        m_lastProgress = now;
        const double rate = m_done / std::max(1e-9, now - m_start);
        const double eta = (m_todo.size() - m_done) / std::max(1e-9, rate);
        m_events.emit(Event(events::kProgress)
                          .set("stage", "data_process")
                          .set("done", static_cast<std::uint64_t>(m_manifest.finishedSamples() + m_writer.sampleCount()))
                          .set("total", static_cast<std::uint64_t>(m_ownSamples))
                          .set("samples_per_s", rate)
                          .set("eta_s", eta)
                          .set("cache_bytes_written", m_written)
                          .set("cpu_s", processCpuSeconds())
                          .text("stage one: " + std::to_string(m_done) + "/" + std::to_string(m_todo.size()) + " samples, "
                              + std::to_string(static_cast<int>(rate * 10) / 10.0).substr(0, 5) + " samples/s"));
    }
    if (now - m_lastMemory >= kMemoryEventInterval) {
        m_lastMemory = now;
        m_trainer.emitMemory(*m_models, m_written, 0);
    }
}

TrainResult StageOneRun::outOfMemory(std::size_t sample, const std::string &image, const std::string &what)
{
    return m_trainer.fail({kTrainFailed, "out-of-memory", "out of memory at sample " + std::to_string(sample) + " (" + image
        + "): " + what + "; " + std::to_string(m_manifest.shards.size()) + " of " + std::to_string(m_shardCount)
        + " shards are kept in " + m_cacheDir + ": the same command resumes from them where more memory is free"});
}

TrainResult StageOneRun::finish()
{
    m_trainer.emitMemory(*m_models, m_written, 0);
    m_result.samples = m_done;
    m_result.outputs = {{"cache", m_cacheDir}, {"manifest", m_manifestPath}, {"training_args", m_argsPath}};
    if (m_trainer.m_group) {
        if (auto failure = joinRanks())
            return m_trainer.fail(*failure);
        if (!m_trainer.writesRunFiles() || m_result.status == kTrainCancelled)
            return m_result;
    }
    if (m_result.status == kTrainCancelled)
        return m_result;
    m_manifest.complete = m_manifest.finishedSamples() == m_dataset.size();
    std::string error;
    if (!writeFileAtomically(m_manifestPath, m_manifest.toJson(), &error))
        return m_trainer.fail({kTrainFailed, "io", error});
    removeManifestParts(m_cacheDir);
    m_events.log("stage one done: " + std::to_string(m_dataset.size()) + " samples in "
        + std::to_string(m_manifest.shards.size()) + " shards (" + std::to_string(m_manifest.shardBytes() / 1024) + " KiB) at "
        + m_cacheDir);
    return m_result;
}

TrainResult Trainer::runDataProcess()
{
    return StageOneRun(*this).run();
}

} // namespace splitscope::engine
