// SPDX-License-Identifier: MIT
#pragma once

#include "RunConfig.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace splitscope {

struct ExecutablePipeline;

// The Run panel's fields a problem belongs to (its message is shown under it).
enum class RunField { Training, Hazards, Dataset, ModelsRoot, Output, Cache, LoraTargets };

struct RunIssue {
    RunField field;
    QString message;
};

// What a stage-one cache folder holds, read from its manifest.json
// (core/engine/CacheManifest.h, format splitscope.cache/1) without the engine.
struct CacheStatus {
    bool exists = false;   // manifest.json is there and readable
    QString error;         // it is there but not a Splitscope cache
    bool complete = false;
    int samples = 0;       // in the dataset
    int cachedSamples = 0; // in finished shards
    int shards = 0;
    qint64 bytes = 0;
    QString task;          // "sft"
    QString splitMode;     // "seed" | "safe"
    QStringList modelsRequiringBackward;
    QStringList stageOneUnits;

    // "complete: 8 samples in 3 shards (1.2 MiB), seed split for dit".
    QString summary() const;
};

CacheStatus readCacheStatus(const QString &cachePath);

// W as the engine computes it: trainable_models, then lora_base_model.
QStringList modelsRequiringBackward(const RunConfig &config);

// Everything that would make `kind` fail before it starts, checked on disk: the
// training choice, hazards of the split (`hazards`: their count in the document's
// split), the dataset's metadata.csv, the model files, the output folder, and for
// stage two a complete cache made for this split. Empty when it can start.
QList<RunIssue> validateRun(const RunConfig &config, const ExecutablePipeline &pipeline, RunKind kind, int hazards);

} // namespace splitscope
