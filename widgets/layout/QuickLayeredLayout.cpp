// SPDX-License-Identifier: MIT
#include "QuickLayeredLayout.h"

#include <QElapsedTimer>
#include <QLineF>
#include <QTransform>

#include <algorithm>
#include <unordered_map>

namespace splitscope {

namespace {

GraphLayout layeredTopToBottom(const LayoutRequest &request);

// (x, y) -> (y, x): a top-to-bottom layout of transposed boxes is a left-to-right one.
const QTransform kTranspose(0, 1, 1, 0, 0, 0);

} // namespace

GraphLayout computeQuickLayeredLayout(const LayoutRequest &request)
{
    if (request.options.direction != LayoutOptions::Direction::LeftToRight)
        return layeredTopToBottom(request);
    LayoutRequest transposed = request;
    for (LayoutNode &n : transposed.nodes)
        n.size = n.size.transposed();
    GraphLayout layout = layeredTopToBottom(transposed);
    layout.leftToRight = true;
    for (GraphLayout::Node &n : layout.nodes)
        n.rect = kTranspose.mapRect(n.rect);
    for (GraphLayout::Edge &e : layout.edges) {
        e.path = kTranspose.map(e.path);
        e.arrowBase = kTranspose.map(e.arrowBase);
        e.arrowTip = kTranspose.map(e.arrowTip);
        e.labelCenter = kTranspose.map(e.labelCenter);
    }
    layout.bounds = kTranspose.mapRect(layout.bounds);
    return layout;
}

namespace {

GraphLayout layeredTopToBottom(const LayoutRequest &request)
{
    QElapsedTimer timer;
    timer.start();
    GraphLayout layout;
    layout.provisional = true;
    const std::size_t n = request.nodes.size();
    std::unordered_map<UnitId, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i)
        index.emplace(request.nodes[i].unit, i);

    // Incoming edges per node, as node indices.
    std::vector<std::vector<std::size_t>> sources(n);
    for (const LayoutEdge &e : request.edges) {
        const auto s = index.find(e.source), t = index.find(e.target);
        if (s != index.end() && t != index.end() && s->second != t->second)
            sources[t->second].push_back(s->second);
    }
    // Requests list nodes in pipeline order and every edge goes forward in it, so
    // one pass in that order computes longest-path ranks.
    std::vector<int> rank(n, 0);
    int ranks = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (const std::size_t s : sources[i])
            rank[i] = std::max(rank[i], rank[s] + 1);
        ranks = std::max(ranks, rank[i] + 1);
    }
    std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(ranks));
    for (std::size_t i = 0; i < n; ++i)
        rows[rank[i]].push_back(i);

    const double nodeSep = request.options.nodeSeparation;
    const double rankSep = request.options.rankSeparation;
    std::vector<double> centerX(n, 0.0);
    std::vector<QRectF> rects(n);
    double y = 0;
    for (auto &row : rows) {
        // Barycenter of the sources already placed. Only the first rank has nodes
        // without sources, and there pipeline order decides.
        std::vector<std::pair<double, std::size_t>> keyed;
        keyed.reserve(row.size());
        for (const std::size_t i : row) {
            double sum = 0;
            for (const std::size_t s : sources[i])
                sum += centerX[s];
            keyed.emplace_back(sources[i].empty() ? static_cast<double>(i) : sum / sources[i].size(), i);
        }
        std::stable_sort(keyed.begin(), keyed.end());
        double width = 0, height = 0;
        for (const auto &k : keyed) {
            width += request.nodes[k.second].size.width() + nodeSep;
            height = std::max(height, request.nodes[k.second].size.height());
        }
        double x = -width / 2;
        for (const auto &k : keyed) {
            const QSizeF size = request.nodes[k.second].size;
            rects[k.second] = QRectF(x, y + (height - size.height()) / 2, size.width(), size.height());
            centerX[k.second] = x + size.width() / 2;
            x += size.width() + nodeSep;
        }
        y += height + rankSep;
    }

    QRectF bounds;
    layout.nodes.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        layout.nodes.push_back(GraphLayout::Node{request.nodes[i].unit, rects[i], rank[i]});
        bounds = bounds.united(rects[i]);
    }
    layout.edges.reserve(request.edges.size());
    for (const LayoutEdge &e : request.edges) {
        GraphLayout::Edge out;
        out.edge = e;
        const auto s = index.find(e.source), t = index.find(e.target);
        if (s != index.end() && t != index.end()) {
            const QRectF &from = rects[s->second];
            const QRectF &to = rects[t->second];
            const QPointF start(from.center().x(), from.bottom());
            const QPointF tip(to.center().x(), to.top());
            QLineF shaft(start, tip);
            const double arrow = std::min(8.0, shaft.length() / 3);
            shaft.setLength(shaft.length() - arrow);
            out.path.moveTo(start);
            out.path.lineTo(shaft.p2());
            out.arrowBase = shaft.p2();
            out.arrowTip = tip;
            if (request.options.edgeLabels && !e.label.isEmpty()) {
                out.labelCenter = (start + tip) / 2;
                out.hasLabel = true;
            }
        }
        layout.edges.push_back(std::move(out));
    }
    layout.bounds = bounds;
    layout.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return layout;
}

} // namespace

} // namespace splitscope
