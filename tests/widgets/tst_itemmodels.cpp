// SPDX-License-Identifier: MIT
// Every item model of the app under QAbstractItemModelTester (failures reported as
// test failures) while the document goes through what a session does: opening
// examples, changing the training choice, selecting units, comparing, a failed
// load; plus what the models say against the core.
#include "WidgetTestSupport.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/models/DiagnosticsModel.h"
#include "widgets/models/FindingsModel.h"
#include "widgets/models/ModelChoiceModel.h"
#include "widgets/models/MovedUnitsModel.h"
#include "widgets/models/ParamTableModel.h"
#include "widgets/models/UnitPortsModel.h"
#include "widgets/panels/InspectorPanel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

using namespace splitscope;
using namespace splitscope::test;

namespace {

// Every model of the app over one document, each watched by a tester.
struct Models {
    explicit Models(SplitDocument *document)
        : choice(document), inputs(document, UnitPortsModel::Side::Inputs),
          outputs(document, UnitPortsModel::Side::Outputs), params(document), findings(document), moved(document),
          diagnostics(document)
    {
        for (QAbstractItemModel *m : all())
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                m, QAbstractItemModelTester::FailureReportingMode::QtTest));
    }
    std::vector<QAbstractItemModel *> all()
    {
        return {&choice, &inputs, &outputs, &params, &findings, &moved, &diagnostics};
    }
    ModelChoiceModel choice;
    UnitPortsModel inputs;
    UnitPortsModel outputs;
    ParamTableModel params;
    FindingsModel findings;
    MovedUnitsModel moved;
    DiagnosticsModel diagnostics;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
};

QString cell(const QAbstractItemModel &model, int row, int column, const QModelIndex &parent = {})
{
    return model.index(row, column, parent).data().toString();
}

} // namespace

class TestItemModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyModelPassesTheTesterThroughASession();
    void modelChoiceChecksWriteThrough();
    void unitPortsSayWhereValuesComeFrom();
    void paramTableMatchesTheCacheSet();
    void findingsListHazardsAndFrozenRandomness();
    void movedUnitsExplainTheDiff();
    void diagnosticsNameFileLineAndPath();
    void namesWithControlCharactersAreShownEscaped();
};

void TestItemModels::everyModelPassesTheTesterThroughASession()
{
    SplitDocument document;
    Models models(&document);
    for (const QString &name : exampleNames()) {
        QVERIFY(document.openExample(name));
        const auto modelNames = document.modelNames();
        for (const std::string &m : modelNames) {
            document.setModelTrainable(m, true);
            if (QTest::currentTestFailed())
                return;
        }
        document.setSplitMode(SplitMode::Safe);
        document.setComparison(SplitDocument::CompareKind::OtherMode);
        for (UnitId u = 0; u <= document.graph().lossId(); ++u)
            document.setCurrentUnit(u);
        document.setCurrentUnit(kNoUnit);
        document.setSplitMode(SplitMode::Seed);
        if (!modelNames.empty())
            document.setModelTrainable(modelNames.front(), false);
        document.setComparison(SplitDocument::CompareKind::None);
        if (QTest::currentTestFailed())
            return;
    }
    QVERIFY(!document.openSource(QStringLiteral("/nonexistent/pipeline.json")));
    QVERIFY(models.diagnostics.rowCount() > 0);
    QVERIFY(document.reload());
}

