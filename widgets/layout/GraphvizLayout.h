// SPDX-License-Identifier: MIT
#pragma once

#include "GraphLayout.h"

namespace splitscope {

// Lays out a unit graph with Graphviz `dot` (ranks top to bottom or left to right,
// see LayoutOptions::Direction; splines routed around nodes).
//
// Thread safety: Graphviz keeps global state and is not thread-safe, so every call
// into it, from any thread, is serialised by one process-wide mutex inside this
// function. Call it from a worker thread (LayoutController does); it blocks for as
// long as the layout takes (milliseconds for a real pipeline, seconds for thousands
// of units). Graphviz types never appear in this header.
//
// Never throws: failures (no dot plugin, Graphviz errors) come back in
// GraphLayout::error with the nodes unplaced.
GraphLayout computeGraphvizLayout(const LayoutRequest &request);

} // namespace splitscope
