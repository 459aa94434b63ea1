// SPDX-License-Identifier: MIT
#include "GraphvizLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace splitscope {

namespace {

constexpr double kPointsPerInch = 72.0; // Graphviz sizes are inches, positions points
constexpr int kLargeGraphNodes = 200;    // above this, trade straightness for speed
constexpr int kHugeGraphNodes = 1000;    // above this, straight edges (spline routing is the slow part)
constexpr int kAutoDirectionNodes = 200; // Auto tries left-to-right only up to this size
constexpr double kViewAspect = 1.6;      // width / height of the view a layout is made for
constexpr double kTurnMismatch = 1.8;    // Auto keeps top-to-bottom while it is this close to the view's shape

// Graphviz is one big piece of global state: plugins, string pools, error hooks.
std::mutex &graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

// Graphviz's own messages, collected while the mutex is held (agseterrf is global).
std::string &graphvizMessages()
{
    static std::string messages;
    return messages;
}

int collectGraphvizMessage(char *message)
{
    graphvizMessages() += message;
    return 0;
}

struct ContextDeleter {
    void operator()(GVC_t *context) const { gvFreeContext(context); }
};
using ContextOwner = std::unique_ptr<GVC_t, ContextDeleter>;

// One context for the life of the program: creating it loads the plugin list.
GVC_t *sharedContext()
{
    static ContextOwner context(gvContext());
    return context.get();
}

// Owns an Agraph_t from agopen to agclose.
class GraphOwner {
public:
    GraphOwner() : m_graph(agopen(const_cast<char *>("units"), Agdirected, nullptr)) {}
    ~GraphOwner()
    {
        if (m_graph)
            agclose(m_graph);
    }
    GraphOwner(const GraphOwner &) = delete;
    GraphOwner &operator=(const GraphOwner &) = delete;
    Agraph_t *get() const { return m_graph; }

private:
    Agraph_t *m_graph;
};

// Owns the layout data gvLayout attaches to a graph, until gvFreeLayout.
class LayoutOwner {
public:
    LayoutOwner(GVC_t *context, Agraph_t *graph) : m_context(context), m_graph(graph)
    {
        m_status = gvLayout(context, graph, "dot");
    }
    ~LayoutOwner()
    {
        if (m_status == 0)
            gvFreeLayout(m_context, m_graph);
    }
    LayoutOwner(const LayoutOwner &) = delete;
    LayoutOwner &operator=(const LayoutOwner &) = delete;
    bool ok() const { return m_status == 0; }

private:
    GVC_t *m_context;
    Agraph_t *m_graph;
    int m_status = -1;
};

// cgraph's setters take `char *` but copy the strings into their own pool, so
// passing our const data is safe.
void setAttribute(void *object, const char *name, const std::string &value)
{
    agsafeset(object, const_cast<char *>(name), const_cast<char *>(value.c_str()), const_cast<char *>(""));
}

// Sets an attribute to an HTML-like string (`<...>` in DOT), which cgraph keeps
// apart from plain strings of the same text.
void setHtmlAttribute(Agedge_t *edge, const char *name, const std::string &html)
{
    Agraph_t *graph = agraphof(edge);
    char *value = agstrdup_html(graph, const_cast<char *>(html.c_str()));
    agsafeset(edge, const_cast<char *>(name), value, const_cast<char *>(""));
    agstrfree(graph, value);
}

// A label that draws nothing and takes `size` (scene units = points), rounded up.
std::string fixedSizeLabel(const QSizeF &size)
{
    const auto points = [](double v) { return std::to_string(static_cast<long>(std::ceil(std::min(v, 65000.0)))); };
    return "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\"><TR><TD FIXEDSIZE=\"TRUE\" "
           "WIDTH=\"" + points(size.width()) + "\" HEIGHT=\"" + points(size.height()) + "\"></TD></TR></TABLE>";
}

std::string inches(double sceneUnits)
{
    return std::to_string(sceneUnits / kPointsPerInch);
}

// The one conversion from Graphviz coordinates (points, y up, origin bottom-left of
// the bounding box) to scene coordinates (y down, origin top-left).
QPointF toScene(const pointf &point, double graphTop)
{
    return QPointF(point.x, graphTop - point.y);
}

GraphLayout failed(const LayoutRequest &request, const QString &error)
{
    GraphLayout layout;
    layout.error = error;
    for (const LayoutNode &node : request.nodes)
        layout.nodes.push_back(GraphLayout::Node{node.unit, QRectF(QPointF(0, 0), node.size), 0});
    return layout;
}

} // namespace

