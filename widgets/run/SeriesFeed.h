// SPDX-License-Identifier: MIT
#pragma once

#include <QPointF>
#include <QVector>

class QXYSeries;

namespace splitscope {

// Feeds a growing vector of points into a chart series, cheaply enough to run ten
// times a second on a long run: only the new points are appended (one call per
// refresh), and the series shows every stride-th point plus the newest one, the
// stride doubling whenever more than `maxShown` would be shown. Qt Charts rebuilds
// a series' whole geometry (a stroked path) on every change, some microseconds a
// point, so what bounds a refresh's cost is the number of points shown, not the
// length of the run; a chart a few hundred pixels wide loses little at 300.
// `scale` multiplies y (bytes to MiB).
class SeriesFeed {
public:
    static constexpr int kMaxShownPoints = 300;

    SeriesFeed() = default;
    SeriesFeed(QXYSeries *series, double scale = 1.0, int maxShown = kMaxShownPoints)
        : m_series(series), m_scale(scale), m_maxShown(maxShown)
    {
    }

    QXYSeries *series() const { return m_series; }
    // Brings the series up to `points`; a shorter vector than last time starts over.
    void feed(const QVector<QPointF> &points);
    int fed() const { return m_fed; }
    int stride() const { return m_stride; }

private:
    void rebuild(const QVector<QPointF> &points);
    QPointF scaled(const QPointF &p) const { return QPointF(p.x(), p.y() * m_scale); }

    QXYSeries *m_series = nullptr;
    double m_scale = 1.0;
    int m_maxShown = kMaxShownPoints;
    int m_fed = 0;         // source points seen
    int m_stride = 1;      // every stride-th source point is shown
    bool m_tail = false;   // the series ends with the newest point, off the stride
};

} // namespace splitscope
