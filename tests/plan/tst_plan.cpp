// SPDX-License-Identifier: MIT
// The planner: shell scripts read as sh reads them, the train.py command found and
// written back with every untouched flag verbatim, model entries mapped to pipeline
// models by their files (DiffSynth's hash, model_configs.py, from_pretrained), by their
// names or by the user, the plans of the fixtures equal to the expected files, the stage
// commands differing from the one-stage command exactly by the feature document's
// changes, the document's own Qwen-Image example, and every kind of bad input.
#include "PlanTestSupport.h"
#include "support/TestFiles.h"

#include "core/PipelineFile.h"
#include "core/plan/ModelFiles.h"
#include "core/plan/Plan.h"
#include "resources/Examples.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace splitscope;
using namespace splitscope::plan;

namespace {

const std::string kCheckout = SPLITSCOPE_PLAN_CHECKOUT;
const std::string kFixtures = SPLITSCOPE_PLAN_FIXTURES;

// "name=value" (or "name" for a switch) for each flag of the train.py command in `text`.
std::set<std::string> flagsOf(const std::string &text)
{
    const FoundCommand found = findTrainCommand(parseShellScript(text));
    std::set<std::string> out;
    if (!found.command)
        return {"error: " + found.error};
    for (const TrainFlag &f : found.command->flags)
        out.insert(f.name + (f.value ? "=" + *f.value : std::string()));
    return out;
}

std::set<std::string> setOf(std::initializer_list<const char *> items)
{
    return std::set<std::string>(items.begin(), items.end());
}

QString show(const std::set<std::string> &items)
{
    QStringList out;
    for (const std::string &s : items)
        out << QString::fromStdString(s);
    return out.join("\n");
}

PlanInput fixtureInput(const char *script, const std::string &workdir)
{
    PlanInput in;
    in.scriptName = script;
    in.script = test::readFileText(kFixtures + "/" + script);
    in.checkout = kCheckout;
    in.workdir = workdir;
    return in;
}

QString errors(const PlanResult &r)
{
    QStringList out;
    for (const Diagnostic &d : r.diagnostics)
        out << QString::fromStdString(d.toString());
    return out.join("\n");
}

} // namespace

class TestPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void shellWords_data();
    void shellWords();
    void trainCommand();
    void modelFiles();
    void expectedPlans_data();
    void expectedPlans();
    void stageCommandsChangeWhatTheDocumentSays();
    void theDocumentsQwenImageExample();
    void entriesByTheUser();
    void entriesByTheExampleComments();
    void prune();
    void badInput_data();
    void badInput();

private:
    QTemporaryDir m_work;
};

void TestPlan::initTestCase()
{
    QVERIFY(m_work.isValid());
    testing::writeTinyModels(m_work.path().toStdString());
}

void TestPlan::shellWords_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QStringList>("commands"); // each command's word values, joined by "|"
    QTest::addRow("continued lines and comments")
        << "# a comment\nrun a \\\n  b  # trailing\nnext" << QStringList{"run|a|b", "next"};
    QTest::addRow("quotes") << R"(cmd 'single quoted' "double \"quoted\" \$x" bare\ space "a"'b'c)"
                            << QStringList{"cmd|single quoted|double \"quoted\" $x|bare space|abc"};
    QTest::addRow("separators") << "a 1; b 2 && c 3 || d | e & f" << QStringList{"a|1", "b|2", "c|3", "d", "e", "f"};
    QTest::addRow("redirections stay words") << "train > log 2>&1" << QStringList{"train|>|log|2>&1"};
    QTest::addRow("a quote across lines") << "echo 'a\nb' c" << QStringList{"echo|a\nb|c"};
    QTest::addRow("crlf") << "a b\r\nc\r\n" << QStringList{"a|b", "c"};
}

void TestPlan::shellWords()
{
    QFETCH(QString, script);
    QFETCH(QStringList, commands);
    const ShellScript s = parseShellScript(script.toStdString());
    QVERIFY2(s.error.empty(), s.error.c_str());
    QStringList got;
    for (const ShellCommand &c : s.commands) {
        QStringList words;
        for (const ShellWord &w : c.words)
            words << QString::fromStdString(w.value);
        got << words.join('|');
    }
    QCOMPARE(got, commands);
}

