// SPDX-License-Identifier: MIT
#include "ProcessGroup.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <arpa/inet.h>

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

} // namespace

struct ProcessGroup::Backend {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
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
        // machines, over the interface GLOO_SOCKET_IFNAME names (as torch does), or the
        // one this machine's host name resolves to.
        if (isLoopback(env.masterAddr))
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else if (const char *interface = std::getenv("GLOO_SOCKET_IFNAME"))
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
        else
            options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        options->threads = 2;
        m_backend->group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_backend->store, env.rank, env.worldSize, options);
    } catch (const std::exception &e) {
        throw DistributedError(env.describe() + ": the process group did not form within --dist_timeout " + seconds(timeout)
            + " (rendezvous at " + master + "; a rank that did not start, or stopped, keeps the others waiting): "
            + firstLine(e));
    }
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
