// SPDX-License-Identifier: MIT
// Trainer::runTraining: one-stage training (`sft`, `direct_distill`) and stage two
// (`*:train`). The same loop; only where a step's inputs come from differs (the
// dataset through every unit, or the cache through the stage-two units).
#include "CacheReader.h"
#include "Dataset.h"
#include "GradientBuckets.h"
#include "Hash.h"
#include "Heartbeat.h"
#include "MemoryEstimate.h"
#include "ModelSet.h"
#include "OrderedPrefetcher.h"
#include "ProcessGroup.h"
#include "ProcessMemory.h"
#include "Runner.h"
#include "SeedSequence.h"
#include "Trainer.h"

#include "CacheCheck.h"
#include "TrainingState.h"
#include "UnitRuntime.h"
#include "core/CountText.h"
#include "core/AtomicFile.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sstream>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kPrefetchPerWorker = 2;
// Seconds between human progress lines on stderr, and between memory events.
constexpr double kTextInterval = 1.0;
constexpr double kMemoryEventInterval = 1.0;

struct StepInput {
    ValueMap values;
    std::string error;
    bool badInput = false; // the error is the input's (a corrupt cache shard, an unreadable image)
    double readSeconds = 0;
};

// loss.csv as DiffSynth's CSVLogger writes it: "step,key,value", one row a step.
// On resume, rows past the resumed step (from a run killed after its last saved
// state) are dropped, so every step appears once.
class LossLog {
public:
    LossLog(const std::string &path, bool resume, std::uint64_t keepSteps)
        : m_path(path)
    {
        std::string kept = "step,key,value\n";
        if (resume) {
            std::ifstream in(path);
            std::string line;
            std::getline(in, line);
            while (std::getline(in, line)) {
                const auto comma = line.find(',');
                if (comma != std::string::npos && std::strtoull(line.c_str(), nullptr, 10) <= keepSteps)
                    kept += line + "\n";
            }
        }
        std::string error;
        if (!writeFileAtomically(path, kept, &error))
            throw EngineError(error);
        m_file = std::fopen(path.c_str(), "a");
        if (!m_file)
            throw EngineError("cannot append to '" + path + "'");
    }
    ~LossLog()
    {
        if (m_file)
            std::fclose(m_file);
    }
    void add(std::uint64_t step, double loss)
    {
        std::fprintf(m_file, "%llu,loss,%.9g\n", static_cast<unsigned long long>(step), loss);
        std::fflush(m_file);
    }

private:
    std::string m_path;
    std::FILE *m_file = nullptr;
};

// Writes resume states beside the training, one at a time on a thread of its own: the
// step that takes a state only copies the weights and moments (TrainingState::snapshot),
// and the serialising, writing and fsync run while the next steps compute.
class StateWriter {
public:
    struct Outcome {
        ResumePoint point;
        std::string error;        // empty: written
        double snapshotSeconds = 0; // taking it, on the training thread
        double seconds = 0;         // writing it, beside the steps
    };

    StateWriter() = default;
    StateWriter(const StateWriter &) = delete;
    StateWriter &operator=(const StateWriter &) = delete;
    // A write still running when the run ends (an exception) completes: it is a whole
    // state, of an earlier point.
    ~StateWriter()
    {
        if (m_pending.valid())
            m_pending.wait();
    }

    // Call with no write in progress (wait() first).
    void start(StateSnapshot snapshot, const std::string &outputPath, double snapshotSeconds)
    {
        m_pending = std::async(std::launch::async, [snapshot = std::move(snapshot), outputPath, snapshotSeconds]() mutable {
            const auto t0 = std::chrono::steady_clock::now();
            Outcome outcome;
            outcome.point = snapshot.point;
            outcome.snapshotSeconds = snapshotSeconds;
            try {
                TrainingState::write(snapshot, outputPath, &outcome.error);
            } catch (const std::exception &e) {
                outcome.error = std::string("cannot save the resume state: ") + e.what();
            }
            outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return outcome;
        });
    }
    // The write in progress, once it has ended; nothing while it runs or when there is none.
    std::optional<Outcome> poll()
    {
        if (!m_pending.valid() || m_pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            return std::nullopt;
        return m_pending.get();
    }
    // Waits for the write in progress, if any.
    std::optional<Outcome> wait()
    {
        if (!m_pending.valid())
            return std::nullopt;
        return m_pending.get();
    }

private:
    std::future<Outcome> m_pending;
};

} // namespace

