// SPDX-License-Identifier: MIT
#include "Heartbeat.h"

namespace splitscope::engine {

Heartbeat::Heartbeat(EventSink &events, std::chrono::milliseconds every)
    : m_events(events)
    , m_every(every)
    , m_thread([this] { watch(); })
{
}

Heartbeat::~Heartbeat()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void Heartbeat::begin(std::string what)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_what = std::move(what);
    m_since = std::chrono::steady_clock::now();
    m_nextReport = m_since + m_every;
}

void Heartbeat::end()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_what.clear();
}

void Heartbeat::watch()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop) {
        if (m_what.empty()) {
            m_wake.wait_for(lock, m_every);
            continue;
        }
        if (m_wake.wait_until(lock, m_nextReport, [this] { return m_stop; }))
            break;
        const auto now = std::chrono::steady_clock::now();
        if (m_what.empty() || now < m_nextReport)
            continue;
        const long long seconds = std::chrono::duration_cast<std::chrono::seconds>(now - m_since).count();
        const std::string message = "still " + m_what + ": " + std::to_string(seconds) + " s so far";
        m_nextReport = now + m_every;
        lock.unlock();
        m_events.log(message);
        lock.lock();
    }
}

} // namespace splitscope::engine
