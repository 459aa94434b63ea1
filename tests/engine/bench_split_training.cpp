// SPDX-License-Identifier: MIT
// bench_split_training: one-stage training against stage one + stage two on the
// default tiny models (issue 4's benchmark). Each stage runs as its own
// `splitscope-cli train` process, so each peak RSS is measured alone; the figures
// come from the processes' JSON Lines events, all from this one run.
//
//   bench_split_training [--work DIR] [--samples N] [--epochs N] [--num_threads N] [--preset NAME]
#include "core/engine/Engine.h"
#include "core/engine/SyntheticDataset.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace engine = splitscope::engine;
using Json = nlohmann::json;

const char *const kModels = "Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors,"
                            "Qwen/Qwen-Image:text_encoder/model*.safetensors,"
                            "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors";
const char *const kDit = "Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors";
const char *const kTextEncoderAndVae = "Qwen/Qwen-Image:text_encoder/model*.safetensors,"
                                       "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors";
const char *const kTargets = "to_q,to_k,to_v,add_q_proj,add_k_proj,add_v_proj,to_out.0,to_add_out,img_mlp.net.2,"
                             "img_mod.1,txt_mlp.net.2,txt_mod.1";

std::string quote(const std::string &s)
{
    std::string out = "'";
    for (const char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out.push_back(c);
    }
    return out + "'";
}

struct StageRun {
    int status = -1;
    std::vector<Json> events;

    std::vector<Json> all(const std::string &name) const
    {
        std::vector<Json> out;
        for (const auto &e : events) {
            if (e.value("event", "") == name)
                out.push_back(e);
        }
        return out;
    }
    Json last(const std::string &name) const
    {
        const auto list = all(name);
        return list.empty() ? Json::object() : list.back();
    }
    // Seconds per step (or per sample, for `progress`) between the first and the last
    // event of that kind, by `clock`: "time" (wall) or "cpu_s" (the process's CPU
    // time, which other processes on a busy machine change much less). Model
    // loading, before the first event, is left out.
    double secondsPer(const std::string &kind, const std::string &clock) const
    {
        const auto list = all(kind);
        if (list.size() < 2)
            return 0;
        const char *counter = kind == "step" ? "step" : "done";
        const double count = list.back()[counter].get<double>() - list.front()[counter].get<double>();
        return (list.back()[clock].get<double>() - list.front()[clock].get<double>()) / count;
    }
};

