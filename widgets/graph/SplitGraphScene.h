// SPDX-License-Identifier: MIT
#pragma once

#include "GraphLegend.h"
#include "UnitNodeItem.h"

#include <QGraphicsScene>

#include <memory>
#include <unordered_map>
#include <vector>

class QGraphicsSimpleTextItem;

namespace splitscope {

class ChainLinkItem;
class DataEdgeItem;
class LayoutController;
class SplitDocument;
class TraceCursor;
struct TracePosition;
struct GraphLayout;

// The unit graph of a SplitDocument, drawn from the LayoutController's layout. The
// scene stores no pipeline state: it observes the document (split, comparison,
// current unit), the layout and the stepper, and recomputes each item's Look from
// them. Selecting a node sets the document's current unit and the other way round.
//
// Role::Primary colors by the document's split and follows the stepper; a scene
// with Role::Comparison colors by the comparison split (split B), for the side by
// side view.
class SplitGraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    enum class Role { Primary, Comparison };
    // How a comparison shows: not at all, moved units marked, or marked and the
    // other split's stage painted into each box.
    enum class DiffDisplay { Off, Marks, Overlay };

    SplitGraphScene(SplitDocument *document, LayoutController *layouts, TraceCursor *cursor, Role role,
        QObject *parent = nullptr);
    ~SplitGraphScene() override;

    Role role() const { return m_role; }
    SplitDocument *document() const { return m_document; }
    // Items are drawn, and for the document's current graph.
    bool hasGraph() const;
    // The drawing's extent in scene coordinates, which fitting frames: boxes, edges and
    // labels, and the arcs that explain the current step (they bow out beyond the boxes).
    QRectF graphRect() const { return m_graphRect; }

    // An inactive scene (the comparison's, while it is not shown) skips building
    // items for new layouts; activating it builds them from the newest layout.
    bool isActive() const { return m_active; }
    void setActive(bool active);

    // --- view options ---
    bool showChains() const { return m_showChains; }
    void setShowChains(bool show);
    bool highlightLineage() const { return m_lineage; }
    void setHighlightLineage(bool on);
    DiffDisplay diffDisplay() const { return m_diffDisplay; }
    void setDiffDisplay(DiffDisplay display);
    // Emphasises hazard `index` of the shown split (-1: none): reader, producers and
    // the edge stand out, the rest is dimmed.
    int focusedHazard() const { return m_focusedHazard; }
    void setFocusedHazard(int index);
    // Shows only the stage-two units (at the step, while stepping), the loss and their
    // producers and consumers, with the edges and arcs among them; graphRect() then
    // frames those. For large graphs, where the trained units are lost in the rest.
    bool stageTwoFilter() const { return m_stageTwoFilter; }
    void setStageTwoFilter(bool on);

    // --- what is drawn (for views, exports and tests) ---
    UnitNodeItem *nodeItem(UnitId unit) const;
    DataEdgeItem *edgeItem(UnitId source, UnitId target) const;
    // How the drawn layout runs: ranks left to right (edges point right) or top to bottom.
    bool leftToRight() const { return m_leftToRight; }
    // The rank of a drawn unit in the layout (0 first: the top, or the left), or -1.
    int rankOf(UnitId unit) const;
    std::vector<ChainLinkItem *> chainLinks() const { return m_chainLinks; }
    std::vector<ChainLinkItem *> causeLinks() const { return m_causeLinks; }
    // One arc per hazard and producer (expected and actual, where a unit produces it).
    std::vector<ChainLinkItem *> hazardLinks() const { return m_hazardLinks; }
    // Units whose box is filled with the stage-two color / marked as added by the step.
    std::vector<UnitId> unitsInStage(UnitNodeItem::Stage stage) const;
    std::vector<UnitId> addedUnits() const;
    std::vector<UnitId> undimmedUnits() const;
    // Which legend entries apply to what is drawn now.
    GraphLegend::Context legendContext() const;
    bool isStepping() const;

Q_SIGNALS:
    // Items were rebuilt from a new layout (or the layout failed: see placeholderText()).
    void layoutApplied();
    // graphRect() changed without a new layout (a step's arcs came or went).
    void graphRectChanged();
    void unitActivated(UnitId unit); // double click

public:
    QString placeholderText() const;

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event) override;
    // Far out, draws every plain edge as a hairline in one call (see DataEdgeItem).
    void drawBackground(QPainter *painter, const QRectF &rect) override;
    // Tooltips are made when asked for: the full name, the stage and why.
    void helpEvent(QGraphicsSceneHelpEvent *event) override;

private:
    void pipelineReset();
    void layoutReady();
    void rebuild(const GraphLayout &layout);
    bool moveItems(const GraphLayout &layout);
    void setGraphRect(const QRectF &bounds);
    struct Marks;
    void refresh();
    Marks currentMarks() const;
    void markLineage(Marks &marks) const;
    void applyNodeLooks(const Marks &marks);
    void applyEdgeLooks(const Marks &marks);
    void updateCauseLinks(const TracePosition *step);
    // The hazards of the split shown (not while stepping), as arcs; the graph's framed
    // rectangle then covers them and the cause arcs.
    void updateHazardLinks(const Marks &m);
    // The stage filter's visibility of every item (all visible with it off).
    void applyFilter(const Marks &m);
    void rebuildChainLinks();
    void selectionFromScene();
    void selectionFromDocument(UnitId unit);
    void showPlaceholder(const QString &text);

    SplitDocument *m_document;
    LayoutController *m_layouts;
    TraceCursor *m_cursor;
    Role m_role;
    std::shared_ptr<const PipelineGraph> m_itemsGraph; // the graph the items were made for
    std::vector<UnitNodeItem *> m_nodes; // by unit id, the loss last (when shown)
    std::vector<int> m_ranks;            // by unit id, as m_nodes (-1: not drawn)
    bool m_leftToRight = false;
    std::unordered_map<quint64, DataEdgeItem *> m_edges; // key: source << 32 | target
    std::vector<DataEdgeItem *> m_edgeList;
    std::vector<ChainLinkItem *> m_chainLinks;
    std::vector<ChainLinkItem *> m_causeLinks;
    std::vector<ChainLinkItem *> m_hazardLinks;
    QGraphicsSimpleTextItem *m_placeholder = nullptr;
    QRectF m_graphRect;
    QRectF m_drawnRect; // the boxes and edges alone
    bool m_showChains = false;
    bool m_stageTwoFilter = false;
    bool m_lineage = true;
    DiffDisplay m_diffDisplay = DiffDisplay::Overlay;
    int m_focusedHazard = -1;
    bool m_syncingSelection = false;
    bool m_active = true;
};

} // namespace splitscope
