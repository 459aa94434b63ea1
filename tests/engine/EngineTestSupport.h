// SPDX-License-Identifier: MIT
#pragma once

#include "core/engine/Engine.h"
#include "support/TestFiles.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace enginetest {

namespace engine = splitscope::engine;

// The seed document's model list and LoRA targets.
extern const char *const kModelSpecs;
extern const char *const kLoraTargets;

// Tiny models (the "small" preset) and two synthetic datasets, in a temporary folder
// that lives as long as the fixture.
class Fixture {
public:
    // False with `error` when something could not be written.
    bool setUp(QString *error, int count = 8);
    QString root() const { return m_dir->path(); }
    QString models() const { return root() + "/models"; }
    QString data() const { return root() + "/data"; }         // image,prompt
    QString editData() const { return root() + "/editdata"; } // image,prompt,edit_image
    QString path(const QString &name) const { return root() + "/" + name; }

    // Parameters of a LoRA run on the fixture (one LibTorch thread).
    engine::TrainParams params(const QString &task, const QString &output, const QString &dataset = {}) const;

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

// One train() call with its events parsed.
struct Run {
    engine::TrainResult result;
    QList<QJsonObject> events;

    QList<QJsonObject> all(const QString &name) const;
    QJsonObject last(const QString &name) const; // empty when none
    QString errors() const;                       // the error events' messages
};

// Runs train(); `abortWhen` (optional) sees each event and may ask to stop.
Run runTraining(const engine::TrainParams &params, const std::function<bool(const QJsonObject &)> &abortWhen = {});

// The largest |a - b| over the F32 tensors of two safetensors files, which must
// hold the same names and shapes; -1 with `error` otherwise.
double maxAbsDiff(const QString &a, const QString &b, QString *error);

// Runs splitscope-cli with `arguments`; returns the exit code (-1 when it crashed
// or timed out) and fills stdout/stderr.
int runCli(const QStringList &arguments, QString *out = nullptr, QString *err = nullptr, int timeoutMs = 300000);

using splitscope::test::readFileBytes;

} // namespace enginetest
