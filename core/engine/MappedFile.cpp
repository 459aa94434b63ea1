// SPDX-License-Identifier: MIT
#include "MappedFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace splitscope::engine {

MappedFile::~MappedFile()
{
    close();
}

MappedFile::MappedFile(MappedFile &&other) noexcept
{
    *this = std::move(other);
}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept
{
    if (this != &other) {
        close();
        m_data = other.m_data;
        m_size = other.m_size;
        m_path = std::move(other.m_path);
        m_open = other.m_open;
        other.m_data = nullptr;
        other.m_size = 0;
        other.m_open = false;
    }
    return *this;
}

bool MappedFile::open(const std::string &path, std::string *error)
{
    close();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (error)
            *error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int code = errno;
        ::close(fd);
        if (error)
            *error = "cannot read '" + path + "': " + (S_ISDIR(st.st_mode) ? "it is a directory" : std::strerror(code));
        return false;
    }
    m_path = path;
    m_size = static_cast<std::size_t>(st.st_size);
    if (m_size > 0) {
        void *address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (address == MAP_FAILED) {
            const int code = errno;
            ::close(fd);
            m_size = 0;
            if (error)
                *error = "cannot map '" + path + "': " + std::strerror(code);
            return false;
        }
        m_data = static_cast<const unsigned char *>(address);
    }
    // The mapping keeps the file's pages reachable; the descriptor is no longer needed.
    ::close(fd);
    m_open = true;
    return true;
}

void MappedFile::close()
{
    if (m_data)
        ::munmap(const_cast<unsigned char *>(m_data), m_size);
    m_data = nullptr;
    m_size = 0;
    m_open = false;
}

} // namespace splitscope::engine
