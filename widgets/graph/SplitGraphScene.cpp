// SPDX-License-Identifier: MIT
#include "SplitGraphScene.h"

#include "ChainLinkItem.h"
#include "DataEdgeItem.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/layout/LayoutController.h"

#include "core/Explain.h"
#include "widgets/common/WidgetHelpers.h"

#include <QGraphicsSceneHelpEvent>
#include <QGraphicsSceneMouseEvent>
#include <QToolTip>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

namespace splitscope {

namespace {

constexpr double kSceneMargin = 40.0;   // empty border around the drawing
constexpr double kFreeRoom = 2000.0;    // scene units of free space around the graph, at least

quint64 edgeKey(UnitId source, UnitId target)
{
    return (static_cast<quint64>(static_cast<quint32>(source)) << 32) | static_cast<quint32>(target);
}

} // namespace

SplitGraphScene::SplitGraphScene(SplitDocument *document, LayoutController *layouts, TraceCursor *cursor, Role role,
    QObject *parent)
    : QGraphicsScene(parent), m_document(document), m_layouts(layouts), m_cursor(cursor), m_role(role)
{
    setBackgroundBrush(GraphStyle::standard().background);
    connect(document, &SplitDocument::pipelineReset, this, &SplitGraphScene::pipelineReset);
    connect(layouts, &LayoutController::layoutReady, this, &SplitGraphScene::layoutReady);
    connect(document, &SplitDocument::analysisChanged, this, [this]() {
        m_focusedHazard = -1; // hazard indices belong to the previous split
        refresh();
    });
    connect(document, &SplitDocument::comparisonChanged, this, &SplitGraphScene::refresh);
    connect(document, &SplitDocument::currentUnitChanged, this, &SplitGraphScene::selectionFromDocument);
    if (cursor && role == Role::Primary)
        connect(cursor, &TraceCursor::positionChanged, this, &SplitGraphScene::refresh);
    connect(this, &QGraphicsScene::selectionChanged, this, &SplitGraphScene::selectionFromScene);
    if (m_layouts->layout() && m_layouts->layoutGraph() == m_document->sharedGraph())
        layoutReady();
    else if (m_document->hasPipeline())
        pipelineReset();
    else
        showPlaceholder(tr("No pipeline open.\n\nFile ▸ Open (Ctrl+O), drop a pipeline .json file here,\n"
                           "or pick one of the shipped pipelines in File ▸ Examples."));
}

SplitGraphScene::~SplitGraphScene()
{
    // Items go with the scene; stop reacting to the selection changes their removal causes.
    disconnect(this, &QGraphicsScene::selectionChanged, this, &SplitGraphScene::selectionFromScene);
    // Views let go while this object is still whole (QGraphicsScene's destructor
    // would detach them when only its base part is left).
    for (QGraphicsView *view : views())
        view->setScene(nullptr);
}

bool SplitGraphScene::hasGraph() const
{
    return !m_nodes.empty() && m_itemsGraph && m_itemsGraph == m_document->sharedGraph();
}

void SplitGraphScene::pipelineReset()
{
    m_focusedHazard = -1;
    if (hasGraph())
        return; // a quick layout of the new graph came first and is drawn already
    if (m_active && m_layouts->layout() && m_layouts->layoutGraph() == m_document->sharedGraph()) {
        layoutReady();
        return;
    }
    const int units = m_document->graph().unitCount();
    showPlaceholder(countText(units, tr("Laying out %n unit with Graphviz dot…"),
        tr("Laying out %n units with Graphviz dot…")));
}

void SplitGraphScene::showPlaceholder(const QString &text)
{
    m_syncingSelection = true;
    clear();
    m_syncingSelection = false;
    m_nodes.clear();
    m_itemsGraph.reset();
    m_edges.clear();
    m_edgeList.clear();
    m_chainLinks.clear();
    m_causeLinks.clear();
    m_hazardLinks.clear();
    m_placeholder = addSimpleText(text, GraphStyle::standard().nameFont);
    m_placeholder->setBrush(GraphStyle::standard().mutedText);
    m_graphRect = m_drawnRect = m_placeholder->boundingRect();
    setSceneRect(m_graphRect.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    Q_EMIT layoutApplied();
}

QString SplitGraphScene::placeholderText() const
{
    return m_placeholder ? m_placeholder->text() : QString();
}

void SplitGraphScene::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    if (active && !hasGraph() && m_document->hasPipeline())
        layoutReady(); // catch up with the layout that came while hidden
}

void SplitGraphScene::layoutReady()
{
    if (!m_active)
        return; // a hidden scene builds its items when it is shown
    const auto layout = m_layouts->layout();
    if (!layout || !m_document->hasPipeline() || m_layouts->layoutGraph() != m_document->sharedGraph())
        return; // a layout of a graph that is no longer open
    if (!layout->ok()) {
        showPlaceholder(tr("The graph could not be laid out.\n%1").arg(layout->error));
        return;
    }
    rebuild(*layout);
}

bool SplitGraphScene::moveItems(const GraphLayout &layout)
{
    // Same graph, same drawn edges: only positions and routes change (the quick
    // layout of a big graph replaced by dot's, or labels toggled). Moving thousands
    // of items costs a fraction of destroying and making them again; the index is
    // rebuilt once at the end instead of per item.
    if (!hasGraph() || layout.edges.size() != m_edgeList.size())
        return false;
    for (const GraphLayout::Node &n : layout.nodes) {
        if (!nodeItem(n.unit) || nodeItem(n.unit)->boxRect().size() != n.rect.size())
            return false;
    }
    for (std::size_t i = 0; i < layout.edges.size(); ++i) {
        if (m_edgeList[i]->source() != layout.edges[i].edge.source
            || m_edgeList[i]->target() != layout.edges[i].edge.target)
            return false;
    }
    setItemIndexMethod(QGraphicsScene::NoIndex);
    for (const GraphLayout::Node &n : layout.nodes)
        m_nodes[n.unit]->setPos(n.rect.topLeft());
    for (std::size_t i = 0; i < layout.edges.size(); ++i)
        m_edgeList[i]->setRoute(layout.edges[i]);
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    return true;
}

void SplitGraphScene::rebuild(const GraphLayout &layout)
{
    // Moved or made again, the items are this layout's: so are the ranks and the direction.
    m_leftToRight = layout.leftToRight;
    m_ranks.assign(static_cast<std::size_t>(m_document->graph().lossId()) + 1, -1);
    for (const GraphLayout::Node &n : layout.nodes) {
        if (n.unit >= 0 && n.unit < static_cast<UnitId>(m_ranks.size()))
            m_ranks[n.unit] = n.rank;
    }
    if (moveItems(layout)) {
        setGraphRect(layout.bounds);
        rebuildChainLinks();
        refresh();
        Q_EMIT layoutApplied();
        return;
    }
    m_syncingSelection = true;
    clear();
    m_syncingSelection = false;
    m_placeholder = nullptr;
    m_nodes.clear();
    m_edges.clear();
    m_edgeList.clear();
    m_chainLinks.clear();
    m_causeLinks.clear();
    m_hazardLinks.clear();

    m_itemsGraph = m_document->sharedGraph();
    const PipelineGraph &graph = m_document->graph();
    const GraphStyle &style = GraphStyle::standard();
    m_nodes.assign(static_cast<std::size_t>(graph.lossId()) + 1, nullptr);
    const QString prefix = GraphStyle::commonUnitPrefix(graph);
    for (const GraphLayout::Node &n : layout.nodes) {
        if (n.unit < 0 || n.unit > graph.lossId())
            continue;
        const bool isLoss = n.unit == graph.lossId();
        QStringList models;
        if (!isLoss) {
            for (const ModelId m : graph.unitModels(n.unit))
                models << nameText(graph.modelName(m));
        }
        auto *item = new UnitNodeItem(n.unit, GraphStyle::shownName(graph, n.unit, prefix), models,
            !isLoss && graph.isStochastic(n.unit), isLoss, n.rect.size(), style);
        item->setPos(n.rect.topLeft());
        addItem(item);
        m_nodes[n.unit] = item;
    }
    if (!m_nodes.back())
        m_nodes.pop_back(); // the loss is not drawn
    for (const GraphLayout::Edge &e : layout.edges) {
        auto *item = new DataEdgeItem(e, style);
        addItem(item);
        m_edges.emplace(edgeKey(e.edge.source, e.edge.target), item);
        m_edgeList.push_back(item);
    }
    setGraphRect(layout.bounds);
    rebuildChainLinks();
    refresh();
    selectionFromDocument(m_document->currentUnit());
    Q_EMIT layoutApplied();
}

void SplitGraphScene::setGraphRect(const QRectF &bounds)
{
    // Fitting frames the boxes and edges. The scene itself reaches far beyond, so
    // that a view can put the graph anywhere (clear of its legend, say) and the
    // chain and cause arcs that appear on demand always have room.
    // What is drawn, not only Graphviz's bounds (measured with its own font estimate):
    // a label or a name Qt draws wider than Graphviz thought is fitted too.
    QRectF drawn = bounds;
    for (const UnitNodeItem *node : m_nodes) {
        if (node)
            drawn |= node->sceneBoundingRect();
    }
    for (const DataEdgeItem *edge : m_edgeList)
        drawn |= edge->sceneBoundingRect();
    m_graphRect = m_drawnRect = drawn;
    const double room = std::max(drawn.width(), drawn.height()) + kFreeRoom;
    setSceneRect(drawn.adjusted(-room, -room, room, room));
}

UnitNodeItem *SplitGraphScene::nodeItem(UnitId unit) const
{
    if (!hasGraph() || unit < 0 || unit >= static_cast<UnitId>(m_nodes.size()))
        return nullptr;
    return m_nodes[unit];
}

int SplitGraphScene::rankOf(UnitId unit) const
{
    if (!nodeItem(unit) || unit >= static_cast<UnitId>(m_ranks.size()))
        return -1;
    return m_ranks[unit];
}

DataEdgeItem *SplitGraphScene::edgeItem(UnitId source, UnitId target) const
{
    if (!hasGraph())
        return nullptr;
    const auto found = m_edges.find(edgeKey(source, target));
    return found == m_edges.end() ? nullptr : found->second;
}

void SplitGraphScene::setShowChains(bool show)
{
    if (show == m_showChains)
        return;
    m_showChains = show;
    rebuildChainLinks();
}

void SplitGraphScene::setHighlightLineage(bool on)
{
    if (on == m_lineage)
        return;
    m_lineage = on;
    refresh();
}

void SplitGraphScene::setDiffDisplay(DiffDisplay display)
{
    if (display == m_diffDisplay)
        return;
    m_diffDisplay = display;
    refresh();
}

void SplitGraphScene::setFocusedHazard(int index)
{
    m_focusedHazard = index;
    refresh();
}

void SplitGraphScene::rebuildChainLinks()
{
    for (ChainLinkItem *link : m_chainLinks)
        delete link;
    m_chainLinks.clear();
    if (!m_showChains || !hasGraph())
        return;
    const PipelineGraph &graph = m_document->graph();
    // One arc per pair of consecutive rewriters, labelled with every param they share.
    std::map<std::pair<UnitId, UnitId>, QStringList> links;
    for (ParamId p = 0; p < graph.paramCount(); ++p) {
        const Span<UnitId> chain = graph.chain(p);
        for (std::size_t i = 1; i < chain.size(); ++i) {
            if (chain[i - 1] != chain[i])
                links[{chain[i - 1], chain[i]}] << nameText(graph.paramName(p));
        }
    }
    const GraphStyle &style = GraphStyle::standard();
    for (const auto &[pair, params] : links) {
        UnitNodeItem *from = nodeItem(pair.first);
        UnitNodeItem *to = nodeItem(pair.second);
        if (!from || !to)
            continue;
        auto *link = new ChainLinkItem(from->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)),
            to->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)), params.join(QStringLiteral(", ")),
            ChainLinkItem::Kind::Chain, style);
        link->setUnits(pair.first, pair.second);
        addItem(link);
        m_chainLinks.push_back(link);
    }
}

