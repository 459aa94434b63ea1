// SPDX-License-Identifier: MIT
// What process() bodies do beyond their declarations (DESIGN.md §1.2): the facts the
// importer writes (uses_models, reads, returns, loss.output_params) load and save, the
// graph turns them into findings, the verifier makes an undeclared call of a trained
// model in stage one a hazard, the safe split counts it, the seed split does not, and
// the frozen-randomness check follows what each returned value is computed from.
// A string onload_model_names is DiffSynth's substring test.
#include "core/Explain.h"
#include "core/PipelineFile.h"
#include "core/SplitReport.h"

#include <QTest>

#include <nlohmann/json.hpp>

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

BodyFact fact(const std::string &name, int line, std::vector<std::string> from = {}, bool random = false)
{
    return BodyFact{name, "p.py", line, std::move(from), random, {}};
}

// Noise -> Latents (latents from noise only, input_latents from the image) -> Prompt
// (calls text_encoder without declaring it) -> the loss, which rebuilds latents.
Pipeline pipelineWithFacts()
{
    Pipeline p;
    p.name = "facts";
    p.models = {ModelSpec{"text_encoder", {}, {}, false, {}}, ModelSpec{"vae", {}, {}, false, {}},
        ModelSpec{"dit", {}, {}, false, {}}};
    Unit noise = unit("Noise", {"seed"}, {"noise"});
    noise.stochastic = true;
    noise.returns = std::vector<BodyFact>{fact("noise", 3, {"seed"}, true)};
    Unit latents = unit("Latents", {"input_image", "noise"}, {"latents", "input_latents"}, {"vae"});
    latents.returns = std::vector<BodyFact>{fact("latents", 7, {"noise"}), fact("input_latents", 7, {"input_image"})};
    latents.usesModels = std::vector<BodyFact>{fact("vae", 6)};
    Unit prompt = unit("Prompt", {"prompt"}, {"prompt_emb", "prompt_mask"}, {"other_encoder"});
    prompt.usesModels = std::vector<BodyFact>{fact("text_encoder", 12)};
    prompt.reads = std::vector<BodyFact>{fact("prompt", 10), fact("cfg_scale", 11)};
    prompt.returns = std::vector<BodyFact>{fact("prompt_emb", 13, {"prompt"}), fact("prompt_embeds", 13, {"prompt"})};
    p.units = {noise, latents, prompt};
    LossSpec loss;
    loss.name = "FlowMatchSFTLoss";
    loss.inputParams = std::vector<std::string>{"input_latents", "latents", "prompt_emb"};
    loss.outputParams = std::vector<std::string>{"latents"};
    p.loss = loss;
    return p;
}

QStringList findingTexts(const PipelineGraph &g, const std::vector<DeclarationFinding> &findings)
{
    QStringList out;
    for (const DeclarationFinding &f : findings)
        out << QString::fromStdString(declarationFindingText(g, f));
    return out;
}

} // namespace

class TestBodyFacts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void loadAndSave();
    void badFacts();
    void findings();
    void lostGradientsAndTheSafeSplit();
    void lossOverwrites();
    void frozenDrawsFollowTheReturns();
    void substringOnloadNames();
    void reports();
};

void TestBodyFacts::loadAndSave()
{
    const std::string text = serializePipeline(pipelineWithFacts());
    const LoadResult loaded = parsePipeline(text, "facts.json");
    QVERIFY(loaded.ok());
    QCOMPARE(serializePipeline(*loaded.pipeline), text);
    const Unit &latents = loaded.pipeline->units[1];
    QCOMPARE(latents.returns->at(1).name, std::string("input_latents"));
    QCOMPARE(latents.returns->at(1).from, std::vector<std::string>{"input_image"});
    QCOMPARE(latents.usesModels->front().file, std::string("p.py"));
    QCOMPARE(loaded.pipeline->units[0].returns->front().random, true);
    QCOMPARE(*loaded.pipeline->loss->outputParams, std::vector<std::string>{"latents"});
    // The form: uses_models with "model", the others with "param"; "random" only when true.
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
    QCOMPARE(doc["units"][1]["uses_models"][0].dump(), std::string(R"({"model":"vae","file":"p.py","line":6})"));
    QCOMPARE(doc["units"][1]["returns"][0].dump(),
        std::string(R"({"param":"latents","file":"p.py","line":7,"from":["noise"]})"));
    QCOMPARE(doc["loss"]["output_params"].dump(), std::string(R"(["latents"])"));
    QVERIFY(!doc["units"][0].contains("reads"));
}

