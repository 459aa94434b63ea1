// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope::cli {

// `splitscope-cli train --nproc_per_node N ...`: starts this node's N ranks of a
// torch.distributed group, each `splitscope-cli train ...` with torchrun's environment
// (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), as
// torchrun's static rendezvous would. The process group is c10d's, formed by the ranks
// themselves: over a FileStore in a private folder on one machine without
// --master_port (no port opened), else a TCPStore that rank 0 hosts. Debian's torchrun 1.13 does not start on Python
// 3.11, hence this launcher; where torchrun works,
// `torchrun --nproc_per_node N --no_python splitscope-cli train ...` does the same.
struct LaunchOptions {
    int nprocPerNode = 1;
    int nnodes = 1;
    int nodeRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0; // 0: one node meets through a file; several use 29500
    double graceSeconds = 30; // after a rank fails, before the rest are killed
};

// Takes --nproc_per_node, --nnodes, --node_rank, --master_addr and --master_port out
// of `args` into `options`. False with `error` naming the flag; `present` says whether
// --nproc_per_node was given (no launch otherwise).
bool takeLaunchFlags(std::vector<std::string> &args, LaunchOptions &options, bool &present, std::string &error);

// Runs the ranks with `trainArgs` (the train flags, without the launcher's) and waits
// for them. SIGINT, SIGTERM and SIGHUP are passed on to every rank (each finishes its
// step and keeps its work, as one process does). When a rank fails or is killed, the
// launcher names it, asks the others to stop (SIGTERM) and kills what is still running
// after `graceSeconds`; one that fails to start does the same. The ranks die with the
// launcher, even one killed by SIGKILL (PR_SET_PDEATHSIG). Returns the first failed rank's exit status (1 for one killed by
// a signal), else 4 when any was cancelled, else 0.
int launchRanks(const LaunchOptions &options, const std::vector<std::string> &trainArgs);

} // namespace splitscope::cli
