// SPDX-License-Identifier: MIT
#pragma once

#include "GraphStyle.h"

#include "widgets/layout/GraphLayout.h"

#include <QGraphicsItem>

namespace splitscope {

// The arrow from a producer to a reader (or the loss), routed by Graphviz, with the
// params that flow along it as a label. Labels are skipped below kLabelZoom.
class DataEdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    struct Look {
        bool hazard = false;      // carries a param read by a hazard's reader
        bool hazardFocus = false;
        bool cause = false;       // the data edge that caused the current step
        bool dimmed = false;
        bool operator==(const Look &o) const
        {
            return hazard == o.hazard && hazardFocus == o.hazardFocus && cause == o.cause && dimmed == o.dimmed;
        }
        bool operator!=(const Look &o) const { return !(*this == o); }
    };

    DataEdgeItem(const GraphLayout::Edge &edge, const GraphStyle &style);

    UnitId source() const { return m_edge.edge.source; }
    UnitId target() const { return m_edge.edge.target; }
    const std::vector<ParamId> &params() const { return m_edge.edge.params; }
    bool carries(ParamId param) const;
    const Look &look() const { return m_look; }
    void setLook(const Look &look);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QRectF labelRect() const;

    GraphLayout::Edge m_edge;
    const GraphStyle &m_style;
    QPolygonF m_arrow;
    QStringList m_lines;
    QRectF m_bounds;
    Look m_look;
};

} // namespace splitscope
