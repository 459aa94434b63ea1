// SPDX-License-Identifier: MIT
// Trainer::runTraining: one-stage training (`sft`, `direct_distill`) and stage two
// (`*:train`). The same loop; only where a step's inputs come from differs (the
// dataset through every unit, or the cache through the stage-two units).
#include "CacheReader.h"
#include "Dataset.h"
#include "Hash.h"
#include "MemoryEstimate.h"
#include "ModelSet.h"
#include "OrderedPrefetcher.h"
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

} // namespace

std::optional<Trainer::Failure> Trainer::checkManifest(const CacheManifest &manifest)
{
    CacheExpectation wanted;
    wanted.pipeline = m_declaration->name;
    wanted.task = m_task.loss;
    wanted.loss = m_loss->name;
    wanted.pipelineHash = pipelineHash(m_pipeline);
    wanted.modelsRequiringBackward = m_modelsRequiringBackward;
    for (std::size_t i = 0; i < m_declaration->units.size(); ++i) {
        if (!m_split.trained[i])
            wanted.stageOneUnits.push_back(m_declaration->units[i].name);
    }
    wanted.cacheSet = m_cacheSet;
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
        if (!hashModelWeights(*resolved, hash, &error))
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

std::optional<Trainer::Failure> Trainer::checkResumePoint(const ResumePoint &point, std::size_t stepsPerEpoch) const
{
    // The state's epoch is the next one to run (counted from 0), `position` the next
    // step in it.
    std::string where = "the resume state in '" + m_params.outputPath + "' is at step " + std::to_string(point.step) + ": "
        + countText(point.epoch, "epoch") + " done";
    if (point.position > 0)
        where += " and " + countText(point.position, "step") + " of epoch " + std::to_string(point.epoch + 1);
    auto reached = [&](const std::string &flag, long long value) {
        return Failure{kTrainBadInput, "resume", "--resume: --" + flag + " " + std::to_string(value) + " is already reached: " + where
            + "; nothing was trained and the run folder is unchanged (a larger --" + flag + " continues the run)"};
    };
    if (m_params.maxSteps > 0 && point.step >= static_cast<std::uint64_t>(m_params.maxSteps))
        return reached("max_steps", m_params.maxSteps);
    if (point.epoch >= static_cast<std::uint64_t>(m_params.numEpochs))
        return reached("num_epochs", m_params.numEpochs);
    if (point.position >= stepsPerEpoch) {
        return Failure{kTrainBadInput, "resume", "--resume: " + where + ", but an epoch here has only " + std::to_string(stepsPerEpoch)
            + " steps (has the dataset or --dataset_repeat changed?)"};
    }
    return std::nullopt;
}

TrainResult Trainer::runTraining()
{
    const bool stageTwo = m_task.stage == Stage::Train;
    const std::string stage = stageTwo ? "train" : "one_stage";

    // Where a step's inputs come from.
    ImageDataset dataset;
    std::unique_ptr<CacheReader> reader;
    std::size_t samples = 0;
    TrainingData data{stageTwo ? "cache" : "dataset", m_params.datasetBasePath, {}};
    if (stageTwo) {
        const std::string manifestPath = (fs::path(m_params.datasetBasePath) / "manifest.json").string();
        std::string text;
        std::string error;
        // Read under a shared lock: a stage one writing this cache (it holds it alone)
        // is waited for by no one, and none starts while this run reads it.
        std::error_code folderError;
        bool busy = false;
        if (fs::is_directory(m_params.datasetBasePath, folderError)
            && !m_cacheLock.acquireShared(m_params.datasetBasePath, &error, &busy))
            return fail({busy ? kTrainBadInput : kTrainFailed, busy ? "folder-in-use" : "io", "--dataset_base_path " + error});
        if (!readWholeFile(manifestPath, text, &error)) {
            return fail({kTrainBadInput, "dataset", "--dataset_base_path '" + m_params.datasetBasePath
                + "' holds no readable manifest.json (" + error + "): " + m_params.task + " reads the cache that stage one ("
                + m_task.loss + ":data_process) wrote to its --output_path"});
        }
        CacheManifest manifest;
        if (!CacheManifest::parse(text, manifestPath, manifest, &error))
            return fail({kTrainBadInput, "manifest-mismatch", error});
        if (auto failure = checkManifest(manifest))
            return fail(*failure);
        warnIgnoredFlags(&manifest);
        data.fingerprint = hashToHex(cacheIdentity(manifest));
        std::error_code sameError;
        if (fs::equivalent(m_params.datasetBasePath, m_params.outputPath, sameError))
            return fail({kTrainBadInput, "bad-flag", "--output_path must not be the cache folder (--dataset_base_path)"});
        samples = manifest.samples;
        // Every shard is checked now, from its size and header, so that a damaged one is
        // refused before the steps before it run, and before the run folder changes.
        reader = std::make_unique<CacheReader>(m_params.datasetBasePath, manifest,
            CacheLayout(manifest, m_cacheSet, m_declaration->params, modelDimensions(m_models)));
        // The headers give each sample's sizes (its latents', edit latents', prompt's): the
        // step that needs the most memory is checked now, before the first.
        const StepMemory memory = stepMemory();
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
        if (!reader->checkShards(&error, visit))
            return fail({kTrainBadInput, "corrupt-shard", error + "\nnothing was trained and --output_path is unchanged"});
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
        if (largest) {
            if (auto failure = checkStepMemory(largest->second, "the largest in the cache: sample "
                    + std::to_string(largest->first)))
                return fail(*failure);
        } else {
            // No latents cached (stage two encodes the image itself): the size stage one
            // was given, when it was given one.
            const auto setting = [&manifest](const char *key) {
                const auto it = manifest.settings.find(key);
                return it == manifest.settings.end() ? 0 : std::atoi(it->second.c_str());
            };
            StepSize size;
            size.width = setting("width");
            size.height = setting("height");
            if (auto failure = checkStepMemory(size, "the size stage one cached, --height " + std::to_string(size.height)
                    + " --width " + std::to_string(size.width)))
                return fail(*failure);
        }
    } else {
        if (auto failure = openDataset(dataset))
            return fail(*failure);
        samples = dataset.size();
        warnIgnoredFlags(nullptr);
        data.fingerprint = hashToHex(dataset.fingerprint());
        if (auto failure = checkDatasetStepMemory(dataset))
            return fail(*failure);
    }

    const std::size_t perEpoch = samples * static_cast<std::size_t>(m_params.datasetRepeat);
    const std::string settings = settingsJson();
    // The run folder is this run's from here on: another run into it is refused.
    if (auto failure = lockOutputFolder(false, false))
        return fail(*failure);
    std::error_code ec;
    if (!m_params.resume && fs::exists(TrainingState::path(m_params.outputPath), ec)) {
        // DiffSynth's train.py would write over it; here a run that finished has no
        // state left, so running a command again still starts afresh, and only an
        // unfinished run (cancelled, stopped by --max_steps, killed) is kept from harm.
        return fail({kTrainBadInput, "unfinished-run", "--output_path '" + m_params.outputPath + "' holds an unfinished run "
            "(its resume.safetensors: the run was cancelled, stopped by --max_steps, or killed): add --resume to continue "
            "it; to start a new run choose another --output_path, or delete that folder first (a new run there would "
            "overwrite its loss.csv and resume state, and mix its checkpoints with the new ones). Nothing was changed"});
    }
    // A state to resume from is checked before anything in the run folder changes:
    // a refused --resume leaves it as it was, resume.safetensors included.
    if (m_params.resume) {
        ResumePoint at;
        std::string error;
        std::string note;
        if (!TrainingState::inspect(m_params.outputPath, settings, data, at, &error, &note))
            return fail({kTrainBadInput, "resume", error});
        if (!note.empty())
            m_pendingWarnings.emplace_back("resume-data-unchecked", note);
        if (auto failure = checkResumePoint(at, perEpoch))
            return fail(*failure);
    }

    if (auto failure = lockOutputFolder(true, false))
        return fail(*failure);
    const std::string argsPath = (fs::path(m_params.outputPath) / "training_args.json").string();
    std::string error;

    ModelSet models(m_models, m_offloaded, m_params.tokenizerPath, &m_events);
    ModelSet::TrainingSetup setup;
    for (const auto &m : splitCommaList(m_params.trainableModels))
        setup.trainable.insert(m);
    setup.loraBaseModel = m_params.loraBaseModel;
    setup.loraTargets = splitCommaList(m_params.loraTargetModules);
    setup.loraRank = m_params.loraRank;
    setup.seed = m_params.seed;
    setup.loraCheckpoint = m_params.loraCheckpoint;
    models.setTrainingSetup(setup);
    emitStart(stage);
    // Trainable models load now (the optimizer needs their parameters); the rest on
    // first use, if this stage uses them at all.
    for (const auto &name : m_modelsRequiringBackward)
        models.module(name, "training (--trainable_models / --lora_base_model)");
    const NamedTensors trainable = models.trainableParameters();
    std::vector<torch::Tensor> parameters;
    for (const auto &p : trainable)
        parameters.push_back(p.second);
    torch::optim::AdamW optimizer(parameters, torch::optim::AdamWOptions(m_params.learningRate).weight_decay(m_params.weightDecay));

    ResumePoint point;
    if (m_params.resume) {
        if (!TrainingState::load(m_params.outputPath, trainable, optimizer, point, settings, data, &error))
            return fail({kTrainBadInput, "resume", error});
        m_events.emit(Event(events::kCheckpoint)
                          .set("kind", "resume")
                          .set("path", TrainingState::path(m_params.outputPath))
                          .set("epoch", static_cast<std::uint64_t>(point.epoch))
                          .set("step", point.step)
                          .text("resuming at epoch " + std::to_string(point.epoch + 1) + " of "
                              + std::to_string(m_params.numEpochs) + ", after step " + std::to_string(point.step)));
    }

    std::uint64_t totalSteps = static_cast<std::uint64_t>(perEpoch) * static_cast<std::uint64_t>(m_params.numEpochs);
    if (m_params.maxSteps > 0)
        totalSteps = std::min<std::uint64_t>(totalSteps, static_cast<std::uint64_t>(m_params.maxSteps));
    m_events.emit(Event(events::kStage)
                      .set("stage", stage)
                      .set("total_steps", totalSteps)
                      .set("epochs", m_params.numEpochs)
                      .set("samples", static_cast<std::uint64_t>(samples))
                      .set("message", std::string(stageTwo ? "stage two" : "one-stage training") + ": " + std::to_string(totalSteps) + " steps")
                      .text(std::string(stageTwo ? "stage two" : "one-stage training") + ": "
                          + countText(static_cast<std::size_t>(m_params.numEpochs), "epoch") + " x "
                          + countText(perEpoch, "step")));

    // training_args.json and loss.csv are written once the first step is done: a run that
    // trains nothing (out of memory, or a damaged shard, at its first step) leaves the
    // run folder as it was.
    std::optional<LossLog> lossLog;
    auto writeRunFiles = [&]() {
        if (lossLog)
            return;
        std::string argsError;
        if (!writeFileAtomically(argsPath, settings, &argsError))
            throw EngineError(argsError);
        lossLog.emplace((fs::path(m_params.outputPath) / "loss.csv").string(), m_params.resume, point.step);
    };
    const FlowMatchScheduler trainingScheduler(FlowMatchScheduler::kTrainTimesteps);
    const Runner runner(*m_declaration, *m_loss, models);
    RunContext context;
    context.models = &models;
    context.trainingScheduler = &trainingScheduler;
    context.seed = m_params.seed;
    context.checkpointing = m_params.useGradientCheckpointing;

    TrainResult result;
    result.outputs = {{"training_args", argsPath}, {"loss_csv", (fs::path(m_params.outputPath) / "loss.csv").string()}};
    std::uint64_t step = point.step;
    const std::uint64_t firstStep = step;
    const double start = m_events.elapsed();
    double lastText = -1;
    double lastMemory = -1;
    double readSeconds = 0;
    double waitSeconds = 0;
    std::string lastCheckpoint;
    // For a run stopped before its first step was done: the run folder is as it was
    // (one this run made is removed again). Says so, for the message.
    auto nothingTrained = [&]() -> std::string {
        if (m_params.resume) {
            return "; nothing was trained in this run: the state after step " + std::to_string(step) + " in "
                + TrainingState::path(m_params.outputPath) + " is as it was, and the same command continues from it";
        }
        m_outputLock.release();
        std::error_code removeError;
        if (m_createdOutputFolder)
            fs::remove(m_params.outputPath, removeError);
        return "; nothing was trained, and --output_path '" + m_params.outputPath + "' is as it was";
    };
    // A learning rate large enough can turn the weights to inf or NaN on the last step,
    // which no later loss would reveal: nothing non-finite is ever saved.
    auto requireFiniteWeights = [&]() {
        for (const auto &named : models.trainableParameters()) {
            if (!torch::isfinite(named.second).all().item<bool>())
                throw EngineError("the weights are no longer finite after step " + std::to_string(step) + " ("
                    + named.first + "): training diverged; a lower --learning_rate or --weight_decay may help. "
                    "Nothing was saved for this step");
        }
    };
    auto checkpointNamed = [&](const std::string &file, const std::string &kind, std::uint64_t epoch) {
        requireFiniteWeights();
        const std::string path = (fs::path(m_params.outputPath) / file).string();
        saveCheckpoint(path, models.trainableParameters(), m_params.removePrefixInCkpt);
        lastCheckpoint = path;
        m_events.emit(Event(events::kCheckpoint)
                          .set("kind", kind)
                          .set("path", path)
                          .set("epoch", epoch)
                          .set("step", step)
                          .text("saved " + path));
    };
    bool stop = false;
    ResumePoint stopPoint{}; // where --max_steps stopped the run
    std::uint64_t lastEpoch = point.epoch;
    for (std::uint64_t epoch = point.epoch; epoch < static_cast<std::uint64_t>(m_params.numEpochs) && !stop; ++epoch) {
        lastEpoch = epoch;
        const auto order = shuffledOrder(perEpoch, deriveSeed(m_params.seed, epoch, 0, RandomPurpose::Shuffle));
        const std::size_t first = epoch == point.epoch ? static_cast<std::size_t>(point.position) : 0;
        // Stage two always reads ahead on at least one thread, overlapping cache reads
        // with compute; one-stage loads on the computing thread with 0 workers, as
        // DiffSynth's DataLoader does.
        const int workers = reader ? std::max(1, m_params.datasetNumWorkers) : m_params.datasetNumWorkers;
        OrderedPrefetcher<StepInput> prefetcher(perEpoch - first, workers,
            kPrefetchPerWorker * static_cast<std::size_t>(std::max(1, workers)), [&](std::size_t i) {
                StepInput input;
                const auto t0 = std::chrono::steady_clock::now();
                const std::size_t row = order[first + i] % samples;
                try {
                    if (reader) {
                        input.values = reader->read(row);
                    } else {
                        DatasetSample sample;
                        if (dataset.load(row, sample, &input.error))
                            input.values = pipelineInputs(sample);
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
        double epochLoss = 0;
        std::uint64_t epochSteps = 0;
        for (std::size_t position = first; position < perEpoch; ++position) {
            StepInput input = prefetcher.take();
            if (!input.error.empty()) {
                if (reader && !input.badInput)
                    throw EngineError(input.error);
                if (!reader)
                    return fail({kTrainBadInput, "dataset", input.error});
                // A shard found damaged when first read (its checksum): the steps done so far
                // are kept as a cancellation keeps them. Stage one rebuilds the damaged shard
                // alone, byte for byte, so the cache identity in the state still matches.
                if (step == firstStep)
                    return fail({kTrainBadInput, "corrupt-shard", input.error + nothingTrained()});
                checkpointNamed("step-" + std::to_string(step) + ".safetensors", "step", epoch);
                TrainingState::save(m_params.outputPath, models.trainableParameters(), optimizer,
                    ResumePoint{epoch, position, step}, settings, data);
                m_events.emit(Event(events::kCheckpoint)
                                  .set("kind", "resume")
                                  .set("path", TrainingState::path(m_params.outputPath))
                                  .set("epoch", static_cast<std::uint64_t>(epoch))
                                  .set("step", step)
                                  .text("state saved after step " + std::to_string(step)));
                return fail({kTrainBadInput, "corrupt-shard", input.error + "; the state after step " + std::to_string(step)
                    + " is saved in " + TrainingState::path(m_params.outputPath) + ": once the shard is rebuilt (the same "
                    "stage-one command, " + m_task.loss + ":data_process with --output_path '" + m_params.datasetBasePath
                    + "', rebuilds only the damaged shards), the same command with --resume continues from it"});
            }
            readSeconds += input.readSeconds;
            context.epoch = epoch;
            context.sampleIndex = order[position];
            // An allocation that fails (an image too large for the memory left) ends the
            // run with a message that says so, keeping the state before this step when
            // the weights are still those of the last step.
            bool stepping = false;
            auto outOfMemory = [&](const std::string &what) {
                auto side = [&input](const char *key) {
                    const auto it = input.values.find(key);
                    return it == input.values.end() ? std::string("?") : std::to_string(it->second.integer);
                };
                std::string message = "out of memory at step " + std::to_string(step + 1) + " (image " + side("height") + "x"
                    + side("width") + "): " + what.substr(0, what.find('\n'));
                if (step == firstStep) {
                    message += nothingTrained();
                } else if (stepping) {
                    message += "; the optimizer was updating the weights, so no state was saved";
                } else {
                    try {
                        requireFiniteWeights();
                        TrainingState::save(m_params.outputPath, models.trainableParameters(), optimizer,
                            ResumePoint{epoch, position, step}, settings, data);
                        message += "; the state after step " + std::to_string(step) + " is saved in "
                            + TrainingState::path(m_params.outputPath) + ": the same command with --resume continues "
                              "from it where more memory is free";
                    } catch (const std::exception &e) {
                        message += std::string("; the state could not be saved: ") + e.what();
                    }
                }
                return fail({kTrainFailed, "out-of-memory", message});
            };
            double lossValue = 0;
            try {
                runner.runUnits(m_units, input.values, context);
                const torch::Tensor loss = runner.runLoss(input.values, context);
                lossValue = loss.item<double>();
                if (!std::isfinite(lossValue)) {
                    throw EngineError("the loss is " + std::to_string(lossValue) + " at epoch " + std::to_string(epoch) + ", step "
                        + std::to_string(step + 1) + " (a lower --learning_rate may help)");
                }
                optimizer.zero_grad();
                loss.backward();
                stepping = true;
                optimizer.step();
            } catch (const c10::Error &e) {
                const std::string what = e.what_without_backtrace();
                if (!isAllocationFailure(what))
                    throw;
                return outOfMemory("LibTorch: " + what);
            } catch (const std::bad_alloc &) {
                return outOfMemory("std::bad_alloc");
            }
            writeRunFiles();
            ++step;
            ++epochSteps;
            epochLoss += lossValue;
            result.finalLoss = lossValue;
            lossLog->add(step, lossValue);

            const double now = m_events.elapsed();
            const double rate = static_cast<double>(step - firstStep) / std::max(1e-9, now - start);
            const double eta = static_cast<double>(totalSteps > step ? totalSteps - step : 0) / std::max(1e-9, rate);
            Event e(events::kStep);
            e.set("stage", stage)
                .set("epoch", static_cast<std::uint64_t>(epoch))
                .set("step", step)
                .set("epoch_step", static_cast<std::uint64_t>(position + 1))
                .set("total_steps", totalSteps)
                .set("loss", lossValue)
                .set("samples_per_s", rate)
                .set("eta_s", eta)
                .set("cache_bytes_read", reader ? reader->bytesRead() : 0)
                .set("read_wait_s", waitSeconds + prefetcher.waitSeconds())
                .set("cache_read_s", readSeconds)
                .set("cpu_s", processCpuSeconds());
            if (now - lastText >= kTextInterval || step == totalSteps) {
                lastText = now;
                char line[160];
                std::snprintf(line, sizeof(line), "epoch %llu/%d step %llu/%llu loss %.4f  %.1f steps/s  eta %.0f s",
                    static_cast<unsigned long long>(epoch + 1), m_params.numEpochs, static_cast<unsigned long long>(step),
                    static_cast<unsigned long long>(totalSteps), lossValue, rate, eta);
                e.text(line);
            }
            m_events.emit(e);
            if (now - lastMemory >= kMemoryEventInterval) {
                lastMemory = now;
                emitMemory(models, 0, reader ? reader->bytesRead() : 0);
            }
            if (m_params.saveSteps > 0 && step % static_cast<std::uint64_t>(m_params.saveSteps) == 0)
                checkpointNamed("step-" + std::to_string(step) + ".safetensors", "step", epoch);
            if (m_params.maxSteps > 0 && step >= static_cast<std::uint64_t>(m_params.maxSteps)) {
                stop = true;
                stopPoint = ResumePoint{position + 1 == perEpoch ? epoch + 1 : epoch, position + 1 == perEpoch ? 0 : position + 1, step};
                break;
            }
            if (aborted() && !(epoch + 1 == static_cast<std::uint64_t>(m_params.numEpochs) && position + 1 == perEpoch)) {
                // Finish this step, keep its weights and a state to resume from, then stop.
                checkpointNamed("step-" + std::to_string(step) + ".safetensors", "step", epoch);
                requireFiniteWeights();
                TrainingState::save(m_params.outputPath, models.trainableParameters(), optimizer,
                    ResumePoint{position + 1 == perEpoch ? epoch + 1 : epoch, position + 1 == perEpoch ? 0 : position + 1, step}, settings, data);
                m_events.emit(Event(events::kCheckpoint)
                                  .set("kind", "resume")
                                  .set("path", TrainingState::path(m_params.outputPath))
                                  .set("epoch", static_cast<std::uint64_t>(epoch))
                                  .set("step", step)
                                  .text("cancelled: state saved; the same command with --resume continues"));
                result.status = kTrainCancelled;
                result.outputs.emplace_back("resume_state", TrainingState::path(m_params.outputPath));
                result.outputs.emplace_back("checkpoint", lastCheckpoint);
                result.steps = step;
                result.readWaitSeconds = waitSeconds + prefetcher.waitSeconds();
                result.cacheReadSeconds = readSeconds;
                return result;
            }
        }
        waitSeconds += prefetcher.waitSeconds();
        if (stop)
            break;
        if (m_params.saveSteps == 0)
            checkpointNamed("epoch-" + std::to_string(epoch) + ".safetensors", "epoch", epoch);
        requireFiniteWeights();
        TrainingState::save(m_params.outputPath, models.trainableParameters(), optimizer, ResumePoint{epoch + 1, 0, step}, settings,
            data);
        m_events.emit(Event(events::kEpoch)
                          .set("epoch", static_cast<std::uint64_t>(epoch))
                          .set("mean_loss", epochSteps ? epochLoss / static_cast<double>(epochSteps) : 0.0)
                          .set("steps", epochSteps)
                          .text("epoch " + std::to_string(epoch + 1) + " done, mean loss "
                              + std::to_string(epochSteps ? epochLoss / static_cast<double>(epochSteps) : 0.0)));
    }
    writeRunFiles();
    if (m_params.saveSteps > 0 && step % static_cast<std::uint64_t>(m_params.saveSteps) != 0)
        checkpointNamed("step-" + std::to_string(step) + ".safetensors", "final", lastEpoch);
    if (stop && m_params.saveSteps == 0)
        checkpointNamed("step-" + std::to_string(step) + ".safetensors", "final", lastEpoch);
    emitMemory(models, 0, reader ? reader->bytesRead() : 0);
    if (stop && stopPoint.epoch < static_cast<std::uint64_t>(m_params.numEpochs)) {
        // --max_steps ended the run before its epochs did: keep a state, so that a
        // larger --max_steps (or none) with --resume continues exactly where this ended.
        requireFiniteWeights();
        TrainingState::save(m_params.outputPath, models.trainableParameters(), optimizer, stopPoint, settings, data);
        m_events.emit(Event(events::kCheckpoint)
                          .set("kind", "resume")
                          .set("path", TrainingState::path(m_params.outputPath))
                          .set("epoch", stopPoint.epoch)
                          .set("step", step)
                          .text("--max_steps reached before --num_epochs: state saved; a larger --max_steps with --resume "
                                "continues"));
        result.outputs.emplace_back("resume_state", TrainingState::path(m_params.outputPath));
    } else {
        fs::remove(TrainingState::path(m_params.outputPath), ec);
    }
    result.steps = step;
    result.readWaitSeconds = waitSeconds;
    result.cacheReadSeconds = readSeconds;
    if (!lastCheckpoint.empty())
        result.outputs.emplace_back("checkpoint", lastCheckpoint);
    return result;
}

} // namespace splitscope::engine
