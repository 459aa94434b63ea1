// SPDX-License-Identifier: MIT
#include "LayoutRequestBuilder.h"
#include "widgets/common/WidgetHelpers.h"

#include <unordered_map>

namespace splitscope {

namespace {

constexpr int kMaxLabelLines = 4; // an edge label taller than this hides the graph
constexpr int kMaxLabelChars = 40; // a line longer than this runs across the graph

QString shortened(const QString &name)
{
    return shortenedInTheMiddle(name, kMaxLabelChars);
}

} // namespace

QString edgeLabelText(const PipelineGraph &graph, const std::vector<ParamId> &params)
{
    QStringList lines;
    const int shown = static_cast<int>(params.size()) > kMaxLabelLines ? kMaxLabelLines - 1
                                                                       : static_cast<int>(params.size());
    for (int i = 0; i < shown; ++i)
        lines << shortened(nameText(graph.paramName(params[i])));
    if (shown < static_cast<int>(params.size()))
        lines << QStringLiteral("+%1 more").arg(static_cast<int>(params.size()) - shown);
    return lines.join(QLatin1Char('\n'));
}

LayoutRequest buildLayoutRequest(const PipelineGraph &graph, const LayoutOptions &options,
    const std::function<QSizeF(UnitId)> &nodeSize, const std::function<QSizeF(const QString &)> &labelSize)
{
    LayoutRequest request;
    request.options = options;
    const UnitId last = options.showLoss ? graph.lossId() : graph.unitCount() - 1;
    request.nodes.reserve(static_cast<std::size_t>(last) + 1);
    for (UnitId u = 0; u <= last; ++u)
        request.nodes.push_back(LayoutNode{u, nodeSize(u)});

    // Edges are gathered per target (in-edges come in the target's input order), so
    // merging by source only needs a map per target.
    for (UnitId target = 0; target <= last; ++target) {
        std::unordered_map<UnitId, std::size_t> bySource;
        for (const PipelineGraph::Edge &e : graph.inEdges(target)) {
            const auto found = bySource.find(e.source);
            if (found == bySource.end()) {
                bySource.emplace(e.source, request.edges.size());
                request.edges.push_back(LayoutEdge{e.source, target, {e.param}, {}, {}});
            } else {
                request.edges[found->second].params.push_back(e.param);
            }
        }
    }
    if (options.edgeLabels) {
        for (LayoutEdge &e : request.edges) {
            e.label = edgeLabelText(graph, e.params);
            if (labelSize)
                e.labelSize = labelSize(e.label);
        }
    }
    return request;
}

} // namespace splitscope