void TestPlan::trainCommand()
{
    const ShellScript s = parseShellScript("x=1\nFOO=bar accelerate launch --num_processes 2 train.py --a 1 --b=\"two words\" "
                                           "--switch --c '$HOME' --d \"$HOME\" > out.log\n");
    const FoundCommand found = findTrainCommand(s);
    QVERIFY2(found.command, found.error.c_str());
    const TrainCommand &c = *found.command;
    QCOMPARE(c.line, 2);
    QCOMPARE(c.prefix, (std::vector<std::string>{"FOO=bar", "accelerate", "launch", "--num_processes", "2"}));
    QCOMPARE(c.script, std::string("train.py"));
    QCOMPARE(c.flags.size(), std::size_t(5));
    QCOMPARE(*c.value("b"), std::string("two words"));
    QVERIFY(!c.value("switch") && c.flag("switch"));
    QVERIFY(!c.flag("c")->expands && c.flag("d")->expands); // single quotes keep $ literal
    QCOMPARE(c.suffix, (std::vector<std::string>{">", "out.log"}));
    // Written back: untouched flags verbatim, quoting included; edits quoted as the examples do.
    QCOMPARE(QString::fromStdString(renderCommand(c, {{"a", std::string("x y"), false}, {"switch", {}, true},
                                                        {"task", std::string("sft:train"), false}})),
        QString("FOO=bar accelerate launch --num_processes 2 train.py \\\n  --a \"x y\" \\\n  --b=\"two words\" \\\n"
                "  --c '$HOME' \\\n  --d \"$HOME\" \\\n  --task \"sft:train\" > out.log\n"));
    QCOMPARE(QString::fromStdString(shellQuote("a*b")), QString("\"a*b\""));
    QCOMPARE(QString::fromStdString(shellQuote("it's $x")), QString("'it'\\''s $x'"));

    const FoundCommand twice = findTrainCommand(parseShellScript("python train.py --a 1 \\\n  --a 2\n"));
    QVERIFY(!twice.command);
    QCOMPARE(twice.line, 2);
    QCOMPARE(QString::fromStdString(twice.error),
        QString("--a is given twice (lines 1 and 2); train.py would take the last one, so say which you mean"));
    const FoundCommand none = findTrainCommand(parseShellScript("echo hello\nls\n"));
    QVERIFY(!none.command);
    QVERIFY(QString::fromStdString(none.error).startsWith("no command runs a train.py"));
    const FoundCommand two = findTrainCommand(parseShellScript("python a/train.py\npython b/train.py\n"));
    QCOMPARE(QString::fromStdString(two.error),
        QString("2 commands run a train.py (lines 1 and 2); a one-stage script has one: say which with --line 1 (or "
                "another of those lines)"));
    // Wan2.2's scripts train the high- and the low-noise DiT one after the other: --line picks one.
    const ShellScript three = parseShellScript("python a/train.py --x 1\npython b/train.py \\\n  --x 2\n\npython c/train.py\n");
    QCOMPARE(QString::fromStdString(findTrainCommand(three).error).section(';', 0, 0),
        QString("3 commands run a train.py (lines 1, 2 and 5)"));
    const FoundCommand second = findTrainCommand(three, 2);
    QVERIFY(second.command);
    QCOMPARE(second.command->script, std::string("b/train.py"));
    QCOMPARE(QString::fromStdString(findTrainCommand(three, 3).error),
        QString("no command that runs a train.py starts on line 3 (they start on lines 1, 2 and 5)"));
}

