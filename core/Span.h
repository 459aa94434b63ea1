// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

namespace splitscope {

// A read-only view of contiguous elements (the project is C++17, so no std::span).
template <typename T>
class Span {
public:
    Span() = default;
    Span(const T *data, std::size_t size) : m_data(data), m_size(size) {}
    Span(const std::vector<T> &v) : m_data(v.data()), m_size(v.size()) {} // NOLINT: implicit on purpose

    const T *begin() const { return m_data; }
    const T *end() const { return m_data + m_size; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T &operator[](std::size_t i) const { return m_data[i]; }
    const T &front() const { return m_data[0]; }
    const T &back() const { return m_data[m_size - 1]; }
    std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }

private:
    const T *m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace splitscope
