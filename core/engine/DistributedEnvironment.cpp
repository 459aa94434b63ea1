// SPDX-License-Identifier: MIT
#include "DistributedEnvironment.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

namespace splitscope::engine {

namespace {

// A whole decimal number in [minimum, maximum]; false for anything else.
bool parseWhole(const char *text, long minimum, long maximum, long &value)
{
    if (!text || !*text)
        return false;
    errno = 0;
    char *end = nullptr;
    const long parsed = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed < minimum || parsed > maximum)
        return false;
    value = parsed;
    return true;
}

} // namespace

std::string DistributedEnvironment::describe() const
{
    return "rank " + std::to_string(rank) + " of " + std::to_string(worldSize);
}

bool readDistributedEnvironment(const std::function<const char *(const char *)> &lookup, DistributedEnvironment &env,
    std::string *error)
{
    env = DistributedEnvironment{};
    const auto fail = [error](const std::string &message) {
        if (error)
            *error = message + " (torchrun's environment: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, "
                               "MASTER_PORT)";
        return false;
    };
    const auto shown = [](const char *name, const char *value) { return std::string(name) + "='" + value + "'"; };
    const char *rank = lookup("RANK");
    const char *worldSize = lookup("WORLD_SIZE");
    if (!rank && !worldSize)
        return true;
    long value = 0;
    if (!worldSize)
        return fail("RANK is set but WORLD_SIZE is not");
    if (!parseWhole(worldSize, 1, 1 << 20, value))
        return fail(shown("WORLD_SIZE", worldSize) + " is not a number of processes from 1");
    env.worldSize = static_cast<int>(value);
    if (!rank) {
        if (env.worldSize == 1)
            return true;
        return fail("WORLD_SIZE is " + std::to_string(env.worldSize) + " but RANK is not set");
    }
    if (!parseWhole(rank, 0, env.worldSize - 1, value))
        return fail(shown("RANK", rank) + " is not a rank from 0 to WORLD_SIZE-1 = " + std::to_string(env.worldSize - 1));
    env.rank = static_cast<int>(value);
    env.localRank = env.rank;
    env.localWorldSize = env.worldSize;
    if (const char *localWorldSize = lookup("LOCAL_WORLD_SIZE")) {
        if (!parseWhole(localWorldSize, 1, env.worldSize, value))
            return fail(shown("LOCAL_WORLD_SIZE", localWorldSize) + " is not a number from 1 to WORLD_SIZE");
        env.localWorldSize = static_cast<int>(value);
    }
    if (const char *localRank = lookup("LOCAL_RANK")) {
        if (!parseWhole(localRank, 0, env.localWorldSize - 1, value))
            return fail(shown("LOCAL_RANK", localRank) + " is not a rank from 0 to LOCAL_WORLD_SIZE-1 = "
                + std::to_string(env.localWorldSize - 1));
        env.localRank = static_cast<int>(value);
    }
    if (env.worldSize == 1)
        return true;
    if (const char *file = lookup("SPLITSCOPE_RENDEZVOUS_FILE"); file && *file) {
        env.storeFile = file;
        const char *addr = lookup("MASTER_ADDR");
        env.masterAddr = addr && *addr ? addr : "127.0.0.1";
        return true;
    }
    const char *addr = lookup("MASTER_ADDR");
    if (!addr || !*addr)
        return fail("WORLD_SIZE is " + std::to_string(env.worldSize) + " but MASTER_ADDR is not set");
    env.masterAddr = addr;
    const char *port = lookup("MASTER_PORT");
    if (!port)
        return fail("WORLD_SIZE is " + std::to_string(env.worldSize) + " but MASTER_PORT is not set");
    if (!parseWhole(port, 1, 65535, value))
        return fail(shown("MASTER_PORT", port) + " is not a port from 1 to 65535");
    env.masterPort = static_cast<int>(value);
    // torch compares it with str(True).
    const char *agent = lookup("TORCHELASTIC_USE_AGENT_STORE");
    env.agentStore = agent && std::string(agent) == "True";
    if (const char *restarts = lookup("TORCHELASTIC_RESTART_COUNT")) {
        if (!parseWhole(restarts, 0, INT_MAX, value))
            return fail(shown("TORCHELASTIC_RESTART_COUNT", restarts) + " is not a count from 0");
        env.restartCount = static_cast<int>(value);
    }
    return true;
}

} // namespace splitscope::engine