std::optional<Trainer::Failure> Trainer::checkManifest(const CacheManifest &manifest)
{
    CacheExpectation wanted;
    wanted.pipeline = m_declaration->name;
    wanted.task = m_task.loss;
    wanted.loss = m_loss->name;
    wanted.pipelineHash = pipelineHash(m_pipeline);
    wanted.modelsRequiringBackward = m_modelsRequiringBackward;
    std::vector<int> stageOne;
    for (std::size_t i = 0; i < m_declaration->units.size(); ++i) {
        if (!m_split.trained[i]) {
            stageOne.push_back(static_cast<int>(i));
            wanted.stageOneUnits.push_back(m_declaration->units[i].name);
        }
    }
    wanted.cacheSet = m_cacheSet;
    wanted.stageOneModels = stageModels(stageOne, false);
    std::vector<std::string> diffs;
    for (const CacheMismatch &m : cacheMismatches(manifest, wanted))
        diffs.push_back(m.text());
    for (const CacheModelRecord &record : manifest.models) {
        const ResolvedModel *resolved = nullptr;
        for (const auto &r : m_models) {
            if (r.name == record.name)
                resolved = &r;
        }
        if (!resolved) {
            m_pendingWarnings.emplace_back("unchecked-weights", "stage one ran " + record.name + " ('" + record.spec
                + "'); this run's --model_id_with_origin_paths does not name it, so its weights cannot be compared");
            continue;
        }
        std::uint64_t hash = 0;
        std::string error;
        if (!hashModelWeights(*resolved, hash, &error, [this](const std::string &line) { m_events.log(line); }))
            return Failure{kTrainBadInput, "model", record.name + ": " + error};
        if (hash != record.hash) {
            diffs.push_back(record.name + " weights: the cache was made with " + hashToHex(record.hash) + " ('" + record.spec
                + "'), this run has " + hashToHex(hash) + " ('" + resolved->spec.text + "')");
        }
    }
    // The tokenizer turned the prompts into the ids the text encoder embedded.
    const std::string tokenizerPath = tokenizerPathFor(m_params.tokenizerPath, m_models);
    if (manifest.tokenizer && tokenizerPath.empty()) {
        m_pendingWarnings.emplace_back("unchecked-tokenizer", "stage one read the tokenizer '" + manifest.tokenizer->path
            + "'; this run names no text encoder nor --tokenizer_path, so it cannot be compared");
    } else if (manifest.tokenizer) {
        std::uint64_t hash = 0;
        std::string error;
        if (!hashFileSet({tokenizerPath}, hash, &error))
            return Failure{kTrainBadInput, "model", "tokenizer: " + error + " (--tokenizer_path overrides where it is looked for)"};
        if (hash != manifest.tokenizer->hash) {
            diffs.push_back("tokenizer: the cache was made with " + hashToHex(manifest.tokenizer->hash) + " ('"
                + manifest.tokenizer->path + "'), this run has " + hashToHex(hash) + " ('" + tokenizerPath + "')");
        }
    } else if (manifest.model("text_encoder")) {
        m_pendingWarnings.emplace_back("unchecked-tokenizer", "the cache does not record which tokenizer stage one's text "
            "encoder used (it was made before caches recorded it), so it cannot be compared: if the tokenizer has changed "
            "since, run stage one again to rebuild the cache");
    }
    if (auto failure = checkCachedDataset(manifest))
        return failure;
    if (const auto threads = manifest.settings.find("num_threads");
        threads != manifest.settings.end() && threads->second != std::to_string(m_threads)) {
        m_pendingWarnings.emplace_back("thread-count", "stage one ran on " + threads->second + " threads (--num_threads), "
            "this run on " + std::to_string(m_threads) + ": the weights equal one-stage training's bit for bit only when "
            "both stages and the one-stage run use the same count (it fixes the order of floating-point sums)");
    }
    if (!diffs.empty()) {
        std::string message = "the cache at '" + m_params.datasetBasePath + "' does not match this run:";
        for (const auto &d : diffs)
            message += "\n  " + d;
        return Failure{kTrainBadInput, "manifest-mismatch",
            message + "\nrun stage one (" + m_task.loss + ":data_process) again with these settings, or match them"};
    }
    if (!manifest.complete) {
        return Failure{kTrainBadInput, "manifest-mismatch", "the cache at '" + m_params.datasetBasePath + "' is incomplete ("
            + std::to_string(manifest.finishedSamples()) + " of " + std::to_string(manifest.samples)
            + " samples): rerun its stage-one command to finish it"};
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::checkCachedDataset(const CacheManifest &manifest)
{
    const std::string &folder = manifest.datasetBasePath;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
        m_pendingWarnings.emplace_back("dataset-unchecked", "the dataset stage one cached ('" + folder + "') is not there "
            "(from this working directory), so whether it changed since cannot be checked: the cache is used as it is");
        return std::nullopt;
    }
    const auto setting = [&manifest](const char *key) {
        const auto it = manifest.settings.find(key);
        return it == manifest.settings.end() ? std::string() : it->second;
    };
    DatasetOptions options;
    options.basePath = folder;
    options.metadataPath = manifest.datasetMetadataPath;
    options.maxPixels = std::atoll(setting("max_pixels").c_str());
    options.height = std::atoi(setting("height").c_str());
    options.width = std::atoi(setting("width").c_str());
    options.dataFileKeys = splitCommaList(setting("data_file_keys"));
    options.extraInputs = splitCommaList(setting("extra_inputs"));
    ImageDataset dataset;
    std::string error;
    if (!dataset.open(options, &error)) {
        m_pendingWarnings.emplace_back("dataset-unchecked", "the dataset stage one cached ('" + folder + "') cannot be read "
            "as it was then (" + error + "), so whether it changed since cannot be checked: the cache is used as it is");
        return std::nullopt;
    }
    if (dataset.fingerprint() == manifest.datasetFingerprint)
        return std::nullopt;
    return Failure{kTrainBadInput, "dataset-changed", "the dataset the cache at '" + m_params.datasetBasePath
        + "' was made from ('" + folder + "') has changed since stage one read it: its fingerprint (metadata.csv and the "
        "image files' names, sizes and modification times) is " + hashToHex(dataset.fingerprint()) + ", the cache's "
        + hashToHex(manifest.datasetFingerprint) + ". Training on would use the old data: run stage one ("
        + m_task.loss + ":data_process) again to rebuild the cache. Nothing was trained"};
}

void Trainer::warnIgnoredFlags(const CacheManifest *manifest)
{
    // "--height 32", "--dataset_metadata_path 'x.csv'": a flag as given.
    auto flagText = [](const std::string &name, const std::string &value) {
        const bool quoted = name == "dataset_metadata_path" || name == "lora_checkpoint" || name == "lora_target_modules"
            || name == "remove_prefix_in_ckpt";
        return "--" + name + (value.empty() ? "" : " " + (quoted ? "'" + value + "'" : value));
    };
    for (const IgnoredFlag &flag : ignoredFlags()) {
        const bool isSwitch = flag.name == "cache_all_params" || flag.name == "allow_hazards";
        const std::string given = flagText(flag.name, flag.value);
        if (flag.name == "max_pixels" && m_task.stage != Stage::Train) {
            if (flag.given) {
                m_pendingWarnings.emplace_back("ignored-flag", given + " is ignored: --height " + std::to_string(m_params.height)
                    + " --width " + std::to_string(m_params.width) + " give every image its size");
            }
            continue;
        }
        if (m_task.stage == Stage::DataProcess) {
            if (!flag.given)
                continue;
            std::string why = "stage one trains nothing: it runs the stage-one units once per sample and caches what "
                              "stage two reads; training flags apply in stage two";
            if (flag.name == "dataset_repeat")
                why = "stage one caches each sample once; --dataset_repeat applies in stage two";
            else if (flag.name == "resume")
                why = "stage one resumes by itself, keeping the finished shards of a cache made with the same settings";
            m_pendingWarnings.emplace_back("ignored-flag", given + " is ignored: " + why);
            continue;
        }
        if (!manifest) {
            if (flag.given)
                m_pendingWarnings.emplace_back("ignored-flag", given + " is ignored: one-stage training runs every unit "
                    "every step, with no split and no cache");
            continue;
        }
        std::optional<std::string> cached;
        if (flag.name == "dataset_metadata_path") {
            cached = manifest->datasetMetadataPath;
        } else if (flag.name == "cache_all_params") {
            cached = manifest->cacheAllParams ? "true" : "false";
        } else if (const auto it = manifest->settings.find(flag.name); it != manifest->settings.end()) {
            cached = it->second;
        }
        // A default the cache does not share also misleads where the loss reads the
        // value (DirectDistillLoss's steps): that one is said even when not given.
        const bool read = std::find(m_cacheSet.begin(), m_cacheSet.end(), flag.name) != m_cacheSet.end();
        if (!flag.given && !(read && cached && *cached != flag.value))
            continue;
        // What stage one was given: a switch off, no list, or a size left to each image
        // (0) is "without" the flag.
        std::string made = "stage one made";
        if (cached && (*cached == "false" || cached->empty() || ((flag.name == "height" || flag.name == "width") && *cached == "0")))
            made += " without --" + flag.name;
        else if (cached)
            made += " with " + flagText(flag.name, isSwitch ? std::string() : *cached);
        m_pendingWarnings.emplace_back("ignored-flag", given + " is ignored: stage two reads its inputs from the cache, which "
            + made);
    }
}

std::optional<Trainer::Failure> Trainer::checkResumePoint(const ResumePoint &point, std::size_t samplesPerEpoch) const
{
    // The state's epoch is the next one to run (counted from 0), `position` the next
    // sample of this rank's share of it.
    const std::string perRank = worldSize() > 1 ? " per rank" : "";
    std::string where = "the resume state in '" + m_params.outputPath + "' is at step " + std::to_string(point.step) + ": "
        + countText(point.epoch, "epoch") + " done";
    if (point.position > 0)
        where += " and " + countText(point.position, "sample") + perRank + " of epoch " + std::to_string(point.epoch + 1);
    auto reached = [&](const std::string &flag, long long value) {
        return Failure{kTrainBadInput, "resume", "--resume: --" + flag + " " + std::to_string(value) + " is already reached: " + where
            + "; nothing was trained and the run folder is unchanged (a larger --" + flag + " continues the run)"};
    };
    if (m_params.maxSteps > 0 && point.step >= static_cast<std::uint64_t>(m_params.maxSteps))
        return reached("max_steps", m_params.maxSteps);
    if (point.epoch >= static_cast<std::uint64_t>(m_params.numEpochs))
        return reached("num_epochs", m_params.numEpochs);
    if (point.position >= samplesPerEpoch) {
        return Failure{kTrainBadInput, "resume", "--resume: " + where + ", but an epoch here has only "
            + countText(samplesPerEpoch, "sample") + perRank + " (has the dataset or --dataset_repeat changed?)"};
    }
    return std::nullopt;
}

// One run of one-stage training or stage two over the context the Trainer prepared
// (the split, the units, the models, the flags). In the order it runs: where a step's
// inputs come from (openCache, openDataset), the run folder and the state to resume
// from (checkRunFolder), the models and the optimizer (setUpModels), the epochs and
// their steps (runEpoch, runStep) and the end of the run (finish).
class TrainingRun {
public:
    explicit TrainingRun(Trainer &trainer);
    TrainResult run();

private:
    using Failure = Trainer::Failure;
    // Set when the run ends before its epochs do: a failure or a cancellation.
    using Ending = std::optional<TrainResult>;
    using Prefetcher = OrderedPrefetcher<StepInput>;

    std::optional<Failure> openCache();
    std::optional<Failure> checkCacheStepMemory(const CacheManifest &manifest);
    std::optional<Failure> openDataset();
    std::optional<Failure> checkRunFolder();
    std::optional<Failure> setUpModels();
    // With several ranks: that all train the same weights (after --resume, too) on the
    // same number of samples and the same cache, naming the first that does not.
    std::optional<Failure> compareWithOtherRanks();
    void emitStage();
    Ending runEpoch(std::uint64_t epoch);
    // One sample of this rank at `position` of its share of the epoch; the last of a
    // --gradient_accumulation_steps group ends with the optimizer step.
    Ending runStep(StepInput &input, std::uint64_t epoch, std::size_t position, const Prefetcher &prefetcher);
    // The forward and backward pass, and at the group's end the gradients averaged over
    // the ranks and the optimizer's update (`stepped`); a failed allocation ends the
    // run (outOfMemory).
    Ending trainStep(StepInput &input, std::uint64_t epoch, std::size_t position, bool &stepped, double &lossValue);
    // The group's gradients and mean loss summed over the ranks (in GradientBuckets,
    // with the stop request), then divided by the rank count, as DDP averages them.
    // Returns the mean loss; with several ranks, sets m_stopAgreed when any was asked
    // to stop, so that all stop after this step.
    double averageOverRanks();
    // The first step: which parameters got gradients on which rank, the buckets laid
    // out over those every rank reached, and this step's gradients averaged in them.
    // Returns the summed loss and stop request.
    std::vector<double> learnGradientLayout(double loss, const std::string &what);
    // When the ranks reach different parameters: every gradient in one sum (zeros for
    // one missing), after the backward pass.
    std::vector<double> averageEveryGradient(double loss, const std::string &what);
    // Where the --gradient_accumulation_steps group of `position` starts: a state is
    // only ever taken between optimizer steps.
    std::size_t groupStart(std::size_t position) const;
    TrainResult inputFailed(const StepInput &input, std::uint64_t epoch, std::size_t position);
    // Another rank stopped while this step's gradients were being averaged: no rank
    // has updated its weights yet, so rank 0 keeps the state after the last step.
    TrainResult rankFailed(const DistributedError &error, std::uint64_t epoch, std::size_t position);
    // For a run ending on a failure after steps were done: saves the state after the
    // last one; what the message then says ("; the state after step 12 is saved in
    // ...: " and `howToContinue`), or why it could not be saved.
    std::string keepStateForResume(std::uint64_t epoch, std::size_t position, const std::string &howToContinue);
    // On a rank other than 0, which writes no state: where rank 0 keeps it.
    std::string otherRanksState() const;
    TrainResult outOfMemory(const StepInput &input, std::uint64_t epoch, std::size_t position, bool stepping,
        const std::string &what);
    TrainResult cancel(std::uint64_t epoch, std::size_t position, const Prefetcher &prefetcher);
    void endEpoch(std::uint64_t epoch);
    TrainResult finish();
    void emitStep(std::uint64_t epoch, std::size_t position, double lossValue, const Prefetcher &prefetcher);

    // training_args.json and loss.csv are written once the first step is done: a run
    // that trains nothing (out of memory, or a damaged shard, at its first step) leaves
    // the run folder as it was.
    void writeRunFiles();
    // A learning rate large enough can turn the weights to inf or NaN on the last step,
    // which no later loss would reveal: nothing non-finite is ever saved.
    void requireFiniteWeights() const;
    void saveCheckpoint(const std::string &file, const std::string &kind, std::uint64_t epoch);
    // Writes the state now (after waiting for one being written). Throws EngineError.
    void saveState(const ResumePoint &at);
    // Takes the state now and writes it beside the next steps (StateWriter).
    void saveStateInBackground(const ResumePoint &at);
    // The state written in the background, once written: an event, or the run ends
    // (EngineError) when the write failed, the previous state kept.
    void reportStateWrite(const std::optional<StateWriter::Outcome> &outcome);
    // After the step at `position`: a state every --checkpoint_interval seconds and at
    // every --save_steps checkpoint (an epoch's last step is left to the epoch end).
    void keepStateAfterStep(std::uint64_t epoch, std::size_t position, bool checkpointed);
    void emitStateSaved(std::uint64_t epoch, const std::string &text);
    // The point after the step at `position` of `epoch`.
    ResumePoint after(std::uint64_t epoch, std::size_t position) const;
    // For a run stopped before its first step was done: the run folder is as it was
    // (one this run made is removed again). Says so, for the message.
    std::string nothingTrained();

    Trainer &m_trainer;
    const TrainParams &m_params;
    EventSink &m_events;
    const bool m_stageTwo;
    const std::string m_stage;

    // Where a step's inputs come from: the dataset (one-stage training) or the cache.
    ImageDataset m_dataset;
    std::unique_ptr<CacheReader> m_reader;
    std::size_t m_samples = 0;
    std::size_t m_perEpoch = 0;
    // Data parallelism: this rank's share of an epoch (every rank has as many samples:
    // accelerate's even_batches wraps the last ones round to the epoch's start), and
    // the optimizer steps an epoch makes of it.
    const int m_rank;
    const int m_ranks;
    const std::size_t m_accumulation;
    std::size_t m_perRank = 0;
    std::uint64_t m_stepsPerEpoch = 0;
    std::vector<torch::Tensor> m_parameters; // trained, in the optimizer's order
    // With several ranks: the buckets of the parameters the first step reached, filled
    // while the backward pass runs from the second step (Averaging::Hooked; not with gradient
    // checkpointing, whose recomputation the hooks do not follow: then after it).
    std::unique_ptr<GradientBuckets> m_buckets;
    // How the gradients are averaged: not known before the first step; then in the
    // buckets, by their hooks or after the backward pass; or whole (the ranks reached
    // different parameters in the first step), for good.
    enum class Averaging { Unknown, Hooked, AfterBackward, Whole };
    Averaging m_averaging = Averaging::Unknown;
    std::vector<std::string> m_parameterNames;
    double m_groupLoss = 0;                  // the losses of the group's samples so far
    std::size_t m_groupSamples = 0;
    bool m_stopAgreed = false; // a rank was asked to stop: every rank stops after this step
    bool m_runFilesWritten = false;
    TrainingData m_data;
    std::string m_settings; // training_args.json
    std::string m_argsPath;

    std::optional<ModelSet> m_models;
    std::unique_ptr<torch::optim::AdamW> m_optimizer;
    const FlowMatchScheduler m_scheduler{FlowMatchScheduler::kTrainTimesteps};
    std::optional<Runner> m_runner;
    RunContext m_context;

    ResumePoint m_point; // where this run starts
    std::uint64_t m_totalSteps = 0;
    std::uint64_t m_step = 0;
    std::uint64_t m_firstStep = 0;
    std::uint64_t m_lastEpoch = 0;
    double m_epochLoss = 0;
    std::uint64_t m_epochSteps = 0;
    bool m_stopped = false;   // --max_steps ended the run
    ResumePoint m_stopPoint{}; // where it did
    std::optional<LossLog> m_lossLog;
    TrainResult m_result;
    std::string m_lastCheckpoint;
    double m_start = 0;
    double m_lastText = -1;
    double m_lastMemory = -1;
    double m_readSeconds = 0;
    double m_waitSeconds = 0; // waiting for inputs, in the epochs done
    StateWriter m_stateWriter;
    std::chrono::steady_clock::time_point m_lastState; // when the last state was taken
    Heartbeat m_heartbeat{m_events};
};

TrainingRun::TrainingRun(Trainer &trainer)
    : m_trainer(trainer)
    , m_params(trainer.m_params)
    , m_events(trainer.m_events)
    , m_stageTwo(trainer.m_task.stage == Stage::Train)
    , m_stage(m_stageTwo ? "train" : "one_stage")
    , m_rank(trainer.rank())
    , m_ranks(trainer.worldSize())
    , m_accumulation(static_cast<std::size_t>(trainer.m_params.gradientAccumulationSteps))
    , m_data{m_stageTwo ? "cache" : "dataset", trainer.m_params.datasetBasePath, {}}
{
}

TrainResult TrainingRun::run()
{
    if (auto failure = m_stageTwo ? openCache() : openDataset())
        return m_trainer.fail(*failure);
    m_perEpoch = m_samples * static_cast<std::size_t>(m_params.datasetRepeat);
    const auto ranks = static_cast<std::size_t>(m_ranks);
    m_perRank = (m_perEpoch + ranks - 1) / ranks;
    m_stepsPerEpoch = (m_perRank + m_accumulation - 1) / m_accumulation;
    m_settings = m_trainer.settingsJson();
    if (auto failure = checkRunFolder())
        return m_trainer.fail(*failure);
    if (auto failure = setUpModels())
        return m_trainer.fail(*failure);
    if (auto failure = compareWithOtherRanks())
        return m_trainer.fail(*failure);
    emitStage();

    m_result.outputs = {{"training_args", m_argsPath}, {"loss_csv", (fs::path(m_params.outputPath) / "loss.csv").string()}};
    m_step = m_point.step;
    m_firstStep = m_step;
    m_start = m_events.elapsed();
    m_lastState = std::chrono::steady_clock::now();
    m_lastEpoch = m_point.epoch;
    for (std::uint64_t epoch = m_point.epoch; epoch < static_cast<std::uint64_t>(m_params.numEpochs); ++epoch) {
        m_lastEpoch = epoch;
        if (Ending ending = runEpoch(epoch))
            return std::move(*ending);
        if (m_stopped)
            break;
        endEpoch(epoch);
    }
    return finish();
}

std::optional<Trainer::Failure> TrainingRun::compareWithOtherRanks()
{
    if (!m_trainer.m_group)
        return std::nullopt;
    std::uint64_t weights = 0;
    for (const torch::Tensor &p : m_parameters) {
        const torch::Tensor values = p.detach().contiguous();
        weights = hashBytes(values.data_ptr(), static_cast<std::size_t>(values.numel()) * values.element_size(), weights);
    }
    std::vector<std::pair<std::string, std::string>> facts = {
        {"samples", std::to_string(m_samples)}, {"trained weights", hashToHex(weights)}};
    if (m_stageTwo)
        facts.emplace_back("cache", m_data.fingerprint);
    return m_trainer.agreeAcrossRanks("training", facts);
}

std::optional<Trainer::Failure> TrainingRun::openCache()
{
    const std::string manifestPath = (fs::path(m_params.datasetBasePath) / "manifest.json").string();
    std::string text;
    std::string error;
    // Read under a shared lock: a stage one writing this cache (it holds it alone)
    // is waited for by no one, and none starts while this run reads it.
    std::error_code folderError;
    bool busy = false;
    if (fs::is_directory(m_params.datasetBasePath, folderError)
        && !m_trainer.m_cacheLock.acquireShared(m_params.datasetBasePath, &error, &busy))
        return Failure{busy ? kTrainBadInput : kTrainFailed, busy ? "folder-in-use" : "io", "--dataset_base_path " + error};
    if (!readWholeFile(manifestPath, text, &error)) {
        return Failure{kTrainBadInput, "dataset", "--dataset_base_path '" + m_params.datasetBasePath
            + "' holds no readable manifest.json (" + error + "): " + m_params.task + " reads the cache that stage one ("
            + m_trainer.m_task.loss + ":data_process) wrote to its --output_path"};
    }
    CacheManifest manifest;
    if (!CacheManifest::parse(text, manifestPath, manifest, &error))
        return Failure{kTrainBadInput, "manifest-mismatch", error};
    if (auto failure = m_trainer.checkManifest(manifest))
        return failure;
    m_trainer.warnIgnoredFlags(&manifest);
    m_data.fingerprint = hashToHex(cacheIdentity(manifest));
    std::error_code sameError;
    if (fs::equivalent(m_params.datasetBasePath, m_params.outputPath, sameError))
        return Failure{kTrainBadInput, "bad-flag", "--output_path must not be the cache folder (--dataset_base_path)"};
    m_samples = manifest.samples;
    m_reader = std::make_unique<CacheReader>(m_params.datasetBasePath, manifest,
        CacheLayout(manifest, m_trainer.m_cacheSet, m_trainer.m_declaration->params, modelDimensions(m_trainer.m_models)));
    return checkCacheStepMemory(manifest);
}

// Every shard is checked now, from its size and header, so that a damaged one is
// refused before the steps before it run, and before the run folder changes. The
// headers give each sample's sizes (its latents', edit latents', prompt's): the step
// that needs the most memory is checked now, before the first.
std::optional<Trainer::Failure> TrainingRun::checkCacheStepMemory(const CacheManifest &manifest)
{
    const StepMemory memory = m_trainer.stepMemory();
    std::map<std::size_t, StepSize> sizes;
    const auto visit = [&sizes, &memory](std::size_t sample, const std::string &param, const std::vector<std::int64_t> &shape) {
        // Capped: a header may give a tensor of no elements a side of any size.
        const auto pixels = [](std::int64_t latent, std::int64_t factor) {
            const std::int64_t largest = std::int64_t(1) << 30;
            return static_cast<int>(latent >= largest / factor ? largest : latent * factor);
        };
        const std::int64_t factor = memory.vae.downsampleFactor();
        StepSize &size = sizes[sample];
        if ((param == "input_latents" || param == "latents" || param == "noise") && shape.size() == 4) {
            size.height = pixels(shape[2], factor);
            size.width = pixels(shape[3], factor);
        } else if (param == "input_image" && shape.size() == 3 && size.width == 0) {
            size.height = pixels(shape[0], 1);
            size.width = pixels(shape[1], 1);
        } else if (param == "edit_latents" && shape.size() == 4) {
            size.editLatentHeight = pixels(shape[2], factor);
            size.editLatentWidth = pixels(shape[3], factor);
        } else if (param == "edit_image" && shape.size() == 3) {
            size.editHeight = pixels(shape[0], 1);
            size.editWidth = pixels(shape[1], 1);
        } else if (param == "prompt_emb" && shape.size() == 3) {
            size.promptTokens = shape[1];
        }
    };
    std::string error;
    if (!m_reader->checkShards(&error, visit))
        return Failure{kTrainBadInput, "corrupt-shard", error + "\nnothing was trained and --output_path is unchanged"};
    std::uint64_t largestBytes = 0;
    std::optional<std::pair<std::size_t, StepSize>> largest;
    for (const auto &[sample, size] : sizes) {
        if (size.width <= 0 || size.height <= 0)
            continue;
        const std::uint64_t bytes = estimateStepBytes(memory, size);
        if (!largest || bytes > largestBytes) {
            largestBytes = bytes;
            largest.emplace(sample, size);
        }
    }
    if (largest)
        return m_trainer.checkStepMemory(largest->second, "the largest in the cache: sample " + std::to_string(largest->first));
    // No latents cached (stage two encodes the image itself): the size stage one was
    // given, when it was given one.
    const auto setting = [&manifest](const char *key) {
        const auto it = manifest.settings.find(key);
        return it == manifest.settings.end() ? 0 : std::atoi(it->second.c_str());
    };
    StepSize size;
    size.width = setting("width");
    size.height = setting("height");
    return m_trainer.checkStepMemory(size, "the size stage one cached, --height " + std::to_string(size.height)
        + " --width " + std::to_string(size.width));
}

std::optional<Trainer::Failure> TrainingRun::openDataset()
{
    if (auto failure = m_trainer.openDataset(m_dataset))
        return failure;
    m_samples = m_dataset.size();
    m_trainer.warnIgnoredFlags(nullptr);
    m_data.fingerprint = hashToHex(m_dataset.fingerprint());
    return m_trainer.checkDatasetStepMemory(m_dataset);
}

std::optional<Trainer::Failure> TrainingRun::checkRunFolder()
{
    // The run folder is this run's from here on: another run into it is refused.
    if (auto failure = m_trainer.lockOutputFolder(false, false))
        return failure;
    std::error_code ec;
    if (!m_params.resume && fs::exists(TrainingState::path(m_params.outputPath), ec)) {
        // DiffSynth's train.py would write over it; here a run that finished has no
        // state left, so running a command again still starts afresh, and only an
        // unfinished run (cancelled, stopped by --max_steps, killed) is kept from harm.
        return Failure{kTrainBadInput, "unfinished-run", "--output_path '" + m_params.outputPath + "' holds an unfinished run "
            "(its resume.safetensors: the run was cancelled, stopped by --max_steps, or killed): add --resume to continue "
            "it; to start a new run choose another --output_path, or delete that folder first (a new run there would "
            "overwrite its loss.csv and resume state, and mix its checkpoints with the new ones). Nothing was changed"};
    }
    // A state to resume from is checked before anything in the run folder changes:
    // a refused --resume leaves it as it was, resume.safetensors included.
    if (m_params.resume) {
        ResumePoint at;
        std::string error;
        std::string note;
        if (!TrainingState::inspect(m_params.outputPath, m_settings, m_data, at, &error, &note))
            return Failure{kTrainBadInput, "resume", error};
        if (!note.empty())
            m_trainer.m_pendingWarnings.emplace_back("resume-data-unchecked", note);
        if (auto failure = m_trainer.checkResumePoint(at, m_perRank))
            return failure;
    }
    if (auto failure = m_trainer.lockOutputFolder(true, false))
        return failure;
    m_argsPath = (fs::path(m_params.outputPath) / "training_args.json").string();
    return std::nullopt;
}

std::optional<Trainer::Failure> TrainingRun::setUpModels()
{
    m_models.emplace(m_trainer.m_models, m_trainer.m_offloaded, m_params.tokenizerPath, &m_events);
    ModelSet::TrainingSetup setup;
    setup.trainable.insert(m_params.training.trainable.begin(), m_params.training.trainable.end());
    setup.loraBaseModel = m_params.training.loraBaseModelFlag();
    setup.loraTargets = splitCommaList(m_params.loraTargetModules);
    setup.loraRank = m_params.loraRank;
    setup.seed = m_params.seed;
    setup.loraCheckpoint = m_params.loraCheckpoint;
    m_models->setTrainingSetup(setup);
    m_trainer.emitStart(m_stage);
    // Trainable models load now (the optimizer needs their parameters); the rest on
    // first use, if this stage uses them at all.
    for (const auto &name : m_trainer.m_modelsRequiringBackward) {
        const HeartbeatScope beat(m_heartbeat, "loading " + name);
        m_models->module(name, "training (--trainable_models / --lora_base_model)");
    }
    const NamedTensors trainable = m_models->trainableParameters();
    std::vector<torch::Tensor> parameters;
    for (const auto &p : trainable)
        parameters.push_back(p.second);
    m_parameters = parameters;
    for (const auto &p : trainable)
        m_parameterNames.push_back(p.first);
    m_optimizer = std::make_unique<torch::optim::AdamW>(parameters,
        torch::optim::AdamWOptions(m_params.learningRate).weight_decay(m_params.weightDecay));

    if (m_params.resume) {
        std::string error;
        if (!TrainingState::load(m_params.outputPath, trainable, *m_optimizer, m_point, m_settings, m_data, &error))
            return Failure{kTrainBadInput, "resume", error};
        m_events.emit(Event(events::kCheckpoint)
                          .set("kind", "resume")
                          .set("path", TrainingState::path(m_params.outputPath))
                          .set("epoch", static_cast<std::uint64_t>(m_point.epoch))
                          .set("step", m_point.step)
                          .text("resuming at epoch " + std::to_string(m_point.epoch + 1) + " of "
                              + std::to_string(m_params.numEpochs) + ", after step " + std::to_string(m_point.step)));
    }
    m_runner.emplace(*m_trainer.m_declaration, *m_trainer.m_loss, *m_models);
    m_context.models = &*m_models;
    m_context.trainingScheduler = &m_scheduler;
    m_context.seed = m_params.seed;
    m_context.checkpointing = m_params.useGradientCheckpointing;
    return std::nullopt;
}

void TrainingRun::emitStage()
{
    m_totalSteps = m_stepsPerEpoch * static_cast<std::uint64_t>(m_params.numEpochs);
    if (m_params.maxSteps > 0)
        m_totalSteps = std::min<std::uint64_t>(m_totalSteps, static_cast<std::uint64_t>(m_params.maxSteps));
    const std::string name = m_stageTwo ? "stage two" : "one-stage training";
    std::string samplesPerStep;
    if (m_ranks > 1 || m_accumulation > 1) {
        samplesPerStep = " of " + countText(static_cast<std::size_t>(m_ranks) * m_accumulation, "sample") + " ("
            + countText(m_accumulation, "sample") + " on each of " + countText(static_cast<std::size_t>(m_ranks), "rank")
            + ")";
    }
    m_events.emit(Event(events::kStage)
                      .set("stage", m_stage)
                      .set("total_steps", m_totalSteps)
                      .set("epochs", m_params.numEpochs)
                      .set("samples", static_cast<std::uint64_t>(m_samples))
                      .set("world_size", m_ranks)
                      .set("gradient_accumulation_steps", static_cast<std::uint64_t>(m_accumulation))
                      .set("message", name + ": " + std::to_string(m_totalSteps) + " steps")
                      .text(name + ": " + countText(static_cast<std::size_t>(m_params.numEpochs), "epoch") + " x "
                          + countText(static_cast<std::size_t>(m_stepsPerEpoch), "step") + samplesPerStep));
}

TrainingRun::Ending TrainingRun::runEpoch(std::uint64_t epoch)
{
    const auto order = shuffledOrder(m_perEpoch, deriveSeed(m_params.seed, epoch, 0, RandomPurpose::Shuffle));
    const std::size_t first = epoch == m_point.epoch ? static_cast<std::size_t>(m_point.position) : 0;
    // Stage two always reads ahead on at least one thread, overlapping cache reads
    // with compute; one-stage loads on the computing thread with 0 workers, as
    // DiffSynth's DataLoader does.
    const int workers = m_reader ? std::max(1, m_params.datasetNumWorkers) : m_params.datasetNumWorkers;
    // This rank's samples, as accelerate's sharded sampler deals them: rank r takes
    // the epoch's samples r, r+N, r+2N, ...; the last ones wrap round to the start.
    const auto sampleAt = [&](std::size_t position) {
        return order[(position * static_cast<std::size_t>(m_ranks) + static_cast<std::size_t>(m_rank)) % m_perEpoch];
    };
    Prefetcher prefetcher(m_perRank - first, workers, kPrefetchPerWorker * static_cast<std::size_t>(std::max(1, workers)),
        [&](std::size_t i) {
            StepInput input;
            const auto t0 = std::chrono::steady_clock::now();
            const std::size_t row = sampleAt(first + i) % m_samples;
            try {
                if (m_reader) {
                    input.values = m_reader->read(row);
                } else {
                    DatasetSample sample;
                    if (m_dataset.load(row, sample, &input.error))
                        input.values = m_trainer.pipelineInputs(sample);
                }
            } catch (const EngineInputError &e) {
                input.error = e.what();
                input.badInput = true;
            } catch (const std::exception &e) {
                input.error = e.what();
            }
            input.readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return input;
        });
    m_epochLoss = 0;
    m_epochSteps = 0;
    for (std::size_t position = first; position < m_perRank && !m_stopped; ++position) {
        StepInput input = prefetcher.take();
        if (!input.error.empty())
            return inputFailed(input, epoch, position);
        m_readSeconds += input.readSeconds;
        m_context.epoch = epoch;
        m_context.sampleIndex = sampleAt(position);
        if (Ending ending = runStep(input, epoch, position, prefetcher))
            return ending;
    }
    m_waitSeconds += prefetcher.waitSeconds();
    return std::nullopt;
}

TrainingRun::Ending TrainingRun::runStep(StepInput &input, std::uint64_t epoch, std::size_t position,
    const Prefetcher &prefetcher)
{
    double lossValue = 0;
    bool stepped = false;
    if (Ending ending = trainStep(input, epoch, position, stepped, lossValue))
        return ending;
    if (!stepped)
        return std::nullopt;
    writeRunFiles();
    ++m_step;
    ++m_epochSteps;
    m_epochLoss += lossValue;
    m_result.finalLoss = lossValue;
    if (m_lossLog)
        m_lossLog->add(m_step, lossValue);
    emitStep(epoch, position, lossValue, prefetcher);
    const bool checkpointed = m_params.saveSteps > 0 && m_step % static_cast<std::uint64_t>(m_params.saveSteps) == 0;
    if (checkpointed)
        saveCheckpoint("step-" + std::to_string(m_step) + ".safetensors", "step", epoch);
    if (m_params.maxSteps > 0 && m_step >= static_cast<std::uint64_t>(m_params.maxSteps)) {
        m_stopped = true;
        m_stopPoint = after(epoch, position);
        return std::nullopt;
    }
    const bool last = epoch + 1 == static_cast<std::uint64_t>(m_params.numEpochs) && position + 1 == m_perRank;
    // Alone, a stop asked for during this step ends the run now; with several ranks,
    // when the request came with this step's gradients, so that every rank stops after
    // the same step.
    const bool stop = m_trainer.m_group ? m_stopAgreed : m_trainer.aborted();
    if (stop && !last)
        return cancel(epoch, position, prefetcher);
    keepStateAfterStep(epoch, position, checkpointed);
    return std::nullopt;
}

TrainingRun::Ending TrainingRun::trainStep(StepInput &input, std::uint64_t epoch, std::size_t position, bool &stepped,
    double &lossValue)
{
    // An allocation that fails (an image too large for the memory left) ends the run
    // with a message that says so, keeping the state before this step when the
    // weights are still those of the last step.
    bool stepping = false;
    const HeartbeatScope beat(m_heartbeat, "running step " + std::to_string(m_step + 1));
    try {
        m_runner->runUnits(m_trainer.m_units, input.values, m_context);
        const torch::Tensor loss = m_runner->runLoss(input.values, m_context);
        const double sampleLoss = loss.item<double>();
        if (!std::isfinite(sampleLoss)) {
            throw EngineError("the loss is " + std::to_string(sampleLoss) + " at epoch " + std::to_string(epoch) + ", step "
                + std::to_string(m_step + 1) + " (a lower --learning_rate may help)");
        }
        if (position == groupStart(position)) {
            m_optimizer->zero_grad();
            m_groupLoss = 0;
            m_groupSamples = 0;
        }
        m_groupLoss += sampleLoss;
        ++m_groupSamples;
        const bool groupEnd = (position + 1) % m_accumulation == 0 || position + 1 == m_perRank;
        try {
            // The buckets' sums start as the backward pass fills them (GradientBuckets).
            if (groupEnd && m_averaging == Averaging::Hooked) {
                m_buckets->begin({m_groupLoss / static_cast<double>(m_groupSamples), m_trainer.aborted() ? 1.0 : 0.0},
                    "averaging the gradients of step " + std::to_string(m_step + 1));
            }
            // accelerate scales each sample's loss by the group's size, so that the summed
            // gradients are their mean.
            if (m_accumulation == 1)
                loss.backward();
            else
                (loss / static_cast<double>(m_accumulation)).backward();
            if (!groupEnd)
                return std::nullopt;
            lossValue = averageOverRanks();
        } catch (const DistributedError &e) {
            return rankFailed(e, epoch, position);
        }
        stepping = true;
        m_optimizer->step();
        stepped = true;
    } catch (const c10::Error &e) {
        const std::string what = e.what_without_backtrace();
        if (!isAllocationFailure(what))
            throw;
        return outOfMemory(input, epoch, position, stepping, "LibTorch: " + what);
    } catch (const std::bad_alloc &) {
        return outOfMemory(input, epoch, position, stepping, "std::bad_alloc");
    }
    return std::nullopt;
}

double TrainingRun::averageOverRanks()
{
    const double loss = m_groupLoss / static_cast<double>(m_groupSamples);
    if (!m_trainer.m_group)
        return loss;
    const std::string what = "averaging the gradients of step " + std::to_string(m_step + 1);
    std::vector<double> sums;
    switch (m_averaging) {
    case Averaging::Unknown: sums = learnGradientLayout(loss, what); break;
    case Averaging::Hooked: sums = m_buckets->finish(); break;
    case Averaging::AfterBackward:
        sums = m_buckets->reduceAfterBackward({loss, m_trainer.aborted() ? 1.0 : 0.0}, what);
        break;
    case Averaging::Whole: sums = averageEveryGradient(loss, what); break;
    }
    m_stopAgreed = sums[1] > 0;
    return sums[0] / m_ranks;
}

std::vector<double> TrainingRun::learnGradientLayout(double loss, const std::string &what)
{
    // Which gradients exist on which rank: a parameter no sample reached has none (and
    // keeps none, as in one process: AdamW then leaves it as it is).
    std::vector<double> scalars = {loss, m_trainer.aborted() ? 1.0 : 0.0};
    for (const torch::Tensor &p : m_parameters)
        scalars.push_back(p.grad().defined() ? 1.0 : 0.0);
    std::vector<torch::Tensor> counts = {torch::tensor(scalars, torch::kFloat64)};
    m_trainer.m_group->allReduceSum(counts, what);
    const auto sums = counts[0].accessor<double, 1>();
    std::vector<char> used;
    bool agreed = true;
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        const double ranks = sums[static_cast<std::int64_t>(i) + 2];
        agreed = agreed && (ranks == 0 || ranks == m_ranks);
        used.push_back(ranks > 0 ? 1 : 0);
    }
    if (!agreed) {
        m_averaging = Averaging::Whole;
        // The ranks reached different parameters: a graph that changes from sample to
        // sample, averaged whole after every backward pass from now on.
        m_events.log("the ranks' first step reached different parameters: every step averages all gradients after "
                     "its backward pass");
        averageEveryGradient(loss, what);
        return {sums[0], sums[1]};
    }
    m_buckets = std::make_unique<GradientBuckets>(*m_trainer.m_group, m_parameters, m_parameterNames, used);
    const bool hooked = !m_params.useGradientCheckpointing;
    m_averaging = hooked ? Averaging::Hooked : Averaging::AfterBackward;
    m_events.log(std::string(hooked ? "from step " + std::to_string(m_step + 2) + " the" : "the")
        + " gradients are averaged in " + countText(m_buckets->bucketCount(), "bucket")
        + (hooked ? " while the backward pass makes them" : " after each backward pass (gradient checkpointing)"));
    // This step's gradients in the same buckets as every later step's (GradientBuckets).
    m_buckets->reduceAfterBackward({}, what);
    return {sums[0], sums[1]};
}