void TestItemModels::modelChoiceChecksWriteThrough()
{
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QCOMPARE(models.choice.rowCount(), static_cast<int>(document.modelNames().size()));
    const int vae = 2;
    QCOMPARE(models.choice.modelName(vae), std::string("vae"));
    const QModelIndex index = models.choice.index(vae, ModelChoiceModel::ModelColumn);
    QVERIFY(index.flags() & Qt::ItemIsUserCheckable);
    QCOMPARE(index.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(models.choice.setData(index, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(document.training().isTrainable("vae"));
    QCOMPARE(index.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    // "stage two / calls": every vae unit is now in stage two.
    int calls = 0;
    for (UnitId u = 0; u < document.graph().unitCount(); ++u) {
        for (const ModelId m : document.graph().unitModels(u))
            calls += document.graph().modelName(m) == "vae" ? 1 : 0;
    }
    QCOMPARE(cell(models.choice, vae, ModelChoiceModel::UnitsColumn), QStringLiteral("%1 / %1").arg(calls));
    QVERIFY(models.choice.setData(index, Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(!document.training().isTrainable("vae"));
    QVERIFY(!models.choice.setData(models.choice.index(0, ModelChoiceModel::UnitsColumn), Qt::Checked,
        Qt::CheckStateRole));
}

void TestItemModels::unitPortsSayWhereValuesComeFrom()
{
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    document.setModelTrainable("text_encoder", true);
    const PipelineGraph &graph = document.graph();
    const UnitId prompt = graph.findUnit("QwenImageUnit_PromptEmbedder");
    QVERIFY(document.analysis()->split.isTrained(prompt));
    document.setCurrentUnit(prompt);
    QCOMPARE(models.inputs.rowCount(), static_cast<int>(graph.inputs(prompt).size()));
    const auto cache = document.analysis()->cacheSet;
    for (int row = 0; row < models.inputs.rowCount(); ++row) {
        const ParamId p = graph.inputs(prompt)[row];
        QCOMPARE(cell(models.inputs, row, UnitPortsModel::ParamColumn), QString::fromStdString(graph.paramName(p)));
        const UnitId producer = graph.producerBefore(p, prompt);
        QCOMPARE(models.inputs.index(row, 0).data(UnitPortsModel::kPeerUnitRole).toInt(), producer);
        // "cache" exactly when the core's cache set says this reader reads it from the cache.
        bool fromCache = false;
        for (const CacheEntry &c : cache) {
            if (c.param == p)
                fromCache = std::find(c.readers.begin(), c.readers.end(), prompt) != c.readers.end();
        }
        QCOMPARE(cell(models.inputs, row, UnitPortsModel::SourceColumn).startsWith(QStringLiteral("cache")), fromCache);
    }
    // Outputs list each written param once, with its readers.
    std::set<ParamId> written(graph.outputs(prompt).begin(), graph.outputs(prompt).end());
    QCOMPARE(models.outputs.rowCount(), static_cast<int>(written.size()));
    QVERIFY(cell(models.outputs, 0, UnitPortsModel::PeerColumn).contains(QStringLiteral("the loss")));
    document.setCurrentUnit(kNoUnit);
    QCOMPARE(models.inputs.rowCount(), 0);
    QCOMPARE(models.outputs.rowCount(), 0);
}

void TestItemModels::paramTableMatchesTheCacheSet()
{
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    document.setModelTrainable("vae", true);
    const PipelineGraph &graph = document.graph();
    QCOMPARE(models.params.rowCount(), graph.paramCount());
    int cached = 0;
    for (int row = 0; row < models.params.rowCount(); ++row) {
        const ParamId p = models.params.index(row, 0).data(ParamTableModel::kParamIdRole).toInt();
        QCOMPARE(models.params.rowOf(p), row);
        if (cell(models.params, row, ParamTableModel::CacheColumn) != QStringLiteral("—"))
            ++cached;
        const QString chain = cell(models.params, row, ParamTableModel::ChainColumn);
        QCOMPARE(chain == QStringLiteral("external input"), graph.isExternalInput(p));
        if (!graph.isExternalInput(p))
            QCOMPARE(chain.count(QStringLiteral(" → ")) + 1, static_cast<int>(graph.chain(p).size()));
    }
    QCOMPARE(cached, static_cast<int>(document.analysis()->cacheSet.size()));
    // Sorted by name, as the core's cache set.
    for (int row = 1; row < models.params.rowCount(); ++row)
        QVERIFY(cell(models.params, row - 1, 0) < cell(models.params, row, 0));
}

void TestItemModels::findingsListHazardsAndFrozenRandomness()
{
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_write")));
    const auto &v = document.analysis()->verification;
    QCOMPARE(models.findings.rowCount(), static_cast<int>(v.hazards.size() + v.violations.size() + v.frozenRandomness.size()));
    QVERIFY(models.findings.hazardCount() > 0);
    const QModelIndex first = models.findings.index(0, FindingsModel::KindColumn);
    QCOMPARE(first.data(FindingsModel::kKindRole).toInt(), int(FindingsModel::Kind::Hazard));
    QCOMPARE(first.data().toString(), QString::fromLatin1(hazardKindName(v.hazards[0].kind)));
    QCOMPARE(first.data(FindingsModel::kUnitRole).toInt(), v.hazards[0].reader);
    document.setSplitMode(SplitMode::Safe);
    QCOMPARE(models.findings.hazardCount(), 0);
    // qwen_image's noise initializer is stochastic and cached by default.
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QCOMPARE(models.findings.frozenCount(), 1);
    const QModelIndex frozen = models.findings.index(models.findings.rowCount() - 1, FindingsModel::UnitColumn);
    // Without the prefix all units share (as in the graph), so that the part that differs is
    // not elided away ("QwenIma…Control"); the tooltip has the full name.
    QCOMPARE(frozen.data().toString(), QStringLiteral("NoiseInitializer"));
    QVERIFY(frozen.data(Qt::ToolTipRole).toString().contains(QLatin1String("QwenImageUnit_NoiseInitializer")));
}

void TestItemModels::movedUnitsExplainTheDiff()
{
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    QCOMPARE(models.moved.rowCount(), 0);
    document.setComparison(SplitDocument::CompareKind::OtherMode);
    const auto diff = document.diff();
    QCOMPARE(models.moved.rowCount(), static_cast<int>(diff->moved.size()));
    for (int row = 0; row < models.moved.rowCount(); ++row) {
        const MovedUnit &m = diff->moved[row];
        const QModelIndex top = models.moved.index(row, 0);
        QCOMPARE(top.data(MovedUnitsModel::kUnitRole).toInt(), m.unit);
        QCOMPARE(top.data().toString(), QString::fromStdString(document.graph().unitName(m.unit)));
        QCOMPARE(cell(models.moved, row, MovedUnitsModel::StageBColumn),
            m.trainedInB ? QStringLiteral("stage two") : QStringLiteral("stage one"));
        QCOMPARE(models.moved.rowCount(top), static_cast<int>(m.why.size()));
        QCOMPARE(models.moved.index(0, 0, top).data().toString(), QString::fromStdString(m.why.front()));
        QCOMPARE(models.moved.parent(models.moved.index(0, 0, top)), top);
        QCOMPARE(models.moved.rowOfUnit(m.unit), row);
    }
}

void TestItemModels::diagnosticsNameFileLineAndPath()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("warn.json"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"w\",\n \"units\": [\n"
                   "  {\"name\": \"A\", \"input_params\": \"noise\", \"output_params\": [\"x\"]}\n ]\n}\n");
    }
    SplitDocument document;
    Models models(&document);
    QVERIFY(document.openFile(path)); // loads, with a string-as-list warning
    int warning = -1;
    for (int row = 0; row < models.diagnostics.rowCount(); ++row) {
        if (cell(models.diagnostics, row, DiagnosticsModel::SeverityColumn) == QStringLiteral("warning"))
            warning = row;
    }
    QVERIFY(warning >= 0);
    QCOMPARE(cell(models.diagnostics, warning, DiagnosticsModel::LocationColumn).section(QLatin1Char(':'), 0, 1),
        QStringLiteral("warn.json:5"));
    QCOMPARE(cell(models.diagnostics, warning, DiagnosticsModel::PathColumn), QStringLiteral("units[0].input_params"));
}

// A name holding a control character (a newline, NUL, tab) is shown escaped, as the
// command line's reports print it, in every table and in the Inspector; the model
// choice still works on the name itself.
void TestItemModels::namesWithControlCharactersAreShownEscaped()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("control.json"));
    QVERIFY(writeControlCharacterPipeline(path));
    SplitDocument document;
    Models models(&document);
    InspectorPanel inspector(&document);
    QVERIFY(document.openFile(path));
    const PipelineGraph &graph = document.graph();
    const UnitId a = graph.findUnit("A\nB");
    QVERIFY(a != kNoUnit);
    QVERIFY(document.training().isTrainable("m\tx"));
    QVERIFY(document.analysis()->split.isTrained(a)); // the raw model name still drives the split

    // No cell of any table shows a raw control character, and the names appear escaped.
    const auto controlFree = [](const QString &text) {
        return std::none_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
    };
    QStringList shown;
    const std::function<void(QAbstractItemModel *, const QModelIndex &)> visit = [&](QAbstractItemModel *m,
                                                                                  const QModelIndex &parent) {
        for (int row = 0; row < m->rowCount(parent); ++row) {
            for (int column = 0; column < m->columnCount(parent); ++column) {
                const QModelIndex index = m->index(row, column, parent);
                for (const int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
                    const QString text = index.data(role).toString();
                    QVERIFY2(controlFree(text), qPrintable(text.toUtf8().toPercentEncoding()));
                    shown << text;
                }
                if (column == 0)
                    visit(m, index);
            }
        }
    };
    for (const UnitId unit : {a, graph.findUnit("C")}) {
        document.setCurrentUnit(unit);
        for (QAbstractItemModel *m : models.all())
            visit(m, QModelIndex());
        // (Its text has line breaks of its own; the raw names must not be in it.)
        for (const QString &text : {inspector.headerText(), inspector.reasonText()}) {
            for (const char *raw : {"A\nB", "m\tx"})
                QVERIFY2(!text.contains(QString::fromUtf8(raw)), qPrintable(text));
        }
    }
    const QString all = shown.join(QLatin1Char('|'));
    QVERIFY2(all.contains(QStringLiteral("A\\nB")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("x\\u0000y")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("m\\tx")), qPrintable(all));
    document.setCurrentUnit(a);
    QVERIFY2(inspector.headerText().contains(QStringLiteral("A\\nB")), qPrintable(inspector.headerText()));
    QVERIFY2(inspector.headerText().contains(QStringLiteral("m\\tx")), qPrintable(inspector.headerText()));
    QVERIFY2(inspector.reasonText().contains(QStringLiteral("A\\nB")), qPrintable(inspector.reasonText()));
}

QTEST_MAIN(TestItemModels)
#include "tst_itemmodels.moc"
