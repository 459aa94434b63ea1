// SPDX-License-Identifier: MIT
#pragma once

#include "core/engine/CacheManifest.h"

#include "WidgetTestSupport.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/run/ExecutablePipeline.h"
#include "widgets/run/RunConfig.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace splitscope::test {

// Files on disk for the Run panel's checks, written by hand (no worker needed).

// DIR/metadata.csv with `rows` rows and the given header.
inline bool writeDataset(const QString &dir, int rows, const QByteArray &header = "image,prompt")
{
    QByteArray text = header + "\n";
    for (int i = 0; i < rows; ++i)
        text += QByteArray("images/") + QByteArray::number(i) + ".png,a red circle\n";
    return writeFileBytes(QDir(dir).filePath(QStringLiteral("metadata.csv")), text);
}

// Empty files where the pipeline's model patterns look (the checks only look for names).
inline bool writeModelFiles(const QString &root, const ExecutablePipeline &pipeline, const QStringList &skip = {})
{
    for (const ExecutablePipeline::ModelFile &f : pipeline.modelFiles) {
        if (skip.contains(f.model))
            continue;
        QString name = f.pattern;
        name.replace(QLatin1Char('*'), QStringLiteral("-00001-of-00001"));
        if (!writeFileBytes(QDir(root).filePath(pipeline.modelId + QLatin1Char('/') + name), QByteArray()))
            return false;
    }
    return true;
}

// A manifest.json as stage one writes it (engine::CacheManifest::toJson), of the
// split with `stageOneUnits` storing `cacheSet`.
inline bool writeManifest(const QString &cacheDir, bool complete, const QStringList &modelsRequiringBackward,
    const QString &mode = QStringLiteral("seed"), int samples = 4, int cached = 4,
    const QStringList &stageOneUnits = {}, const QStringList &cacheSet = {})
{
    engine::CacheManifest m;
    m.complete = complete;
    m.pipeline = "tiny-qwen-image";
    m.task = "sft";
    m.loss = "FlowMatchSFTLoss";
    m.pipelineHash = findExecutablePipeline(QStringLiteral("tiny-qwen-image"))->descriptionHash(QStringLiteral("sft")).value();
    m.splitMode = mode.toStdString();
    m.modelsRequiringBackward = toStdStrings(modelsRequiringBackward);
    m.stageOneUnits = toStdStrings(stageOneUnits);
    m.cacheSet = toStdStrings(cacheSet);
    // A record of each model the stage-one units run (the app does not compare hashes).
    for (const QString &model : findExecutablePipeline(QStringLiteral("tiny-qwen-image"))->modelsOfUnits(stageOneUnits))
        m.models.push_back({model.toStdString(), {}, 0});
    m.settings = {{"seed", "0"}, {"cache_shard_size", "16"}, {"max_pixels", "1048576"}, {"height", "0"}, {"width", "0"},
        {"data_file_keys", "image"}, {"extra_inputs", ""}, {"num_inference_steps", "4"}, {"num_threads", "1"}};
    m.samples = static_cast<std::size_t>(samples);
    for (int first = 0; first < cached; first += 2)
        m.shards.push_back({0, QStringLiteral("0/shard-%1.safetensors").arg(first / 2, 5, 10, QLatin1Char('0')).toStdString(),
            static_cast<std::size_t>(first), static_cast<std::size_t>(std::min(2, cached - first)), 1000, 0});
    return writeFileBytes(QDir(cacheDir).filePath(QStringLiteral("manifest.json")), QByteArray::fromStdString(m.toJson()));
}

