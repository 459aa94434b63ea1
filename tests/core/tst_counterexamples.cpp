// SPDX-License-Identifier: MIT
// The counterexamples of DESIGN.md §1.1, and two facts about the seed algorithm that
// the feature document gets wrong (its operator T is not monotone, and "minimal"
// holds only in a qualified sense), each pinned by a small pipeline.
#include "core/PipelineFile.h"
#include "core/SplitReport.h"
#include "resources/Examples.h"

#include <QTest>

using namespace splitscope;

namespace {

Unit unit(const std::string &name, std::vector<std::string> in, std::vector<std::string> out,
    std::vector<std::string> models = {})
{
    Unit u;
    u.name = name;
    u.inputParams = std::move(in);
    u.outputParams = std::move(out);
    if (!models.empty())
        u.onloadModelNames = std::move(models);
    return u;
}

Pipeline pipeline(std::vector<Unit> units, std::optional<std::vector<std::string>> lossInputs)
{
    Pipeline p;
    p.name = "test";
    p.models = {ModelSpec{"dit", {}, {}, false, {}}, ModelSpec{"m", {}, {}, false, {}}};
    p.units = std::move(units);
    LossSpec loss;
    loss.name = "Loss";
    loss.inputParams = std::move(lossInputs);
    p.loss = loss;
    return p;
}

QStringList names(const PipelineGraph &g, const std::vector<UnitId> &units)
{
    QStringList out;
    for (const UnitId u : units)
        out << QString::fromStdString(g.unitName(u));
    return out;
}

Pipeline example(const std::string &name)
{
    const BuiltinExample *e = findBuiltinExample(name);
    if (!e)
        return {};
    return *parsePipeline(e->json, name).pipeline;
}

} // namespace

class TestCounterexamples : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writeAfterRead();
    void writeAfterWriteAtTheLoss();
    void writeAfterWriteAtAUnit();
    void updateOperatorIsNotMonotone();
    void smallerSetThroughFirstConsumerLoophole();
};

void TestCounterexamples::writeAfterRead()
{
    // A: x->p, C[dit]: p->y, B: p->p (DESIGN.md 1.1), shipped as an example.
    const Pipeline p = example("counterexample_write_after_read");
    QCOMPARE(p.units.size(), std::size_t(3));
    const PipelineGraph g(p);
    const SplitAnalysis seed = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    QCOMPARE(names(g, seed.split.v1()), QStringList({"C"}));
    QCOMPARE(names(g, seed.split.v2()), QStringList({"A", "B"}));
    QVERIFY(seed.verification.satisfiesConditions()); // C1 and C2 hold, yet...
    QCOMPARE(seed.verification.hazards.size(), std::size_t(1));
    const Hazard &h = seed.verification.hazards.front();
    QCOMPARE(h.kind, HazardKind::WriteAfterRead);
    QCOMPARE(h.mechanism, HazardKind::WriteAfterRead);
    QCOMPARE(g.unitName(h.reader), std::string("C"));
    QCOMPARE(g.paramName(h.param), std::string("p"));
    QCOMPARE(g.unitName(h.expected), std::string("A"));
    QCOMPARE(g.unitName(h.actual), std::string("B"));
    // The cache hands C the value B wrote.
    QCOMPARE(seed.cacheSet.size(), std::size_t(1));
    QCOMPARE(g.unitName(seed.cacheSet.front().producer), std::string("B"));

    const SplitAnalysis safe = analyzeSplit(g, {"dit"}, SplitMode::Safe);
    QCOMPARE(names(g, safe.split.v1()), QStringList({"C", "B"}));
    QVERIFY(safe.verification.hazardFree());
    QCOMPARE(safe.split.reasons[g.findUnit("B")].rule, Reason::Rule::LaterProducer);
    QCOMPARE(g.unitName(safe.cacheSet.front().producer), std::string("A"));
}

void TestCounterexamples::writeAfterWriteAtTheLoss()
{
    // A[dit]: x->p, B: z->p, the loss reads p: stage two leaves A's p where the loss expects B's.
    const Pipeline p = example("counterexample_write_after_write");
    const PipelineGraph g(p);
    const SplitAnalysis seed = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    QCOMPARE(names(g, seed.split.v1()), QStringList({"A"}));
    QCOMPARE(seed.verification.hazards.size(), std::size_t(1));
    const Hazard &h = seed.verification.hazards.front();
    QCOMPARE(h.kind, HazardKind::LossRead);
    QCOMPARE(h.mechanism, HazardKind::WriteAfterWrite);
    QCOMPARE(h.reader, g.lossId());
    QCOMPARE(g.unitName(h.expected), std::string("B"));
    QCOMPARE(g.unitName(h.actual), std::string("A"));

    const SplitAnalysis safe = analyzeSplit(g, {"dit"}, SplitMode::Safe);
    QCOMPARE(names(g, safe.split.v1()), QStringList({"A", "B"}));
    QCOMPARE(safe.split.reasons[g.findUnit("B")].rule, Reason::Rule::ReachingDefinition);
    QVERIFY(safe.verification.hazardFree());
}

