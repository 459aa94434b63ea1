// SPDX-License-Identifier: MIT
#pragma once

#include "GraphStyle.h"

#include "widgets/layout/GraphLayout.h"

#include <QGraphicsItem>
#include <QStaticText>

#include <vector>

namespace splitscope {

// The arrow from a producer to a reader (or the loss), routed by Graphviz, with the
// params that flow along it as a label. Labels are skipped below kLabelZoom.
class DataEdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    // Below this zoom a plain edge does not paint itself: the scene draws all of them
    // as straight hairlines in one call (thousands of items cost more than their ink).
    static constexpr double kSketchZoom = 0.2;
    // How strong plain edges are drawn at `zoom`: whole from 0.6, fading to 0.3 at 0.2
    // and below, so that far out the boxes (the stages) stand out of the mesh of edges.
    static double fadeAt(double zoom);

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

    // A new route for the same edge (a new layout of the same graph).
    void setRoute(const GraphLayout::Edge &edge);

    UnitId source() const { return m_edge.edge.source; }
    UnitId target() const { return m_edge.edge.target; }
    const std::vector<ParamId> &params() const { return m_edge.edge.params; }
    bool carries(ParamId param) const;
    // The straight line from the source to the arrow tip, for the far-out sketch.
    QLineF sketch() const;
    const Look &look() const { return m_look; }
    // The label's lines as drawn (long names shortened with "…").
    QStringList labelLines() const;
    void setLook(const Look &look);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    void computeGeometry();
    QRectF labelRect() const;

    GraphLayout::Edge m_edge;
    const GraphStyle &m_style;
    QPolygonF m_arrow;
    QStringList m_lines;
    std::vector<QStaticText> m_staticLines; // m_lines, laid out on first paint
    QRectF m_bounds;
    Look m_look;
};

} // namespace splitscope
