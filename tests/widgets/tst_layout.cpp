// SPDX-License-Identifier: MIT
// Layout by invariants, not coordinates: every unit is placed, no two boxes
// overlap, every edge goes down the ranks (and down the page), edges start at
// their source and end at their target. For dot's layout of every shipped
// example and of synthetic pipelines, and for the quick layered layout.
#include "WidgetTestSupport.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/layout/GraphvizLayout.h"
#include "widgets/layout/LayoutRequestBuilder.h"
#include "widgets/layout/QuickLayeredLayout.h"

#include "core/PipelineFile.h"
#include "support/RandomPipeline.h"

#include <QtConcurrent/QtConcurrentRun>
#include <QFuture>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <set>

Q_DECLARE_METATYPE(splitscope::LayoutOptions::Direction)

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr double kTolerance = 1.0; // scene units: Graphviz rounds positions to points

Pipeline examplePipeline(const QString &name)
{
    LoadResult load = parsePipeline(findBuiltinExample(name.toStdString())->json);
    return std::move(*load.pipeline);
}

Pipeline layeredPipeline(int units, std::uint64_t seed)
{
    RandomPipelineOptions options;
    options.units = units;
    options.layered = true;
    options.window = 24;
    options.models = 4;
    options.seed = seed;
    return makeRandomPipeline(options);
}

LayoutRequest requestFor(const PipelineGraph &graph, bool labels = true,
    LayoutOptions::Direction direction = LayoutOptions::Direction::Auto)
{
    LayoutOptions options;
    options.edgeLabels = labels;
    options.direction = direction;
    const std::vector<QSizeF> sizes = GraphStyle::nodeSizes(graph);
    LayoutRequest request =
        buildLayoutRequest(graph, options, [&](UnitId u) { return sizes[u]; }, &GraphStyle::labelSizeForLayout);
    request.options.reserveLabelSpace = request.edges.size() <= 250;
    return request;
}

// Where the view draws an edge's label (DataEdgeItem: the drawn box around labelCenter).
QRectF drawnLabelBox(const GraphLayout::Edge &e)
{
    const QSizeF size = GraphStyle::labelSizeForLayout(e.edge.label);
    return QRectF(e.labelCenter - QPointF(size.width() / 2, size.height() / 2), size);
}

// Labels that Graphviz placed (room reserved) are drawn clear of every box and of each other.
void checkLabelsDoNotOverlap(const GraphLayout &layout)
{
    std::vector<QRectF> labels;
    for (const GraphLayout::Edge &e : layout.edges) {
        if (e.hasLabel)
            labels.push_back(drawnLabelBox(e).adjusted(kTolerance, kTolerance, -kTolerance, -kTolerance));
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
        for (const GraphLayout::Node &n : layout.nodes) {
            QVERIFY2(!labels[i].intersects(n.rect),
                qPrintable(QStringLiteral("the label of edge %1 covers unit %2").arg(i).arg(n.unit)));
        }
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            QVERIFY2(!labels[i].intersects(labels[j]),
                qPrintable(QStringLiteral("the labels of edges %1 and %2 overlap").arg(i).arg(j)));
        }
    }
}