void TestBodyFacts::badFacts()
{
    const auto load = [](const std::string &facts) {
        return parsePipeline(R"({"format": "splitscope.pipeline/1", "name": "x", "units": [{"name": "U",
            "input_params": [], "output_params": ["o"], "onload_model_names": null, )" + facts + "}]}",
            "bad.json");
    };
    const auto first = [](const LoadResult &r) {
        return r.diagnostics.empty() ? QString() : QString::fromStdString(r.diagnostics.front().toString());
    };
    QCOMPARE(first(load(R"("uses_models": {"model": "dit"})")),
        QString("bad.json:2:100: error: units[0].uses_models: a list of {\"model\": ..., \"file\": ..., \"line\": ...} "
                "expected, found an object"));
    QCOMPARE(first(load(R"("reads": [{"file": "a.py", "line": 3}])")),
        QString("bad.json:2:95: error: units[0].reads[0]: no \"param\" here"));
    QCOMPARE(first(load(R"("returns": [{"param": "o", "line": 2.5}])")),
        QString("bad.json:2:120: error: units[0].returns[0].line: a line number is a whole number from 0 to 10^9"));
    QCOMPARE(first(load(R"("returns": [{"param": "o", "from": "x"}])")),
        QString("bad.json:2:120: warning: units[0].returns[0].from: a string where a list of param names belongs; read as "
                "the one-element list [\"x\"]. In DiffSynth this is the trailing-comma pitfall: (\"x\") without a comma "
                "is a plain string in Python, and iterating it yields its characters one by one; write (\"x\",) there "
                "and a list here"));
    QVERIFY(!load(R"("returns": [{"param": "o", "from": 3}])").ok());
    // An unknown key in a fact is kept, as everywhere.
    const LoadResult extra = load(R"("reads": [{"param": "o", "file": "a.py", "line": 1, "note": "x"}])");
    QVERIFY(extra.ok());
    QCOMPARE(QString::fromStdString(serializePipeline(*extra.pipeline)).contains("\"note\": \"x\""), true);
}

void TestBodyFacts::findings()
{
    const Pipeline p = pipelineWithFacts();
    const PipelineGraph g(p);
    QCOMPARE(findingTexts(g, g.declarationFindings()),
        QStringList({"undeclared-model: Prompt calls text_encoder in process() (p.py:12), which its onload_model_names "
                     "does not declare: training text_encoder would not put it in stage two, and whichever stage runs it "
                     "must load text_encoder",
            "undeclared-read: Prompt reads cfg_scale in process() (p.py:11) without declaring it as an input: the split "
            "sees no data edge into Prompt for cfg_scale",
            "undeclared-output: Prompt returns prompt_embeds (p.py:13), which its output_params does not declare: "
            "DiffSynth writes it into the inputs anyway, so readers of prompt_embeds get it without a data edge and the "
            "cache set misses it",
            "unreturned-output: Prompt declares the output prompt_mask, but no return of its process() gives it: the "
            "split takes Prompt for a producer of prompt_mask that never writes it"}));
    const Span<ModelId> undeclared = g.undeclaredModels(2);
    QCOMPARE(undeclared.size(), std::size_t(1));
    QCOMPARE(g.modelName(undeclared.front()), std::string("text_encoder"));
    QVERIFY(g.undeclaredModels(1).empty()); // vae is declared
    // Without facts there is nothing to find.
    Pipeline plain = p;
    for (Unit &u : plain.units) {
        u.usesModels.reset();
        u.reads.reset();
        u.returns.reset();
    }
    QVERIFY(PipelineGraph(plain).declarationFindings().empty());
}

