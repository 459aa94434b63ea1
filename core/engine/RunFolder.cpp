// SPDX-License-Identifier: MIT
#include "RunFolder.h"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string_view>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace splitscope::engine {

namespace {

bool isDigits(std::string_view text)
{
    if (text.empty())
        return false;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// "epoch-4.safetensors", "shard-00012.safetensors": PREFIX + digits + ".safetensors".
bool isNumbered(std::string_view name, std::string_view prefix)
{
    const std::string_view suffix = ".safetensors";
    if (!startsWith(name, prefix) || !endsWith(name, suffix) || name.size() <= prefix.size() + suffix.size())
        return false;
    return isDigits(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
}

int removeIn(const std::string &folder)
{
    DIR *dir = ::opendir(folder.c_str());
    if (!dir)
        return 0;
    int removed = 0;
    while (const dirent *entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (!isStaleTempName(name))
            continue;
        const std::string path = folder + "/" + name;
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(path.c_str()) == 0)
            ++removed;
    }
    ::closedir(dir);
    return removed;
}

} // namespace

FolderLock::~FolderLock()
{
    release();
}

bool FolderLock::acquire(const std::string &folder, std::string *error, bool *busy)
{
    return lock(folder, false, error, busy);
}

bool FolderLock::acquireShared(const std::string &folder, std::string *error, bool *busy)
{
    return lock(folder, true, error, busy);
}

bool FolderLock::lock(const std::string &folder, bool shared, std::string *error, bool *busy)
{
    release();
    if (busy)
        *busy = false;
    const std::string path = folder + "/" + kFileName;
    // A writer removes the file as it releases the lock: the lock taken must be on the
    // file the name still names, or two runs could each hold a lock on another file.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0) {
            const int err = errno;
            if (shared && (err == EACCES || err == EROFS || err == EPERM))
                return true; // a folder no one here can write: read it as it is
            if (error)
                *error = "cannot create the lock file '" + path + "': " + std::strerror(err);
            return false;
        }
        if (::flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
            const int err = errno;
            std::string holder;
            char text[32] = {};
            const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
            if (n > 0 && isDigits(std::string_view(text, static_cast<std::size_t>(n)).substr(0, std::strcspn(text, "\n"))))
                holder = std::string(text, std::strcspn(text, "\n"));
            // A pid left by a writer that was killed names no one: readers do not write theirs.
            if (!holder.empty() && ::kill(static_cast<pid_t>(std::atol(holder.c_str())), 0) != 0 && errno == ESRCH)
                holder.clear();
            ::close(fd);
            if (err == EWOULDBLOCK) {
                if (busy)
                    *busy = true;
                if (error && shared) {
                    *error = "'" + folder + "' is being written by another run" + (holder.empty() ? "" : " (process " + holder + ")")
                        + ": it cannot be read meanwhile; wait for it to end";
                } else if (error) {
                    *error = "'" + folder + "' is in use by another run" + (holder.empty() ? "" : " (process " + holder + ")")
                        + ": two runs must not write into one folder, or into one that a run reads; wait for it to end, "
                          "or choose another folder";
                }
            } else if (error) {
                *error = "cannot lock '" + path + "': " + std::strerror(err);
            }
            return false;
        }
        struct stat opened {};
        struct stat named {};
        if (::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev
            && opened.st_ino == named.st_ino) {
            // Who holds it, for the message another run gives (a writer only: readers
            // share the file).
            if (!shared) {
                const std::string pid = std::to_string(::getpid()) + "\n";
                if (::ftruncate(fd, 0) == 0) {
                    const ssize_t ignored = ::pwrite(fd, pid.data(), pid.size(), 0);
                    (void)ignored;
                }
            }
            m_fd = fd;
            m_shared = shared;
            m_path = path;
            return true;
        }
        ::close(fd); // removed or replaced meanwhile: try the file there now
    }
    if (error)
        *error = "cannot lock '" + path + "': it keeps being replaced";
    return false;
}

void FolderLock::release()
{
    if (m_fd < 0)
        return;
    // Removed while still locked, so no one can take a lock on it once it is gone (a
    // run that opened it before then finds, once it has the lock, that the file is no
    // longer the folder's, and tries again). A reader removes it only when it can take
    // it alone: then no other reader holds it. (The conversion may drop the shared lock
    // first and fail; this lock is being released anyway.)
    if (!m_shared || ::flock(m_fd, LOCK_EX | LOCK_NB) == 0)
        ::unlink(m_path.c_str());
    ::close(m_fd);
    m_shared = false;
    m_fd = -1;
    m_path.clear();
}

bool isStaleTempName(const std::string &name)
{
    const std::string_view text(name);
    const std::string_view marker = ".tmp-";
    if (text.size() < marker.size() + 6)
        return false;
    const std::string_view base = text.substr(0, text.size() - marker.size() - 6);
    if (text.substr(base.size(), marker.size()) != marker)
        return false;
    for (const char c : text.substr(text.size() - 6)) {
        if (!std::isalnum(static_cast<unsigned char>(c)))
            return false;
    }
    return base == "manifest.json" || base == "training_args.json" || base == "loss.csv" || base == "resume.safetensors"
        || isNumbered(base, "epoch-") || isNumbered(base, "step-") || isNumbered(base, "shard-");
}

int removeStaleTempFiles(const std::string &folder, bool shardFolders)
{
    int removed = removeIn(folder);
    if (!shardFolders)
        return removed;
    DIR *dir = ::opendir(folder.c_str());
    if (!dir)
        return removed;
    while (const dirent *entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        struct stat st {};
        const std::string path = folder + "/" + name;
        if (isDigits(name) && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            removed += removeIn(path);
    }
    ::closedir(dir);
    return removed;
}

} // namespace splitscope::engine
