// SPDX-License-Identifier: MIT
#pragma once

#include "SeriesFeed.h"

#include <QChartView>

#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineSeries;
class QSlider;
class QToolButton;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;
class QAbstractAxis;

namespace splitscope {

class RunSession;

// The loss of the training stage of one or more launches over optimizer steps:
// each step's loss (thin, light), its smoothed curve (bold; exponential moving
// average) and each epoch's mean (dots). Live during a run (refresh() appends what
// is new), or several finished runs overlaid for a comparison.
//
// As TensorBoard's scalars: the smoothing's weight (a slider), a log-scale loss axis (a
// box), zoom (drag a rectangle, or the wheel) and pan (the arrow keys) and the curves as
// CSV, in a strip above the plot and in the context menu; a double click or "Show all"
// shows everything again.
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

    // The smoothed curves' weight: 0 (none: the per-step loss itself) to 0.99, an
    // exponential moving average with TensorBoard's debiasing. Default 0.9.
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    // A logarithmic loss axis (the loss is positive), or the linear one.
    void setLogScale(bool on);
    bool logScale() const { return m_logScale; }
    // Zoomed in by the user: the axes no longer follow the curves until reset.
    bool zoomed() const { return m_zoomed; }
    void zoomBy(double factor);
    void resetZoom();
    // Every run's per-step loss and its smoothed value, as CSV:
    // "run,step,loss,smoothed", one row per step (all of them, not only those drawn).
    QString curvesCsv() const;
    // Writes curvesCsv() to `path` (atomically); false with `error`.
    bool exportCsv(const QString &path, QString *error) const;
    // Asks where (a file dialog) and writes the CSV there, saying so when it cannot.
    void exportCsvInteractively();
    // The strip's controls (for tests).
    QSlider *smoothingSlider() const { return m_ui->smoothing; }
    QCheckBox *logScaleBox() const { return m_ui->log; }

protected:
    void resizeEvent(QResizeEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

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
        QString label;
        // The smoothed curve at m_smoothing, extended as steps arrive.
        QVector<QPointF> smoothedCurve;
        double ema = 0;
        double decay = 1;
    };
    void fitAxes();
    void createControls();
    // The strip shows the state (the menu, a zoom and the runs change it too).
    void updateControls();
    void extendSmoothed(Trace &t, const QVector<QPointF> &loss) const;
    // The loss axis in use: m_y, or m_logY with a log scale.
    QAbstractAxis *lossAxis() const;

    std::vector<Trace> m_traces;
    QValueAxis *m_x;
    QValueAxis *m_y;
    QLogValueAxis *m_logY;
    double m_smoothing = 0.9;
    bool m_logScale = false;
    bool m_zoomed = false;
    int m_yTicks = 6; // as many as the plot's height can label (ticksThatFit)
    double m_xMax = 0;
    double m_yMin = 0;
    double m_yMax = 0;
    bool m_empty = true;
    // The strip above the plot (createControls), once made.
    struct Controls {
        QWidget *strip, *label;
        QSlider *smoothing;
        QLabel *value;
        QCheckBox *log;
        QToolButton *showAll, *csv;
    };
    std::unique_ptr<Controls> m_ui;
};

} // namespace splitscope