void TestBodyFacts::lostGradientsAndTheSafeSplit()
{
    const Pipeline p = pipelineWithFacts();
    const PipelineGraph g(p);
    // The seed split is DiffSynth's: Prompt does not declare text_encoder, so it stays in stage one...
    const SplitAnalysis seed = analyzeSplit(g, {"text_encoder"}, SplitMode::Seed);
    QVERIFY(seed.split.v1().empty());
    QCOMPARE(seed.verification.lostGradients(), std::size_t(1));
    QVERIFY(!seed.verification.hazardFree());
    QCOMPARE(QString::fromStdString(verificationSummary(seed.split, seed.verification)),
        QString("C1 holds, C2 holds, 1 hazard"));
    QCOMPARE(QString::fromStdString(verificationFindings(g, seed.verification).back()),
        QString("undeclared-model (hazard): Prompt calls text_encoder in process() (p.py:12) without declaring it in "
                "onload_model_names; text_encoder needs gradients and Prompt runs in stage one, so DiffSynth caches it "
                "and the gradients of text_encoder through Prompt are lost"));
    // ...and the safe split counts the call.
    const SplitAnalysis safe = analyzeSplit(g, {"text_encoder"}, SplitMode::Safe);
    QCOMPARE(safe.split.v1(), std::vector<UnitId>{2});
    QVERIFY(safe.verification.hazardFree());
    QCOMPARE(safe.split.x0, std::vector<UnitId>{2});
    QVERIFY(safe.split.reasons[2].undeclared);
    QCOMPARE(QString::fromStdString(describeReason(g, safe.split, 2)),
        QString("X0: Prompt's process() calls text_encoder (p.py:12), which needs gradients, though its "
                "onload_model_names does not declare it; the safe split counts the call, so it runs in stage two "
                "(DiffSynth's split would cache it)."));
    // A model no unit needs gradients for: a finding, no hazard.
    const SplitAnalysis dit = analyzeSplit(g, {"dit"}, SplitMode::Seed);
    QCOMPARE(dit.verification.lostGradients(), std::size_t(0));
    QCOMPARE(dit.verification.findings.size(), std::size_t(4));
    // In stage two already (it declares the model it is trained with): no hazard either.
    const SplitAnalysis both = analyzeSplit(g, {"other_encoder", "text_encoder"}, SplitMode::Seed);
    QVERIFY(both.split.isTrained(2));
    QCOMPARE(both.verification.lostGradients(), std::size_t(0));
}

void TestBodyFacts::lossOverwrites()
{
    Pipeline p = pipelineWithFacts();
    const PipelineGraph g(p);
    // The loss writes latents before anything reads it: not a read, not in the cache.
    std::vector<std::string> lossReads;
    for (const ParamId param : g.inputs(g.lossId()))
        lossReads.push_back(g.paramName(param));
    QCOMPARE(lossReads, (std::vector<std::string>{"input_latents", "prompt_emb"}));
    std::vector<std::string> cached;
    for (const CacheEntry &c : computeCacheSet(g, std::vector<char>(3, 0)))
        cached.push_back(g.paramName(c.param));
    QCOMPARE(cached, (std::vector<std::string>{"input_latents", "prompt_emb"}));
    // A loss that declares no reads reads everything but what it writes first.
    p.loss->inputParams.reset();
    const PipelineGraph all(p);
    for (const ParamId param : all.inputs(all.lossId()))
        QVERIFY(all.paramName(param) != "latents");
    QCOMPARE(all.inputs(all.lossId()).size(), std::size_t(all.paramCount() - 1));
}

void TestBodyFacts::frozenDrawsFollowTheReturns()
{
    Pipeline p = pipelineWithFacts();
    // The noise reaches only latents, which the loss rebuilds: nothing is frozen.
    {
        const PipelineGraph g(p);
        const Verification v = verifySplit(g, std::vector<char>(3, 0));
        QVERIFY(v.frozenRandomness.empty());
        QCOMPARE(v.unusedRandomness, std::vector<UnitId>{0});
    }
    // Without the returns the old rule holds: Latents reads the noise and writes input_latents.
    Pipeline coarse = p;
    coarse.units[1].returns.reset();
    {
        const PipelineGraph g(coarse);
        const Verification v = verifySplit(g, std::vector<char>(3, 0));
        QCOMPARE(v.frozenRandomness, std::vector<UnitId>{0});
        QCOMPARE(QString::fromStdString(frozenRouteText(g, v.frozenRoutes.front())),
            QString("noise → Latents → input_latents, which stage two reads from the cache"));
    }
    // Without the loss's overwrite, latents (the noise itself) is read from the cache.
    Pipeline reread = p;
    reread.loss->outputParams.reset();
    {
        const PipelineGraph g(reread);
        const Verification v = verifySplit(g, std::vector<char>(3, 0));
        QCOMPARE(v.frozenRandomness, std::vector<UnitId>{0});
        QCOMPARE(QString::fromStdString(frozenRouteText(g, v.frozenRoutes.front())),
            QString("noise → Latents → latents, which stage two reads from the cache"));
    }
    // A stochastic unit whose draws the importer traced to no output: every output carries them.
    Pipeline untraced = p;
    untraced.units[0].returns = std::vector<BodyFact>{fact("noise", 3, {"seed"}, false)};
    untraced.loss->outputParams.reset();
    {
        const PipelineGraph g(untraced);
        QVERIFY(g.outputCarriesDraws(0, 0));
        QCOMPARE(verifySplit(g, std::vector<char>(3, 0)).frozenRandomness, std::vector<UnitId>{0});
    }
}