std::vector<double> TrainingRun::averageEveryGradient(double loss, const std::string &what)
{
    std::vector<torch::Tensor> pieces;
    for (const torch::Tensor &p : m_parameters)
        pieces.push_back(p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros({p.numel()}, p.options()));
    std::vector<torch::Tensor> tensors = {
        torch::cat(pieces), torch::tensor({loss, m_trainer.aborted() ? 1.0 : 0.0}, torch::kFloat64)};
    m_trainer.m_group->allReduceSum(tensors, what);
    tensors[0].div_(m_ranks);
    std::int64_t offset = 0;
    for (torch::Tensor &p : m_parameters) {
        const torch::Tensor mean = tensors[0].narrow(0, offset, p.numel()).view(p.sizes());
        offset += p.numel();
        if (p.grad().defined())
            p.mutable_grad().copy_(mean);
        else
            p.mutable_grad() = mean.clone();
    }
    const auto sums = tensors[1].accessor<double, 1>();
    return {sums[0], sums[1]};
}

std::size_t TrainingRun::groupStart(std::size_t position) const
{
    return position - position % m_accumulation;
}

TrainResult TrainingRun::inputFailed(const StepInput &input, std::uint64_t epoch, std::size_t position)
{
    if (m_reader && !input.badInput)
        throw EngineError(input.error);
    // A shard found damaged when first read (its checksum), or an image that no longer
    // decodes: the steps done so far are kept as a cancellation keeps them.
    const std::string code = m_reader ? "corrupt-shard" : "dataset";
    if (m_step == m_firstStep)
        return m_trainer.fail({kTrainBadInput, code, input.error + nothingTrained()});
    reportStateWrite(m_stateWriter.wait());
    saveCheckpoint("step-" + std::to_string(m_step) + ".safetensors", "step", epoch);
    saveState(ResumePoint{epoch, groupStart(position), m_step});
    emitStateSaved(epoch, "state saved after step " + std::to_string(m_step));
    const std::string saved = m_trainer.writesRunFiles()
        ? "; the state after step " + std::to_string(m_step) + " is saved in " + TrainingState::path(m_params.outputPath) + ": "
        : otherRanksState() + ": ";
    // Stage one rebuilds a damaged shard alone, byte for byte, so the cache identity
    // in the state still matches; a replaced image changes the dataset's fingerprint.
    if (m_reader) {
        return m_trainer.fail({kTrainBadInput, code, input.error + saved + "once the shard is rebuilt (the same "
            "stage-one command, " + m_trainer.m_task.loss + ":data_process with --output_path '" + m_params.datasetBasePath
            + "', rebuilds only the damaged shards), the same command with --resume continues from it"});
    }
    return m_trainer.fail({kTrainBadInput, code, input.error + saved + "the same command with --resume continues from it "
        "once the image reads as it did when the run started (a replaced image changes the dataset, which --resume "
        "refuses: then start again without --resume, in another --output_path)"});
}

