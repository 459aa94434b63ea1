// SPDX-License-Identifier: MIT
#include "Launcher.h"

#include "EngineCommands.h"
#include "StandardStreams.h"

#include <sys/prctl.h>
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
// The children's pids, for the signal handler (which only reads them; 0 for one that
// has ended).
std::atomic<pid_t> g_children[kMaxRanks];
std::atomic<int> g_childCount{0};
// Whether a stop signal was passed on: a second would stop the ranks at once.
std::atomic<bool> g_stopForwarded{false};
static_assert(std::atomic<pid_t>::is_always_lock_free, "read in a signal handler");

void forwardSignal(int signal)
{
    const int savedErrno = errno;
    if (signal != SIGKILL)
        g_stopForwarded.store(true);
    const int count = g_childCount.load();
    for (int i = 0; i < count; ++i) {
        const pid_t pid = g_children[i].load();
        if (pid > 0)
            ::kill(pid, signal);
    }
    errno = savedErrno;
}

// One rank's environment: this process's, with torchrun's variables set for it.
std::vector<std::string> rankEnvironment(const LaunchOptions &o, int local, const std::string &storeFile)
{
    static const char *const kOwn[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR",
        "MASTER_PORT", "SPLITSCOPE_RENDEZVOUS_FILE", "TORCHELASTIC_USE_AGENT_STORE"};
    std::vector<std::string> env;
    for (char **e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool own = false;
        for (const char *n : kOwn)
            own = own || name == n;
        if (!own)
            env.push_back(entry);
    }
    const int rank = o.nodeRank * o.nprocPerNode + local;
    env.push_back("RANK=" + std::to_string(rank));
    env.push_back("LOCAL_RANK=" + std::to_string(local));
    env.push_back("WORLD_SIZE=" + std::to_string(o.nnodes * o.nprocPerNode));
    env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(o.nprocPerNode));
    env.push_back("GROUP_RANK=" + std::to_string(o.nodeRank));
    env.push_back("MASTER_ADDR=" + o.masterAddr);
    if (storeFile.empty())
        env.push_back("MASTER_PORT=" + std::to_string(o.masterPort));
    else
        env.push_back("SPLITSCOPE_RENDEZVOUS_FILE=" + storeFile);
    return env;
}

std::vector<char *> pointers(std::vector<std::string> &texts)
{
    std::vector<char *> out;
    for (std::string &t : texts)
        out.push_back(t.data());
    out.push_back(nullptr);
    return out;
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
    std::vector<char *> argv = pointers(argvText);
    const pid_t launcher = ::getpid();

    int result = 0;
    bool anyCancelled = false;
    std::chrono::steady_clock::time_point killAt{};
    bool stopping = false;
    // Asks every rank still running to stop (once: a second signal would stop them
    // at once), and kills those left after the grace time.
    const auto stopTheRest = [&] {
        if (stopping)
            return;
        stopping = true;
        if (!g_stopForwarded.load())
            forwardSignal(SIGTERM);
        killAt = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(o.graceSeconds * 1000));
    };
    for (int local = 0; local < o.nprocPerNode; ++local) {
        const int rank = o.nodeRank * o.nprocPerNode + local;
        // Made before the fork: the child only calls what is safe there.
        std::vector<std::string> envText = rankEnvironment(o, local, storeFile);
        std::vector<char *> envp = pointers(envText);
        const pid_t pid = ::fork();
        if (pid < 0) {
            std::fprintf(stderr, "splitscope-cli train: cannot start rank %d: %s%s\n", rank, std::strerror(errno),
                local > 0 ? ": stopping the other ranks" : "");
            result = kExitFailure;
            stopTheRest();
            break;
        }
        if (pid == 0) {
            ::setpgid(0, 0);
            // A rank ends with its launcher, even one killed outright (SIGKILL).
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != launcher)
                ::_exit(kExitFailure);
            // Held back until the rank's handlers are in place (runTrain lets them through).
            sigset_t stops;
            sigemptyset(&stops);
            for (int signal : {SIGINT, SIGTERM, SIGHUP})
                sigaddset(&stops, signal);
            sigprocmask(SIG_BLOCK, &stops, nullptr);
            ::execve("/proc/self/exe", argv.data(), envp.data());
            const char message[] = "splitscope-cli train: cannot start a rank: execve failed\n";
            [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message, sizeof message - 1);
            ::_exit(kExitFailure);
        }
        g_children[local].store(pid);
        g_childCount.store(local + 1);
    }
    unblockStopSignals();

    int running = g_childCount.load();
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
        while (local < g_childCount.load() && g_children[local].load() != pid)
            ++local;
        if (local == g_childCount.load())
            continue;
        g_children[local].store(0);
        --running;
        const int rank = o.nodeRank * o.nprocPerNode + local;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        const bool cancelled = WIFEXITED(status) && WEXITSTATUS(status) == kExitCancelled;
        anyCancelled = anyCancelled || cancelled;
        if (ok)
            continue;
        if (!cancelled && result == 0) {
            result = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
            std::fprintf(stderr, "splitscope-cli train: rank %d (pid %d) %s%s\n", rank, static_cast<int>(pid),
                describeExit(status).c_str(), running > 0 ? ": stopping the other ranks" : "");
            std::fflush(stderr);
        }
        // A rank that failed or was killed while others run: they are asked to stop,
        // and none waits for it beyond the grace time. One cancelled: the others are
        // asked to stop too, and stop after the same step (the ranks agree on it), given
        // the time the state takes to write.
        if (running > 0 && !cancelled)
            stopTheRest();
        else if (running > 0 && !g_stopForwarded.load())
            forwardSignal(SIGTERM);
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
