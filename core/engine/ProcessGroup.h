// SPDX-License-Identifier: MIT
#pragma once

#include "DistributedEnvironment.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace splitscope::engine {

// A collective that failed, or a rendezvous that did not complete: another rank
// stopped, was killed, or cannot be reached. The message says what was being done,
// by which rank, and with which master.
class DistributedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// This process's membership of a torch.distributed process group: c10d's TCPStore
// for the rendezvous (torch's env:// rules: rank 0 hosts it, or the launcher does
// with TORCHELASTIC_USE_AGENT_STORE=True), or its FileStore (the built-in launcher on
// one machine), and c10d's ProcessGroupGloo for the collectives. Only Gloo: Debian's
// LibTorch has no CUDA, so no NCCL.
class ProcessGroup {
public:
    // Joins the group; throws DistributedError naming the master and the timeout when
    // the rendezvous does not complete within `timeout`, which also bounds every
    // collective after it (not gather, which has no deadline).
    ProcessGroup(const DistributedEnvironment &env, std::chrono::milliseconds timeout);
    ~ProcessGroup();
    ProcessGroup(const ProcessGroup &) = delete;
    ProcessGroup &operator=(const ProcessGroup &) = delete;

    int rank() const { return m_env.rank; }
    int size() const { return m_env.worldSize; }
    const DistributedEnvironment &environment() const { return m_env; }

    // Sums each tensor (contiguous, on the CPU) element-wise over the ranks, in place.
    // `what` says what the sum is for, in the message of a failure. Throws
    // DistributedError.
    void allReduceSum(std::vector<at::Tensor> &tensors, const std::string &what);
    // Returns once every rank has called it. Throws DistributedError.
    void barrier(const std::string &what);

    // A sum started by startAllReduceSum, running on Gloo's threads while this one
    // goes on; wait() for it before reading the tensor.
    class Pending {
    public:
        Pending();
        Pending(Pending &&) noexcept;
        Pending &operator=(Pending &&) noexcept;
        ~Pending();

    private:
        friend class ProcessGroup;
        struct Work;
        std::unique_ptr<Work> m_work;
    };
    // Starts summing `tensor` (contiguous, on the CPU) over the ranks, in place. Every
    // rank must start the same sums in the same order. Throws DistributedError.
    Pending startAllReduceSum(at::Tensor &tensor, const std::string &what);
    // Waits for `pending` to finish; the time waited counts in collectiveSeconds().
    void wait(Pending &pending);
    // Publishes `value` as this rank's part of `name` (a name used once) and waits,
    // with no deadline, until every rank has published its part: a rank may reach this
    // point long after another (stage one's shares of uneven images). Returns the
    // parts by rank, or nothing once `stop` returns true (checked ten times a second).
    // A rank whose process stops (its heartbeat, one every 2 s, not heard for
    // --dist_timeout) ends the wait with DistributedError naming it.
    std::optional<std::vector<std::string>> gather(const std::string &name, const std::string &value,
        const std::function<bool()> &stop, const std::string &what);

    // Seconds this thread waited in allReduceSum, barrier and wait so far.
    double collectiveSeconds() const { return m_collectiveSeconds; }

private:
    [[noreturn]] void failed(const std::string &what, const std::string &cause) const;
    // Waits, within --dist_timeout, until every rank has read the parts of `name`, so
    // that the store's host (rank 0) does not leave while another still reads them.
    void awaitReaders(const std::string &prefix, const std::string &what);

    struct Backend;
    DistributedEnvironment m_env;
    std::chrono::milliseconds m_timeout;
    std::unique_ptr<Backend> m_backend;
    double m_collectiveSeconds = 0;
};

} // namespace splitscope::engine