std::string TrainingRun::otherRanksState() const
{
    return "; rank 0 keeps the state after the last step every rank made in " + TrainingState::path(m_params.outputPath);
}

std::string TrainingRun::keepStateForResume(std::uint64_t epoch, std::size_t position, const std::string &howToContinue)
{
    if (!m_trainer.writesRunFiles())
        return otherRanksState() + ": " + howToContinue;
    try {
        saveState(ResumePoint{epoch, groupStart(position), m_step});
        return "; the state after step " + std::to_string(m_step) + " is saved in " + TrainingState::path(m_params.outputPath)
            + ": " + howToContinue;
    } catch (const std::exception &e) {
        return std::string("; the state could not be saved: ") + e.what();
    }
}

TrainResult TrainingRun::rankFailed(const DistributedError &error, std::uint64_t epoch, std::size_t position)
{
    std::string message = error.what();
    if (m_step == m_firstStep) {
        message += nothingTrained();
    } else if (m_trainer.writesRunFiles()) {
        message += keepStateForResume(epoch, position, "the same command with --resume, on as many ranks, continues from it");
    }
    return m_trainer.fail({kTrainFailed, "distributed", message});
}

TrainResult TrainingRun::outOfMemory(const StepInput &input, std::uint64_t epoch, std::size_t position, bool stepping,
    const std::string &what)
{
    auto side = [&input](const char *key) {
        const auto it = input.values.find(key);
        return it == input.values.end() ? std::string("?") : std::to_string(it->second.integer);
    };
    std::string message = "out of memory at step " + std::to_string(m_step + 1) + " (image " + side("height") + "x"
        + side("width") + "): " + what.substr(0, what.find('\n'));
    if (m_step == m_firstStep) {
        message += nothingTrained();
    } else if (stepping) {
        message += "; the optimizer was updating the weights, so no state was saved";
    } else {
        message += keepStateForResume(epoch, position, "the same command with --resume continues from it where more "
                                                       "memory is free");
    }
    return m_trainer.fail({kTrainFailed, "out-of-memory", message});
}

