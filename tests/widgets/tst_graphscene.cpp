// SPDX-License-Identifier: MIT
// The graph as the user sees it: node colors against the core's split after
// changing the trainable set, the stepper's highlighted sets against the core's
// trace, search, click highlighting, hazards shown, comparisons marked, a broken
// file that keeps the old graph, and exports that write valid PNG, SVG, DOT and JSON.
#include "WidgetTestSupport.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/export/GraphExporter.h"
#include "widgets/graph/ChainLinkItem.h"
#include "widgets/graph/DataEdgeItem.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/UnitNodeItem.h"
#include "widgets/models/ModelChoiceModel.h"
#include "widgets/panels/LoadErrorBanner.h"
#include "widgets/panels/VerifierPanel.h"

#include "core/SplitReport.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <set>

using namespace splitscope;
using namespace splitscope::test;

namespace {

// A document, its stepper cursor and the central workspace, shown at a fixed size.
struct Fixture {
    SplitDocument document;
    TraceCursor cursor{&document};
    GraphWorkspace workspace{&document, &cursor};
    Fixture()
    {
        workspace.resize(1200, 800);
        workspace.show();
    }
    SplitGraphScene &scene() { return *workspace.scene(); }
};

// The color painted at a point inside a unit's box, away from its text.
QColor paintedFill(SplitGraphScene &scene, UnitId unit)
{
    UnitNodeItem *item = scene.nodeItem(unit);
    const QRectF box = item->mapRectToScene(item->boxRect());
    const QPointF probe(box.left() + 6, box.center().y()); // in the left padding: no text, no border
    QImage image(8, 8, QImage::Format_ARGB32);
    image.fill(Qt::black);
    QPainter painter(&image);
    scene.render(&painter, QRectF(0, 0, 8, 8), QRectF(probe - QPointF(1, 1), QSizeF(2, 2)));
    painter.end();
    return image.pixelColor(4, 4);
}

std::vector<UnitId> units(const std::vector<UnitId> &list)
{
    return sorted(list);
}

} // namespace

class TestGraphScene : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stageFilterShowsStageTwoAndItsNeighbours();
    void everyHazardHasItsArcs_data();
    void everyHazardHasItsArcs();
    void drawsEachExample_data();
    void drawsEachExample();
    void trainableChangesRecolor_data();
    void trainableChangesRecolor();
    void stepperHighlightsTheTrace_data();
    void stepperHighlightsTheTrace();
    void searchSelectsAndCenters();
    void controlCharactersInNamesAreDrawnEscaped();
    void infoLineIsElidedToItsWidth();
    void clickHighlightsUpstreamAndDownstream();
    void hazardsAreMarkedAndShown();
    void comparisonMarksMovedUnits();
    void brokenFileKeepsTheGraph();
    void exportsWriteValidFiles();
    void chainsOnDemand();
    void sideBySideLegendCoversNoUnit();
    void smallPaneShowsTheGraphNotOnlyTheLegend();
    void exportDrawsTheSplitNotTheSelection();
    void longEdgeLabelIsShortenedAndFitted();
    void realUnitNamesAreShownWhole_data();
    void realUnitNamesAreShownWhole();
    void familyPrefixIsLeftOutOfMostNames();
    void namesStayLegibleWhenZoomedOut();
    void safeRuleArcsNameTheirRule();
};

void TestGraphScene::drawsEachExample_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : exampleNames())
        QTest::newRow(qPrintable(name)) << name;
}

void TestGraphScene::drawsEachExample()
{
    QFETCH(QString, name);
    Fixture f;
    QVERIFY(f.document.openExample(name));
    QVERIFY(waitForGraph(f.workspace));
    const PipelineGraph &graph = f.document.graph();
    for (UnitId u = 0; u <= graph.lossId(); ++u)
        QVERIFY2(f.scene().nodeItem(u), qPrintable(QStringLiteral("unit %1 not drawn").arg(u)));
    for (UnitId u = 0; u < graph.unitCount(); ++u) {
        for (const PipelineGraph::Edge &e : graph.inEdges(u)) {
            DataEdgeItem *edge = f.scene().edgeItem(e.source, e.target);
            QVERIFY(edge);
            QVERIFY(edge->carries(e.param));
        }
    }
    QCOMPARE(units(f.scene().unitsInStage(UnitNodeItem::Stage::Two)), f.document.analysis()->split.v1());
    // The whole graph is in view after opening.
    const QRectF visible = f.workspace.view()->mapToScene(f.workspace.view()->viewport()->rect()).boundingRect();
    QVERIFY(visible.adjusted(-2, -2, 2, 2).contains(f.scene().graphRect()));
}

void TestGraphScene::trainableChangesRecolor_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("trainable");
    QTest::newRow("qwen_image vae") << QStringLiteral("qwen_image") << QStringList{QStringLiteral("vae")};
    QTest::newRow("qwen_image text_encoder+vae")
        << QStringLiteral("qwen_image") << QStringList{QStringLiteral("text_encoder"), QStringLiteral("vae")};
    QTest::newRow("wan_video image_encoder") << QStringLiteral("wan_video") << QStringList{QStringLiteral("image_encoder")};
    QTest::newRow("flux2_image text_encoder") << QStringLiteral("flux2_image") << QStringList{QStringLiteral("text_encoder")};
}

