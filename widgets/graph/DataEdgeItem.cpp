// SPDX-License-Identifier: MIT
#include "DataEdgeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStaticText>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kLabelZoom = 0.6;  // below this scale edge labels are not drawn

constexpr double kArrowLength = 8.0;
constexpr double kArrowHalfWidth = 3.6;

} // namespace

DataEdgeItem::DataEdgeItem(const GraphLayout::Edge &edge, const GraphStyle &style) : m_edge(edge), m_style(style)
{
    setZValue(1);
    computeGeometry();
}

void DataEdgeItem::setRoute(const GraphLayout::Edge &edge)
{
    prepareGeometryChange();
    m_edge = edge;
    computeGeometry();
}

void DataEdgeItem::computeGeometry()
{
    m_arrow.clear();
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
    // The layout's labels are short already (edgeLabelText); a line still wider than a
    // unit name may be is shortened, so that no label runs across the graph.
    m_lines = m_edge.hasLabel ? m_style.labelLines(m_edge.edge.label) : QStringList();
    m_staticLines.clear();
    m_bounds = m_edge.path.boundingRect().united(m_arrow.boundingRect());
    if (!m_lines.isEmpty())
        m_bounds = m_bounds.united(labelRect());
    m_bounds.adjust(-4, -4, 4, 4);
}

QLineF DataEdgeItem::sketch() const
{
    return QLineF(m_edge.path.elementAt(0), m_edge.arrowTip);
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
    const QSizeF size = m_style.labelBoxSize(m_lines);
    return QRectF(m_edge.labelCenter - QPointF(size.width() / 2, size.height() / 2), size);
}

QRectF DataEdgeItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath DataEdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    QPainterPath shape = stroker.createStroke(m_edge.path);
    if (!m_lines.isEmpty())
        shape.addRect(labelRect()); // the label's tooltip names the params in full
    return shape;
}

QStringList DataEdgeItem::labelLines() const
{
    return m_lines;
}

double DataEdgeItem::fadeAt(double zoom)
{
    return std::clamp(0.3 + 0.7 * (zoom - 0.2) / 0.4, 0.3, 1.0);
}

void DataEdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const double zoom = option->levelOfDetailFromTransform(painter->worldTransform());
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
    else if (!m_look.hazard && !m_look.cause)
        color.setAlphaF(fadeAt(zoom));
    if (zoom < kSketchZoom && !m_look.hazard && !m_look.cause)
        return; // far out the scene draws every plain edge at once (SplitGraphScene::drawBackground)
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_edge.path);
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(m_arrow);

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
    // Static texts are laid out once, then drawn as glyph runs: labels are most of
    // what a paint at 100 % costs otherwise.
    if (m_staticLines.empty()) {
        for (const QString &line : m_lines) {
            QStaticText text(line);
            text.setTextFormat(Qt::PlainText);
            text.prepare(QTransform(), m_style.labelFont);
            m_staticLines.push_back(text);
        }
    }
    const double lineHeight = QFontMetricsF(m_style.labelFont).height();
    for (std::size_t i = 0; i < m_staticLines.size(); ++i) {
        const double width = m_style.labelWidth(m_lines[static_cast<int>(i)]);
        painter->drawStaticText(QPointF(box.center().x() - width / 2, box.top() + 1 + i * lineHeight),
            m_staticLines[i]);
    }
}

} // namespace splitscope
