// SPDX-License-Identifier: MIT
#pragma once

#include <QPointF>
#include <QVector>

class QXYSeries;

namespace splitscope {

// Feeds a growing vector of points into a chart series: only the new points are
// appended (one call per refresh, so the chart repaints once), and past
// kMaxShownPoints the series shows an evenly thinned copy instead, so that a long
// run neither slows the chart down nor loses its shape. `scale` multiplies y
// (bytes to MiB).
class SeriesFeed {
public:
    static constexpr int kMaxShownPoints = 2000;

    SeriesFeed() = default;
    SeriesFeed(QXYSeries *series, double scale = 1.0) : m_series(series), m_scale(scale) {}

    QXYSeries *series() const { return m_series; }
    // Brings the series up to `points`; a shorter vector than last time starts over.
    void feed(const QVector<QPointF> &points);
    int fed() const { return m_fed; }

private:
    QXYSeries *m_series = nullptr;
    double m_scale = 1.0;
    int m_fed = 0;
    bool m_thinned = false;
};

} // namespace splitscope
