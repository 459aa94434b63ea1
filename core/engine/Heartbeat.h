// SPDX-License-Identifier: MIT
#pragma once

#include "Events.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace splitscope::engine {

// Says, every few seconds, that the work at hand is still under way: a step on a large
// image, or on a machine that swaps, or models that take a minute to load, never leave
// a run silent. The work names itself (begin) and ends (end); while one has run longer
// than `every`, a thread of its own logs "still <what>: N s so far" each `every`.
class Heartbeat {
public:
    Heartbeat(EventSink &events, std::chrono::milliseconds every = std::chrono::seconds(5));
    ~Heartbeat();
    Heartbeat(const Heartbeat &) = delete;
    Heartbeat &operator=(const Heartbeat &) = delete;

    void begin(std::string what); // "running step 12", "loading the models"
    void end();

private:
    void watch();

    EventSink &m_events;
    const std::chrono::milliseconds m_every;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::string m_what; // empty: nothing under way
    std::chrono::steady_clock::time_point m_since;
    std::chrono::steady_clock::time_point m_nextReport;
    std::thread m_thread;
};

// Heartbeat::begin for a scope.
class HeartbeatScope {
public:
    HeartbeatScope(Heartbeat &heartbeat, std::string what)
        : m_heartbeat(heartbeat)
    {
        m_heartbeat.begin(std::move(what));
    }
    ~HeartbeatScope() { m_heartbeat.end(); }
    HeartbeatScope(const HeartbeatScope &) = delete;
    HeartbeatScope &operator=(const HeartbeatScope &) = delete;

private:
    Heartbeat &m_heartbeat;
};

} // namespace splitscope::engine