// The invariants every layout must keep; fails the current test otherwise.
void checkInvariants(const PipelineGraph &graph, const LayoutRequest &request, const GraphLayout &layout)
{
    QVERIFY2(layout.ok(), qPrintable(layout.error));
    QCOMPARE(layout.nodes.size(), request.nodes.size());
    QCOMPARE(layout.nodes.size(), static_cast<std::size_t>(graph.lossId()) + 1);
    // Every unit (and the loss) placed once, at its requested size, inside the bounds.
    std::vector<int> seen(layout.nodes.size(), 0);
    for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
        const GraphLayout::Node &n = layout.nodes[i];
        QCOMPARE(n.unit, request.nodes[i].unit);
        ++seen[n.unit];
        QVERIFY(std::isfinite(n.rect.x()) && std::isfinite(n.rect.y()));
        QVERIFY(std::abs(n.rect.width() - request.nodes[i].size.width()) <= kTolerance);
        QVERIFY(std::abs(n.rect.height() - request.nodes[i].size.height()) <= kTolerance);
        QVERIFY2(layout.bounds.adjusted(-kTolerance, -kTolerance, kTolerance, kTolerance).contains(n.rect),
            qPrintable(QStringLiteral("unit %1 outside the bounds").arg(n.unit)));
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    // No overlaps: sort by left edge and sweep.
    std::vector<QRectF> rects;
    for (const auto &n : layout.nodes)
        rects.push_back(n.rect.adjusted(kTolerance, kTolerance, -kTolerance, -kTolerance));
    std::vector<std::size_t> order(rects.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rects[a].left() < rects[b].left(); });
    for (std::size_t i = 0; i < order.size(); ++i) {
        for (std::size_t j = i + 1; j < order.size() && rects[order[j]].left() < rects[order[i]].right(); ++j) {
            QVERIFY2(!rects[order[i]].intersects(rects[order[j]]),
                qPrintable(QStringLiteral("units %1 and %2 overlap").arg(layout.nodes[order[i]].unit).arg(
                    layout.nodes[order[j]].unit)));
        }
    }
    // Edges go down the ranks and along the page (down, or right when the ranks run
    // left to right), from their source to their target.
    QCOMPARE(layout.edges.size(), request.edges.size());
    for (const GraphLayout::Edge &e : layout.edges) {
        const GraphLayout::Node &s = layout.nodes[layout.nodeIndex(e.edge.source)];
        const GraphLayout::Node &t = layout.nodes[layout.nodeIndex(e.edge.target)];
        QVERIFY2(s.rank < t.rank, qPrintable(QStringLiteral("edge %1 -> %2 does not go down the ranks")
                                                 .arg(e.edge.source)
                                                 .arg(e.edge.target)));
        if (layout.leftToRight)
            QVERIFY(s.rect.center().x() < t.rect.center().x());
        else
            QVERIFY(s.rect.center().y() < t.rect.center().y());
        QVERIFY(!e.path.isEmpty());
        const QPointF start = e.path.elementAt(0);
        QVERIFY2(s.rect.adjusted(-2, -2, 2, 2).contains(start), "an edge starts away from its source");
        QVERIFY2(t.rect.adjusted(-2, -2, 2, 2).contains(e.arrowTip), "an edge ends away from its target");
    }
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dotLayoutOfEachExample_data();
    void dotLayoutOfEachExample();
    void dotLayoutOfSyntheticPipelines_data();
    void dotLayoutOfSyntheticPipelines();
    void quickLayoutKeepsTheInvariants();
    void labelsGetRoomOrSitOnTheirEdge();
    void edgesMergeParamsPerPair();
    void autoDirectionSuitsTheShape();
    void layoutsFromSeveralThreadsAreSerialised();
    void controllerDropsStaleJobs();
    void controllerShowsAQuickLayoutFirstForBigGraphs();
};

void TestLayout::dotLayoutOfEachExample_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("labels");
    QTest::addColumn<LayoutOptions::Direction>("direction");
    for (const QString &name : exampleNames()) {
        QTest::addRow("%s", qPrintable(name)) << name << true << LayoutOptions::Direction::Auto;
        QTest::addRow("%s without labels", qPrintable(name)) << name << false << LayoutOptions::Direction::Auto;
        QTest::addRow("%s top to bottom", qPrintable(name)) << name << true << LayoutOptions::Direction::TopToBottom;
        QTest::addRow("%s left to right", qPrintable(name)) << name << true << LayoutOptions::Direction::LeftToRight;
    }
}

void TestLayout::dotLayoutOfEachExample()
{
    QFETCH(QString, name);
    QFETCH(bool, labels);
    QFETCH(LayoutOptions::Direction, direction);
    const Pipeline pipeline = examplePipeline(name);
    const PipelineGraph graph(pipeline);
    const LayoutRequest request = requestFor(graph, labels, direction);
    const GraphLayout layout = computeGraphvizLayout(request);
    checkInvariants(graph, request, layout);
    if (direction != LayoutOptions::Direction::Auto)
        QCOMPARE(layout.leftToRight, direction == LayoutOptions::Direction::LeftToRight);
    QVERIFY(!layout.provisional);
    for (const auto &e : layout.edges)
        QCOMPARE(e.hasLabel, labels);
    checkLabelsDoNotOverlap(layout);
}