void TestCounterexamples::writeAfterWriteAtAUnit()
{
    // A[dit]: ->p, B: ->p, C[dit]: p->y. C's producer is B (stage one), but stage two's A
    // writes p after the cache is loaded, so C reads A's p.
    const Pipeline p = pipeline({unit("A", {"x"}, {"p"}, {"dit"}), unit("B", {"z"}, {"p"}),
                                    unit("C", {"p"}, {"y"}, {"dit"})},
        std::vector<std::string>{"y"});
    const PipelineGraph g(p);
    const SplitAnalysis seed = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    QCOMPARE(names(g, seed.split.v1()), QStringList({"A", "C"}));
    QCOMPARE(seed.verification.hazards.size(), std::size_t(1));
    QCOMPARE(seed.verification.hazards.front().kind, HazardKind::WriteAfterWrite);
    QCOMPARE(g.unitName(seed.verification.hazards.front().reader), std::string("C"));
    const SplitAnalysis safe = analyzeSplit(g, {"dit"}, SplitMode::Safe);
    QCOMPARE(names(g, safe.split.v1()), QStringList({"A", "B", "C"}));
    QVERIFY(safe.verification.hazardFree());
}

void TestCounterexamples::updateOperatorIsNotMonotone()
{
    // The feature document's Proposition 1 says T(X) = X ∪ F(X) ∪ U(X) is monotone. It is
    // not: U looks only at the FIRST consumer of each param inside X, and a larger X can
    // have an earlier first consumer that does not rewrite the param.
    //   a[m]: q -> q      g: p -> q      f[m]: p -> p      l: -> p
    const Pipeline p = pipeline({unit("a", {"q"}, {"q"}, {"m"}), unit("g", {"p"}, {"q"}),
                                    unit("f", {"p"}, {"p"}, {"m"}), unit("l", {}, {"p"})},
        std::vector<std::string>{});
    const PipelineGraph g(p);
    const Split seed = computeSeedSplit(g, {"m"});
    // Iteration 1: first consumers are a (of q) and f (of p), both rewriters: g and l join.
    QCOMPARE(names(g, seed.x0), QStringList({"a", "f"}));
    QCOMPARE(names(g, seed.iterations.at(0).update), QStringList({"g", "l"}));
    QCOMPARE(names(g, seed.v1()), QStringList({"a", "g", "f", "l"}));
    // {a, g, f} ⊃ {a, f} but U({a, g, f}) no longer contains l (g, which does not rewrite p,
    // is now p's first consumer), so T({a,f}) ⊄ T({a,g,f}): T is not monotone, and
    // {a, g, f} satisfies C1 and C2 while being a proper subset of the seed split.
    const Verification v = verifySplit(g, givenSplit(g, {"a", "g", "f"}));
    QVERIFY(v.satisfiesConditions());
    // ...and as a training split it is wrong: stage two's g and f would read l's p from the cache.
    QCOMPARE(v.hazards.size(), std::size_t(2));
    for (const Hazard &h : v.hazards) {
        QCOMPARE(h.kind, HazardKind::WriteAfterRead);
        QCOMPARE(h.expected, kNoUnit);
        QCOMPARE(g.unitName(h.actual), std::string("l"));
    }
}

void TestCounterexamples::smallerSetThroughFirstConsumerLoophole()
{
    // Found by the brute-force property test: a set with fewer units than the seed split
    // that satisfies C1 and C2, because it contains an earlier non-rewriting reader.
    //   u0: ->    u1: p0,p2,p3 ->    u2[m]: p2 -> p0,p2    u3: ->    u4: p3 -> p2    u5: p2 -> p2
    const Pipeline p = pipeline({unit("u0", {}, {}), unit("u1", {"p0", "p2", "p3"}, {}),
                                    unit("u2", {"p2"}, {"p0", "p2"}, {"m"}), unit("u3", {}, {}),
                                    unit("u4", {"p3"}, {"p2"}), unit("u5", {"p2"}, {"p2"})},
        std::vector<std::string>{"p0", "p2"});
    const PipelineGraph g(p);
    const Split seed = computeSeedSplit(g, {"m"});
    QCOMPARE(names(g, seed.v1()), QStringList({"u2", "u4", "u5"}));
    const Verification smaller = verifySplit(g, givenSplit(g, {"u1", "u2"}));
    QVERIFY(smaller.satisfiesConditions());
    // The smaller set is not a valid split for training: the loss would read u2's p2
    // instead of u5's. The safe split, which has no such loophole, includes u4 and u5.
    QVERIFY(!smaller.hazardFree());
    const Split safe = computeSafeSplit(g, {"m"});
    QVERIFY(safe.isTrained(g.findUnit("u4")) && safe.isTrained(g.findUnit("u5")));
}

QTEST_GUILESS_MAIN(TestCounterexamples)
#include "tst_counterexamples.moc"
