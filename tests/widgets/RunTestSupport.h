// SPDX-License-Identifier: MIT
#pragma once

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

inline bool writeText(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

// DIR/metadata.csv with `rows` rows and the given header.
inline bool writeDataset(const QString &dir, int rows, const QByteArray &header = "image,prompt")
{
    QByteArray text = header + "\n";
    for (int i = 0; i < rows; ++i)
        text += QByteArray("images/") + QByteArray::number(i) + ".png,a red circle\n";
    return writeText(QDir(dir).filePath(QStringLiteral("metadata.csv")), text);
}

// Empty files where the pipeline's model patterns look (the checks only look for names).
inline bool writeModelFiles(const QString &root, const ExecutablePipeline &pipeline, const QStringList &skip = {})
{
    for (const ExecutablePipeline::ModelFile &f : pipeline.modelFiles) {
        if (skip.contains(f.model))
            continue;
        QString name = f.pattern;
        name.replace(QLatin1Char('*'), QStringLiteral("-00001-of-00001"));
        if (!writeText(QDir(root).filePath(pipeline.modelId + QLatin1Char('/') + name), QByteArray()))
            return false;
    }
    return true;
}

// A manifest.json as stage one writes it (core/engine/CacheManifest.cpp).
inline bool writeManifest(const QString &cacheDir, bool complete, const QStringList &modelsRequiringBackward,
    const QString &mode = QStringLiteral("seed"), int samples = 4, int cached = 4)
{
    QJsonArray shards;
    for (int first = 0; first < cached; first += 2)
        shards.append(QJsonObject{{QStringLiteral("process"), 0},
            {QStringLiteral("file"), QStringLiteral("0/shard-%1.safetensors").arg(first / 2, 5, 10, QLatin1Char('0'))},
            {QStringLiteral("first"), first}, {QStringLiteral("count"), std::min(2, cached - first)},
            {QStringLiteral("bytes"), 1000}, {QStringLiteral("checksum"), QStringLiteral("00")}});
    const QJsonObject doc{{QStringLiteral("format"), QStringLiteral("splitscope.cache/1")},
        {QStringLiteral("complete"), complete}, {QStringLiteral("task"), QStringLiteral("sft")},
        {QStringLiteral("split"),
            QJsonObject{{QStringLiteral("mode"), mode},
                {QStringLiteral("models_require_backward"), QJsonArray::fromStringList(modelsRequiringBackward)},
                {QStringLiteral("stage_one_units"), QJsonArray()}}},
        {QStringLiteral("dataset"), QJsonObject{{QStringLiteral("samples"), samples}}},
        {QStringLiteral("shards"), shards}};
    return writeText(QDir(cacheDir).filePath(QStringLiteral("manifest.json")), QJsonDocument(doc).toJson());
}

// A configuration of the tiny pipeline with its folders under `root`.
inline RunConfig tinyConfig(const QString &root)
{
    RunConfig c;
    c.loraBase = QStringLiteral("dit");
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
