// SPDX-License-Identifier: MIT
// The built-in pipeline's description (generated from the C++ unit declarations)
// and the splits the core computes from it, including the Z-Image-like hazard.
#include "core/PipelineFile.h"
#include "core/PipelineGraph.h"
#include "core/Split.h"
#include "core/Verifier.h"
#include "core/engine/Engine.h"
#include "core/engine/ExecutableCatalog.h"
#include "core/engine/ModelFiles.h"
#include "core/engine/TinyQwenImage.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace splitscope;

namespace {

QStringList names(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    QStringList out;
    for (const UnitId u : units)
        out << QString::fromStdString(graph.unitName(u));
    return out;
}

Pipeline tinyPipeline(const std::string &task = "sft")
{
    return engine::describePipeline(*engine::findPipelineDeclaration("tiny-qwen-image"), task);
}

} // namespace

class TestTinyPipeline : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void descriptionIsCanonical();
    void descriptionFollowsTheTask();
    void defaultSplitCachesEveryUnit();
    void trainingTheTextEncoderMakesTheSeedSplitHazardous();
    void trainingTheVaeKeepsItsUnitsInStageTwo();
    void everyParamHasASpec();
    void catalogMatchesTheEngine();
};

void TestTinyPipeline::descriptionIsCanonical()
{
    const std::string json = engine::builtinPipelineJson("tiny-qwen-image");
    QVERIFY(!json.empty());
    const LoadResult loaded = parsePipeline(json, "tiny");
    QVERIFY(loaded.ok());
    QVERIFY(!hasErrors(loaded.diagnostics));
    QCOMPARE(countSeverity(loaded.diagnostics, Severity::Warning), std::size_t(0));
    QCOMPARE(serializePipeline(*loaded.pipeline), json); // the canonical form
    const Pipeline &p = *loaded.pipeline;
    QStringList units;
    for (const Unit &u : p.units)
        units << QString::fromStdString(u.name);
    QCOMPARE(units, (QStringList{"QwenImageUnit_ShapeChecker", "QwenImageUnit_NoiseInitializer",
                        "QwenImageUnit_InputImageEmbedder", "QwenImageUnit_PromptEmbedder", "ZImageUnit_EditImageAutoResize",
                        "QwenImageUnit_EditImageEmbedder"}));
    QVERIFY(p.units[1].isStochastic());
    QCOMPARE(p.units[3].fetchInputParams(), (std::vector<std::string>{"edit_image", "negative_prompt", "prompt"}));
    QCOMPARE(p.models.size(), std::size_t(3));
    QCOMPARE(p.loss->name, std::string("FlowMatchSFTLoss"));
    QCOMPARE(*p.training->loraBaseModel, std::string("dit"));
    QVERIFY(engine::builtinPipelineJson("no-such-pipeline").empty());
    QVERIFY(engine::builtinPipelineJson("tiny-qwen-image", "dpo").empty());
}

void TestTinyPipeline::descriptionFollowsTheTask()
{
    const Pipeline sft = tinyPipeline("sft");
    const Pipeline distill = tinyPipeline("direct_distill");
    QCOMPARE(distill.loss->name, std::string("DirectDistillLoss"));
    const auto &in = *distill.loss->inputParams;
    QVERIFY(std::find(in.begin(), in.end(), "latents") != in.end());
    QVERIFY(std::find(in.begin(), in.end(), "num_inference_steps") != in.end());
    const auto &sftIn = *sft.loss->inputParams;
    QVERIFY(std::find(sftIn.begin(), sftIn.end(), "latents") == sftIn.end()); // it draws its own
    QVERIFY(engine::pipelineHash(sft) != engine::pipelineHash(distill));
    QCOMPARE(engine::pipelineHash(sft), engine::pipelineHash(tinyPipeline("sft")));
}

void TestTinyPipeline::defaultSplitCachesEveryUnit()
{
    const Pipeline p = tinyPipeline();
    const PipelineGraph graph(p);
    const Split split = computeSeedSplit(graph, {"dit"});
    QVERIFY(split.v1().empty()); // no unit calls the DiT: everything is cached
    const Verification v = verifySplit(graph, split);
    QVERIFY(v.hazardFree());
    QCOMPARE(names(graph, v.frozenRandomness), QStringList{"QwenImageUnit_NoiseInitializer"});
    QStringList cached;
    for (const CacheEntry &e : computeCacheSet(graph, split.trained))
        cached << QString::fromStdString(graph.paramName(e.param));
    QCOMPARE(cached, (QStringList{"edit_latents", "height", "input_latents", "prompt_emb", "prompt_emb_mask", "width"}));
}

