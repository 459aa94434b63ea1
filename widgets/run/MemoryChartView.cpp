// SPDX-License-Identifier: MIT
#include "MemoryChartView.h"

#include "RunFormat.h"
#include "RunCharts.h"
#include "RunSession.h"

#include <QAreaSeries>
#include <QChart>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QTextDocumentFragment>
#include <QValueAxis>

#include <algorithm>

namespace splitscope {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kAreaAlpha = 150;
constexpr int kSecondTicks = 4; // at most about this many labels on the seconds axis

} // namespace

MemoryChartView::MemoryChartView(QWidget *parent)
    : QChartView(parent), m_x(new QValueAxis(this)), m_y(new QValueAxis(this)), m_legend(new QLabel(this))
{
    m_x->setTitleText(tr("seconds"));
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setTitleText(tr("MiB"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    setChart(makeRunChart(tr("Memory"), Qt::AlignBottom, m_x, m_y));
    chart()->legend()->setVisible(false);
    m_legend->setObjectName(QStringLiteral("MemoryLegend"));
    m_legend->setWordWrap(true);
    m_legend->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setFont(chart()->legend()->font());
    m_legend->setAttribute(Qt::WA_TransparentForMouseEvents);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(180, 150);
    // Whole repaints: the axes change range and ticks as points arrive, and partial
    // updates left stale bands over the lines and half-erased tick labels.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    keepTicksFitting(chart(), m_y, &m_yTicks, [this] { fitAxes(); });
    fitAxes();
    placeLegend();
}

void MemoryChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    placeLegend();
}

void MemoryChartView::placeLegend()
{
    constexpr int kMargin = 4;
    const int width = std::max(1, viewport()->width() - 2 * kMargin);
    const int height = m_legendHtml.isEmpty() ? 0 : m_legend->heightForWidth(width);
    m_legend->setGeometry(kMargin, viewport()->height() - height - kMargin, width, height);
    m_legend->setVisible(height > 0);
    chart()->setMargins(QMargins(kMargin, kMargin, kMargin, kMargin + height));
}

void MemoryChartView::updateLegend()
{
    // One entry per RSS line and per model (a model loaded in both stages is
    // named once), in the order they were added.
    QStringList entries;
    QStringList models;
    for (QAbstractSeries *series : chart()->series()) {
        QColor color;
        if (series->type() == QAbstractSeries::SeriesTypeLine) {
            color = static_cast<QLineSeries *>(series)->pen().color();
        } else if (series->type() == QAbstractSeries::SeriesTypeArea) {
            if (models.contains(series->name()))
                continue;
            models << series->name();
            color = static_cast<QAreaSeries *>(series)->color();
        }
        if (series->name().isEmpty() || !color.isValid())
            continue;
        color.setAlpha(255);
        entries << QStringLiteral("<span style='white-space:nowrap'><span style='color:%1'>&#9632;</span>&nbsp;%2</span>")
                       .arg(color.name(), series->name().toHtmlEscaped());
    }
    const QString html = entries.join(QStringLiteral(" &nbsp; "));
    if (html == m_legendHtml)
        return;
    m_legendHtml = html;
    m_legend->setText(html);
    placeLegend();
}

QString MemoryChartView::legendText() const
{
    return QTextDocumentFragment::fromHtml(m_legendHtml).toPlainText();
}

MemoryChartView::~MemoryChartView() = default;

void MemoryChartView::addSeries(QAbstractSeries *series)
{
    chart()->addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
}

void MemoryChartView::clearRuns()
{
    for (Trace &t : m_traces) {
        for (StageTrace &s : t.stages) {
            chart()->removeSeries(s.rss);
            delete s.rss;
            for (auto &[rank, line] : s.rankLines) {
                chart()->removeSeries(line);
                delete line;
            }
            for (ModelArea &a : s.areas) {
                chart()->removeSeries(a.area);
                delete a.area;
                delete a.upper;
                delete a.lower;
            }
        }
    }
    m_traces.clear();
    fitAxes();
    updateLegend();
}

void MemoryChartView::addRun(std::shared_ptr<const RunSession> session, const QString &label, const QColor &color,
    bool models)
{
    Trace t;
    t.session = std::move(session);
    t.label = label;
    t.color = color;
    t.models = models;
    m_traces.push_back(std::move(t));
    refresh();
}

void MemoryChartView::refresh()
{
    for (Trace &t : m_traces) {
        if (!t.session)
            continue;
        const std::vector<StageRun> &stages = t.session->stages();
        while (t.stages.size() < stages.size()) {
            const StageRun &stage = stages[t.stages.size()];
            StageTrace s;
            s.rss = new QLineSeries;
            QPen pen(t.color.isValid() ? t.color : stageLineColor(stage.stage));
            pen.setWidthF(2.0);
            // A compared run draws both its stages in its colour: stage one dashed, so that
            // the two lines do not read as one ("B 1" and "B 2" were nearly the same).
            if (t.color.isValid() && stage.stage == RunStage::StageOne)
                pen.setStyle(Qt::DashLine);
            s.rss->setPen(pen);
            // In words: "baseline: RSS", "split, stage two: RSS"; a compared run's letter
            // first ("B, split, stage one: RSS").
            const QString stageWords = stage.stage == RunStage::OneStage ? tr("baseline")
                : stage.stage == RunStage::StageOne                      ? tr("split, stage one")
                                                                         : tr("split, stage two");
            s.rss->setName(tr("%1%2: RSS").arg(t.label.isEmpty() ? QString() : t.label + QStringLiteral(", "), stageWords));
            s.feed = SeriesFeed(s.rss, 1.0 / kMiB);
            t.stages.push_back(std::move(s));
            addSeries(t.stages.back().rss);
        }
    }
    // The axes first (see LossChartView::refresh), then the points.
    fitAxes();
    for (Trace &t : m_traces) {
        if (!t.session)
            continue;
        const std::vector<StageRun> &stages = t.session->stages();
        for (std::size_t i = 0; i < t.stages.size(); ++i) {
            t.stages[i].feed.feed(stages[i].memory);
            addRankLines(t.stages[i], stages[i]);
            if (t.models && t.stages[i].stackedPoints != stages[i].memory.size())
                restack(t, i);
        }
    }
    updateLegend();
}

void MemoryChartView::addRankLines(StageTrace &trace, const StageRun &stage)
{
    for (auto it = stage.rankMemory.cbegin(); it != stage.rankMemory.cend(); ++it) {
        if (!trace.rankLines.count(it.key())) {
            auto *line = new QLineSeries;
            QPen pen = trace.rss->pen();
            pen.setStyle(Qt::DotLine);
            line->setPen(pen);
            line->setName(tr("%1, rank %2").arg(trace.rss->name()).arg(it.key()));
            trace.rankLines[it.key()] = line;
            trace.rankFeeds[it.key()] = SeriesFeed(line, 1.0 / kMiB);
            addSeries(line);
        }
        trace.rankFeeds[it.key()].feed(it.value());
    }
}

void MemoryChartView::restack(Trace &trace, std::size_t stageIndex)
{
    const StageRun &stage = trace.session->stages()[stageIndex];
    StageTrace &s = trace.stages[stageIndex];
    s.stackedPoints = stage.memory.size();
    for (int m = static_cast<int>(s.areas.size()); m < stage.models.size(); ++m) {
        ModelArea a;
        a.model = stage.models.at(m);
        a.upper = new QLineSeries(this);
        a.lower = new QLineSeries(this);
        a.area = new QAreaSeries(a.upper, a.lower);
        // One color per model name in the whole chart (updateLegend() names each model once).
        QStringList seen;
        for (const Trace &t : m_traces) {
            for (const StageTrace &st : t.stages) {
                for (const ModelArea &other : st.areas) {
                    if (!seen.contains(other.model))
                        seen << other.model;
                }
            }
        }
        const int colorIndex = seen.contains(a.model) ? static_cast<int>(seen.indexOf(a.model))
                                                      : static_cast<int>(seen.size());
        QColor fill = modelColor(colorIndex);
        fill.setAlpha(kAreaAlpha);
        a.area->setColor(fill);
        a.area->setBorderColor(fill.darker(130));
        a.area->setName(a.model);
        s.areas.push_back(a);
        addSeries(a.area);
    }
    // Stacked: each model's band starts where the previous one's ends. The bands
    // are steps (weights load and unload at moments): only the samples around a
    // change, and the last, are drawn, so a long run costs a handful of points.
    const qsizetype n = stage.memory.size();
    QVector<qsizetype> kept;
    for (qsizetype i = 0; i < n; ++i) {
        bool change = i == 0 || i + 1 == n;
        for (qsizetype m = 0; !change && m < stage.modelMemory.size(); ++m) {
            const QVector<QPointF> &bytes = stage.modelMemory.at(m);
            change = i < bytes.size() && (bytes[i].y() != bytes[i - 1].y()
                                             || (i + 1 < bytes.size() && bytes[i + 1].y() != bytes[i].y()));
        }
        if (change)
            kept.append(i);
    }
    QVector<double> base(kept.size(), 0.0);
    for (int m = 0; m < static_cast<int>(s.areas.size()) && m < stage.modelMemory.size(); ++m) {
        const QVector<QPointF> &bytes = stage.modelMemory.at(m);
        QList<QPointF> lower;
        QList<QPointF> upper;
        for (qsizetype k = 0; k < kept.size() && kept[k] < bytes.size(); ++k) {
            const QPointF &p = bytes[kept[k]];
            lower.append(QPointF(p.x(), base[k] / kMiB));
            base[k] += p.y();
            upper.append(QPointF(p.x(), base[k] / kMiB));
        }
        // QAreaSeries in Qt 6.4 does not redraw on its lines' pointsReplaced():
        // clear and append, which it follows.
        for (QLineSeries *line : {s.areas[m].lower, s.areas[m].upper})
            line->clear();
        s.areas[m].lower->append(lower);
        s.areas[m].upper->append(upper);
    }
}

void MemoryChartView::fitAxes()
{
    double xMax = 0;
    double yMax = 0;
    for (const Trace &t : m_traces) {
        if (!t.session)
            continue;
        for (const StageRun &stage : t.session->stages()) {
            if (!stage.memory.isEmpty())
                xMax = std::max(xMax, stage.memory.constLast().x());
            yMax = std::max(yMax, static_cast<double>(stage.peakMemory()) / kMiB);
            for (const QVector<QPointF> &rank : stage.rankMemory) {
                for (const QPointF &p : rank)
                    yMax = std::max(yMax, p.y() / kMiB);
            }
        }
    }
    setAxisRange(m_x, 0, xMax > 0 ? roundUpForAxis(xMax, xMax) : 1.0, false, kSecondTicks); // narrow: decimals need room
    setAxisRange(m_y, 0, yMax > 0 ? roundUpForAxis(yMax * 1.05, yMax) : 100.0, false, m_yTicks);
}

int MemoryChartView::memoryPoints(int index) const
{
    if (index < 0 || index >= runCount())
        return 0;
    int points = 0;
    for (const StageTrace &s : m_traces[static_cast<std::size_t>(index)].stages)
        points += static_cast<int>(s.rss->count());
    return points;
}

int MemoryChartView::modelAreas() const
{
    int areas = 0;
    for (const Trace &t : m_traces) {
        for (const StageTrace &s : t.stages)
            areas += static_cast<int>(s.areas.size());
    }
    return areas;
}

} // namespace splitscope
