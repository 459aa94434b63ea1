// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <string>

namespace splitscope::engine {

// This process's place in a torch.distributed process group, as torchrun (or any
// launcher following its env:// rendezvous) describes it in the environment:
// RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and
// TORCHELASTIC_USE_AGENT_STORE. Without RANK and WORLD_SIZE the process runs alone.
struct DistributedEnvironment {
    int rank = 0;
    int localRank = 0;
    int worldSize = 1;
    int localWorldSize = 1;
    std::string masterAddr;
    int masterPort = 0;
    // TORCHELASTIC_USE_AGENT_STORE=True: the launcher hosts the rendezvous store at
    // MASTER_ADDR:MASTER_PORT and every rank is its client; otherwise rank 0 hosts it.
    bool agentStore = false;
    // TORCHELASTIC_RESTART_COUNT: with the agent's store, keys live under
    // /worker/attempt_<N>/, as torch's own ranks keep them, so that a restarted group
    // never reads the keys of the one before.
    int restartCount = 0;
    // SPLITSCOPE_RENDEZVOUS_FILE: the ranks meet through c10d's FileStore in this file
    // instead of a TCPStore, with no port open at all. The built-in launcher sets it for
    // the ranks of one machine: LibTorch 1.13's TCPStore listens on every interface, and
    // a file in a folder only its user can read keeps the rendezvous on the machine.
    std::string storeFile;

    bool distributed() const { return worldSize > 1; }
    // "rank 1 of 2"
    std::string describe() const;
};

// Reads the variables `lookup` gives (getenv, or a test's map). False with `error`
// naming the variable and its value; a process without RANK and WORLD_SIZE (or with
// WORLD_SIZE=1) runs alone and needs no master.
bool readDistributedEnvironment(const std::function<const char *(const char *)> &lookup, DistributedEnvironment &env,
    std::string *error);

} // namespace splitscope::engine
