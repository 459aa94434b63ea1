// SPDX-License-Identifier: MIT
// splitscope-cli describe / train / init-models / make-dataset / sample.
#include "EngineCommands.h"

#include "ArgParser.h"
#include "Launcher.h"
#include "StandardStreams.h"

#include "core/AtomicFile.h"
#include "core/engine/Engine.h"
#include "core/engine/ModelFiles.h"
#include "core/engine/SyntheticDataset.h"
#include "core/engine/TinyQwenImage.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <unistd.h>

namespace splitscope::cli {

namespace {

namespace engine = splitscope::engine;

// Set by SIGINT/SIGTERM/SIGHUP and by a broken pipe; the trainer polls it between
// samples and steps.
std::atomic<bool> g_stopRequested{false};
// Set by the first SIGINT/SIGTERM/SIGHUP: a second one stops at once (a broken pipe,
// which no one sent on purpose, does not count as the first).
std::atomic<bool> g_stopSignalled{false};

void onStopSignal(int signal)
{
    g_stopRequested = true;
    if (g_stopSignalled.exchange(true)) {
        // A second signal: stop now, the default way.
        std::signal(signal, SIG_DFL);
        std::raise(signal);
        return;
    }
    static const char kMessage[] = "\nsplitscope-cli: stopping after the current step (again to stop at once)\n";
    const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)ignored;
}

// SIGPIPE (standard output or error is a pipe whose reader has gone: `train ... | head`)
// stops the run as SIGTERM does (finish the sample or step, keep it, exit 4) instead
// of killing it with its lock and an unfinished manifest left behind. Every write to
// the pipe raises one, so a second is no reason to stop at once; the write that raised
// it fails with EPIPE, and the stream is then silenced (see below).
void onBrokenPipe(int)
{
    g_stopRequested = true;
}

// After a write to `stream` that failed with EPIPE, its descriptor becomes /dev/null:
// the rest of the run writes there without error (its `done` event too, and the final
// flush that would otherwise turn exit status 4 into 1). True when it was silenced.
bool silenceBrokenStream(std::FILE *stream, bool failed, int error)
{
    if (!failed || error != EPIPE)
        return false;
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, ::fileno(stream));
        ::close(null);
    }
    std::clearerr(stream);
    return true;
}

// ArgParser's error, with a "did you mean" for a misspelt flag.
std::string parseError(const ArgParser &parser, const std::vector<std::string> &flags)
{
    std::string message = parser.error();
    const std::string prefix = "unknown flag --";
    if (message.compare(0, prefix.size(), prefix) == 0) {
        const std::string hint = suggestName(message.substr(prefix.size()), flags);
        if (!hint.empty())
            message += " (did you mean --" + hint + "?)";
    }
    return message;
}

// LibTorch's OpenMP threads spin while they wait for work. On a machine whose cores
// are busy with other processes (CI, a shared workstation) that made a two-thread
// training step 10-30x slower here; waiting passively costs little on an idle
// machine. libgomp reads OMP_WAIT_POLICY when it is loaded, before main(), so the
// only way to set it is to start this program again with it set. An explicit
// value in the environment is respected.
void ensurePassiveOpenMpWaits(const char *command, const Args &args)
{
    if (std::getenv("OMP_WAIT_POLICY"))
        return;
    // One thread never waits on another.
    const auto threads = std::find(args.begin(), args.end(), "--num_threads");
    if ((threads != args.end() && threads + 1 != args.end() && threads[1] == "1")
        || std::find(args.begin(), args.end(), "--num_threads=1") != args.end())
        return;
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    std::vector<char *> argv;
    std::string program = "splitscope-cli";
    argv.push_back(program.data());
    std::string name = command;
    argv.push_back(name.data());
    std::vector<std::string> copies(args.begin(), args.end());
    for (auto &a : copies)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    ::execv("/proc/self/exe", argv.data());
    // Not fatal: training runs, only slower under contention.
}

// An integer flag with its range and where its value goes.
struct IntFlag {
    const char *name;
    long long minimum;
    long long maximum;
    std::function<void(long long)> store;
};

// Parses the flags that are present; false with the parser's error naming the flag.
bool readIntFlags(ArgParser &parser, const std::vector<IntFlag> &flags)
{
    for (const IntFlag &f : flags) {
        long long value = 0;
        if (!parser.has(f.name))
            continue;
        if (!parser.intValue(f.name, value, f.minimum, f.maximum))
            return false;
        f.store(value);
    }
    return true;
}