void TestBodyFacts::substringOnloadNames()
{
    // DiffSynth tests `model in onload_model_names`: on the string "video_vae_encoder"
    // that is a substring test, so training "vae" puts the unit in stage two.
    const std::string text = R"({"format": "splitscope.pipeline/1", "name": "sub",
 "models": ["video_vae_encoder", "vae", "dit"],
 "units": [{"name": "Encode", "input_params": ["video"], "output_params": ["latents"],
            "onload_model_names": "video_vae_encoder"},
           {"name": "Decode", "input_params": ["latents"], "output_params": ["video_out"],
            "onload_model_names": ["vae"]}],
 "training": {"lora_base_model": "dit", "trainable_models": null}})";
    const LoadResult r = parsePipeline(text, "sub.json");
    QVERIFY(r.ok());
    QStringList warnings;
    for (const Diagnostic &d : r.diagnostics) {
        if (d.severity == Severity::Warning)
            warnings << QString::fromStdString(d.code + "@" + std::to_string(d.line));
    }
    QCOMPARE(warnings, QStringList({"string-as-list@4", "substring-model@4"}));
    QVERIFY(QString::fromStdString(r.diagnostics[1].message).contains("a substring test on a string"));
    QCOMPARE(QString::fromStdString(r.diagnostics[2].message),
        QString("onload_model_names is the string \"video_vae_encoder\", and DiffSynth's split tests `model in "
                "onload_model_names`, a substring test: training \"vae\" also puts unit \"Encode\" in stage two"));
    const Unit &encode = r.pipeline->units[0];
    QVERIFY(encode.callsModel("vae") && encode.callsModel("video_vae_encoder") && encode.callsModel("encoder"));
    QVERIFY(!encode.callsModel("dit"));
    QVERIFY(!r.pipeline->units[1].callsModel("va")); // a list is a membership test
    const PipelineGraph g(*r.pipeline);
    QCOMPARE(computeSeedSplit(g, {"vae"}).x0, (std::vector<UnitId>{0, 1}));
    QCOMPARE(computeSeedSplit(g, {"video_vae_encoder"}).x0, std::vector<UnitId>{0});
    QVERIFY(computeSeedSplit(g, {"dit"}).x0.empty());
    // Saved as it was written: a string.
    QVERIFY(QString::fromStdString(serializePipeline(*r.pipeline)).contains("\"onload_model_names\": \"video_vae_encoder\""));
}

void TestBodyFacts::reports()
{
    const PipelineGraph g(pipelineWithFacts());
    const SplitAnalysis seed = analyzeSplit(g, {"text_encoder"}, SplitMode::Seed);
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(splitToJson(g, seed));
    QCOMPARE(doc["declaration_findings"].size(), std::size_t(4));
    QCOMPARE(doc["declaration_findings"][0].dump(),
        std::string(R"({"kind":"undeclared-model","unit":"Prompt","model":"text_encoder","file":"p.py","line":12,"lost_gradients":true})"));
    QCOMPARE(doc["declaration_findings"][3].dump(),
        std::string(R"({"kind":"unreturned-output","unit":"Prompt","param":"prompt_mask","file":"","line":0})"));
    const QString text = QString::fromStdString(splitToText(g, seed));
    QVERIFY(text.contains("Verification: C1 holds, C2 holds, 1 hazard\n  undeclared-model (hazard): Prompt calls"));
    QVERIFY(text.contains("What process() does beyond its declaration (read from the source): 3 findings\n  undeclared-read:"));
}

QTEST_GUILESS_MAIN(TestBodyFacts)
#include "tst_bodyfacts.moc"
