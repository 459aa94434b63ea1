// SPDX-License-Identifier: MIT
#include "ChainLinkItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kMinBow = 28.0;     // how far an arc leaves the boxes, at least
constexpr double kBowPerSpan = 0.18; // and more for links that span more height
constexpr double kLabelZoom = 0.6;
constexpr double kCauseLabelZoom = 0.25;

} // namespace

ChainLinkItem::ChainLinkItem(const QRectF &from, const QRectF &to, const QString &label, Kind kind,
    const GraphStyle &style)
    : m_label(label), m_kind(kind), m_style(style)
{
    setZValue(kind == Kind::Chain ? 0.5 : 3);
    const double dx = to.center().x() - from.center().x();
    const double dy = to.center().y() - from.center().y();
    if (std::abs(dy) > std::max(from.height(), to.height())) {
        // Boxes on different ranks: bow out to the right of both.
        const QPointF start(from.right(), from.center().y());
        const QPointF end(to.right(), to.center().y());
        const double bow = kMinBow + kBowPerSpan * std::abs(end.y() - start.y());
        const double x = std::max(start.x(), end.x()) + bow;
        m_path.moveTo(start);
        m_path.cubicTo(QPointF(x, start.y()), QPointF(x, end.y()), end);
        // Arrowhead at `end`, pointing left into the target box.
        m_arrow << end << end + QPointF(8, -3.5) << end + QPointF(8, 3.5);
    } else {
        // Boxes side by side on one rank: an arch over both tops.
        const QPointF start(from.center().x(), from.top());
        const QPointF end(to.center().x(), to.top());
        const double lift = kMinBow + kBowPerSpan * std::abs(dx);
        const double y = std::min(start.y(), end.y()) - lift;
        m_path.moveTo(start);
        m_path.cubicTo(QPointF(start.x(), y), QPointF(end.x(), y), end);
        // Arrowhead at `end`, pointing down into the target box.
        m_arrow << end << end + QPointF(-3.5, -8) << end + QPointF(3.5, -8);
    }
    m_labelAt = m_path.pointAtPercent(0.5) + QPointF(4, dy == 0.0 ? -8 : 0);
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect());
    if (!m_label.isEmpty()) {
        const QFontMetricsF metrics(m_style.labelFont);
        m_bounds = m_bounds.united(QRectF(m_labelAt.x(), m_labelAt.y() - metrics.height() / 2,
            metrics.horizontalAdvance(m_label) + 4, metrics.height()));
    }
    m_bounds.adjust(-4, -4, 4, 4);
}

QRectF ChainLinkItem::boundingRect() const
{
    return m_bounds;
}

void ChainLinkItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QColor color = m_kind == Kind::Cause ? m_style.cause : m_kind == Kind::Hazard ? m_style.hazard : m_style.chain;
    painter->setPen(QPen(color, m_kind == Kind::Chain ? 1.4 : 2.6, Qt::DashLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(m_arrow);
    // A cause is what the stepper explains, a hazard what the verifier found: their
    // labels show from further out.
    const double labelZoom = m_kind == Kind::Chain ? kLabelZoom : kCauseLabelZoom;
    if (m_label.isEmpty() || option->levelOfDetailFromTransform(painter->worldTransform()) < labelZoom)
        return;
    const QFontMetricsF metrics(m_style.labelFont);
    const QRectF box(m_labelAt.x(), m_labelAt.y() - metrics.height() / 2, metrics.horizontalAdvance(m_label) + 4,
        metrics.height());
    QColor back = m_style.background;
    back.setAlphaF(0.85);
    painter->setBrush(back);
    painter->drawRoundedRect(box, 2, 2);
    painter->setPen(color);
    painter->setFont(m_style.labelFont);
    painter->drawText(box, Qt::AlignCenter, m_label);
}

} // namespace splitscope
