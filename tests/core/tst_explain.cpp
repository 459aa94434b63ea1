// SPDX-License-Identifier: MIT
// Explanations: the chain of reasons from X0 to a unit, why a unit stays in stage
// one, the stepper's sentences, and the diff of two splits.
#include "core/Explain.h"
#include "core/PipelineFile.h"
#include "support/RandomPipeline.h"
#include "core/SplitReport.h"
#include "resources/Examples.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace splitscope;

namespace {

Pipeline example(const std::string &name)
{
    return *parsePipeline(findBuiltinExample(name)->json, name).pipeline;
}

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

QStringList toQt(const std::vector<std::string> &lines)
{
    QStringList out;
    for (const auto &l : lines)
        out << QString::fromStdString(l);
    return out;
}

} // namespace

class TestExplain : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void forwardChainOnARealPipeline();
    void updateChainOnARealPipeline();
    void updateSentence();
    void whyStageOne();
    void safeRules();
    void stepSentences();
    void diffSeedAgainstSafe();
    void diffTwoConfigurations();
    void stageOneValueShadowed();
    void stageOneValueTheLossShouldSee();
    void stageOneOutputListedTwice();
    void updateChainsInJson();
    void longUpdateChainShortened();
    void givenPartitionBreakingX0();
    void givenPartitionBreakingC1();
    void givenPartitionBreakingC2();
    void hazardAtAStageTwoRead();
    void randomExplanations();
    void namesWithControlCharacters();
    void stochasticUnitsInStageOne();
};

void TestExplain::forwardChainOnARealPipeline()
{
    // Training the VAE: PromptEmbedder reads edit_image, which EditImageEmbedder (VAE) rewrites.
    const Pipeline p = example("qwen_image");
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"vae"});
    const UnitId prompt = g.findUnit("QwenImageUnit_PromptEmbedder");
    const Explanation e = explainUnit(g, s, prompt);
    QVERIFY(e.trained);
    QCOMPARE(e.path, (std::vector<UnitId>{g.findUnit("QwenImageUnit_EditImageEmbedder"), prompt}));
    QCOMPARE(toQt(e.lines), QStringList({
        "QwenImageUnit_PromptEmbedder runs in stage two (at every training step). Chain of reasons:",
        "1. X0: QwenImageUnit_EditImageEmbedder calls vae, which needs gradients, so it runs in stage two.",
        "2. F1: QwenImageUnit_PromptEmbedder reads edit_image from QwenImageUnit_EditImageEmbedder, which runs in stage "
        "two, so it must run in stage two too.",
    }));
}

void TestExplain::updateChainOnARealPipeline()
{
    const Pipeline p = example("wan_video");
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"vae"});
    const UnitId clip = g.findUnit("WanVideoUnit_Animate2CLIPEmbedder");
    QCOMPARE(s.reasons[clip].rule, Reason::Rule::Update);
    const Explanation e = explainUnit(g, s, clip);
    // Every step's cause is the previous step's unit, and the chain starts in X0.
    QCOMPARE(s.reasons[e.path.front()].rule, Reason::Rule::Model);
    for (std::size_t i = 1; i < e.path.size(); ++i)
        QCOMPARE(s.reasons[e.path[i]].cause, e.path[i - 1]);
    QVERIFY(e.lines.back().find("U1: ") != std::string::npos);
}

void TestExplain::updateSentence()
{
    Pipeline p;
    p.name = "t";
    p.units = {unit("PromptEmbedder", {"prompt", "prompt_emb"}, {"prompt_emb"}, {"text_encoder"}),
        unit("LoRAEncode", {"lora"}, {"prompt_emb"})};
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"text_encoder"});
    QCOMPARE(describeReason(g, s, g.findUnit("LoRAEncode")),
        std::string("U1: prompt_emb is first read inside X by PromptEmbedder, which rewrites it, so its later rewriter "
                    "LoRAEncode must also run in stage two (update chain of prompt_emb: PromptEmbedder, LoRAEncode)."));
}

