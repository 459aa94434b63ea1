// SPDX-License-Identifier: MIT
#include "SeriesFeed.h"

#include <QXYSeries>

namespace splitscope {

void SeriesFeed::rebuild(const QVector<QPointF> &points)
{
    const int size = static_cast<int>(points.size());
    m_stride = 1;
    while (size / m_stride > m_maxShown)
        m_stride *= 2;
    QList<QPointF> shown;
    shown.reserve(size / m_stride + 2);
    for (int i = 0; i < size; i += m_stride)
        shown.append(scaled(points[i]));
    m_tail = size > 0 && (size - 1) % m_stride != 0;
    if (m_tail)
        shown.append(scaled(points[size - 1]));
    m_series->replace(shown);
    m_fed = size;
}

void SeriesFeed::feed(const QVector<QPointF> &points)
{
    if (!m_series)
        return;
    const int size = static_cast<int>(points.size());
    if (size == m_fed)
        return;
    // Starting over, or so many new points that the stride must grow: draw anew.
    if (size < m_fed || size / m_stride > m_maxShown) {
        rebuild(points);
        return;
    }
    if (m_tail)
        m_series->remove(m_series->count() - 1);
    QList<QPointF> fresh;
    int first = m_fed;
    while (first % m_stride != 0)
        ++first;
    for (int i = first; i < size; i += m_stride)
        fresh.append(scaled(points[i]));
    m_tail = (size - 1) % m_stride != 0;
    if (m_tail)
        fresh.append(scaled(points[size - 1]));
    m_series->append(fresh);
    m_fed = size;
}

} // namespace splitscope