void TestPlan::modelFiles()
{
    const std::string root = m_work.path().toStdString() + "/models/Tiny";
    const std::vector<std::string> shards = entryFiles(m_work.path().toStdString() + "/models", "Tiny/Tiny-Image",
        "transformer/diffusion_pytorch_model*.safetensors");
    QCOMPARE(shards.size(), std::size_t(2));
    std::vector<SafetensorsHeader> headers;
    for (const std::string &s : shards)
        headers.push_back(readSafetensorsHeader(s));
    QVERIFY(headers[0].error.empty());
    QCOMPARE(headers[0].bytes, std::uint64_t(4 * (64 + 8 + 64)));
    // DiffSynth's hash of the two shards together, as model_configs.py lists it.
    QCOMPARE(diffSynthModelHash(headers), std::string("110089c35fa548e602b9e061ff21ee30"));
    const ModelConfigs configs = readModelConfigs(kCheckout);
    QVERIFY(configs.diagnostics.empty());
    QCOMPARE(configs.byHash.at("110089c35fa548e602b9e061ff21ee30").front().model, std::string("tiny_dit"));
    QCOMPARE(configs.byHash.at("a5adc37b641599741c9e992ecf1af2e5").size(), std::size_t(2)); // one file, two models
    QCOMPARE(configs.baseVariable, std::string("DIFFSYNTH_MODEL_BASE_PATH"));
    QCOMPARE(configs.defaultBase, std::string("./models"));
    // Not a safetensors file.
    std::ofstream(root + "/broken.safetensors") << "not a header";
    QVERIFY(!readSafetensorsHeader(root + "/broken.safetensors").error.empty());
    QCOMPARE(readSafetensorsHeader(root + "/missing.safetensors").error, std::string("cannot be read"));
}

void TestPlan::expectedPlans_data()
{
    QTest::addColumn<QString>("script");
    QTest::addRow("lora") << "lora.sh";
    QTest::addRow("full") << "full.sh";
    QTest::addRow("template") << "template.sh";
}

void TestPlan::expectedPlans()
{
    QFETCH(QString, script);
    const PlanResult r = makePlan(fixtureInput(script.toStdString().c_str(), m_work.path().toStdString()));
    QVERIFY2(r.plan, qPrintable(errors(r)));
    const std::string expectedPath = kFixtures + "/../expected/" + script.chopped(3).toStdString() + ".json";
    const std::string json = planToJson(*r.plan);
    if (qEnvironmentVariableIsSet("SPLITSCOPE_WRITE_EXPECTED"))
        std::ofstream(expectedPath) << json;
    QCOMPARE(QString::fromStdString(json), QString::fromStdString(test::readFileText(expectedPath)));
}

// Parsed back, each stage command differs from the one-stage command by exactly what the
// feature document says to change.
void TestPlan::stageCommandsChangeWhatTheDocumentSays()
{
    const PlanResult r = makePlan(fixtureInput("lora.sh", m_work.path().toStdString()));
    QVERIFY2(r.plan, qPrintable(errors(r)));
    const std::set<std::string> original = flagsOf(test::readFileText(kFixtures + "/lora.sh"));
    const auto difference = [](const std::set<std::string> &a, const std::set<std::string> &b) {
        std::set<std::string> out;
        for (const std::string &x : a) {
            if (!b.count(x))
                out.insert(x);
        }
        return out;
    };
    const std::set<std::string> one = flagsOf(r.plan->stageOne.command);
    QCOMPARE(show(difference(original, one)),
        show(setOf({"dataset_repeat=50", "output_path=./models/train/Tiny-Image_lora"})));
    QCOMPARE(show(difference(one, original)),
        show(setOf({"dataset_repeat=1", "output_path=./models/train/Tiny-Image_lora-cache", "task=sft:data_process",
            "offload_models=Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors"})));
    const std::set<std::string> two = flagsOf(r.plan->stageTwo.command);
    QCOMPARE(show(difference(original, two)),
        show(setOf({"dataset_base_path=data/tiny_dataset", "dataset_metadata_path=data/tiny_dataset/metadata.csv"})));
    QCOMPARE(show(difference(two, original)),
        show(setOf({"dataset_base_path=./models/train/Tiny-Image_lora-cache", "task=sft:train",
            "offload_models=Tiny/Tiny-Image:text_encoder/model.safetensors,Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors"})));
    // The launcher is kept verbatim; the untouched flags too, quoting included.
    QVERIFY(r.plan->stageOne.command.rfind("accelerate launch --num_processes 1 examples/tiny_image/model_training/train.py", 0) == 0);
    QVERIFY(r.plan->stageTwo.command.find("--lora_target_modules 'to_q,to_k,to_v'") != std::string::npos);
}