void TestGraphScene::trainableChangesRecolor()
{
    QFETCH(QString, name);
    QFETCH(QStringList, trainable);
    Fixture f;
    QVERIFY(f.document.openExample(name));
    QVERIFY(waitForGraph(f.workspace));
    // Check the boxes as the training panel's check boxes do.
    ModelChoiceModel models(&f.document);
    for (const QString &m : trainable) {
        int row = 0;
        while (row < models.rowCount() && QString::fromStdString(models.modelName(row)) != m)
            ++row;
        QVERIFY(row < models.rowCount());
        QVERIFY(models.setData(models.index(row, ModelChoiceModel::ModelColumn), Qt::Checked, Qt::CheckStateRole));
    }
    std::vector<std::string> w;
    for (const QString &m : trainable)
        w.push_back(m.toStdString());
    const auto lora = f.document.pipeline().trainingOrDefault().loraBaseModel;
    if (lora)
        w.push_back(*lora);
    const Split expected = computeSeedSplit(f.document.graph(), w);
    QCOMPARE(f.document.analysis()->split.trained, expected.trained);
    // Every box is painted in its stage's color (the scene recolored at once, no relayout).
    const GraphStyle &style = GraphStyle::standard();
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u) {
        const QColor want = expected.isTrained(u) ? style.stageTwo : style.stageOne;
        QCOMPARE(f.scene().nodeItem(u)->look().stage, expected.isTrained(u) ? UnitNodeItem::Stage::Two
                                                                             : UnitNodeItem::Stage::One);
        QCOMPARE(paintedFill(f.scene(), u).name(), want.name());
    }
    // X0 marked: exactly the core's X0.
    std::vector<UnitId> x0;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u) {
        if (f.scene().nodeItem(u)->look().x0)
            x0.push_back(u);
    }
    QCOMPARE(x0, expected.x0);
}

void TestGraphScene::stepperHighlightsTheTrace_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("model");
    QTest::newRow("wan_video vae") << QStringLiteral("wan_video") << QStringLiteral("vae");
    QTest::newRow("qwen_image_edit text_encoder") << QStringLiteral("qwen_image_edit") << QStringLiteral("text_encoder");
    QTest::newRow("ltx2 vae") << QStringLiteral("ltx2_audio_video") << QStringLiteral("vae");
}

void TestGraphScene::stepperHighlightsTheTrace()
{
    QFETCH(QString, name);
    QFETCH(QString, model);
    Fixture f;
    QVERIFY(f.document.openExample(name));
    f.document.setModelTrainable(model.toStdString(), true);
    QVERIFY(waitForGraph(f.workspace));
    const Split &split = f.document.analysis()->split;
    const auto steps = traceSteps(split);
    const int n = f.document.graph().unitCount();
    for (int k = 0; k < static_cast<int>(steps.size()); ++k) {
        f.cursor.setPosition(k);
        QCOMPARE(units(f.scene().unitsInStage(UnitNodeItem::Stage::Two)),
            trainedUnits(membersAfterSteps(split, k + 1, n)));
        QCOMPARE(units(f.scene().addedUnits()), units(steps[k].added));
        // What caused each addition is highlighted: its data edge, or an arc for a chain.
        std::size_t arcs = 0;
        for (const UnitId u : steps[k].added) {
            const Reason &r = split.reasons[u];
            if (r.rule == Reason::Rule::Forward) {
                DataEdgeItem *edge = f.scene().edgeItem(r.cause, u);
                QVERIFY(edge && edge->look().cause);
                QVERIFY(f.scene().nodeItem(r.cause)->look().cause);
            } else if (r.rule == Reason::Rule::Update) {
                ++arcs;
                QVERIFY(f.scene().nodeItem(r.cause)->look().cause);
            }
        }
        QCOMPARE(f.scene().causeLinks().size(), arcs);
        QVERIFY(f.scene().legendContext().stepping);
    }
    // At the end: the split, nothing highlighted.
    f.cursor.last();
    QCOMPARE(units(f.scene().unitsInStage(UnitNodeItem::Stage::Two)), split.v1());
    QVERIFY(f.scene().addedUnits().empty());
    QVERIFY(f.scene().causeLinks().empty());
}

void TestGraphScene::searchSelectsAndCenters()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(f.workspace));
    f.workspace.view()->setZoom(3.0); // far in: most units off screen
    QVERIFY(f.workspace.findUnit(QStringLiteral("wanvideounit_promptembedder"))); // case-insensitive
    const UnitId unit = f.document.graph().findUnit("WanVideoUnit_PromptEmbedder");
    QCOMPARE(f.document.currentUnit(), unit);
    QVERIFY(f.scene().nodeItem(unit)->isSelected());
    QCOMPARE(f.scene().selectedItems().size(), 1);
    const QRectF visible = f.workspace.view()->mapToScene(f.workspace.view()->viewport()->rect()).boundingRect();
    QVERIFY(visible.contains(f.scene().nodeItem(unit)->sceneBoundingRect().center()));
    // A fragment cycles through every match.
    QSet<UnitId> found;
    for (int i = 0; i < 10; ++i) {
        QVERIFY(f.workspace.findUnit(QStringLiteral("Embedder")));
        found.insert(f.document.currentUnit());
    }
    int matches = 0;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u)
        matches += QString::fromStdString(f.document.graph().unitName(u)).contains(QStringLiteral("Embedder")) ? 1 : 0;
    QCOMPARE(found.size(), std::min(matches, 10));
    QVERIFY(!f.workspace.findUnit(QStringLiteral("no such unit")));
}