// A stand-in for splitscope-cli in `dir`, for launches without LibTorch: each call
// appends its arguments as one line to DIR/calls.txt and does what DIR/mode says:
//   "ok" (or no file): a training stage writes epoch-0.safetensors, loss.csv and
//       training_args.json into its --output_path; exit 0 with final loss 1.99973;
//   "cancel": a training stage writes resume.safetensors too; exit 4 (cancelled);
//   "wait": step 896 of 1600, then waits for SIGTERM and exits 4;
//   "crash": step 1 of 8, eight lines on standard error ("worker error line 1" to 8),
//       then the worker kills itself with SIGKILL;
//   "steps": stage one finishes; a training stage without --resume runs steps 1-3
//       and is cancelled (exit 4, a resume state written), with --resume it runs
//       steps 4-6 and finishes.
// Returns the script's path ("" if it could not be written).
inline QString writeFakeWorker(const QString &dir)
{
    const QString path = QDir(dir).filePath(QStringLiteral("fake-cli"));
    const QByteArray script = R"sh(#!/bin/sh
dir=$(dirname "$0")
printf '%s
' "$*" >> "$dir/calls.txt"
mode=$(cat "$dir/mode" 2>/dev/null)
out=""
task=""
prev=""
for a in "$@"; do
  [ "$prev" = "--output_path" ] && out="$a"
  [ "$prev" = "--task" ] && task="$a"
  prev="$a"
done
case "$task" in
  *:data_process) ;;
  *) mkdir -p "$out"
     for f in epoch-0.safetensors loss.csv training_args.json; do echo "$task" > "$out/$f"; done
     [ "$mode" = cancel ] && echo state > "$out/resume.safetensors" ;;
esac
resume=""
for a in "$@"; do [ "$a" = "--resume" ] && resume=1; done
if [ "$mode" = steps ]; then
  case "$task" in *:data_process) echo '{"event":"done","time":0.1,"exit_status":0}'; exit 0 ;; esac
  echo '{"event":"stage","time":0,"stage":"train","total_steps":6,"epochs":2}'
  if [ -z "$resume" ]; then
    for i in 1 2 3; do echo "{\"event\":\"step\",\"time\":0.$i,\"epoch\":0,\"step\":$i,\"total_steps\":6,\"loss\":2.$i}"; done
    echo state > "$out/resume.safetensors"
    echo '{"event":"done","time":0.5,"exit_status":4,"steps":3,"final_loss":2.3}'; exit 4
  fi
  for i in 4 5 6; do echo "{\"event\":\"step\",\"time\":0.$i,\"epoch\":1,\"step\":$i,\"total_steps\":6,\"loss\":1.$i}"; done
  echo '{"event":"done","time":0.7,"exit_status":0,"steps":6,"final_loss":1.6}'; exit 0
fi
case "$mode" in
  cancel) echo '{"event":"done","time":0.1,"exit_status":4,"steps":3}'; exit 4 ;;
  wait) trap 'echo "{"event":"done","time":1,"exit_status":4}"; exit 4' TERM
        echo '{"event":"stage","time":0,"stage":"train","total_steps":1600,"epochs":1}'
        echo '{"event":"step","time":0.1,"epoch":0,"step":896,"total_steps":1600,"loss":1.5}'
        while :; do sleep 0.05; done ;;
  crash) echo '{"event":"stage","time":0,"stage":"train","total_steps":8,"epochs":1}'
         echo '{"event":"step","time":0.1,"epoch":0,"step":1,"total_steps":8,"loss":1.5}'
         for i in 1 2 3 4 5 6 7 8; do echo "worker error line $i" >&2; done
         kill -9 $$ ;;
  *) echo '{"event":"done","time":0.1,"exit_status":0,"final_loss":1.99973,"steps":4}'; exit 0 ;;
esac
)sh";
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(script) != script.size())
        return {};
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

inline bool setFakeWorkerMode(const QString &dir, const QByteArray &mode)
{
    return writeFileBytes(QDir(dir).filePath(QStringLiteral("mode")), mode);
}

// The fake worker's calls so far, one argument list a line.
inline QStringList fakeWorkerCalls(const QString &dir)
{
    QFile file(QDir(dir).filePath(QStringLiteral("calls.txt")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// A configuration of the tiny pipeline with its folders under `root`.
inline RunConfig tinyConfig(const QString &root)
{
    RunConfig c;
    c.training.loraBase = "dit";
    c.stageOneModels = {QStringLiteral("vae"), QStringLiteral("text_encoder")};
    c.stageTwoModels = {QStringLiteral("dit")};
    c.settings.datasetPath = QDir(root).filePath(QStringLiteral("data"));
    c.settings.modelsRoot = QDir(root).filePath(QStringLiteral("models"));
    c.settings.cachePath = QDir(root).filePath(QStringLiteral("cache"));
    c.settings.outputPath = QDir(root).filePath(QStringLiteral("out"));
    c.settings.loraTargets = QStringLiteral("to_q,to_k");
    c.settings.loraRank = 4;
    return c;
}

} // namespace splitscope::test