// Stores into an int field.
std::function<void(long long)> into(int &target)
{
    return [&target](long long v) { target = static_cast<int>(v); };
}

std::function<void(long long)> intoSeed(std::uint64_t &target)
{
    return [&target](long long v) { target = static_cast<std::uint64_t>(v); };
}

// The first of the path flags `flags` given an empty value ("" when none): an empty
// path would quietly mean the flag's default, or the current folder, which no one
// typing `--root ""` (an unset variable, most likely) meant.
std::string emptyPathFlag(const ArgParser &parser, std::initializer_list<const char *> flags)
{
    for (const char *flag : flags) {
        if (const auto value = parser.value(flag); value && value->empty())
            return flag;
    }
    return {};
}

bool wantsHelp(const Args &args)
{
    return std::find(args.begin(), args.end(), "--help") != args.end();
}

std::vector<std::string> commaList(const std::string &text)
{
    return splitCommaList(text);
}

} // namespace

int runDescribe(const Args &args)
{
    ArgParser p;
    p.positional("PIPELINE", "a built-in executable pipeline (default tiny-qwen-image)", false);
    p.option("task", "sft|direct_distill", "which loss the description carries (default sft; a train --task such as sft:train names its loss too)");
    p.option("output", "FILE", "write to FILE (atomically) instead of standard output");
    p.flag("help", "show this help");
    if (wantsHelp(args)) {
        std::printf("%s", p.usage("splitscope-cli describe").c_str());
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("describe", parseError(p, {"task", "output", "help"}));
    const std::string name = p.positionals().empty() ? std::string("tiny-qwen-image") : p.positionals().front();
    std::string task = p.valueOr("task", "sft");
    if (task.find(':') != std::string::npos)
        task = task.substr(0, task.find(':'));
    if (!engine::findPipelineDeclaration(name)) {
        std::string names;
        for (const auto &n : engine::builtinPipelineNames())
            names += (names.empty() ? "" : ", ") + n;
        return p.usageError("describe", "no built-in executable pipeline '" + name + "' (built-in: " + names + ")");
    }
    const std::string json = engine::builtinPipelineJson(name, task);
    if (json.empty())
        return p.usageError("describe", "--task: '" + task + "' is not sft or direct_distill");
    if (const auto output = p.value("output")) {
        if (output->empty())
            return p.usageError("describe", "--output: empty file name");
        std::string error;
        if (!writeFileAtomically(*output, json, &error)) {
            std::fprintf(stderr, "splitscope-cli describe: --output: %s\n", error.c_str());
            return kExitFailure;
        }
        return kExitOk;
    }
    // On standard output with a final newline, as `examples NAME` prints; the file
    // written by --output is the description itself, byte for byte.
    std::fwrite(json.data(), 1, json.size(), stdout);
    if (json.back() != '\n')
        std::fputc('\n', stdout);
    return kExitOk;
}

namespace {

// DiffSynth's train.py flags, and Splitscope's own.
void declareTrainFlags(ArgParser &p)
{
    // DiffSynth's train.py flags.
    p.option("task", "TASK", "sft, sft:data_process, sft:train, direct_distill, direct_distill:data_process, direct_distill:train (default sft)");
    p.option("dataset_base_path", "DIR", "the dataset folder; in stage two (*:train) the cache folder stage one wrote");
    p.option("dataset_metadata_path", "CSV", "metadata.csv with image,prompt columns (default: DIR/metadata.csv)");
    p.option("max_pixels", "N", "images larger than this are scaled down (default 1048576; not used with --height/--width)");
    p.option("height", "H", "train at this height (with --width; a size whose step would not fit in memory is refused); "
                            "default from each image and --max_pixels");
    p.option("width", "W", "train at this width (with --height)");
    p.option("dataset_repeat", "N", "passes over the dataset per epoch (default 1)");
    p.option("data_file_keys", "K1,K2", "metadata columns that are image files (default image)");
    p.option("extra_inputs", "K1,K2", "metadata columns passed to the pipeline, e.g. edit_image");
    p.option("model_id_with_origin_paths", "ID:GLOB,...", "the models, e.g. \"Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,...\"");
    p.option("offload_models", "ID:GLOB,...", "models this stage does not run (never loaded unless a unit of the stage calls them)");
    p.option("model_root", "DIR", "where model ids are folders (default $SPLITSCOPE_MODEL_ROOT, else ./models)");
    p.option("tokenizer_path", "FILE", "the tokenizer (default: tokenizer/vocab.json beside the text encoder's folder)");
    p.option("learning_rate", "LR", "AdamW learning rate (default 1e-4)");
    p.option("weight_decay", "WD", "AdamW weight decay (default 0.01)");
    p.option("num_epochs", "N", "epochs (default 1)");
    p.option("output_path", "DIR", "checkpoints, loss.csv, training_args.json; in stage one the cache (default ./models/train)");
    p.option("remove_prefix_in_ckpt", "PREFIX", "cut this from checkpoint keys, e.g. \"pipe.dit.\"");
    p.option("trainable_models", "M1,M2", "models trained in full (text_encoder, dit, vae)");
    p.option("lora_base_model", "MODEL", "model trained with LoRA (e.g. dit)");
    p.option("lora_target_modules", "M1,M2", "modules that get LoRA, by name suffix (e.g. \"to_q,to_k,to_v,...\")");
    p.option("lora_rank", "R", "LoRA rank (default 32)");
    p.option("lora_checkpoint", "FILE", "LoRA weights to start from");
    p.flag("use_gradient_checkpointing", "recompute DiT block activations in the backward pass (less memory)");
    p.option("dataset_num_workers", "N", "loader threads (0: load on the computing thread; stage two reads ahead on at least 1); results do not depend on it");
    p.flag("find_unused_parameters", "accepted for DiffSynth compatibility (a gradient no rank has stays unset)");
    p.option("gradient_accumulation_steps", "N", "samples per rank whose gradients make one optimizer step (default 1)");
    p.option("save_steps", "N", "a checkpoint every N steps instead of every epoch");
    p.option("seed", "N", "seed of every random draw (default 0)");
    // Splitscope's own.
    p.option("num_threads", "N", "LibTorch threads (default: all cores); equal counts give equal bits");
    p.option("events", "jsonl", "JSON Lines progress events on standard output (core/engine/Events.h)");
    p.option("split_mode", "seed|safe", "stage one and two: DiffSynth's split (seed, default) or the hazard-free one (safe)");
    p.flag("allow_hazards", "run a split with hazards anyway (two-stage then differs from one-stage)");
    p.flag("cache_all_params", "stage one: cache every param, as DiffSynth does (default: only what stage two reads)");
    p.option("cache_shard_size", "N", "stage one: samples per cache shard (default 16)");
    p.option("num_inference_steps", "N", "direct_distill: sampling steps of the loss (default 4)");
    p.option("max_steps", "N", "stop after N optimizer steps");
    p.flag("resume", "continue from OUTPUT/resume.safetensors (see --checkpoint_interval)");
    p.option("checkpoint_interval", "SECONDS", "write the resume state every SECONDS of training, beside the steps (default "
        "60; 0: only at --save_steps, epoch ends and cancellation); kill -9 loses at most that much");
    p.option("pipeline", "NAME", "built-in executable pipeline (default tiny-qwen-image)");
    // Data parallelism (torch.distributed): the ranks read torchrun's environment.
    p.option("dist_backend", "gloo", "the process group's backend with several ranks (gloo; nccl needs CUDA)");
    p.option("dist_timeout", "SECONDS", "how long a rank waits for the others, at the start and in every step (default 1800)");
    p.option("nproc_per_node", "N", "start N ranks on this node (as torchrun does) and wait for them");
    p.option("nnodes", "N", "with --nproc_per_node: nodes in all (default 1)");
    p.option("node_rank", "R", "with --nproc_per_node: this node's number, from 0 (default 0)");
    p.option("master_addr", "ADDR", "with --nproc_per_node: node 0's address (default 127.0.0.1)");
    p.option("master_port", "PORT", "with --nproc_per_node: the rendezvous port on node 0 (default: one node "
                                    "meets through a private file, several at 29500)");
    p.flag("help", "show this help");
}

// The flags into `params`; the exit status of a usage error, if any.
std::optional<int> readTrainParams(ArgParser &p, engine::TrainParams &params, bool &jsonl)
{
    const auto fail = [&p](const std::string &message) { return std::optional<int>(p.usageError("train", message)); };
    params.task = p.valueOr("task", params.task);
    params.pipeline = p.valueOr("pipeline", params.pipeline);
    params.datasetBasePath = p.valueOr("dataset_base_path", "");
    params.datasetMetadataPath = p.valueOr("dataset_metadata_path", "");
    params.modelIdWithOriginPaths = p.valueOr("model_id_with_origin_paths", "");
    params.offloadModels = p.valueOr("offload_models", "");
    params.modelRoot = p.valueOr("model_root", "");
    params.tokenizerPath = p.valueOr("tokenizer_path", "");
    params.outputPath = p.valueOr("output_path", params.outputPath);
    params.removePrefixInCkpt = p.valueOr("remove_prefix_in_ckpt", "");
    params.loraTargetModules = p.valueOr("lora_target_modules", "");
    params.loraCheckpoint = p.valueOr("lora_checkpoint", "");
    params.useGradientCheckpointing = p.has("use_gradient_checkpointing");
    params.findUnusedParameters = p.has("find_unused_parameters");
    params.allowHazards = p.has("allow_hazards");
    params.cacheAllParams = p.has("cache_all_params");
    params.resume = p.has("resume");
    if (p.has("data_file_keys"))
        params.dataFileKeys = commaList(*p.value("data_file_keys"));
    if (p.has("extra_inputs"))
        params.extraInputs = commaList(*p.value("extra_inputs"));

    const std::vector<IntFlag> ints = {
        {"max_pixels", 1, 1LL << 40, [&](long long v) { params.maxPixels = v; }},
        {"height", 16, 16384, into(params.height)},
        {"width", 16, 16384, into(params.width)},
        {"dataset_repeat", 1, 1000000, into(params.datasetRepeat)},
        {"num_epochs", 1, 1000000, into(params.numEpochs)},
        {"lora_rank", 1, 4096, into(params.loraRank)},
        {"dataset_num_workers", 0, 256, into(params.datasetNumWorkers)},
        {"save_steps", 1, 1LL << 30, into(params.saveSteps)},
        {"seed", 0, 1LL << 62, intoSeed(params.seed)},
        {"num_threads", 1, 1024, into(params.numThreads)},
        {"cache_shard_size", 1, 1000000, into(params.cacheShardSize)},
        {"num_inference_steps", 1, 1000, into(params.numInferenceSteps)},
        {"max_steps", 1, 1LL << 40, [&](long long v) { params.maxSteps = v; }},
        {"gradient_accumulation_steps", 1, 1 << 20, into(params.gradientAccumulationSteps)},
    };
    if (!readIntFlags(p, ints))
        return fail(p.error());
    for (const char *name : {"learning_rate", "weight_decay"}) {
        double value = 0;
        if (!p.has(name))
            continue;
        if (!p.doubleValue(name, value))
            return fail(p.error());
        if (!std::isfinite(value))
            return fail(std::string("--") + name + ": " + *p.value(name) + " is not a finite number");
        if (std::fabs(value) > std::numeric_limits<float>::max())
            return fail(std::string("--") + name + ": " + *p.value(name)
                + " is too large for the float32 weights it scales");
        if (!(value >= 0) || (std::strcmp(name, "learning_rate") == 0 && !(value > 0)))
            return fail(std::string("--") + name + ": " + *p.value(name) + " must be "
                + (std::strcmp(name, "learning_rate") == 0 ? "positive" : "non-negative"));
        (std::strcmp(name, "learning_rate") == 0 ? params.learningRate : params.weightDecay) = value;
    }
    if (p.has("dist_timeout")) {
        double seconds = 0;
        if (!p.doubleValue("dist_timeout", seconds))
            return fail(p.error());
        if (!std::isfinite(seconds) || seconds <= 0 || seconds > 1e7)
            return fail("--dist_timeout: " + *p.value("dist_timeout") + " is not a number of seconds above 0 (at most 10000000)");
        params.distTimeout = seconds;
    }
    params.distBackend = p.valueOr("dist_backend", params.distBackend);
    if (params.distBackend != "gloo" && params.distBackend != "nccl")
        return fail("--dist_backend: '" + params.distBackend + "' is not gloo or nccl");
    std::string envError;
    if (!engine::readDistributedEnvironment([](const char *name) { return std::getenv(name); }, params.distributed, &envError))
        return fail(envError);
    if (p.has("checkpoint_interval")) {
        double seconds = 0;
        if (!p.doubleValue("checkpoint_interval", seconds))
            return fail(p.error());
        if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e7)
            return fail("--checkpoint_interval: " + *p.value("checkpoint_interval")
                + " is not a number of seconds from 0 (off) to 10000000");
        params.checkpointInterval = seconds;
    }
    const std::string splitMode = p.valueOr("split_mode", "seed");
    if (splitMode != "seed" && splitMode != "safe")
        return fail("--split_mode: '" + splitMode + "' is not seed or safe");
    params.training = TrainingChoice::fromFlags(p.valueOr("trainable_models", ""), p.valueOr("lora_base_model", ""),
        splitMode == "safe" ? SplitMode::Safe : SplitMode::Seed);
    const std::string events = p.valueOr("events", "");
    if (!events.empty() && events != "jsonl")
        return fail("--events: '" + events + "' is not jsonl");
    jsonl = events == "jsonl";
    return std::nullopt;

}

// Events on standard output (JSON Lines) and their text on standard error. Events go
// on while the run finishes its step after a broken pipe: a stream whose reader has
// gone is silenced, and stderr, when it still works, says why the run stops.
struct EventPrinter {
    bool jsonl = false;
    // With several ranks, only rank 0 reports the run; the others show their warnings
    // and errors, marked with their rank, and with --events jsonl their memory and
    // stage-one progress (their steps are rank 0's: every rank takes each step).
    int rank = 0;
    bool stdoutBroken = false;
    bool stderrBroken = false;

    void operator()(const engine::EventRecord &record)
    {
        if (rank > 0) {
            if ((record.name == engine::events::kWarning || record.name == engine::events::kError) && !record.text.empty())
                std::fprintf(stderr, "[%7.1fs] rank %d: %s\n", record.time, rank, record.text.c_str());
            if (jsonl && !stdoutBroken && (record.name == engine::events::kMemory || record.name == engine::events::kProgress)) {
                // One write of at most a few hundred bytes: a pipe keeps it whole among the
                // other ranks' lines.
                const std::string line = record.json + "\n";
                errno = 0;
                bool failed = std::fwrite(line.data(), 1, line.size(), stdout) != line.size();
                failed = std::fflush(stdout) != 0 || failed;
                if (silenceBrokenStream(stdout, failed, errno)) {
                    stdoutBroken = true;
                    g_stopRequested = true;
                }
            }
            return;
        }
        if (jsonl) {
            errno = 0;
            bool failed = std::fwrite(record.json.data(), 1, record.json.size(), stdout) != record.json.size();
            failed = std::fputc('\n', stdout) == EOF || failed;
            failed = std::fflush(stdout) != 0 || failed;
            if (silenceBrokenStream(stdout, failed, errno) && !stdoutBroken) {
                stdoutBroken = true;
                g_stopRequested = true;
                if (!stderrBroken) {
                    std::fprintf(stderr, "splitscope-cli: standard output was closed (broken pipe): stopping after the "
                                         "current step, keeping its work (exit status %d)\n",
                        kExitCancelled);
                }
            }
        }
        if (!record.text.empty()) {
            errno = 0;
            bool failed = std::fprintf(stderr, "[%7.1fs] %s\n", record.time, record.text.c_str()) < 0;
            failed = std::fflush(stderr) != 0 || failed;
            if (silenceBrokenStream(stderr, failed, errno) && !stderrBroken) {
                stderrBroken = true;
                g_stopRequested = true;
            }
        }
    }
};

// While it lives, SIGINT, SIGTERM and SIGHUP (the terminal closed, an ssh session
// dropped) ask the run to stop, and SIGPIPE is noted; the previous handlers come back
// after. SA_RESTART: the handlers only set flags, which the trainer polls. Without it,
// a write to standard output that the signal interrupted failed with EINTR, and a
// cancelled run (SIGTERM from the app's Cancel) ended "cannot write standard output"
// with exit status 1 instead of 4, about one time in four on a busy machine.
class StopSignals {
public:
    StopSignals()
    {
        g_stopRequested = false;
        g_stopSignalled = false;
        struct sigaction action {};
        action.sa_handler = onStopSignal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        struct sigaction pipeAction {};
        pipeAction.sa_handler = onBrokenPipe;
        pipeAction.sa_flags = SA_RESTART;
        sigemptyset(&pipeAction.sa_mask);
        for (int i = 0; i < kCount; ++i)
            sigaction(kSignals[i], &action, &m_old[i]);
        sigaction(SIGPIPE, &pipeAction, &m_oldPipe);
    }
    ~StopSignals()
    {
        for (int i = 0; i < kCount; ++i)
            sigaction(kSignals[i], &m_old[i], nullptr);
        sigaction(SIGPIPE, &m_oldPipe, nullptr);
    }
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

private:
    static constexpr int kCount = 3;
    static constexpr int kSignals[kCount] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction m_old[kCount] {};
    struct sigaction m_oldPipe {};
};

} // namespace