void TestLayout::dotLayoutOfSyntheticPipelines_data()
{
    QTest::addColumn<int>("units");
    QTest::addColumn<int>("seed");
    QTest::newRow("60 units") << 60 << 1;
    QTest::newRow("150 units") << 150 << 2;
    QTest::newRow("250 units (big-graph settings)") << 250 << 3;
}

void TestLayout::dotLayoutOfSyntheticPipelines()
{
    QFETCH(int, units);
    QFETCH(int, seed);
    const Pipeline pipeline = layeredPipeline(units, static_cast<std::uint64_t>(seed));
    const PipelineGraph graph(pipeline);
    const LayoutRequest request = requestFor(graph);
    const GraphLayout layout = computeGraphvizLayout(request);
    checkInvariants(graph, request, layout);
    if (request.options.reserveLabelSpace)
        checkLabelsDoNotOverlap(layout);
}

void TestLayout::quickLayoutKeepsTheInvariants()
{
    for (const std::uint64_t seed : {5u, 6u}) {
        const Pipeline pipeline = layeredPipeline(900, seed);
        const PipelineGraph graph(pipeline);
        for (const auto direction : {LayoutOptions::Direction::Auto, LayoutOptions::Direction::LeftToRight}) {
            const LayoutRequest request = requestFor(graph, true, direction);
            const GraphLayout layout = computeQuickLayeredLayout(request);
            QVERIFY(layout.provisional);
            QCOMPARE(layout.leftToRight, direction == LayoutOptions::Direction::LeftToRight);
            checkInvariants(graph, request, layout);
        }
    }
    for (const QString &name : exampleNames()) {
        const Pipeline pipeline = examplePipeline(name);
        const PipelineGraph graph(pipeline);
        const LayoutRequest request = requestFor(graph);
        checkInvariants(graph, request, computeQuickLayeredLayout(request));
    }
}

void TestLayout::labelsGetRoomOrSitOnTheirEdge()
{
    // Small graph: Graphviz places labels clear of the boxes.
    const Pipeline small = examplePipeline(QStringLiteral("wan_video"));
    const PipelineGraph smallGraph(small);
    const LayoutRequest request = requestFor(smallGraph);
    QVERIFY(request.options.reserveLabelSpace);
    const GraphLayout layout = computeGraphvizLayout(request);
    for (const auto &e : layout.edges) {
        QVERIFY(e.hasLabel);
        for (const auto &n : layout.nodes)
            QVERIFY2(!n.rect.adjusted(2, 2, -2, -2).contains(e.labelCenter), "a label centre lies inside a box");
    }
    // Big graph: no room reserved (a label is a virtual node for dot); labels on the path.
    const Pipeline big = layeredPipeline(150, 9);
    const PipelineGraph bigGraph(big);
    LayoutRequest bigRequest = requestFor(bigGraph);
    QVERIFY(!bigRequest.options.reserveLabelSpace);
    const GraphLayout bigLayout = computeGraphvizLayout(bigRequest);
    for (const auto &e : bigLayout.edges) {
        QVERIFY(e.hasLabel);
        QCOMPARE(e.labelCenter, e.path.pointAtPercent(0.5));
    }
}

void TestLayout::edgesMergeParamsPerPair()
{
    const Pipeline pipeline = examplePipeline(QStringLiteral("qwen_image"));
    const PipelineGraph graph(pipeline);
    const LayoutRequest request = requestFor(graph);
    std::size_t params = 0;
    std::set<std::pair<UnitId, UnitId>> pairs;
    for (const LayoutEdge &e : request.edges) {
        QVERIFY(pairs.insert({e.source, e.target}).second); // one edge per pair
        params += e.params.size();
        QVERIFY(!e.label.isEmpty());
    }
    std::size_t expected = 0;
    for (UnitId u = 0; u <= graph.lossId(); ++u)
        expected += graph.inEdges(u).size();
    QCOMPARE(params, expected); // every data edge of the core is drawn
    QCOMPARE(edgeLabelText(graph, {0, 1, 2, 3, 4, 5}).split(QLatin1Char('\n')).size(), 4);
    QVERIFY(edgeLabelText(graph, {0, 1, 2, 3, 4, 5}).endsWith(QStringLiteral("+3 more")));
}

