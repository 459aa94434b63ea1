// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/layout/LayoutController.h"

#include "resources/Examples.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <vector>

namespace splitscope::test {

// Names of the shipped examples (resources/examples/*.json).
inline QStringList exampleNames()
{
    QStringList names;
    for (const BuiltinExample &e : builtinExamples())
        names << QString::fromStdString(e.name);
    return names;
}

inline QString examplePath(const QString &name)
{
    return QStringLiteral(SPLITSCOPE_EXAMPLES_DIR "/%1.json").arg(name);
}

// The text of a built-in example, to write into files the tests change.
inline QByteArray exampleText(const QString &name)
{
    return QByteArray::fromStdString(findBuiltinExample(name.toStdString())->json);
}

// Writes `text` as the whole of `path`, making its folder when missing.
// A unit name of 317 characters and a param name of 124, with no break points
// (the QA's unicode.json, shortened to what matters).
inline QString longUnitName()
{
    return QStringLiteral("VeryLongUnitName_") + QStringLiteral("Abcdefghij").repeated(30);
}

inline QString longParamName()
{
    return QStringLiteral("out_") + QString(120, QLatin1Char('x'));
}

// Writes a pipeline with those names to `path`; false if it could not be written.
inline bool writeLongNamesPipeline(const QString &path)
{
    const QString json = QStringLiteral(R"({"format": "splitscope.pipeline/1", "name": "long names", "models": ["vae", "dit"],
  "units": [
    {"name": "Encoder", "input_params": ["prompt"], "output_params": ["lat"], "onload_model_names": ["vae"]},
    {"name": "%1", "input_params": ["lat"], "output_params": ["%2"], "onload_model_names": ["dit"]},
    {"name": "Mixer", "input_params": ["lat"], "output_params": ["z"]}
  ],
  "loss": {"name": "Loss", "input_params": ["%2", "z"]},
  "training": {"trainable_models": "dit"}})")
                             .arg(longUnitName(), longParamName());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(json.toUtf8()) > 0;
}

// Waits until the workspace's scene shows the final layout of the open graph.
inline bool waitForGraph(GraphWorkspace &workspace, int timeoutMs = 30000)
{
    LayoutController *layouts = workspace.layouts();
    auto ready = [&]() {
        const auto layout = layouts->layout();
        return !layouts->isBusy() && layout && !layout->provisional && workspace.scene()->hasGraph();
    };
    if (ready())
        return true;
    QSignalSpy spy(workspace.scene(), &SplitGraphScene::layoutApplied);
    while (!ready()) {
        if (!spy.wait(timeoutMs)) {
            const auto layout = layouts->layout();
            qWarning("waitForGraph: busy %d, layout %d, provisional %d, ok %d, drawn %d", layouts->isBusy(),
                layout != nullptr, layout && layout->provisional, layout && layout->ok(),
                workspace.scene()->hasGraph());
            return false;
        }
    }
    return true;
}

// A pipeline whose unit, param and model names hold control characters ("A\nB",
// "x\u0000y", "m\tx"), training m\tx; written to `path`.
inline bool writeControlCharacterPipeline(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(R"({"format": "splitscope.pipeline/1", "name": "c", "models": ["m\tx"],
 "units": [
  {"name": "A\nB", "input_params": ["x\u0000y"], "output_params": ["out"], "onload_model_names": ["m\tx"]},
  {"name": "C", "input_params": ["out"], "output_params": ["z"]}
 ],
 "training": {"lora_base_model": null, "trainable_models": "m\tx"}}
)");
    return true;
}

inline std::vector<UnitId> trainedUnits(const std::vector<char> &members)
{
    std::vector<UnitId> out;
    for (std::size_t u = 0; u < members.size(); ++u) {
        if (members[u])
            out.push_back(static_cast<UnitId>(u));
    }
    return out;
}

inline std::vector<UnitId> sorted(std::vector<UnitId> units)
{
    std::sort(units.begin(), units.end());
    return units;
}

} // namespace splitscope::test
