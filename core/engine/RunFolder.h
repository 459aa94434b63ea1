// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace splitscope::engine {

// An exclusive lock on an output folder (a training run's --output_path, stage one's
// cache), so that two runs never write into one folder at once: flock() on
// FOLDER/.splitscope.lock, held while the object lives. The lock file is removed when
// the lock is released; one left behind by a killed run is harmless (a lock dies
// with its process) and is reused.
class FolderLock {
public:
    FolderLock() = default;
    ~FolderLock();
    FolderLock(const FolderLock &) = delete;
    FolderLock &operator=(const FolderLock &) = delete;

    // Locks `folder`, which must exist. False with `error` when another process holds
    // it (`busy` then true) or the lock file cannot be made.
    bool acquire(const std::string &folder, std::string *error, bool *busy = nullptr);
    // A shared lock, for a run that only reads the folder (stage two reading a cache):
    // any number of readers, but no writer (stage one) meanwhile, and no reader while a
    // writer holds it. A folder where no lock file can be made (read-only) is read
    // without a lock, since nothing can write into it either: true, held() false.
    // The last reader to release it removes the lock file, as a writer does; one that
    // releases it while other readers still hold it leaves it to them.
    bool acquireShared(const std::string &folder, std::string *error, bool *busy = nullptr);
    void release();
    bool held() const { return m_fd >= 0; }

    static constexpr const char *kFileName = ".splitscope.lock";

private:
    bool lock(const std::string &folder, bool shared, std::string *error, bool *busy);

    int m_fd = -1;
    bool m_shared = false;
    std::string m_path;
};

// True when `name` is a temporary file that writeFileAtomically (core/AtomicFile.h)
// makes beside one of the files a run writes into its folder: "<file>.tmp-XXXXXX",
// six letters or digits from mkstemp, where <file> is manifest.json,
// training_args.json, loss.csv, resume.safetensors, epoch-N / step-N .safetensors or
// a cache shard-NNNNN.safetensors.
bool isStaleTempName(const std::string &name);

// Removes such files in `folder` and, with `shardFolders`, in its numbered cache
// sub-folders (0/, 1/, ...): what a killed run, or one whose write failed while the
// process could not clean up, left behind. Call with the folder locked (another run's
// temporary file is never stale). Returns how many were removed.
int removeStaleTempFiles(const std::string &folder, bool shardFolders);

} // namespace splitscope::engine
