// SPDX-License-Identifier: MIT
#pragma once

#include "SeriesFeed.h"

#include <QChartView>
#include <QColor>

#include <map>
#include <memory>
#include <vector>

class QAreaSeries;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace splitscope {

class RunSession;
struct StageRun;

// The worker's resident memory over the seconds of a launch, one line per stage
// ("RSS 1" stage one blue, "RSS 2" stage two orange, the baseline's violet), and under it the bytes
// of each loaded model stacked as areas: what the weights take, and what the rest
// (LibTorch, activations, optimizer state, buffers) does. Live during a run, or
// two launches' RSS overlaid (A violet, B orange) for a comparison.
class MemoryChartView : public QChartView {
    Q_OBJECT
public:
    explicit MemoryChartView(QWidget *parent = nullptr);
    ~MemoryChartView() override;

    void clearRuns();

    // The legend's text, entries separated by "  " (for tests).
    QString legendText() const;
    // `color` invalid: each stage in its own color. `models`: stack the loaded
    // models' bytes under the RSS line.
    void addRun(std::shared_ptr<const RunSession> session, const QString &label, const QColor &color, bool models);
    int runCount() const { return static_cast<int>(m_traces.size()); }
    void refresh();

    // What is drawn (for tests): RSS points of run `index` (all stages), model areas.
    int memoryPoints(int index) const;
    int modelAreas() const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct ModelArea {
        QString model;
        QAreaSeries *area = nullptr;
        QLineSeries *upper = nullptr;
        QLineSeries *lower = nullptr;
    };
    struct StageTrace {
        QLineSeries *rss = nullptr;
        SeriesFeed feed;
        std::vector<ModelArea> areas;
        qsizetype stackedPoints = -1;
        // The other ranks' RSS (StageRun::rankMemory), dotted in the stage's colour.
        std::map<int, QLineSeries *> rankLines;
        std::map<int, SeriesFeed> rankFeeds;
    };
    struct Trace {
        std::shared_ptr<const RunSession> session;
        QString label;
        QColor color;
        bool models = false;
        std::vector<StageTrace> stages;
    };
    void addSeries(QAbstractSeries *series);
    void addRankLines(StageTrace &trace, const StageRun &stage);
    void restack(Trace &trace, std::size_t stageIndex);
    void fitAxes();
    void updateLegend();
    void placeLegend();

    std::vector<Trace> m_traces;
    QValueAxis *m_x;
    QValueAxis *m_y;
    int m_yTicks = 6; // as many as the plot's height can label (ticksThatFit)
    // Qt Charts lays its legend out on one row and elides what does not fit; this
    // one wraps between entries, under the plot (five entries in a narrow dock).
    QLabel *m_legend;
    QString m_legendHtml;
};

} // namespace splitscope
