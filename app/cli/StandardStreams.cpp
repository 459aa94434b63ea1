// SPDX-License-Identifier: MIT
#include "StandardStreams.h"

#include "core/AtomicFile.h"

#include "Commands.h"

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace splitscope::cli {

namespace {

bool g_stdinWasClosed = false;
bool g_stdoutWasClosed = false;
int g_firstWriteError = 0; // errno of the first failed writeOut/printOut, 0 when none

void remember(int err)
{
    if (g_firstWriteError == 0)
        g_firstWriteError = err != 0 ? err : EIO;
}

} // namespace

void guardStandardStreams()
{
    // A file-size limit (`ulimit -f`) would otherwise kill the process with SIGXFSZ, silently
    // and with a temporary file left behind. Ignored, the write fails with EFBIG, which is
    // reported and cleaned up as a full disk is.
    std::signal(SIGXFSZ, SIG_IGN);
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
        if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        if (fd == STDIN_FILENO)
            g_stdinWasClosed = true;
        else if (fd == STDOUT_FILENO)
            g_stdoutWasClosed = true;
        // open() returns the lowest free number: this one, as the lower ones are open by now.
        const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
    }
}

namespace {

void maskStopSignals(int how)
{
    sigset_t set;
    sigemptyset(&set);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&set, signal);
    sigprocmask(how, &set, nullptr);
}

} // namespace

void blockStopSignals()
{
    maskStopSignals(SIG_BLOCK);
}

void unblockStopSignals()
{
    maskStopSignals(SIG_UNBLOCK);
}

bool standardInputWasClosed()
{
    return g_stdinWasClosed;
}

void writeOut(std::string_view text)
{
    if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        remember(errno);
}

void printOut(const char *format, ...)
{
    std::va_list args;
    va_start(args, format);
    const int written = std::vfprintf(stdout, format, args);
    va_end(args);
    if (written < 0)
        remember(errno);
}

int finishStandardOutput(const std::string &command, int status)
{
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int flushError = errno;
    if (flushed && !std::ferror(stdout) && g_firstWriteError == 0)
        return status;
    std::string reason;
    if (g_stdoutWasClosed)
        reason = "it is closed";
    else if (g_firstWriteError != 0)
        reason = std::strerror(g_firstWriteError);
    else if (!flushed && flushError != 0)
        reason = std::strerror(flushError);
    else
        reason = "a write failed";
    std::fprintf(stderr, "splitscope-cli%s%s: cannot write standard output: %s\n",
        command.empty() ? "" : " ", command.c_str(), reason.c_str());
    return status == kExitUsage || status == kExitFailure ? status : kExitFailure;
}

bool writeOutput(const std::string &command, const std::string &text, const std::optional<std::string> &path)
{
    if (!path) {
        writeOut(text);
        if (!text.empty() && text.back() != '\n')
            writeOut("\n");
        return true;
    }
    std::string error;
    if (!writeFileAtomically(*path, !text.empty() && text.back() == '\n' ? text : text + "\n", &error)) {
        std::fprintf(stderr, "splitscope-cli %s: --output: %s\n", command.c_str(), error.c_str());
        return false;
    }
    return true;
}

} // namespace splitscope::cli
