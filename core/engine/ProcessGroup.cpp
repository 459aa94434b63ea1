// SPDX-License-Identifier: MIT
#include "ProcessGroup.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace splitscope::engine {

namespace {

// The first line of a c10d or Gloo message (LibTorch adds a backtrace after it).
std::string firstLine(const std::exception &e)
{
    std::string text;
    if (const auto *error = dynamic_cast<const c10::Error *>(&e))
        text = error->what_without_backtrace();
    else
        text = e.what();
    return text.substr(0, text.find('\n'));
}

bool isLoopback(const std::string &address)
{
    if (address == "localhost" || address == "::1")
        return true;
    in_addr parsed{};
    return ::inet_pton(AF_INET, address.c_str(), &parsed) == 1 && (ntohl(parsed.s_addr) >> 24) == 127;
}

// This machine's address on the route to `master` (a name or an address): what a UDP
// socket connected there is bound to; nothing is sent. Empty when there is no route.
// Gloo's default device instead takes the host name's address, which Debian maps to
// 127.0.1.1, out of other machines' reach.
std::string localAddressTowards(const std::string &master, int port)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo *found = nullptr;
    if (::getaddrinfo(master.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
        return {};
    std::string address;
    for (const addrinfo *a = found; a && address.empty(); a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        sockaddr_storage local{};
        socklen_t length = sizeof local;
        char text[INET6_ADDRSTRLEN] = {};
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0
            && ::getsockname(fd, reinterpret_cast<sockaddr *>(&local), &length) == 0) {
            const void *raw = local.ss_family == AF_INET6
                ? static_cast<const void *>(&reinterpret_cast<const sockaddr_in6 *>(&local)->sin6_addr)
                : static_cast<const void *>(&reinterpret_cast<const sockaddr_in *>(&local)->sin_addr);
            if (::inet_ntop(local.ss_family, raw, text, sizeof text))
                address = text;
        }
        ::close(fd);
    }
    ::freeaddrinfo(found);
    return address;
}

std::string seconds(std::chrono::milliseconds timeout)
{
    return std::to_string(timeout.count() / 1000) + " s";
}

// The rendezvous store: a file (the built-in launcher's, on one machine), else
// torch's env:// rules: a TCPStore at MASTER_ADDR:MASTER_PORT hosted by rank 0, or by
// the launcher with TORCHELASTIC_USE_AGENT_STORE=True (its keys under the restart
// attempt's prefix, as torch's ranks use them).
c10::intrusive_ptr<c10d::Store> openStore(const DistributedEnvironment &env, std::chrono::milliseconds timeout)
{
    if (!env.storeFile.empty()) {
        auto store = c10::make_intrusive<c10d::FileStore>(env.storeFile, env.worldSize);
        store->setTimeout(timeout);
        return store;
    }
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(env.masterPort);
    options.isServer = !env.agentStore && env.rank == 0;
    options.numWorkers = static_cast<std::size_t>(env.worldSize);
    options.waitWorkers = false; // the Gloo rendezvous waits for every rank
    options.timeout = timeout;
    c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, options);
    if (env.agentStore)
        store = c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + std::to_string(env.restartCount), store);
    return store;
}

constexpr auto kBeatInterval = std::chrono::seconds(2);

std::string beatKey(int rank)
{
    return "beat/" + std::to_string(rank);
}

// A thread that adds one to this rank's heartbeat key every kBeatInterval while the
// process lives, for gather's waits (which have no deadline) to tell a rank still at
// work from one whose process stopped. The stores lock their own operations, so it
// shares the store with the collectives' rendezvous.
class Heartbeats {
public:
    Heartbeats(c10::intrusive_ptr<c10d::Store> store, int rank)
        : m_thread([this, store = std::move(store), rank] { beat(*store, rank); })
    {
    }
    ~Heartbeats()
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    Heartbeats(const Heartbeats &) = delete;
    Heartbeats &operator=(const Heartbeats &) = delete;

private:
    void beat(c10d::Store &store, int rank)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_stop) {
            try {
                store.add(beatKey(rank), 1);
            } catch (const std::exception &) {
                return; // the store is gone (its host stopped): the waits see that themselves
            }
            m_wake.wait_for(lock, kBeatInterval, [this] { return m_stop; });
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread; // last: started once the rest is in place
};

std::vector<std::uint8_t> toBytes(const std::string &text)
{
    return {text.begin(), text.end()};
}

} // namespace

struct ProcessGroup::Backend {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    std::unique_ptr<Heartbeats> heartbeats;
};

ProcessGroup::ProcessGroup(const DistributedEnvironment &env, std::chrono::milliseconds timeout)
    : m_env(env)
    , m_timeout(timeout)
    , m_backend(std::make_unique<Backend>())
{
    const std::string master = env.storeFile.empty() ? env.masterAddr + ":" + std::to_string(env.masterPort)
                                                     : "the file " + env.storeFile;
    try {
        m_backend->store = c10::make_intrusive<c10d::PrefixStore>("splitscope/", openStore(env, timeout));
    } catch (const std::exception &e) {
        const std::string host = !env.storeFile.empty() ? "" : env.agentStore ? " (the launcher's)"
            : env.rank == 0                                                  ? " (this rank hosts it)"
                                                                             : " (rank 0 hosts it)";
        throw DistributedError(env.describe() + ": cannot reach the rendezvous store at " + master + host
            + " within --dist_timeout " + seconds(timeout) + ": " + firstLine(e));
    }
    try {
        auto options = c10d::ProcessGroupGloo::Options::create(timeout);
        // A group on one machine talks over the loopback interface only; across
        // machines, over the interface GLOO_SOCKET_IFNAME names (as torch does), else
        // the one this machine reaches the master through.
        const char *interface = std::getenv("GLOO_SOCKET_IFNAME");
        const std::string local
            = isLoopback(env.masterAddr) ? "127.0.0.1" : localAddressTowards(env.masterAddr, env.masterPort);
        if (!isLoopback(env.masterAddr) && interface && *interface)
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
        else if (!local.empty())
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(local));
        else
            options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        options->threads = 2;
        m_backend->group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_backend->store, env.rank, env.worldSize, options);
    } catch (const std::exception &e) {
        throw DistributedError(env.describe() + ": the process group did not form within --dist_timeout " + seconds(timeout)
            + " (rendezvous at " + master + "; a rank that did not start, or stopped, keeps the others waiting): "
            + firstLine(e));
    }
    m_backend->heartbeats = std::make_unique<Heartbeats>(m_backend->store, env.rank);
}

ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::failed(const std::string &what, const std::string &cause) const
{
    throw DistributedError(m_env.describe() + ": " + what + " failed: " + cause
        + " (another rank stopped, was killed, or did not answer within --dist_timeout " + seconds(m_timeout) + ")");
}