// Finishes this step, keeps its weights and a state to resume from, then stops.
TrainResult TrainingRun::cancel(std::uint64_t epoch, std::size_t position, const Prefetcher &prefetcher)
{
    reportStateWrite(m_stateWriter.wait());
    saveCheckpoint("step-" + std::to_string(m_step) + ".safetensors", "step", epoch);
    saveState(after(epoch, position));
    emitStateSaved(epoch, "cancelled: state saved; the same command with --resume continues");
    m_result.status = kTrainCancelled;
    m_result.outputs.emplace_back("resume_state", TrainingState::path(m_params.outputPath));
    m_result.outputs.emplace_back("checkpoint", m_lastCheckpoint);
    m_result.steps = m_step;
    m_result.readWaitSeconds = m_waitSeconds + prefetcher.waitSeconds();
    m_result.cacheReadSeconds = m_readSeconds;
    return m_result;
}

void TrainingRun::endEpoch(std::uint64_t epoch)
{
    if (m_params.saveSteps == 0)
        saveCheckpoint("epoch-" + std::to_string(epoch) + ".safetensors", "epoch", epoch);
    // The last epoch's state is removed as the run finishes: none is written.
    if (epoch + 1 < static_cast<std::uint64_t>(m_params.numEpochs))
        saveStateInBackground(ResumePoint{epoch + 1, 0, m_step});
    const double meanLoss = m_epochSteps ? m_epochLoss / static_cast<double>(m_epochSteps) : 0.0;
    m_events.emit(Event(events::kEpoch)
                      .set("epoch", static_cast<std::uint64_t>(epoch))
                      .set("mean_loss", meanLoss)
                      .set("steps", m_epochSteps)
                      .text("epoch " + std::to_string(epoch + 1) + " done, mean loss " + std::to_string(meanLoss)));
}

