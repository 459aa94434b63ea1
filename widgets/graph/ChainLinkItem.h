// SPDX-License-Identifier: MIT
#pragma once

#include "GraphStyle.h"
#include "core/PipelineGraph.h"

#include <QGraphicsItem>

namespace splitscope {

// A dashed arc beside the boxes from one unit to another: a link of an update
// chain (the next rewriter of a param), the cause of a step that is not a data
// edge (the update rule U, the safe rules R1/R2), or a hazard: from a producer to the
// reader that sees its value in one-stage or in two-stage training. Drawn on demand over the
// Graphviz layout without moving it: arcs bow out to the right of both boxes, or
// arch over them when the boxes share a rank.
class ChainLinkItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    enum class Kind { Chain, Cause, Hazard };

    ChainLinkItem(const QRectF &from, const QRectF &to, const QString &label, Kind kind, const GraphStyle &style);

    Kind kind() const { return m_kind; }
    // The units it joins (for the stage filter, which hides arcs of hidden units).
    void setUnits(UnitId from, UnitId to) { m_from = from; m_to = to; }
    UnitId from() const { return m_from; }
    UnitId to() const { return m_to; }
    const QString &label() const { return m_label; }
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QPainterPath m_path;
    QPolygonF m_arrow;
    QString m_label;
    QPointF m_labelAt;
    Kind m_kind;
    UnitId m_from = kNoUnit;
    UnitId m_to = kNoUnit;
    const GraphStyle &m_style;
    QRectF m_bounds;
};

} // namespace splitscope
