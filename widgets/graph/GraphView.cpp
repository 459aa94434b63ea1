// SPDX-License-Identifier: MIT
#include "GraphView.h"

#include "GraphLegend.h"
#include "GraphOverview.h"
#include "SplitGraphScene.h"
#include "UnitNodeItem.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/document/SplitDocument.h"

#include <QFocusEvent>
#include <QFontInfo>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <tuple>

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
constexpr int kFocusFrameWidth = 2;     // pixels, inside the viewport's edge
constexpr int kWalkMargin = 40;         // pixels kept around a unit the keyboard selects
constexpr std::size_t kMaxWalkBack = 10000; // steps of the keyboard walk remembered

// The focus frame's color: the palette's highlight, as focus shows elsewhere in the
// window, darkened where it would not stand out from the graph's light paper (3:1,
// the contrast WCAG asks of a focus indicator).
QColor focusFrameColor(const QPalette &palette)
{
    QColor color = palette.color(QPalette::Highlight);
    const QColor paper = GraphStyle::standard().background;
    for (int i = 0; i < 16 && theme::contrastRatio(color, paper) < 3.0; ++i)
        color = color.darker(120);
    return color;
}

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
    // The graph is drawn on light paper in every theme (GraphStyle); in a dark window a
    // frame sets the paper off from the docks around it.
    setFrameShape(theme::isDark(palette()) ? QFrame::StyledPanel : QFrame::NoFrame);
    // Panning is by dragging, Shift and the arrow keys and the overview; scroll bars would only
    // take room (the scene keeps a margin for arcs, so they would show at fit zoom).
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(tr("Unit graph"));
    setAccessibleDescription(tr("Arrow keys: to a producer or a consumer along the data edges, or to the next "
                                "unit of the same rank; Home, End: the first, the last unit; Escape: no unit; "
                                "Shift+arrow keys: pan"));
    connect(scene, &SplitGraphScene::layoutApplied, this, &GraphView::layoutApplied);
    connect(scene, &SplitGraphScene::graphRectChanged, this, [this]() {
        if (m_fitted && !m_leader)
            zoomToFit(); // a fitted view keeps the step's arcs in view
        m_overview->sceneChanged();
        updateOverviewVisibility();
    });
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
    zoomByStep(kZoomStep);
}

void GraphView::zoomOut()
{
    zoomByStep(1 / kZoomStep);
}