// A unit or model name with a control character is drawn escaped (A\nB), as the
// reports print it, and the search finds the unit by that text.
void TestGraphScene::controlCharactersInNamesAreDrawnEscaped()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("control.json"));
    QVERIFY(writeControlCharacterPipeline(path));
    Fixture f;
    QVERIFY(f.document.openFile(path));
    QVERIFY(waitForGraph(f.workspace));
    const UnitId a = f.document.graph().findUnit("A\nB");
    QCOMPARE(f.scene().nodeItem(a)->name(), QStringLiteral("A\\nB"));
    QCOMPARE(f.scene().nodeItem(a)->models(), QStringList{QStringLiteral("m\\tx")});
    f.document.setCurrentUnit(kNoUnit);
    QVERIFY(f.workspace.findUnit(QStringLiteral("A\\nB")));
    QCOMPARE(f.document.currentUnit(), a);
}

// The line above the graph (pipeline, file, counts, layout status) is shortened with
// "…" to the room it has, never cut mid-word, and tells the rest in its tooltip.
void TestGraphScene::infoLineIsElidedToItsWidth()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(f.workspace));
    QLabel *info = f.workspace.infoLabel();
    const auto shown = [info]() { return plainTextOf(info->text()); };
    f.workspace.resize(1400, 800);
    QTRY_VERIFY(shown().contains(QStringLiteral("dot layout")));
    QVERIFY(!shown().contains(QChar(0x2026)));
    QVERIFY(info->toolTip().isEmpty());
    f.workspace.resize(700, 800);
    QTRY_VERIFY(shown().endsWith(QChar(0x2026)));
    QVERIFY(shown().startsWith(QStringLiteral("wan_video")));
    QVERIFY(QFontMetrics(info->font()).horizontalAdvance(shown()) <= info->contentsRect().width() + 8);
    QVERIFY(info->toolTip().contains(QStringLiteral("dot layout")));
}

void TestGraphScene::clickHighlightsUpstreamAndDownstream()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(f.workspace));
    const PipelineGraph &graph = f.document.graph();
    const UnitId unit = graph.findUnit("WanVideoUnit_ImageEmbedderVAE");
    QVERIFY(unit != kNoUnit);
    // Click the box in the view.
    GraphView *view = f.workspace.view();
    view->centerOnUnit(unit);
    const QPoint at = view->mapFromScene(f.scene().nodeItem(unit)->sceneBoundingRect().center());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(f.document.currentUnit(), unit);
    // Expected: the unit, everything it reads from transitively, everything that reads it.
    std::set<UnitId> expected{unit};
    std::vector<UnitId> stack{unit};
    while (!stack.empty()) {
        const UnitId u = stack.back();
        stack.pop_back();
        for (const auto &e : graph.inEdges(u)) {
            if (expected.insert(e.source).second)
                stack.push_back(e.source);
        }
    }
    std::set<UnitId> down{unit};
    stack = {unit};
    while (!stack.empty()) {
        const UnitId u = stack.back();
        stack.pop_back();
        for (const auto &e : graph.outEdges(u)) {
            if (down.insert(e.target).second)
                stack.push_back(e.target);
        }
        for (const auto &e : graph.inEdges(graph.lossId())) {
            if (e.source == u)
                down.insert(graph.lossId());
        }
    }
    expected.insert(down.begin(), down.end());
    const std::vector<UnitId> lit = f.scene().undimmedUnits();
    QCOMPARE(std::set<UnitId>(lit.begin(), lit.end()), expected);
    QVERIFY(lit.size() < static_cast<std::size_t>(graph.lossId()) + 1); // something is dimmed
    // Clicking the background clears it.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(3, 3));
    QCOMPARE(f.document.currentUnit(), kNoUnit);
    QCOMPARE(f.scene().undimmedUnits().size(), static_cast<std::size_t>(graph.lossId()) + 1);
}

void TestGraphScene::hazardsAreMarkedAndShown()
{
    Fixture f;
    VerifierPanel verifier(&f.document);
    QObject::connect(&verifier, &VerifierPanel::hazardRequested, &f.workspace, &GraphWorkspace::showHazard);
    QVERIFY(f.document.openExample(QStringLiteral("counterexample_write_after_read")));
    QVERIFY(waitForGraph(f.workspace));
    const auto analysis = f.document.analysis();
    QVERIFY(!analysis->verification.hazards.empty());
    const Hazard &h = analysis->verification.hazards.front();
    for (const UnitId u : {h.reader, h.expected, h.actual})
        QVERIFY(f.scene().nodeItem(u)->look().hazard);
    QVERIFY(f.scene().edgeItem(h.expected, h.reader)->look().hazard);
    QVERIFY(f.scene().legendContext().hazards);
    // "Show" selects the reader and dims everything but the hazard.
    verifier.showRow(0);
    QCOMPARE(f.document.currentUnit(), h.reader);
    QCOMPARE(f.scene().focusedHazard(), 0);
    std::set<UnitId> lit;
    for (const UnitId u : f.scene().undimmedUnits())
        lit.insert(u);
    std::set<UnitId> expected{h.reader};
    for (const UnitId u : {h.expected, h.actual}) {
        if (u != kNoUnit)
            expected.insert(u);
    }
    QCOMPARE(lit, expected);
    QVERIFY(f.scene().edgeItem(h.expected, h.reader)->look().hazardFocus);
    // The safe split has none.
    f.document.setSplitMode(SplitMode::Safe);
    QCOMPARE(f.scene().focusedHazard(), -1);
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u)
        QVERIFY(!f.scene().nodeItem(u)->look().hazard);
}