int runTrain(const Args &args)
{
    ArgParser p;
    declareTrainFlags(p);
    if (wantsHelp(args)) {
        std::printf("%s\nExit status: 0 done, 1 failed, 2 bad flags or inputs (or a cache that does not match),\n"
                    "3 the split has hazards (see --split_mode safe, --allow_hazards), %d cancelled by SIGINT/SIGTERM/SIGHUP\n"
                    "or by a closed output pipe (SIGPIPE)\n"
                    "(finished work kept: stage one resumes by itself, training with --resume).\n",
            p.usage("splitscope-cli train").c_str(), kExitCancelled);
        return kExitOk;
    }
    static const std::vector<std::string> kFlags = {"task", "dataset_base_path", "dataset_metadata_path", "max_pixels",
        "height", "width", "dataset_repeat", "data_file_keys", "extra_inputs", "model_id_with_origin_paths",
        "offload_models", "model_root", "tokenizer_path", "learning_rate", "weight_decay", "num_epochs", "output_path",
        "remove_prefix_in_ckpt", "trainable_models", "lora_base_model", "lora_target_modules", "lora_rank",
        "lora_checkpoint", "use_gradient_checkpointing", "dataset_num_workers", "find_unused_parameters", "save_steps",
        "seed", "num_threads", "events", "split_mode", "allow_hazards", "cache_all_params", "cache_shard_size",
        "num_inference_steps", "max_steps", "resume", "checkpoint_interval", "pipeline", "gradient_accumulation_steps",
        "dist_backend", "dist_timeout", "nproc_per_node", "nnodes", "node_rank", "master_addr", "master_port", "help"};
    if (!p.parse(args))
        return p.usageError("train", parseError(p, kFlags));
    if (const std::string flag = emptyPathFlag(p, {"dataset_base_path", "dataset_metadata_path", "model_root",
            "tokenizer_path", "output_path", "lora_checkpoint"});
        !flag.empty())
        return p.usageError("train", "--" + flag + ": empty path");
    // --nproc_per_node: this process starts the ranks (with the other flags) and waits.
    LaunchOptions launch;
    bool launching = false;
    std::vector<std::string> rankArgs = args;
    std::string launchError;
    if (!takeLaunchFlags(rankArgs, launch, launching, launchError))
        return p.usageError("train", launchError);
    if (launching) {
        if (std::getenv("RANK") && std::getenv("WORLD_SIZE"))
            return p.usageError("train", "--nproc_per_node starts ranks, but this process already is one (RANK and "
                                         "WORLD_SIZE are set): leave out one of the two launchers");
        // The flags are checked once here, rather than by every rank.
        engine::TrainParams checked;
        bool ignored = false;
        if (const std::optional<int> status = readTrainParams(p, checked, ignored))
            return *status;
        launch.graceSeconds = std::min(launch.graceSeconds, checked.distTimeout);
        return launchRanks(launch, rankArgs);
    }
    ensurePassiveOpenMpWaits("train", args);
    // From here a stop signal (held back since splitscope-cli started, see
    // blockStopSignals) is a request to stop cleanly, honoured before any work too.
    const StopSignals signals;
    unblockStopSignals();

    engine::TrainParams params;
    bool jsonl = false;
    if (const std::optional<int> status = readTrainParams(p, params, jsonl))
        return *status;
    EventPrinter printer{jsonl};
    printer.rank = params.distributed.rank;
    engine::TrainCallbacks callbacks;
    callbacks.onEvent = [&printer](const engine::EventRecord &record) { printer(record); };
    callbacks.shouldAbort = [] { return g_stopRequested.load(); };
    return engine::train(params, callbacks).status;
}

