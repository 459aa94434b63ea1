// SPDX-License-Identifier: MIT
#pragma once

#include "RunConfig.h"

#include "core/engine/CacheManifest.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace splitscope {

struct ExecutablePipeline;

// The Run panel's fields a problem belongs to (its message is shown under it).
enum class RunField { Training, Hazards, Dataset, ModelsRoot, Output, Cache, LearningRate, LoraTargets };

struct RunIssue {
    RunField field;
    QString message;
    // The launch may go on if the user agrees: the output folder chosen for it
    // (without a new folder per launch) holds a run that it would replace.
    bool confirmable = false;
};

// What a stage-one cache folder holds, read from its manifest.json by the engine's
// protocol library (core/engine/CacheManifest.h, format splitscope.cache/1; no Torch).
struct CacheStatus {
    bool exists = false;   // manifest.json is there and readable
    QString error;         // it is there but not a Splitscope cache
    bool complete = false;
    int samples = 0;       // in the dataset
    int cachedSamples = 0; // in finished shards
    int shards = 0;
    qint64 bytes = 0;
    QString pipeline;      // "tiny-qwen-image"
    QString task;          // "sft"
    QString splitMode;     // "seed" | "safe": how it was made (the units below are what counts)
    QStringList modelsRequiringBackward;
    QStringList stageOneUnits;
    QStringList cacheSet;  // the params stored per sample
    bool cacheAllParams = false;
    QHash<QString, QString> settings; // stage one's settings: seed, num_threads, cache_shard_size, ...
    engine::CacheManifest manifest;   // as the engine reads it

    // "complete: 8 samples in 3 shards (1.2 MiB), seed split for dit".
    QString summary() const;
};

CacheStatus readCacheStatus(const QString &cachePath);

// W as the engine computes it: trainable_models, then lora_base_model.
QStringList modelsRequiringBackward(const RunConfig &config);

// Why the worker would refuse `cache` for `stage` of `config` ("stage-one units:
// the cache has [...], this run [...]"), as its checks do (core/engine): stage two
// (Trainer::checkManifest) compares the pipeline, the task, the models requiring
// backward, the stage-one units and whether the cache stores every param stage
// two reads; stage one (compareCacheSettings) also wants the same stored params
// and stage-one settings (seed, shard size, threads). The split mode's name is not
// compared: seed and safe often give the same split. Empty: it would be accepted
// (the engine also compares model weights and the dataset's files; not here).
QStringList cacheDifferences(const CacheStatus &cache, const RunConfig &config, RunStage stage);

// Everything that would make `kind` fail before it starts, checked on disk: the
// training choice, hazards of the split (`hazards`: their count in the document's
// split), the dataset's metadata.csv, the model files, the output folder (one that
// a launch writes into itself must not hold a run: a confirmable issue), and a
// cache the worker accepts (cacheDifferences; complete for stage two). Empty when
// it can start.
QList<RunIssue> validateRun(const RunConfig &config, const ExecutablePipeline &pipeline, RunKind kind, int hazards);

} // namespace splitscope