void TestGraphScene::comparisonMarksMovedUnits()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("counterexample_write_after_read")));
    QVERIFY(waitForGraph(f.workspace));
    f.document.setComparison(SplitDocument::CompareKind::OtherMode);
    const auto diff = f.document.diff();
    QVERIFY(diff && !diff->moved.empty());
    std::set<UnitId> moved;
    for (const MovedUnit &m : diff->moved)
        moved.insert(m.unit);
    const Split &b = f.document.comparison()->split;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u) {
        const auto &look = f.scene().nodeItem(u)->look();
        QCOMPARE(look.moved, moved.count(u) == 1);
        // Overlaid: B's stage painted into the box.
        QCOMPARE(look.otherStage, b.isTrained(u) ? UnitNodeItem::Stage::Two : UnitNodeItem::Stage::One);
    }
    // Side by side: the second scene colors by B and marks the same units.
    f.workspace.setSideBySide(true);
    QVERIFY(f.workspace.comparisonView()->isVisible());
    SplitGraphScene &sceneB = *f.workspace.comparisonScene();
    QVERIFY(sceneB.hasGraph());
    QCOMPARE(units(sceneB.unitsInStage(UnitNodeItem::Stage::Two)), b.v1());
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u) {
        QCOMPARE(sceneB.nodeItem(u)->look().moved, moved.count(u) == 1);
        QCOMPARE(f.scene().nodeItem(u)->look().otherStage, UnitNodeItem::Stage::Unknown); // marks only
    }
    // Both views show the same part of the graph.
    f.workspace.view()->setZoom(2.0);
    QCOMPARE(f.workspace.comparisonView()->zoom(), 2.0);
}

void TestGraphScene::brokenFileKeepsTheGraph()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    {
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"bad\",\n \"units\": 7\n}\n");
    }
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("qwen_image")));
    QVERIFY(waitForGraph(f.workspace));
    UnitNodeItem *before = f.scene().nodeItem(0);
    QVERIFY(!f.workspace.banner()->isVisible());
    QVERIFY(!f.document.openFile(bad));
    // The old graph stays, untouched; the banner names the file, the line and the JSON path.
    QCOMPARE(f.scene().nodeItem(0), before);
    QVERIFY(!f.workspace.layouts()->isBusy());
    QVERIFY(f.workspace.banner()->isVisible());
    const QString text = f.workspace.banner()->text();
    QVERIFY2(text.contains(QStringLiteral("bad.json")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral(":4:")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("units")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("qwen_image")), qPrintable(text));
    QVERIFY(f.document.openExample(QStringLiteral("krea2")));
    QVERIFY(!f.workspace.banner()->isVisible());
}

void TestGraphScene::exportsWriteValidFiles()
{
    QTemporaryDir dir;
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("qwen_image")));
    f.document.setModelTrainable("vae", true);
    QVERIFY(waitForGraph(f.workspace));
    QString error;

    const QString png = dir.filePath(QStringLiteral("g.png"));
    QVERIFY2(GraphExporter::writePng(f.scene(), png, &error), qPrintable(error));
    QImage image;
    QVERIFY(image.load(png, "PNG"));
    QVERIFY(image.width() >= f.scene().graphRect().width() && image.height() >= f.scene().graphRect().height());
    // The picture has both stage colors in it.
    bool one = false, two = false;
    const QRgb stageOne = GraphStyle::standard().stageOne.rgb(), stageTwo = GraphStyle::standard().stageTwo.rgb();
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            const QRgb p = image.pixel(x, y);
            one = one || p == stageOne;
            two = two || p == stageTwo;
        }
    }
    QVERIFY(one && two);

    const QString svg = dir.filePath(QStringLiteral("g.svg"));
    QVERIFY2(GraphExporter::writeSvg(f.scene(), svg, &error), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QVERIFY(renderer.defaultSize().width() > 100);
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svgFile);
    QVERIFY(xml.readNextStartElement());
    QCOMPARE(xml.name(), QLatin1String("svg"));
    const QByteArray svgText = (svgFile.seek(0), svgFile.readAll());
    QVERIFY(svgText.contains(">PromptEmbedder<")); // vector text, not a picture of it
    QVERIFY(!svgText.contains("<image"));

    const QString dot = dir.filePath(QStringLiteral("g.dot"));
    QVERIFY2(GraphExporter::writeDot(f.document, dot, &error), qPrintable(error));
    QFile dotFile(dot);
    QVERIFY(dotFile.open(QIODevice::ReadOnly));
    const QByteArray dotText = dotFile.readAll();
    QVERIFY(dotText.startsWith("digraph"));
    QCOMPARE(dotText.toStdString(), splitToDot(f.document.graph(), *f.document.analysis()));

    const QString json = dir.filePath(QStringLiteral("split.json"));
    f.document.setCurrentUnit(f.document.graph().findUnit("QwenImageUnit_PromptEmbedder"));
    QVERIFY2(GraphExporter::writeSplitJson(f.document, json, &error), qPrintable(error));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(jsonFile.readAll(), &parse);
    QCOMPARE(parse.error, QJsonParseError::NoError);
    QCOMPARE(doc.object().value(QStringLiteral("format")).toString(), QStringLiteral("splitscope.split/1"));
    QCOMPARE(doc.object().value(QStringLiteral("explain")).toObject().value(QStringLiteral("unit")).toString(),
        QStringLiteral("QwenImageUnit_PromptEmbedder"));
    QCOMPARE(doc.object().value(QStringLiteral("v1")).toArray().size(),
        static_cast<qsizetype>(f.document.analysis()->split.trainedCount()));

    // A path that cannot be written gives an error naming it and writes nothing.
    const QString nowhere = dir.filePath(QStringLiteral("missing/dir/g.png"));
    QVERIFY(!GraphExporter::writePng(f.scene(), nowhere, &error));
    QVERIFY2(error.contains(QStringLiteral("missing/dir")), qPrintable(error));
    QVERIFY(!QFile::exists(nowhere));
}

