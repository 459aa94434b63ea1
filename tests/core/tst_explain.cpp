// SPDX-License-Identifier: MIT
// Explanations: the chain of reasons from X0 to a unit, why a unit stays in stage
// one, the stepper's sentences, and the diff of two splits.
#include "core/Explain.h"
#include "core/PipelineFile.h"
#include "resources/Examples.h"

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
        "QwenImageUnit_PromptEmbedder runs in stage two (trained every step). Chain of reasons:",
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
                    "LoRAEncode must also run in stage two."));
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
    QVERIFY(lines.contains("- it calls vae, which does not need gradients (models requiring backward: dit), so it is not in X0;"));
    QVERIFY(lines.filter("- no input comes from stage two: ").size() == 1);
    QVERIFY(lines.filter("noise from QwenImageUnit_NoiseInitializer (stage one)").size() == 1);
    QVERIFY(lines.contains("- it writes latents, which no stage-two unit reads;"));
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
    // R2 at the loss: the chain is only B itself (its cause is the loss).
    const Explanation ew = explainUnit(gw, sw, gw.findUnit("B"));
    QCOMPARE(ew.path, std::vector<UnitId>{gw.findUnit("B")});
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

QTEST_GUILESS_MAIN(TestExplain)
#include "tst_explain.moc"
