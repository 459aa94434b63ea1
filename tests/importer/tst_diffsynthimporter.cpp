// SPDX-License-Identifier: MIT
// The DiffSynth importer against hand-written pipeline modules (fixtures/*.py): the
// Qwen-Image fixture imports to resources/examples/qwen_image.json unit for unit and
// splits as resources/examples/expected/qwen_image.json says; every literal form,
// every resolution and every unresolvable construct gives the declaration or the
// warning (file, line, code) it should; folders import one description per pipeline;
// and every description loads back through the core's loader.
#include "core/PipelineFile.h"
#include "core/PipelineGraph.h"
#include "core/Split.h"
#include "core/Verifier.h"
#include "core/importer/DiffSynthImporter.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace splitscope;
using namespace splitscope::importer;

namespace {

const QString kFixtures = QStringLiteral(SPLITSCOPE_IMPORTER_FIXTURES);

std::string fixturePath(const char *name)
{
    return (kFixtures + "/" + name).toStdString();
}

// The 1-based line of `fixture` that contains `marker`.
int lineOf(const char *fixture, const std::string &marker)
{
    std::istringstream in(test::readFileText(fixturePath(fixture)));
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (text.find(marker) != std::string::npos)
            return line;
    }
    return -1;
}

QString list(const std::vector<std::string> &items)
{
    QStringList out;
    for (const auto &s : items)
        out << QString::fromStdString(s);
    return "[" + out.join(',') + "]";
}

// One line per unit: name in=[..] posi={..} nega={..} out=[..] models=[..] cfg take [stochastic]
// (`-` for null; a list read from a str shows as "x").
QString brief(const Unit &u)
{
    const auto names = [&](const std::vector<std::string> &items, unsigned stringBit, unsigned nullBit) {
        if ((u.scalarListFields & nullBit) && items.empty())
            return QString("-");
        if ((u.scalarListFields & stringBit) && items.size() == 1)
            return "\"" + QString::fromStdString(items.front()) + "\"";
        return list(items);
    };
    const auto map = [](const std::optional<ParamMap> &m) {
        if (!m)
            return QString("-");
        QStringList out;
        for (const auto &[k, v] : *m)
            out << QString::fromStdString(k) + ":" + QString::fromStdString(v);
        return "{" + out.join(',') + "}";
    };
    QString out = QString::fromStdString(u.name) + " in=" + names(u.inputParams, kInputParamsWasString, kInputParamsWasNull)
        + " posi=" + map(u.inputParamsPosi) + " nega=" + map(u.inputParamsNega)
        + " out=" + names(u.outputParams, kOutputParamsWasString, kOutputParamsWasNull) + " models="
        + (u.onloadModelNames ? names(*u.onloadModelNames, kOnloadModelNamesWasString, 0) : QString("-"))
        + (u.seperateCfg.value_or(false) ? " cfg" : "") + (u.takeOver.value_or(false) ? " take" : "");
    if (u.stochastic)
        out += *u.stochastic ? " stochastic" : " deterministic";
    return out;
}

QStringList briefs(const Pipeline &p)
{
    QStringList out;
    for (const Unit &u : p.units)
        out << brief(u);
    return out;
}

QStringList modelNames(const Pipeline &p)
{
    QStringList out;
    for (const ModelSpec &m : p.models)
        out << QString::fromStdString(m.name);
    return out;
}

QString lossParams(const Pipeline &p)
{
    if (!p.loss || !p.loss->inputParams)
        return "-";
    return list(*p.loss->inputParams);
}

// "code@line" for every warning and error (infos left out), in order.
QStringList problems(const Diagnostics &diagnostics)
{
    QStringList out;
    for (const Diagnostic &d : diagnostics) {
        if (d.severity != Severity::Info)
            out << QString::fromStdString(d.code) + "@" + QString::number(d.line);
    }
    return out;
}

const Diagnostic *findDiagnostic(const Diagnostics &diagnostics, const std::string &code, int line)
{
    for (const Diagnostic &d : diagnostics) {
        if (d.code == code && (line < 0 || d.line == line))
            return &d;
    }
    return nullptr;
}

QStringList names(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    QStringList out;
    for (const UnitId u : units)
        out << QString::fromStdString(graph.unitName(u));
    return out;
}

QStringList names(const nlohmann::json &array)
{
    QStringList out;
    for (const auto &s : array)
        out << QString::fromStdString(s.get<std::string>());
    return out;
}

ImportResult importFixture(const char *name, const ImportOptions &options = {})
{
    return importDiffSynthPath(fixturePath(name), options);
}

} // namespace

class TestDiffSynthImporter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void qwenImageEqualsExample();
    void qwenImageSplitsAsExpected();
    void literals();
    void resolution();
    void unresolved();
    void folder();
    void checkoutLayoutAndFilter();
    void loadsBack_data();
    void loadsBack();
    void errors();
    void sourceEncodingsAndNames();
    void losses();
    void missingCommaBetweenNames();
    void bodyChecks();
    void lossFromItsCode();
    void onloadNamesAsAString();
    void trainingScript();
    void checkoutModels();
};

void TestDiffSynthImporter::qwenImageEqualsExample()
{
    const ImportResult r = importFixture("qwen_image.py");
    QVERIFY(r.ok());
    QCOMPARE(problems(r.diagnostics), QStringList());
    QCOMPARE(r.pipelines.size(), std::size_t(1));
    const ImportedPipeline &imported = r.pipelines.front();
    QCOMPARE(imported.className, std::string("QwenImagePipeline"));
    QCOMPARE(imported.sourceFile, fixturePath("qwen_image.py"));

    const LoadResult example = loadPipelineFile(SPLITSCOPE_EXAMPLES_DIR "/qwen_image.json");
    QVERIFY(example.ok());
    const Pipeline &expected = *example.pipeline;
    // Unit for unit, then the whole document (the "source" line says where each came from),
    // less what the importer read of the process() bodies on top of the declarations.
    QCOMPARE(briefs(imported.pipeline), briefs(expected));
    Pipeline sameSource = imported.pipeline;
    sameSource.source = expected.source;
    for (Unit &u : sameSource.units) {
        u.usesModels.reset();
        u.reads.reset();
        u.returns.reset();
    }
    if (sameSource.loss)
        sameSource.loss->models.reset(); // in_iteration_models, read for the plan
    QCOMPARE(serializePipeline(sameSource), serializePipeline(expected));
    QVERIFY(QString::fromStdString(*imported.pipeline.source).contains("class QwenImagePipeline"));

    // The one inference the source cannot state, and why.
    const Diagnostic *stochastic = findDiagnostic(r.diagnostics, "stochastic-inferred", -1);
    QVERIFY(stochastic);
    QCOMPARE(stochastic->jsonPath, std::string("QwenImageUnit_NoiseInitializer"));
    QVERIFY(QString::fromStdString(stochastic->message).contains("outputs 'noise'"));
}

