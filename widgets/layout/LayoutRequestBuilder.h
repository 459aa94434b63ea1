// SPDX-License-Identifier: MIT
#pragma once

#include "GraphLayout.h"

#include <functional>

namespace splitscope {

// Turns a pipeline graph into a layout request: one node per unit (pipeline order),
// the loss last when options.showLoss, and one edge per (producer, reader) pair
// carrying every param that flows between them. `nodeSize` gives each node's size
// in scene units (the drawing's fonts decide it, so the caller supplies it), and
// `labelSize`, when given, the size of each edge label's box (LayoutEdge::labelSize).
LayoutRequest buildLayoutRequest(const PipelineGraph &graph, const LayoutOptions &options,
    const std::function<QSizeF(UnitId)> &nodeSize,
    const std::function<QSizeF(const QString &)> &labelSize = {});

// The label drawn on an edge: one param per line, at most kMaxLabelLines lines
// (the rest summarised as "+N more"), a name longer than kMaxLabelChars shortened
// in the middle with "…" (the edge's tooltip has the full names). The layout
// reserves room for this text, so what is drawn is what was laid out.
QString edgeLabelText(const PipelineGraph &graph, const std::vector<ParamId> &params);

} // namespace splitscope
