// SPDX-License-Identifier: MIT
#pragma once

#include "GraphLayout.h"

#include <QObject>

#include <functional>
#include <memory>

namespace splitscope {

class SplitDocument;

// Lays out the document's unit graph with Graphviz off the GUI thread and publishes
// the newest layout; every view of the document (one scene, or two side by side)
// shares it.
//
// A new pipeline (SplitDocument::pipelineReset) or new options start a layout job
// on Qt's global thread pool and return at once; when it finishes, layoutReady() is
// emitted on the GUI thread. Each job has an id; a result whose id is not the newest
// is dropped, so a burst of requests (a file saved several times, labels toggled
// twice) ends with the last one shown and never with a layout of an older graph.
//
// Big graphs (kQuickLayoutUnits) first get a provisional layered layout computed
// on the GUI thread in linear time on the next turn of the event loop, published
// with layoutReady(); dot's layout replaces it when done.
class LayoutController : public QObject {
    Q_OBJECT
public:
    // The sizes of all nodes (units in order, then the loss), from the fonts that
    // will draw them.
    using NodeSizer = std::function<std::vector<QSizeF>(const PipelineGraph &)>;
    // The size of an edge label's box as drawn (LayoutEdge::labelSize); none: Graphviz estimates it.
    using LabelSizer = std::function<QSizeF(const QString &)>;

    LayoutController(SplitDocument *document, NodeSizer sizer, LabelSizer labelSizer = {},
        QObject *parent = nullptr);

    const LayoutOptions &options() const { return m_options; }
    // Lays out again with new options (edge labels, the loss).
    void setOptions(const LayoutOptions &options);

    // The newest finished layout and the graph it belongs to (null before the first).
    std::shared_ptr<const GraphLayout> layout() const { return m_layout; }
    std::shared_ptr<const PipelineGraph> layoutGraph() const { return m_layoutGraph; }
    bool isBusy() const { return m_pending != 0; }
    quint64 currentJob() const { return m_job; }

public Q_SLOTS:
    void relayout();

Q_SIGNALS:
    void layoutStarted(quint64 job);
    // The newest job finished; layout() holds it (check ok() / error).
    void layoutReady(quint64 job);
    void busyChanged(bool busy);

private:
    void finished(quint64 job, std::shared_ptr<const PipelineGraph> graph, GraphLayout layout);

    SplitDocument *m_document;
    NodeSizer m_sizer;
    LabelSizer m_labelSizer;
    LayoutOptions m_options;
    std::shared_ptr<const GraphLayout> m_layout;
    std::shared_ptr<const PipelineGraph> m_layoutGraph;
    quint64 m_job = 0;
    int m_pending = 0;
};

} // namespace splitscope
