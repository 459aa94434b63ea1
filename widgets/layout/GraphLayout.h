// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <vector>

namespace splitscope {

// What a drawing of a unit graph is made of, before and after layout. Plain values
// (Qt value types only, no QObject, no Graphviz types), so a layout computed on a
// worker thread can be handed to the GUI thread by copy or shared pointer.
//
// Scene units are typographic points: one Graphviz point is one scene unit, and
// scene y grows downwards (the flip from Graphviz's y-up happens in exactly one
// function, GraphvizLayout.cpp's toScene()).

// One drawn node: a unit, or the loss (unit == graph.lossId()).
struct LayoutNode {
    UnitId unit = kNoUnit;
    QSizeF size; // wanted size in scene units; the layout keeps it
};

// One drawn data edge: every param that flows from `source` to `target` (the
// graph's data edges between that pair, merged so that a pair of units is joined
// by one arrow with one label).
struct LayoutEdge {
    UnitId source = kNoUnit;
    UnitId target = kNoUnit;
    std::vector<ParamId> params; // in the target's input order
    QString label; // the params as drawn, lines separated by '\n'; empty when labels are off
    // The label's box as the view draws it, in scene units. Graphviz reserves exactly
    // this room; when empty it sizes the label from its own font estimate instead
    // (Helvetica at labelFontSize, narrower than the view's font).
    QSizeF labelSize;
};

struct LayoutOptions {
    // Which way the ranks go. Auto: top to bottom, unless the graph is much wider
    // than a screen and left to right suits it better (small graphs only).
    enum class Direction { Auto, TopToBottom, LeftToRight };
    Direction direction = Direction::Auto;
    bool edgeLabels = true;
    // Labels are laid out by Graphviz (room reserved, no overlaps). Costly: a label
    // is a virtual node, 300 units with labels take 8x longer (measured), so big
    // graphs put labels on their edge's midpoint instead.
    bool reserveLabelSpace = true;
    bool showLoss = true;
    // Polyline routing instead of splines.
    bool polylineEdges = false;
    double rankSeparation = 36.0; // scene units between ranks
    double nodeSeparation = 18.0; // scene units between neighbours in a rank
    double labelFontSize = 8.0;   // points; the size edge labels are drawn at
};

struct LayoutRequest {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    LayoutOptions options;
};

// The result: where each requested node and edge goes (same order as the request).
struct GraphLayout {
    struct Node {
        UnitId unit = kNoUnit;
        QRectF rect; // scene coordinates
        int rank = 0; // 0 at the top
    };
    struct Edge {
        LayoutEdge edge;
        QPainterPath path; // from the source's border to the arrow's base
        QPointF arrowBase; // where the arrowhead starts
        QPointF arrowTip;  // where it points (on the target's border)
        QPointF labelCenter;
        bool hasLabel = false;
    };
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    QRectF bounds;
    QString error; // empty on success
    double seconds = 0.0; // time spent laying out
    // A quick layered layout shown while Graphviz works on a big graph.
    bool provisional = false;
    // Ranks go left to right (edges point right) instead of top to bottom.
    bool leftToRight = false;

    bool ok() const { return error.isEmpty(); }
    // Index into `nodes` of a unit (or the loss), or -1.
    int nodeIndex(UnitId unit) const;
};

} // namespace splitscope