void TestDiffSynthImporter::qwenImageSplitsAsExpected()
{
    const ImportResult r = importFixture("qwen_image.py");
    QVERIFY(r.ok());
    const PipelineGraph graph(r.pipelines.front().pipeline);
    std::ifstream in(SPLITSCOPE_EXAMPLES_DIR "/expected/qwen_image.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    QVERIFY(doc.at("cases").size() >= 2);
    for (const auto &c : doc.at("cases")) {
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
    }
}

void TestDiffSynthImporter::literals()
{
    const ImportResult r = importFixture("literals.py");
    QVERIFY(r.ok());
    QCOMPARE(r.pipelines.size(), std::size_t(1));
    const Pipeline &p = r.pipelines.front().pipeline;
    QCOMPARE(p.name, std::string("literals"));
    QCOMPARE(briefs(p), QStringList({
        "Tuples in=[height,width] posi=- nega=- out=[latents] models=[]",
        "Lists in=[latents,noise] posi=- nega=- out=[input_latents,mask] models=[vae]",
        "Dicts in=- posi={prompt:prompt,image:edit_image} nega={prompt:negative_prompt} out=[prompt_emb] models=[text_encoder] cfg",
        QString::fromUtf8("Strings in=[single,double,raw\\d,unicode,triple,tri'ple,implicit_concatenation,escaped\xC3\xA9] posi=- "
                          "nega=- out=[RAW,caf\xC3\xA9] models=-"),
        "Flags in=- posi=- nega=- out=[flag] models=- take",
        "Continued in=[a,b] posi=- nega=- out=[c] models=[dit]",
        "Pitfall in=\"noise\" posi=- nega=- out=[latents] models=\"vae\"",
        "Empty in=- posi=- nega=- out=- models=-",
    }));
    QCOMPARE(*p.units[0].doc, std::string("Tuples, a one-element tuple with its trailing comma, and an empty tuple."));
    QVERIFY(!p.units[1].doc);
    QCOMPARE(modelNames(p), QStringList({"text_encoder", "dit", "vae"}));
    QCOMPARE(lossParams(p), QString("[input_latents,latents,mask,max_timestep_boundary,min_timestep_boundary,prompt_emb]"));
    QCOMPARE(*p.training->loraBaseModel, std::string("dit"));

    // ("noise") and ("vae") are strings: the pitfall of DESIGN.md §2, warned at their lines.
    const int inputLine = lineOf("literals.py", "mark: pitfall input");
    const int modelsLine = lineOf("literals.py", "mark: pitfall models");
    QCOMPARE(problems(r.diagnostics),
        QStringList({"string-as-list@" + QString::number(inputLine), "string-as-list@" + QString::number(modelsLine)}));
    const Diagnostic *d = findDiagnostic(r.diagnostics, "string-as-list", inputLine);
    QCOMPARE(d->jsonPath, std::string("Pitfall.input_params"));
    QCOMPARE(d->file, fixturePath("literals.py"));
    QCOMPARE(d->column, 27);
    QVERIFY(QString::fromStdString(d->message).contains("write (\"noise\",)"));
}

void TestDiffSynthImporter::resolution()
{
    const ImportResult r = importFixture("resolution.py");
    QVERIFY(r.ok());
    const Pipeline &p = r.pipelines.front().pipeline;
    QCOMPARE(briefs(p), QStringList({
        "FirstUnit in=[height,width] posi=- nega=- out=[height,width] models=-",
        "ShapeUnit in=[height,width,seed] posi=- nega=- out=[height,width] models=-",
        "NoiseUnit in=[height,width,seed] posi=- nega=- out=[noise] models=- stochastic",
        "PromptUnit in=- posi={prompt:prompt} nega={prompt:negative_prompt} out=[prompt_emb,prompt_mask] models=[vae,text_encoder] cfg",
        "Encoder in=[image,tiled] posi=- nega=- out=[image_latents] models=[vae]",
        "Encoder_2 in=[video,tiled] posi=- nega=- out=[video_latents] models=[vae,tokenizer_model]",
        "Inherited in=[depth,tiled] posi=- nega=- out=[depth_latents] models=[vae]",
        "Extended in=[mask] posi=- nega=- out=[mask_latents] models=[vae]",
        "Positional in=[p] posi=- nega=- out=[q] models=- take",
        "SamplingUnit in=[latents] posi=- nega=- out=[sampled] models=- stochastic",
        "AliasedUnit in=[sampled] posi=- nega=- out=[aliased] models=- stochastic",
        "Overridden in=[read] posi=- nega=- out=- models=[dit]",
        "ReaderUnit in=[aliased,video_latents] posi=- nega=- out=[read] models=[dit]",
    }));
    QCOMPARE(*p.units[4].doc, std::string("Encodes one input with the VAE; the pipeline chooses which."));
    // tokenizer_model is used by a unit, so it is a model; the scheduler and a bool are not.
    QCOMPARE(modelNames(p), QStringList({"text_encoder", "dit", "vae", "tokenizer_model"}));
    QCOMPARE(lossParams(p),
        QString("[input_latents,latents,max_timestep_boundary,min_timestep_boundary,progress_id,prompt_emb,read]"));

    const int positional = lineOf("resolution.py", "mark: positional");
    QCOMPARE(problems(r.diagnostics), QStringList({"duplicate-unit@31", "positional-argument@" + QString::number(positional),
                                          "positional-argument@" + QString::number(positional),
                                          "positional-argument@" + QString::number(positional),
                                          "positional-argument@" + QString::number(positional)}));
    const auto reasonOf = [&](const std::string &unit) {
        for (const Diagnostic &d : r.diagnostics) {
            if (d.code == "stochastic-inferred" && d.jsonPath == unit)
                return QString::fromStdString(d.message);
        }
        return QString();
    };
    QVERIFY(reasonOf("NoiseUnit").contains("outputs 'noise'"));
    QVERIFY(reasonOf("SamplingUnit").contains("random.randint()"));
    QVERIFY(reasonOf("AliasedUnit").contains("np.random.rand()"));
    QVERIFY(reasonOf("ReaderUnit").isEmpty());
    QVERIFY(findDiagnostic(r.diagnostics, "not-a-model", lineOf("resolution.py", "self.scheduler:")));
    QVERIFY(findDiagnostic(r.diagnostics, "not-a-model", lineOf("resolution.py", "self.enabled:")));
}

void TestDiffSynthImporter::unresolved()
{
    const ImportResult r = importFixture("unresolved.py");
    QVERIFY(r.ok()); // warnings only
    const Pipeline &p = r.pipelines.front().pipeline;
    QCOMPARE(briefs(p), QStringList({
        "Computed in=- posi=- nega=- out=- models=-",
        "Mixed in=[known] posi=- nega=- out=[mixed] models=-",
        "FString in=[] posi=- nega=- out=[fstring] models=-",
        "Spread in=- posi=- nega=- out=[spread] models=-",
        "WrongTypes in=- posi=- nega=- out=[ok] models=- cfg",
        "Misspelled in=- posi=- nega=- out=[b] models=-",
        "NoSuper in=[ignored] posi=- nega=- out=- models=-",
        "FromElsewhere in=[e] posi=- nega=- out=[f] models=-",
        "ExternalUnit in=- posi=- nega=- out=- models=-",
        "Conditional in=- posi=- nega=- out=[conditional] models=-",
    }));
    QCOMPARE(*p.units[8].doc, std::string("declaration not found by the DiffSynth importer"));
    QVERIFY(!p.training);
    QVERIFY(p.loss && !p.loss->inputParams);

    // Every construct the reader cannot resolve is a warning at its own line.
    const std::vector<std::pair<const char *, const char *>> expected = {
        {"mark: external unit", "unknown-unit-class"}, {"mark: runtime choice", "conditional-unit"},
        {"mark: starred parameter", "computed-argument"}, {"mark: loop", "unit-in-loop"},
        {"mark: comprehension", "unit-in-loop"}, {"mark: conditional unit", "conditional-unit"},
        {"mark: in_iteration", "computed-argument"}, {"mark: model_fn", "no-model-fn"},
        {"mark: call", "computed-argument"}, {"mark: reassigned constant", "computed-argument"},
        {"mark: mixed", "computed-argument"}, {"mark: mixed", "wrong-type"},
        {"mark: fstring", "computed-argument"}, {"mark: spread", "computed-argument"},
        {"mark: wrong bool", "wrong-type"}, {"mark: wrong list", "wrong-type"}, {"mark: wrong dict", "wrong-type"},
        {"mark: misspelled", "unknown-keyword"}, {"mark: no super", "no-super-init"},
        {"mark: unknown base", "unknown-base-class"}, {"mark: conditional init", "conditional-init"},
    };
    for (const auto &[marker, code] : expected) {
        const int line = lineOf("unresolved.py", marker);
        QVERIFY2(line > 0, marker);
        const Diagnostic *d = findDiagnostic(r.diagnostics, code, line);
        QVERIFY2(d, qPrintable(QString("%1 at line %2 (%3)").arg(code).arg(line).arg(marker)));
        QCOMPARE(d->severity, Severity::Warning);
        QCOMPARE(d->file, fixturePath("unresolved.py"));
        QVERIFY(d->column > 0);
    }
    const Diagnostic *misspelled = findDiagnostic(r.diagnostics, "unknown-keyword", lineOf("unresolved.py", "mark: misspelled"));
    QCOMPARE(misspelled->jsonPath, std::string("Misspelled.input_param"));
    QVERIFY(QString::fromStdString(misspelled->message).contains("did you mean 'input_params'?"));
    // Messages quote the source as written: a prefix ** sticks to its name.
    const Diagnostic *modelFn = findDiagnostic(r.diagnostics, "no-model-fn", lineOf("unresolved.py", "mark: model_fn"));
    QVERIFY2(QString::fromStdString(modelFn->message).contains("self.model_fn is set to lambda **kwargs: None,"),
        modelFn->message.c_str());
    QVERIFY(findDiagnostic(r.diagnostics, "no-in-iteration-models", -1));
    // Nothing else: the 21 above, the second misspelled keyword, the unknown base seen
    // from the pipeline's side, and the missing training block.
    QCOMPARE(countSeverity(r.diagnostics, Severity::Error), std::size_t(0));
    QCOMPARE(countSeverity(r.diagnostics, Severity::Warning), expected.size() + 3);
}

void TestDiffSynthImporter::folder()
{
    const ImportResult r = importFixture("folder");
    QVERIFY(r.ok());
    QCOMPARE(problems(r.diagnostics), QStringList());
    QStringList pipelineNames;
    for (const ImportedPipeline &p : r.pipelines)
        pipelineNames << QString::fromStdString(p.pipeline.name) + "=" + QString::fromStdString(p.className);
    QCOMPARE(pipelineNames, QStringList({"alpha_image=AlphaImagePipeline", "beta_video=BetaVideoPipeline",
                                "beta_video_edit=BetaVideoEditPipeline"}));
    const Pipeline &alpha = r.pipelines[0].pipeline;
    QCOMPARE(briefs(alpha), QStringList({
        "SharedShape in=[height,width] posi=- nega=- out=[height,width] models=-",
        "SharedNoise in=[height,width,seed] posi=- nega=- out=[noise] models=- stochastic",
        "SharedEncoder in=[input_image,noise] posi=- nega=- out=[latents,input_latents] models=[vae]",
        "AlphaPrompt in=[latents] posi={prompt:prompt} nega={prompt:negative_prompt} out=[prompt_emb] models=[text_encoder] cfg",
    }));
    QCOMPARE(lossParams(alpha), QString("[input_latents,latents,max_timestep_boundary,min_timestep_boundary,prompt_emb]"));
    const Pipeline &edit = r.pipelines[2].pipeline;
    QCOMPARE(edit.units.size(), std::size_t(5));
    QCOMPARE(brief(edit.units[4]),
        QString("BetaEdit in=[edit_video,context] posi=- nega=- out=[context] models=[edit_encoder,vae]"));
    QCOMPARE(modelNames(edit), QStringList({"text_encoder", "dit", "vae", "motion", "edit_encoder"}));
    QCOMPARE(lossParams(edit),
        QString("[context,frame_count,input_latents,latents,max_timestep_boundary,min_timestep_boundary]"));
    QCOMPARE(*edit.training->loraBaseModel, std::string("dit"));
    QCOMPARE(edit.alternativeTraining->size(), std::size_t(2));
    QCOMPARE(*(*edit.alternativeTraining)[1].trainableModels, std::string("motion"));
    // A unit shared by three pipelines is inferred stochastic once, and said once.
    int said = 0;
    for (const Diagnostic &d : r.diagnostics)
        said += d.code == "stochastic-inferred" ? 1 : 0;
    QCOMPARE(said, 1);
}

void TestDiffSynthImporter::checkoutLayoutAndFilter()
{
    // A checkout: the pipelines are found in diffsynth/pipelines/.
    QTemporaryDir checkout;
    QVERIFY(checkout.isValid());
    QVERIFY(QDir(checkout.path()).mkpath("diffsynth/pipelines"));
    const QDir source(kFixtures + "/folder");
    for (const QString &file : source.entryList({"*.py"}, QDir::Files))
        QVERIFY(QFile::copy(source.filePath(file), checkout.filePath("diffsynth/pipelines/" + file)));
    const ImportResult all = importDiffSynthPath(checkout.path().toStdString());
    QVERIFY(all.ok());
    QCOMPARE(all.pipelines.size(), std::size_t(3));

    ImportOptions one;
    one.pipelineClass = "BetaVideoEditPipeline";
    const ImportResult filtered = importDiffSynthPath(checkout.path().toStdString(), one);
    QVERIFY(filtered.ok());
    QCOMPARE(filtered.pipelines.size(), std::size_t(1));
    QCOMPARE(filtered.pipelines.front().pipeline.name, std::string("beta_video_edit"));

    ImportOptions typo;
    typo.pipelineClass = "BetaVideoPipelin";
    const ImportResult missing = importDiffSynthPath(checkout.path().toStdString(), typo);
    QVERIFY(!missing.ok());
    QVERIFY(missing.pipelines.empty());
    const Diagnostic *d = findDiagnostic(missing.diagnostics, "unknown-pipeline-class", -1);
    QVERIFY(d);
    QCOMPARE(d->severity, Severity::Error);
    QVERIFY2(QString::fromStdString(d->message).contains("did you mean 'BetaVideoPipeline'?"), d->message.c_str());
    QVERIFY(QString::fromStdString(d->message).contains("AlphaImagePipeline"));

    // A star import: names neither defined nor imported resolve to their one definition
    // in the folder; a name imported from a module outside it does not.
    QVERIFY(QDir(checkout.path()).mkpath("star"));
    QFile units(checkout.filePath("star/units.py"));
    QVERIFY(units.open(QIODevice::WriteOnly));
    units.write("from .base import PipelineUnit\n"
                "class Starred(PipelineUnit):\n    def __init__(self):\n        super().__init__(output_params=('s',))\n"
                "class Module(PipelineUnit):\n    def __init__(self):\n        super().__init__(output_params=('m',))\n");
    units.close();
    QFile star(checkout.filePath("star/star_image.py"));
    QVERIFY(star.open(QIODevice::WriteOnly));
    star.write("import torch\nfrom .units import *\nfrom transformers import Module\n"
               "class StarPipeline(BasePipeline):\n    def __init__(self):\n"
               "        self.units = [Starred(), Module(), torch.nn.Module()]\n");
    star.close();
    const ImportResult starred = importDiffSynthPath(checkout.filePath("star").toStdString());
    QVERIFY(starred.ok());
    QCOMPARE(briefs(starred.pipelines.front().pipeline), QStringList({"Starred in=- posi=- nega=- out=[s] models=-",
                                                              "Module in=- posi=- nega=- out=- models=-",
                                                              "Module_2 in=- posi=- nega=- out=- models=-"}));
    QCOMPARE(problems(starred.diagnostics), QStringList({"unknown-unit-class@6", "unknown-unit-class@6",
                                                "duplicate-unit@6", "no-model-fn@4", "no-in-iteration-models@4"}));

    // The empty folder and a missing path say so.
    QVERIFY(QDir(checkout.path()).mkpath("empty"));
    const ImportResult empty = importDiffSynthPath(checkout.filePath("empty").toStdString());
    QVERIFY(findDiagnostic(empty.diagnostics, "io", -1));
    QVERIFY(QString::fromStdString(empty.diagnostics.front().message).contains("no .py files"));
    const ImportResult nowhere = importDiffSynthPath(checkout.filePath("nowhere.py").toStdString());
    QVERIFY(QString::fromStdString(nowhere.diagnostics.front().message).contains("no such file"));

    // One broken file does not stop the others; the result says there were errors.
    QFile broken(checkout.filePath("diffsynth/pipelines/zz_broken.py"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("class Broken(BasePipeline):\n    def __init__(self):\n        self.units = [A(\n");
    broken.close();
    const ImportResult partly = importDiffSynthPath(checkout.path().toStdString());
    QVERIFY(!partly.ok());
    QCOMPARE(partly.pipelines.size(), std::size_t(3));
    const Diagnostic *syntax = findDiagnostic(partly.diagnostics, "python-syntax", 3);
    QVERIFY(syntax);
    QVERIFY(QString::fromStdString(syntax->file).endsWith("zz_broken.py"));
    QVERIFY(QString::fromStdString(syntax->message).contains("'(' was never closed"));
}

void TestDiffSynthImporter::loadsBack_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char *f : {"qwen_image.py", "literals.py", "resolution.py", "unresolved.py", "folder"})
        QTest::newRow(f) << QString(f);
}

void TestDiffSynthImporter::loadsBack()
{
    QFETCH(QString, fixture);
    const ImportResult r = importFixture(fixture.toUtf8().constData());
    QVERIFY(!r.pipelines.empty());
    for (const ImportedPipeline &imported : r.pipelines) {
        const std::string text = serializePipeline(imported.pipeline);
        const LoadResult loaded = parsePipeline(text, imported.pipeline.name + ".json");
        QVERIFY2(loaded.ok(), text.c_str());
        QCOMPARE(countSeverity(loaded.diagnostics, Severity::Error), std::size_t(0));
        // Loading keeps every field the importer set: saving again gives the same bytes.
        QCOMPARE(serializePipeline(*loaded.pipeline), text);
        QCOMPARE(briefs(*loaded.pipeline), briefs(imported.pipeline));
    }
}

void TestDiffSynthImporter::errors()
{
    // Python syntax errors name the file, line and column.
    const ImportResult syntax = importDiffSynthSource("class A(BasePipeline):\n    x = 'open\n", "bad.py");
    QVERIFY(!syntax.ok());
    QVERIFY(syntax.pipelines.empty());
    QCOMPARE(syntax.diagnostics.front().code, std::string("python-syntax"));
    QCOMPARE(syntax.diagnostics.front().file, std::string("bad.py"));
    QCOMPARE(syntax.diagnostics.front().line, 2);
    QCOMPARE(syntax.diagnostics.front().column, 9);
    QCOMPARE(syntax.diagnostics.front().toString(),
        std::string("bad.py:2:9: error: Python syntax error: unterminated string literal (detected at line 2)"));

    // Source that is not Python is a python-syntax error where CPython reports it, with
    // CPython's message, and nothing of the file is imported.
    const std::string pipeline = "class TinyPipeline(BasePipeline):\n"
                                 "    def __init__(self):\n"
                                 "        self.units = [Unit_Noise()]\n"
                                 "        self.model_fn = model_fn\n"
                                 "class Unit_Noise(PipelineUnit):\n"
                                 "    def __init__(self):\n"
                                 "        super().__init__(\n"
                                 "            input_params=(\"height\", \"width\"),\n"
                                 "            output_params=(\"noise\",),\n"
                                 "        )\n"
                                 "def model_fn(dit=None, **kwargs):\n"
                                 "    return dit\n";
    QVERIFY(importDiffSynthSource(pipeline, "tiny.py").ok());
    // A unit class with no base (a keyword where the base belongs, as the fuzzer wrote it):
    // the unknown base is reported at the super() call, not at a node that is not there.
    {
        std::string noBase = pipeline;
        noBase.replace(noBase.find("(PipelineUnit):"), 15, "(Pi=PipelineUnit):");
        const ImportResult r = importDiffSynthSource(noBase, "tiny.py");
        const Diagnostic *d = findDiagnostic(r.diagnostics, "unknown-base-class", 7);
        QVERIFY(d);
        QCOMPARE(d->column, 9);
        QVERIFY2(d->message.find("a base class is not PipelineUnit") != std::string::npos, d->message.c_str());
    }
    const auto edited = [&](const std::string &from, const std::string &to) {
        std::string s = pipeline;
        const std::size_t at = s.find(from);
        return at == std::string::npos ? std::string() : s.replace(at, from.size(), to);
    };
    const struct {
        std::string source;
        std::string message;
    } broken[] = {
        // An over-indented line after self.units: not "the pipeline never sets self.units".
        {edited("        self.model_fn", "          self.model_fn"), "tiny.py:4:10: error: Python syntax error: IndentationError: unexpected indent"},
        {edited("(PipelineUnit):", "(PipelineUnit)"), "tiny.py:5:31: error: Python syntax error: expected ':'"},
        {edited("**kwargs):", "**kwargs)"), "tiny.py:11:33: error: Python syntax error: expected ':'"},
        {edited("self.model_fn = model_fn", "self.class = None"),
            "tiny.py:4:14: error: Python syntax error: invalid syntax"},
        {pipeline + "print \"hello\"\n",
            "tiny.py:13:1: error: Python syntax error: Missing parentheses in call to 'print'. Did you mean print(...)?"},
        // A missing comma in a unit's declaration: an error, not a unit that declares nothing.
        {edited("\"width\"),", "\"width\")"),
            "tiny.py:8:26: error: Python syntax error: invalid syntax. Perhaps you forgot a comma?"},
    };
    for (const auto &b : broken) {
        QVERIFY(!b.source.empty());
        const ImportResult r = importDiffSynthSource(b.source, "tiny.py");
        QVERIFY(!r.ok());
        QVERIFY(r.pipelines.empty());
        QCOMPARE(r.diagnostics.front().code, std::string("python-syntax"));
        QCOMPARE(QString::fromStdString(r.diagnostics.front().toString()), QString::fromStdString(b.message));
        QVERIFY(!findDiagnostic(r.diagnostics, "no-units", -1));
        QVERIFY(!findDiagnostic(r.diagnostics, "no-super-init", -1));
    }

    // Valid Python nested deeply where a unit's declaration is read: CPython parses it, and
    // the reader says what it found (a list where a name belongs), never an empty declaration.
    const ImportResult deep = importDiffSynthSource(
        edited("input_params=(\"height\", \"width\")", "input_params=" + std::string(150, '[') + "'h'" + std::string(150, ']')),
        "tiny.py");
    QVERIFY(deep.ok());
    const Diagnostic *nested = findDiagnostic(deep.diagnostics, "wrong-type", 8);
    QVERIFY(nested);
    QVERIFY(QString::fromStdString(nested->message).contains("element 0 of input_params is a list"));
    QVERIFY(!findDiagnostic(deep.diagnostics, "no-super-init", -1));
    // Redundant parentheses are no structure to CPython: ((('h'))) is the str 'h'. Past the
    // nesting CPython's own parser takes, it is CPython's error.
    const ImportResult tooDeepForCPython = importDiffSynthSource(
        edited("input_params=(\"height\", \"width\")", "input_params=" + std::string(250, '(') + "'h'" + std::string(250, ')')),
        "tiny.py");
    QCOMPARE(QString::fromStdString(tooDeepForCPython.diagnostics.front().toString()),
        QString("tiny.py:8:225: error: Python syntax error: too many nested parentheses"));

    // A module without a pipeline.
    const ImportResult none = importDiffSynthSource("def f():\n    return 1\n", "helpers.py");
    QVERIFY(!none.ok());
    QCOMPARE(none.diagnostics.back().code, std::string("no-pipeline"));
    // A pipeline class without units is skipped with a warning, then there is no pipeline.
    const ImportResult empty = importDiffSynthSource("class P(BasePipeline):\n    pass\n", "p.py");
    QVERIFY(findDiagnostic(empty.diagnostics, "no-units", 1));
    QVERIFY(findDiagnostic(empty.diagnostics, "no-pipeline", -1));

    // Oversized input is refused before any work.
    const std::string huge(kMaxSourceBytes + 1, ' ');
    const ImportResult large = importDiffSynthSource(huge, "huge.py");
    QCOMPARE(large.diagnostics.size(), std::size_t(1));
    QCOMPARE(large.diagnostics.front().code, std::string("input-too-large"));

    // Source from memory without a file name: the pipeline is named after its class.
    const ImportResult unnamed = importDiffSynthSource(test::readFileText(fixturePath("qwen_image.py")), "");
    QVERIFY(unnamed.ok());
    QCOMPARE(unnamed.pipelines.front().pipeline.name, std::string("qwen_image"));
}

void TestDiffSynthImporter::sourceEncodingsAndNames()
{
    const std::string pipeline = "class TinyPipeline(BasePipeline):\n"
                                 "    def __init__(self):\n"
                                 "        self.units = [Unit_Noise()]\n"
                                 "        self.model_fn = model_fn\n"
                                 "class Unit_Noise(PipelineUnit):\n"
                                 "    def __init__(self):\n"
                                 "        super().__init__(\n"
                                 "            input_params=(\"height\", \"width\"),\n"
                                 "            output_params=(\"noise\", \"bruit_\xE9\"),\n" // é in Latin-1
                                 "        )\n"
                                 "def model_fn(dit=None, **kwargs):\n"
                                 "    return dit\n";

    // A Latin-1 file (PEP 263 cookie) imports, its text read as Latin-1.
    const ImportResult latin1 = importDiffSynthSource("# -*- coding: latin-1 -*-\n" + pipeline, "tiny.py");
    QVERIFY(latin1.ok());
    QCOMPARE(briefs(latin1.pipelines.front().pipeline),
        QStringList{"Unit_Noise in=[height,width] posi=- nega=- out=[noise,bruit_\xC3\xA9] models=- stochastic"});
    // Without the cookie the same bytes are not UTF-8: the string is refused, reported after
    // it with Python's decoder error, as CPython reports it.
    const ImportResult undeclared = importDiffSynthSource(pipeline, "tiny.py");
    QVERIFY(!undeclared.ok());
    QCOMPARE(QString::fromStdString(undeclared.diagnostics.front().toString()),
        QString("tiny.py:9:46: error: Python syntax error: (unicode error) 'utf-8' codec can't decode byte 0xe9 in "
                "position 6: unexpected end of data"));
    // In a comment they are no error: Python's compile(), which `import` uses, skips comments.
    const std::string commented = std::string("# Copyright (c) Ren\xE9\n")
        + pipeline.substr(0, pipeline.find("\"bruit")) + "),  # bruit_\xE9\n" + pipeline.substr(pipeline.find("        )\n"));
    const ImportResult comment = importDiffSynthSource(commented, "tiny.py");
    QVERIFY(comment.ok());
    QCOMPARE(briefs(comment.pipelines.front().pipeline),
        QStringList{"Unit_Noise in=[height,width] posi=- nega=- out=[noise] models=- stochastic"});
    // Columns in a Latin-1 file count characters: "é" is one, as in the UTF-8 file.
    const std::string broken = "# coding: iso-8859-1\n" + pipeline + "caf\xE9 = '\xE9t\xE9' $\n";
    QCOMPARE(QString::fromStdString(importDiffSynthSource(broken, "tiny.py").diagnostics.front().toString()),
        QString("tiny.py:14:14: error: Python syntax error: invalid syntax"));

    // An ascii cookie: ASCII text reads; another byte is an error naming it and where it is.
    QVERIFY(importDiffSynthSource("# coding: ascii\n" + pipeline.substr(0, pipeline.find("\"bruit")) + "),\n"
                                  + pipeline.substr(pipeline.find("        )\n")),
        "tiny.py")
                .ok());
    const ImportResult ascii = importDiffSynthSource("# coding: ascii\n" + pipeline, "tiny.py");
    QVERIFY(!ascii.ok());
    QCOMPARE(QString::fromStdString(ascii.diagnostics.front().toString()),
        QString("tiny.py: error: Python syntax error: 'ascii' codec can't decode byte 0xe9 in position 314: ordinal "
                "not in range(128)"));

    // Any codec CPython knows reads: cp1252 here.
    const ImportResult cp1252 = importDiffSynthSource("#!/usr/bin/env python\n# -*- coding: cp1252 -*-\n" + pipeline, "tiny.py");
    QVERIFY(cp1252.ok());
    QCOMPARE(briefs(cp1252.pipelines.front().pipeline),
        QStringList{"Unit_Noise in=[height,width] posi=- nega=- out=[noise,bruit_\xC3\xA9] models=- stochastic"});

    // A name that is not an identifier to Python is a syntax error naming the character.
    std::string utf8 = pipeline;
    utf8.replace(utf8.find("bruit_\xE9"), 7, "bruit");
    QVERIFY(importDiffSynthSource(utf8, "tiny.py").ok());
    std::string euro = utf8;
    euro.replace(euro.find("dit=None"), 3, "d\xE2\x82\xACt");
    QCOMPARE(QString::fromStdString(importDiffSynthSource(euro, "tiny.py").diagnostics.front().toString()),
        QString::fromUtf8("tiny.py:11:15: error: Python syntax error: invalid character '\xE2\x82\xAC' (U+20AC)"));

    // Python normalizes names with NFKC (PEP 3131), and so does the importer: a class written
    // "Ｕnit_Noise" (a fullwidth U) is the Unit_Noise that self.units names, and nothing is said.
    std::string fullwidth = utf8;
    fullwidth.replace(fullwidth.find("class Unit_Noise"), 7, "class \xEF\xBC\xB5");
    fullwidth.replace(fullwidth.find("**kwargs"), 0, "\xEF\xBD\x8C" "atents=None, ");
    const ImportResult normalized = importDiffSynthSource(fullwidth, "tiny.py");
    QVERIFY(normalized.ok());
    QCOMPARE(briefs(normalized.pipelines.front().pipeline),
        QStringList{"Unit_Noise in=[height,width] posi=- nega=- out=[noise,bruit] models=- stochastic"});
    const auto codes = [](const Diagnostics &diagnostics) {
        QStringList out;
        for (const Diagnostic &d : diagnostics)
            out << QString::fromStdString(d.code);
        return out;
    };
    QCOMPARE(codes(normalized.diagnostics), codes(importDiffSynthSource(utf8, "tiny.py").diagnostics));
}

void TestDiffSynthImporter::losses()
{
    ImportOptions distill;
    distill.lossName = "DirectDistillLoss";
    const ImportResult d = importFixture("qwen_image.py", distill);
    QVERIFY(d.ok());
    const Pipeline &p = d.pipelines.front().pipeline;
    QCOMPARE(p.loss->name, std::string("DirectDistillLoss"));
    const auto &params = *p.loss->inputParams;
    QVERIFY(std::find(params.begin(), params.end(), "num_inference_steps") != params.end());
    QVERIFY(std::find(params.begin(), params.end(), "progress_id") == params.end()); // the loss passes it
    QVERIFY(std::find(params.begin(), params.end(), "max_timestep_boundary") == params.end());

    ImportOptions custom;
    custom.lossName = "MyLoss";
    const ImportResult c = importFixture("literals.py", custom);
    QVERIFY(c.ok());
    QVERIFY(findDiagnostic(c.diagnostics, "unknown-loss", -1));
    QCOMPARE(lossParams(c.pipelines.front().pipeline), QString("[latents,mask,prompt_emb]"));
}

namespace {

// "name@line" for each fact, or "-" when the importer left the list unset.
QString facts(const std::optional<std::vector<BodyFact>> &items, bool withFrom = false)
{
    if (!items)
        return "-";
    QStringList out;
    for (const BodyFact &f : *items) {
        QString one = QString::fromStdString(f.name) + "@" + QString::number(f.line);
        if (withFrom)
            one += "<" + list(f.from) + (f.random ? " random" : "") + ">";
        out << one;
    }
    return out.join(' ');
}

} // namespace

// What the bodies of bodies.py's units do, fact by fact, and the findings the split reports.
void TestDiffSynthImporter::bodyChecks()
{
    const ImportResult r = importFixture("bodies.py");
    QVERIFY(r.ok());
    const Pipeline &p = r.pipelines.front().pipeline;
    // from_pretrained fetches image_projector (through a local), so it is a model.
    QCOMPARE(modelNames(p), QStringList({"text_encoder", "vae", "dit", "bodies_text_encoder", "image_projector"}));
    QVERIFY(findDiagnostic(r.diagnostics, "unannotated-model", -1));
    QStringList uses, reads, returns;
    for (const Unit &u : p.units) {
        uses << facts(u.usesModels);
        reads << facts(u.reads);
        returns << facts(u.returns, true);
        QCOMPARE(u.usesModels->empty() || u.usesModels->front().file == "bodies.py", true);
    }
    // vae through the pipeline's helper (line 50), text_encoder through the unit's helper
    // and a local alias; image_projector handed to another model; the DiT's patchify uses
    // no weights, and getattr, settings and .to() are no calls.
    QCOMPARE(uses, QStringList({"", "vae@50", "text_encoder@93", "vae@114 image_projector@114", "", "", ""}));
    QCOMPARE(reads,
        QStringList({"height@57 width@57 seed@57", "input_image@73 noise@73", "negative_prompt@95 prompt@95",
            "reference_image@111", "input_latents@122", "guidance@134 cfg_scale@134", "latent_patches@144 mask@144"}));
    QCOMPARE(returns,
        QStringList({"noise@61<[height,seed,width] random>", "latents@75<[noise]> input_latents@75<[input_image]>",
            "prompt_embeds@98<[negative_prompt,prompt]>", "reference_emb@114<[reference_image]>",
            "latent_patches@125<[input_latents]>", "guidance_emb@135<[cfg_scale,guidance]>",
            "merged@145<[latent_patches,mask]>"}));

    const PipelineGraph g(p);
    QStringList found;
    for (const DeclarationFinding &f : verifySplit(g, computeSeedSplit(g, {"text_encoder"})).findings)
        found << QString::fromStdString(std::string(declarationFindingName(f.kind)) + ":" + g.unitName(f.unit) + ":"
            + f.name + (f.hazard ? ":hazard" : ""));
    QCOMPARE(found,
        QStringList({"undeclared-model:Bodies_Prompt:text_encoder:hazard", "undeclared-output:Bodies_Prompt:prompt_embeds",
            "unreturned-output:Bodies_Prompt:prompt_emb", "undeclared-model:Bodies_Reference:image_projector",
            "unreturned-output:Bodies_Reference:reference_mask", "undeclared-read:Bodies_Guidance:cfg_scale",
            "undeclared-read:Bodies_Merge:mask"}));
    QVERIFY(computeSafeSplit(g, {"text_encoder"}).isTrained(g.findUnit("Bodies_Prompt")));
    // The noise reaches latents only, which the loss rebuilds: no frozen draws.
    const Verification typical = verifySplit(g, computeSeedSplit(g, {"dit"}));
    QVERIFY(typical.frozenRandomness.empty());
    QCOMPARE(typical.unusedRandomness, std::vector<UnitId>{g.findUnit("Bodies_Noise")});
}

// A loss defined in the imported files is read from its code: what it reads by key and
// through model_fn, and what it writes before reading (latents).
void TestDiffSynthImporter::lossFromItsCode()
{
    const ImportResult r = importFixture("bodies.py");
    const LossSpec &loss = *r.pipelines.front().pipeline.loss;
    QCOMPARE(list(*loss.inputParams), QString("[guidance_emb,input_latents,merged,prompt_emb]"));
    QCOMPARE(list(*loss.outputParams), QString("[latents]"));
    QVERIFY(!findDiagnostic(r.diagnostics, "unknown-loss", -1));
}

// DiffSynth tests `model in onload_model_names`: a str is a substring test, and the
// warning says so; the split then follows it (tst_bodyfacts).
void TestDiffSynthImporter::onloadNamesAsAString()
{
    const std::string source = "class P(BasePipeline):\n"
                               "    def __init__(self):\n"
                               "        self.video_vae_encoder: VAE = None\n"
                               "        self.vae: VAE = None\n"
                               "        self.units = [U()]\n"
                               "class U(PipelineUnit):\n"
                               "    def __init__(self):\n"
                               "        super().__init__(input_params=(\"video\",), output_params=(\"latents\",),\n"
                               "                         onload_model_names=(\"video_vae_encoder\"))\n";
    const ImportResult r = importDiffSynthSource(source, "video.py");
    QVERIFY(r.ok());
    const Diagnostic *d = findDiagnostic(r.diagnostics, "string-as-list", 9);
    QVERIFY(d);
    QVERIFY(QString::fromStdString(d->message).contains("a substring test: every model whose name is part of "
                                                        "\"video_vae_encoder\" counts as called"));
    const Pipeline &p = r.pipelines.front().pipeline;
    QVERIFY(p.units.front().onloadModelNamesIsString());
    QVERIFY(p.units.front().callsModel("vae"));
    const PipelineGraph g(p);
    QCOMPARE(computeSeedSplit(g, {"vae"}).x0, std::vector<UnitId>{0});
}

// An example's train.py in a checkout: the pipeline it trains, the units its flags add,
// the loss of its task, the training block from its flags.
void TestDiffSynthImporter::trainingScript()
{
    const std::string script = fixturePath("checkout/examples/tiny_image/model_training/train.py");
    const ImportResult plain = importDiffSynthPath(script);
    QVERIFY(plain.ok());
    QCOMPARE(plain.pipelines.size(), std::size_t(1));
    const Pipeline &p = plain.pipelines.front().pipeline;
    QCOMPARE(p.name, std::string("tiny_image"));
    QCOMPARE(briefs(p).size(), 5);
    const Diagnostic *added = findDiagnostic(plain.diagnostics, "training-units", 15);
    QVERIFY(added);
    QCOMPARE(QString::fromStdString(added->message),
        QString("2 units are added before the pipeline's own when --template_model_id_or_path is given; it is not"));
    QCOMPARE(*p.loss->outputParams, std::vector<std::string>{"latents"});
    QCOMPARE(list(*p.loss->inputParams), QString("[image_ids,input_latents,kv_cache,min_timestep_boundary,prompt_emb]"));
    QCOMPARE(*p.training->loraBaseModel, std::string("dit")); // in_iteration_models, no flag given

    ImportOptions flagged;
    flagged.flags = {{"template_model_id_or_path", "Org/Template"}, {"task", "direct_distill"},
        {"trainable_models", "template_model"}};
    const ImportResult templated = importDiffSynthPath(script, flagged);
    QVERIFY(templated.ok());
    const Pipeline &t = templated.pipelines.front().pipeline;
    QCOMPARE(briefs(t).mid(0, 2),
        QStringList({"GeneralUnit_TemplateProcessInputs in=[template_inputs] posi=- nega=- out=[template_inputs] models=-",
            "GeneralUnit_TemplateForward in=[template_inputs] posi=- nega=- out=[kv_cache] models=[template_model]"}));
    QCOMPARE(briefs(t).size(), 7);
    QCOMPARE(t.loss->name, std::string("DirectDistillLoss"));
    QVERIFY(!t.loss->outputParams); // it reads latents before writing them
    QVERIFY(std::find(t.loss->inputParams->begin(), t.loss->inputParams->end(), "latents") != t.loss->inputParams->end());
    QCOMPARE(*t.training->trainableModels, std::string("template_model"));
    QVERIFY(!t.training->loraBaseModel);
    // The template model needs gradients here. Only TemplateForward declares it, so
    // DiffSynth's split caches TemplateProcessInputs, which calls it too (as DiffSynth's
    // own GeneralUnit_TemplateProcessInputs does): lost gradients, which the safe split keeps.
    const PipelineGraph g(t);
    const Split seed = computeSeedSplit(g, {"template_model"});
    QCOMPARE(seed.x0, std::vector<UnitId>{1});
    QCOMPARE(verifySplit(g, seed).lostGradients(), std::size_t(1));
    QCOMPARE(computeSafeSplit(g, {"template_model"}).x0, (std::vector<UnitId>{0, 1}));

    // A train.py outside a checkout has no pipeline to read.
    QTemporaryDir loose;
    QVERIFY(QFile::copy(QString::fromStdString(script), loose.filePath("train.py")));
    const ImportResult outside = importDiffSynthPath(loose.filePath("train.py").toStdString());
    QVERIFY(!outside.ok());
    QVERIFY(QString::fromStdString(outside.diagnostics.front().message).contains("outside a DiffSynth-Studio checkout"));
}

// In a checkout the classes of model attributes are read from diffsynth/models/: a class
// that is no torch module is no model, and a method that uses no weights is no call.
void TestDiffSynthImporter::checkoutModels()
{
    const ImportResult r = importDiffSynthPath(fixturePath("checkout"));
    QVERIFY(r.ok());
    QCOMPARE(r.pipelines.size(), std::size_t(1));
    const ImportedPipeline &imported = r.pipelines.front();
    QCOMPARE(modelNames(imported.pipeline), QStringList({"text_encoder", "dit", "vae"}));
    const Diagnostic *patchifier = findDiagnostic(r.diagnostics, "not-a-model", 16);
    QVERIFY(patchifier);
    QCOMPARE(QString::fromStdString(patchifier->message),
        QString("self.patchifier: Patchifier is not counted as a model (its class Patchifier is not a torch.nn.Module)"));
    QCOMPARE(facts(imported.pipeline.units.back().usesModels), QString(""));
    QStringList bindings;
    for (const ModelBinding &b : imported.modelBindings)
        bindings << QString::fromStdString(b.attribute + "=" + b.model);
    QCOMPARE(bindings, QStringList({"text_encoder=tiny_text_encoder", "dit=tiny_dit", "vae=tiny_vae"}));
}

QTEST_GUILESS_MAIN(TestDiffSynthImporter)
// ("height" "width") is one str to Python, "heightwidth": the likely mistake is the
// comma between the names, not a trailing one after their join. The reading stays
// Python's (and DiffSynth's); the warning names the fix.
void TestDiffSynthImporter::missingCommaBetweenNames()
{
    const std::string source = "class TinyPipeline(BasePipeline):\n"
                               "    def __init__(self):\n"
                               "        self.units = [Unit_Shape(), Unit_Noise()]\n"
                               "        self.in_iteration_models = (\"dit\" \"vae\")\n"
                               "        self.model_fn = model_fn\n"
                               "class Unit_Shape(PipelineUnit):\n"
                               "    def __init__(self):\n"
                               "        super().__init__(input_params=(\"height\" \"width\"), output_params=(\"height\", \"width\"))\n"
                               "class Unit_Noise(PipelineUnit):\n"
                               "    def __init__(self):\n"
                               "        super().__init__(\n"
                               "            input_params=(\"seed\" \"rand_device\", \"height\"),\n"
                               "            output_params=(\"use_gradient\" \"_checkpointing\", \"noise\"),\n"
                               "        )\n"
                               "def model_fn(dit=None, vae=None, **kwargs):\n"
                               "    return dit\n";
    const ImportResult r = importDiffSynthSource(source, "tiny.py");
    QVERIFY(r.ok());
    QCOMPARE(briefs(r.pipelines.front().pipeline),
        QStringList({"Unit_Shape in=\"heightwidth\" posi=- nega=- out=[height,width] models=-",
            "Unit_Noise in=[seedrand_device,height] posi=- nega=- out=[use_gradient_checkpointing,noise] models=- "
            "stochastic"}));
    // A split on purpose (at an underscore) is no mistake: nothing at line 13.
    QCOMPARE(problems(r.diagnostics), QStringList({"missing-comma@4", "missing-comma@8", "missing-comma@12"}));
    QCOMPARE(QString::fromStdString(findDiagnostic(r.diagnostics, "missing-comma", 8)->toString()),
        QString("tiny.py:8:40: warning: Unit_Shape.input_params: input_params is (\"height\" \"width\"), adjacent str "
                "literals that Python joins into the one str \"heightwidth\": most likely a comma is missing, as in "
                "(\"height\", \"width\"). As written DiffSynth iterates the str character by character; read as the "
                "one-element list [\"heightwidth\"]"));
    QCOMPARE(QString::fromStdString(findDiagnostic(r.diagnostics, "missing-comma", 12)->toString()),
        QString("tiny.py:12:27: warning: Unit_Noise.input_params[0]: element 0 of input_params is \"seed\" "
                "\"rand_device\", adjacent str literals that Python joins into the one name \"seedrand_device\": most "
                "likely a comma is missing, as in \"seed\", \"rand_device\"; read as \"seedrand_device\", as Python reads it"));
    QCOMPARE(QString::fromStdString(findDiagnostic(r.diagnostics, "missing-comma", 4)->message),
        QString("in_iteration_models is (\"dit\" \"vae\"), adjacent str literals that Python joins into the one str "
                "\"ditvae\": most likely a comma is missing, as in (\"dit\", \"vae\"); read as one model name"));
    // No advice that would keep the join.
    for (const Diagnostic &d : r.diagnostics)
        QVERIFY2(d.message.find("write (\"heightwidth\",)") == std::string::npos, d.toString().c_str());
}

#include "tst_diffsynthimporter.moc"
