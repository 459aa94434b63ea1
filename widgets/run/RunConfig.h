// SPDX-License-Identifier: MIT
#pragma once

#include "core/TrainingChoice.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
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

// The ranges the Run panel's fields accept (a settings file outside them is refused):
// those of `splitscope-cli train` (the seed field is an int, below the CLI's 2^62).
constexpr int kMaxEpochs = 1000000;
constexpr int kMaxDatasetRepeat = 1000000;
constexpr int kMaxLoraRank = 4096;
constexpr int kMaxThreads = 1024;
constexpr int kMaxProcesses = 64; // --nproc_per_node from the app: ranks on this machine
constexpr int kMaxCacheShardSize = 1000000;
constexpr qint64 kMaxSeed = 2147483647; // the seed field is an int

// The Run panel's fields: where things are and the training numbers (DiffSynth's
// train.py flags). Plain values; JSON keys are the flag names.
struct RunSettings {
    QString datasetPath;  // --dataset_base_path of stage one and the baseline (DIR/metadata.csv)
    QString modelsRoot;   // --model_root
    // Where training launches write their checkpoints, loss.csv and training_args.json:
    // with `newFolderPerLaunch`, each launch in a folder of its own under it
    // (OUTPUT/both-20250614-101500); without, in OUTPUT itself.
    QString outputPath;
    bool newFolderPerLaunch = true;
    QString cachePath;    // stage one's --output_path, stage two's --dataset_base_path
    int epochs = 1;       // --num_epochs
    int datasetRepeat = 1; // --dataset_repeat (training stages only: stage one caches each sample once)
    double learningRate = 1e-4; // --learning_rate
    int loraRank = 32;          // --lora_rank
    QString loraTargets;        // --lora_target_modules
    qint64 seed = 0;            // --seed
    int threads = 0;            // --num_threads; 0: all cores (the flag is left out)
    // --nproc_per_node: data-parallel ranks on this machine, each with `threads`
    // threads (1: one process, the flag left out).
    int processes = 1;
    int cacheShardSize = 16;    // --cache_shard_size (stage one)
    bool allowHazards = false;  // --allow_hazards

    QJsonObject toJson() const;
    // Missing or mistyped keys keep the values of `defaults` (of RunSettings{}): for
    // what the app wrote itself (its settings, the run history).
    static RunSettings fromJson(const QJsonObject &json, const RunSettings &defaults);
    static RunSettings fromJson(const QJsonObject &json) { return fromJson(json, RunSettings()); }
    // For what people write (--run-settings): every key must be one of toJson()'s,
    // with its type and in the field's range. Missing keys keep `defaults`. nullopt
    // when anything is wrong, with one "KEY: problem" line per problem in `errors`.
    static std::optional<RunSettings> fromJsonChecked(const QJsonObject &json, const RunSettings &defaults,
        QStringList *errors);
    bool operator==(const RunSettings &o) const { return toJson() == o.toJson(); }
};

// Reads a --run-settings file with RunSettings::fromJsonChecked. nullopt when it
// cannot be read, is not a JSON object or has a wrong key; each line of `errors`
// then starts with the file's name ("s.json: num_epochs: ...").
std::optional<RunSettings> readRunSettingsFile(const QString &path, const RunSettings &defaults, QStringList *errors);

// Everything one launch needs: the pipeline and its loss task, the training choice
// of the configuration panel, the models each stage's units call (from the
// document's split; the others go to --offload_models as in DiffSynth's commands),
// the dataset's metadata columns, and the panel's settings.
struct RunConfig {
    QString pipeline = QStringLiteral("tiny-qwen-image"); // --pipeline
    QString task = QStringLiteral("sft");                 // sft | direct_distill
    TrainingChoice training; // --trainable_models, --lora_base_model, --split_mode
    QStringList stageOneModels;                            // models stage one's units call
    QStringList stageTwoModels;                            // models stage two's units and the loss call
    QStringList stageOneUnits;                             // the split: stage one's units, in pipeline order
    QStringList cacheSet;                                  // the params stage two reads from the cache, by name
    QStringList datasetColumns;                            // metadata.csv's header
    RunSettings settings;
    // The launch's own output folder (stage two's and the baseline's --output_path),
    // set when it starts. Empty in launches recorded before each had one: they
    // wrote to OUTPUT/two-stage and OUTPUT/one-stage.
    QString runFolder;

    // "LoRA on dit · seed split", "trainable text_encoder + LoRA on dit · safe split".
    QString label() const;
    // The numbers beside the label: "2 epochs · dataset d" (the dataset folder's name).
    QString numbersLabel() const;
    // Everything that decides what training computes, one "name: value" a line.
    QString details() const;
    QJsonObject toJson() const;
    static RunConfig fromJson(const QJsonObject &json);
};

// How two launches' training differs in what decides its result (pipeline, task,
// trainable models, LoRA base, split mode, dataset, models, epochs, repeat,
// learning rate, LoRA rank and targets, seed, threads): "epochs 2 vs 4", one entry
// per difference. Empty: equal configurations train equal weights.
QStringList trainingDifferences(const RunConfig &a, const RunConfig &b);

// Where a stage writes: the cache (stage one), else the launch's run folder (or,
// for launches recorded without one, OUTPUT/two-stage and OUTPUT/one-stage).
QString stageOutputPath(const RunConfig &config, RunStage stage);

// A launch's own folder name: "both-20250614-101500" (the kind with dashes).
QString runFolderName(RunKind kind, const QDateTime &when);
// Makes a new folder `parent`/runFolderName(kind, when), or with "-2", "-3", ...
// when that exists: never one that was there. Returns its path, or "" with `error`.
QString createRunFolder(const QString &parent, RunKind kind, const QDateTime &when, QString *error = nullptr);
// The files of a training run in `folder` (training_args.json, loss.csv,
// resume.safetensors, epoch-*.safetensors, step-*.safetensors), by name.
QStringList runFilesIn(const QString &folder);

// `splitscope-cli train` arguments of one stage (without --events). `resume` adds
// --resume to training stages (stage one resumes from its finished shards by itself).
QStringList trainArguments(const RunConfig &config, const ExecutablePipeline &pipeline, RunStage stage, bool resume);

// A command line for a POSIX shell: arguments quoted where needed.
QString shellCommand(const QString &program, const QStringList &arguments);
// What torchrun runs for arguments that start ranks with --nproc_per_node: the same
// run under `torchrun --nproc_per_node N --no_python`; empty for a one-process run.
QString torchrunCommand(const QString &program, const QStringList &arguments);

// The header of DIR/metadata.csv (empty when it cannot be read).
QStringList readDatasetColumns(const QString &datasetPath);

} // namespace splitscope