// What refresh() draws: the split shown, the step, the highlights and the lineage.
struct SplitGraphScene::Marks {
    std::shared_ptr<const SplitAnalysis> shown;
    std::shared_ptr<const SplitAnalysis> other; // the comparison's (of the primary's, in view B)
    bool stepping = false;
    const TracePosition *step = nullptr;
    std::vector<char> members; // stage two, at the step or in the split
    std::vector<char> added, causeUnit, hazardUnit, focusUnit, x0, frozen, moved;
    std::unordered_set<quint64> causeEdges, hazardEdges;
    quint64 focusEdge = ~quint64(0);
    bool hazardFocus = false;
    bool diffShown = false;
    std::vector<bool> trainableModel;
    // Lineage of the current unit: everything upstream and downstream along data edges.
    bool lineage = false;
    UnitId focus = kNoUnit;
    std::vector<char> up, down;
};

void SplitGraphScene::refresh()
{
    // Between a new pipeline and its layout the items belong to the old graph.
    if (!hasGraph())
        return;
    const Marks marks = currentMarks();
    applyNodeLooks(marks);
    applyEdgeLooks(marks);
    applyFilter(marks);
    updateHazardLinks(marks);
    updateCauseLinks(marks.step);
}

void SplitGraphScene::setStageTwoFilter(bool on)
{
    if (on == m_stageTwoFilter)
        return;
    m_stageTwoFilter = on;
    refresh();
}

