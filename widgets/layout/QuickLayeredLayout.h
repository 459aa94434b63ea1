// SPDX-License-Identifier: MIT
#pragma once

#include "GraphLayout.h"

namespace splitscope {

// A layered layout in linear time, shown at once for big graphs while Graphviz
// `dot` works (dot takes seconds on 1,000 units and more on 2,000; measured by
// bench_graph_view). Ranks are longest paths from the sources, so every edge goes
// down; each rank is ordered by one barycenter pass over the rank above and packed
// without overlaps; edges are straight. Left to right when the options ask for it
// (Auto means top to bottom here). The result is marked provisional.
//
// Pure function of the request; thread-safe.
GraphLayout computeQuickLayeredLayout(const LayoutRequest &request);

} // namespace splitscope