void TestGraphScene::chainsOnDemand()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(f.workspace));
    QVERIFY(f.scene().chainLinks().empty());
    f.workspace.actions().chains->setChecked(true);
    const PipelineGraph &graph = f.document.graph();
    std::set<std::pair<UnitId, UnitId>> links;
    for (ParamId p = 0; p < graph.paramCount(); ++p) {
        const Span<UnitId> chain = graph.chain(p);
        for (std::size_t i = 1; i < chain.size(); ++i) {
            if (chain[i - 1] != chain[i])
                links.insert({chain[i - 1], chain[i]});
        }
    }
    QVERIFY(!links.empty());
    QCOMPARE(f.scene().chainLinks().size(), links.size());
    QVERIFY(f.scene().legendContext().chains);
    f.workspace.actions().chains->setChecked(false);
    QVERIFY(f.scene().chainLinks().empty());
}

void TestGraphScene::sideBySideLegendCoversNoUnit()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("qwen_image")));
    f.document.setComparison(SplitDocument::CompareKind::OtherMode);
    f.workspace.setSideBySide(true);
    QVERIFY(waitForGraph(f.workspace));
    QApplication::processEvents();
    GraphView *a = f.workspace.view();
    QVERIFY(f.workspace.comparisonView()->isVisible());
    const QRectF legend = a->legendRect();
    QVERIFY(!legend.isEmpty());
    // The legend fits its pane and hides no unit of A.
    QVERIFY2(QRectF(a->viewport()->rect()).contains(legend),
        qPrintable(QStringLiteral("legend %1 wide, pane %2").arg(legend.width()).arg(a->viewport()->width())));
    for (UnitId u = 0; u <= f.document.graph().lossId(); ++u) {
        const UnitNodeItem *node = f.scene().nodeItem(u);
        if (!node)
            continue;
        const QRectF box(a->mapFromScene(node->sceneBoundingRect()).boundingRect());
        QVERIFY2(!box.intersects(legend), f.document.graph().unitName(u).c_str());
    }
    // The same after fitting again (Ctrl+0 / F) and after B leads a move.
    a->zoomToFit();
    f.workspace.comparisonView()->zoomToFit();
    for (UnitId u = 0; u <= f.document.graph().lossId(); ++u) {
        if (const UnitNodeItem *node = f.scene().nodeItem(u))
            QVERIFY(!QRectF(a->mapFromScene(node->sceneBoundingRect()).boundingRect()).intersects(a->legendRect()));
    }
}

void TestGraphScene::smallPaneShowsTheGraphNotOnlyTheLegend()
{
    // At 1024x700 with the run monitor up, side by side, pane A was about 90 px high: the
    // fit kept room for a legend taller than the pane, and the pane showed the legend
    // only. Now a pane too small for both shows the graph, at a readable size.
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("tiny-qwen-image")));
    f.document.setComparison(SplitDocument::CompareKind::OtherMode);
    f.workspace.setSideBySide(true);
    QVERIFY(waitForGraph(f.workspace));
    GraphView *a = f.workspace.view();
    for (const QSize size : {QSize(620, 250), QSize(620, 190), QSize(400, 300), QSize(1200, 800)}) {
        f.workspace.resize(size);
        QApplication::processEvents();
        a->zoomToFit();
        const QRectF visible = QRectF(a->viewport()->rect());
        const QRectF legend = a->legendRect();
        int shown = 0;
        for (UnitId u = 0; u <= f.document.graph().lossId(); ++u) {
            const UnitNodeItem *node = f.scene().nodeItem(u);
            if (!node)
                continue;
            const QRectF box(a->mapFromScene(node->sceneBoundingRect()).boundingRect());
            const QString where = QStringLiteral("%1x%2, pane %3x%4: %5 at %6,%7 %8x%9, legend %10x%11")
                                      .arg(size.width()).arg(size.height())
                                      .arg(visible.width()).arg(visible.height())
                                      .arg(QString::fromStdString(f.document.graph().unitName(u)))
                                      .arg(box.x()).arg(box.y()).arg(box.width()).arg(box.height())
                                      .arg(legend.width()).arg(legend.height());
            // In view, not under the legend, and big enough to be seen as a box.
            const QRectF seen = box.intersected(visible);
            QVERIFY2(seen.width() * seen.height() >= 0.5 * box.width() * box.height(), qPrintable(where));
            QVERIFY2(!box.intersects(legend), qPrintable(where));
            QVERIFY2(box.width() >= 12 && box.height() >= 4, qPrintable(where));
            ++shown;
        }
        QVERIFY(shown >= 4);
        // The graph takes a fair share of the pane, not a speck beside the legend.
        const QRectF graph(a->mapFromScene(f.scene().graphRect()).boundingRect());
        QVERIFY2(graph.width() >= visible.width() / 3 || graph.height() >= visible.height() / 3,
            qPrintable(QStringLiteral("graph %1x%2 in %3x%4").arg(graph.width()).arg(graph.height())
                           .arg(visible.width()).arg(visible.height())));
    }
    // A large pane keeps its legend.
    QVERIFY(!a->legendRect().isEmpty());
}