void ProcessGroup::allReduceSum(std::vector<at::Tensor> &tensors, const std::string &what)
{
    const auto t0 = std::chrono::steady_clock::now();
    try {
        for (at::Tensor &tensor : tensors) {
            std::vector<at::Tensor> one{tensor};
            m_backend->group->allreduce(one)->wait(m_timeout);
        }
    } catch (const std::exception &e) {
        failed(what, firstLine(e));
    }
    m_collectiveSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct ProcessGroup::Pending::Work {
    c10::intrusive_ptr<c10d::Work> work;
    std::string what;
};

ProcessGroup::Pending::Pending() = default;
ProcessGroup::Pending::Pending(Pending &&) noexcept = default;
ProcessGroup::Pending &ProcessGroup::Pending::operator=(Pending &&) noexcept = default;
ProcessGroup::Pending::~Pending() = default;

ProcessGroup::Pending ProcessGroup::startAllReduceSum(at::Tensor &tensor, const std::string &what)
{
    Pending pending;
    pending.m_work = std::make_unique<Pending::Work>();
    pending.m_work->what = what;
    try {
        std::vector<at::Tensor> one{tensor};
        pending.m_work->work = m_backend->group->allreduce(one);
    } catch (const std::exception &e) {
        failed(what, firstLine(e));
    }
    return pending;
}

void ProcessGroup::wait(Pending &pending)
{
    if (!pending.m_work || !pending.m_work->work)
        return;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        pending.m_work->work->wait(m_timeout);
    } catch (const std::exception &e) {
        failed(pending.m_work->what, firstLine(e));
    }
    pending.m_work->work.reset();
    m_collectiveSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::optional<std::vector<std::string>> ProcessGroup::gather(const std::string &name, const std::string &value,
    const std::function<bool()> &stop, const std::string &what)
{
    c10d::Store &store = *m_backend->store;
    const std::string prefix = "gather/" + name + "/";
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> parts;
    try {
        store.set(prefix + std::to_string(rank()), toBytes(value));
        // Each other rank's heartbeat, and when it last changed.
        std::vector<std::int64_t> beats(static_cast<std::size_t>(size()), -1);
        std::vector<std::chrono::steady_clock::time_point> heard(beats.size(), t0);
        const auto silence = std::max<std::chrono::milliseconds>(m_timeout, 5 * kBeatInterval);
        for (;;) {
            bool all = true;
            for (int r = 0; r < size(); ++r) {
                if (r == rank() || store.check({prefix + std::to_string(r)}))
                    continue;
                all = false;
                const auto now = std::chrono::steady_clock::now();
                const std::int64_t beat = store.add(beatKey(r), 0);
                if (beat != beats[static_cast<std::size_t>(r)]) {
                    beats[static_cast<std::size_t>(r)] = beat;
                    heard[static_cast<std::size_t>(r)] = now;
                } else if (now - heard[static_cast<std::size_t>(r)] > silence) {
                    failed(what, "rank " + std::to_string(r) + " has not been heard from for "
                        + seconds(std::chrono::duration_cast<std::chrono::milliseconds>(silence)) + " (its process stopped)");
                }
            }
            if (all)
                break;
            if (stop && stop())
                return std::nullopt;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        for (int r = 0; r < size(); ++r) {
            const std::vector<std::uint8_t> bytes = store.get(prefix + std::to_string(r));
            parts.emplace_back(bytes.begin(), bytes.end());
        }
    } catch (const DistributedError &) {
        throw;
    } catch (const std::exception &e) {
        failed(what, firstLine(e));
    }
    awaitReaders(prefix, what);
    m_collectiveSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return parts;
}

void ProcessGroup::awaitReaders(const std::string &prefix, const std::string &what)
{
    c10d::Store &store = *m_backend->store;
    try {
        std::int64_t readers = store.add(prefix + "read", 1);
        const auto until = std::chrono::steady_clock::now() + m_timeout;
        while (rank() == 0 && readers < size()) {
            if (std::chrono::steady_clock::now() > until)
                failed(what, std::to_string(size() - readers) + " ranks did not read the others' parts");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            readers = store.add(prefix + "read", 0);
        }
    } catch (const DistributedError &) {
        throw;
    } catch (const std::exception &e) {
        failed(what, firstLine(e));
    }
}

void ProcessGroup::barrier(const std::string &what)
{
    const auto t0 = std::chrono::steady_clock::now();
    try {
        m_backend->group->barrier()->wait(m_timeout);
    } catch (const std::exception &e) {
        failed(what, firstLine(e));
    }
    m_collectiveSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace splitscope::engine
