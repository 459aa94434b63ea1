// SPDX-License-Identifier: MIT
// Benchmark (a program, not a test): how fast a synthetic pipeline is laid out and
// first painted, and how long the GUI thread is ever blocked meanwhile, measured by
// an event-loop latency probe (a 5 ms timer; the longest gap between its ticks is
// the longest the loop could not run). Run on the offscreen platform:
//
//   QT_QPA_PLATFORM=offscreen build/tests/widgets/bench_graph_view [--grab PREFIX] [UNITS...]
//
// Default sizes: 300 and 2000 units (makeRandomPipeline, layered). --grab writes
// PREFIX-UNITS-fit.png and PREFIX-UNITS-100.png, pictures of the view; with
// BENCH_VERBOSE=1 in the environment each training change's time is printed too.
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/layout/LayoutController.h"

#include "LatencyProbe.h"

#include "support/RandomPipeline.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr int kPaintFrames = 20;     // repaints averaged per zoom level
constexpr int kResplits = 8;         // training changes measured

// Notes when the viewport starts its first paint after `armed` is set.
class PaintWatch : public QObject {
public:
    explicit PaintWatch(QElapsedTimer *clock) : m_clock(clock) {}
    bool armed = false;
    double firstPaintMs = -1;

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (armed && firstPaintMs < 0 && event->type() == QEvent::Paint)
            firstPaintMs = m_clock->nsecsElapsed() / 1e6;
        return false;
    }

private:
    QElapsedTimer *m_clock;
};

void spinUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs) {
        QEventLoop loop;
        QTimer::singleShot(1, &loop, &QEventLoop::quit);
        loop.exec();
    }
}

double repaintMs(GraphView *view, int frames)
{
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < frames; ++i)
        view->viewport()->repaint();
    return t.nsecsElapsed() / 1e6 / frames;
}

void run(int units, const QString &grab)
{
    RandomPipelineOptions options;
    options.units = units;
    options.layered = true;
    options.models = 4;
    options.seed = 42;
    Pipeline pipeline = makeRandomPipeline(options);

    SplitDocument document;
    TraceCursor cursor(&document);
    GraphWorkspace workspace(&document, &cursor);
    workspace.resize(1400, 900);
    workspace.show();
    QApplication::processEvents();
    LayoutController *layouts = workspace.layouts();
    GraphView *view = workspace.view();

    LatencyProbe probe;
    QElapsedTimer clock;
    PaintWatch quickPaint(&clock), finalPaint(&clock);
    view->viewport()->installEventFilter(&quickPaint);
    view->viewport()->installEventFilter(&finalPaint);
    QObject::connect(workspace.scene(), &SplitGraphScene::layoutApplied, [&]() {
        const auto layout = layouts->layout();
        if (layout && workspace.scene()->hasGraph())
            (layout->provisional ? quickPaint : finalPaint).armed = true;
    });
    probe.start();
    clock.start();
    document.setPipeline(std::move(pipeline), PipelineSource{});
    const double loaded = clock.nsecsElapsed() / 1e6;
    spinUntil([&]() { return !layouts->isBusy() && finalPaint.firstPaintMs >= 0; }, 600000);
    spinUntil([]() { return false; }, 100); // the paint after the last layout, as a user sees it
    const double layoutStall = probe.worstMs();
    const auto layout = layouts->layout();
    // A paint's end is its start plus what a paint at this zoom costs.
    const double paintCost = repaintMs(view, 3);
    const double firstPaint = finalPaint.firstPaintMs + paintCost;
    const double provisionalPaint = quickPaint.firstPaintMs >= 0 ? quickPaint.firstPaintMs + paintCost : -1;

    std::printf("%d units, %d params, %zu drawn edges\n", document.graph().unitCount(), document.graph().paramCount(),
        layout ? layout->edges.size() : 0);
    std::printf("  document (graph + split) ready          %8.1f ms\n", loaded);
    if (provisionalPaint >= 0)
        std::printf("  quick layered layout painted            %8.1f ms\n", provisionalPaint);
    std::printf("  Graphviz dot layout                     %8.1f ms%s\n", layout ? layout->seconds * 1e3 : -1.0,
        layout && layout->ok() ? "" : "  (FAILED)");
    std::printf("  laid out and first painted              %8.1f ms\n", firstPaint);
    std::printf("  worst GUI-thread stall during layout    %8.1f ms (%.1f ms of its CPU, from %.0f ms on)\n",
        layoutStall, probe.worstCpuMs(), probe.worstStartMs());

    // Re-splits: on the GUI thread (the default for this size), then on a worker.
    for (const int threshold : {document.asyncThreshold(), 0}) {
        document.setAsyncThreshold(threshold);
        probe.start();
        QElapsedTimer t;
        t.start();
        double busy = 0;
        for (int i = 0; i < kResplits; ++i) {
            t.restart();
            document.setModelTrainable("m" + std::to_string(i % 4), (i / 4) % 2 == 0);
            spinUntil([&]() { return !document.isSplitting(); }, 60000);
            busy += t.nsecsElapsed() / 1e6;
            if (std::getenv("BENCH_VERBOSE"))
                std::printf("    change %d: %.1f ms\n", i, t.nsecsElapsed() / 1e6);
            // Qt repaints the recolored boxes; the probe ticks between changes, as a
            // user's clicks are apart.
            spinUntil([]() { return false; }, 40);
        }
        const double each = busy / kResplits;
        const double stall = probe.worstMs();
        std::printf("  re-split + recolor (%s)             %8.1f ms each; with the repaint, worst stall %.1f ms (%.1f ms CPU)\n",
            threshold == 0 ? "worker" : "GUI   ", each, stall, probe.worstCpuMs());
    }

    // Painting at fit zoom (level of detail: boxes only), at 30 % (names alone, scaled
    // up) and at 100 % (names, badges, labels).
    view->zoomToFit();
    const double fitZoom = view->zoom();
    const double fitPaint = repaintMs(view, kPaintFrames);
    if (!grab.isEmpty())
        workspace.grab().save(QStringLiteral("%1-%2-fit.png").arg(grab).arg(units));
    view->centerOnUnit(document.graph().unitCount() / 2); // zooms in to readable names
    view->setZoom(0.3);
    const double compactPaint = repaintMs(view, kPaintFrames);
    if (!grab.isEmpty())
        workspace.grab().save(QStringLiteral("%1-%2-30.png").arg(grab).arg(units));
    view->setZoom(1.0);
    view->centerOnUnit(document.graph().unitCount() / 2);
    const double fullPaint = repaintMs(view, kPaintFrames);
    if (!grab.isEmpty())
        workspace.grab().save(QStringLiteral("%1-%2-100.png").arg(grab).arg(units));
    std::printf("  repaint at fit zoom (%.3f)              %8.1f ms\n", fitZoom, fitPaint);
    std::printf("  repaint at 30 %%                         %8.1f ms\n", compactPaint);
    std::printf("  repaint at 100 %%                        %8.1f ms\n", fullPaint);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    std::vector<int> sizes;
    QString grab;
    for (int i = 1; i < argc; ++i) {
        if (QByteArray(argv[i]) == "--grab" && i + 1 < argc)
            grab = QString::fromLocal8Bit(argv[++i]);
        else
            sizes.push_back(std::atoi(argv[i]));
    }
    if (sizes.empty())
        sizes = {300, 2000};
    for (const int units : sizes)
        run(units, grab);
    return 0;
}