StageRun runCli(const std::vector<std::string> &args, const std::string &environment = {})
{
    std::string command = environment + (environment.empty() ? "" : " ") + quote(SPLITSCOPE_CLI);
    for (const auto &a : args)
        command += " " + quote(a);
    command += " --events jsonl 2>/dev/null";
    std::fprintf(stderr, "running: splitscope-cli %s ...\n", args.size() > 2 ? args[2].c_str() : "");
    StageRun run;
    std::FILE *pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return run;
    std::string line;
    char buffer[65536];
    while (std::fgets(buffer, sizeof(buffer), pipe)) {
        line += buffer;
        if (!line.empty() && line.back() == '\n') {
            run.events.push_back(Json::parse(line, nullptr, false));
            line.clear();
        }
    }
    const int status = ::pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

std::uint64_t modelBytes(const Json &memory, const std::vector<std::string> &names)
{
    std::uint64_t total = 0;
    for (const auto &n : names) {
        if (memory.contains("model_bytes") && memory["model_bytes"].contains(n))
            total += memory["model_bytes"][n].get<std::uint64_t>();
    }
    return total;
}

std::string loadAverage()
{
    std::FILE *file = std::fopen("/proc/loadavg", "r");
    char text[32] = "?";
    if (file) {
        if (std::fscanf(file, "%31s", text) != 1)
            std::snprintf(text, sizeof(text), "?");
        std::fclose(file);
    }
    return text;
}

double mib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// (d) Stage one and stage two at 1 rank x 1 thread, 2 ranks x 1 thread and 1 rank x
// 2 threads. Rank 0 reports; its rate is the group's over the rank count (every rank
// takes as many samples). The all-reduce time includes waiting for the slower rank.
bool scaleOut(const std::function<std::vector<std::string>(std::vector<std::string>)> &with, const std::string &work,
    const std::string &dataset)
{
    struct Shape {
        int ranks;
        int threads;
    };
    struct Figures {
        double stageOneRate = 0; // samples/s
        double stageTwoRate = 0;
        double allReduceShare = 0; // of a stage-two step
    };
    std::vector<Figures> figures;
    const std::vector<Shape> shapes = {{1, 1}, {2, 1}, {1, 2}};
    for (const Shape &shape : shapes) {
        const std::string name = std::to_string(shape.ranks) + "x" + std::to_string(shape.threads);
        std::vector<std::string> extra = {"--num_threads", std::to_string(shape.threads)};
        if (shape.ranks > 1) {
            extra.push_back("--nproc_per_node");
            extra.push_back(std::to_string(shape.ranks));
        }
        auto args = [&](std::vector<std::string> a) {
            a = with(a);
            // This part sets the thread count itself.
            const auto given = std::find(a.begin(), a.end(), "--num_threads");
            if (given != a.end())
                a.erase(given, given + 2);
            a.insert(a.end(), extra.begin(), extra.end());
            return a;
        };
        const StageRun first = runCli(args({"train", "--task", "sft:data_process", "--dataset_base_path", dataset,
            "--model_id_with_origin_paths", kModels, "--offload_models", kDit, "--output_path", work + "/scale-cache-" + name,
            "--cache_shard_size", "4"}));
        const StageRun second = runCli(args({"train", "--task", "sft:train", "--dataset_base_path", work + "/scale-cache-" + name,
            "--model_id_with_origin_paths", kModels, "--offload_models", kTextEncoderAndVae, "--output_path",
            work + "/scale-two-" + name}));
        if (first.status != 0 || second.status != 0) {
            std::fprintf(stderr, "scale-out %s failed (exit %d, %d)\n", name.c_str(), first.status, second.status);
            return false;
        }
        Figures f;
        f.stageOneRate = shape.ranks / first.secondsPer("progress", "time");
        const double step = second.secondsPer("step", "time");
        f.stageTwoRate = shape.ranks / step;
        const Json done = second.last("done");
        f.allReduceShare = done.value("all_reduce_s", 0.0) / done["steps"].get<double>() / step;
        figures.push_back(f);
    }
    std::printf("(d) scale-out (c10d, Gloo over loopback; samples/s, efficiency = speed-up / 2)\n");
    std::printf("  %-18s %14s %14s %22s\n", "ranks x threads", "stage one", "stage two", "all-reduce of a step");
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        std::printf("  %d x %-14d %14.1f %14.1f %21.1f%%\n", shapes[i].ranks, shapes[i].threads, figures[i].stageOneRate,
            figures[i].stageTwoRate, 100.0 * figures[i].allReduceShare);
    }
    const auto ratio = [&](std::size_t i, bool two) {
        return (two ? figures[i].stageTwoRate / figures[0].stageTwoRate : figures[i].stageOneRate / figures[0].stageOneRate);
    };
    std::printf("  2 x 1 over 1 x 1: stage one %.2fx (efficiency %.0f%%), stage two %.2fx (efficiency %.0f%%; target >= 1.7x)\n",
        ratio(1, false), 50.0 * ratio(1, false), ratio(1, true), 50.0 * ratio(1, true));
    std::printf("  1 x 2 over 1 x 1: stage one %.2fx, stage two %.2fx\n", ratio(2, false), ratio(2, true));
    std::printf("  all-reduce share of a 2-rank stage-two step: %.1f%% (target <= 10%%)\n", 100.0 * figures[1].allReduceShare);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    std::string work = "/tmp/splitscope-bench";
    int samples = 64;
    int epochs = 5;
    std::string threads;
    std::string preset = "default";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--work")
            work = argv[i + 1];
        else if (flag == "--samples")
            samples = std::atoi(argv[i + 1]);
        else if (flag == "--epochs")
            epochs = std::atoi(argv[i + 1]);
        else if (flag == "--num_threads")
            threads = argv[i + 1];
        else if (flag == "--preset")
            preset = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: bench_split_training [--work DIR] [--samples N] [--epochs N] [--num_threads N] [--preset default|small]\n");
            return 2;
        }
    }
    if (argc % 2 == 0 || samples < 1 || epochs < 1) {
        std::fprintf(stderr, "usage: bench_split_training [--work DIR] [--samples N] [--epochs N] [--num_threads N] [--preset default|small]\n");
        return 2;
    }
    const std::string loadBefore = loadAverage();
    std::error_code ec;
    fs::remove_all(work, ec);
    // The weight-hash memo of these runs only (core/engine/Hash.h).
    ::setenv("SPLITSCOPE_HASH_CACHE", (work + "/file-set-hashes").c_str(), 1);
    engine::InitModelsParams init;
    init.root = work + "/models";
    init.preset = preset;
    std::string error;
    if (!engine::initModels(init, nullptr, &error)) {
        std::fprintf(stderr, "init-models: %s\n", error.c_str());
        return 1;
    }
    engine::SyntheticDatasetOptions data;
    data.directory = work + "/data";
    data.count = samples;
    if (!engine::makeSyntheticDataset(data, &error)) {
        std::fprintf(stderr, "make-dataset: %s\n", error.c_str());
        return 1;
    }

    std::vector<std::string> common = {"--model_root", init.root, "--learning_rate", "1e-4", "--num_epochs",
        std::to_string(epochs), "--remove_prefix_in_ckpt", "pipe.dit.", "--lora_base_model", "dit",
        "--lora_target_modules", kTargets, "--lora_rank", "32", "--dataset_num_workers", "1"};
    if (!threads.empty()) {
        common.push_back("--num_threads");
        common.push_back(threads);
    }
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.end(), common.begin(), common.end());
        return args;
    };
    const StageRun one = runCli(with({"train", "--task", "sft", "--dataset_base_path", data.directory,
        "--model_id_with_origin_paths", kModels, "--output_path", work + "/one"}));
    const StageRun first = runCli(with({"train", "--task", "sft:data_process", "--dataset_base_path", data.directory,
        "--model_id_with_origin_paths", kModels, "--offload_models", kDit, "--output_path", work + "/cache"}));
    const StageRun second = runCli(with({"train", "--task", "sft:train", "--dataset_base_path", work + "/cache",
        "--model_id_with_origin_paths", kModels, "--offload_models", kTextEncoderAndVae, "--output_path", work + "/two"}));
    // Stage two again, each weight file hashed as before this memo existed, then
    // remembered: the start-up check's cost is the time to the first step.
    const StageRun unremembered = runCli(with({"train", "--task", "sft:train", "--dataset_base_path", work + "/cache",
        "--model_id_with_origin_paths", kModels, "--offload_models", kTextEncoderAndVae, "--output_path", work + "/two-a",
        "--max_steps", "1"}), "SPLITSCOPE_HASH_CACHE=off");
    const StageRun remembered = runCli(with({"train", "--task", "sft:train", "--dataset_base_path", work + "/cache",
        "--model_id_with_origin_paths", kModels, "--offload_models", kTextEncoderAndVae, "--output_path", work + "/two-b",
        "--max_steps", "1"}));
    if (one.status != 0 || first.status != 0 || second.status != 0 || unremembered.status != 0 || remembered.status != 0) {
        std::fprintf(stderr, "a stage failed (exit %d, %d, %d, %d, %d)\n", one.status, first.status, second.status,
            unremembered.status, remembered.status);
        return 1;
    }

    const Json oneDone = one.last("done");
    const Json firstDone = first.last("done");
    const Json secondDone = second.last("done");
    const double oneWall = oneDone["wall_s"].get<double>();
    const double firstWall = firstDone["wall_s"].get<double>();
    const double secondWall = secondDone["wall_s"].get<double>();
    const double oneStep = one.secondsPer("step", "time");
    const double secondStep = second.secondsPer("step", "time");
    const double perSample = first.secondsPer("progress", "time");
    const double oneStepCpu = one.secondsPer("step", "cpu_s");
    const double secondStepCpu = second.secondsPer("step", "cpu_s");
    const double perSampleCpu = first.secondsPer("progress", "cpu_s");
    const auto steps = secondDone["steps"].get<double>();
    const double readWaitPerStep = secondDone["read_wait_s"].get<double>() / steps;
    const double readPerStep = secondDone["cache_read_s"].get<double>() / steps;

    const Json oneMemory = one.last("memory");
    const std::uint64_t unloaded = modelBytes(oneMemory, {"text_encoder", "vae"});
    const std::uint64_t allModels = modelBytes(oneMemory, {"text_encoder", "vae", "dit"});
    const std::uint64_t onePeak = oneDone["peak_rss_bytes"].get<std::uint64_t>();
    const std::uint64_t secondPeak = secondDone["peak_rss_bytes"].get<std::uint64_t>();
    const double reduction = static_cast<double>(onePeak) - static_cast<double>(secondPeak);

    std::printf("split-training benchmark: preset %s, %d samples, %d epochs, LoRA rank 32 on the DiT, threads %s\n",
        preset.c_str(), samples, epochs, threads.empty() ? "all cores" : threads.c_str());
    std::printf("machine load (1-minute average) before %s, after %s; figures in [brackets] use CPU time\n",
        loadBefore.c_str(), loadAverage().c_str());
    std::printf("(a) time\n");
    std::printf("  one-stage sft                 %8.1f s  (%.1f ms/step [%.1f])\n", oneWall, oneStep * 1e3, oneStepCpu * 1e3);
    std::printf("  stage one (sft:data_process)  %8.1f s  (%.1f ms/sample [%.1f]: text encoder + VAE)\n", firstWall,
        perSample * 1e3, perSampleCpu * 1e3);
    std::printf("  stage two (sft:train)         %8.1f s  (%.1f ms/step [%.1f])\n", secondWall, secondStep * 1e3, secondStepCpu * 1e3);
    std::printf("  one-stage / (stage one + two) wall time:   %.2fx\n", oneWall / (firstWall + secondWall));
    std::printf("  stage-two steps/s / one-stage steps/s:     %.2fx [%.2fx]  (target >= 2x)\n", oneStep / secondStep,
        oneStepCpu / secondStepCpu);
    std::printf("  text encoder + VAE share of a one-stage step: %.0f%% [%.0f%%]  (target >= 50%%)\n", 100.0 * perSample / oneStep,
        100.0 * perSampleCpu / oneStepCpu);
    std::printf("  cache reading per stage-two step: %.2f ms in the reader thread (%.1f%% of a step);\n"
                "    the step waited %.3f ms for it (%.1f%% of a step; target <= 10%%)\n",
        readPerStep * 1e3, 100.0 * readPerStep / secondStep, readWaitPerStep * 1e3, 100.0 * readWaitPerStep / secondStep);
    std::printf("(b) memory\n");
    std::printf("  peak RSS one-stage %.1f MiB, stage one %.1f MiB, stage two %.1f MiB\n", mib(onePeak),
        mib(firstDone["peak_rss_bytes"].get<std::uint64_t>()), mib(secondPeak));
    std::printf("  models stage two does not load (text encoder + VAE): %.1f MiB of %.1f MiB of weights (%.0f%%)\n",
        mib(unloaded), mib(allModels), 100.0 * static_cast<double>(unloaded) / static_cast<double>(allModels));
    std::printf("  stage two materialized: %s\n", second.last("memory")["materialized"].dump().c_str());
    std::printf("  peak RSS reduction: %.1f MiB = %.0f%% of those models' bytes  (target >= 90%%)\n", reduction / (1024.0 * 1024.0),
        100.0 * reduction / static_cast<double>(unloaded));
    // Resume states at the epoch ends: what the step waits for now (the snapshot) and
    // what it waited for when the whole write ran on the training thread.
    double snapshot = 0;
    double write = 0;
    int states = 0;
    for (const Json &e : second.all("checkpoint")) {
        if (e.value("kind", "") == "resume" && e.contains("write_s")) {
            snapshot += e["snapshot_s"].get<double>();
            write += e["write_s"].get<double>();
            ++states;
        }
    }
    const auto firstStepAt = [](const StageRun &run) {
        const auto steps = run.all("step");
        return steps.empty() ? 0.0 : steps.front()["time"].get<double>();
    };
    std::printf("(c) safety\n");
    if (states > 0) {
        std::printf("  resume state per epoch end (stage two, %d states): %.1f ms on the training thread (snapshot), "
                    "%.1f ms beside the steps (serialise, write, fsync);\n    a step waited %.1f ms when all of it was "
                    "on the training thread (%.1fx less now)\n",
            states, 1e3 * snapshot / states, 1e3 * write / states, 1e3 * (snapshot + write) / states,
            (snapshot + write) / std::max(1e-9, snapshot));
    }
    std::printf("  stage two's start to its first step: %.0f ms hashing every stage-one weight file, %.0f ms with the "
                "hashes remembered (%.0f ms less)\n",
        1e3 * firstStepAt(unremembered), 1e3 * firstStepAt(remembered), 1e3 * (firstStepAt(unremembered) - firstStepAt(remembered)));
    return scaleOut(with, work, data.directory) ? 0 : 1;
}
