// SPDX-License-Identifier: MIT
#pragma once

#include "core/Split.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace splitscope {

struct ExecutablePipeline;

// One child process of a launch: `splitscope-cli train --task T:data_process`
// (stage one), `T:train` (stage two) or plain `T` (the one-stage baseline).
enum class RunStage { StageOne, StageTwo, OneStage };
// What the user launched: one stage, both in a row, or the baseline.
enum class RunKind { StageOne, StageTwo, Both, Baseline };

QString runStageKey(RunStage stage);   // "stage_one", "stage_two", "one_stage"
QString runStageTitle(RunStage stage); // "Stage one", "Stage two", "One-stage baseline"
QString runKindKey(RunKind kind);      // "stage_one", "stage_two", "both", "baseline"
QString runKindTitle(RunKind kind);    // "Stage one", "Stage two", "Both stages", "One-stage baseline"
bool parseRunStage(const QString &key, RunStage &stage);
bool parseRunKind(const QString &key, RunKind &kind);
// The stages a launch runs, in order.
std::vector<RunStage> stagesOf(RunKind kind);

// The Run panel's fields: where things are and the training numbers (DiffSynth's
// train.py flags). Plain values; JSON keys are the flag names.
struct RunSettings {
    QString datasetPath;  // --dataset_base_path of stage one and the baseline (DIR/metadata.csv)
    QString modelsRoot;   // --model_root
    QString outputPath;   // checkpoints: OUTPUT/two-stage (stage two) and OUTPUT/one-stage (baseline)
    QString cachePath;    // stage one's --output_path, stage two's --dataset_base_path
    int epochs = 1;       // --num_epochs
    int datasetRepeat = 1; // --dataset_repeat (training stages only: stage one caches each sample once)
    double learningRate = 1e-4; // --learning_rate
    int loraRank = 32;          // --lora_rank
    QString loraTargets;        // --lora_target_modules
    qint64 seed = 0;            // --seed
    int threads = 0;            // --num_threads; 0: all cores (the flag is left out)
    int cacheShardSize = 16;    // --cache_shard_size (stage one)
    bool allowHazards = false;  // --allow_hazards

    QJsonObject toJson() const;
    // Missing or mistyped keys keep the values of `defaults` (of RunSettings{}).
    static RunSettings fromJson(const QJsonObject &json, const RunSettings &defaults);
    static RunSettings fromJson(const QJsonObject &json) { return fromJson(json, RunSettings()); }
    bool operator==(const RunSettings &o) const { return toJson() == o.toJson(); }
};

// Everything one launch needs: the pipeline and its loss task, the training choice
// of the configuration panel, the models each stage's units call (from the
// document's split; the others go to --offload_models as in DiffSynth's commands),
// the dataset's metadata columns, and the panel's settings.
struct RunConfig {
    QString pipeline = QStringLiteral("tiny-qwen-image"); // --pipeline
    QString task = QStringLiteral("sft");                 // sft | direct_distill
    QStringList trainable;                                 // --trainable_models
    QString loraBase;                                      // --lora_base_model ("" none)
    SplitMode mode = SplitMode::Seed;                      // --split_mode
    QStringList stageOneModels;                            // models stage one's units call
    QStringList stageTwoModels;                            // models stage two's units and the loss call
    QStringList datasetColumns;                            // metadata.csv's header
    RunSettings settings;

    // "LoRA on dit · seed split", "trainable text_encoder + LoRA on dit · safe split".
    QString label() const;
    QJsonObject toJson() const;
    static RunConfig fromJson(const QJsonObject &json);
};

// Where a stage writes: the cache (stage one), OUTPUT/two-stage, OUTPUT/one-stage.
QString stageOutputPath(const RunConfig &config, RunStage stage);

// `splitscope-cli train` arguments of one stage (without --events). `resume` adds
// --resume to training stages (stage one resumes from its finished shards by itself).
QStringList trainArguments(const RunConfig &config, const ExecutablePipeline &pipeline, RunStage stage, bool resume);

// A command line for a POSIX shell: arguments quoted where needed.
QString shellCommand(const QString &program, const QStringList &arguments);

// The header of DIR/metadata.csv (empty when it cannot be read).
QStringList readDatasetColumns(const QString &datasetPath);

} // namespace splitscope