void SplitGraphScene::applyFilter(const Marks &m)
{
    const PipelineGraph &graph = m_document->graph();
    const std::size_t slots = m_nodes.size();
    std::vector<char> shown(slots, m_stageTwoFilter ? 0 : 1);
    if (m_stageTwoFilter && m.shown) {
        std::vector<char> core(slots, 0);
        for (std::size_t u = 0; u < slots; ++u)
            core[u] = static_cast<UnitId>(u) == graph.lossId() || (u < m.members.size() && m.members[u]);
        shown = core;
        for (const DataEdgeItem *edge : m_edgeList) {
            const auto s = static_cast<std::size_t>(edge->source()), t = static_cast<std::size_t>(edge->target());
            if (s < slots && t < slots && (core[s] || core[t]))
                shown[s] = shown[t] = 1;
        }
    }
    for (std::size_t u = 0; u < slots; ++u) {
        if (m_nodes[u])
            m_nodes[u]->setVisible(shown[u]);
    }
    const auto visible = [&](UnitId u) { return u >= 0 && static_cast<std::size_t>(u) < slots && shown[u]; };
    for (DataEdgeItem *edge : m_edgeList)
        edge->setVisible(visible(edge->source()) && visible(edge->target()));
    for (ChainLinkItem *link : m_chainLinks)
        link->setVisible(visible(link->from()) && visible(link->to()));
}