void TestLayout::autoDirectionSuitsTheShape()
{
    // Auto turns a graph left to right only when that brings it closer to a
    // screen's shape than top to bottom.
    for (const QString &name : exampleNames()) {
        const Pipeline pipeline = examplePipeline(name);
        const PipelineGraph graph(pipeline);
        const GraphLayout chosen = computeGraphvizLayout(requestFor(graph));
        const GraphLayout down = computeGraphvizLayout(requestFor(graph, true, LayoutOptions::Direction::TopToBottom));
        const GraphLayout right = computeGraphvizLayout(requestFor(graph, true, LayoutOptions::Direction::LeftToRight));
        auto mismatch = [](const GraphLayout &l) {
            const double r = (l.bounds.width() / l.bounds.height()) / 1.6;
            return r >= 1 ? r : 1 / r;
        };
        if (chosen.leftToRight)
            QVERIFY2(mismatch(right) < mismatch(down), qPrintable(name));
        else
            QCOMPARE(chosen.bounds, down.bounds);
    }
    // wan_video (29 units, most of them side by side) is the wide one.
    const Pipeline wan = examplePipeline(QStringLiteral("wan_video"));
    const PipelineGraph wanGraph(wan);
    QVERIFY(computeGraphvizLayout(requestFor(wanGraph)).leftToRight);
}

void TestLayout::layoutsFromSeveralThreadsAreSerialised()
{
    // Graphviz is not thread-safe; the mutex inside computeGraphvizLayout must make
    // concurrent calls safe and their results identical to sequential ones.
    const Pipeline pipeline = examplePipeline(QStringLiteral("wan_video"));
    const PipelineGraph graph(pipeline);
    const LayoutRequest request = requestFor(graph);
    const GraphLayout reference = computeGraphvizLayout(request);
    QList<QFuture<GraphLayout>> futures;
    for (int i = 0; i < 4; ++i)
        futures << QtConcurrent::run([&request]() { return computeGraphvizLayout(request); });
    for (auto &f : futures) {
        const GraphLayout layout = f.result();
        QVERIFY(layout.ok());
        for (std::size_t i = 0; i < layout.nodes.size(); ++i)
            QCOMPARE(layout.nodes[i].rect, reference.nodes[i].rect);
    }
}

void TestLayout::controllerDropsStaleJobs()
{
    SplitDocument document;
    LayoutController controller(&document, &GraphStyle::nodeSizes);
    QSignalSpy ready(&controller, &LayoutController::layoutReady);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    LayoutOptions options = controller.options();
    options.edgeLabels = false;
    controller.setOptions(options); // three jobs in flight; only the last may land
    const quint64 last = controller.currentJob();
    QVERIFY(ready.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 10000);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(ready.front().front().toULongLong(), last);
    QCOMPARE(controller.layoutGraph(), document.sharedGraph());
    QCOMPARE(controller.layout()->nodes.size(), static_cast<std::size_t>(document.graph().lossId()) + 1);
    for (const auto &e : controller.layout()->edges)
        QVERIFY(!e.hasLabel);
}

void TestLayout::controllerShowsAQuickLayoutFirstForBigGraphs()
{
    SplitDocument document;
    LayoutController controller(&document, &GraphStyle::nodeSizes);
    QSignalSpy ready(&controller, &LayoutController::layoutReady);
    QVERIFY(document.setPipeline(layeredPipeline(450, 4), PipelineSource{}));
    // The quick layout comes on the next turn of the event loop...
    QCOMPARE(ready.count(), 0);
    QVERIFY(ready.wait(5000));
    QCOMPARE(ready.count(), 1);
    QVERIFY(controller.layout()->provisional);
    QVERIFY(controller.isBusy());
    // ...and dot's replaces it.
    QVERIFY(ready.wait(60000));
    QVERIFY(!controller.layout()->provisional);
    QVERIFY(controller.layout()->ok());
}

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