TrainResult TrainingRun::finish()
{
    reportStateWrite(m_stateWriter.wait());
    writeRunFiles();
    const std::string finalFile = "step-" + std::to_string(m_step) + ".safetensors";
    if (m_params.saveSteps > 0 && m_step % static_cast<std::uint64_t>(m_params.saveSteps) != 0)
        saveCheckpoint(finalFile, "final", m_lastEpoch);
    if (m_stopped && m_params.saveSteps == 0)
        saveCheckpoint(finalFile, "final", m_lastEpoch);
    m_trainer.emitMemory(*m_models, 0, m_reader ? m_reader->bytesRead() : 0);
    if (m_stopped && m_stopPoint.epoch < static_cast<std::uint64_t>(m_params.numEpochs)) {
        // --max_steps ended the run before its epochs did: keep a state, so that a
        // larger --max_steps (or none) with --resume continues exactly where this ended.
        saveState(m_stopPoint);
        emitStateSaved(m_stopPoint.epoch, "--max_steps reached before --num_epochs: state saved; a larger --max_steps "
                                          "with --resume continues");
        m_result.outputs.emplace_back("resume_state", TrainingState::path(m_params.outputPath));
    } else {
        // A state still being written would land after the removal.
        reportStateWrite(m_stateWriter.wait());
        std::error_code ec;
        if (m_trainer.writesRunFiles())
            fs::remove(TrainingState::path(m_params.outputPath), ec);
    }
    m_result.steps = m_step;
    m_result.readWaitSeconds = m_waitSeconds;
    m_result.cacheReadSeconds = m_readSeconds;
    m_result.collectiveSeconds = m_trainer.m_group ? m_trainer.m_group->collectiveSeconds() : 0;
    if (!m_lastCheckpoint.empty())
        m_result.outputs.emplace_back("checkpoint", m_lastCheckpoint);
    return m_result;
}