SplitGraphScene::Marks SplitGraphScene::currentMarks() const
{
    const PipelineGraph &graph = m_document->graph();
    const std::size_t slots = static_cast<std::size_t>(graph.lossId()) + 1;
    Marks m;
    m.shown = m_role == Role::Primary ? m_document->analysis() : m_document->comparison();
    m.other = m_role == Role::Primary ? m_document->comparison() : m_document->analysis();
    const auto diff = m_document->diff();
    const auto &shown = m.shown;
    m.stepping = shown && isStepping();
    if (shown)
        m.members = m.stepping ? m_cursor->membersAt(m_cursor->position()) : shown->split.trained;
    m.step = m.stepping ? &m_cursor->step(m_cursor->position()) : nullptr;
    for (auto *marks : {&m.added, &m.causeUnit, &m.hazardUnit, &m.focusUnit, &m.x0, &m.frozen, &m.moved})
        marks->assign(slots, 0);
    if (m.step) {
        for (const StepCause &c : m.step->causes) {
            m.added[c.to] = 1;
            if (c.from != kNoUnit)
                m.causeUnit[c.from] = 1;
            if (c.kind == StepCause::Kind::DataEdge)
                m.causeEdges.insert(edgeKey(c.from, c.to));
        }
    }
    const bool hazardsShown = shown && !m.stepping;
    const int hazardCount = shown ? static_cast<int>(shown->verification.hazards.size()) : 0;
    m.hazardFocus = hazardsShown && m_focusedHazard >= 0 && m_focusedHazard < hazardCount;
    if (hazardsShown) {
        for (int i = 0; i < hazardCount; ++i) {
            const Hazard &h = shown->verification.hazards[i];
            for (const UnitId u : {h.reader, h.expected, h.actual}) {
                if (u != kNoUnit) {
                    m.hazardUnit[u] = 1;
                    if (i == m_focusedHazard)
                        m.focusUnit[u] = 1;
                }
            }
            if (h.expected != kNoUnit) {
                m.hazardEdges.insert(edgeKey(h.expected, h.reader));
                if (i == m_focusedHazard)
                    m.focusEdge = edgeKey(h.expected, h.reader);
            }
        }
        // A stage-one unit that calls a model needing gradients without declaring it.
        for (const DeclarationFinding &f : shown->verification.findings) {
            if (f.hazard)
                m.hazardUnit[f.unit] = 1;
        }
    }
    if (shown) {
        for (const UnitId u : shown->split.x0)
            m.x0[u] = 1;
        for (const UnitId u : shown->verification.frozenRandomness)
            m.frozen[u] = 1;
    }
    m.diffShown = diff && m.other && m_diffDisplay != DiffDisplay::Off;
    if (m.diffShown) {
        for (const MovedUnit &moved : diff->moved)
            m.moved[moved.unit] = 1;
    }
    m.trainableModel.assign(static_cast<std::size_t>(graph.modelCount()), false);
    if (shown) {
        for (const ModelId model : graph.resolveModels(shown->split.models))
            m.trainableModel[model] = true;
    }
    m.focus = m_document->currentUnit();
    // The stepper's highlights are what a step is about: no lineage dimming over them.
    m.lineage = m_lineage && !m.hazardFocus && !m.stepping && m.focus != kNoUnit && nodeItem(m.focus);
    if (m.lineage)
        markLineage(m);
    return m;
}

