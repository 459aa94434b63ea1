// SPDX-License-Identifier: MIT
#include "AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace splitscope {

namespace {

bool setError(std::string *error, const std::string &what, const std::string &path, int err)
{
    if (error)
        *error = what + " '" + path + "': " + std::strerror(err);
    return false;
}

std::string directoryOf(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

bool writeFileAtomically(const std::string &path, std::string_view bytes, std::string *error)
{
    std::string tmpl = path + ".tmp-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        return setError(error, "cannot create a temporary file beside", path, errno);
    const std::string tmpPath(name.data());
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            ::unlink(tmpPath.c_str());
            return setError(error, "cannot write", tmpPath, err);
        }
        written += static_cast<std::size_t>(n);
    }
    // Keep the permissions an ordinary new file would get (mkstemp uses 0600).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmpPath.c_str());
        return setError(error, "cannot flush", tmpPath, err);
    }
    if (::rename(tmpPath.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmpPath.c_str());
        return setError(error, "cannot rename the temporary file onto", path, err);
    }
    // Make the rename itself durable.
    const int dirFd = ::open(directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

bool readWholeFile(const std::string &path, std::string &bytes, std::string *error)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return setError(error, "cannot open", path, errno);
    struct stat st {};
    if (::fstat(::fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        std::fclose(f);
        return setError(error, "cannot read", path, EISDIR);
    }
    bytes.clear();
    char buffer[1 << 16];
    while (true) {
        const std::size_t n = std::fread(buffer, 1, sizeof buffer, f);
        bytes.append(buffer, n);
        if (n < sizeof buffer) {
            if (std::ferror(f)) {
                const int err = errno;
                std::fclose(f);
                return setError(error, "cannot read", path, err);
            }
            break;
        }
    }
    std::fclose(f);
    return true;
}

} // namespace splitscope
