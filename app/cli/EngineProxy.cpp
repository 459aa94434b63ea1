// SPDX-License-Identifier: MIT
#include "EngineProxy.h"
#include "StandardStreams.h"

#include "core/engine/ExecutableCatalog.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace splitscope::cli {

namespace {

// The engine's commands, as `splitscope-engine --help` lists them (tests/engine checks
// that the two lists agree).
constexpr const char *kEngineProgram = "splitscope-engine";

std::string engineExecutable()
{
    char buffer[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0)
        return kEngineProgram;
    std::string self(buffer, static_cast<std::size_t>(n));
    const auto slash = self.find_last_of('/');
    return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + kEngineProgram;
}

std::vector<char *> argvOf(std::vector<std::string> &words)
{
    std::vector<char *> argv;
    for (auto &w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);
    return argv;
}

int handOver(const char *command, const Args &args)
{
    std::vector<std::string> words = {"splitscope-cli", command};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char *> argv = argvOf(words);
    const std::string program = engineExecutable();
    std::fflush(nullptr);
    if (std::strcmp(command, "train") == 0)
        blockStopSignals();
    ::execv(program.c_str(), argv.data());
    unblockStopSignals();
    std::fprintf(stderr,
        "splitscope-cli %s: cannot start the training engine '%s': %s (it belongs next to splitscope-cli; a build "
        "with -DSPLITSCOPE_BUILD_ENGINE=OFF has none)\n",
        command, program.c_str(), std::strerror(errno));
    return kExitFailure;
}

} // namespace

void addEngineProxyCommands(std::vector<Command> &commands)
{
    commands.push_back({"describe", "print a built-in executable pipeline's description (tiny-qwen-image)",
        [](const Args &a) { return handOver("describe", a); }});
    commands.push_back({"train", "train with DiffSynth's flags: one-stage, or stage one / stage two of a split",
        [](const Args &a) { return handOver("train", a); }});
    commands.push_back({"init-models", "write the tiny Qwen-Image models (seeded weights) under a models root",
        [](const Args &a) { return handOver("init-models", a); }});
    commands.push_back({"make-dataset", "write a captioned synthetic image set (PNG + metadata.csv)",
        [](const Args &a) { return handOver("make-dataset", a); }});
    commands.push_back({"sample", "draw images with the tiny models and a trained LoRA",
        [](const Args &a) { return handOver("sample", a); }});
}

std::vector<std::string> engineProxyPipelineNames()
{
    std::vector<std::string> names;
    for (const engine::ExecutablePipelineFacts &p : engine::executableCatalog())
        names.push_back(p.name);
    return names;
}

} // namespace splitscope::cli
