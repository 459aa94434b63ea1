// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace splitscope {

// Writes `bytes` to `path` so that readers see either the old file or the whole new
// one, never a part: the data goes to a temporary file in the same directory, is
// flushed to disk, then renamed over `path`. On failure `path` is untouched and
// `error` (when given) says what failed, naming the path.
//
// What `path` names decides how it is written, as a shell's `>` would:
// * a symbolic link is followed: the file it points to (at the end of the chain,
//   created when missing) is replaced atomically in its own directory, and the
//   link stays a link;
// * an existing file that is not a regular file or a directory (a character device
//   such as /dev/null or /dev/stdout, a FIFO) is written straight, without a
//   temporary file or rename, so it stays what it is; a FIFO blocks until it has
//   a reader;
// * one of this process's own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
//   /proc/self/fd/N) is written on that descriptor, so output redirected with `>>`
//   is appended to, not replaced;
// * a directory, or an empty path, is an error.
// A replaced regular file keeps its permission bits; a new one gets 0666 less the umask.
bool writeFileAtomically(const std::string &path, std::string_view bytes, std::string *error = nullptr);

// The size above which readWholeFile refuses a file unless its caller chooses another
// limit: far above any manifest, configuration, vocabulary, metadata.csv or image the
// engine reads whole, and the same as the pipeline loader's (PipelineFile.h).
constexpr std::size_t kMaxWholeFileBytes = std::size_t(1) << 30; // 1 GiB

// What readDescriptor() found when it stopped.
struct BoundedRead {
    enum class Status {
        Ok,
        Folder,      // nothing read
        Device,      // a block or character device other than a terminal; nothing read
        TooLarge,    // a regular file above the limit (nothing read), or a stream that gave more
        ReadError,   // read() failed: `error`
        OutOfMemory, // the bytes did not fit in memory
    };
    Status status = Status::Ok;
    int error = 0;
    bool blockDevice = false;  // for Device
    bool regularFile = false;  // for TooLarge: the size is the file's, not what was read
    std::uint64_t size = 0;    // TooLarge: the file's size; OutOfMemory: the bytes read by then
};

// Reads everything an open descriptor gives into `bytes`, up to `maxBytes`: a regular
// file larger than that is refused before anything is read; a pipe, socket or terminal
// (which ends when its writer is done) is read until it ends or gives more; a folder or
// a device (/dev/zero never ends, and a disk would be read whole) is refused. No
// exception: running out of memory is a status. `bytes` is empty unless Ok.
BoundedRead readDescriptor(int fd, std::size_t maxBytes, std::string &bytes);

// Reads a whole file; false with `error` naming the path and the reason on failure.
// A regular file larger than `maxBytes` is refused before anything is read; a pipe
// or socket (/dev/stdin, `<(...)`) is read to its end or until it has given more than
// `maxBytes`; a folder or a device (/dev/zero, a disk) is refused, since it may never
// end. Running out of memory is an error too, not an exception.
bool readWholeFile(const std::string &path, std::string &bytes, std::string *error = nullptr,
    std::size_t maxBytes = kMaxWholeFileBytes);

} // namespace splitscope