void TestGraphScene::exportDrawsTheSplitNotTheSelection()
{
    // After a click every unit but the selected one is faded on screen; the PNG export
    // showed that fading, and side by side it showed pane A only while its legend listed
    // "moved between the two splits". An export draws the split: full-strength units, and
    // B's stage painted into the boxes (as the overlay does), which its legend explains.
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("qwen_image")));
    f.document.setComparison(SplitDocument::CompareKind::OtherMode);
    f.workspace.setSideBySide(true);
    QVERIFY(waitForGraph(f.workspace));
    SplitGraphScene &scene = f.scene();
    QVERIFY(scene.diffDisplay() != SplitGraphScene::DiffDisplay::Overlay);
    std::vector<QColor> plain;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u)
        plain.push_back(paintedFill(scene, u));
    const UnitId selected = 0;
    f.document.setCurrentUnit(selected);
    QApplication::processEvents();
    int faded = 0;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u)
        faded += paintedFill(scene, u) != plain[u];
    QVERIFY(faded > 0); // on screen the selection fades the other units

    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("g.png"));
    QString error;
    QVERIFY2(GraphExporter::writePng(scene, png, &error, 1.0), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    const QPointF origin = scene.graphRect().topLeft() - QPointF(16, 16); // the export's margin
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u) {
        UnitNodeItem *item = scene.nodeItem(u);
        const QRectF box = item->mapRectToScene(item->boxRect());
        const QPoint at = (QPointF(box.left() + 6, box.center().y()) - origin).toPoint();
        const QColor got = image.pixelColor(at);
        const QColor want = plain[u];
        const int diff = std::abs(got.red() - want.red()) + std::abs(got.green() - want.green())
            + std::abs(got.blue() - want.blue());
        QVERIFY2(diff <= 12, qPrintable(QStringLiteral("%1: exported %2, unselected %3")
                                             .arg(QString::fromStdString(f.document.graph().unitName(u)),
                                                 got.name(), want.name())));
    }
    // The screen is as it was: the selection, its fading, the marks of side by side.
    QCOMPARE(f.document.currentUnit(), selected);
    QVERIFY(scene.nodeItem(selected)->isSelected());
    int fadedAfter = 0;
    for (UnitId u = 0; u < f.document.graph().unitCount(); ++u)
        fadedAfter += paintedFill(scene, u) != plain[u];
    QCOMPARE(fadedAfter, faded);
    QVERIFY(scene.diffDisplay() != SplitGraphScene::DiffDisplay::Overlay);

    // The SVG's legend explains what is drawn: the moved units, and B in each box.
    const QString svg = dir.filePath(QStringLiteral("g.svg"));
    QVERIFY2(GraphExporter::writeSvg(scene, svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY(text.contains(QLatin1String("moved between the two splits")));
    QVERIFY(text.contains(QLatin1String("left: split A, right: split B")));
}

void TestGraphScene::longEdgeLabelIsShortenedAndFitted()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.json"));
    QVERIFY(writeLongNamesPipeline(path));
    Fixture f;
    QVERIFY(f.document.openSource(path));
    QVERIFY(waitForGraph(f.workspace));
    const ParamId param = f.document.graph().findParam(longParamName().toStdString());
    QVERIFY(param >= 0);
    const DataEdgeItem *edge = nullptr;
    for (QGraphicsItem *item : f.scene().items()) {
        if (item->type() == DataEdgeItem::Type && static_cast<DataEdgeItem *>(item)->carries(param))
            edge = static_cast<DataEdgeItem *>(item);
    }
    QVERIFY(edge);
    // Drawn shortened, in the middle: its start and end are still there.
    QCOMPARE(edge->labelLines().size(), 1);
    const QString line = edge->labelLines().front();
    QVERIFY2(line.contains(QChar(0x2026)) && line.startsWith(QStringLiteral("out_")), qPrintable(line));
    QVERIFY(line.size() < longParamName().size() / 2);
    QVERIFY(GraphStyle::standard().labelWidth(line) <= GraphStyle::standard().maxLabelWidth + 1);
    // Fitting frames everything drawn, the label included.
    QVERIFY(f.scene().graphRect().contains(edge->sceneBoundingRect()));
    f.workspace.view()->zoomToFit();
    const QRectF visible = f.workspace.view()->mapToScene(f.workspace.view()->viewport()->rect()).boundingRect();
    QVERIFY(visible.adjusted(-2, -2, 2, 2).contains(edge->sceneBoundingRect()));
}

void TestGraphScene::realUnitNamesAreShownWhole_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &name : exampleNames())
        QTest::newRow(qPrintable(name)) << name;
}

// The shipped pipelines' unit names are DiffSynth's: none is long enough to be elided
// ("QwenImageUnit_I…utImageEmbedder" in a 6-unit graph with plenty of room).
void TestGraphScene::realUnitNamesAreShownWhole()
{
    QFETCH(QString, name);
    Fixture f;
    QVERIFY(f.document.openExample(name));
    QVERIFY(waitForGraph(f.workspace));
    const PipelineGraph &graph = f.document.graph();
    for (UnitId u = 0; u <= graph.lossId(); ++u) {
        const UnitNodeItem *item = f.scene().nodeItem(u);
        QVERIFY(item);
        QVERIFY2(item->shownName() == item->name(), qPrintable(item->shownName()));
        QVERIFY2(QString::fromStdString(graph.unitName(u)).endsWith(item->name()), qPrintable(item->name()));
    }
}

