// SPDX-License-Identifier: MIT
#pragma once

#include "core/JsonReader.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace splitscope::engine {

// Progress events of `splitscope-cli train --events jsonl` (DESIGN.md §3).
//
// Every event is ONE line of JSON on stdout: an object with at least
//   "event"  the kind (below)          "time"  seconds since the run started (float)
// Human-readable logs go to stderr, never stdout. Fields appear only where they
// apply; consumers must ignore fields they do not know (more may be added). In a
// run of several ranks (torch.distributed) every event also has "rank"; rank 0
// writes the run's events, the others only their memory and stage-one progress.
//
//   event       fields (besides event, time)
//   ----------  -----------------------------------------------------------------
//   start       task, pipeline, stage ("one_stage" | "data_process" | "train"),
//               split_mode, models_require_backward [..], stage_one_units [..],
//               stage_two_units [..], cache_set [..] (params), output_path,
//               num_threads, world_size, pid, seed, resumed (bool)
//   stage       stage, total_samples (stage one) or total_steps, epochs, message
//   unit        stage, sample, unit, unit_index (the unit running now; stage one
//               and one-stage; throttled to about 20 per second)
//   progress    stage, done, total, samples_per_s, eta_s, cache_bytes_written,
//               cpu_s (stage one, after each sample; throttled to about 10 per
//               second, the last sample always reported)
//   step        stage, epoch (0-based), step (global, 1-based), epoch_step,
//               total_steps, loss, samples_per_s (of all ranks), steps_per_s, eta_s,
//               cache_bytes_read, all_reduce_s (several ranks: seconds waited for
//               the gradients' sums so far),
//               read_wait_s (seconds the steps waited for the loader so far),
//               cache_read_s (seconds the loader spent reading inputs so far),
//               cpu_s (CPU seconds of the process so far, all threads)
//   epoch       epoch, mean_loss, steps
//   checkpoint  kind ("epoch" | "step" | "final" | "resume" | "shard"), path,
//               epoch, step; for shards: shard, samples, bytes; for a resume state
//               written beside the steps (--checkpoint_interval, epoch ends,
//               --save_steps): snapshot_s (the training thread's share), write_s
//               (the writer thread's), sent once it is on disk
//   memory      rss_bytes, peak_rss_bytes, estimated_step_bytes (the up-front
//               estimate of the peak, core/engine/MemoryEstimate.h; 0 when none was
//               made), model_bytes {model: bytes of loaded weights}, materialized
//               [models], cache_bytes_written, cache_bytes_read
//   log         message
//   warning     message, code (e.g. "frozen-randomness", "hazards-allowed",
//               "ignored-flag" (one per flag the stage ignores), "lora-checkpoint-unused",
//               "resume-data-unchecked", "unchecked-weights", "unchecked-tokenizer",
//               "dataset-unchecked", "thread-count");
//               shown after `start`
//   error       message, code (e.g. "hazards", "manifest-mismatch", "bad-flag",
//               "dataset", "dataset-changed", "model", "corrupt-shard", "io"), hazards [{kind,
//               mechanism, reader, param, expected_producer, actual_producer}]
//   done        ok (bool), cancelled (bool), exit_status, wall_s, steps, samples,
//               final_loss, peak_rss_bytes, cpu_s, read_wait_s, cache_read_s,
//               outputs {name: path} (e.g. checkpoint, loss_csv, training_args,
//               resume_state, cache, manifest)
//
// The first event is `start`, unless the run fails before it starts (bad flags,
// a refused split): then `error`. The last is always `done` (unless the process is
// killed).
//
// Exit statuses of `train` (and `done.exit_status`): 0 finished; 1 failed (I/O,
// training error); 2 bad flags or inputs (including a corrupt model file or cache
// shard, and a cache that does not match this run; a shard found damaged during
// stage two keeps the state of the steps done, as a cancellation does); 3 the split has hazards
// (refused; --allow_hazards forces it); 4 cancelled by SIGINT/SIGTERM/SIGHUP, or by
// a broken pipe on standard output or error (`train ... | head`), with
// everything finished kept (stage one: finished shards; stage two and one-stage: a
// resume checkpoint, continue with the same command plus --resume).

namespace events {
constexpr const char *kStart = "start";
constexpr const char *kStage = "stage";
constexpr const char *kUnit = "unit";
constexpr const char *kProgress = "progress";
constexpr const char *kStep = "step";
constexpr const char *kEpoch = "epoch";
constexpr const char *kCheckpoint = "checkpoint";
constexpr const char *kMemory = "memory";
constexpr const char *kLog = "log";
constexpr const char *kWarning = "warning";
constexpr const char *kError = "error";
constexpr const char *kDone = "done";
} // namespace events

// A JSON string literal, written as the core's splitscope::jsonQuote writes it
// (core/JsonReader.h), except for bytes that are not UTF-8: a Linux path is bytes,
// and `--output_path "$(printf 'run\xe9')"` names a real folder. Each such byte
// becomes \udc80..\udcff, the lone surrogate Python's surrogateescape (PEP 383)
// decodes it to, as DiffSynth's own json.dumps of such a path writes: the text stays
// valid JSON and UTF-8 (Python's json and Qt read it), and os.fsencode() gives back
// the bytes. parseJsonObject (JsonDocument.h) reads them back as the bytes.
std::string jsonQuote(std::string_view text);
// JSON number (9 significant digits for doubles); NaN and infinities become null.
std::string jsonNumber(double value);
// ["a","b"]
std::string jsonStringArray(const std::vector<std::string> &items);

// One event, built field by field. Values are stored as JSON text.
class Event {
public:
    explicit Event(std::string name);
    Event &set(const std::string &key, double value);
    Event &set(const std::string &key, std::int64_t value);
    Event &set(const std::string &key, std::uint64_t value);
    Event &set(const std::string &key, int value) { return set(key, static_cast<std::int64_t>(value)); }
    Event &set(const std::string &key, bool value);
    Event &set(const std::string &key, const std::string &value);
    Event &set(const std::string &key, const char *value) { return set(key, std::string(value)); }
    Event &setRaw(const std::string &key, std::string json); // already JSON
    // The line shown to people on stderr; empty: not shown.
    Event &text(std::string line);

    const std::string &name() const { return m_name; }
    const std::string &humanText() const { return m_text; }
    std::string json(double time) const;

private:
    std::string m_name;
    std::vector<std::pair<std::string, std::string>> m_fields;
    std::string m_text;
};

struct EventRecord {
    std::string name;
    std::string json; // one line, no newline
    std::string text; // for people; may be empty
    double time = 0;
};
using EventCallback = std::function<void(const EventRecord &)>;

// Stamps events with the time since construction and hands them to the callback,
// one at a time. Thread-safe: emit() may be called from any thread.
class EventSink {
public:
    explicit EventSink(EventCallback callback);
    void emit(const Event &event);
    double elapsed() const;

    void log(const std::string &message);
    void warning(const std::string &code, const std::string &message);
    // With several ranks: every event from here on carries "rank": this process's rank.
    void setRank(int rank) { m_rank = rank; }

private:
    EventCallback m_callback;
    int m_rank = -1; // -1: alone, no "rank" field
    std::chrono::steady_clock::time_point m_start;
    std::mutex m_mutex;
};

} // namespace splitscope::engine
