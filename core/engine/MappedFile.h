// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>

namespace splitscope::engine {

// A whole file mapped read-only (mmap). Move-only; unmaps on destruction. Pages are
// read on first touch, so mapping a large weight file costs nothing until it is read.
class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile();
    MappedFile(MappedFile &&other) noexcept;
    MappedFile &operator=(MappedFile &&other) noexcept;
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    // False with `error` ("cannot open 'path': reason") on failure. An empty file
    // maps to size() == 0 and data() == nullptr.
    bool open(const std::string &path, std::string *error = nullptr);
    void close();

    const unsigned char *data() const { return m_data; }
    std::size_t size() const { return m_size; }
    const std::string &path() const { return m_path; }
    bool isOpen() const { return m_open; }

private:
    const unsigned char *m_data = nullptr;
    std::size_t m_size = 0;
    std::string m_path;
    bool m_open = false;
};

} // namespace splitscope::engine