// tiny-qwen-image: five QwenImageUnit_ units and one ZImageUnit_ unit. The boxes leave
// QwenImageUnit_ out (the info line says so); the ZImage unit keeps its whole name.
void TestGraphScene::familyPrefixIsLeftOutOfMostNames()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("tiny-qwen-image")));
    QVERIFY(waitForGraph(f.workspace));
    const PipelineGraph &graph = f.document.graph();
    QCOMPARE(GraphStyle::commonUnitPrefix(graph), QStringLiteral("QwenImageUnit_"));
    QCOMPARE(f.scene().nodeItem(graph.findUnit("QwenImageUnit_InputImageEmbedder"))->shownName(),
        QStringLiteral("InputImageEmbedder"));
    QCOMPARE(f.scene().nodeItem(graph.findUnit("ZImageUnit_EditImageAutoResize"))->shownName(),
        QStringLiteral("ZImageUnit_EditImageAutoResize"));
    QCOMPARE(f.scene().nodeItem(graph.lossId())->shownName(), QStringLiteral("FlowMatchSFTLoss"));
    QVERIFY(f.workspace.infoLabel()->toolTip().contains(QStringLiteral("names without QwenImageUnit_"))
        || plainTextOf(f.workspace.infoLabel()->text()).contains(QStringLiteral("names without QwenImageUnit_")));
    // Every unit sharing a prefix still drops it whole; a pipeline without a majority keeps every name.
    QVERIFY(f.document.openExample(QStringLiteral("qwen_image")));
    QCOMPARE(GraphStyle::commonUnitPrefix(f.document.graph()), QStringLiteral("QwenImageUnit_"));
    QVERIFY(f.document.openExample(QStringLiteral("counterexample_write_after_read")));
    QCOMPARE(GraphStyle::commonUnitPrefix(f.document.graph()), QString());
}


// Fitted into a 1280x800 window a 10-unit pipeline is drawn at about 0.4, where the
// name font is 5 px tall: the boxes were bare. Below the detail zoom each name is
// drawn alone, larger, where its box is tall enough on screen; at a zoom where the
// boxes are a few pixels tall, nothing is.
void TestGraphScene::namesStayLegibleWhenZoomedOut()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("ltx2_audio_video")));
    QVERIFY(waitForGraph(f.workspace));
    GraphView *view = f.workspace.view();
    const PipelineGraph &graph = f.document.graph();
    // Dark pixels inside each box, in from its border: the name's ink.
    const auto inkPerBox = [&](double zoom) {
        view->setZoom(zoom);
        std::vector<int> ink;
        for (UnitId u = 0; u <= graph.lossId(); ++u) {
            UnitNodeItem *item = f.scene().nodeItem(u);
            view->centerOn(item);
            const QImage image = view->viewport()->grab().toImage();
            const QRect box = view->mapFromScene(item->mapRectToScene(item->boxRect())).boundingRect().adjusted(3, 1, -3, -1);
            int dark = 0;
            for (int y = box.top(); y <= box.bottom(); ++y) {
                for (int x = box.left(); x <= box.right(); ++x)
                    dark += image.rect().contains(x, y) && qGray(image.pixel(x, y)) < 140;
            }
            ink.push_back(dark);
        }
        return ink;
    };
    // At 0.4 (about where 1280x800 fits it) every name; at 0.3 the names that fit whole
    // or with most of their letters, at least half of them ("Pipe…cker" is left out).
    for (const double zoom : {0.3, 0.4}) {
        const std::vector<int> ink = inkPerBox(zoom);
        int named = 0;
        for (UnitId u = 0; u <= graph.lossId(); ++u) {
            named += ink[u] >= 15 ? 1 : 0;
            QVERIFY2(zoom < 0.4 || ink[u] >= 15, qPrintable(QStringLiteral("zoom %1: %2 has %3 dark pixels")
                                                               .arg(zoom).arg(f.scene().nodeItem(u)->name()).arg(ink[u])));
        }
        QVERIFY2(2 * named >= graph.lossId() + 1, qPrintable(QStringLiteral("zoom %1: %2 named").arg(zoom).arg(named)));
    }
    const std::vector<int> tiny = inkPerBox(0.15);
    for (UnitId u = 0; u <= graph.lossId(); ++u)
        QVERIFY2(tiny[u] == 0, qPrintable(f.scene().nodeItem(u)->name()));
}

// At the safe closure's step the arc from a reader to the writer a safe rule pulls in
// was labelled with the param alone, and read as a data edge that does not exist.
void TestGraphScene::safeRuleArcsNameTheirRule()
{
    const auto causeLabels = [](SplitGraphScene &scene) {
        QStringList labels;
        for (QGraphicsItem *item : scene.items()) {
            if (item->type() == ChainLinkItem::Type && static_cast<ChainLinkItem *>(item)->kind() == ChainLinkItem::Kind::Cause)
                labels << static_cast<ChainLinkItem *>(item)->label();
        }
        return labels;
    };
    for (const auto &[example, label] : {std::pair{"counterexample_write_after_read", "R1: reads p"},
             std::pair{"counterexample_write_after_write", "R2: reads p"}}) {
        Fixture f;
        QVERIFY(f.document.openExample(QString::fromLatin1(example)));
        f.document.setSplitMode(SplitMode::Safe);
        QVERIFY(waitForGraph(f.workspace));
        f.cursor.setPosition(1); // S
        QCOMPARE(causeLabels(f.scene()), QStringList{QString::fromLatin1(label)});
    }
    // The arcs bow out to the right of their boxes: a fitted view frames them, label and
    // all (PromptEmbedder's arc, from the rightmost box, was cut off at the view's edge).
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("tiny-qwen-image")));
    f.document.setModelTrainable("text_encoder", true);
    f.document.setSplitMode(SplitMode::Safe);
    QVERIFY(waitForGraph(f.workspace));
    f.cursor.setPosition(1);
    QApplication::processEvents();
    GraphView *view = f.workspace.view();
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    int arcs = 0;
    for (QGraphicsItem *item : f.scene().items()) {
        if (item->type() == ChainLinkItem::Type) {
            ++arcs;
            QVERIFY2(visible.contains(item->sceneBoundingRect()), qPrintable(static_cast<ChainLinkItem *>(item)->label()));
        }
    }
    QCOMPARE(arcs, 1);
}