void SplitGraphScene::markLineage(Marks &m) const
{
    const PipelineGraph &graph = m_document->graph();
    const std::size_t slots = static_cast<std::size_t>(graph.lossId()) + 1;
    m.up.assign(slots, 0);
    m.down.assign(slots, 0);
    std::vector<UnitId> stack{m.focus};
    while (!stack.empty()) {
        const UnitId u = stack.back();
        stack.pop_back();
        for (const PipelineGraph::Edge &e : graph.inEdges(u)) {
            if (!m.up[e.source]) {
                m.up[e.source] = 1;
                stack.push_back(e.source);
            }
        }
    }
    const bool lossDrawn = nodeItem(graph.lossId()) != nullptr;
    std::vector<char> feedsLoss(slots, 0);
    for (const PipelineGraph::Edge &e : graph.inEdges(graph.lossId()))
        feedsLoss[e.source] = 1;
    stack.push_back(m.focus);
    while (!stack.empty()) {
        const UnitId u = stack.back();
        stack.pop_back();
        if (u == graph.lossId())
            continue;
        for (const PipelineGraph::Edge &e : graph.outEdges(u)) {
            if (!m.down[e.target]) {
                m.down[e.target] = 1;
                stack.push_back(e.target);
            }
        }
        if (lossDrawn && feedsLoss[u])
            m.down[graph.lossId()] = 1;
    }
}