namespace {

// One dot run. The caller holds the Graphviz mutex.
GraphLayout layoutOnce(const LayoutRequest &request, bool leftToRight)
{
    QElapsedTimer timer;
    timer.start();
    graphvizMessages().clear();
    const agusererrf previousHandler = agseterrf(collectGraphvizMessage);
    struct RestoreHandler {
        agusererrf handler;
        ~RestoreHandler() { agseterrf(handler); }
    } restore{previousHandler};

    GVC_t *context = sharedContext();
    if (!context)
        return failed(request, QStringLiteral("Graphviz could not start (gvContext failed)."));
    GraphOwner graph;
    if (!graph.get())
        return failed(request, QStringLiteral("Graphviz could not create a graph."));
    Agraph_t *g = graph.get();

    const LayoutOptions &o = request.options;
    const bool large = static_cast<int>(request.nodes.size()) > kLargeGraphNodes;
    setAttribute(g, "rankdir", leftToRight ? "LR" : "TB");
    setAttribute(g, "nodesep", inches(o.nodeSeparation));
    setAttribute(g, "ranksep", inches(o.rankSeparation));
    const bool huge = static_cast<int>(request.nodes.size()) > kHugeGraphNodes;
    setAttribute(g, "splines", huge ? "line" : (o.polylineEdges ? "polyline" : "spline"));
    // Keep each unit's out-edges in request order: siblings then tend to follow pipeline order.
    setAttribute(g, "ordering", "out");
    if (large) {
        // One network-simplex pass for ranking and x coordinates: 3-4x faster on a
        // few hundred units (measured), at the price of some bent edges.
        setAttribute(g, "nslimit", "1");
        setAttribute(g, "nslimit1", "1");
    }

    std::vector<Agnode_t *> nodes;
    nodes.reserve(request.nodes.size());
    std::unordered_map<UnitId, Agnode_t *> byUnit;
    for (std::size_t i = 0; i < request.nodes.size(); ++i) {
        const LayoutNode &n = request.nodes[i];
        const std::string name = "n" + std::to_string(i);
        Agnode_t *node = agnode(g, const_cast<char *>(name.c_str()), 1);
        setAttribute(node, "shape", "box");
        setAttribute(node, "fixedsize", "true");
        setAttribute(node, "label", "");
        setAttribute(node, "width", inches(n.size.width()));
        setAttribute(node, "height", inches(n.size.height()));
        nodes.push_back(node);
        byUnit.emplace(n.unit, node);
    }

    std::vector<Agedge_t *> edges;
    edges.reserve(request.edges.size());
    for (std::size_t i = 0; i < request.edges.size(); ++i) {
        const LayoutEdge &e = request.edges[i];
        const auto source = byUnit.find(e.source);
        const auto target = byUnit.find(e.target);
        if (source == byUnit.end() || target == byUnit.end()) {
            edges.push_back(nullptr);
            continue;
        }
        const std::string name = "e" + std::to_string(i);
        Agedge_t *edge = agedge(g, source->second, target->second, const_cast<char *>(name.c_str()), 1);
        if (o.edgeLabels && o.reserveLabelSpace && !e.label.isEmpty()) {
            if (!e.labelSize.isEmpty()) {
                // An HTML-like label holding one empty cell of the drawn box's size:
                // Graphviz reserves exactly the room the view's font takes.
                setHtmlAttribute(edge, "label", fixedSizeLabel(e.labelSize));
            } else {
                // Graphviz sizes the label from its own font estimate.
                // Lines are joined with Graphviz's "\n" escape (centred lines).
                std::string label = e.label.toStdString();
                for (std::size_t at = label.find('\n'); at != std::string::npos; at = label.find('\n', at + 2))
                    label.replace(at, 1, "\\n");
                setAttribute(edge, "label", label);
                setAttribute(edge, "fontname", "Helvetica");
                setAttribute(edge, "fontsize", std::to_string(o.labelFontSize));
            }
        }
        edges.push_back(edge);
    }

    LayoutOwner layoutOwner(context, g);
    if (!layoutOwner.ok()) {
        QString why = QString::fromStdString(graphvizMessages()).trimmed();
        if (why.isEmpty())
            why = QStringLiteral("is the dot layout plugin installed? Running `dot -c` as root registers it");
        return failed(request, QStringLiteral("Graphviz could not lay out the graph: %1").arg(why));
    }

    GraphLayout layout;
    layout.leftToRight = leftToRight;
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    layout.bounds = QRectF(toScene(bb.LL, top), toScene(bb.UR, top)).normalized();
    layout.nodes.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        Agnode_t *node = nodes[i];
        const QPointF center = toScene(ND_coord(node), top);
        const QSizeF size(ND_width(node) * kPointsPerInch, ND_height(node) * kPointsPerInch);
        layout.nodes.push_back(GraphLayout::Node{request.nodes[i].unit,
            QRectF(center.x() - size.width() / 2, center.y() - size.height() / 2, size.width(), size.height()),
            ND_rank(node)});
    }
    layout.edges.reserve(edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
        GraphLayout::Edge out;
        out.edge = request.edges[i];
        Agedge_t *edge = edges[i];
        if (edge && ED_spl(edge) && ED_spl(edge)->size > 0) {
            const splines *spl = ED_spl(edge);
            for (int b = 0; b < spl->size; ++b) {
                const bezier &bz = spl->list[b];
                if (bz.size < 1)
                    continue;
                out.path.moveTo(toScene(bz.list[0], top));
                for (int k = 1; k + 2 < bz.size; k += 3)
                    out.path.cubicTo(toScene(bz.list[k], top), toScene(bz.list[k + 1], top), toScene(bz.list[k + 2], top));
                out.arrowBase = toScene(bz.list[bz.size - 1], top);
                out.arrowTip = bz.eflag ? toScene(bz.ep, top) : out.arrowBase;
            }
            if (ED_label(edge) && ED_label(edge)->set) {
                out.labelCenter = toScene(ED_label(edge)->pos, top);
                out.hasLabel = true;
            }
        }
        if (!out.hasLabel && o.edgeLabels && !out.edge.label.isEmpty() && !out.path.isEmpty()) {
            // No room was reserved (a big graph): the label sits on the edge's middle.
            out.labelCenter = out.path.pointAtPercent(0.5);
            out.hasLabel = true;
        }
        layout.edges.push_back(std::move(out));
    }
    layout.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return layout;
}

