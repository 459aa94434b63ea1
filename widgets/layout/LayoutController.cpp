// SPDX-License-Identifier: MIT
#include "LayoutController.h"

#include "GraphvizLayout.h"
#include "LayoutRequestBuilder.h"
#include "QuickLayeredLayout.h"

#include "widgets/document/SplitDocument.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace splitscope {

namespace {

constexpr int kQuickLayoutUnits = 400;   // above this, a quick layout shows while dot works
constexpr int kYieldMs = 1;              // lets timers and input run before the quick layout
constexpr std::size_t kReservedLabelEdges = 250; // above this, labels sit on edge midpoints

} // namespace

LayoutController::LayoutController(SplitDocument *document, NodeSizer sizer, LabelSizer labelSizer, QObject *parent)
    : QObject(parent), m_document(document), m_sizer(std::move(sizer)), m_labelSizer(std::move(labelSizer))
{
    connect(document, &SplitDocument::pipelineReset, this, &LayoutController::relayout);
}

void LayoutController::setOptions(const LayoutOptions &options)
{
    m_options = options;
    relayout();
}


void LayoutController::relayout()
{
    if (!m_document->hasPipeline())
        return;
    const std::shared_ptr<const PipelineGraph> graph = m_document->sharedGraph();
    // Node sizes come from font metrics, so the request is built here on the GUI thread.
    const std::vector<QSizeF> sizes = m_sizer(*graph);
    LayoutRequest request =
        buildLayoutRequest(*graph, m_options, [&](UnitId unit) { return sizes[unit]; }, m_labelSizer);
    request.options.reserveLabelSpace = request.edges.size() <= kReservedLabelEdges;
    const quint64 job = ++m_job;
    if (m_pending++ == 0)
        Q_EMIT busyChanged(true);
    Q_EMIT layoutStarted(job);
    if (graph->unitCount() > kQuickLayoutUnits) {
        // Linear time: the graph is on screen and usable at once, dot's layout replaces
        // it. On a timer (a zero timer would be a posted event, run before input), so
        // that loading, laying out and painting are three short stalls with input
        // handled between them, not one long one.
        QTimer::singleShot(kYieldMs, this,
            [this, job, graph, request]() {
                if (job != m_job || (m_layout && !m_layout->provisional && m_layoutGraph == graph))
                    return; // superseded, or dot was faster
                m_layout = std::make_shared<const GraphLayout>(computeQuickLayeredLayout(request));
                m_layoutGraph = graph;
                Q_EMIT layoutReady(job);
            });
    }
    // The watcher reports through the event loop, even when the job is done before
    // the watcher is connected, so observers of pipelineReset always see it first;
    // destroying the controller destroys the watcher and drops the result.
    auto *watcher = new QFutureWatcher<GraphLayout>(this);
    connect(watcher, &QFutureWatcher<GraphLayout>::finished, this, [this, watcher, job, graph]() {
        finished(job, graph, watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([request = std::move(request)]() { return computeGraphvizLayout(request); }));
}

void LayoutController::finished(quint64 job, std::shared_ptr<const PipelineGraph> graph, GraphLayout layout)
{
    const bool newest = job == m_job;
    if (--m_pending == 0)
        Q_EMIT busyChanged(false);
    if (!newest)
        return; // a newer request is on its way; showing this one would flicker
    m_layout = std::make_shared<const GraphLayout>(std::move(layout));
    m_layoutGraph = std::move(graph);
    Q_EMIT layoutReady(job);
}

} // namespace splitscope
