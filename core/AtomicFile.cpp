// SPDX-License-Identifier: MIT
#include "AtomicFile.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace splitscope {

namespace {

// Links followed before giving up with ELOOP, as the kernel does (MAXSYMLINKS).
constexpr int kMaxSymlinkHops = 40;

// `what` 'name': reason. `name` comes quoted by quoted() or describedTarget().
bool setError(std::string *error, const std::string &what, const std::string &name, int err)
{
    if (error)
        *error = what + " " + name + ": " + std::strerror(err);
    return false;
}

std::string quoted(const std::string &path)
{
    return "'" + path + "'";
}

// The file a link leads to, named with the link the caller gave.
std::string describedTarget(const std::string &target, const std::string &path)
{
    return target == path ? quoted(path) : quoted(target) + " (where the link " + quoted(path) + " points)";
}

std::string directoryOf(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool writeAll(int fd, std::string_view bytes)
{
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        written += static_cast<std::size_t>(n);
    }
    return true;
}

// Follows the chain of symbolic links that `path` starts, by hand, to the first name
// that is not a link; used for a chain that ends at a missing file (which stat()
// cannot follow). False with `err` set on a loop or an unreadable link.
bool followDanglingLinks(const std::string &path, std::string &target, int &err)
{
    target = path;
    for (int hop = 0; hop <= kMaxSymlinkHops; ++hop) {
        struct stat st {};
        if (::lstat(target.c_str(), &st) != 0) {
            if (errno == ENOENT)
                return true; // the file the chain leads to, to be created
            err = errno;
            return false;
        }
        if (!S_ISLNK(st.st_mode))
            return true;
        char buffer[PATH_MAX];
        const ssize_t n = ::readlink(target.c_str(), buffer, sizeof buffer);
        if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buffer) {
            err = n < 0 ? errno : (n == 0 ? ENOENT : ENAMETOOLONG);
            return false;
        }
        const std::string link(buffer, static_cast<std::size_t>(n));
        // A relative link is relative to the directory that holds it.
        if (link.front() == '/' || target.find('/') == std::string::npos)
            target = link;
        else
            target = directoryOf(target) + "/" + link;
    }
    err = ELOOP;
    return false;
}

// The temporary file + rename. `target` is a regular file or a missing one;
// `mode`, when given, is the permission bits of the file replaced.
bool replaceAtomically(const std::string &target, const std::string &name, std::optional<mode_t> mode,
    std::string_view bytes, std::string *error)
{
    std::string tmpl = target + ".tmp-XXXXXX";
    std::vector<char> tmpName(tmpl.begin(), tmpl.end());
    tmpName.push_back('\0');
    const int fd = ::mkstemp(tmpName.data());
    if (fd < 0)
        return setError(error, "cannot create a temporary file beside", name, errno);
    const std::string tmpPath(tmpName.data());
    if (!writeAll(fd, bytes)) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmpPath.c_str());
        // Named by the file the user asked for: the temporary one is gone already.
        return setError(error, "cannot write", name, err);
    }
    if (!mode) {
        // The permissions an ordinary new file would get (mkstemp uses 0600).
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    ::fchmod(fd, *mode);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmpPath.c_str());
        return setError(error, "cannot write", name, err);
    }
    if (::rename(tmpPath.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmpPath.c_str());
        return setError(error, "cannot rename the temporary file onto", name, err);
    }
    // Make the rename itself durable.
    const int dirFd = ::open(directoryOf(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

// The descriptor a path names when it is one of this process's own open files
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1. Such a path must be
// written on that descriptor: following it to a regular file and renaming over it
// would replace the file the shell redirected output into (`>> log` would lose log).
int ownDescriptor(const std::string &path)
{
    if (path == "/dev/stdout")
        return 1;
    if (path == "/dev/stderr")
        return 2;
    for (const char *prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const std::string p(prefix);
        if (path.compare(0, p.size(), p) != 0 || path.size() == p.size() || path.size() > p.size() + 9)
            continue;
        int fd = 0;
        for (std::size_t i = p.size(); i < path.size(); ++i) {
            if (path[i] < '0' || path[i] > '9')
                return -1;
            fd = fd * 10 + (path[i] - '0');
        }
        return fd;
    }
    return -1;
}

} // namespace

bool writeFileAtomically(const std::string &path, std::string_view bytes, std::string *error)
{
    if (path.empty())
        return setError(error, "cannot write", quoted(path), ENOENT);
    if (const int fd = ownDescriptor(path); fd >= 0) {
        // Written where the descriptor stands (appending if it was opened to append).
        if (::fcntl(fd, F_GETFD) < 0)
            return setError(error, "cannot write", quoted(path), EBADF);
        if (!writeAll(fd, bytes))
            return setError(error, "cannot write", quoted(path), errno);
        return true;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        int err = errno;
        if (err != ENOENT)
            return setError(error, "cannot write", quoted(path), err);
        // Missing, or a link to a missing file: create what the link names.
        std::string target;
        if (!followDanglingLinks(path, target, err))
            return setError(error, "cannot follow the link", quoted(path), err);
        return replaceAtomically(target, describedTarget(target, path), std::nullopt, bytes, error);
    }
    if (S_ISDIR(st.st_mode))
        return setError(error, "cannot write", quoted(path), EISDIR);
    if (S_ISREG(st.st_mode)) {
        // realpath() also resolves the kernel's own links (/dev/stdout, /proc/self/fd/N).
        std::string target = path;
        struct stat linkStat {};
        if (::lstat(path.c_str(), &linkStat) == 0 && S_ISLNK(linkStat.st_mode)) {
            char *resolved = ::realpath(path.c_str(), nullptr);
            if (!resolved)
                return setError(error, "cannot follow the link", quoted(path), errno);
            target = resolved;
            std::free(resolved);
        }
        return replaceAtomically(target, describedTarget(target, path), st.st_mode & 07777, bytes, error);
    }
    // A device, FIFO or socket: replacing it with a regular file would break it (think
    // of /dev/null as root), and a rename cannot reach what a pipe or terminal reads.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return setError(error, "cannot open", quoted(path), errno);
    struct stat opened {};
    if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode)) {
        // Replaced by a regular file between stat() and open(): do not write into it in place.
        ::close(fd);
        return writeFileAtomically(path, bytes, error);
    }
    if (!writeAll(fd, bytes)) {
        const int err = errno;
        ::close(fd);
        return setError(error, "cannot write", quoted(path), err);
    }
    if (::close(fd) != 0)
        return setError(error, "cannot write", quoted(path), errno);
    return true;
}