void SplitGraphScene::applyNodeLooks(const Marks &m)
{
    const PipelineGraph &graph = m_document->graph();
    for (UnitNodeItem *item : m_nodes) {
        if (!item)
            continue;
        const UnitId u = item->unit();
        UnitNodeItem::Look look;
        const bool isLoss = u == graph.lossId();
        if (isLoss)
            look.stage = UnitNodeItem::Stage::Loss;
        else if (m.shown)
            look.stage = m.members[u] ? UnitNodeItem::Stage::Two : UnitNodeItem::Stage::One;
        if (!isLoss && m.diffShown && m_diffDisplay == DiffDisplay::Overlay && !m.stepping)
            look.otherStage = m.other->split.isTrained(u) ? UnitNodeItem::Stage::Two : UnitNodeItem::Stage::One;
        look.x0 = m.x0[u];
        look.hazard = m.hazardUnit[u];
        look.hazardFocus = m.focusUnit[u];
        look.frozenRandomness = m.frozen[u];
        look.added = m.added[u];
        look.cause = m.causeUnit[u];
        look.moved = m.moved[u] && !m.stepping;
        if (look.moved && !isLoss && m.other)
            look.movedTo = (m_role == Role::Primary ? m.other : m.shown)->split.isTrained(u) ? 2 : 1;
        if (m.hazardFocus)
            look.dimmed = !m.focusUnit[u];
        else if (m.lineage)
            look.dimmed = !(u == m.focus || m.up[u] || m.down[u]);
        if (!isLoss) {
            int i = 0;
            for (const ModelId model : graph.unitModels(u)) {
                if (i < 64 && m.trainableModel[model])
                    look.trainableBadges |= quint64(1) << i;
                ++i;
            }
        }
        item->setLook(look);
    }
}

void SplitGraphScene::applyEdgeLooks(const Marks &m)
{
    for (DataEdgeItem *item : m_edgeList) {
        DataEdgeItem::Look look;
        const quint64 key = edgeKey(item->source(), item->target());
        look.hazard = m.hazardEdges.count(key) != 0;
        look.hazardFocus = key == m.focusEdge;
        look.cause = m.causeEdges.count(key) != 0;
        const UnitId s = item->source(), t = item->target();
        if (m.hazardFocus) {
            look.dimmed = key != m.focusEdge;
        } else if (m.lineage) {
            const bool upstream = m.up[s] && (m.up[t] || t == m.focus);
            const bool downstream = (m.down[s] || s == m.focus) && m.down[t];
            look.dimmed = !(upstream || downstream);
        }
        item->setLook(look);
    }
}

// The arcs that explain the current step (update chains and the safe rules).
void SplitGraphScene::updateCauseLinks(const TracePosition *step)
{
    const PipelineGraph &graph = m_document->graph();
    for (ChainLinkItem *link : m_causeLinks)
        delete link;
    m_causeLinks.clear();
    if (step) {
        for (const StepCause &c : step->causes) {
            if (c.kind != StepCause::Kind::Chain && c.kind != StepCause::Kind::Reader)
                continue;
            UnitNodeItem *from = nodeItem(c.from);
            UnitNodeItem *to = nodeItem(c.to);
            if (!from || !to)
                continue;
            // A safe rule's arc goes from the reader to the writer it pulls in: named by
            // its rule, so that it does not read as a data edge carrying the param.
            // R1 pulls in a later rewriter, R2 the earlier writer whose value the read must see.
            const QString param = nameText(graph.paramName(c.param));
            const QString label = c.kind != StepCause::Kind::Reader ? param
                : c.to > c.from                                  ? tr("R1: reads %1").arg(param)
                                                                 : tr("R2: reads %1").arg(param);
            auto *link = new ChainLinkItem(from->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)),
                to->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)), label, ChainLinkItem::Kind::Cause,
                GraphStyle::standard());
            link->setUnits(c.from, c.to);
            link->setVisible(from->isVisible() && to->isVisible());
            addItem(link);
            m_causeLinks.push_back(link);
        }
    }
    // An arc bows out to the right of its boxes: one from the rightmost box was cut
    // off by a fitted view, its label too.
    // With the stage filter, what it shows.
    QRectF framed = m_drawnRect;
    if (m_stageTwoFilter) {
        framed = QRectF();
        for (const UnitNodeItem *node : m_nodes) {
            if (node && node->isVisible())
                framed |= node->sceneBoundingRect();
        }
        for (const DataEdgeItem *edge : m_edgeList) {
            if (edge->isVisible())
                framed |= edge->sceneBoundingRect();
        }
        if (framed.isEmpty())
            framed = m_drawnRect;
    }
    for (const auto *links : {&m_causeLinks, &m_hazardLinks}) {
        for (const ChainLinkItem *link : *links) {
            if (link->isVisible())
                framed |= link->sceneBoundingRect();
        }
    }
    if (framed != m_graphRect) {
        m_graphRect = framed;
        Q_EMIT graphRectChanged();
    }
}