void TestExplain::whyStageOne()
{
    const Pipeline p = example("qwen_image");
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"dit"});
    const Explanation e = explainUnit(g, s, g.findUnit("QwenImageUnit_InputImageEmbedder"));
    QVERIFY(!e.trained);
    QVERIFY(e.path.empty());
    const QStringList lines = toQt(e.lines);
    QCOMPARE(lines.front(), QString("QwenImageUnit_InputImageEmbedder runs in stage one (computed once and cached), because:"));
    QVERIFY(lines.contains("- it calls vae, which does not need gradients (only dit does), so it is not in X0;"));
    QVERIFY(lines.filter("- no input comes from stage two: ").size() == 1);
    QVERIFY(lines.filter("noise from QwenImageUnit_NoiseInitializer (stage one)").size() == 1);
    QVERIFY(lines.contains("- it writes latents, which no stage-two unit reads; the loss (FlowMatchSFTLoss) reads this "
                           "value from the cache."));
}

void TestExplain::safeRules()
{
    const Pipeline p = example("counterexample_write_after_read");
    const PipelineGraph g(p);
    const Split s = computeSafeSplit(g, {"dit"});
    const Explanation e = explainUnit(g, s, g.findUnit("B"));
    QCOMPARE(e.path, (std::vector<UnitId>{g.findUnit("C"), g.findUnit("B")}));
    QVERIFY(e.lines.back().rfind("2. R1: C reads p in stage two and B writes it afterwards", 0) == 0);

    const Pipeline w = example("counterexample_write_after_write");
    const PipelineGraph gw(w);
    const Split sw = computeSafeSplit(gw, {"dit"});
    // R2 at the loss: the loss needs no reason, so the chain goes on at A, the other
    // stage-two writer of p, and starts in X0.
    const Explanation ew = explainUnit(gw, sw, gw.findUnit("B"));
    QCOMPARE(ew.path, (std::vector<UnitId>{gw.findUnit("A"), gw.findUnit("B")}));
    QCOMPARE(sw.reasons[ew.path.front()].rule, Reason::Rule::Model);
    QVERIFY(ew.lines.back().find("R2: the loss (Loss) reads p in stage two, where A also writes it") != std::string::npos);
}

void TestExplain::stepSentences()
{
    const Pipeline p = example("wan_video");
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"image_encoder"});
    const auto steps = traceSteps(s);
    QCOMPARE(steps.size(), 1 + 2 * s.iterations.size());
    QCOMPARE(steps[0].label(), std::string("X0"));
    QCOMPARE(steps[1].label(), std::string("F1"));
    QCOMPARE(steps[2].label(), std::string("U1"));
    const auto lines = describeStep(g, s, steps[2]);
    QCOMPARE(lines.size(), 1 + steps[2].added.size());
    QVERIFY(lines[0].rfind("U1: for each param", 0) == 0);
    for (std::size_t i = 0; i < steps[2].added.size(); ++i)
        QCOMPARE(lines[i + 1], describeReason(g, s, steps[2].added[i]));
    // The last step adds nothing and says so.
    QCOMPARE(describeStep(g, s, steps.back()).back(), std::string("Nothing new joins X at this step."));
}

void TestExplain::diffSeedAgainstSafe()
{
    const Pipeline p = example("counterexample_write_after_read");
    const PipelineGraph g(p);
    const SplitDiff d = diffSplits(g, computeSeedSplit(g, {"dit"}), computeSafeSplit(g, {"dit"}));
    QCOMPARE(d.moved.size(), std::size_t(1));
    QCOMPARE(g.unitName(d.moved[0].unit), std::string("B"));
    QVERIFY(d.moved[0].trainedInB);
    QCOMPARE(d.sameTrained, std::size_t(1));
    QCOMPARE(d.sameCached, std::size_t(1));
    const QStringList why = toQt(d.moved[0].why);
    QVERIFY(why.filter("R1: C reads p").size() == 1);
    QVERIFY(why.filter("In the other split (seed, dit) it stays in stage one:").size() == 1);
}

void TestExplain::diffTwoConfigurations()
{
    const Pipeline p = example("qwen_image");
    const PipelineGraph g(p);
    const SplitDiff d = diffSplits(g, computeSeedSplit(g, {"text_encoder"}), computeSeedSplit(g, {"vae"}));
    QStringList moved;
    for (const MovedUnit &m : d.moved)
        moved << QString::fromStdString(g.unitName(m.unit)) + (m.trainedInB ? "+" : "-");
    QCOMPARE(moved, QStringList({"QwenImageUnit_InputImageEmbedder+", "QwenImageUnit_EditImageEmbedder+",
                        "QwenImageUnit_LayerInputImageEmbedder+", "QwenImageUnit_ContextImageEmbedder+",
                        "QwenImageUnit_EntityControl-", "QwenImageUnit_BlockwiseControlNet+"}));
    QVERIFY(!d.identical());
    QVERIFY(diffSplits(g, computeSeedSplit(g, {"dit"}), computeSafeSplit(g, {"dit"})).identical());
}


