// SPDX-License-Identifier: MIT
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <vector>

class QPainter;

namespace splitscope {

// The legend drawn over the graph view and into exports: what the fills, borders,
// badges and arcs mean. Which entries appear depends on what is on screen.
class GraphLegend {
public:
    struct Context {
        bool stepping = false;   // the stepper shows a step: "added" and "cause"
        bool chains = false;     // update chains are drawn
        bool comparison = false; // a comparison is drawn: "moved"
        bool overlay = false;    // ...with the other split painted into the boxes
        bool hazards = false;    // the split has hazards
    };

    // `maxWidth` > 0: at most that wide (one column instead of two, then shortened texts).
    // `oneColumn`: one column however many entries (narrower, taller).
    explicit GraphLegend(const Context &context, double maxWidth = 0, bool oneColumn = false);

    QSizeF size() const;
    // Paints the legend with its top-left corner at `topLeft` (painter units = pixels or points).
    void paint(QPainter *painter, const QPointF &topLeft) const;

private:
    enum class Swatch { StageOne, StageTwo, Loss, X0, Trainable, Hazard, Added, Cause, Chain, Moved, Overlay, Dice };
    struct Entry {
        Swatch swatch;
        QString text;
    };
    void paintSwatch(QPainter *painter, Swatch swatch, const QRectF &rect) const;
    int columns() const { return m_columns; }
    std::vector<double> columnWidths() const;
    std::vector<double> naturalColumnWidths(int columns) const;
    static double widthOf(const std::vector<double> &columnWidths);

    std::vector<Entry> m_entries;
    int m_columns = 1;
    double m_maxTextColumn = 0; // > 0: a column's width is capped (its texts elided)
};

} // namespace splitscope
