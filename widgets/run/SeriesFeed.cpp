// SPDX-License-Identifier: MIT
#include "SeriesFeed.h"

#include "StageRun.h"

#include <QXYSeries>

namespace splitscope {

namespace {

QList<QPointF> scaled(const QVector<QPointF> &points, qsizetype from, double scale)
{
    QList<QPointF> out;
    out.reserve(points.size() - from);
    for (qsizetype i = from; i < points.size(); ++i)
        out.append(QPointF(points[i].x(), points[i].y() * scale));
    return out;
}

} // namespace

void SeriesFeed::feed(const QVector<QPointF> &points)
{
    if (!m_series)
        return;
    const int size = static_cast<int>(points.size());
    if (size == m_fed)
        return;
    if (size > kMaxShownPoints) {
        m_series->replace(scaled(thinned(points, kMaxShownPoints), 0, m_scale));
        m_thinned = true;
    } else if (size < m_fed || m_thinned) {
        m_series->replace(scaled(points, 0, m_scale));
        m_thinned = false;
    } else {
        m_series->append(scaled(points, m_fed, m_scale));
    }
    m_fed = size;
}

} // namespace splitscope