void TrainingRun::emitStep(std::uint64_t epoch, std::size_t position, double lossValue, const Prefetcher &prefetcher)
{
    const double now = m_events.elapsed();
    const double rate = static_cast<double>(m_step - m_firstStep) / std::max(1e-9, now - m_start);
    const double eta = static_cast<double>(m_totalSteps > m_step ? m_totalSteps - m_step : 0) / std::max(1e-9, rate);
    const std::uint64_t bytesRead = m_reader ? m_reader->bytesRead() : 0;
    Event e(events::kStep);
    e.set("stage", m_stage)
        .set("epoch", static_cast<std::uint64_t>(epoch))
        .set("step", m_step)
        .set("epoch_step", static_cast<std::uint64_t>(position + 1))
        .set("total_steps", m_totalSteps)
        .set("loss", lossValue)
        .set("samples_per_s", rate * static_cast<double>(static_cast<std::size_t>(m_ranks) * m_accumulation))
        .set("steps_per_s", rate)
        .set("eta_s", eta)
        .set("cache_bytes_read", bytesRead)
        .set("read_wait_s", m_waitSeconds + prefetcher.waitSeconds())
        .set("cache_read_s", m_readSeconds)
        .set("cpu_s", processCpuSeconds());
    if (m_trainer.m_group)
        e.set("all_reduce_s", m_trainer.m_group->collectiveSeconds());
    if (now - m_lastText >= kTextInterval || m_step == m_totalSteps) {
        m_lastText = now;
        char line[160];
        std::snprintf(line, sizeof(line), "epoch %llu/%d step %llu/%llu loss %.4f  %.1f steps/s  eta %.0f s",
            static_cast<unsigned long long>(epoch + 1), m_params.numEpochs, static_cast<unsigned long long>(m_step),
            static_cast<unsigned long long>(m_totalSteps), lossValue, rate, eta);
        e.text(line);
    }
    m_events.emit(e);
    if (now - m_lastMemory >= kMemoryEventInterval) {
        m_lastMemory = now;
        m_trainer.emitMemory(*m_models, 0, bytesRead);
    }
}