// The feature document's Qwen-Image command, planned against the built-in qwen_image,
// gives its two commands (model entries, offload lists, tasks, repeat, paths) up to the
// order of flags and of the entries in a list.
void TestPlan::theDocumentsQwenImageExample()
{
    PlanInput in;
    in.scriptName = "qwen_image_lora.sh";
    in.script = test::readFileText(kFixtures + "/qwen_image_lora.sh");
    in.pipeline = *parsePipeline(findBuiltinExample("qwen_image")->json, "qwen_image").pipeline;
    in.workdir = m_work.path().toStdString();
    in.cachePath = "./models/train/Qwen-Image-LoRA-splited-cache";
    in.outputPath = "./models/train/Qwen-Image-LoRA-splited";
    QVERIFY(in.pipeline->loss);
    in.pipeline->loss->models = std::vector<std::string>{"dit", "blockwise_controlnet"}; // as the importer reads it
    const PlanResult r = makePlan(in);
    QVERIFY2(r.plan, qPrintable(errors(r)));
    // The loss runs blockwise_controlnet when there is one; the command loads none.
    QCOMPARE(r.plan->stageOne.models, (std::vector<std::string>{"text_encoder", "vae"}));
    QCOMPARE(r.plan->stageTwo.models, (std::vector<std::string>{"dit"}));
    for (const PlannedModel &m : r.plan->models)
        QCOMPARE(m.resolvedBy, std::string("names")); // no files here
    // Lists compared as sets: the document reorders the model entries.
    const auto normalized = [](std::set<std::string> flags) {
        std::set<std::string> out;
        for (const std::string &f : flags) {
            const std::size_t equals = f.find('=');
            if (equals == std::string::npos || (f.rfind("model_id_with_origin_paths", 0) != 0 && f.rfind("offload_models", 0) != 0)) {
                out.insert(f);
                continue;
            }
            std::set<std::string> entries;
            std::stringstream list(f.substr(equals + 1));
            for (std::string e; std::getline(list, e, ',');)
                entries.insert(e);
            std::string joined;
            for (const std::string &e : entries)
                joined += (joined.empty() ? "" : ",") + e;
            out.insert(f.substr(0, equals + 1) + joined);
        }
        return out;
    };
    const std::string entries = "Qwen/Qwen-Image:text_encoder/model*.safetensors,Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,"
                                "Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors";
    const std::set<std::string> common = {"max_pixels=1048576", "model_id_with_origin_paths=" + entries, "learning_rate=1e-4",
        "num_epochs=5", "remove_prefix_in_ckpt=pipe.dit.", "lora_base_model=dit",
        "lora_target_modules=to_q,to_k,to_v,add_q_proj,add_k_proj,add_v_proj,to_out.0,to_add_out,img_mlp.net.2,img_mod.1,"
        "txt_mlp.net.2,txt_mod.1",
        "lora_rank=32", "use_gradient_checkpointing", "dataset_num_workers=8", "find_unused_parameters"};
    std::set<std::string> stageOne = common;
    stageOne.insert({"dataset_base_path=data/diffsynth_example_dataset/qwen_image/Qwen-Image",
        "dataset_metadata_path=data/diffsynth_example_dataset/qwen_image/Qwen-Image/metadata.csv", "dataset_repeat=1",
        "offload_models=Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors",
        "output_path=./models/train/Qwen-Image-LoRA-splited-cache", "task=sft:data_process"});
    std::set<std::string> stageTwo = common;
    stageTwo.insert({"dataset_base_path=./models/train/Qwen-Image-LoRA-splited-cache", "dataset_repeat=50",
        "offload_models=Qwen/Qwen-Image:text_encoder/model*.safetensors,Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors",
        "output_path=./models/train/Qwen-Image-LoRA-splited", "task=sft:train"});
    QCOMPARE(show(normalized(flagsOf(r.plan->stageOne.command))), show(normalized(stageOne)));
    QCOMPARE(show(normalized(flagsOf(r.plan->stageTwo.command))), show(normalized(stageTwo)));
    QVERIFY(r.plan->stageOne.command.rfind("accelerate launch examples/qwen_image/model_training/train.py", 0) == 0);
    QVERIFY(r.plan->hazards.empty());
}