// How far a layout's shape is from the view it will be shown in (1 = the same shape).
double aspectMismatch(const GraphLayout &layout)
{
    if (layout.bounds.isEmpty())
        return 1e9;
    const double ratio = (layout.bounds.width() / layout.bounds.height()) / kViewAspect;
    return ratio >= 1.0 ? ratio : 1.0 / ratio;
}

} // namespace

GraphLayout computeGraphvizLayout(const LayoutRequest &request)
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    switch (request.options.direction) {
    case LayoutOptions::Direction::TopToBottom: return layoutOnce(request, false);
    case LayoutOptions::Direction::LeftToRight: return layoutOnce(request, true);
    case LayoutOptions::Direction::Auto: break;
    }
    // Pipelines are often much wider than deep (many units read only external inputs
    // and feed the loss): such a graph is drawn left to right when that shape suits
    // a screen better. Small graphs only: it costs a second run.
    GraphLayout topDown = layoutOnce(request, false);
    if (!topDown.ok() || static_cast<int>(request.nodes.size()) > kAutoDirectionNodes
        || aspectMismatch(topDown) < kTurnMismatch)
        return topDown;
    GraphLayout leftRight = layoutOnce(request, true);
    if (!leftRight.ok() || aspectMismatch(leftRight) >= aspectMismatch(topDown))
        return topDown;
    leftRight.seconds += topDown.seconds;
    return leftRight;
}

} // namespace splitscope