void SplitGraphScene::updateHazardLinks(const Marks &m)
{
    for (ChainLinkItem *link : m_hazardLinks)
        delete link;
    m_hazardLinks.clear();
    if (!m.shown || m.stepping)
        return;
    const PipelineGraph &graph = m_document->graph();
    // One arc per (producer, reader) and side, labelled with every param it concerns:
    // what the reader sees in one-stage training, and what it would see in two stages.
    std::map<std::tuple<UnitId, UnitId, bool>, QStringList> arcs;
    std::set<std::tuple<UnitId, UnitId, bool>> focused;
    const auto &hazards = m.shown->verification.hazards;
    for (std::size_t i = 0; i < hazards.size(); ++i) {
        const Hazard &h = hazards[i];
        for (const bool twoStage : {false, true}) {
            const UnitId producer = twoStage ? h.actual : h.expected;
            if (producer == kNoUnit || producer == h.reader)
                continue;
            const auto key = std::make_tuple(producer, h.reader, twoStage);
            arcs[key] << nameText(graph.paramName(h.param));
            if (static_cast<int>(i) == m_focusedHazard)
                focused.insert(key);
        }
    }
    for (auto &[key, params] : arcs) {
        const auto &[producer, reader, twoStage] = key;
        UnitNodeItem *from = nodeItem(producer);
        UnitNodeItem *to = nodeItem(reader);
        if (!from || !to)
            continue;
        params.removeDuplicates();
        const QString list = params.join(QStringLiteral(", "));
        const QString label = twoStage ? tr("two-stage: %1").arg(list) : tr("one-stage: %1").arg(list);
        auto *link = new ChainLinkItem(from->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)),
            to->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)), label, ChainLinkItem::Kind::Hazard,
            GraphStyle::standard());
        link->setUnits(producer, reader);
        link->setVisible(from->isVisible() && to->isVisible());
        if (m.hazardFocus && !focused.count(key))
            link->setOpacity(0.35);
        addItem(link);
        m_hazardLinks.push_back(link);
    }
}

std::vector<UnitId> SplitGraphScene::unitsInStage(UnitNodeItem::Stage stage) const
{
    std::vector<UnitId> out;
    for (const UnitNodeItem *item : m_nodes) {
        if (item && item->look().stage == stage)
            out.push_back(item->unit());
    }
    return out;
}

std::vector<UnitId> SplitGraphScene::addedUnits() const
{
    std::vector<UnitId> out;
    for (const UnitNodeItem *item : m_nodes) {
        if (item && item->look().added)
            out.push_back(item->unit());
    }
    return out;
}

std::vector<UnitId> SplitGraphScene::undimmedUnits() const
{
    std::vector<UnitId> out;
    for (const UnitNodeItem *item : m_nodes) {
        if (item && !item->look().dimmed)
            out.push_back(item->unit());
    }
    return out;
}

bool SplitGraphScene::isStepping() const
{
    return m_role == Role::Primary && m_cursor && !m_cursor->atSplit() && m_cursor->stepCount() > 0;
}

GraphLegend::Context SplitGraphScene::legendContext() const
{
    GraphLegend::Context c;
    const auto shown = m_role == Role::Primary ? m_document->analysis() : m_document->comparison();
    c.stepping = shown && isStepping();
    c.chains = m_showChains;
    c.comparison = m_document->diff() && m_document->comparison() && m_diffDisplay != DiffDisplay::Off;
    c.overlay = c.comparison && m_diffDisplay == DiffDisplay::Overlay && !c.stepping;
    c.hazards = shown && !shown->verification.hazardFree() && !c.stepping;
    return c;
}