void TestExplain::stageOneValueShadowed()
{
    // A and B both write p in stage one; the cache holds B's value, so A's reaches nobody.
    Pipeline p;
    p.name = "shadow";
    p.units = {unit("A", {"x"}, {"p"}), unit("B", {"z"}, {"p"}), unit("C", {"p"}, {"y"}, {"dit"})};
    p.loss = LossSpec{"L", std::vector<std::string>{"y"}, false, {}, std::nullopt, std::nullopt};
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"dit"});
    QCOMPARE(toQt(explainUnit(g, s, g.findUnit("A")).lines).last(),
        QString("- it writes p before C, the first stage-two unit to read it; B writes p again later in stage one and "
                "replaces this value."));
    QCOMPARE(toQt(explainUnit(g, s, g.findUnit("B")).lines).last(),
        QString("- it writes p before C, the first stage-two unit to read it; C reads this value from the cache."));
}

void TestExplain::stageOneValueTheLossShouldSee()
{
    // A (stage two) and B (stage one) write p; the loss should see B's value but sees A's.
    Pipeline p;
    p.name = "lossr";
    p.units = {unit("A", {"x"}, {"p"}, {"dit"}), unit("B", {"z"}, {"p"})};
    p.loss = LossSpec{"L", std::vector<std::string>{"p"}, false, {}, std::nullopt, std::nullopt};
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"dit"});
    QCOMPARE(toQt(explainUnit(g, s, g.findUnit("B")).lines).last(),
        QString("- it writes p, which no stage-two unit reads; the loss (L) should see this value but sees A's in "
                "two-stage training: a hazard, see the verifier."));
    // The verifier reports exactly that read.
    const Verification v = verifySplit(g, s);
    QCOMPARE(v.hazards.size(), std::size_t(1));
    QCOMPARE(v.hazards[0].expected, g.findUnit("B"));
    QCOMPARE(v.hazards[0].actual, g.findUnit("A"));
}

void TestExplain::stageOneOutputListedTwice()
{
    Pipeline p;
    p.name = "dup";
    p.units = {unit("A", {"x"}, {"q", "q"}), unit("B", {"q"}, {"r"}, {"dit"})};
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"dit"});
    const QStringList lines = toQt(explainUnit(g, s, g.findUnit("A")).lines);
    QCOMPARE(lines.filter("- it writes q").size(), 1);
}

void TestExplain::updateChainsInJson()
{
    // c(p) = A, B, C, D; B (X0) is p's first reader in X and rewrites it, so C and D join by U.
    Pipeline p;
    p.name = "chain";
    p.units = {unit("A", {"x"}, {"p"}), unit("B", {"p"}, {"p"}, {"dit"}), unit("C", {"w"}, {"p"}),
        unit("D", {"w"}, {"p"})};
    const PipelineGraph g(p);
    const SplitAnalysis a = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(splitToJson(g, a))).object();
    const QJsonArray chain = doc["update_chains"].toObject()["p"].toArray();
    QCOMPARE(chain.size(), 4);
    QCOMPARE(chain[0].toString(), QString("A"));
    QCOMPARE(chain[3].toString(), QString("D"));
    QCOMPARE(doc["update_chains"].toObject().size(), 1);
    QVERIFY(QString::fromStdString(describeReason(g, a.split, g.findUnit("C")))
                .endsWith("(update chain of p: A, B, C, D)."));
}

void TestExplain::longUpdateChainShortened()
{
    Pipeline p;
    p.name = "long";
    p.units = {unit("W0", {"p"}, {"p"}, {"dit"})};
    for (int i = 1; i < 20; ++i)
        p.units.push_back(unit("W" + std::to_string(i), {"x"}, {"p"}));
    const PipelineGraph g(p);
    const Split s = computeSeedSplit(g, {"dit"});
    QVERIFY(QString::fromStdString(describeReason(g, s, g.findUnit("W5")))
                .endsWith("(update chain of p: W0, W1, W2, W3, ... (20 in all), W17, W18, W19)."));
}

