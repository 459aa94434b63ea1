// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace splitscope::engine {

// Computes produce(0), produce(1), ... produce(count - 1) on `workers` threads, at
// most `depth` items ahead of the consumer, and hands them out in order. With 0
// workers, take() computes in the calling thread. The order of results never
// depends on the thread count, so neither does anything computed from them.
//
// One consumer thread calls take(); produce() must be thread-safe. The destructor
// stops the workers (items not yet taken are dropped).
template <typename T>
class OrderedPrefetcher {
public:
    OrderedPrefetcher(std::size_t count, int workers, std::size_t depth, std::function<T(std::size_t)> produce)
        : m_count(count)
        , m_depth(depth < 1 ? 1 : depth)
        , m_produce(std::move(produce))
    {
        for (int w = 0; w < workers; ++w)
            m_threads.emplace_back([this] { work(); });
    }
    ~OrderedPrefetcher()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_changed.notify_all();
        for (auto &t : m_threads)
            t.join();
    }
    OrderedPrefetcher(const OrderedPrefetcher &) = delete;
    OrderedPrefetcher &operator=(const OrderedPrefetcher &) = delete;

    // The next item in order; call at most `count` times.
    T take()
    {
        const std::size_t index = m_taken;
        if (m_threads.empty()) {
            ++m_taken;
            return m_produce(index);
        }
        const auto start = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [&] { return m_ready.count(index) > 0; });
        T item = std::move(m_ready[index]);
        m_ready.erase(index);
        ++m_taken;
        m_waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        lock.unlock();
        m_changed.notify_all();
        return item;
    }

    // Seconds take() spent waiting for a worker (0 without workers).
    double waitSeconds() const { return m_waitSeconds; }

private:
    void work()
    {
        for (;;) {
            std::size_t index = 0;
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_changed.wait(lock, [&] { return m_stopping || (m_next < m_count && m_next < m_taken + m_depth); });
                if (m_stopping)
                    return;
                index = m_next++;
            }
            T item = m_produce(index);
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_ready.emplace(index, std::move(item));
            }
            m_changed.notify_all();
        }
    }

    const std::size_t m_count;
    const std::size_t m_depth;
    std::function<T(std::size_t)> m_produce;
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<std::size_t, T> m_ready;
    std::size_t m_next = 0;
    std::size_t m_taken = 0; // written by the consumer under the mutex (or alone without workers)
    bool m_stopping = false;
    double m_waitSeconds = 0;
};

} // namespace splitscope::engine