void TestTinyPipeline::trainingTheTextEncoderMakesTheSeedSplitHazardous()
{
    const Pipeline p = tinyPipeline();
    const PipelineGraph graph(p);
    const std::vector<std::string> models = {"text_encoder", "dit"};
    const Split seed = computeSeedSplit(graph, models);
    QCOMPARE(names(graph, seed.v1()), QStringList{"QwenImageUnit_PromptEmbedder"});
    const Verification v = verifySplit(graph, seed);
    QCOMPARE(v.hazards.size(), std::size_t(1));
    const Hazard &h = v.hazards.front();
    QCOMPARE(h.kind, HazardKind::WriteAfterRead);
    QCOMPARE(graph.unitName(h.reader), std::string("QwenImageUnit_PromptEmbedder"));
    QCOMPARE(graph.paramName(h.param), std::string("edit_image"));
    QCOMPARE(h.expected, kNoUnit); // one-stage: the dataset's edit image
    QCOMPARE(graph.unitName(h.actual), std::string("ZImageUnit_EditImageAutoResize"));

    const Split safe = computeSafeSplit(graph, models);
    QCOMPARE(names(graph, safe.v1()), (QStringList{"QwenImageUnit_PromptEmbedder", "ZImageUnit_EditImageAutoResize",
                                          "QwenImageUnit_EditImageEmbedder"}));
    QVERIFY(verifySplit(graph, safe).hazardFree());
}

void TestTinyPipeline::trainingTheVaeKeepsItsUnitsInStageTwo()
{
    const Pipeline p = tinyPipeline();
    const PipelineGraph graph(p);
    const Split seed = computeSeedSplit(graph, {"vae"});
    QCOMPARE(names(graph, seed.v1()), (QStringList{"QwenImageUnit_InputImageEmbedder", "QwenImageUnit_EditImageEmbedder"}));
    QVERIFY(verifySplit(graph, seed).hazardFree());
}

// Stage two checks a cache against the pipeline's param specs before its first step;
// a param without one would be checked for its kind only.
void TestTinyPipeline::everyParamHasASpec()
{
    const engine::PipelineDeclaration &declaration = *engine::findPipelineDeclaration("tiny-qwen-image");
    QStringList named;
    for (const engine::UnitDeclaration &unit : declaration.units) {
        for (const auto &param : unit.readableParams())
            named << QString::fromStdString(param);
        for (const auto &param : unit.outputParams)
            named << QString::fromStdString(param);
    }
    for (const engine::LossDeclaration &loss : declaration.losses) {
        for (const auto &param : loss.inputParams)
            named << QString::fromStdString(param);
    }
    named.removeDuplicates();
    named.sort();
    QStringList specified;
    for (const auto &[param, spec] : declaration.params) {
        specified << QString::fromStdString(param);
        QVERIFY2(QStringList({"tensor", "int", "float", "bool", "text", "image"}).contains(QString::fromStdString(spec.kind)),
            param.c_str());
    }
    QCOMPARE(specified, named);
}

// The catalog the app and the CLI read (engine protocol) says what the engine does:
// the same models, the same losses by task, and patterns that find the files
// init-models writes.
void TestTinyPipeline::catalogMatchesTheEngine()
{
    QVERIFY(!engine::executableCatalog().empty());
    for (const engine::ExecutablePipelineFacts &facts : engine::executableCatalog()) {
        const engine::PipelineDeclaration *declaration = engine::findPipelineDeclaration(facts.name);
        QVERIFY2(declaration, facts.name.c_str());
        std::vector<std::string> catalogModels;
        for (const auto &f : facts.modelFiles)
            catalogModels.push_back(f.model);
        std::vector<std::string> engineModels = declaration->models;
        std::sort(catalogModels.begin(), catalogModels.end());
        std::sort(engineModels.begin(), engineModels.end());
        QCOMPARE(catalogModels, engineModels);
        QCOMPARE(facts.losses.size(), declaration->losses.size());
        for (const engine::LossDeclaration &loss : declaration->losses)
            QCOMPARE(facts.taskOfLoss(loss.name), loss.task);

        QTemporaryDir root;
        QVERIFY(root.isValid());
        engine::InitModelsParams init;
        init.root = root.path().toStdString();
        init.modelId = facts.modelId;
        init.preset = "small";
        std::string error;
        QVERIFY2(engine::initModels(init, nullptr, &error), error.c_str());
        std::string list;
        for (const auto &f : facts.modelFiles)
            list += (list.empty() ? "" : ",") + facts.modelId + ":" + f.pattern;
        std::vector<engine::ModelPathSpec> specs;
        QVERIFY2(engine::parseModelPathSpecs(list, "catalog", specs, &error), error.c_str());
        std::vector<engine::ResolvedModel> models;
        QVERIFY2(engine::resolveModels(init.root, specs, models, &error), error.c_str());
        QCOMPARE(models.size(), facts.modelFiles.size());
        for (std::size_t i = 0; i < models.size(); ++i)
            QCOMPARE(models[i].name, facts.modelFiles[i].model);
    }
}

QTEST_GUILESS_MAIN(TestTinyPipeline)
#include "tst_tinypipeline.moc"
