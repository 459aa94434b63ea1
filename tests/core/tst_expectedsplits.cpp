// SPDX-License-Identifier: MIT
// Every case in resources/examples/expected/: X0, per-iteration F and U additions,
// V1, V2, the safe split and the seed split's hazards, all exact.
#include "PseudocodeOracle.h"

#include "core/PipelineFile.h"
#include "core/SplitReport.h"

#include <QDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace splitscope;

namespace {

QStringList names(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    QStringList out;
    for (const UnitId u : units)
        out << QString::fromStdString(graph.unitName(u));
    return out;
}

QStringList names(const nlohmann::json &list)
{
    QStringList out;
    for (const auto &s : list)
        out << QString::fromStdString(s.get<std::string>());
    return out;
}

struct Case {
    std::string pipelineFile;
    nlohmann::json expected;
};

} // namespace

class TestExpectedSplits : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCase_data();
    void everyCase();
    void allExamplesCovered();
};

void TestExpectedSplits::everyCase_data()
{
    QTest::addColumn<QString>("pipelineFile");
    QTest::addColumn<QByteArray>("caseJson");
    const QDir dir(QStringLiteral(SPLITSCOPE_EXAMPLES_DIR "/expected"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 10);
    for (const QString &file : files) {
        std::ifstream in(dir.filePath(file).toStdString());
        const nlohmann::json doc = nlohmann::json::parse(in);
        int index = 0;
        for (const auto &c : doc.at("cases")) {
            const std::string config = c.at("config").get<std::string>();
            QTest::addRow("%s/%d:%s", qPrintable(file), index++, config.c_str())
                << QStringLiteral(SPLITSCOPE_EXAMPLES_DIR "/") + file << QByteArray::fromStdString(c.dump());
        }
    }
}

void TestExpectedSplits::everyCase()
{
    QFETCH(QString, pipelineFile);
    QFETCH(QByteArray, caseJson);
    const nlohmann::json c = nlohmann::json::parse(caseJson.toStdString());
    const LoadResult loaded = loadPipelineFile(pipelineFile.toStdString());
    QVERIFY2(loaded.ok(), qPrintable(pipelineFile));
    const PipelineGraph graph(*loaded.pipeline);
    const auto models = c.at("models_require_backward").get<std::vector<std::string>>();

    const Split seed = computeSeedSplit(graph, models);
    const auto &es = c.at("seed");
    QCOMPARE(names(graph, seed.x0), names(es.at("X0")));
    QCOMPARE(seed.iterations.size(), es.at("iterations").size());
    for (std::size_t i = 0; i < seed.iterations.size(); ++i) {
        QCOMPARE(names(graph, seed.iterations[i].forward), names(es.at("iterations")[i].at("F")));
        QCOMPARE(names(graph, seed.iterations[i].update), names(es.at("iterations")[i].at("U")));
    }
    QCOMPARE(names(graph, seed.v1()), names(es.at("V1")));
    QCOMPARE(names(graph, seed.v2()), names(es.at("V2")));

    const Split safe = computeSafeSplit(graph, models);
    QCOMPARE(names(graph, safe.v1()), names(c.at("safe").at("V1")));
    QCOMPARE(names(graph, safe.v2()), names(c.at("safe").at("V2")));

    const Verification v = verifySplit(graph, seed);
    QVERIFY(v.satisfiesConditions());
    const auto &expectedHazards = c.at("hazards_in_seed_split");
    QCOMPARE(v.hazards.size(), expectedHazards.size());
    QVERIFY(verifySplit(graph, safe).hazardFree());

    // The literal pseudocode agrees too (a second, independent check of the file).
    const oracle::Result o = oracle::splitPipelineUnits(*loaded.pipeline, models);
    QCOMPARE(std::vector<UnitId>(o.v1.begin(), o.v1.end()), seed.v1());
}

void TestExpectedSplits::allExamplesCovered()
{
    // Every shipped real pipeline has expected results (the counterexamples are hand-made).
    const QDir dir(QStringLiteral(SPLITSCOPE_EXAMPLES_DIR));
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
        if (file.startsWith(QLatin1String("counterexample_")))
            continue;
        QVERIFY2(QFile::exists(dir.filePath(QStringLiteral("expected/") + file)), qPrintable(file));
    }
}

QTEST_GUILESS_MAIN(TestExpectedSplits)
#include "tst_expectedsplits.moc"
