// SPDX-License-Identifier: MIT
#include "Trainer.h"

#include "ComputeThreads.h"
#include "Dataset.h"
#include "Hash.h"
#include "JsonDocument.h"
#include "MemoryEstimate.h"
#include "ModelSet.h"
#include "ProcessGroup.h"
#include "ProcessMemory.h"
#include "SeedSequence.h"
#include "UnitRuntime.h"
#include "core/CountText.h"
#include "core/Verifier.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace splitscope::engine {

namespace {

std::string joinNames(const std::vector<std::string> &names)
{
    std::string out;
    for (const auto &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Errors of the disk or the machine (not of the path the user gave): exit status 1.
bool isDiskFailure(const std::error_code &ec)
{
    return ec && ec.category() == std::generic_category()
        && (ec.value() == ENOSPC || ec.value() == EIO || ec.value() == ENOMEM || ec.value() == EDQUOT);
}

std::string producerName(const PipelineGraph &graph, UnitId unit)
{
    return unit == kNoUnit ? std::string("the external input") : graph.unitName(unit);
}

// "image,edit_image": a list as its flag takes it.
std::string commaJoined(const std::vector<std::string> &items)
{
    std::string out;
    for (const auto &i : items)
        out += (out.empty() ? "" : ",") + i;
    return out;
}

} // namespace

Trainer::Trainer(const TrainParams &params, const TrainCallbacks &callbacks, EventSink &events)
    : m_params(params)
    , m_callbacks(callbacks)
    , m_events(events)
{
}

Trainer::~Trainer() = default;

bool Trainer::aborted() const
{
    return m_callbacks.shouldAbort && m_callbacks.shouldAbort();
}

TrainResult Trainer::fail(const Failure &failure)
{
    Event e(events::kError);
    e.set("code", failure.code).set("message", failure.message).text("error: " + failure.message);
    if (failure.code == "hazards" && m_graph) {
        std::string list = "[";
        for (const Hazard &h : m_verification.hazards) {
            list += (list.size() > 1 ? "," : "");
            list += "{\"kind\":" + jsonQuote(hazardKindName(h.kind)) + ",\"mechanism\":" + jsonQuote(hazardKindName(h.mechanism))
                + ",\"reader\":" + jsonQuote(m_graph->unitName(h.reader)) + ",\"param\":" + jsonQuote(m_graph->paramName(h.param))
                + ",\"expected_producer\":" + (h.expected == kNoUnit ? "null" : jsonQuote(m_graph->unitName(h.expected)))
                + ",\"actual_producer\":" + (h.actual == kNoUnit ? "null" : jsonQuote(m_graph->unitName(h.actual))) + "}";
        }
        e.setRaw("hazards", list + "]");
    }
    m_events.emit(e);
    TrainResult result;
    result.status = failure.status;
    result.message = failure.message;
    return result;
}

std::optional<Trainer::Failure> Trainer::prepare()
{
    std::string error;
    if (!parseTask(m_params.task, m_task, &error))
        return badInput("bad-flag", error);
    m_declaration = findPipelineDeclaration(m_params.pipeline);
    if (!m_declaration)
        return badInput("bad-flag", "--pipeline: no built-in executable pipeline '" + m_params.pipeline + "' (built-in: "
            + joinNames(builtinPipelineNames()) + ")");
    m_loss = m_declaration->loss(m_task.loss);
    if (!m_loss)
        return badInput("bad-flag", "--task: " + m_params.pipeline + " has no loss for " + m_task.loss);
    if (auto failure = checkNumbers())
        return failure;
    if (auto failure = checkInputColumns())
        return failure;
    m_pipeline = describePipeline(*m_declaration, m_task.loss);
    m_graph = std::make_unique<PipelineGraph>(m_pipeline);
    if (auto failure = checkTrainedModels())
        return failure;
    if (auto failure = computeStageSplit())
        return failure;
    if (auto failure = resolveModelFiles())
        return failure;
    // The count also fixes the order of reductions, so equal counts give equal bits.
    m_threads = applyComputeThreads(m_params.numThreads);
    return std::nullopt;
}

Trainer::Failure Trainer::badInput(const std::string &code, const std::string &message)
{
    return Failure{kTrainBadInput, code, message};
}

std::optional<Trainer::Failure> Trainer::checkNumbers() const
{
    // Numbers the command line checks too; the API gets the same messages.
    struct Range {
        const char *flag;
        long long value;
        long long minimum;
    };
    for (const Range &r : {Range{"num_epochs", m_params.numEpochs, 1}, Range{"dataset_repeat", m_params.datasetRepeat, 1},
             Range{"lora_rank", m_params.loraRank, 1}, Range{"dataset_num_workers", m_params.datasetNumWorkers, 0},
             Range{"save_steps", m_params.saveSteps, 0}, Range{"num_threads", m_params.numThreads, 0},
             Range{"cache_shard_size", m_params.cacheShardSize, 1}, Range{"num_inference_steps", m_params.numInferenceSteps, 1},
             Range{"max_steps", m_params.maxSteps, 0}, Range{"max_pixels", m_params.maxPixels, 0},
             Range{"height", m_params.height, 0}, Range{"width", m_params.width, 0},
             Range{"gradient_accumulation_steps", m_params.gradientAccumulationSteps, 1}}) {
        if (r.value < r.minimum)
            return badInput("bad-flag", std::string("--") + r.flag + " must be at least " + std::to_string(r.minimum)
                + " (got " + std::to_string(r.value) + ")");
    }
    if (!(m_params.learningRate > 0) || !std::isfinite(m_params.learningRate))
        return badInput("bad-flag", "--learning_rate must be a finite positive number (got " + std::to_string(m_params.learningRate) + ")");
    if (!(m_params.weightDecay >= 0) || !std::isfinite(m_params.weightDecay))
        return badInput("bad-flag", "--weight_decay must be a finite non-negative number (got " + std::to_string(m_params.weightDecay) + ")");
    if (!(m_params.checkpointInterval >= 0) || !std::isfinite(m_params.checkpointInterval))
        return badInput("bad-flag", "--checkpoint_interval must be a finite number of seconds, 0 or more (got "
            + std::to_string(m_params.checkpointInterval) + ")");
    if (m_params.distBackend == "nccl")
        return badInput("bad-flag", "--dist_backend nccl needs a LibTorch built with CUDA, and this one (Debian's "
                                    "libtorch 1.13) runs on the CPU only: use gloo");
    if (m_params.distBackend != "gloo")
        return badInput("bad-flag", "--dist_backend: '" + m_params.distBackend + "' is not gloo or nccl");
    if (!(m_params.distTimeout > 0) || !std::isfinite(m_params.distTimeout) || m_params.distTimeout > 1e7)
        return badInput("bad-flag", "--dist_timeout must be a number of seconds from more than 0 to 10000000 (got "
            + std::to_string(m_params.distTimeout) + ")");
    if ((m_params.height > 0) != (m_params.width > 0))
        return badInput("bad-flag", "--height and --width go together (or neither, to use --max_pixels)");
    // Explicit sizes are used as given (as DiffSynth's dataset does); the pipeline's
    // ShapeChecker would round them down to this factor, and the latents of the image
    // would no longer match the noise.
    const int division = DatasetOptions{}.divisionFactor;
    for (const auto &[flag, value] : {std::pair{"height", m_params.height}, std::pair{"width", m_params.width}}) {
        if (value > 0 && value % division != 0) {
            return badInput("bad-flag", std::string("--") + flag + ": " + std::to_string(value) + " is not a multiple of "
                + std::to_string(division) + " (" + m_declaration->name + " trains at sides that are multiples of "
                + std::to_string(division) + "; --max_pixels without --height/--width rounds each image down itself)");
        }
    }
    if (m_params.outputPath.empty())
        return badInput("bad-flag", "--output_path is required");
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::checkInputColumns() const
{
    // A column the pipeline reads as an image must be loaded as a file (DiffSynth's
    // --data_file_keys), or the path in it reaches the units as text and the run
    // fails at its first step (after stage one has cached the text). Stage two reads
    // the cache, not the columns.
    if (m_task.stage == Stage::Train)
        return std::nullopt;
    const auto &fileKeys = m_params.dataFileKeys;
    // The columns the pipeline gets: --extra_inputs, and prompt (always read, as
    // text). A --data_file_keys column is checked too: listing a text column there
    // would make every row's text a file name that is never found.
    std::vector<std::string> columns = m_params.extraInputs;
    for (const auto &key : fileKeys) {
        if (key != "image" && std::find(columns.begin(), columns.end(), key) == columns.end())
            columns.push_back(key);
    }
    for (const auto &key : columns) {
        const auto spec = m_declaration->params.find(key);
        if (spec == m_declaration->params.end())
            continue;
        const bool isFile = key == "image" || std::find(fileKeys.begin(), fileKeys.end(), key) != fileKeys.end();
        if (spec->second.kind == "image" && !isFile) {
            std::vector<std::string> wanted = fileKeys;
            wanted.push_back(key);
            return badInput("bad-flag", "--extra_inputs " + key + ": " + m_declaration->name + " reads " + key
                + " as an image, but --data_file_keys (" + commaJoined(fileKeys) + ") does not list it, so the file name "
                "in its metadata.csv column would reach the pipeline as text: give --data_file_keys " + commaJoined(wanted));
        }
        if (spec->second.kind != "image" && isFile) {
            return badInput("bad-flag", "--data_file_keys " + commaJoined(fileKeys) + ": " + m_declaration->name + " reads the '"
                + key + "' column as " + spec->second.kind + ", not as an image file (its cells are not file names): "
                "leave " + key + " out of --data_file_keys");
        }
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::checkTrainedModels()
{
    m_modelsRequiringBackward = m_params.training.modelsRequiringBackward();
    for (const auto &model : m_modelsRequiringBackward) {
        if (std::find(m_declaration->models.begin(), m_declaration->models.end(), model) == m_declaration->models.end()) {
            const std::string flag = model == m_params.training.loraBase ? "--lora_base_model" : "--trainable_models";
            return badInput("bad-flag", flag + ": '" + model + "' is not a model of " + m_declaration->name + " (models: "
                + joinNames(m_declaration->models) + ")");
        }
    }
    if (m_params.training.loraBase && splitCommaList(m_params.loraTargetModules).empty() && m_task.stage != Stage::DataProcess)
        return badInput("bad-flag", "--lora_target_modules is required with --lora_base_model (e.g. \"to_q,to_k,to_v\")");
    if (m_modelsRequiringBackward.empty() && m_task.stage != Stage::DataProcess)
        return badInput("bad-flag", "nothing to train: give --lora_base_model and/or --trainable_models");
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::computeStageSplit()
{
    // The split comes from the core: the same code that `splitscope-cli split` shows.
    const std::size_t unitCount = m_declaration->units.size();
    if (m_task.stage == Stage::OneStage) {
        m_split = Split{};
        m_split.trained.assign(unitCount, 1);
        for (std::size_t i = 0; i < unitCount; ++i)
            m_units.push_back(static_cast<int>(i));
    } else {
        m_split = computeSplit(*m_graph, m_modelsRequiringBackward, m_params.training.mode);
        m_verification = verifySplit(*m_graph, m_split);
        if (!m_verification.hazards.empty()) {
            std::string list;
            for (const Hazard &h : m_verification.hazards) {
                list += "\n  " + std::string(hazardKindName(h.kind)) + ": " + m_graph->unitName(h.reader) + " reads "
                    + m_graph->paramName(h.param) + "; one-stage training gives it the value of "
                    + producerName(*m_graph, h.expected) + ", two-stage training that of " + producerName(*m_graph, h.actual);
            }
            const std::string what = std::string("the ") + splitModeName(m_params.training.mode) + " split for "
                + m_params.training.modelsLabel() + " has " + countText(m_verification.hazards.size(), "hazard")
                + ": two-stage training would not equal one-stage training" + list;
            if (!m_params.allowHazards) {
                return Failure{kTrainHazards, "hazards",
                    what + "\nuse --split_mode safe (the safe split has no hazards), or force this split with --allow_hazards"};
            }
            m_pendingWarnings.emplace_back("hazards-allowed", what + "\n(forced with --allow_hazards)");
        }
        for (const UnitId unit : m_verification.frozenRandomness) {
            m_pendingWarnings.emplace_back("frozen-randomness", m_graph->unitName(unit)
                + " draws random numbers and runs in stage one: its draw is cached once per sample. (Here it draws "
                  "from the per-sample `seed` input, so one-stage training draws the same numbers.)");
        }
        const auto units = m_task.stage == Stage::DataProcess ? m_split.v2() : m_split.v1();
        for (const UnitId u : units)
            m_units.push_back(u);
        for (const CacheEntry &entry : computeCacheSet(*m_graph, m_split.trained))
            m_cacheSet.push_back(m_graph->paramName(entry.param));
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::resolveModelFiles()
{
    std::string error;
    // Models: resolved against the root now, loaded only when a unit calls them.
    if (m_params.modelIdWithOriginPaths.empty())
        return badInput("model", "--model_id_with_origin_paths is required (e.g. \"Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,...\")");
    std::vector<ModelPathSpec> specs;
    if (!parseModelPathSpecs(m_params.modelIdWithOriginPaths, "model_id_with_origin_paths", specs, &error))
        return badInput("bad-flag", error);
    if (!resolveModels(resolveModelRoot(m_params.modelRoot), specs, m_models, &error))
        return badInput("model", error);
    std::vector<ModelPathSpec> offloadSpecs;
    if (!parseModelPathSpecs(m_params.offloadModels, "offload_models", offloadSpecs, &error))
        return badInput("bad-flag", error);
    for (const auto &spec : offloadSpecs) {
        bool found = false;
        for (const auto &model : m_models) {
            if (model.spec.text == spec.text) {
                m_offloaded.insert(model.name);
                found = true;
            }
        }
        if (!found)
            return badInput("bad-flag", "--offload_models: '" + spec.text + "' is not one of --model_id_with_origin_paths");
    }
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::lockOutputFolder(bool create, bool shardFolders)
{
    const std::string &folder = m_params.outputPath;
    // The ranks of one run share its folder: rank 0 locks it for all of them (and
    // makes it, and cleans it), before a barrier lets the others write their shards.
    if (!writesRunFiles())
        return std::nullopt;
    if (!m_outputLock.held()) {
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec)) {
            if (std::filesystem::exists(folder, ec))
                return badInput("bad-flag", "--output_path '" + folder + "' is a file, not a folder");
            if (!create)
                return std::nullopt;
            // The first folder of the path that does not exist yet: what a refused run
            // removes again (removeUnusedOutputFolder).
            std::filesystem::path first = std::filesystem::absolute(folder, ec);
            while (first.has_parent_path() && first.parent_path() != first && !std::filesystem::exists(first.parent_path(), ec))
                first = first.parent_path();
            std::filesystem::create_directories(folder, ec);
            if (ec || !std::filesystem::is_directory(folder)) {
                const std::string why = ec ? ec.message() : "it is not a folder once made";
                return Failure{isDiskFailure(ec) ? kTrainFailed : kTrainBadInput, isDiskFailure(ec) ? "io" : "bad-flag",
                    "cannot create --output_path '" + folder + "': " + why};
            }
            m_createdOutputFolder = true;
            m_createdOutputRoot = first.string();
        }
        std::string error;
        bool busy = false;
        if (!m_outputLock.acquire(folder, &error, &busy)) {
            // A folder this user cannot write into is the path given, not a failure of the work.
            const bool given = busy || ::access(folder.c_str(), W_OK) != 0;
            return Failure{given ? kTrainBadInput : kTrainFailed, busy ? "folder-in-use" : given ? "bad-flag" : "io",
                "--output_path " + error};
        }
    }
    // Only a run that goes on changes the folder: one refused (a --resume that does not
    // match, a cache made differently) leaves it as it was.
    if (!create)
        return std::nullopt;
    if (const int removed = removeStaleTempFiles(folder, shardFolders); removed > 0) {
        m_events.log("removed " + countText(removed, "temporary file") + " that an interrupted run left in '" + folder
            + "'");
    }
    return std::nullopt;
}

void Trainer::removeUnusedOutputFolder()
{
    if (!m_createdOutputFolder)
        return;
    m_outputLock.release();
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path root = fs::path(m_createdOutputRoot);
    // Folder by folder up to the first this run made, each only while empty.
    fs::path folder = fs::absolute(m_params.outputPath, ec).lexically_normal();
    if (folder.filename().empty())
        folder = folder.parent_path(); // a trailing slash
    for (; !folder.empty(); folder = folder.parent_path()) {
        if (!fs::is_empty(folder, ec) || ec || !fs::remove(folder, ec) || folder == root.lexically_normal())
            break;
    }
    m_createdOutputFolder = false;
}

StepMemory Trainer::stepMemory() const
{
    auto has = [](const std::vector<std::string> &list, const char *name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    const bool training = m_task.stage != Stage::DataProcess;
    const std::vector<std::string> loaded = stageModels(m_units, training);
    StepMemory what;
    what.stageOneModels = has(loaded, "vae");
    what.textEncoderRuns = has(loaded, "text_encoder");
    what.trainsTextEncoder = training && has(m_modelsRequiringBackward, "text_encoder");
    // The loss runs the DiT, and the backward pass goes through it to whatever trains.
    what.trainsDit = training && has(loaded, "dit");
    const std::vector<std::string> trainedInFull = training ? m_params.training.trainable : std::vector<std::string>();
    for (const ResolvedModel &model : m_models) {
        if (model.kind == ModelKind::TextEncoder)
            parseTextEncoderConfig(model.configJson, model.configPath, what.textEncoder, nullptr);
        else if (model.kind == ModelKind::Vae)
            parseVaeConfig(model.configJson, model.configPath, what.vae, nullptr);
        else
            parseDitConfig(model.configJson, model.configPath, what.dit, nullptr);
        if (!has(loaded, model.name.c_str()))
            continue;
        what.modelBytes += model.fileBytes;
        if (has(trainedInFull, model.name.c_str()))
            what.fullyTrainedBytes += model.fileBytes;
    }
    return what;
}

std::optional<Trainer::Failure> Trainer::checkStepMemory(const StepSize &size, const std::string &source) const
{
    if (size.width <= 0 || size.height <= 0)
        return std::nullopt;
    const std::uint64_t needed = estimateStepBytes(stepMemory(), size);
    m_estimatedStepBytes = needed;
    // The threads the run will start: LibTorch's and OpenBLAS's compute threads beside
    // this one, the loader threads (stage two reads ahead on at least one), and one more.
    const int loaders = m_task.stage == Stage::Train ? std::max(1, m_params.datasetNumWorkers) : m_params.datasetNumWorkers;
    const auto limit = memoryLimit(2 * std::max(0, m_threads - 1) + loaders + 1);
    if (!limit || fitsInMemory(needed, limit->bytes))
        return std::nullopt;
    const std::uint64_t headroom = memoryHeadroom(limit->bytes);
    const bool edit = (size.editWidth > 0 && size.editHeight > 0) || (size.editLatentWidth > 0 && size.editLatentHeight > 0);
    const std::string smaller = m_task.stage == Stage::Train
        ? "make the cache at a smaller size (stage one's --height/--width, or --max_pixels without them)"
        : "train at a smaller size (--height/--width, or --max_pixels without them)";
    return Failure{kTrainBadInput, "memory", std::string(m_task.stage == Stage::DataProcess ? "a stage-one sample" : "a training step")
        + " at " + size.text() + " (" + source + ") needs about " + memoryText(needed) + " of memory by Splitscope's estimate, "
        "and Splitscope keeps " + memoryText(headroom) + " (10 %) spare of the " + memoryText(limit->bytes) + " that "
        + limit->what + " allows: " + smaller + (edit ? ", or with smaller edit images" : "")
        + ". Nothing was started"};
}

std::optional<Trainer::Failure> Trainer::checkDatasetStepMemory(const ImageDataset &dataset) const
{
    StepSize size;
    std::tie(size.width, size.height) = dataset.largestTrainingSize();
    std::string source = trainingSizeSource();
    // The edit image reaches the text encoder as stored and the VAE resized to the
    // training size (edit_image_auto_resize is on).
    std::tie(size.editWidth, size.editHeight) = dataset.largestStoredSize("edit_image");
    if (size.editWidth > 0 && size.editHeight > 0) {
        size.editLatentWidth = size.width;
        size.editLatentHeight = size.height;
        source += ", and the largest edit image as stored";
    }
    return checkStepMemory(size, source);
}

std::string Trainer::trainingSizeSource() const
{
    if (m_params.height > 0 && m_params.width > 0)
        return "--height " + std::to_string(m_params.height) + " --width " + std::to_string(m_params.width);
    return "the largest image, fitted to --max_pixels " + std::to_string(m_params.maxPixels);
}

std::vector<std::string> Trainer::stageModels(const std::vector<int> &units, bool withLoss) const
{
    std::vector<std::string> models;
    auto add = [&](const std::vector<std::string> &list) {
        for (const auto &m : list) {
            if (std::find(models.begin(), models.end(), m) == models.end())
                models.push_back(m);
        }
    };
    for (const int u : units)
        add(m_declaration->units[static_cast<std::size_t>(u)].models);
    if (withLoss)
        add(m_loss->models);
    return models;
}

std::optional<Trainer::Failure> Trainer::openDataset(ImageDataset &dataset) const
{
    DatasetOptions options;
    options.basePath = m_params.datasetBasePath;
    options.metadataPath = m_params.datasetMetadataPath;
    options.maxPixels = m_params.maxPixels;
    options.height = m_params.height;
    options.width = m_params.width;
    options.dataFileKeys = m_params.dataFileKeys;
    options.extraInputs = m_params.extraInputs;
    std::string error;
    if (!dataset.open(options, &error))
        return Failure{kTrainBadInput, "dataset", error};
    return std::nullopt;
}

ValueMap Trainer::pipelineInputs(const DatasetSample &sample) const
{
    ValueMap values;
    values["input_image"] = Value::ofImage(sample.image);
    values["height"] = Value::ofInt(sample.image.height);
    values["width"] = Value::ofInt(sample.image.width);
    values["prompt"] = Value::ofText(sample.prompt);
    // The per-sample seed NoiseInitializer draws from; it belongs to the row, not to
    // an epoch (what stage one caches, one-stage training draws alike).
    const std::uint64_t seed = deriveSeed(m_params.seed, kDataEpoch, sample.row, RandomPurpose::SampleSeed) >> 1;
    values["seed"] = Value::ofInt(static_cast<std::int64_t>(seed));
    // DiffSynth's edit training sets edit_image_auto_resize on.
    values["edit_image_auto_resize"] = Value::ofBool(true);
    values["num_inference_steps"] = Value::ofInt(m_params.numInferenceSteps);
    for (const auto &[key, image] : sample.images)
        values[key] = Value::ofImage(image);
    for (const auto &[key, text] : sample.texts)
        values[key] = Value::ofText(text);
    return values;
}

std::vector<Trainer::IgnoredFlag> Trainer::ignoredFlags() const
{
    const TrainParams defaults;
    const TrainParams &p = m_params;
    std::vector<IgnoredFlag> flags;
    auto add = [&](const char *name, const std::string &value, bool given) { flags.push_back({name, value, given}); };
    auto number = [&](const char *name, long long value, long long defaultValue) {
        add(name, std::to_string(value), value != defaultValue);
    };
    if (m_task.stage == Stage::Train) {
        add("dataset_metadata_path", p.datasetMetadataPath, p.datasetMetadataPath != defaults.datasetMetadataPath);
        number("max_pixels", p.maxPixels, defaults.maxPixels);
        number("height", p.height, defaults.height);
        number("width", p.width, defaults.width);
        add("data_file_keys", commaJoined(p.dataFileKeys), p.dataFileKeys != defaults.dataFileKeys);
        add("extra_inputs", commaJoined(p.extraInputs), p.extraInputs != defaults.extraInputs);
        add("cache_all_params", "", p.cacheAllParams);
        number("cache_shard_size", p.cacheShardSize, defaults.cacheShardSize);
        number("num_inference_steps", p.numInferenceSteps, defaults.numInferenceSteps);
    } else if (m_task.stage == Stage::DataProcess) {
        // Stage one trains nothing: it runs the stage-one units once per sample. It
        // reads --trainable_models and --lora_base_model for the split, and --seed for
        // the per-sample seeds; what only training reads is ignored.
        auto real = [&](const char *name, double value, double defaultValue) {
            std::ostringstream text;
            text << value;
            add(name, text.str(), value != defaultValue);
        };
        number("dataset_repeat", p.datasetRepeat, defaults.datasetRepeat);
        real("learning_rate", p.learningRate, defaults.learningRate);
        real("weight_decay", p.weightDecay, defaults.weightDecay);
        number("num_epochs", p.numEpochs, defaults.numEpochs);
        add("remove_prefix_in_ckpt", p.removePrefixInCkpt, p.removePrefixInCkpt != defaults.removePrefixInCkpt);
        add("lora_target_modules", p.loraTargetModules, p.loraTargetModules != defaults.loraTargetModules);
        number("lora_rank", p.loraRank, defaults.loraRank);
        add("lora_checkpoint", p.loraCheckpoint, p.loraCheckpoint != defaults.loraCheckpoint);
        add("use_gradient_checkpointing", "", p.useGradientCheckpointing);
        number("save_steps", p.saveSteps, defaults.saveSteps);
        number("max_steps", p.maxSteps, defaults.maxSteps);
        number("gradient_accumulation_steps", p.gradientAccumulationSteps, defaults.gradientAccumulationSteps);
        add("resume", "", p.resume);
        real("checkpoint_interval", p.checkpointInterval, defaults.checkpointInterval);
    } else if (m_task.stage == Stage::OneStage) {
        add("split_mode", splitModeName(p.training.mode), p.training.mode != defaults.training.mode);
        add("allow_hazards", "", p.allowHazards);
        add("cache_all_params", "", p.cacheAllParams);
        number("cache_shard_size", p.cacheShardSize, defaults.cacheShardSize);
    }
    // --height/--width give every image its size: --max_pixels (DiffSynth's too) is
    // then not used.
    if (m_task.stage != Stage::Train && p.height > 0 && p.width > 0)
        number("max_pixels", p.maxPixels, defaults.maxPixels);
    return flags;
}

std::string Trainer::settingsJson() const
{
    nlohmann::ordered_json doc;
    const TrainParams &p = m_params;
    doc["task"] = p.task;
    doc["pipeline"] = p.pipeline;
    doc["dataset_base_path"] = p.datasetBasePath;
    doc["dataset_metadata_path"] = p.datasetMetadataPath;
    doc["max_pixels"] = p.maxPixels;
    doc["height"] = p.height;
    doc["width"] = p.width;
    doc["dataset_repeat"] = p.datasetRepeat;
    doc["data_file_keys"] = p.dataFileKeys;
    doc["extra_inputs"] = p.extraInputs;
    doc["model_root"] = resolveModelRoot(p.modelRoot);
    doc["model_id_with_origin_paths"] = p.modelIdWithOriginPaths;
    doc["offload_models"] = p.offloadModels;
    doc["tokenizer_path"] = p.tokenizerPath;
    doc["learning_rate"] = p.learningRate;
    doc["weight_decay"] = p.weightDecay;
    doc["num_epochs"] = p.numEpochs;
    doc["output_path"] = p.outputPath;
    doc["remove_prefix_in_ckpt"] = p.removePrefixInCkpt;
    doc["trainable_models"] = p.training.trainableModelsFlag();
    doc["lora_base_model"] = p.training.loraBaseModelFlag();
    doc["lora_target_modules"] = p.loraTargetModules;
    doc["lora_rank"] = p.loraRank;
    doc["lora_checkpoint"] = p.loraCheckpoint;
    doc["use_gradient_checkpointing"] = p.useGradientCheckpointing;
    doc["dataset_num_workers"] = p.datasetNumWorkers;
    doc["find_unused_parameters"] = p.findUnusedParameters;
    doc["save_steps"] = p.saveSteps;
    doc["seed"] = p.seed;
    doc["num_threads"] = m_threads;
    doc["num_inference_steps"] = p.numInferenceSteps;
    doc["max_steps"] = p.maxSteps;
    doc["split_mode"] = splitModeName(p.training.mode);
    doc["allow_hazards"] = p.allowHazards;
    doc["cache_all_params"] = p.cacheAllParams;
    doc["cache_shard_size"] = p.cacheShardSize;
    // (Training runs leave it out: their resume state compares these settings, and a
    // resumed run differs from the first only in it.)
    if (m_task.stage == Stage::DataProcess)
        doc["resume"] = p.resume;
    doc["checkpoint_interval"] = p.checkpointInterval;
    doc["gradient_accumulation_steps"] = p.gradientAccumulationSteps;
    // Not a flag but the launch: a resumed run must have as many ranks (each optimizer
    // step takes one sample per rank, so another count trains another thing).
    doc["world_size"] = worldSize();
    // The file says what the run used: a flag this stage ignores is not among the
    // flags (a script that reads them back as DiffSynth's arguments would take it for
    // one that mattered), and the ones given anyway are kept apart.
    nlohmann::ordered_json ignored = nlohmann::ordered_json::object();
    for (const IgnoredFlag &flag : ignoredFlags()) {
        if (flag.given)
            ignored[flag.name] = doc[flag.name];
        doc.erase(flag.name);
    }
    if (!ignored.empty())
        doc["ignored"] = ignored;
    return dumpJson(doc, 2) + "\n";
}

void Trainer::emitStart(const std::string &stage)
{
    std::vector<std::string> one;
    std::vector<std::string> two;
    for (std::size_t i = 0; i < m_declaration->units.size(); ++i)
        (m_split.trained[i] ? two : one).push_back(m_declaration->units[i].name);
    Event e(events::kStart);
    e.set("task", m_params.task)
        .set("pipeline", m_declaration->name)
        .set("stage", stage)
        .set("split_mode", m_task.stage == Stage::OneStage ? std::string("none") : std::string(splitModeName(m_params.training.mode)))
        .setRaw("models_require_backward", jsonStringArray(m_modelsRequiringBackward))
        .setRaw("stage_one_units", jsonStringArray(one))
        .setRaw("stage_two_units", jsonStringArray(two))
        .setRaw("cache_set", jsonStringArray(m_cacheSet))
        .set("output_path", m_params.outputPath)
        .set("num_threads", m_threads)
        .set("world_size", worldSize())
        .set("pid", static_cast<std::int64_t>(::getpid()))
        .set("seed", static_cast<std::uint64_t>(m_params.seed))
        .set("resumed", m_params.resume);
    std::string text = m_params.task + " (" + stage + ") with " + countText(m_threads, "thread");
    if (m_group)
        text += " in each of " + countText(static_cast<std::size_t>(worldSize()), "rank");
    if (m_task.stage != Stage::OneStage)
        text += "; stage one: [" + joinNames(one) + "], stage two: [" + joinNames(two) + "]";
    m_events.emit(e.text(text));
    for (const auto &[code, message] : m_pendingWarnings)
        m_events.warning(code, message);
    m_pendingWarnings.clear();
}

void Trainer::emitMemory(const ModelSet &models, std::uint64_t cacheWritten, std::uint64_t cacheRead)
{
    std::string bytes = "{";
    std::vector<std::string> names;
    for (const auto &[name, size] : models.loadedBytes()) {
        bytes += (bytes.size() > 1 ? "," : "") + jsonQuote(name) + ":" + std::to_string(size);
        names.push_back(name);
    }
    Event e(events::kMemory);
    e.set("rss_bytes", currentRssBytes())
        .set("peak_rss_bytes", peakRssBytes())
        .set("estimated_step_bytes", m_estimatedStepBytes)
        .setRaw("model_bytes", bytes + "}")
        .setRaw("materialized", jsonStringArray(names))
        .set("cache_bytes_written", cacheWritten)
        .set("cache_bytes_read", cacheRead);
    m_events.emit(e);
}

TrainResult Trainer::run()
{
    if (auto failure = prepare())
        return fail(*failure);
    // A stop asked for while the flags were read (a Cancel right after the launch):
    // nothing has been touched yet. Ranks agree on it once they have met, so that none
    // is left waiting for one that left.
    bool cancelled = false;
    if (m_params.distributed.distributed()) {
        if (auto failure = joinProcessGroup())
            return fail(*failure);
        if (auto failure = agreeOnStart(cancelled))
            return fail(*failure);
    } else {
        cancelled = aborted();
    }
    if (cancelled) {
        TrainResult result;
        result.status = kTrainCancelled;
        result.message = "cancelled before any work: nothing was changed";
        m_events.log(result.message);
        return result;
    }
    switch (m_task.stage) {
    case Stage::DataProcess:
        return runDataProcess();
    case Stage::OneStage:
    case Stage::Train:
        return runTraining();
    }
    return {};
}

std::optional<Trainer::Failure> Trainer::joinProcessGroup()
{
    const DistributedEnvironment &env = m_params.distributed;
    if (!env.distributed())
        return std::nullopt;
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(m_params.distTimeout * 1000));
    try {
        m_group = std::make_unique<ProcessGroup>(env, timeout);
    } catch (const DistributedError &e) {
        return Failure{kTrainFailed, "distributed", e.what()};
    }
    m_events.setRank(env.rank);
    const std::string where = env.storeFile.empty() ? env.masterAddr + ":" + std::to_string(env.masterPort) : env.storeFile;
    m_events.log(env.describe() + ": joined the process group (" + m_params.distBackend + ", rendezvous at " + where + ")");
    return std::nullopt;
}

std::optional<Trainer::Failure> Trainer::agreeOnStart(bool &cancelled)
{
    if (!m_group)
        return std::nullopt;
    // The flags, as training_args.json has them, but the thread count (machines may
    // differ in cores).
    nlohmann::ordered_json settings = nlohmann::ordered_json::parse(settingsJson());
    settings.erase("num_threads");
    const std::string flags = settings.dump();
    return agreeAcrossRanks("start", {{"flags", hashToHex(hashBytes(flags.data(), flags.size()))}}, aborted(), &cancelled);
}

std::optional<Trainer::Failure> Trainer::agreeAcrossRanks(const std::string &name,
    const std::vector<std::pair<std::string, std::string>> &facts, bool stopHere, bool *stopAnywhere)
{
    nlohmann::json mine = {{"facts", nlohmann::json::object()}};
    for (const auto &[what, value] : facts)
        mine["facts"][what] = value;
    mine["stop"] = stopHere;
    std::vector<nlohmann::json> parts;
    try {
        const std::optional<std::vector<std::string>> texts
            = m_group->gather(name, mine.dump(), nullptr, "comparing what the ranks start from");
        for (const std::string &part : texts.value())
            parts.push_back(nlohmann::json::parse(part));
    } catch (const DistributedError &e) {
        return Failure{kTrainFailed, "distributed", e.what()};
    }
    for (std::size_t r = 0; r < parts.size(); ++r) {
        if (stopAnywhere)
            *stopAnywhere = *stopAnywhere || parts[r].value("stop", false);
        for (const auto &[what, value] : facts) {
            const std::string theirs = parts[r]["facts"].value(what, "");
            if (const std::string first = parts[0]["facts"].value(what, ""); theirs != first) {
                return Failure{kTrainBadInput, "ranks-differ", "rank " + std::to_string(r) + " starts from other " + what
                    + " than rank 0 (" + theirs + " against " + first + "): every rank must be given the same flags, data "
                    "and weights (on each node the same command, with its own --node_rank)"};
            }
        }
    }
    return std::nullopt;
}

int Trainer::rank() const
{
    return m_group ? m_group->rank() : 0;
}

int Trainer::worldSize() const
{
    return m_group ? m_group->size() : 1;
}

TrainResult train(const TrainParams &params, const TrainCallbacks &callbacks)
{
    EventSink events(callbacks.onEvent);
    TrainResult result;
    Trainer trainer(params, callbacks, events);
    auto reportFailure = [&](const std::string &code, const std::string &message) {
        result = TrainResult{};
        result.status = kTrainFailed;
        result.message = message;
        events.emit(Event(events::kError).set("code", code).set("message", message).text("error: " + message));
    };
    try {
        result = trainer.run();
    } catch (const EngineInputError &e) {
        result = TrainResult{};
        result.status = kTrainBadInput;
        result.message = e.what();
        events.emit(Event(events::kError).set("code", "bad-input").set("message", e.what()).text(std::string("error: ") + e.what()));
    } catch (const EngineError &e) {
        reportFailure("engine", e.what());
    } catch (const DistributedError &e) {
        reportFailure("distributed", e.what());
    } catch (const c10::Error &e) {
        // LibTorch's messages carry a backtrace after the first line; people need the line.
        const std::string what = e.what_without_backtrace();
        reportFailure("torch", "LibTorch: " + what.substr(0, what.find('\n')));
    } catch (const std::exception &e) {
        reportFailure("internal", e.what());
    }
    // A run that trained nothing leaves no folder it made behind.
    if (result.status != kTrainOk)
        trainer.removeUnusedOutputFolder();
    result.wallSeconds = events.elapsed();
    result.peakRssBytes = peakRssBytes();
    std::string outputs = "{";
    for (const auto &[name, path] : result.outputs)
        outputs += (outputs.size() > 1 ? "," : "") + jsonQuote(name) + ":" + jsonQuote(path);
    Event done(events::kDone);
    done.set("ok", result.status == kTrainOk)
        .set("cancelled", result.status == kTrainCancelled)
        .set("exit_status", result.status)
        .set("wall_s", result.wallSeconds)
        .set("steps", result.steps)
        .set("samples", result.samples)
        .set("final_loss", result.finalLoss)
        .set("peak_rss_bytes", result.peakRssBytes)
        .set("cpu_s", processCpuSeconds())
        .set("read_wait_s", result.readWaitSeconds)
        .set("cache_read_s", result.cacheReadSeconds)
        .set("all_reduce_s", result.collectiveSeconds)
        .setRaw("outputs", outputs + "}");
    const char *verdict = result.status == kTrainOk ? "done" : result.status == kTrainCancelled ? "cancelled" : "failed";
    events.emit(done.text(std::string(verdict) + " in " + std::to_string(static_cast<int>(result.wallSeconds)) + " s"));
    return result;
}

} // namespace splitscope::engine
