// SPDX-License-Identifier: MIT
#include "LossChartView.h"

#include "RunCharts.h"
#include "RunSession.h"

#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kRawAlpha = 70;        // the per-step loss is noisy: drawn light under the smoothed curve
constexpr double kYPadding = 0.06;   // free room above and below the curves, as a fraction of their span
constexpr double kLeastRelativeSpan = 0.01; // of the loss axis, as a fraction of the largest loss
constexpr int kMaxEpochDots = 60;    // a scatter series costs a graphics item per dot
constexpr double kSmoothWidth = 2.2; // pen of the smoothed curve

} // namespace

LossChartView::LossChartView(QWidget *parent) : QChartView(parent), m_x(new QValueAxis(this)), m_y(new QValueAxis(this))
{
    m_x->setTitleText(tr("optimizer step"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_y->setTitleText(tr("loss"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    setChart(makeRunChart(tr("Loss"), Qt::AlignBottom, m_x, m_y));
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(180, 150);
    // Whole repaints: the axes change range and ticks as points arrive, and partial
    // updates left stale bands over the lines and half-erased tick labels.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    keepTicksFitting(chart(), m_y, &m_yTicks, [this] { fitAxes(); });
    fitAxes();
}

LossChartView::~LossChartView() = default;

void LossChartView::clearRuns()
{
    for (Trace &t : m_traces) {
        for (QAbstractSeries *s : std::initializer_list<QAbstractSeries *>{t.raw, t.smoothed, t.epochs}) {
            chart()->removeSeries(s);
            delete s;
        }
    }
    m_traces.clear();
    m_empty = true;
    m_xMax = 0;
    fitAxes();
}

void LossChartView::addRun(std::shared_ptr<const RunSession> session, const QString &label, const QColor &color)
{
    Trace t;
    t.session = std::move(session);
    t.raw = new QLineSeries;
    t.smoothed = new QLineSeries;
    t.epochs = new QScatterSeries;
    QColor light = color;
    light.setAlpha(kRawAlpha);
    QPen rawPen(light);
    rawPen.setWidthF(1.0);
    t.raw->setPen(rawPen);
    QPen smoothPen(color);
    smoothPen.setWidthF(kSmoothWidth);
    t.smoothed->setPen(smoothPen);
    // Runs that train the same (split and baseline) draw the same curve: the first
    // one widens under the others, so that both stay visible.
    if (!m_traces.empty()) {
        QPen under = m_traces.front().smoothed->pen();
        under.setWidthF(kSmoothWidth * 2.5);
        m_traces.front().smoothed->setPen(under);
    }
    t.smoothed->setName(label);
    t.epochs->setColor(color.darker(120));
    t.epochs->setBorderColor(Qt::white);
    t.epochs->setMarkerSize(7.0);
    t.epochs->setName(tr("%1: epoch mean").arg(label));
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{t.raw, t.smoothed, t.epochs}) {
        chart()->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    // The legend names each run once (its smoothed curve).
    for (QLegendMarker *m : chart()->legend()->markers(t.raw))
        m->setVisible(false);
    for (QLegendMarker *m : chart()->legend()->markers(t.epochs))
        m->setVisible(false);
    t.rawFeed = SeriesFeed(t.raw);
    t.smoothedFeed = SeriesFeed(t.smoothed);
    t.epochFeed = SeriesFeed(t.epochs, 1.0, kMaxEpochDots);
    m_traces.push_back(std::move(t));
    refresh();
}

void LossChartView::refresh()
{
    // The axes first: a range change makes Qt Charts recompute every series'
    // geometry, which then happens once, before the new points come.
    static const QVector<QPointF> none;
    bool changed = false;
    for (Trace &t : m_traces) {
        const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
        const QVector<QPointF> &loss = stage ? stage->loss : none;
        if (loss.size() < t.scanned)
            t.scanned = 0; // another stage: start over
        for (qsizetype i = t.scanned; i < loss.size(); ++i) {
            const QPointF &p = loss[i];
            if (m_empty) {
                m_yMin = m_yMax = p.y();
                m_empty = false;
            }
            m_xMax = std::max(m_xMax, p.x());
            m_yMin = std::min(m_yMin, p.y());
            m_yMax = std::max(m_yMax, p.y());
            changed = true;
        }
        t.scanned = loss.size();
    }
    if (changed)
        fitAxes();
    for (Trace &t : m_traces) {
        const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
        t.rawFeed.feed(stage ? stage->loss : none);
        t.smoothedFeed.feed(stage ? stage->smoothedLoss : none);
        t.epochFeed.feed(stage ? stage->epochLoss : none);
        // A line through one point draws nothing: after the first step (or a launch that
        // stopped there) the chart looked empty. That point is drawn as a dot.
        const bool lone = t.smoothed->count() == 1;
        if (t.smoothed->pointsVisible() != lone)
            t.smoothed->setPointsVisible(lone);
    }
}

void LossChartView::fitAxes()
{
    if (m_empty) {
        setAxisRange(m_x, 0, 10, true);
        setAxisRange(m_y, 0, 1, false, m_yTicks);
        return;
    }
    // The x axis spans the stage's steps from the start (known from its first
    // event), so that it does not move while the curve grows.
    double steps = m_xMax;
    for (const Trace &t : m_traces) {
        if (const StageRun *stage = t.session ? t.session->trainingStage() : nullptr)
            steps = std::max(steps, static_cast<double>(stage->total));
    }
    setAxisRange(m_x, 0, std::max(1.0, steps), true);
    // A flat curve (one step, or a loss that has not moved yet) spans at least 1 % of its
    // value: its range was 1e-6 wide and read "1.4999..." and "1.5000...".
    const double span = std::max({m_yMax - m_yMin, kLeastRelativeSpan * std::abs(m_yMax), 1e-6});
    setAxisRange(m_y, std::max(0.0, roundDownForAxis(m_yMin - kYPadding * span, span)),
        roundUpForAxis(m_yMax + kYPadding * span, span), false, m_yTicks);
}

int LossChartView::rawPoints(int index) const
{
    return index >= 0 && index < runCount() ? static_cast<int>(m_traces[index].raw->count()) : 0;
}

int LossChartView::smoothedPoints(int index) const
{
    return index >= 0 && index < runCount() ? static_cast<int>(m_traces[index].smoothed->count()) : 0;
}

} // namespace splitscope
