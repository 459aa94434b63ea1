// SPDX-License-Identifier: MIT
#pragma once

#include "SeriesFeed.h"

#include <QChartView>

#include <memory>
#include <vector>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace splitscope {

class RunSession;

// The loss of the training stage of one or more launches over optimizer steps:
// each step's loss (thin, light), its smoothed curve (bold; exponential moving
// average) and each epoch's mean (dots). Live during a run (refresh() appends what
// is new), or several finished runs overlaid for a comparison.
class LossChartView : public QChartView {
    Q_OBJECT
public:
    explicit LossChartView(QWidget *parent = nullptr);
    ~LossChartView() override;

    void clearRuns();
    // Follows `session`'s training stage (stage two or the one-stage baseline).
    void addRun(std::shared_ptr<const RunSession> session, const QString &label, const QColor &color);
    int runCount() const { return static_cast<int>(m_traces.size()); }
    // Appends the points that are new since the last call and fits the axes.
    void refresh();

    // What is drawn (for tests): points in the raw and smoothed series of run `index`.
    int rawPoints(int index) const;
    int smoothedPoints(int index) const;

private:
    struct Trace {
        std::shared_ptr<const RunSession> session;
        QLineSeries *raw = nullptr;
        QLineSeries *smoothed = nullptr;
        QScatterSeries *epochs = nullptr;
        SeriesFeed rawFeed;
        SeriesFeed smoothedFeed;
        SeriesFeed epochFeed;
        qsizetype scanned = 0; // raw points already counted in the ranges
    };
    void fitAxes();

    std::vector<Trace> m_traces;
    QValueAxis *m_x;
    QValueAxis *m_y;
    int m_yTicks = 6; // as many as the plot's height can label (ticksThatFit)
    double m_xMax = 0;
    double m_yMin = 0;
    double m_yMax = 0;
    bool m_empty = true;
};

} // namespace splitscope
