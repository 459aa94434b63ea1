// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace splitscope::cli {

// The standard streams of splitscope-cli. Standard output carries the commands' results
// (a split, a pipeline description), so a write that fails must fail the command: a full
// disk, /dev/full or a closed descriptor otherwise leave the text cut short behind exit
// status 0. Usage:
//
//     int main(int argc, char **argv)
//     {
//         guardStandardStreams();
//         const int status = ...run the command, writing with writeOut() / printOut()...;
//         return finishStandardOutput("split", status);
//     }
//
// Writes through std::printf also count (finishStandardOutput sees the stream's error
// flag), but only writeOut and printOut keep the reason of the first failure.

// Gives a closed descriptor 0, 1 or 2 /dev/null, opened the wrong way round (as
// gnulib's stdopen does): a file the command opens cannot take the number and receive
// text meant for the stream, and a write to a closed standard output still fails.
// Also ignores SIGXFSZ, so that a write past `ulimit -f` fails (EFBIG) instead of
// killing the process. Call it first in main().
void guardStandardStreams();
// Whether standard input was closed when guardStandardStreams() ran (`<&-`).
bool standardInputWasClosed();

// SIGINT, SIGTERM and SIGHUP held back (sigprocmask) or let through again. The mask
// and a signal held pending survive execv: splitscope-cli blocks them before it
// hands `train` over to splitscope-engine, which unblocks them once its handlers are
// in place, so that a Cancel sent the moment the process starts is a clean cancel
// (exit status 4) rather than death by the signal (143) while LibTorch loads.
void blockStopSignals();
void unblockStopSignals();

// Writes `text` to standard output; a failure is remembered for finishStandardOutput().
void writeOut(std::string_view text);
void printOut(const char *format, ...) __attribute__((format(printf, 1, 2)));

// A command's result: to standard output, or to `path` (`--output FILE`, written
// atomically); the text ends with a line break either way. False, with the reason on
// stderr, when the file could not be written.
bool writeOutput(const std::string &command, const std::string &text, const std::optional<std::string> &path);

// Flushes standard output. When that, or any write before it, failed: says so on stderr
// ("splitscope-cli COMMAND: cannot write standard output: No space left on device") and
// returns 1 (the work failed), unless `status` is already 1 or 2. Otherwise `status`.
int finishStandardOutput(const std::string &command, int status);

} // namespace splitscope::cli
