// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

namespace splitscope {

class GraphView;

// A minimap in the corner of a GraphView: every unit as a small box in its stage
// color (edges left out: at this size they are noise), and the part of the graph
// the view shows as a frame. Clicking or dragging moves the view there. Painting
// reads the scene's node items directly, so it costs one rectangle per unit.
class GraphOverview : public QWidget {
    Q_OBJECT
public:
    explicit GraphOverview(GraphView *view);

    // The overview's size for a view of `viewport` size: the graph's aspect, bounded.
    QSize preferredSize(const QSize &viewport) const;
    void sceneChanged() { update(); }

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    QTransform sceneToOverview() const;
    void moveViewTo(const QPointF &overviewPoint);

    GraphView *m_view;
};

} // namespace splitscope