void TestExplain::givenPartitionBreakingX0()
{
    Pipeline p;
    p.name = "x0";
    p.units = {unit("A", {"image"}, {"lat"}, {"vae"}), unit("D", {"lat"}, {"pred"}, {"dit"}), unit("E", {"pred"}, {"lat"})};
    const PipelineGraph g(p);
    const Split given = givenSplit(g, {"E"}, nullptr, {"dit"});
    QCOMPARE(given.x0, std::vector<UnitId>{g.findUnit("D")});
    const Verification v = verifySplit(g, given);
    QVERIFY(!v.satisfiesConditions());
    QCOMPARE(v.violations.front().condition, ConditionViolation::Condition::X0);
    QCOMPARE(v.violations.front().from, g.findUnit("D"));
    QCOMPARE(g.modelName(v.violations.front().model), std::string("dit"));
    QCOMPARE(toQt(explainUnit(g, given, g.findUnit("D")).lines).mid(1),
        QStringList({"- the given partition puts it there, although it calls dit, which needs gradients: that breaks X0, "
                     "see the verifier;",
            "- it writes pred; E and the loss (loss) read this value from the cache."}));
    // Everything in stage one breaks X0 as well; the seed split never does.
    QCOMPARE(verifySplit(g, givenSplit(g, {}, nullptr, {"dit"})).violations.front().condition, ConditionViolation::Condition::X0);
    for (const auto &c : verifySplit(g, computeSeedSplit(g, {"dit"})).violations)
        QVERIFY(c.condition != ConditionViolation::Condition::X0);
}

void TestExplain::givenPartitionBreakingC1()
{
    // A: x->p in stage two, B and C (which calls dit) read p in stage one.
    const Pipeline p = example("counterexample_write_after_read");
    const PipelineGraph g(p);
    const Split given = givenSplit(g, {"A"}, nullptr, {"dit"});
    QCOMPARE(toQt(explainUnit(g, given, g.findUnit("B")).lines),
        QStringList({"B runs in stage one (computed once and cached), because:", "- the given partition puts it there;",
            "- it reads p from A, which the partition puts in stage two: that breaks C1 (stage one runs first, so B "
            "would not get that value);",
            "- it writes p; nothing in stage two reads p."}));
    QCOMPARE(toQt(explainUnit(g, given, g.findUnit("A")).lines),
        QStringList({"A runs in stage two (at every training step). Chain of reasons:",
            "1. A is listed in stage two by the given partition.", "What the verifier reports at A:",
            "- it writes p, which C reads in stage one: that breaks C1 (stage one runs first, so C would not get this "
            "value);",
            "- it writes p, which B reads in stage one: that breaks C1 (stage one runs first, so B would not get this "
            "value)."}));
}

void TestExplain::givenPartitionBreakingC2()
{
    // F reads and rewrites p first in stage two; its later rewriter L stays in stage one.
    Pipeline p;
    p.name = "c2";
    p.units = {unit("F", {"p"}, {"p"}, {"dit"}), unit("L", {"q"}, {"p"})};
    const PipelineGraph g(p);
    const Split given = givenSplit(g, {"F"}, nullptr, {"dit"});
    const Verification v = verifySplit(g, given);
    QCOMPARE(v.violations.size(), std::size_t(1));
    QCOMPARE(v.violations.front().condition, ConditionViolation::Condition::C2);
    const QStringList f = toQt(explainUnit(g, given, g.findUnit("F")).lines);
    QVERIFY2(f.contains("- it is the first stage-two reader of p and rewrites it, but the later rewriter L is in stage "
                        "one: that breaks C2;"),
        qPrintable(f.join('\n')));
    const QStringList l = toQt(explainUnit(g, given, g.findUnit("L")).lines);
    QVERIFY2(l.contains("- it rewrites p after F, which reads it first in stage two and rewrites it: that breaks C2 "
                        "(DiffSynth's update rule puts every later rewriter in stage two);"),
        qPrintable(l.join('\n')));
}

void TestExplain::hazardAtAStageTwoRead()
{
    // The seed split of the write-after-read counterexample: C's read of p is a hazard,
    // which its explanation says (it used to give the X0 reason alone).
    const Pipeline p = example("counterexample_write_after_read");
    const PipelineGraph g(p);
    QCOMPARE(toQt(explainUnit(g, computeSeedSplit(g, {"dit"}), g.findUnit("C")).lines),
        QStringList({"C runs in stage two (at every training step). Chain of reasons:",
            "1. X0: C calls dit, which needs gradients, so it runs in stage two.", "What the verifier reports at C:",
            "- a hazard (write-after-read): it reads p; one-stage training gives it A's value, two-stage gives it "
            "B's."}));
    // The safe split has none, and says none.
    const Explanation safe = explainUnit(g, computeSafeSplit(g, {"dit"}), g.findUnit("C"));
    QCOMPARE(safe.lines.size(), std::size_t(2));
}

