// SPDX-License-Identifier: MIT
#include "GraphView.h"

#include "GraphLegend.h"
#include "GraphOverview.h"
#include "SplitGraphScene.h"
#include "UnitNodeItem.h"

#include "widgets/document/SplitDocument.h"

#include <QFontInfo>
#include <QKeyEvent>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 6.0;
constexpr double kMaxFitZoom = 1.6;     // a 3-unit graph should not fill a 4K screen
constexpr double kZoomStep = 1.25;      // per key press or wheel notch
constexpr double kReadableZoom = 0.8;   // centerOnUnit zooms in to at least this
constexpr int kLegendMargin = 10;       // pixels from the view's corner
constexpr double kMinFitArea = 40;      // pixels: a strip narrower than this beside the legend is no place for the graph
constexpr double kMinLegendFitShare = 0.5; // the legend is left out where it would shrink the fitted graph below this share

} // namespace

GraphView::GraphView(SplitGraphScene *scene, QWidget *parent)
    : QGraphicsView(scene, parent), m_scene(scene), m_overview(new GraphOverview(this))
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlag(QGraphicsView::DontSavePainterState);
    setFrameShape(QFrame::NoFrame);
    // Panning is by dragging, the arrow keys and the overview; scroll bars would only
    // take room (the scene keeps a margin for arcs, so they would show at fit zoom).
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFocusPolicy(Qt::StrongFocus);
    connect(scene, &SplitGraphScene::layoutApplied, this, &GraphView::layoutApplied);
    connect(this, &GraphView::viewportMoved, m_overview, qOverload<>(&QWidget::update));
    connect(this, &GraphView::viewportMoved, this, &GraphView::updateOverviewVisibility);
    placeOverview();
}

double GraphView::zoom() const
{
    return transform().m11();
}

void GraphView::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    const double factor = zoom / this->zoom();
    if (std::abs(factor - 1.0) < 1e-9)
        return;
    scale(factor, factor);
    Q_EMIT zoomChanged(zoom);
    Q_EMIT viewportMoved();
}

void GraphView::zoomIn()
{
    m_fitted = false;
    setZoom(zoom() * kZoomStep);
}

void GraphView::zoomOut()
{
    m_fitted = false;
    setZoom(zoom() / kZoomStep);
}

void GraphView::resetZoom()
{
    m_fitted = false;
    setZoom(1.0);
}

void GraphView::zoomToFit()
{
    m_fitted = true;
    if (m_leader) {
        followView(m_leader);
        return;
    }
    if (!scene())
        return;
    const QRectF target = m_scene->graphRect().adjusted(-12, -12, 12, 12);
    const QRectF viewRect = viewport()->rect();
    if (target.isEmpty() || viewRect.width() < 10 || viewRect.height() < 10)
        return;
    // The graph goes where the legend is not: the strip above it or the one beside
    // it, whichever leaves the larger picture (beside it only where there is room).
    QRectF area = viewRect;
    const QRectF legend = legendRect();
    m_fitLegend = legend;
    if (!legend.isEmpty()) {
        const QRectF above = viewRect.adjusted(0, 0, 0, -(legend.height() + kLegendMargin));
        const QRectF beside = viewRect.adjusted(legend.right(), 0, 0, 0);
        auto fit = [&](const QRectF &r) { return std::min(r.width() / target.width(), r.height() / target.height()); };
        const bool aboveFits = above.height() >= kMinFitArea;
        const bool besideFits = beside.width() >= kMinFitArea;
        if (aboveFits && besideFits)
            area = fit(above) >= fit(beside) ? above : beside;
        else if (aboveFits)
            area = above;
        else if (besideFits)
            area = beside;
    }
    const double fit = std::min({area.width() / target.width(), area.height() / target.height(), kMaxFitZoom});
    const double zoom = std::max(fit, std::min(m_minimumFitZoom, kMaxFitZoom));
    setZoom(zoom);
    // Put the graph's centre at the area's centre, not the viewport's; a graph larger
    // than the area at the minimum zoom is centred on what the current step added and
    // the unit whose edge or chain caused it (or on its start, before the first step).
    QRectF focus = target;
    if (zoom > fit + 1e-9) {
        QRectF added;
        const SplitDocument *document = m_scene->document();
        const int units = document->hasPipeline() ? document->graph().unitCount() : 0;
        for (UnitId unit = 0; unit < units; ++unit) {
            const UnitNodeItem *item = m_scene->nodeItem(unit);
            if (item && (item->look().added || item->look().cause))
                added |= item->sceneBoundingRect();
        }
        focus = added.isEmpty() ? QRectF(target.topLeft(), area.size() / zoom) : added;
    }
    const QPointF shift = (area.center() - viewRect.center()) / zoom;
    centerOn(focus.center() - shift);
    Q_EMIT viewportMoved();
}

double GraphView::zoomForNamePixels(double pixels)
{
    // The names' font in pixels on this screen (at zoom 1).
    return pixels / std::max(1, QFontInfo(GraphStyle::standard().nameFont).pixelSize());
}

void GraphView::centerOnUnit(UnitId unit)
{
    QGraphicsItem *item = scene() ? m_scene->nodeItem(unit) : nullptr;
    if (!item)
        return;
    if (zoom() < kReadableZoom) {
        m_fitted = false;
        setZoom(kReadableZoom);
    }
    centerOn(item);
    Q_EMIT viewportMoved();
}

void GraphView::setLegendVisible(bool visible)
{
    m_legend = visible;
    viewport()->update();
}

void GraphView::setOverviewEnabled(bool enabled)
{
    m_overviewEnabled = enabled;
    updateOverviewVisibility();
}

