// SPDX-License-Identifier: MIT
#include "DataEdgeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kLabelZoom = 0.6; // below this scale edge labels are not drawn
constexpr double kArrowLength = 8.0;
constexpr double kArrowHalfWidth = 3.6;

} // namespace

DataEdgeItem::DataEdgeItem(const GraphLayout::Edge &edge, const GraphStyle &style) : m_edge(edge), m_style(style)
{
    setZValue(1);
    QLineF axis(m_edge.arrowBase, m_edge.arrowTip);
    if (axis.length() < 0.5 && m_edge.path.elementCount() > 1) {
        // No arrowhead from Graphviz (it can happen with polyline routing): aim along the last segment.
        const QPainterPath::Element prev = m_edge.path.elementAt(m_edge.path.elementCount() - 2);
        axis = QLineF(QPointF(prev.x, prev.y), m_edge.arrowTip);
        axis.setLength(kArrowLength);
        axis.translate(m_edge.arrowTip - axis.p2());
    }
    if (axis.length() > 0.01) {
        const QLineF normal = axis.normalVector().unitVector();
        const QPointF side(normal.dx() * kArrowHalfWidth, normal.dy() * kArrowHalfWidth);
        m_arrow << axis.p2() << axis.p1() + side << axis.p1() - side;
    }
    if (m_edge.hasLabel)
        m_lines = m_edge.edge.label.split(QLatin1Char('\n'));
    m_bounds = m_edge.path.boundingRect().united(m_arrow.boundingRect());
    if (!m_lines.isEmpty())
        m_bounds = m_bounds.united(labelRect());
    m_bounds.adjust(-4, -4, 4, 4);
}

bool DataEdgeItem::carries(ParamId param) const
{
    const auto &p = m_edge.edge.params;
    return std::find(p.begin(), p.end(), param) != p.end();
}

void DataEdgeItem::setLook(const Look &look)
{
    if (look == m_look)
        return;
    m_look = look;
    update();
}

QRectF DataEdgeItem::labelRect() const
{
    const QFontMetricsF metrics(m_style.labelFont);
    double width = 0;
    for (const QString &line : m_lines)
        width = std::max(width, metrics.horizontalAdvance(line));
    const double height = metrics.height() * m_lines.size();
    return QRectF(m_edge.labelCenter.x() - width / 2 - 2, m_edge.labelCenter.y() - height / 2 - 1, width + 4,
        height + 2);
}

QRectF DataEdgeItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath DataEdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    return stroker.createStroke(m_edge.path);
}

void DataEdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    QColor color = m_style.edge;
    double width = 1.2;
    if (m_look.hazard) {
        color = m_style.hazard;
        width = m_look.hazardFocus ? 3.0 : 2.0;
    } else if (m_look.cause) {
        color = m_style.cause;
        width = 2.8;
    }
    if (m_look.dimmed)
        color.setAlphaF(0.18);
    painter->setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_edge.path);
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(m_arrow);

    const double zoom = option->levelOfDetailFromTransform(painter->worldTransform());
    if (m_lines.isEmpty() || zoom < kLabelZoom)
        return;
    const QRectF box = labelRect();
    QColor back = m_style.background;
    back.setAlphaF(m_look.dimmed ? 0.4 : 0.85);
    painter->setBrush(back);
    painter->drawRoundedRect(box, 2, 2);
    QColor ink = (m_look.hazard || m_look.cause) ? color : m_style.mutedText;
    if (m_look.dimmed)
        ink.setAlphaF(0.3);
    painter->setPen(ink);
    painter->setFont(m_style.labelFont);
    const double lineHeight = QFontMetricsF(m_style.labelFont).height();
    for (int i = 0; i < m_lines.size(); ++i)
        painter->drawText(QRectF(box.left(), box.top() + 1 + i * lineHeight, box.width(), lineHeight),
            Qt::AlignCenter, m_lines[i]);
}

} // namespace splitscope