void TestExplain::randomExplanations()
{
    // On random pipelines: every stage-two chain starts at a unit of X0 and each step's
    // reason names the step before it (or the loss, for R2); a stage-one unit's
    // explanation names exactly the hazards the verifier finds at reads of its values.
    std::size_t hazardsNamed = 0;
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        RandomPipelineOptions o;
        o.units = 2 + static_cast<int>(seed % 11);
        o.seed = seed;
        const Pipeline p = makeRandomPipeline(o);
        const PipelineGraph g(p);
        // The seed and safe splits, and a given partition: every third unit in stage two.
        std::vector<std::string> everyThird;
        for (UnitId u = 0; u < g.unitCount(); u += 3)
            everyThird.push_back(g.unitName(u));
        for (const SplitMode mode : {SplitMode::Seed, SplitMode::Safe, SplitMode::Given}) {
            const Split s = mode == SplitMode::Given ? givenSplit(g, everyThird, nullptr, {"m0"})
                                                    : computeSplit(g, {"m0"}, mode);
            const Verification v = verifySplit(g, s);
            for (UnitId u = 0; u < g.unitCount(); ++u) {
                const Explanation e = explainUnit(g, s, u);
                // Each hazard at the unit's reads, and each broken C1/C2 that involves it, is named once.
                std::size_t problemsNamed = 0, problems = 0;
                for (const auto &line : e.lines) {
                    for (const char *phrase : {"- a hazard (", "that breaks C1", "that breaks C2"})
                        problemsNamed += line.find(phrase) != std::string::npos ? 1 : 0;
                }
                for (const Hazard &h : v.hazards)
                    problems += h.reader == u ? 1 : 0;
                for (const ConditionViolation &c : v.violations)
                    problems += c.condition != ConditionViolation::Condition::X0 && (c.from == u || c.to == u) ? 1 : 0;
                if (problemsNamed != problems)
                    QFAIL(qPrintable(QString("seed %1, %2 split, unit %3: the explanation names %4 hazard(s) at its "
                                             "reads and broken conditions, the verifier finds %5")
                                         .arg(seed)
                                         .arg(splitModeName(mode))
                                         .arg(QString::fromStdString(g.unitName(u)))
                                         .arg(problemsNamed)
                                         .arg(problems)));
                if (s.isTrained(u) && mode == SplitMode::Given) {
                    QCOMPARE(e.path, std::vector<UnitId>{u});
                    continue;
                }
                if (s.isTrained(u)) {
                    QVERIFY(!e.path.empty());
                    QCOMPARE(e.path.back(), u);
                    QCOMPARE(s.reasons[e.path.front()].rule, Reason::Rule::Model);
                    continue;
                }
                std::size_t mentioned = 0;
                for (const auto &line : e.lines) {
                    for (const char *phrase : {"should see this value", "reads this value from the cache, but"}) {
                        for (std::size_t at = line.find(phrase); at != std::string::npos; at = line.find(phrase, at + 1))
                            ++mentioned;
                    }
                }
                // The reads that should see u's value and do not, and those that see it and should not.
                std::size_t expected = 0;
                for (const Hazard &h : v.hazards)
                    expected += (h.expected == u ? 1 : 0) + (h.actual == u ? 1 : 0);
                hazardsNamed += mentioned;
                if (mentioned != expected)
                    QFAIL(qPrintable(QString("seed %1, %2 split, unit %3: the explanation names %4 hazard(s), the "
                                             "verifier finds %5")
                                         .arg(seed)
                                         .arg(splitModeName(mode))
                                         .arg(QString::fromStdString(g.unitName(u)))
                                         .arg(mentioned)
                                         .arg(expected)));
            }
        }
    }
    QVERIFY2(hazardsNamed > 100, "the random pipelines should give hazards at reads of stage-one values");
}