BoundedRead readDescriptor(int fd, std::size_t maxBytes, std::string &bytes)
{
    using Status = BoundedRead::Status;
    BoundedRead result;
    bytes.clear();
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        result.status = Status::ReadError;
        result.error = errno;
        return result;
    }
    if (S_ISDIR(st.st_mode)) {
        result.status = Status::Folder;
        return result;
    }
    const bool regular = S_ISREG(st.st_mode);
    if (!regular && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) && !(S_ISCHR(st.st_mode) && ::isatty(fd))) {
        result.status = Status::Device;
        result.blockDevice = S_ISBLK(st.st_mode);
        return result;
    }
    if (regular && static_cast<std::uint64_t>(st.st_size) > maxBytes) {
        result.status = Status::TooLarge;
        result.regularFile = true;
        result.size = static_cast<std::uint64_t>(st.st_size);
        return result;
    }
    try {
        if (regular)
            bytes.reserve(static_cast<std::size_t>(st.st_size));
        // Up to one byte past the limit, which tells a pipe (or a file growing meanwhile) that is too long.
        char buffer[1 << 16];
        while (bytes.size() <= maxBytes) {
            const std::size_t want = std::min(sizeof buffer, maxBytes + 1 - bytes.size());
            const ssize_t n = ::read(fd, buffer, want);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                result.status = Status::ReadError;
                result.error = errno;
                std::string().swap(bytes);
                return result;
            }
            if (n == 0)
                break;
            // Grown by hand, so that a pipe near the limit never asks for twice the limit.
            const std::size_t needed = bytes.size() + static_cast<std::size_t>(n);
            if (needed > bytes.capacity())
                bytes.reserve(std::min(std::max(2 * bytes.capacity(), needed), maxBytes + 1));
            bytes.append(buffer, static_cast<std::size_t>(n));
        }
    } catch (const std::bad_alloc &) {
        result.status = Status::OutOfMemory;
        result.size = bytes.size();
        std::string().swap(bytes);
        return result;
    }
    if (bytes.size() > maxBytes) {
        result.status = Status::TooLarge;
        result.size = bytes.size();
        std::string().swap(bytes);
    }
    return result;
}

bool readWholeFile(const std::string &path, std::string &bytes, std::string *error, std::size_t maxBytes)
{
    using Status = BoundedRead::Status;
    bytes.clear();
    // O_NOCTTY: a terminal named here must not become the controlling one.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return setError(error, "cannot open", quoted(path), errno);
    const BoundedRead read = readDescriptor(fd, maxBytes, bytes);
    ::close(fd);
    const std::string limit = std::to_string(maxBytes) + " bytes"
        + (maxBytes % (std::size_t(1) << 30) == 0 ? " (" + std::to_string(maxBytes >> 30) + " GiB)" : std::string());
    std::string reason;
    switch (read.status) {
    case Status::Ok:
        return true;
    case Status::Folder:
        return setError(error, "cannot read", quoted(path), EISDIR);
    case Status::ReadError:
        return setError(error, "cannot read", quoted(path), read.error);
    case Status::Device:
        reason = std::string("it is ") + (read.blockDevice ? "a block device" : "a character device")
            + ", not a regular file or a pipe";
        break;
    case Status::TooLarge:
        reason = read.regularFile ? "the file has " + std::to_string(read.size) + " bytes, above the limit of " + limit
                                  : "it gave more than the limit of " + limit;
        break;
    case Status::OutOfMemory:
        reason = "not enough memory (" + std::to_string(read.size) + " bytes read)";
        break;
    }
    if (error)
        *error = "cannot read " + quoted(path) + ": " + reason;
    return false;
}

} // namespace splitscope
