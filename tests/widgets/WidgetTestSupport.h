// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/layout/LayoutController.h"

#include "resources/Examples.h"

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