// In a large graph the stage-two units were lost among the cached ones. The stage filter
// shows stage two, the loss and the units they read from or feed, with the edges among
// those, and the fit frames them; off, everything is back. Far out, plain edges fade so
// that the boxes stand out.
void TestGraphScene::stageFilterShowsStageTwoAndItsNeighbours()
{
    Fixture f;
    QVERIFY(f.document.openExample(QStringLiteral("wan_video")));
    QVERIFY(waitForGraph(f.workspace));
    const PipelineGraph &graph = f.document.graph();
    const auto analysis = f.document.analysis();
    const QRectF whole = f.scene().graphRect();
    std::vector<char> expected(static_cast<std::size_t>(graph.lossId()) + 1, 0);
    expected[graph.lossId()] = 1;
    for (UnitId u = 0; u < graph.unitCount(); ++u)
        expected[u] = analysis->split.isTrained(u) ? 1 : 0;
    std::vector<char> core = expected;
    for (UnitId t = 0; t <= graph.lossId(); ++t) {
        for (const PipelineGraph::Edge &e : graph.inEdges(t)) {
            if (core[e.source] || core[t])
                expected[e.source] = expected[t] = 1;
        }
    }
    int hidden = 0;
    f.workspace.actions().stageTwoOnly->setChecked(true);
    QApplication::processEvents();
    for (UnitId u = 0; u <= graph.lossId(); ++u) {
        QCOMPARE(f.scene().nodeItem(u)->isVisible(), expected[u] != 0);
        hidden += expected[u] ? 0 : 1;
    }
    QVERIFY(hidden >= 5);
    for (UnitId t = 0; t <= graph.lossId(); ++t) {
        for (const PipelineGraph::Edge &e : graph.inEdges(t)) {
            if (const DataEdgeItem *edge = f.scene().edgeItem(e.source, t))
                QCOMPARE(edge->isVisible(), expected[e.source] && expected[t]);
        }
    }
    const QRectF filtered = f.scene().graphRect();
    QVERIFY2(filtered.width() * filtered.height() < whole.width() * whole.height(), "the fit frames what is shown");
    for (UnitId u = 0; u <= graph.lossId(); ++u) {
        if (expected[u])
            QVERIFY(filtered.contains(f.scene().nodeItem(u)->sceneBoundingRect()));
    }
    f.workspace.actions().stageTwoOnly->setChecked(false);
    QApplication::processEvents();
    for (UnitId u = 0; u <= graph.lossId(); ++u)
        QVERIFY(f.scene().nodeItem(u)->isVisible());
    QCOMPARE(f.scene().graphRect(), whole);
    QCOMPARE(DataEdgeItem::fadeAt(1.0), 1.0);
    QVERIFY(DataEdgeItem::fadeAt(0.35) < 1.0 && DataEdgeItem::fadeAt(0.35) > DataEdgeItem::fadeAt(0.1));
    QCOMPARE(DataEdgeItem::fadeAt(0.05), 0.3);
}

void TestGraphScene::everyHazardHasItsArcs_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("trained"); // a model made trainable, or empty
    QTest::newRow("write after read") << QStringLiteral("counterexample_write_after_read") << QString();
    QTest::newRow("write after write") << QStringLiteral("counterexample_write_after_write") << QString();
    QTest::newRow("tiny-qwen-image, text encoder trained") << QStringLiteral("tiny-qwen-image") << QStringLiteral("text_encoder");
}

// A write-after-read hazard showed two red boxes and no line between them: each hazard
// now has an arc from each producer (what the reader sees in one stage, and in two) to
// its reader, labelled with the param.
void TestGraphScene::everyHazardHasItsArcs()
{
    QFETCH(QString, example);
    QFETCH(QString, trained);
    Fixture f;
    QVERIFY(f.document.openExample(example));
    if (!trained.isEmpty())
        f.document.setModelTrainable(trained.toStdString(), true);
    QVERIFY(waitForGraph(f.workspace));
    const auto analysis = f.document.analysis();
    QVERIFY(analysis && !analysis->verification.hazards.empty());
    const PipelineGraph &graph = f.document.graph();
    const auto arcBetween = [&](UnitId producer, UnitId reader, const QString &label) {
        const QRectF from = f.scene().nodeItem(producer)->sceneBoundingRect();
        const QRectF to = f.scene().nodeItem(reader)->sceneBoundingRect();
        for (ChainLinkItem *link : f.scene().hazardLinks()) {
            const QRectF arc = link->sceneBoundingRect();
            if (link->label().startsWith(label) && arc.intersects(from) && arc.intersects(to))
                return true;
        }
        return false;
    };
    for (const Hazard &h : analysis->verification.hazards) {
        const QString param = QString::fromStdString(graph.paramName(h.param));
        if (h.expected != kNoUnit)
            QVERIFY2(arcBetween(h.expected, h.reader, "one-stage: "), qPrintable(param));
        if (h.actual != kNoUnit)
            QVERIFY2(arcBetween(h.actual, h.reader, "two-stage: "), qPrintable(param));
        bool named = false;
        for (ChainLinkItem *link : f.scene().hazardLinks())
            named = named || link->label().contains(param);
        QVERIFY2(named, qPrintable(param));
    }
    // In view when fitted, labels and all.
    QApplication::processEvents();
    GraphView *view = f.workspace.view();
    view->zoomToFit();
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    for (ChainLinkItem *link : f.scene().hazardLinks())
        QVERIFY2(visible.contains(link->sceneBoundingRect()), qPrintable(link->label()));
    // None while stepping: the step's own arcs explain it.
    f.cursor.setPosition(1);
    QVERIFY(f.scene().hazardLinks().empty());
}

QTEST_MAIN(TestGraphScene)
#include "tst_graphscene.moc"
