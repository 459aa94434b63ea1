// SPDX-License-Identifier: MIT
#include "Launcher.h"

#include "EngineCommands.h"
#include "StandardStreams.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace splitscope::cli {

namespace {

constexpr int kMaxRanks = 1024;
// The children's pids, for the signal handler (which may only read them).
pid_t g_children[kMaxRanks];
std::atomic<int> g_childCount{0};

void forwardSignal(int signal)
{
    const int count = g_childCount.load();
    for (int i = 0; i < count; ++i) {
        if (g_children[i] > 0)
            ::kill(g_children[i], signal);
    }
}

bool parseInt(const std::string &text, long minimum, long maximum, int &out)
{
    errno = 0;
    char *end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || errno != 0 || *end != '\0' || value < minimum || value > maximum)
        return false;
    out = static_cast<int>(value);
    return true;
}

// A folder only this user can enter, for the rendezvous file of one machine's ranks;
// empty when none can be made.
std::string privateFolder()
{
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/splitscope-rendezvous-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        return {};
    return pattern;
}

std::string describeExit(int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        return "was killed by signal " + std::to_string(signal) + " (" + std::string(strsignal(signal)) + ")";
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

} // namespace

bool takeLaunchFlags(std::vector<std::string> &args, LaunchOptions &options, bool &present, std::string &error)
{
    present = false;
    bool portGiven = false;
    bool addrGiven = false;
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::string value;
        bool inline_ = false;
        if (name.rfind("--", 0) == 0 && name.find('=') != std::string::npos) {
            value = name.substr(name.find('=') + 1);
            name = name.substr(0, name.find('='));
            inline_ = true;
        }
        static const char *const kFlags[] = {"--nproc_per_node", "--nnodes", "--node_rank", "--master_addr", "--master_port"};
        bool launcherFlag = false;
        for (const char *flag : kFlags)
            launcherFlag = launcherFlag || name == flag;
        if (!launcherFlag) {
            rest.push_back(args[i]);
            continue;
        }
        if (!inline_) {
            if (i + 1 >= args.size()) {
                error = name + " needs a value";
                return false;
            }
            value = args[++i];
        }
        bool ok = true;
        if (name == "--nproc_per_node") {
            present = true;
            ok = parseInt(value, 1, kMaxRanks, options.nprocPerNode);
        } else if (name == "--nnodes") {
            ok = parseInt(value, 1, kMaxRanks, options.nnodes);
        } else if (name == "--node_rank") {
            ok = parseInt(value, 0, kMaxRanks - 1, options.nodeRank);
        } else if (name == "--master_port") {
            ok = parseInt(value, 1, 65535, options.masterPort);
            portGiven = true;
        } else {
            options.masterAddr = value;
            addrGiven = true;
            ok = !value.empty();
        }
        if (!ok) {
            error = name + ": '" + value + "' is not valid (--nproc_per_node and --nnodes from 1, --node_rank from 0 to "
                "--nnodes-1, --master_port from 1 to 65535, --master_addr an address)";
            return false;
        }
    }
    const bool anyGiven = rest.size() != args.size();
    if (anyGiven && !present) {
        error = "--nnodes, --node_rank, --master_addr and --master_port go with --nproc_per_node (the ranks of this node)";
        return false;
    }
    if (present && options.nodeRank >= options.nnodes) {
        error = "--node_rank " + std::to_string(options.nodeRank) + " is not below --nnodes " + std::to_string(options.nnodes);
        return false;
    }
    if (present && options.nnodes * options.nprocPerNode > kMaxRanks) {
        error = "--nnodes x --nproc_per_node is more than " + std::to_string(kMaxRanks) + " ranks";
        return false;
    }
    if (present && options.nnodes > 1 && !addrGiven) {
        error = "--nnodes " + std::to_string(options.nnodes) + " needs --master_addr: the address of node 0 that every "
            "node can reach";
        return false;
    }
    if (present && !portGiven && options.nnodes > 1)
        options.masterPort = 29500; // torchrun's default
    args = rest;
    return true;
}

