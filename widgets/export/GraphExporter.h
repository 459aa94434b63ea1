// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace splitscope {

class SplitDocument;
class SplitGraphScene;

// Writes what the app shows to files. Every writer is atomic (core/AtomicFile.h):
// a failed export leaves an existing file untouched. On failure the functions
// return false and set `error` to a sentence naming the path.
namespace GraphExporter {

// The drawing as the scene shows it (colors, highlights), with the legend. PNG is
// rendered at `scale` pixels per scene point, reduced for huge graphs so that no
// side exceeds kMaxPngSide pixels.
bool writePng(SplitGraphScene &scene, const QString &path, QString *error = nullptr, double scale = 2.0);
bool writeSvg(SplitGraphScene &scene, const QString &path, QString *error = nullptr);
// The split as Graphviz DOT (splitToDot) and as JSON in the command line's schema
// (splitToJson, with the current unit's explanation when one is selected).
bool writeDot(const SplitDocument &document, const QString &path, QString *error = nullptr, bool edgeLabels = true);
bool writeSplitJson(const SplitDocument &document, const QString &path, QString *error = nullptr);

} // namespace GraphExporter

} // namespace splitscope