void TestPlan::entriesByTheUser()
{
    // Without files or names to go by, only the user can say; the error says what was tried.
    PlanInput in;
    in.scriptName = "odd.sh";
    in.script = "python examples/qwen_image/model_training/train.py --dataset_base_path d --lora_base_model dit "
                "--model_id_with_origin_paths Org/Model:weights/part*.bin\n";
    in.pipeline = *parsePipeline(findBuiltinExample("qwen_image")->json, "qwen_image").pipeline;
    in.workdir = m_work.path().toStdString();
    const PlanResult unknown = makePlan(in);
    QVERIFY(!unknown.plan);
    QCOMPARE(unknown.diagnostics.front().code, std::string("unresolved-entry"));
    QVERIFY2(errors(unknown).startsWith("odd.sh:1:96: error: --model_id_with_origin_paths: which model of qwen_image "
                                        "'Org/Model:weights/part*.bin' holds is not known: tried its files (none match "),
        qPrintable(errors(unknown)));
    QVERIFY(errors(unknown).contains("its path's names, which match no model attribute; give --model "
                                     "'Org/Model:weights/part*.bin=ATTRIBUTE'"));
    in.models = {{"Org/Model:weights/part*.bin", {"dit"}}};
    const PlanResult told = makePlan(in);
    QVERIFY2(told.plan, qPrintable(errors(told)));
    QCOMPARE(told.plan->models.front().resolvedBy, std::string("user"));
    QVERIFY(!told.plan->models.front().stageOne && told.plan->models.front().stageTwo);
    // A user mapping names entries and models that exist.
    in.models = {{"Org/Model:other.bin", {"dit"}}};
    QCOMPARE(makePlan(in).diagnostics.front().code, std::string("unknown-entry"));
    in.models = {{"Org/Model:weights/part*.bin", {"unet"}}};
    QCOMPARE(makePlan(in).diagnostics.front().code, std::string("unknown-model"));
    // Two entries for one model: planned, with a warning naming both.
    in.models.clear();
    in.script = "python examples/qwen_image/model_training/train.py --dataset_base_path d --lora_base_model dit "
                "--model_id_with_origin_paths A/B:transformer/x.safetensors,C/D:transformer/y.safetensors\n";
    const PlanResult twice = makePlan(in);
    QVERIFY2(twice.plan, qPrintable(errors(twice)));
    // (The other warning: the built-in description does not list the loss's models.)
    const std::string both = "'A/B:transformer/x.safetensors' and 'C/D:transformer/y.safetensors' both hold dit: the "
                             "pipeline keeps one of them; check the entries (or say which with --model ENTRY=ATTR)";
    QCOMPARE(std::count(twice.plan->warnings.begin(), twice.plan->warnings.end(), both), std::ptrdiff_t(1));
    QCOMPARE(twice.plan->warnings.size(), std::size_t(2));
}

// No files to hash: the example comment above a config names the entry. The fixture's
// comments are wrong for text_encoder/ (two configs claim it, as in DiffSynth's own file):
// its names win, and a warning says so. The vae's comment agrees with its name.
void TestPlan::entriesByTheExampleComments()
{
    QTemporaryDir empty;
    const PlanResult r = makePlan(fixtureInput("lora.sh", empty.path().toStdString()));
    QVERIFY2(r.plan, qPrintable(errors(r)));
    std::map<std::string, const PlannedModel *> byEntry;
    for (const PlannedModel &m : r.plan->models)
        byEntry[m.entry] = &m;
    const PlannedModel *dit = byEntry.at("Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors");
    const PlannedModel *te = byEntry.at("Tiny/Tiny-Image:text_encoder/model.safetensors");
    const PlannedModel *vae = byEntry.at("Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors");
    QCOMPARE(dit->resolvedBy, std::string("names")); // no comment names transformer/
    QCOMPARE(dit->models, std::vector<std::string>{"dit"});
    QCOMPARE(te->resolvedBy, std::string("names"));
    QCOMPARE(te->models, std::vector<std::string>{"text_encoder"});
    QCOMPARE(vae->resolvedBy, std::string("configs"));
    QCOMPARE(vae->models, std::vector<std::string>{"vae"});
    QVERIFY2(QString::fromStdString(vae->how).startsWith("the example comment at model_configs.py:19 says it is tiny_vae (pipe.vae = "
                                                         "fetch_model(\"tiny_vae\") at "),
        vae->how.c_str());
    QVERIFY(!vae->bytes && vae->files.empty());
    QCOMPARE(r.plan->warnings.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(r.plan->warnings.front()).section(" (pipe.", 0, 0),
        QString("'Tiny/Tiny-Image:text_encoder/model.safetensors': the example comment at model_configs.py:7 says it is "
                "tiny_dit, tiny_text_encoder"));
    QVERIFY(r.plan->warnings.front().find("but its path names text_encoder; planned as text_encoder (with the files present "
                                          "the plan goes by their hash; or say which with --model)") != std::string::npos);
    // The plan is the same as with the files.
    const PlanResult withFiles = makePlan(fixtureInput("lora.sh", m_work.path().toStdString()));
    QVERIFY(withFiles.plan);
    QCOMPARE(r.plan->stageOne.command, withFiles.plan->stageOne.command);
    QCOMPARE(r.plan->stageTwo.command, withFiles.plan->stageTwo.command);
}