int launchRanks(const LaunchOptions &options, const std::vector<std::string> &trainArgs)
{
    const LaunchOptions &o = options;
    // One machine without --master_port: the ranks meet through a file (no port open).
    std::string folder;
    std::string storeFile;
    if (o.masterPort == 0) {
        folder = privateFolder();
        if (folder.empty()) {
            std::fprintf(stderr, "splitscope-cli train: cannot make a folder for the rendezvous file in $TMPDIR or /tmp: %s "
                                 "(--master_port PORT meets over TCP instead)\n", std::strerror(errno));
            return kExitFailure;
        }
        storeFile = folder + "/store";
    }
    const int world = o.nnodes * o.nprocPerNode;
    const std::string where = storeFile.empty() ? o.masterAddr + ":" + std::to_string(o.masterPort) : storeFile;
    std::fprintf(stderr, "splitscope-cli train: starting ranks %d-%d of %d (rendezvous at %s)\n",
        o.nodeRank * o.nprocPerNode, o.nodeRank * o.nprocPerNode + o.nprocPerNode - 1, world, where.c_str());
    std::fflush(nullptr);

    // A signal is passed on once, by this process, to each rank: the ranks run in
    // process groups of their own, so that a Ctrl-C in the terminal does not reach
    // them twice (a second one would stop them at once).
    struct sigaction action {};
    action.sa_handler = forwardSignal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        sigaction(signal, &action, nullptr);

    std::vector<std::string> argvText = {"splitscope-cli", "train"};
    argvText.insert(argvText.end(), trainArgs.begin(), trainArgs.end());
    for (int local = 0; local < o.nprocPerNode; ++local) {
        const int rank = o.nodeRank * o.nprocPerNode + local;
        const pid_t pid = ::fork();
        if (pid < 0) {
            std::fprintf(stderr, "splitscope-cli train: cannot start rank %d: %s\n", rank, std::strerror(errno));
            forwardSignal(SIGTERM);
            break;
        }
        if (pid == 0) {
            ::setpgid(0, 0);
            // Held back until the rank's handlers are in place (runTrain lets them through).
            sigset_t stops;
            sigemptyset(&stops);
            for (int signal : {SIGINT, SIGTERM, SIGHUP})
                sigaddset(&stops, signal);
            sigprocmask(SIG_BLOCK, &stops, nullptr);
            ::setenv("RANK", std::to_string(rank).c_str(), 1);
            ::setenv("LOCAL_RANK", std::to_string(local).c_str(), 1);
            ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
            ::setenv("LOCAL_WORLD_SIZE", std::to_string(o.nprocPerNode).c_str(), 1);
            ::setenv("GROUP_RANK", std::to_string(o.nodeRank).c_str(), 1);
            ::setenv("MASTER_ADDR", o.masterAddr.c_str(), 1);
            if (storeFile.empty()) {
                ::setenv("MASTER_PORT", std::to_string(o.masterPort).c_str(), 1);
                ::unsetenv("SPLITSCOPE_RENDEZVOUS_FILE");
            } else {
                ::unsetenv("MASTER_PORT");
                ::setenv("SPLITSCOPE_RENDEZVOUS_FILE", storeFile.c_str(), 1);
            }
            ::unsetenv("TORCHELASTIC_USE_AGENT_STORE");
            std::vector<char *> argv;
            for (std::string &a : argvText)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv("/proc/self/exe", argv.data());
            std::fprintf(stderr, "splitscope-cli train: cannot start rank %d: %s\n", rank, std::strerror(errno));
            ::_exit(kExitFailure);
        }
        g_children[local] = pid;
        g_childCount.store(local + 1);
    }
    unblockStopSignals();

    int result = 0;
    bool anyCancelled = false;
    int running = g_childCount.load();
    std::chrono::steady_clock::time_point killAt{};
    bool stopping = false;
    while (running > 0) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, stopping ? WNOHANG : 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;
        if (pid == 0) {
            if (std::chrono::steady_clock::now() >= killAt)
                forwardSignal(SIGKILL);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        int local = 0;
        while (local < g_childCount.load() && g_children[local] != pid)
            ++local;
        if (local == g_childCount.load())
            continue;
        g_children[local] = 0;
        --running;
        const int rank = o.nodeRank * o.nprocPerNode + local;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        const bool cancelled = WIFEXITED(status) && WEXITSTATUS(status) == kExitCancelled;
        anyCancelled = anyCancelled || cancelled;
        if (ok || cancelled)
            continue;
        if (result == 0) {
            result = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
            std::fprintf(stderr, "splitscope-cli train: rank %d (pid %d) %s%s\n", rank, static_cast<int>(pid),
                describeExit(status).c_str(), running > 0 ? ": stopping the other ranks" : "");
            std::fflush(stderr);
        }
        if (!stopping && running > 0) {
            stopping = true;
            forwardSignal(SIGTERM);
            killAt = std::chrono::steady_clock::now()
                + std::chrono::milliseconds(static_cast<long long>(o.graceSeconds * 1000));
        }
    }
    if (!folder.empty()) {
        ::unlink(storeFile.c_str());
        ::rmdir(folder.c_str());
    }
    if (result != 0)
        return result;
    return anyCancelled ? kExitCancelled : 0;
}

} // namespace splitscope::cli
