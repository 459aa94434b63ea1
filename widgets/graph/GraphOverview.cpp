// SPDX-License-Identifier: MIT
#include "GraphOverview.h"

#include "GraphStyle.h"
#include "GraphView.h"
#include "SplitGraphScene.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kMaxWidth = 220;  // pixels
constexpr int kMaxHeight = 170;
constexpr int kMinSide = 60;
constexpr double kInset = 6.0;

} // namespace

GraphOverview::GraphOverview(GraphView *view) : QWidget(view), m_view(view)
{
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    hide();
}

QSize GraphOverview::preferredSize(const QSize &viewport) const
{
    const QRectF graph = m_view->graphScene() ? m_view->graphScene()->graphRect() : QRectF();
    const int maxW = std::min(kMaxWidth, viewport.width() / 3);
    const int maxH = std::min(kMaxHeight, viewport.height() / 3);
    if (graph.isEmpty())
        return QSize(maxW, maxH);
    const double scale = std::min((maxW - 2 * kInset) / graph.width(), (maxH - 2 * kInset) / graph.height());
    return QSize(std::max(kMinSide, static_cast<int>(graph.width() * scale + 2 * kInset)),
        std::max(kMinSide, static_cast<int>(graph.height() * scale + 2 * kInset)));
}

QTransform GraphOverview::sceneToOverview() const
{
    const QRectF graph = m_view->graphScene() ? m_view->graphScene()->graphRect() : QRectF();
    if (graph.isEmpty())
        return QTransform();
    const double scale = std::min((width() - 2 * kInset) / graph.width(), (height() - 2 * kInset) / graph.height());
    const double dx = (width() - graph.width() * scale) / 2 - graph.left() * scale;
    const double dy = (height() - graph.height() * scale) / 2 - graph.top() * scale;
    return QTransform(scale, 0, 0, scale, dx, dy);
}

void GraphOverview::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(QColor(0xad, 0xb5, 0xbd), 1.0));
    painter.setBrush(QColor(255, 255, 255, 235));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
    const SplitGraphScene *scene = m_view->graphScene();
    if (!scene)
        return;
    const QTransform toOverview = sceneToOverview();
    const GraphStyle &style = GraphStyle::standard();
    painter.setPen(Qt::NoPen);
    for (UnitId u = 0;; ++u) {
        const UnitNodeItem *item = scene->nodeItem(u);
        if (!item)
            break;
        QColor fill = style.unsplit;
        switch (item->look().stage) {
        case UnitNodeItem::Stage::One: fill = style.stageOne.darker(115); break;
        case UnitNodeItem::Stage::Two: fill = style.stageTwo.darker(115); break;
        case UnitNodeItem::Stage::Loss: fill = style.loss.darker(130); break;
        case UnitNodeItem::Stage::Unknown: break;
        }
        if (item->look().hazard)
            fill = style.hazard;
        painter.setBrush(fill);
        const QRectF r = toOverview.mapRect(item->sceneBoundingRect().marginsRemoved(QMarginsF(8, 8, 8, 8)));
        painter.drawRect(r.adjusted(0, 0, std::max(0.0, 1.5 - r.width()), std::max(0.0, 1.5 - r.height())));
    }
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    painter.setPen(QPen(style.selection, 1.5));
    QColor wash = style.selection;
    wash.setAlphaF(0.10);
    painter.setBrush(wash);
    painter.drawRect(toOverview.mapRect(visible).intersected(QRectF(rect()).adjusted(1, 1, -1, -1)));
}

void GraphOverview::moveViewTo(const QPointF &overviewPoint)
{
    bool invertible = false;
    const QTransform toScene = sceneToOverview().inverted(&invertible);
    if (invertible)
        m_view->centerOn(toScene.map(overviewPoint));
}

void GraphOverview::mousePressEvent(QMouseEvent *event)
{
    moveViewTo(event->position());
    event->accept();
}

void GraphOverview::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        moveViewTo(event->position());
    event->accept();
}

} // namespace splitscope