void TestPlan::prune()
{
    PlanInput in = fixtureInput("lora.sh", m_work.path().toStdString());
    in.prune = true;
    const PlanResult r = makePlan(in);
    QVERIFY2(r.plan, qPrintable(errors(r)));
    const std::set<std::string> one = flagsOf(r.plan->stageOne.command);
    QVERIFY(one.count("model_id_with_origin_paths=Tiny/Tiny-Image:text_encoder/model.safetensors,"
                      "Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors"));
    QVERIFY(std::none_of(one.begin(), one.end(), [](const std::string &f) { return f.rfind("offload_models", 0) == 0; }));
    QVERIFY(flagsOf(r.plan->stageTwo.command)
                .count("model_id_with_origin_paths=Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors"));
}

void TestPlan::badInput_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("checkout");
    QTest::addColumn<QString>("message"); // the first diagnostic, whole
    const QString checkout = QString::fromStdString(kCheckout);
    QTest::addRow("no train.py") << "echo hi\nls -l\n" << checkout
                                 << "s.sh:1: error: no command runs a train.py (such as `accelerate launch "
                                    "examples/qwen_image/model_training/train.py --dataset_base_path ...`)";
    QTest::addRow("a flag twice") << "python examples/tiny_image/model_training/train.py --task sft \\\n --task sft\n"
                                  << checkout
                                  << "s.sh:2:2: error: --task is given twice (lines 1 and 2); train.py would take the last "
                                     "one, so say which you mean";
    QTest::addRow("unknown pipeline") << "python examples/none/model_training/train.py --dataset_base_path d\n" << checkout
                                      << "s.sh:1: error: the command runs examples/none/model_training/train.py, which is "
                                         "neither in WORK nor in the checkout CHECKOUT";
    QTest::addRow("missing checkout") << "python examples/tiny_image/model_training/train.py\n" << "/no/such/checkout"
                                      << "/no/such/checkout: error: not a DiffSynth-Studio checkout: it has no "
                                         "diffsynth/pipelines/ folder";
    QTest::addRow("already a stage") << "python examples/tiny_image/model_training/train.py --task sft:train\n" << checkout
                                     << "s.sh:1:52: error: --task sft:train is already one stage of a split; plan from "
                                        "the one-stage command (--task sft)";
    QTest::addRow("no models") << "python examples/tiny_image/model_training/train.py --lora_base_model dit\n" << checkout
                               << "s.sh:1: error: the command loads no model (no --model_id_with_origin_paths, no "
                                  "--model_paths): nothing to plan";
    QTest::addRow("an unclosed quote") << "python train.py --a 'x\n" << checkout
                                       << "s.sh:1:21: error: a single quote (') that is never closed";
    QTest::addRow("a shell variable") << "python examples/tiny_image/model_training/train.py --model_id_with_origin_paths $M\n"
                                      << checkout
                                      << "s.sh:1:52: error: --model_id_with_origin_paths holds a shell expansion ($ or `): "
                                         "its value is only known when the shell runs the command; write it out to plan "
                                         "with it";
}

void TestPlan::badInput()
{
    QFETCH(QString, script);
    QFETCH(QString, checkout);
    QFETCH(QString, message);
    PlanInput in;
    in.scriptName = "s.sh";
    in.script = script.toStdString();
    in.checkout = checkout.toStdString();
    in.workdir = m_work.path().toStdString();
    const PlanResult r = makePlan(in);
    QVERIFY(!r.plan);
    QVERIFY(!r.diagnostics.empty());
    message.replace("WORK", m_work.path()).replace("CHECKOUT", checkout);
    QCOMPARE(QString::fromStdString(r.diagnostics.front().toString()), message);
}

QTEST_GUILESS_MAIN(TestPlan)
#include "tst_plan.moc"