void GraphView::followView(const GraphView *other)
{
    if (m_following || !other)
        return;
    m_following = true;
    // Same zoom, same scene point in the middle (the two viewports may differ in size).
    setTransform(other->transform());
    centerOn(other->mapToScene(other->viewport()->rect().center()));
    m_following = false;
}

void GraphView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ShiftModifier) {
        QGraphicsView::wheelEvent(event); // shift+wheel scrolls sideways, as everywhere
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    m_fitted = false;
    setZoom(zoom() * std::pow(kZoomStep, notches));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        resetZoom();
        return;
    case Qt::Key_F:
        if (event->modifiers() == Qt::NoModifier) {
            zoomToFit();
            return;
        }
        break;
    case Qt::Key_Escape:
        // Escape clears the selection (and with it the highlighted lineage), also one
        // made elsewhere (Find, the Inspector) before the boxes were laid out.
        if (SplitGraphScene *shown = graphScene(); shown && shown->document()->currentUnit() != kNoUnit) {
            shown->clearSelection();
            shown->document()->setCurrentUnit(kNoUnit);
            return;
        }
        break;
    default: break;
    }
    QGraphicsView::keyPressEvent(event);
}

void GraphView::drawForeground(QPainter *painter, const QRectF &rect)
{
    QGraphicsView::drawForeground(painter, rect);
    if (!m_legend || !scene() || !m_scene->hasGraph())
        return;
    const QRectF legendArea = legendRect();
    // The legend shown is not the one the fit made room for (its entries or the pane's
    // size changed since, or the legend came or went): fit again, once painting is done.
    if (m_fitted && !m_leader && legendArea != m_fitLegend) {
        m_fitLegend = legendArea;
        QTimer::singleShot(0, this, [this]() {
            if (m_fitted)
                zoomToFit();
        });
    }
    if (legendArea.isEmpty())
        return;
    // The legend stays put on screen: paint it in viewport pixels.
    painter->save();
    painter->resetTransform();
    legend().paint(painter, legendArea.topLeft());
    painter->restore();
}

GraphLegend GraphView::legend() const
{
    // As wide as the view allows (a narrow pane gets one column, shortened texts).
    return GraphLegend(m_scene->legendContext(), viewport()->width() - 2 * kLegendMargin);
}

QRectF GraphView::legendRect() const
{
    if (!m_legend || !scene() || !m_scene->hasGraph())
        return {};
    const QSizeF size = legend().size();
    const QRectF rect(QPointF(kLegendMargin, viewport()->height() - size.height() - kLegendMargin), size);
    // A pane too small for the graph and the legend shows the graph: the legend is left
    // out where the strip above it and the one beside it would leave the graph at less
    // than half the size it has in the whole pane (or no room at all), and where it would
    // not fit the pane itself.
    const QRectF target = m_scene->graphRect().adjusted(-12, -12, 12, 12);
    const QRectF viewRect = viewport()->rect();
    if (rect.top() < kLegendMargin || rect.right() > viewRect.right() - kLegendMargin)
        return {}; // it would be cut, and cover the whole pane
    if (target.isEmpty())
        return rect;
    auto fit = [&](const QRectF &r) {
        return std::min({r.width() / target.width(), r.height() / target.height(), kMaxFitZoom});
    };
    const QRectF above = viewRect.adjusted(0, 0, 0, -(rect.height() + kLegendMargin));
    const QRectF beside = viewRect.adjusted(rect.right(), 0, 0, 0);
    double withLegend = 0;
    if (above.height() >= kMinFitArea)
        withLegend = std::max(withLegend, fit(above));
    if (beside.width() >= kMinFitArea)
        withLegend = std::max(withLegend, fit(beside));
    if (withLegend < kMinLegendFitShare * fit(viewRect))
        return {};
    return rect;
}

void GraphView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    if (m_fitted)
        zoomToFit();
    placeOverview();
    Q_EMIT viewportMoved();
}

void GraphView::showEvent(QShowEvent *event)
{
    QGraphicsView::showEvent(event);
    if (m_fitted)
        zoomToFit();
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    // The legend is drawn in viewport coordinates; scrolling would smear it.
    if (m_legend)
        viewport()->update();
    Q_EMIT viewportMoved();
}

void GraphView::layoutApplied()
{
    if (!scene())
        return;
    // A different pipeline is always fitted; a reload of the same one keeps the user's zoom.
    const SplitDocument *document = m_scene->document();
    const QString source = document->hasPipeline() ? document->source().path + QLatin1Char('|')
            + document->source().exampleName
                                                   : QString();
    if (source != m_shownSource) {
        m_shownSource = source;
        m_fitted = true;
    }
    if (m_fitted) {
        zoomToFit();
    } else if (QGraphicsItem *item = m_scene->nodeItem(document->currentUnit())) {
        centerOn(item);
    }
    m_overview->sceneChanged();
    updateOverviewVisibility();
    viewport()->update();
}

void GraphView::placeOverview()
{
    const QSize size = m_overview->preferredSize(viewport()->size());
    m_overview->setGeometry(viewport()->width() - size.width() - kLegendMargin, kLegendMargin, size.width(),
        size.height());
}

void GraphView::updateOverviewVisibility()
{
    // Only useful when part of the graph is off screen.
    if (!scene()) {
        m_overview->hide();
        return;
    }
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const bool needed = m_scene->hasGraph() && !visible.contains(m_scene->graphRect().adjusted(4, 4, -4, -4));
    const bool show = m_overviewEnabled && needed;
    if (show != m_overview->isVisible()) {
        if (show)
            placeOverview();
        m_overview->setVisible(show);
    }
}

} // namespace splitscope