void GraphView::zoomByStep(double factor)
{
    m_fitted = false;
    // With the pointer resting on the graph, + zoomed around it and the unit selected
    // with the arrow keys went out of view.
    const QGraphicsItem *item = m_scene ? m_scene->nodeItem(m_scene->document()->currentUnit()) : nullptr;
    const QPointF center = item ? item->sceneBoundingRect().center() : QPointF();
    const bool keep = item && viewport()->rect().contains(mapFromScene(center));
    const QPoint before = keep ? mapFromScene(center) : QPoint();
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    setZoom(zoom() * factor);
    setTransformationAnchor(anchor);
    if (keep) { // the unit stays where it was on screen
        const QPoint moved = mapFromScene(center) - before;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + moved.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() + moved.y());
        Q_EMIT viewportMoved();
    }
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
    // The graph fills the pane where the legend, in a bottom corner, covers no unit of
    // it; else it goes where the legend is not: the strip above it or the one beside it,
    // whichever leaves the larger picture (beside it only where there is room).
    QRectF area = viewRect;
    // Tried in this order: bottom left, bottom right, then each as one column.
    bool free = false;
    for (const int corner : {0, 1, 2, 3}) {
        m_legendRight = corner % 2 == 1;
        m_legendNarrow = corner >= 2;
        free = legendCornerIsFree(target);
        if (free)
            break;
    }
    if (!free)
        m_legendRight = m_legendNarrow = false;
    const QRectF legend = legendRect();
    m_fitLegend = legend;
    if (!legend.isEmpty() && !free) {
        const QRectF above = viewRect.adjusted(0, 0, 0, -(legend.height() + kLegendMargin));
        const QRectF beside = besideLegend(legend);
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

bool GraphView::legendCornerIsFree(const QRectF &target) const
{
    const QRectF legend = legendRect();
    const QRectF viewRect = viewport()->rect();
    if (legend.isEmpty())
        return false;
    // The whole pane's fit, the graph in its middle: where the legend's pixels fall in
    // the scene.
    const double zoom = std::min({viewRect.width() / target.width(), viewRect.height() / target.height(), kMaxFitZoom});
    const QPointF topLeft = target.center() + (legend.topLeft() - viewRect.center()) / zoom;
    const QRectF covered(topLeft, legend.size() / zoom);
    const SplitDocument *document = m_scene->document();
    const UnitId last = document->hasPipeline() ? document->graph().lossId() : -1;
    for (UnitId unit = 0; unit <= last; ++unit) {
        const UnitNodeItem *item = m_scene->nodeItem(unit);
        if (item && item->isVisible() && covered.intersects(item->mapRectToScene(item->boxRect())))
            return false;
    }
    return true;
}

QRectF GraphView::besideLegend(const QRectF &legend) const
{
    const QRectF viewRect = viewport()->rect();
    return m_legendRight ? viewRect.adjusted(0, 0, -(viewRect.right() - legend.left()), 0)
                         : viewRect.adjusted(legend.right(), 0, 0, 0);
}

bool GraphView::namesReadable() const
{
    return zoom() >= zoomForNamePixels(kReadableNamePixels) - 1e-9;
}

void GraphView::zoomToReadableNames()
{
    m_fitted = false;
    QRectF trained;
    if (m_scene) {
        for (const UnitId unit : m_scene->unitsInStage(UnitNodeItem::Stage::Two))
            trained |= m_scene->nodeItem(unit)->sceneBoundingRect();
    }
    const QPointF center = trained.isEmpty() ? mapToScene(viewport()->rect().center()) : trained.center();
    setZoom(zoomForNamePixels(kReadableNamePixels));
    centerOn(center);
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

void GraphView::centerOnUnitWhenDrawn(UnitId unit)
{
    m_centerWhenDrawn = kNoUnit;
    if (scene() && m_scene->nodeItem(unit))
        centerOnUnit(unit);
    else
        m_centerWhenDrawn = unit;
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
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Home:
    case Qt::Key_End:
        // Plain, they walk the graph; with Shift (or with no graph drawn) the arrows pan.
        // Ctrl+arrows, Ctrl+Home/End and, in presentation mode, Left and Right are the
        // stepper's window shortcuts: those never get here.
        if ((event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier && walkKey(event->key())) {
            event->accept();
            return;
        }
        break;
    default: break;
    }
    QGraphicsView::keyPressEvent(event);
}

// The keyboard walk. Nothing selected (or the selection not drawn): an arrow key selects
// the first unit in pipeline order that is on screen, so the walk starts where the user
// looks and, with the whole graph in view, at the start of the pipeline (the unit
// nearest the middle of the view when none is on screen). From a unit: the arrow the
// edges point along (Down, or Right in a left-to-right layout) goes to a consumer, the
// opposite one to a producer, the two others to the next unit of the same rank. Of
// several, the nearest in the drawing. A key that retraces the last step goes back to
// where it came from, so a walk can always be undone key by key. Home and End: the
// first and last unit in pipeline order.
bool GraphView::walkKey(int key)
{
    SplitGraphScene *shown = graphScene();
    if (!shown || !shown->hasGraph())
        return false;
    const UnitId current = shown->document()->currentUnit();
    const bool placed = shown->nodeItem(current) != nullptr;
    if (!placed || current != m_walkAt)
        m_walkBack.clear(); // selected another way: a new walk
    UnitId target = kNoUnit;
    if (key == Qt::Key_Home || key == Qt::Key_End) {
        target = endUnit(key == Qt::Key_End);
        m_walkBack.clear();
    } else if (!placed) {
        target = startUnit();
    } else {
        // The keys follow the drawing: ranks are rows (top to bottom) or columns.
        const bool leftToRight = shown->leftToRight();
        Step step = Step::After;
        switch (key) {
        case Qt::Key_Up: step = leftToRight ? Step::Before : Step::Upstream; break;
        case Qt::Key_Down: step = leftToRight ? Step::After : Step::Downstream; break;
        case Qt::Key_Left: step = leftToRight ? Step::Upstream : Step::Before; break;
        default: step = leftToRight ? Step::Downstream : Step::After; break;
        }
        const Step back = step == Step::Upstream ? Step::Downstream
            : step == Step::Downstream           ? Step::Upstream
            : step == Step::Before               ? Step::After
                                                 : Step::Before;
        if (!m_walkBack.empty() && m_walkBack.back().second == back && shown->nodeItem(m_walkBack.back().first)) {
            target = m_walkBack.back().first;
            m_walkBack.pop_back();
        } else if ((target = walkTarget(current, step)) != kNoUnit) {
            if (m_walkBack.size() >= kMaxWalkBack)
                m_walkBack.erase(m_walkBack.begin());
            m_walkBack.emplace_back(current, step);
        }
    }
    if (target == kNoUnit)
        return true; // no unit that way: the selection stays (and the view does not pan)
    selectUnit(target);
    m_walkAt = target;
    return true;
}

UnitId GraphView::walkTarget(UnitId from, Step step) const
{
    const PipelineGraph &graph = m_scene->document()->graph();
    const bool leftToRight = m_scene->leftToRight();
    // The coordinate along a rank (x when the ranks are rows).
    const auto along = [leftToRight](const QPointF &p) { return leftToRight ? p.y() : p.x(); };
    const QPointF origin = unitCenter(from);
    std::vector<UnitId> candidates;
    switch (step) {
    case Step::Upstream:
        for (const PipelineGraph::Edge &e : graph.inEdges(from))
            candidates.push_back(e.source);
        break;
    case Step::Downstream:
        if (from == graph.lossId())
            break; // the loss reads, nothing reads it
        for (const PipelineGraph::Edge &e : graph.outEdges(from))
            candidates.push_back(e.target);
        for (const PipelineGraph::Edge &e : graph.inEdges(graph.lossId())) {
            if (e.source == from)
                candidates.push_back(graph.lossId()); // drawn or not: see below
        }
        break;
    case Step::Before:
    case Step::After: {
        const int rank = m_scene->rankOf(from);
        if (rank < 0)
            break;
        for (UnitId u = 0; u <= graph.lossId(); ++u) {
            if (u == from || m_scene->rankOf(u) != rank)
                continue;
            const double offset = along(unitCenter(u)) - along(origin);
            if (step == Step::After ? offset > 0 : offset < 0)
                candidates.push_back(u);
        }
        break;
    }
    }
    // The nearest in the drawing (centre to centre); a tie goes to the one first along
    // the rank, then first in pipeline order: a key from a unit always leads to the same one.
    UnitId best = kNoUnit;
    std::tuple<double, double, UnitId> bestKey;
    for (const UnitId u : candidates) {
        if (!m_scene->nodeItem(u))
            continue; // not drawn (the loss, when it is hidden)
        const QPointF center = unitCenter(u);
        const std::tuple<double, double, UnitId> key(QLineF(origin, center).length(), along(center), u);
        if (best == kNoUnit || key < bestKey) {
            best = u;
            bestKey = key;
        }
    }
    return best;
}

UnitId GraphView::startUnit() const
{
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const UnitId loss = m_scene->document()->graph().lossId();
    UnitId nearest = kNoUnit;
    double nearestDistance = 0;
    for (UnitId u = 0; u <= loss; ++u) {
        if (!m_scene->nodeItem(u))
            continue;
        const QPointF center = unitCenter(u);
        if (visible.contains(center))
            return u;
        const double distance = QLineF(visible.center(), center).length();
        if (nearest == kNoUnit || distance < nearestDistance) {
            nearest = u;
            nearestDistance = distance;
        }
    }
    return nearest;
}

UnitId GraphView::endUnit(bool last) const
{
    // The loss is not a unit of the pipeline: End goes to the last unit (the loss only
    // when nothing else is drawn).
    const UnitId loss = m_scene->document()->graph().lossId();
    if (last) {
        for (UnitId u = loss - 1; u >= 0; --u) {
            if (m_scene->nodeItem(u))
                return u;
        }
    } else {
        for (UnitId u = 0; u < loss; ++u) {
            if (m_scene->nodeItem(u))
                return u;
        }
    }
    return m_scene->nodeItem(loss) ? loss : kNoUnit;
}

QPointF GraphView::unitCenter(UnitId unit) const
{
    const UnitNodeItem *item = m_scene->nodeItem(unit);
    return item ? item->mapRectToScene(item->boxRect()).center() : QPointF();
}

void GraphView::selectUnit(UnitId unit)
{
    UnitNodeItem *item = m_scene->nodeItem(unit);
    if (!item)
        return;
    // As a click selects: the scene's selection changes once (no empty selection in
    // between), and the scene makes the unit the document's current one; the Inspector,
    // the lineage highlight and the other panels follow from there.
    QPainterPath area;
    area.addRect(item->sceneBoundingRect().adjusted(-1, -1, 1, 1));
    m_scene->setSelectionArea(area, Qt::ReplaceSelection, Qt::ContainsItemBoundingRect, viewportTransform());
    // In view with a margin, and not under the legend or the overview in the corners.
    // A unit already whole in view is not scrolled to: at a fitted zoom the first key
    // moved the whole graph 25 px for a unit near the edge, and the overview appeared.
    const QRectF box = item->sceneBoundingRect();
    if (!viewport()->rect().contains(mapFromScene(box).boundingRect()))
        ensureVisible(box, kWalkMargin, kWalkMargin);
    const QRect shownAt = mapFromScene(box).boundingRect();
    const QRect overview = m_overview->isVisible()
        ? QRect(viewport()->mapFrom(this, m_overview->geometry().topLeft()), m_overview->size())
        : QRect();
    if (shownAt.intersects(legendRect().toAlignedRect()) || shownAt.intersects(overview))
        centerOn(item);
}

void GraphView::focusInEvent(QFocusEvent *event)
{
    QGraphicsView::focusInEvent(event);
    viewport()->update(); // the focus frame
}

void GraphView::focusOutEvent(QFocusEvent *event)
{
    QGraphicsView::focusOutEvent(event);
    viewport()->update();
}

QRect GraphView::focusFrameRect() const
{
    return hasFocus() ? viewport()->rect() : QRect();
}

void GraphView::drawForeground(QPainter *painter, const QRectF &rect)
{
    QGraphicsView::drawForeground(painter, rect);
    // The focus frame: a band of the highlight color along the viewport's edges.
    if (const QRect frame = focusFrameRect(); !frame.isEmpty()) {
        painter->save();
        painter->resetTransform();
        const QColor color = focusFrameColor(palette());
        const int w = kFocusFrameWidth;
        painter->fillRect(QRect(frame.left(), frame.top(), frame.width(), w), color);
        painter->fillRect(QRect(frame.left(), frame.bottom() - w + 1, frame.width(), w), color);
        painter->fillRect(QRect(frame.left(), frame.top(), w, frame.height()), color);
        painter->fillRect(QRect(frame.right() - w + 1, frame.top(), w, frame.height()), color);
        painter->restore();
    }
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
    return GraphLegend(m_scene->legendContext(), viewport()->width() - 2 * kLegendMargin, m_legendNarrow);
}

QRectF GraphView::legendRect() const
{
    if (!m_legend || !scene() || !m_scene->hasGraph())
        return {};
    const QSizeF size = legend().size();
    const double left = m_legendRight ? viewport()->width() - size.width() - kLegendMargin : kLegendMargin;
    const QRectF rect(QPointF(left, viewport()->height() - size.height() - kLegendMargin), size);
    // A pane too small for the graph and the legend shows the graph: the legend is left
    // out where the strip above it and the one beside it would leave the graph at less
    // than half the size it has in the whole pane (or no room at all), and where it would
    // not fit the pane itself.
    const QRectF target = m_scene->graphRect().adjusted(-12, -12, 12, 12);
    const QRectF viewRect = viewport()->rect();
    if (rect.top() < kLegendMargin || rect.left() < kLegendMargin || rect.right() > viewRect.right() - kLegendMargin)
        return {}; // it would be cut, and cover the whole pane
    if (target.isEmpty())
        return rect;
    auto fit = [&](const QRectF &r) {
        return std::min({r.width() / target.width(), r.height() / target.height(), kMaxFitZoom});
    };
    const QRectF above = viewRect.adjusted(0, 0, 0, -(rect.height() + kLegendMargin));
    const QRectF beside = besideLegend(rect);
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
    // The legend and the focus frame are drawn in viewport coordinates; scrolling would smear them.
    if (m_legend || hasFocus())
        viewport()->update();
    Q_EMIT viewportMoved();
}

void GraphView::layoutApplied()
{
    m_walkBack.clear(); // its steps belong to the previous drawing
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
    if (m_centerWhenDrawn != kNoUnit && m_scene->nodeItem(m_centerWhenDrawn)) {
        centerOnUnit(m_centerWhenDrawn);
        m_centerWhenDrawn = kNoUnit;
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