void SplitGraphScene::selectionFromScene()
{
    if (m_syncingSelection)
        return;
    const QList<QGraphicsItem *> selected = selectedItems();
    UnitId unit = kNoUnit;
    for (QGraphicsItem *item : selected) {
        if (item->type() == UnitNodeItem::Type) {
            unit = static_cast<UnitNodeItem *>(item)->unit();
            break;
        }
    }
    m_focusedHazard = -1; // a click of the user's ends the verifier's "show"
    m_syncingSelection = true;
    m_document->setCurrentUnit(unit);
    m_syncingSelection = false;
    refresh();
}

void SplitGraphScene::selectionFromDocument(UnitId unit)
{
    if (m_syncingSelection)
        return;
    m_syncingSelection = true;
    clearSelection();
    if (UnitNodeItem *item = nodeItem(unit))
        item->setSelected(true);
    m_syncingSelection = false;
    refresh();
}

void SplitGraphScene::drawBackground(QPainter *painter, const QRectF &rect)
{
    QGraphicsScene::drawBackground(painter, rect);
    if (!hasGraph() || QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform())
            >= DataEdgeItem::kSketchZoom)
        return;
    QVector<QLineF> plain, dimmed;
    plain.reserve(static_cast<int>(m_edgeList.size()));
    for (const DataEdgeItem *edge : m_edgeList) {
        const DataEdgeItem::Look &look = edge->look();
        if (look.hazard || look.cause || !edge->isVisible())
            continue; // those paint themselves, highlighted (or not at all: the stage filter)
        const QLineF line = edge->sketch();
        if (!rect.intersects(QRectF(line.p1(), line.p2()).normalized().adjusted(-1, -1, 1, 1)))
            continue;
        (look.dimmed ? dimmed : plain).append(line);
    }
    const GraphStyle &style = GraphStyle::standard();
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    QColor faint = style.edge;
    faint.setAlphaF(0.18);
    painter->setPen(QPen(faint, 0));
    painter->drawLines(dimmed);
    QColor edge = style.edge;
    edge.setAlphaF(DataEdgeItem::fadeAt(QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform())));
    painter->setPen(QPen(edge, 0));
    painter->drawLines(plain);
    painter->restore();
}

void SplitGraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event)
{
    QGraphicsScene::mouseDoubleClickEvent(event);
    for (QGraphicsItem *item : items(event->scenePos())) {
        if (item->type() == UnitNodeItem::Type) {
            Q_EMIT unitActivated(static_cast<UnitNodeItem *>(item)->unit());
            return;
        }
    }
}

} // namespace splitscope

namespace splitscope {

void SplitGraphScene::helpEvent(QGraphicsSceneHelpEvent *event)
{
    const auto shown = m_role == Role::Primary ? m_document->analysis() : m_document->comparison();
    QString text;
    for (QGraphicsItem *item : items(event->scenePos())) {
        if (item->type() == UnitNodeItem::Type && m_document->hasPipeline()) {
            const UnitId unit = static_cast<UnitNodeItem *>(item)->unit();
            const PipelineGraph &graph = m_document->graph();
            text = QStringLiteral("<b>%1</b>").arg(nameText(graph.unitName(unit)).toHtmlEscaped());
            if (shown && unit < graph.unitCount())
                text += QStringLiteral("<br>%1").arg(
                    QString::fromStdString(describeReason(graph, shown->split, unit)).toHtmlEscaped());
            break;
        }
        if (item->type() == DataEdgeItem::Type && m_document->hasPipeline()) {
            const auto *edge = static_cast<DataEdgeItem *>(item);
            const PipelineGraph &graph = m_document->graph();
            QStringList params;
            for (const ParamId p : edge->params())
                params << nameText(graph.paramName(p)).toHtmlEscaped();
            text = tr("<b>%1</b> → <b>%2</b><br>%3")
                       .arg(nameText(graph.unitName(edge->source())).toHtmlEscaped(),
                           nameText(graph.unitName(edge->target())).toHtmlEscaped(),
                           params.join(QStringLiteral(", ")));
            break;
        }
    }
    if (text.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
        return;
    }
    QToolTip::showText(event->screenPos(), text);
    event->accept();
}

} // namespace splitscope
