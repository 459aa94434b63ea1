// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QGraphicsView>

#include <utility>
#include <vector>

namespace splitscope {

class GraphLegend;
class GraphOverview;
class SplitGraphScene;

// A view of a SplitGraphScene: zoom with the wheel (around the pointer) and the
// keys + - 0, pan by dragging the background or with Shift and the arrow keys, zoom
// to fit, center on a unit. Draws the legend in its bottom-left corner and carries an
// overview (minimap) in its top-right corner when the graph does not fit.
//
// The keyboard walks the graph as a click would select (see keyPressEvent): the arrow
// keys go along the data edges (upstream / downstream, as the edges are drawn) and
// across a rank, Home and End to the first and last unit. With the focus the view has
// a frame in the highlight color.
//
// After a new layout the view fits the graph, unless the user has zoomed since the
// last fit (then a reload keeps the zoom and the current unit in view).
class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(SplitGraphScene *scene, QWidget *parent = nullptr);

    // The scene shown, or null once it is gone.
    SplitGraphScene *graphScene() const { return scene() ? m_scene : nullptr; }
    double zoom() const;
    bool legendVisible() const { return m_legend; }
    // Where the legend is drawn, in viewport pixels (empty when it is not drawn: also
    // when the pane is too small for both, the graph and the legend).
    QRectF legendRect() const;
    bool overviewEnabled() const { return m_overviewEnabled; }
    // The zoom at which unit names are `pixels` tall on screen (their font's pixel size).
    static double zoomForNamePixels(double pixels);
    // A fit never zooms out below this (0: it may): in presentation mode the names must
    // stay readable, so a graph too big for the view at this zoom is not fitted whole but
    // shown around what the current step added (the overview shows where that is).
    void setMinimumFitZoom(double zoom) { m_minimumFitZoom = zoom; }
    double minimumFitZoom() const { return m_minimumFitZoom; }
    bool isFitted() const { return m_fitted; } // fitted since the user last zoomed
    GraphOverview *overview() const { return m_overview; }
    // Names are readable from this height on screen (pixels); namesReadable: at the
    // current zoom they are.
    static constexpr double kReadableNamePixels = 9.0;
    bool namesReadable() const;
    // Where the focus frame is drawn, in viewport pixels (empty without the focus).
    QRect focusFrameRect() const;

public Q_SLOTS:
    void setZoom(double zoom);
    void zoomIn();
    void zoomOut();
    void zoomToFit();
    // Zooms to where names are kReadableNamePixels tall, onto the stage-two units (the
    // trained ones) where there are any, else around the view's centre.
    void zoomToReadableNames();
    void resetZoom();
    // Scrolls so that the unit is in the middle, zooming in first if names would be unreadable.
    void centerOnUnit(UnitId unit);
    // centerOnUnit now, or once the graph is laid out when the unit is not drawn yet
    // (--select at start).
    void centerOnUnitWhenDrawn(UnitId unit);
    void setLegendVisible(bool visible);
    void setOverviewEnabled(bool enabled);
    // A follower (split B next to A) never fits itself: it shows what its leader
    // shows, also after it is resized. Null: leads itself.
    void setLeader(GraphView *leader) { m_leader = leader; }
    // Mirrors another view's zoom and scroll position (side by side comparison).
    void followView(const GraphView *other);

Q_SIGNALS:
    void zoomChanged(double zoom);
    // The visible part of the scene moved (scroll or zoom).
    void viewportMoved();

protected:
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void drawForeground(QPainter *painter, const QRectF &rect) override;
    void resizeEvent(QResizeEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void showEvent(QShowEvent *event) override;

private:
    // + and - (keys and buttons): around the selected unit when it is in view, else
    // the view's centre, not the mouse pointer (the wheel's anchor).
    void zoomByStep(double factor);
    // A step of the keyboard walk: along the data edges, or to the next unit of the
    // same rank before (left of, or above) or after it.
    enum class Step { Upstream, Downstream, Before, After };
    bool walkKey(int key);
    UnitId walkTarget(UnitId from, Step step) const;
    UnitId startUnit() const;
    UnitId endUnit(bool last) const;
    QPointF unitCenter(UnitId unit) const;
    void selectUnit(UnitId unit);
    GraphLegend legend() const;
    void layoutApplied();
    void placeOverview();
    void updateOverviewVisibility();
    // Whether the legend where it is now placed (m_legendRight, m_legendNarrow) covers
    // no unit when `target` fills the whole pane.
    bool legendCornerIsFree(const QRectF &target) const;
    // The strip of the pane beside `legend` (to its right, or left of it at the right).
    QRectF besideLegend(const QRectF &legend) const;

    SplitGraphScene *m_scene;
    GraphOverview *m_overview;
    bool m_legend = true;
    bool m_overviewEnabled = true;
    bool m_fitted = true; // true until the user zooms: new layouts are fitted
    bool m_following = false;
    GraphView *m_leader = nullptr;
    bool m_legendRight = false; // the legend in the bottom-right corner (where it covers no unit)
    bool m_legendNarrow = false; // ...in one column
    QRectF m_fitLegend;   // the legend rectangle the last fit made room for
    QString m_shownSource; // the pipeline last fitted, to tell a reload from a new file
    double m_minimumFitZoom = 0;
    UnitId m_centerWhenDrawn = kNoUnit;
    // The keyboard walk so far, to retrace it: each step taken from which unit. The
    // opposite key goes back the way it came (Down, Down, Up, Up ends where it began).
    std::vector<std::pair<UnitId, Step>> m_walkBack;
    UnitId m_walkAt = kNoUnit; // where the walk is (another selection starts a new one)
};

} // namespace splitscope