int runInitModels(const Args &args)
{
    ArgParser p;
    p.option("root", "DIR", "the models root (default $SPLITSCOPE_MODEL_ROOT, else ./models)");
    p.option("model_id", "ORG/MODEL", "folder under the root (default Qwen/Qwen-Image)");
    p.option("preset", "default|small", "model sizes (default: docs/engine.md's; small: for tests)");
    p.option("seed", "N", "seed of the weights (default 0)");
    p.flag("overwrite", "replace existing models");
    p.flag("help", "show this help");
    if (wantsHelp(args)) {
        std::printf("%s", p.usage("splitscope-cli init-models").c_str());
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("init-models", parseError(p, {"root", "model_id", "preset", "seed", "overwrite", "help"}));
    if (const std::string flag = emptyPathFlag(p, {"root", "model_id"}); !flag.empty())
        return p.usageError("init-models", "--" + flag + ": empty path (leave the flag out for its default)");
    engine::InitModelsParams params;
    params.root = engine::resolveModelRoot(p.valueOr("root", ""));
    params.modelId = p.valueOr("model_id", params.modelId);
    // A folder under the root: an absolute path or '..' would write models elsewhere.
    const std::filesystem::path modelId(params.modelId);
    const bool leavesRoot = modelId.is_absolute()
        || std::any_of(modelId.begin(), modelId.end(), [](const std::filesystem::path &part) { return part == ".."; });
    if (leavesRoot)
        return p.usageError("init-models", "--model_id " + params.modelId
                + ": must be a folder under the models root (ORG/MODEL), not a path that leaves it");
    params.preset = p.valueOr("preset", params.preset);
    params.overwrite = p.has("overwrite");
    if (!readIntFlags(p, {{"seed", 0, 1LL << 62, intoSeed(params.seed)}}))
        return p.usageError("init-models", p.error());
    std::vector<std::string> written;
    std::string error;
    if (!engine::initModels(params, &written, &error)) {
        std::fprintf(stderr, "splitscope-cli init-models: %s\n", error.c_str());
        return error.find("--") != std::string::npos ? kExitUsage : kExitFailure;
    }
    for (const auto &f : written)
        std::printf("%s\n", f.c_str());
    return kExitOk;
}

int runMakeDataset(const Args &args)
{
    ArgParser p;
    p.positional("DIR", "the dataset folder to write (images/, metadata.csv)");
    p.option("count", "N", "number of images (default 64)");
    p.option("width", "W", "image width (default 64)");
    p.option("height", "H", "image height (default 64)");
    p.flag("edit", "also write edit_image (the scene with another shape color, at another size)");
    p.option("edit_width", "W", "edit image width (default 48)");
    p.option("edit_height", "H", "edit image height (default 48)");
    p.option("seed", "N", "seed of the scenes (default 0)");
    p.flag("overwrite", "replace a dataset already in DIR (its metadata.csv, and the images/ and edit/ PNGs "
                        "an earlier make-dataset wrote that the new one does not list)");
    p.flag("help", "show this help");
    if (wantsHelp(args)) {
        std::printf("%s", p.usage("splitscope-cli make-dataset").c_str());
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("make-dataset",
            parseError(p, {"count", "width", "height", "edit", "edit_width", "edit_height", "seed", "overwrite", "help"}));
    engine::SyntheticDatasetOptions options;
    options.directory = p.positionals().front();
    if (options.directory.empty())
        return p.usageError("make-dataset", "DIR: empty path (the dataset folder to write, e.g. data/shapes)");
    options.edit = p.has("edit");
    options.overwrite = p.has("overwrite");
    if (!readIntFlags(p, {{"count", 1, 1000000, into(options.count)}, {"width", 8, 4096, into(options.width)},
                             {"height", 8, 4096, into(options.height)}, {"edit_width", 8, 4096, into(options.editWidth)},
                             {"edit_height", 8, 4096, into(options.editHeight)}, {"seed", 0, 1LL << 62, intoSeed(options.seed)}}))
        return p.usageError("make-dataset", p.error());
    std::string error;
    bool badInput = false;
    if (!engine::makeSyntheticDataset(options, &error, &badInput)) {
        std::fprintf(stderr, "splitscope-cli make-dataset: %s\n", error.c_str());
        return badInput ? kExitUsage : kExitFailure;
    }
    std::printf("%s/metadata.csv: %d images\n", options.directory.c_str(), options.count);
    return kExitOk;
}

int runSample(const Args &args)
{
    ArgParser p;
    p.option("model_id_with_origin_paths", "ID:GLOB,...", "the text encoder, VAE and DiT (as for train)");
    p.option("model_root", "DIR", "models root (default $SPLITSCOPE_MODEL_ROOT, else ./models)");
    p.option("tokenizer_path", "FILE", "the tokenizer (default beside the text encoder)");
    p.option("lora", "FILE", "a LoRA checkpoint from train (epoch-N.safetensors)");
    p.option("lora_target_modules", "M1,M2", "the modules the LoRA was trained on");
    p.option("lora_rank", "R", "its rank (default 32)");
    p.option("prompt", "TEXT", "what to draw; several prompts separated by '|'");
    p.option("width", "W", "image width, a multiple of 16 (default 64)");
    p.option("height", "H", "image height (default 64)");
    p.option("steps", "N", "sampling steps (default 20)");
    p.option("seed", "N", "noise seed (default 0)");
    p.option("num_threads", "N", "LibTorch threads (default: all cores)");
    p.option("output_dir", "DIR", "where sample-NNN.png go (default .)");
    p.flag("help", "show this help");
    if (wantsHelp(args)) {
        std::printf("%s", p.usage("splitscope-cli sample").c_str());
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("sample", parseError(p, {"model_id_with_origin_paths", "model_root", "tokenizer_path", "lora",
                                                          "lora_target_modules", "lora_rank", "prompt", "width", "height",
                                                          "steps", "seed", "num_threads", "output_dir", "help"}));
    if (const std::string flag = emptyPathFlag(p, {"model_root", "tokenizer_path", "lora", "output_dir"}); !flag.empty())
        return p.usageError("sample", "--" + flag + ": empty path");
    ensurePassiveOpenMpWaits("sample", args);
    engine::SampleParams params;
    params.modelIdWithOriginPaths = p.valueOr("model_id_with_origin_paths", "");
    params.modelRoot = p.valueOr("model_root", "");
    params.tokenizerPath = p.valueOr("tokenizer_path", "");
    params.loraPath = p.valueOr("lora", "");
    params.loraTargetModules = p.valueOr("lora_target_modules", "");
    params.outputDirectory = p.valueOr("output_dir", ".");
    std::string prompts = p.valueOr("prompt", "");
    std::size_t start = 0;
    while (start <= prompts.size() && !prompts.empty()) {
        const std::size_t bar = std::min(prompts.find('|', start), prompts.size());
        params.prompts.push_back(prompts.substr(start, bar - start));
        start = bar + 1;
    }
    if (!readIntFlags(p, {{"lora_rank", 1, 4096, into(params.loraRank)}, {"width", 16, 4096, into(params.width)},
                             {"height", 16, 4096, into(params.height)}, {"steps", 1, 1000, into(params.steps)},
                             {"num_threads", 1, 1024, into(params.numThreads)}, {"seed", 0, 1LL << 62, intoSeed(params.seed)}}))
        return p.usageError("sample", p.error());
    if (params.modelIdWithOriginPaths.empty())
        return p.usageError("sample", "--model_id_with_origin_paths is required");
    if (!p.has("lora")) {
        for (const char *flag : {"lora_target_modules", "lora_rank"}) {
            if (p.has(flag))
                std::fprintf(stderr, "splitscope-cli sample: warning: --%s is ignored without --lora (no LoRA is loaded)\n",
                    flag);
        }
    }
    std::vector<std::string> written;
    std::string error;
    bool badInput = false;
    if (!engine::sampleImages(params, &written, &error, &badInput)) {
        std::fprintf(stderr, "splitscope-cli sample: %s\n", error.c_str());
        return badInput ? kExitUsage : kExitFailure;
    }
    for (const auto &f : written)
        std::printf("%s\n", f.c_str());
    return kExitOk;
}

void addEngineCommands(std::vector<Command> &commands)
{
    commands.push_back({"describe", "print a built-in executable pipeline's description (tiny-qwen-image)", runDescribe});
    commands.push_back({"train", "train with DiffSynth's flags: one-stage, or stage one / stage two of a split", runTrain});
    commands.push_back({"init-models", "write the tiny Qwen-Image models (seeded weights) under a models root", runInitModels});
    commands.push_back({"make-dataset", "write a captioned synthetic image set (PNG + metadata.csv)", runMakeDataset});
    commands.push_back({"sample", "draw images with the tiny models and a trained LoRA", runSample});
}

} // namespace splitscope::cli
