// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <ctime>
#include <vector>

namespace splitscope::test {

constexpr int kProbeMs = 5; // latency probe period

// The CPU time this thread has used, in nanoseconds.
inline qint64 threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<qint64>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// Records the longest gap between ticks of a fast timer: the event loop's worst stall.
// On a loaded machine a gap also holds time spent waiting for a CPU, so the GUI
// thread's own CPU time within the worst gap is recorded as well. (A tick costs
// microseconds.)
class LatencyProbe {
public:
    LatencyProbe()
    {
        m_timer.setInterval(kProbeMs);
        QObject::connect(&m_timer, &QTimer::timeout, [this]() {
            const qint64 now = m_clock.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            if (m_last >= 0)
                m_gaps.push_back(now - m_last);
            if (m_last >= 0 && now - m_last > m_worst) {
                m_worst = now - m_last;
                m_worstAt = m_last;
                m_worstCpu = cpu - m_lastCpu;
            }
            m_last = now;
            m_lastCpu = cpu;
        });
    }
    void start()
    {
        m_worst = 0;
        m_last = 0; // a stall right at the start counts from here
        m_lastCpu = threadCpuNs();
        m_worstCpu = 0;
        m_gaps.clear();
        m_clock.start();
        m_timer.start();
    }
    double worstMs()
    {
        m_timer.stop();
        // A stall still going on at the end counts too.
        if (m_last >= 0 && m_clock.nsecsElapsed() - m_last > m_worst) {
            m_worst = m_clock.nsecsElapsed() - m_last;
            m_worstAt = m_last;
            m_worstCpu = threadCpuNs() - m_lastCpu;
        }
        return m_worst / 1e6;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_worst = 0;
    qint64 m_worstAt = 0;
    qint64 m_lastCpu = 0;
    qint64 m_worstCpu = 0;

    std::vector<qint64> m_gaps;

public:
    double worstStartMs() const { return m_worstAt / 1e6; }
    // The gap below which `fraction` of all gaps lie (0.99: the 99th percentile), in ms.
    double percentileMs(double fraction) const
    {
        if (m_gaps.empty())
            return 0;
        std::vector<qint64> sorted = m_gaps;
        std::sort(sorted.begin(), sorted.end());
        const std::size_t i = std::min(sorted.size() - 1, static_cast<std::size_t>(fraction * sorted.size()));
        return sorted[i] / 1e6;
    }
    double worstCpuMs() const { return m_worstCpu / 1e6; }
};

} // namespace splitscope::test