void TestExplain::namesWithControlCharacters()
{
    // A newline or NUL in a name must not break a report's lines or cut them short.
    Pipeline p;
    p.name = "ctl";
    p.units = {unit(std::string("Enc\nA", 5), {std::string("x\0y", 3)}, {"emb"}, {"dit"}), unit("B", {"emb"}, {"out"})};
    const PipelineGraph g(p);
    const SplitAnalysis a = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    const std::string text = splitToText(g, a);
    QVERIFY(text.find('\0') == std::string::npos);
    QVERIFY(text.find("X0 (units calling a model requiring backward): Enc\\nA\n") != std::string::npos);
    QVERIFY(text.find("x\\u0000y <- external input") != std::string::npos);
    QCOMPARE(describeReason(g, a.split, g.findUnit("B")),
        std::string("F1: B reads emb from Enc\\nA, which runs in stage two, so it must run in stage two too."));
    QCOMPARE(printableName("plain name"), std::string("plain name"));
    QCOMPARE(printableName(std::string("t\tr\r\x7f", 5)), std::string("t\\tr\\r\\u007f"));
    // JSON keeps the names themselves (its own escapes).
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(splitToJson(g, a))).object();
    QCOMPARE(doc["x0"].toArray()[0].toString(), QString("Enc\nA"));
    // DOT shows them as the reports do: Graphviz reads `\n` as a line break and drops the
    // backslash of `\u`, so the backslash of an escape is doubled. Its own line breaks
    // (before the models) stay `\n`; a backslash in a name is doubled too, or `\N` would
    // show the node's id.
    Pipeline q = p;
    q.name = std::string("ctl\x01", 4);
    q.units[1].name = "B\\N";
    q.loss = LossSpec{"L\n", std::nullopt, false, {}, std::nullopt, std::nullopt};
    const PipelineGraph gq(q);
    const std::string dot = splitToDot(gq, analyzeSplit(gq, {"dit"}, SplitMode::Seed));
    for (const char *expected : {R"(digraph "ctl\\u0001" {)", R"(label="ctl\\u0001: seed split, training dit")",
             R"(u0 [label="Enc\\nA\n[dit]")", R"(u1 [label="B\\N")", R"(u0 -> u1 [label="emb")",
             R"(loss [label="loss: L\\n")"})
        QVERIFY2(dot.find(expected) != std::string::npos, (std::string(expected) + " not in\n" + dot).c_str());
    QVERIFY(dot.find(std::string(1, '\0')) == std::string::npos);
}

// A stochastic stage-one unit's draws are frozen only where they reach the cache:
// N's noise goes through E (stage one) into latents, which the loss reads from the
// cache; S's draws reach nothing in stage two (every stochastic V2 unit was warned about).
void TestExplain::stochasticUnitsInStageOne()
{
    Pipeline p;
    p.name = "stochastic";
    p.units = {unit("N", {"seed"}, {"noise"}), unit("E", {"image", "noise"}, {"latents"}), unit("S", {}, {"unused"}),
        unit("D", {"latents"}, {"pred"}, {"dit"})};
    p.units[0].stochastic = true;
    p.units[2].stochastic = true;
    LossSpec loss;
    loss.name = "Loss";
    loss.inputParams = std::vector<std::string>{"pred", "latents"};
    p.loss = loss;
    const PipelineGraph g(p);
    const Split seed = computeSeedSplit(g, {"dit"});
    const Verification v = verifySplit(g, seed);
    QCOMPARE(v.frozenRandomness, std::vector<UnitId>{g.findUnit("N")});
    QCOMPARE(v.unusedRandomness, std::vector<UnitId>{g.findUnit("S")});
    QCOMPARE(QString::fromStdString(frozenRouteText(g, v.frozenRoutes.at(0))),
        QStringLiteral("noise → E → latents, which stage two reads from the cache"));
    QCOMPARE(toQt(explainUnit(g, seed, g.findUnit("N")).lines).last(),
        QStringLiteral("- it is stochastic, and its random draws reach the cache (noise → E → latents, which stage "
                       "two reads from the cache): they are drawn once and every epoch sees the same ones."));
    QCOMPARE(toQt(explainUnit(g, seed, g.findUnit("S")).lines).last(),
        QStringLiteral("- it is stochastic, but nothing it writes reaches stage two: its random draws take no part "
                       "in training."));
    const std::string text = splitToText(g, analyzeSplit(g, {"dit"}, SplitMode::Seed));
    QVERIFY2(text.find("Warning: N is stochastic and runs in stage one, and its random draws reach the cache (noise → "
                       "E → latents, which stage two reads from the cache)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("Note: S is stochastic and runs in stage one, but nothing it writes reaches stage two")
            != std::string::npos, text.c_str());
    QVERIFY(text.find("Warning: S") == std::string::npos);
}

QTEST_GUILESS_MAIN(TestExplain)
#include "tst_explain.moc"