void TrainingRun::writeRunFiles()
{
    if (m_runFilesWritten || !m_trainer.writesRunFiles())
        return;
    m_runFilesWritten = true;
    std::string error;
    if (!writeFileAtomically(m_argsPath, m_settings, &error))
        throw EngineError(error);
    m_lossLog.emplace((fs::path(m_params.outputPath) / "loss.csv").string(), m_params.resume, m_point.step);
}

void TrainingRun::requireFiniteWeights() const
{
    for (const auto &named : m_models->trainableParameters()) {
        if (!torch::isfinite(named.second).all().item<bool>())
            throw EngineError("the weights are no longer finite after step " + std::to_string(m_step) + " (" + named.first
                + "): training diverged; a lower --learning_rate or --weight_decay may help. Nothing was saved for this step");
    }
}

void TrainingRun::saveCheckpoint(const std::string &file, const std::string &kind, std::uint64_t epoch)
{
    const std::string path = (fs::path(m_params.outputPath) / file).string();
    m_lastCheckpoint = path;
    if (!m_trainer.writesRunFiles())
        return;
    requireFiniteWeights();
    engine::saveCheckpoint(path, m_models->trainableParameters(), m_params.removePrefixInCkpt);
    m_lastCheckpoint = path;
    m_events.emit(Event(events::kCheckpoint)
                      .set("kind", kind)
                      .set("path", path)
                      .set("epoch", epoch)
                      .set("step", m_step)
                      .text("saved " + path));
}

void TrainingRun::saveState(const ResumePoint &at)
{
    if (!m_trainer.writesRunFiles())
        return;
    reportStateWrite(m_stateWriter.wait());
    requireFiniteWeights();
    TrainingState::save(m_params.outputPath, m_models->trainableParameters(), *m_optimizer, at, m_settings, m_data);
    m_lastState = std::chrono::steady_clock::now();
}

void TrainingRun::saveStateInBackground(const ResumePoint &at)
{
    if (!m_trainer.writesRunFiles())
        return;
    reportStateWrite(m_stateWriter.wait());
    const auto t0 = std::chrono::steady_clock::now();
    requireFiniteWeights();
    StateSnapshot snapshot = TrainingState::snapshot(m_models->trainableParameters(), *m_optimizer, at, m_settings, m_data);
    m_lastState = std::chrono::steady_clock::now();
    m_stateWriter.start(std::move(snapshot), m_params.outputPath,
        std::chrono::duration<double>(m_lastState - t0).count());
}

void TrainingRun::reportStateWrite(const std::optional<StateWriter::Outcome> &outcome)
{
    if (!outcome)
        return;
    if (!outcome->error.empty())
        throw EngineError(outcome->error + "; training stopped so that no more than --checkpoint_interval is at risk: once "
            "the write can succeed, the same command with --resume continues from the last state saved");
    m_events.emit(Event(events::kCheckpoint)
                      .set("kind", "resume")
                      .set("path", TrainingState::path(m_params.outputPath))
                      .set("epoch", outcome->point.epoch)
                      .set("step", outcome->point.step)
                      .set("snapshot_s", outcome->snapshotSeconds)
                      .set("write_s", outcome->seconds));
}

void TrainingRun::keepStateAfterStep(std::uint64_t epoch, std::size_t position, bool checkpointed)
{
    reportStateWrite(m_stateWriter.poll());
    if (position + 1 == m_perRank)
        return; // the epoch end writes its checkpoint, then the state
    const double interval = m_params.checkpointInterval;
    const bool due = interval > 0
        && std::chrono::duration<double>(std::chrono::steady_clock::now() - m_lastState).count() >= interval;
    if (checkpointed || due)
        saveStateInBackground(after(epoch, position));
}

void TrainingRun::emitStateSaved(std::uint64_t epoch, const std::string &text)
{
    m_events.emit(Event(events::kCheckpoint)
                      .set("kind", "resume")
                      .set("path", TrainingState::path(m_params.outputPath))
                      .set("epoch", epoch)
                      .set("step", m_step)
                      .text(text));
}

ResumePoint TrainingRun::after(std::uint64_t epoch, std::size_t position) const
{
    if (position + 1 == m_perRank)
        return ResumePoint{epoch + 1, 0, m_step};
    return ResumePoint{epoch, position + 1, m_step};
}

std::string TrainingRun::nothingTrained()
{
    if (m_params.resume) {
        return "; nothing was trained in this run: the state after step " + std::to_string(m_step) + " in "
            + TrainingState::path(m_params.outputPath) + " is as it was, and the same command continues from it";
    }
    m_trainer.m_outputLock.release();
    std::error_code removeError;
    if (m_trainer.m_createdOutputFolder)
        fs::remove(m_params.outputPath, removeError);
    return "; nothing was trained, and --output_path '" + m_params.outputPath + "' is as it was";
}

TrainResult Trainer::runTraining()
{
    return TrainingRun(*this).run();
}

} // namespace splitscope::engine
