// SPDX-License-Identifier: MIT
// The Run panel's model layer without a worker: which descriptions can run and why
// not, the `splitscope-cli train` arguments of each stage, shell quoting, the
// checks before a launch (each problem on its field), events folded into a stage's
// record, the run history on disk, its table and the comparison of two runs.
#include "RunTestSupport.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/run/RunChecks.h"
#include "widgets/run/RunComparisonModel.h"
#include "widgets/run/RunEvent.h"
#include "widgets/run/RunFormat.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunHistoryModel.h"
#include "widgets/run/RunHistoryPanel.h"
#include "widgets/run/RunSession.h"
#include "widgets/run/LossChartView.h"
#include "widgets/run/MemoryChartView.h"

#include "core/PipelineFile.h"
#include "resources/Examples.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QCheckBox>
#include <QSlider>
#include <QTest>
#include <QTimer>

#include <cmath>

using namespace splitscope;
using namespace splitscope::test;

namespace {

Pipeline loadExample(const char *name)
{
    const BuiltinExample *e = findBuiltinExample(name);
    return e ? *parsePipeline(e->json, name).pipeline : Pipeline{};
}

const ExecutablePipeline &tiny()
{
    return executablePipelines().front();
}

// The value after `flag` in `args`, or "<absent>".
QString flagValue(const QStringList &args, const QString &flag)
{
    const qsizetype i = args.indexOf(flag);
    return i < 0 ? QStringLiteral("<absent>") : i + 1 < args.size() ? args.at(i + 1) : QString();
}

QList<RunField> fields(const QList<RunIssue> &issues)
{
    QList<RunField> out;
    for (const RunIssue &i : issues)
        out << i.field;
    return out;
}

QString messages(const QList<RunIssue> &issues)
{
    QStringList out;
    for (const RunIssue &i : issues)
        out << i.message;
    return out.join(QLatin1Char('\n'));
}

void feed(StageRun &run, const QList<QByteArray> &lines)
{
    for (const QByteArray &line : lines) {
        const auto event = RunEvent::parse(line);
        QVERIFY2(event, line.constData());
        run.apply(*event);
    }
}

// A finished session with a training stage whose numbers are given.
std::shared_ptr<RunSession> finishedSession(RunKind kind, double seconds, qint64 peak, double loss, double epochSeconds,
    int epochs = 2, const QString &dataset = QStringLiteral("/w/data"))
{
    RunConfig config;
    config.settings.epochs = epochs;
    config.settings.datasetPath = dataset;
    config.settings.outputPath = QStringLiteral("/w/out");
    if (kind != RunKind::StageOne)
        config.runFolder = QStringLiteral("/w/out/%1").arg(runFolderName(kind, QDateTime::currentDateTime()));
    auto session = std::make_shared<RunSession>(kind, config);
    for (RunStage stage : stagesOf(kind)) {
        StageRun &run = session->addStage(stage);
        run.outcome = StageRun::Outcome::Finished;
        run.processSeconds = seconds / static_cast<double>(stagesOf(kind).size());
        run.peakRss = peak;
        if (run.isTraining()) {
            run.finalLoss = loss;
            run.epochSeconds = {epochSeconds, epochSeconds};
            run.steps = 8;
            run.samplesPerSecond = 4.0 / epochSeconds;
            run.loss = {QPointF(1, 0.5), QPointF(2, 0.4)};
        }
        run.memory = {QPointF(0.5, static_cast<double>(peak) / 2), QPointF(1.0, static_cast<double>(peak))};
    }
    return session;
}

} // namespace

class TestRunConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void executability_data();
    void executability();
    void stageArguments();
    void argumentsFollowTheChoice();
    void processesRunTheLauncher();
    void shellQuoting_data();
    void shellQuoting();
    void settingsJson();
    void settingsFileIsChecked_data();
    void settingsFileIsChecked();
    void eachLaunchHasItsOwnFolder();
    void checksNameTheField();
    void cacheChecks();
    void cacheOfTheSameSplitWhateverTheMode();
    void eventsFoldIntoAStage();
    void badLinesAreNotEvents_data();
    void badLinesAreNotEvents();
    void stageRoundTripsThroughJson();
    void historyPersistsAndRefusesToOverwrite();
    void historyModel();
    void comparison();
    void baselinePairsOnlyWithTheSameTraining();
    void historySelectionAndShownRunsAgree();
    void manyRunsOverlaid();
    void historyDeleteAsksFirst();
    void historyShortColumnsStayInView();
    void formats();
    void lossChartSmoothsZoomsAndExports();
    void otherRanksKeepTheirOwnSeries();
};

void TestRunConfig::executability_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("task");
    QTest::addColumn<QString>("reason");
    QTest::addRow("tiny runs") << "tiny-qwen-image" << "" << "sft" << "";
    QTest::addRow("description only") << "qwen_image" << "" << ""
                                      << "qwen_image is a description only: it can be inspected, but Splitscope has no "
                                         "code for its units";
    QTest::addRow("edited unit") << "tiny-qwen-image" << "outputs" << ""
                                 << "differs from the engine's in units[3].output_params (QwenImageUnit_PromptEmbedder)";
    QTest::addRow("unit removed") << "tiny-qwen-image" << "drop" << "" << "differs from the engine's in its number of units";
    QTest::addRow("distill loss") << "tiny-qwen-image" << "distill" << "direct_distill" << "";
    QTest::addRow("unknown loss") << "tiny-qwen-image" << "loss" << ""
                                  << "has no loss named 'MyLoss' (the engine has FlowMatchSFTLoss, DirectDistillLoss)";
}

void TestRunConfig::executability()
{
    QFETCH(QString, example);
    QFETCH(QString, edit);
    QFETCH(QString, task);
    QFETCH(QString, reason);
    Pipeline p = loadExample(example.toLatin1().constData());
    QVERIFY(!p.units.empty());
    if (edit == QLatin1String("outputs"))
        p.units[3].outputParams.push_back("extra");
    else if (edit == QLatin1String("drop"))
        p.units.pop_back();
    else if (edit == QLatin1String("distill"))
        p.loss->name = "DirectDistillLoss";
    else if (edit == QLatin1String("loss"))
        p.loss->name = "MyLoss";
    const Executability e = checkExecutable(p);
    QCOMPARE(e.runnable(), reason.isEmpty());
    QCOMPARE(e.task, task);
    QVERIFY2(e.reason.contains(reason), qPrintable(e.reason));
    if (e.runnable())
        QCOMPARE(e.pipeline->name, QStringLiteral("tiny-qwen-image"));
}

void TestRunConfig::stageArguments()
{
    RunConfig c = tinyConfig(QStringLiteral("/w"));
    c.settings.epochs = 3;
    c.settings.datasetRepeat = 2;
    c.settings.learningRate = 0.0005;
    c.settings.seed = 7;
    c.settings.threads = 2;
    c.settings.cacheShardSize = 4;

    const QStringList one = trainArguments(c, tiny(), RunStage::StageOne, true);
    QCOMPARE(one.mid(0, 3), (QStringList{"train", "--task", "sft:data_process"}));
    QCOMPARE(flagValue(one, "--dataset_base_path"), QStringLiteral("/w/data"));
    QCOMPARE(flagValue(one, "--output_path"), QStringLiteral("/w/cache"));
    QCOMPARE(flagValue(one, "--model_root"), QStringLiteral("/w/models"));
    QCOMPARE(flagValue(one, "--model_id_with_origin_paths"), tiny().modelSpecs());
    // As DiffSynth's commands: the models this stage does not run are offloaded.
    QCOMPARE(flagValue(one, "--offload_models"),
        QStringLiteral("Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors"));
    QCOMPARE(flagValue(one, "--cache_shard_size"), QStringLiteral("4"));
    QCOMPARE(flagValue(one, "--lora_base_model"), QStringLiteral("dit"));
    for (const char *absent : {"--num_epochs", "--dataset_repeat", "--learning_rate", "--lora_target_modules", "--resume"})
        QCOMPARE(flagValue(one, absent), QStringLiteral("<absent>"));

    // A launch recorded before launches had folders of their own wrote to OUTPUT/two-stage.
    QCOMPARE(flagValue(trainArguments(c, tiny(), RunStage::StageTwo, true), "--output_path"),
        QStringLiteral("/w/out/two-stage"));
    c.runFolder = QStringLiteral("/w/out/both-20250614-101500");
    const QStringList two = trainArguments(c, tiny(), RunStage::StageTwo, true);
    QCOMPARE(flagValue(two, "--task"), QStringLiteral("sft:train"));
    QCOMPARE(flagValue(two, "--dataset_base_path"), QStringLiteral("/w/cache"));
    QCOMPARE(flagValue(two, "--output_path"), QStringLiteral("/w/out/both-20250614-101500"));
    QCOMPARE(flagValue(two, "--offload_models"),
        QStringLiteral("Qwen/Qwen-Image:text_encoder/model*.safetensors,Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors"));
    QCOMPARE(flagValue(two, "--num_epochs"), QStringLiteral("3"));
    QCOMPARE(flagValue(two, "--dataset_repeat"), QStringLiteral("2"));
    QCOMPARE(flagValue(two, "--learning_rate"), QStringLiteral("0.0005"));
    QCOMPARE(flagValue(two, "--lora_target_modules"), QStringLiteral("to_q,to_k"));
    QCOMPARE(flagValue(two, "--lora_rank"), QStringLiteral("4"));
    QCOMPARE(flagValue(two, "--remove_prefix_in_ckpt"), QStringLiteral("pipe.dit."));
    QCOMPARE(flagValue(two, "--seed"), QStringLiteral("7"));
    QCOMPARE(flagValue(two, "--num_threads"), QStringLiteral("2"));
    QVERIFY(two.contains("--resume"));
    QCOMPARE(flagValue(two, "--cache_shard_size"), QStringLiteral("<absent>"));

    const QStringList base = trainArguments(c, tiny(), RunStage::OneStage, false);
    QCOMPARE(flagValue(base, "--task"), QStringLiteral("sft"));
    QCOMPARE(flagValue(base, "--dataset_base_path"), QStringLiteral("/w/data"));
    QCOMPARE(flagValue(base, "--output_path"), QStringLiteral("/w/out/both-20250614-101500"));
    QCOMPARE(flagValue(base, "--offload_models"), QStringLiteral("<absent>"));
    QCOMPARE(flagValue(base, "--split_mode"), QStringLiteral("<absent>"));
    QVERIFY(!base.contains("--resume"));
}

void TestRunConfig::argumentsFollowTheChoice()
{
    RunConfig c = tinyConfig(QStringLiteral("/w"));
    c.training.trainable = {"text_encoder"};
    c.training.loraBase.reset();
    c.training.mode = SplitMode::Safe;
    c.settings.allowHazards = true;
    c.settings.threads = 0;
    c.datasetColumns = {QStringLiteral("image"), QStringLiteral("prompt"), QStringLiteral("edit_image")};
    const QStringList one = trainArguments(c, tiny(), RunStage::StageOne, false);
    QCOMPARE(flagValue(one, "--trainable_models"), QStringLiteral("text_encoder"));
    QCOMPARE(flagValue(one, "--lora_base_model"), QStringLiteral("<absent>"));
    QCOMPARE(flagValue(one, "--split_mode"), QStringLiteral("safe"));
    QVERIFY(one.contains("--allow_hazards"));
    QCOMPARE(flagValue(one, "--num_threads"), QStringLiteral("<absent>")); // all cores: the engine's default
    QCOMPARE(flagValue(one, "--data_file_keys"), QStringLiteral("image,edit_image"));
    QCOMPARE(flagValue(one, "--extra_inputs"), QStringLiteral("edit_image"));
    const QStringList two = trainArguments(c, tiny(), RunStage::StageTwo, false);
    QCOMPARE(flagValue(two, "--data_file_keys"), QStringLiteral("<absent>")); // stage two reads the cache
    QCOMPARE(flagValue(two, "--remove_prefix_in_ckpt"), QStringLiteral("<absent>"));
    QCOMPARE(c.label(), QStringLiteral("trainable text_encoder · safe split"));
    c.training.loraBase = "dit";
    QCOMPARE(c.label(), QStringLiteral("trainable text_encoder + LoRA on dit · safe split"));
    QCOMPARE(modelsRequiringBackward(c), (QStringList{"text_encoder", "dit"}));
}

// More than one process: the launcher's --nproc_per_node, the same run under
// torchrun shown beside it, and a difference in what training computes.
void TestRunConfig::processesRunTheLauncher()
{
    RunConfig c = tinyConfig(QStringLiteral("/w"));
    c.settings.threads = 1;
    QCOMPARE(flagValue(trainArguments(c, tiny(), RunStage::StageTwo, false), "--nproc_per_node"), QStringLiteral("<absent>"));
    QCOMPARE(torchrunCommand("splitscope-cli", trainArguments(c, tiny(), RunStage::StageTwo, false)), QString());
    RunConfig two = c;
    two.settings.processes = 2;
    const QStringList args = trainArguments(two, tiny(), RunStage::StageTwo, false);
    QCOMPARE(flagValue(args, "--nproc_per_node"), QStringLiteral("2"));
    const QString torchrun = torchrunCommand("splitscope-cli", args);
    QVERIFY2(torchrun.startsWith("torchrun --nproc_per_node 2 --no_python splitscope-cli train --task sft:train "),
        qPrintable(torchrun));
    QCOMPARE(torchrun.count("--nproc_per_node"), 1);
    QCOMPARE(trainingDifferences(c, two), QStringList{"processes 1 vs 2"});
    QVERIFY(two.details().contains("processes: 2"));
    QCOMPARE(RunSettings::fromJson(two.settings.toJson()).processes, 2);
    QStringList errors;
    QJsonObject json = two.settings.toJson();
    json["nproc_per_node"] = 0;
    QVERIFY(!RunSettings::fromJsonChecked(json, RunSettings(), &errors));
    QVERIFY2(errors.join('\n').contains("nproc_per_node"), qPrintable(errors.join('\n')));
}

void TestRunConfig::shellQuoting_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("command");
    QTest::addRow("plain") << QStringList{"train", "--seed", "0", "/a/b-c_d.e"} << "cli train --seed 0 /a/b-c_d.e";
    QTest::addRow("glob and comma") << QStringList{"Qwen/Qwen-Image:transformer/x*.safetensors,y"}
                                    << "cli 'Qwen/Qwen-Image:transformer/x*.safetensors,y'";
    QTest::addRow("space") << QStringList{"/my data"} << "cli '/my data'";
    QTest::addRow("quote") << QStringList{"it's"} << "cli 'it'\\''s'";
    QTest::addRow("empty") << QStringList{""} << "cli ''";
    QTest::addRow("dollar") << QStringList{"$HOME"} << "cli '$HOME'";
}

void TestRunConfig::shellQuoting()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, command);
    QCOMPARE(shellCommand(QStringLiteral("cli"), arguments), command);
}

void TestRunConfig::settingsJson()
{
    RunSettings s;
    s.datasetPath = QStringLiteral("/d");
    s.epochs = 5;
    s.learningRate = 3e-5;
    s.seed = 123456789012LL;
    s.allowHazards = true;
    const RunSettings back = RunSettings::fromJson(s.toJson());
    QVERIFY(back == s);
    QCOMPARE(back.seed, 123456789012LL);
    // Keys are the flag names; wrong types and out-of-range values keep the defaults.
    QCOMPARE(s.toJson().value("num_epochs").toInt(), 5);
    RunSettings defaults;
    defaults.epochs = 9;
    const RunSettings bad = RunSettings::fromJson(
        QJsonObject{{"num_epochs", "two"}, {"learning_rate", -1}, {"lora_rank", 0}, {"model_root", "/m"}}, defaults);
    QCOMPARE(bad.epochs, 9);
    QCOMPARE(bad.learningRate, RunSettings().learningRate);
    QCOMPARE(bad.loraRank, RunSettings().loraRank);
    QCOMPARE(bad.modelsRoot, QStringLiteral("/m"));

    RunConfig c = tinyConfig(QStringLiteral("/w"));
    c.training.trainable = {"vae"};
    c.training.mode = SplitMode::Safe;
    const RunConfig cb = RunConfig::fromJson(c.toJson());
    QCOMPARE(cb.training, c.training);
    QCOMPARE(cb.training.mode, SplitMode::Safe);
    QCOMPARE(cb.stageTwoModels, c.stageTwoModels);
    QVERIFY(cb.settings == c.settings);
    QVERIFY(cb.settings.newFolderPerLaunch);
    c.runFolder = QStringLiteral("/w/out/both-20250614-101500");
    c.stageOneUnits = {QStringLiteral("A")};
    c.cacheSet = {QStringLiteral("x")};
    const RunConfig withFolder = RunConfig::fromJson(c.toJson());
    QCOMPARE(withFolder.runFolder, c.runFolder);
    QCOMPARE(withFolder.stageOneUnits, c.stageOneUnits);
    QCOMPARE(withFolder.cacheSet, c.cacheSet);
}

void TestRunConfig::settingsFileIsChecked_data()
{
    // A --run-settings file with a wrong key trained with the defaults and exited 0.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error"); // "" when the file is fine
    QTest::addRow("valid") << QByteArray(R"({"num_epochs": 3, "learning_rate": 0.005, "seed": 7, "allow_hazards": true})")
                           << "";
    QTest::addRow("epochs a string") << QByteArray(R"({"num_epochs": "abc"})")
                                     << "num_epochs: must be a whole number from 1 to 1000000, not the string \"abc\"";
    QTest::addRow("negative learning rate") << QByteArray(R"({"learning_rate": -1})")
                                            << "learning_rate: must be greater than 0, not -1";
    QTest::addRow("learning rate a string") << QByteArray(R"({"learning_rate": "0.005"})")
                                            << "learning_rate: must be a number such as 1e-4, not the string \"0.005\"";
    QTest::addRow("misspelt key") << QByteArray(R"({"num_epoch": 1})") << "num_epoch: unknown key; did you mean num_epochs?";
    QTest::addRow("unknown key") << QByteArray(R"({"colour": "red"})") << "colour: unknown key (the keys are ";
    QTest::addRow("fraction") << QByteArray(R"({"lora_rank": 2.5})")
                              << "lora_rank: must be a whole number from 1 to 4096, not 2.5";
    QTest::addRow("zero epochs") << QByteArray(R"({"num_epochs": 0})") << "num_epochs: must be from 1 to 1000000, not 0";
    // The command line's range (it was 1 to 100000 here, 1 to 1000000 there).
    QTest::addRow("epochs beyond the CLI's") << QByteArray(R"({"num_epochs": 1000001})")
                                             << "num_epochs: must be from 1 to 1000000, not 1000001";
    // A key given twice was taken silently (the last one), where the pipeline loader refuses it.
    QTest::addRow("duplicate key") << QByteArray("{\"num_epochs\": 2,\n \"num_epochs\": 3}")
                                   << "line 2, column 2: \"num_epochs\" appears twice (each key may be given once)";
    QTest::addRow("seed beyond the field") << QByteArray(R"({"seed": 123456789012})")
                                           << "seed: must be from 0 to 2147483647, not 123456789012";
    QTest::addRow("flag a number") << QByteArray(R"({"allow_hazards": 1})") << "allow_hazards: must be true or false, not 1";
    QTest::addRow("path a number") << QByteArray(R"({"output_path": 5})")
                                   << "output_path: must be a folder as a string, not 5";
    QTest::addRow("targets a list") << QByteArray(R"({"lora_target_modules": ["to_q"]})")
                                    << "lora_target_modules: must be a string of module names separated by commas";
    QTest::addRow("not an object") << QByteArray("[1]") << "not a JSON object of settings";
    // Where, as line and column (it said "offset 15").
    QTest::addRow("not JSON") << QByteArray("{\n  \"num_epochs\": ") << "line 2, column 17: not JSON: ";
    // In the pipeline loader's words (Qt said "object is missing after a comma").
    QTest::addRow("missing value") << QByteArray(R"({"seed": })")
                                   << "line 1, column 10: not JSON: unexpected '}', a value was expected";
    QTest::addRow("trailing comma") << QByteArray(R"({"seed": 1,})") << "line 1, column 12: not JSON: trailing comma before '}'";
}

void TestRunConfig::settingsFileIsChecked()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rs.json"));
    QVERIFY(writeFileBytes(path, json));
    RunSettings defaults;
    defaults.epochs = 9;
    QStringList errors;
    const std::optional<RunSettings> read = readRunSettingsFile(path, defaults, &errors);
    if (error.isEmpty()) {
        QVERIFY2(read, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(read->epochs, 3);
        QCOMPARE(read->learningRate, 0.005);
        QCOMPARE(read->seed, 7);
        QVERIFY(read->allowHazards);
        QCOMPARE(read->loraRank, defaults.loraRank); // not in the file: the default
        return;
    }
    QVERIFY(!read);
    QCOMPARE(errors.size(), 1);
    // The message names the file and the key.
    QVERIFY2(errors[0].startsWith(path + QStringLiteral(": ") + error), qPrintable(errors[0]));
}

void TestRunConfig::eachLaunchHasItsOwnFolder()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("output"));
    const QDateTime when(QDate(2025, 6, 14), QTime(10, 15, 0));
    QCOMPARE(runFolderName(RunKind::Both, when), QStringLiteral("both-20250614-101500"));
    QCOMPARE(runFolderName(RunKind::StageTwo, when), QStringLiteral("stage-two-20250614-101500"));
    // Two launches in the same second, and a folder someone made: never one that was there.
    QString error;
    const QString first = createRunFolder(out, RunKind::Baseline, when, &error);
    QCOMPARE(first, QDir(out).filePath(QStringLiteral("baseline-20250614-101500")));
    QVERIFY(QDir().mkpath(QDir(out).filePath(QStringLiteral("baseline-20250614-101500-2"))));
    const QString second = createRunFolder(out, RunKind::Baseline, when, &error);
    QCOMPARE(second, QDir(out).filePath(QStringLiteral("baseline-20250614-101500-3")));
    QVERIFY(QFileInfo(first).isDir() && QFileInfo(second).isDir());
    QVERIFY(writeFileBytes(dir.filePath(QStringLiteral("file")), "x"));
    QVERIFY(createRunFolder(dir.filePath(QStringLiteral("file")), RunKind::Both, when, &error).isEmpty());
    QVERIFY2(error.contains(QLatin1String("cannot create the output folder")), qPrintable(error));

    // What a run leaves in its folder.
    for (const char *name : {"training_args.json", "loss.csv", "epoch-0.safetensors", "notes.txt"})
        QVERIFY(writeFileBytes(QDir(first).filePath(QLatin1String(name)), "x"));
    QCOMPARE(runFilesIn(first), (QStringList{"epoch-0.safetensors", "loss.csv", "training_args.json"}));
    QVERIFY(runFilesIn(second).isEmpty());

    // Without a new folder per launch, a run in the output folder is a question for the
    // user (a confirmable problem), and the folder must not be the cache.
    QTemporaryDir work;
    RunConfig c = tinyConfig(work.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    QVERIFY(writeFileBytes(QDir(c.settings.outputPath).filePath(QStringLiteral("resume.safetensors")), "state"));
    QVERIFY(validateRun(c, tiny(), RunKind::Baseline, 0).isEmpty()); // a new folder per launch: nothing replaced
    c.settings.newFolderPerLaunch = false;
    QList<RunIssue> issues = validateRun(c, tiny(), RunKind::Baseline, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Output});
    QVERIFY(issues[0].confirmable);
    QVERIFY2(issues[0].message.contains(QLatin1String("holds a run already (resume.safetensors): a launch would replace it")),
        qPrintable(issues[0].message));
    QVERIFY(validateRun(c, tiny(), RunKind::StageOne, 0).isEmpty()); // stage one writes the cache only
    c.settings.outputPath = c.settings.cachePath;
    issues = validateRun(c, tiny(), RunKind::Both, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Output});
    QVERIFY(!issues[0].confirmable);
    QCOMPARE(issues[0].message, QStringLiteral("The output folder must not be the cache folder."));
}

void TestRunConfig::checksNameTheField()
{
    QTemporaryDir dir;
    RunConfig c = tinyConfig(dir.path());
    // Nothing on disk yet: dataset, models, cache (stage two) each say what to do.
    QList<RunIssue> issues = validateRun(c, tiny(), RunKind::StageTwo, 0);
    QCOMPARE(fields(issues), (QList<RunField>{RunField::ModelsRoot, RunField::Cache}));
    QVERIFY2(issues[0].message.contains("No dit, text_encoder, vae weights under") && issues[0].message.contains("create the tiny models"),
        qPrintable(issues[0].message));
    QVERIFY2(issues[1].message.contains("run stage one first"), qPrintable(issues[1].message));
    issues = validateRun(c, tiny(), RunKind::Baseline, 0);
    QCOMPARE(fields(issues), (QList<RunField>{RunField::Dataset, RunField::ModelsRoot}));
    QVERIFY2(issues[0].message.contains("has no metadata.csv: choose a dataset folder or generate the example dataset"),
        qPrintable(issues[0].message));

    QVERIFY(writeDataset(c.settings.datasetPath, 3));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny(), {QStringLiteral("vae")}));
    issues = validateRun(c, tiny(), RunKind::Both, 0);
    QCOMPARE(fields(issues), (QList<RunField>{RunField::ModelsRoot}));
    QVERIFY2(issues[0].message.startsWith("No vae weights under"), qPrintable(issues[0].message));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    QVERIFY2(validateRun(c, tiny(), RunKind::Both, 0).isEmpty(), qPrintable(messages(validateRun(c, tiny(), RunKind::Both, 0))));

    // The training choice and the split.
    RunConfig none = c;
    none.training.loraBase.reset();
    QCOMPARE(fields(validateRun(none, tiny(), RunKind::Baseline, 0)), QList<RunField>{RunField::Training});
    issues = validateRun(c, tiny(), RunKind::Both, 1);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Hazards});
    QVERIFY2(issues[0].message.contains("The seed split has 1 hazard:"), qPrintable(issues[0].message));
    QVERIFY(validateRun(c, tiny(), RunKind::Baseline, 1).isEmpty()); // one-stage training has no split
    RunConfig allowed = c;
    allowed.settings.allowHazards = true;
    QVERIFY(validateRun(allowed, tiny(), RunKind::Both, 1).isEmpty());

    // Fields.
    RunConfig targets = c;
    targets.settings.loraTargets = QStringLiteral(" ");
    QCOMPARE(fields(validateRun(targets, tiny(), RunKind::Baseline, 0)), QList<RunField>{RunField::LoraTargets});
    QVERIFY(validateRun(targets, tiny(), RunKind::StageOne, 0).isEmpty()); // stage one trains nothing
    QVERIFY(writeFileBytes(dir.filePath("file"), "x"));
    RunConfig fileOutput = c;
    fileOutput.settings.outputPath = dir.filePath("file");
    issues = validateRun(fileOutput, tiny(), RunKind::Baseline, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Output});
    QVERIFY(issues[0].message.endsWith("is a file, not a folder."));
    QVERIFY(writeDataset(dir.filePath("bad"), 1, "file,caption"));
    RunConfig columns = c;
    columns.settings.datasetPath = dir.filePath("bad");
    issues = validateRun(columns, tiny(), RunKind::StageOne, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Dataset});
    QCOMPARE(issues[0].message, QStringLiteral("metadata.csv needs the columns image and prompt (it has: file, caption)."));
}

void TestRunConfig::cacheChecks()
{
    QTemporaryDir dir;
    RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 4));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    const QString cache = c.settings.cachePath;

    QVERIFY(writeManifest(cache, false, {QStringLiteral("dit")}, QStringLiteral("seed"), 4, 2));
    CacheStatus status = readCacheStatus(cache);
    QVERIFY(status.exists);
    QVERIFY(!status.complete);
    QCOMPARE(status.cachedSamples, 2);
    QCOMPARE(status.samples, 4);
    QCOMPARE(status.shards, 1);
    QCOMPARE(status.bytes, 1000);
    QVERIFY2(status.summary().startsWith("incomplete: 2 of 4 samples in 1 shard,"), qPrintable(status.summary()));
    QList<RunIssue> issues = validateRun(c, tiny(), RunKind::StageTwo, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Cache});
    QVERIFY2(issues[0].message.contains("is incomplete (2 of 4 samples): run stage one to finish it"), qPrintable(issues[0].message));
    QVERIFY(validateRun(c, tiny(), RunKind::StageOne, 0).isEmpty()); // stage one resumes it

    QVERIFY(writeManifest(cache, true, {QStringLiteral("dit")}));
    QVERIFY(validateRun(c, tiny(), RunKind::StageTwo, 0).isEmpty());
    QVERIFY2(readCacheStatus(cache).summary().startsWith("complete: 4 samples in 2 shards,"),
        qPrintable(readCacheStatus(cache).summary()));

    // A cache of another split would be refused by the engine: said before the launch.
    QVERIFY(writeManifest(cache, true, {QStringLiteral("vae")}));
    for (RunKind kind : {RunKind::StageOne, RunKind::StageTwo, RunKind::Both}) {
        issues = validateRun(c, tiny(), kind, 0);
        QCOMPARE(fields(issues), QList<RunField>{RunField::Cache});
        QVERIFY2(issues[0].message.contains(QStringLiteral("holds a cache made otherwise, which %1 would refuse: models "
                                                           "requiring backward: the cache has [vae], this run [dit]. "
                                                           "Choose another cache folder")
                                                .arg(kind == RunKind::StageTwo ? "stage two" : "stage one")),
            qPrintable(issues[0].message));
    }
    QVERIFY(validateRun(c, tiny(), RunKind::Baseline, 0).isEmpty());
    // dit trained in full and as the LoRA base needs gradients once, as the engine records it
    // (the app's own copy of the list used to keep it twice and call this cache another one's).
    QVERIFY(writeManifest(cache, true, {QStringLiteral("dit")}));
    RunConfig twice = c;
    twice.training.trainable = {"dit"};
    twice.training.loraBase = "dit";
    QCOMPARE(modelsRequiringBackward(twice), QStringList{QStringLiteral("dit")});
    QVERIFY(cacheDifferences(readCacheStatus(cache), twice, RunStage::StageTwo).isEmpty());
    // The mode's name is not what counts (cacheOfTheSameSplitWhateverTheMode): the same split
    // made by the safe algorithm is this run's cache.
    QVERIFY(writeManifest(cache, true, {QStringLiteral("dit")}, QStringLiteral("safe")));
    QVERIFY(validateRun(c, tiny(), RunKind::StageTwo, 0).isEmpty());

    QVERIFY(writeFileBytes(QDir(cache).filePath("manifest.json"), "{\"format\": \"other\"}"));
    status = readCacheStatus(cache);
    QVERIFY(!status.exists);
    // The engine's reader's words: file, line and column, key, what it expected.
    QVERIFY2(status.error.endsWith("manifest.json:1:12: format: expected \"splitscope.cache/1\" (not a Splitscope cache, "
                                   "or a newer one), found the string \"other\""),
        qPrintable(status.error));
    QCOMPARE(fields(validateRun(c, tiny(), RunKind::StageOne, 0)), QList<RunField>{RunField::Cache});
}

void TestRunConfig::cacheOfTheSameSplitWhateverTheMode()
{
    // LoRA on dit: the seed and the safe split are the same, and the worker takes a
    // cache of either for the other. The check compares what the cache holds (the
    // stage-one units, the stored params), as the engine's checks do, not the mode's name.
    QTemporaryDir dir;
    RunConfig c = tinyConfig(dir.path());
    QVERIFY(writeDataset(c.settings.datasetPath, 4));
    QVERIFY(writeModelFiles(c.settings.modelsRoot, tiny()));
    c.stageOneUnits = {QStringLiteral("Shape"), QStringLiteral("Prompt"), QStringLiteral("Vae")};
    c.cacheSet = {QStringLiteral("latents"), QStringLiteral("prompt_emb")};
    const QString cache = c.settings.cachePath;
    QVERIFY(writeManifest(cache, true, {QStringLiteral("dit")}, QStringLiteral("seed"), 4, 4, c.stageOneUnits, c.cacheSet));
    c.training.mode = SplitMode::Safe;
    for (RunKind kind : {RunKind::StageOne, RunKind::StageTwo, RunKind::Both})
        QVERIFY2(validateRun(c, tiny(), kind, 0).isEmpty(), qPrintable(messages(validateRun(c, tiny(), kind, 0))));

    // Another split: a unit moved to stage two.
    RunConfig moved = c;
    moved.stageOneUnits.removeLast();
    QList<RunIssue> issues = validateRun(moved, tiny(), RunKind::StageTwo, 0);
    QCOMPARE(fields(issues), QList<RunField>{RunField::Cache});
    // What moved, not both lists whole (they were 20 names long in the panel).
    QVERIFY2(issues[0].message.contains("stage-one units: Vae moved to stage two"),
        qPrintable(issues[0].message));
    // Stage two needs every param it reads; stage one continues only the same cache.
    RunConfig reads = c;
    reads.cacheSet = {QStringLiteral("latents")};
    QVERIFY(validateRun(reads, tiny(), RunKind::StageTwo, 0).isEmpty()); // the cache stores more than it reads
    issues = validateRun(reads, tiny(), RunKind::StageOne, 0);
    QVERIFY2(messages(issues).contains("stored params: the cache stores prompt_emb, this split does not"),
        qPrintable(messages(issues)));
    reads.cacheSet = {QStringLiteral("latents"), QStringLiteral("noise")};
    issues = validateRun(reads, tiny(), RunKind::StageTwo, 0);
    QVERIFY2(messages(issues).contains("cached params: the cache lacks 'noise', which stage two reads"),
        qPrintable(messages(issues)));
    // Stage one's own settings: another seed is refused by stage one, not by stage two.
    RunConfig seed = c;
    seed.settings.seed = 5;
    QVERIFY(validateRun(seed, tiny(), RunKind::StageTwo, 0).isEmpty());
    issues = validateRun(seed, tiny(), RunKind::Both, 0);
    QVERIFY2(messages(issues).contains("which stage one would refuse: seed: the cache has 0, this run 5"),
        qPrintable(messages(issues)));
}

void TestRunConfig::eventsFoldIntoAStage()
{
    StageRun one;
    one.stage = RunStage::StageOne;
    one.clockOffset = 10; // the worker's time 0 is 10 s into the launch
    feed(one, {R"({"event":"start","time":0.02,"pid":42,"resumed":false,"num_threads":1,"stage_one_units":["A","B"],"stage_two_units":[],"cache_set":["x"]})",
                  R"({"event":"stage","time":0.02,"stage":"data_process","total_samples":6})",
                  R"({"event":"unit","time":0.03,"stage":"data_process","sample":2,"unit":"B","unit_index":1})",
                  R"({"event":"progress","time":0.1,"stage":"data_process","done":3,"total":6,"samples_per_s":30,"eta_s":0.1,"cache_bytes_written":500})",
                  R"({"event":"memory","time":0.1,"rss_bytes":1000,"peak_rss_bytes":1200,"model_bytes":{"vae":100},"cache_bytes_written":500,"cache_bytes_read":0})",
                  R"({"event":"memory","time":0.2,"rss_bytes":1500,"peak_rss_bytes":1500,"model_bytes":{"vae":100,"text_encoder":50}})",
                  R"({"event":"warning","time":0.2,"code":"frozen-randomness","message":"frozen"})"});
    QVERIFY(one.started);
    QCOMPARE(one.pid, 42);
    QCOMPARE(one.stageOneUnits, (QStringList{"A", "B"}));
    QCOMPARE(one.unit, QStringLiteral("B"));
    QCOMPARE(one.unitSample, 2);
    QCOMPARE(one.done, 3);
    QCOMPARE(one.total, 6);
    QCOMPARE(one.fraction(), 0.5);
    QCOMPARE(one.cacheWritten, 500);
    QCOMPARE(one.warnings, QStringList{"frozen"});
    // Memory: on the launch's clock, each model's bytes as a series, zeros before it loaded.
    QCOMPARE(one.memory, (QVector<QPointF>{QPointF(10.1, 1000), QPointF(10.2, 1500)}));
    QCOMPARE(one.models, (QStringList{"vae", "text_encoder"}));
    QCOMPARE(one.modelMemory[1], (QVector<QPointF>{QPointF(10.1, 0), QPointF(10.2, 50)}));
    QCOMPARE(one.peakMemory(), 1500);
    // A sample the GUI takes itself keeps x monotonic and carries the models over.
    one.addMemorySample(10.15, 1400);
    QCOMPARE(one.memory.last(), QPointF(10.2, 1400));
    QCOMPARE(one.modelMemory[0].last(), QPointF(10.2, 100));
    feed(one, {R"({"event":"done","time":0.3,"ok":true,"cancelled":false,"exit_status":0,"wall_s":0.3,"samples":6,"peak_rss_bytes":1600,"outputs":{"cache":"/c","manifest":"/c/manifest.json"}})"});
    QCOMPARE(one.outcome, StageRun::Outcome::Finished);
    QCOMPARE(one.unit, QString());
    QCOMPARE(one.peakMemory(), 1600);
    QCOMPARE(one.outputs.value("cache"), QStringLiteral("/c"));

    StageRun two;
    two.stage = RunStage::StageTwo;
    feed(two, {R"({"event":"stage","time":1.0,"stage":"train","total_steps":4,"epochs":2})",
                  R"({"event":"step","time":1.5,"epoch":0,"step":1,"total_steps":4,"loss":2.0,"samples_per_s":8,"eta_s":1.5,"cache_bytes_read":10})",
                  R"({"event":"step","time":2.0,"epoch":0,"step":2,"total_steps":4,"loss":1.0,"samples_per_s":8,"eta_s":1.0,"cache_bytes_read":20})",
                  R"({"event":"epoch","time":2.0,"epoch":0,"mean_loss":1.5,"steps":2})",
                  R"({"event":"step","time":2.5,"epoch":1,"step":3,"total_steps":4,"loss":null,"samples_per_s":8})",
                  R"({"event":"step","time":3.5,"epoch":1,"step":4,"total_steps":4,"loss":4.0,"samples_per_s":8,"eta_s":0})",
                  R"({"event":"epoch","time":3.5,"epoch":1,"mean_loss":3.0,"steps":2})",
                  R"({"event":"error","time":3.6,"message":"disk full","code":"io"})",
                  R"({"event":"done","time":3.6,"ok":false,"cancelled":false,"exit_status":1,"final_loss":4.0,"steps":4})"});
    QCOMPARE(two.total, 4);
    QCOMPARE(two.epochs, 2);
    QCOMPARE(two.epoch, 1);
    QCOMPARE(two.cacheRead, 20);
    // A null loss (not finite) draws no point.
    QCOMPARE(two.loss, (QVector<QPointF>{QPointF(1, 2.0), QPointF(2, 1.0), QPointF(4, 4.0)}));
    // Smoothed with bias correction: the first point is the first loss, not 0.1 of it.
    QCOMPARE(two.smoothedLoss[0], QPointF(1, 2.0));
    const double second = (0.9 * 0.1 * 2.0 + 0.1 * 1.0) / (1 - 0.81);
    QVERIFY(std::fabs(two.smoothedLoss[1].y() - second) < 1e-12);
    QCOMPARE(two.epochLoss, (QVector<QPointF>{QPointF(2, 1.5), QPointF(4, 3.0)}));
    QCOMPARE(two.epochSeconds, (QVector<double>{1.0, 1.5}));
    QCOMPARE(two.meanEpochSeconds(), 1.25);
    QCOMPARE(two.outcome, StageRun::Outcome::Failed);
    QCOMPARE(two.exitCode, 1);
    QCOMPARE(two.errors, QStringList{"disk full"});
    QCOMPARE(two.finalLoss, 4.0);
}

void TestRunConfig::badLinesAreNotEvents_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("error");
    QTest::addRow("text") << QByteArray("loaded vae") << "not JSON";
    QTest::addRow("array") << QByteArray("[1,2]") << "not a JSON object";
    QTest::addRow("no name") << QByteArray(R"({"time":1})") << "no \"event\" name";
    QTest::addRow("cut") << QByteArray(R"({"event":"step","ti)") << "not JSON";
}

void TestRunConfig::badLinesAreNotEvents()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, error);
    QString why;
    QVERIFY(!RunEvent::parse(line, &why));
    QVERIFY2(why.startsWith(error), qPrintable(why));
    // An event the GUI does not know is kept and ignored.
    const auto other = RunEvent::parse(R"({"event":"future","time":2,"x":1})");
    QVERIFY(other);
    QCOMPARE(other->kind, RunEvent::Kind::Other);
    StageRun run;
    QVERIFY(!run.apply(*other));
}

void TestRunConfig::stageRoundTripsThroughJson()
{
    StageRun run;
    run.stage = RunStage::OneStage;
    run.command = QStringLiteral("cli train --task sft");
    run.outcome = StageRun::Outcome::Cancelled;
    run.exitCode = 4;
    run.finalLoss = StageRun::kNaN;
    run.wallSeconds = 2.5;
    run.failure = QStringLiteral("cancelled");
    run.outputs.insert(QStringLiteral("resume_state"), QStringLiteral("/o/resume.safetensors"));
    run.models = {QStringLiteral("dit")};
    for (int i = 0; i < 5000; ++i) {
        run.loss.append(QPointF(i + 1, 1.0 / (i + 1)));
        run.memory.append(QPointF(i * 0.1, 1000 + i));
    }
    run.modelMemory = {run.memory};
    const StageRun back = StageRun::fromJson(run.toJson(100));
    QCOMPARE(back.stage, RunStage::OneStage);
    QCOMPARE(back.command, run.command);
    QCOMPARE(back.outcome, StageRun::Outcome::Cancelled);
    QCOMPARE(back.exitCode, 4);
    QVERIFY(std::isnan(back.finalLoss));
    QCOMPARE(back.wallSeconds, 2.5);
    QCOMPARE(back.outputs, run.outputs);
    // Thinned to 100 points, first and last kept.
    QCOMPARE(back.loss.size(), 100);
    QCOMPARE(back.loss.first(), run.loss.first());
    QCOMPARE(back.loss.last(), run.loss.last());
    QCOMPARE(back.modelMemory.size(), 1);
    QCOMPARE(back.modelMemory[0].size(), 100);
    QCOMPARE(back.peakMemory(), 1000 + 4999);

    // The epoch reached is kept (a launch from the history read "Epoch 1 of 20" after
    // three epochs); an entry written before it was kept has it from the steps done.
    run.epochs = 20;
    run.total = 640;
    run.done = 81;
    run.epoch = 2;
    QCOMPARE(StageRun::fromJson(run.toJson(100)).epoch, 2);
    QJsonObject older = run.toJson(100);
    older.remove(QStringLiteral("epoch"));
    QCOMPARE(StageRun::fromJson(older).epoch, 2);
    older.insert(QStringLiteral("done"), 64); // the last step of the second epoch
    QCOMPARE(StageRun::fromJson(older).epoch, 1);
    older.insert(QStringLiteral("done"), 0);
    QCOMPARE(StageRun::fromJson(older).epoch, -1);
}

void TestRunConfig::historyPersistsAndRefusesToOverwrite()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sub/run-history.json"));
    RunHistory history;
    QVERIFY(history.open(path));
    QCOMPARE(history.count(), 0);
    const auto a = finishedSession(RunKind::Baseline, 10, 3000, 0.25, 4);
    const auto b = finishedSession(RunKind::Both, 8, 2000, 0.25, 2);
    history.add(a);
    history.add(b);
    QVERIFY(QFile::exists(path));
    QCOMPARE(history.saveError(), QString());

    RunHistory reread;
    QVERIFY(reread.open(path));
    QCOMPARE(reread.count(), 2);
    QCOMPARE(reread.run(0)->id(), a->id());
    QCOMPARE(reread.run(1)->kind(), RunKind::Both);
    QCOMPARE(reread.run(1)->stages().size(), std::size_t(2));
    QCOMPARE(reread.run(1)->peakMemory(), 2000);
    QCOMPARE(reread.run(0)->finalLoss(), 0.25);
    reread.remove(0);
    RunHistory third;
    QVERIFY(third.open(path));
    QCOMPARE(third.count(), 1);
    QCOMPARE(third.run(0)->id(), b->id());

    // A damaged file is left alone: the runs in it are not overwritten by new ones.
    QVERIFY(writeFileBytes(path, "{\"format\": \"splitscope.runs/1\", \"runs\": [ {"));
    RunHistory damaged;
    QString error;
    QVERIFY(!damaged.open(path, &error));
    QVERIFY2(error.contains("is not JSON") && error.contains("the file is left as it is"), qPrintable(error));
    damaged.add(a);
    QCOMPARE(damaged.count(), 1);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("{\"format\": \"splitscope.runs/1\", \"runs\": [ {"));
    QVERIFY(writeFileBytes(path, "{\"format\": \"splitscope.runs/1\", \"runs\": [ {\"kind\": \"walk\"} ]}"));
    QVERIFY(!damaged.open(path, &error));
    QVERIFY2(error.contains("runs[0]: \"kind\" is not one of"), qPrintable(error));
}

void TestRunConfig::historyModel()
{
    RunHistory history;
    RunHistoryModel model(&history);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    history.add(finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 4));
    history.add(finishedSession(RunKind::Both, 75, 2 << 20, 0.125, 2));
    QCOMPARE(model.rowCount(), 2);
    // Newest first.
    QCOMPARE(model.index(0, RunHistoryModel::LaunchColumn).data().toString(), QStringLiteral("Both stages"));
    QCOMPARE(model.index(0, RunHistoryModel::TimeColumn).data().toString(), QStringLiteral("1:15"));
    QCOMPARE(model.index(0, RunHistoryModel::PeakColumn).data().toString(), QStringLiteral("2.00 MiB"));
    QCOMPARE(model.index(0, RunHistoryModel::LossColumn).data().toString(), QStringLiteral("0.125000"));
    // The configuration says epochs and dataset (the tooltip, everything).
    QCOMPARE(model.index(0, RunHistoryModel::ConfigurationColumn).data().toString(),
        QString::fromUtf8("nothing to train · seed split · 2 epochs · w/data"));
    QVERIFY(model.index(0, RunHistoryModel::ConfigurationColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("learning rate: 0.0001")));
    // The output: the launch's own folder (the cache for stage one).
    QCOMPARE(model.index(0, RunHistoryModel::OutputColumn).data().toString(),
        QDir::toNativeSeparators(history.run(1)->config().runFolder));
    QCOMPARE(model.index(0, RunHistoryModel::OutcomeColumn).data().toString(), QStringLiteral("finished"));
    QCOMPARE(model.index(1, 0).data(RunHistoryModel::IdRole).toString(), history.run(0)->id());
    history.remove(1);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, RunHistoryModel::LaunchColumn).data().toString(), QStringLiteral("One-stage baseline"));
    history.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestRunConfig::comparison()
{
    RunComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.summary(), QString());
    model.setRuns(finishedSession(RunKind::Baseline, 10, 4 << 20, 0.25, 4),
        finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2));
    auto row = [&model](const QString &metric) -> RunComparisonModel::Row {
        for (const auto &r : model.rows()) {
            if (r.metric == metric)
                return r;
        }
        return {};
    };
    QCOMPARE(row("Time, as waited").aText, QStringLiteral("10.0 s"));
    QCOMPARE(row("Time, as waited").bText, QStringLiteral("8.00 s"));
    QCOMPARE(row("Time, as waited").relation, QString::fromUtf8("0.80× (−20 %)"));
    QCOMPARE(row("Time per epoch").relation, QString::fromUtf8("0.50× (−50 %)"));
    QCOMPARE(row("Peak memory while training").relation, QString::fromUtf8("0.75× (−25 %)"));
    QCOMPARE(row("Training speed (samples/s)").relation, QString::fromUtf8("2.00× (+100 %)"));
    QCOMPARE(row("Final loss").relation, QStringLiteral("equal"));
    QCOMPARE(row("Stage one (caching)").aText, QString::fromUtf8("—"));
    // B better: green; the table says which way is better.
    const int epochRow = 3;
    QCOMPARE(model.index(epochRow, RunComparisonModel::MetricColumn).data().toString(), QStringLiteral("Time per epoch"));
    QCOMPARE(model.index(epochRow, RunComparisonModel::RatioColumn).data(Qt::ForegroundRole).value<QBrush>().color(),
        QColor(0x2b, 0x8a, 0x3e));
    // Every ratio one way, B / A as in the table ("an epoch takes 2.0× less time" stood
    // next to "0.50× (−50 %)").
    QCOMPARE(model.summary(), QString::fromUtf8("B / A: time per epoch 0.50× (−50 %), 2.00 s vs 4.00 s: B's epochs are "
                                                "2.0× faster; peak memory while training 0.75× (−25 %); time as waited "
                                                "0.80× (−20 %), 8.00 s vs 10.0 s; the same final loss."));
    QCOMPARE(model.headerData(RunComparisonModel::RatioColumn, Qt::Horizontal).toString(), QStringLiteral("B / A"));
    // Times short enough to round to "0.04 s" both: the table showed "0.04 s | 0.04 s |
    // 1.13× (+13 %)". In milliseconds with three digits, the ratio can be checked.
    model.setRuns(finishedSession(RunKind::Baseline, 0.4, 4 << 20, 0.25, 0.0382),
        finishedSession(RunKind::Both, 0.5, 3 << 20, 0.25, 0.0432));
    QCOMPARE(row("Time per epoch").aText, QStringLiteral("38.2 ms"));
    QCOMPARE(row("Time per epoch").bText, QStringLiteral("43.2 ms"));
    QCOMPARE(row("Time per epoch").relation, QString::fromUtf8("1.13× (+13 %)"));
    QVERIFY2(model.summary().startsWith(
                 QString::fromUtf8("B / A: time per epoch 1.13× (+13 %), 43.2 ms vs 38.2 ms: B's epochs are 1.1× "
                                   "slower;")),
        qPrintable(model.summary()));
    QCOMPARE(model.headerData(RunComparisonModel::AColumn, Qt::Horizontal).toString(), QStringLiteral("A"));
    QCOMPARE(model.headerData(RunComparisonModel::AColumn, Qt::Horizontal, Qt::ToolTipRole).toString(),
        QStringLiteral("A: One-stage baseline"));
}

void TestRunConfig::baselinePairsOnlyWithTheSameTraining()
{
    // "Baseline vs split" paired the baseline with the newest split launch, whatever
    // its epochs or dataset, although a "Both stages" launch like it existed.
    RunHistory history;
    RunHistoryPanel panel(&history);
    auto launch = [&history](RunKind kind, int epochs, const QString &dataset) {
        auto session = finishedSession(kind, 10, 3 << 20, 0.25, 2, epochs, dataset);
        history.add(session);
        return session;
    };
    const auto splitTwoEpochs = launch(RunKind::Both, 2, QStringLiteral("/d/one"));
    const auto baseline = launch(RunKind::Baseline, 2, QStringLiteral("/d/one"));
    const auto splitFourEpochs = launch(RunKind::Both, 4, QStringLiteral("/d/one"));
    const auto splitOtherData = launch(RunKind::StageTwo, 2, QStringLiteral("/d/two"));
    QVERIFY(panel.compareBaselineAndSplit());
    QCOMPARE(panel.comparison()->runA()->id(), baseline->id());
    QCOMPARE(panel.comparison()->runB()->id(), splitTwoEpochs->id());
    QVERIFY(panel.compareBaselineAndSplit(baseline->id()));
    QCOMPARE(panel.comparison()->runB()->id(), splitTwoEpochs->id());
    // The pair is selected in the table.
    QCOMPARE(panel.table()->selectionModel()->selectedRows().size(), 2);
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("2 epochs · dataset one")));

    // A launch without a match says so, plainly, and compares nothing.
    QVERIFY(!panel.compareBaselineAndSplit(splitFourEpochs->id()));
    QVERIFY(!panel.comparison()->runA());
    const QString why = panel.summaryLabel()->text();
    QVERIFY2(why.startsWith(QLatin1String("No comparison: no finished baseline and split launch were trained with the "
                                          "same configuration")),
        qPrintable(why));
    QVERIFY2(why.contains(QLatin1String("differ in epochs 2 vs 4")), qPrintable(why));
    QVERIFY(!panel.compareBaselineAndSplit(splitOtherData->id()));
    QVERIFY2(panel.summaryLabel()->text().contains(QLatin1String("dataset /d/one vs /d/two")),
        qPrintable(panel.summaryLabel()->text()));

    // Other trainable models or split mode: no pair either.
    RunHistory other;
    RunHistoryPanel otherPanel(&other);
    auto base = finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 2, 2, QStringLiteral("/d/one"));
    other.add(base);
    QVERIFY(!otherPanel.compareBaselineAndSplit());
    QCOMPARE(otherPanel.pairingProblem(),
        QStringLiteral("No comparison: the history has no finished split launch (both stages or stage two)."));
    QCOMPARE(otherPanel.summaryLabel()->text(), otherPanel.pairingProblem());
    RunConfig safe = base->config();
    safe.training.mode = SplitMode::Safe;
    safe.training.trainable = {"text_encoder"};
    auto split = std::make_shared<RunSession>(RunKind::Both, safe);
    const auto stages = finishedSession(RunKind::Both, 10, 3 << 20, 0.25, 2); // kept alive while its stages are copied
    for (const StageRun &s : stages->stages())
        split->stages().push_back(s);
    other.add(split);
    QVERIFY(!otherPanel.compareBaselineAndSplit());
    QVERIFY2(otherPanel.summaryLabel()->text().contains(
                 QLatin1String("differ in trainable models (none) vs text_encoder; split mode seed vs safe")),
        qPrintable(otherPanel.summaryLabel()->text()));
}

// Two runs could be compared, not more: three selected showed nothing ("select one or
// two"). Up to eight now overlay their curves, A, B, C, ... oldest first, each in its own
// colour; more say how many the charts take.
void TestRunConfig::manyRunsOverlaid()
{
    RunHistory history;
    RunHistoryPanel panel(&history);
    std::vector<std::shared_ptr<RunSession>> runs;
    for (int i = 0; i < 10; ++i) {
        runs.push_back(finishedSession(i % 2 ? RunKind::Both : RunKind::Baseline, 10, 3 << 20, 0.25 + 0.01 * i, 2));
        history.add(runs.back());
    }
    // Rows are newest first: the last four are the four oldest runs.
    const auto selectRows = [&panel](int first, int last) {
        QAbstractItemModel *model = panel.table()->model();
        QItemSelection selection(model->index(first, 0), model->index(last, model->columnCount() - 1));
        panel.table()->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    };
    selectRows(6, 9);
    QCOMPARE(panel.lossChart()->runCount(), 4);
    for (int i = 0; i < 4; ++i)
        QVERIFY(panel.lossChart()->rawPoints(i) > 0);
    const QString summary = panel.summaryLabel()->text();
    for (const QString letter : {QStringLiteral("<b>A</b>"), QStringLiteral("<b>B</b>"), QStringLiteral("<b>C</b>"),
             QStringLiteral("<b>D</b>")})
        QVERIFY2(summary.contains(letter), qPrintable(summary));
    QVERIFY(!panel.comparison()->runA()); // the table compares two
    QSet<QRgb> colours;
    for (int i = 0; i < 8; ++i)
        colours.insert(comparisonColor(i).rgb());
    QCOMPARE(colours.size(), 8);
    // Oldest first: the first run added is A.
    QVERIFY(panel.overlay({runs[0]->id(), runs[1]->id(), runs[2]->id()}));
    QVERIFY(!panel.overlay({runs[0]->id(), QStringLiteral("gone"), runs[2]->id()}));
    selectRows(0, 9);
    QCOMPARE(panel.lossChart()->runCount(), 0);
    QVERIFY2(panel.summaryLabel()->text().contains(QStringLiteral("the charts overlay up to 8")),
        qPrintable(panel.summaryLabel()->text()));
}

void TestRunConfig::historySelectionAndShownRunsAgree()
{
    // After a launch, a failed pairing cleared the comparison but left the old pair
    // selected; it also replaced a comparison the user had chosen; one selected run
    // showed no curves at all.
    RunHistory history;
    RunHistoryPanel panel(&history);
    panel.resize(1200, 600);
    panel.show();
    const auto baseline = finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 2);
    const auto split = finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2);
    const auto other = finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2, 4);
    history.add(baseline);
    history.add(split);
    QTableView *table = panel.table();
    auto selectedIds = [table]() {
        QStringList ids;
        for (const QModelIndex &row : table->selectionModel()->selectedRows())
            ids << row.data(RunHistoryModel::IdRole).toString();
        std::sort(ids.begin(), ids.end());
        return ids;
    };

    // One run selected by the user: its curves, and no comparison.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(table->model()->index(1, 1)).center());
    QCOMPARE(selectedIds(), QStringList{baseline->id()});
    QCOMPARE(panel.lossChart()->runCount(), 1);
    QCOMPARE(panel.lossChart()->rawPoints(0), 2);
    QVERIFY(!panel.comparison()->runA());
    QVERIFY2(plainTextOf(panel.summaryLabel()->text()).startsWith(QLatin1String("One-stage baseline")),
        qPrintable(panel.summaryLabel()->text()));

    // The user selects two runs: they are compared, and a launch that ends keeps them.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier,
        table->visualRect(table->model()->index(0, 1)).center());
    QCOMPARE(panel.comparison()->runA()->id(), baseline->id());
    QVERIFY(panel.comparisonChosenByHand());
    history.add(other);
    QVERIFY(!panel.showFinishedLaunch(other->id()));
    QCOMPARE(panel.comparison()->runB()->id(), split->id());
    QStringList pair{baseline->id(), split->id()};
    std::sort(pair.begin(), pair.end());
    QCOMPARE(selectedIds(), pair);

    // Without a comparison of the user's: a launch without a partner is shown alone, selected.
    table->clearSelection();
    QVERIFY(!panel.comparisonChosenByHand());
    QVERIFY(!panel.showFinishedLaunch(other->id()));
    QCOMPARE(selectedIds(), QStringList{other->id()});
    QVERIFY(!panel.comparison()->runA());
    QCOMPARE(panel.lossChart()->runCount(), 1);
    // Baseline vs split that finds no pair leaves nothing selected as if compared.
    QVERIFY(panel.compareBaselineAndSplit());
    QCOMPARE(selectedIds(), pair);
    QVERIFY(!panel.comparisonChosenByHand());
    QVERIFY(!panel.compareBaselineAndSplit(other->id()));
    QCOMPARE(selectedIds(), QStringList());
    QVERIFY(!panel.comparison()->runA());
    QCOMPARE(panel.lossChart()->runCount(), 0);
    // Tab leaves the table (it went from cell to cell and never out).
    QVERIFY(!table->tabKeyNavigation());

    // A dataset folder named "dataset" is not "dataset dataset".
    RunConfig c;
    c.settings.datasetPath = QStringLiteral("/w/tiny-qwen-image/dataset");
    QCOMPARE(c.numbersLabel(), QString::fromUtf8("1 epoch · tiny-qwen-image/dataset"));
}

void TestRunConfig::historyDeleteAsksFirst()
{
    // Delete removed runs at once, without a word; the Delete key did nothing.
    RunHistory history;
    RunHistoryPanel panel(&history);
    panel.resize(1000, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    history.add(finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 2));
    history.add(finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2));
    panel.table()->selectAll();
    QString asked;
    QMessageBox::StandardButton defaultButton = QMessageBox::NoButton;
    auto answer = [&](QMessageBox::StandardButton button) {
        QTimer::singleShot(50, [&, button]() {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            QVERIFY(box);
            asked = box->text();
            defaultButton = box->standardButton(box->defaultButton());
            box->button(button)->click();
        });
    };
    // The key, with the table focused: asked, default No; No keeps both.
    panel.table()->setFocus();
    answer(QMessageBox::No);
    QTest::keyClick(panel.table(), Qt::Key_Delete);
    QVERIFY2(asked.startsWith(QLatin1String("Delete these 2 runs from the run history?")), qPrintable(asked));
    QCOMPARE(defaultButton, QMessageBox::No);
    QCOMPARE(history.count(), 2);
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    panel.table()->setFocus();
    answer(QMessageBox::Yes);
    QTest::keyClick(panel.table(), Qt::Key_Delete);
    QCOMPARE(history.count(), 0);
}

void TestRunConfig::formats()
{
    QCOMPARE(formatBytes(0), QStringLiteral("0 B"));
    QCOMPARE(formatBytes(1536), QStringLiteral("1.50 KiB"));
    QCOMPARE(formatBytes(200LL << 20), QStringLiteral("200 MiB"));
    QCOMPARE(formatBytes(-1), QString::fromUtf8("—"));
    QCOMPARE(formatDuration(42), QStringLiteral("0:42"));
    QCOMPARE(formatDuration(3723), QStringLiteral("1:02:03"));
    QCOMPARE(formatDuration(StageRun::kNaN), QString::fromUtf8("—"));
    QCOMPARE(formatSeconds(0.844), QStringLiteral("844 ms"));
    QCOMPARE(formatSeconds(0.0382), QStringLiteral("38.2 ms"));
    QCOMPARE(formatSeconds(0.00512), QStringLiteral("5.12 ms"));
    QCOMPARE(formatSeconds(0.9996), QStringLiteral("1.00 s"));
    QCOMPARE(formatSeconds(9.996), QStringLiteral("10.0 s"));
    QCOMPARE(formatSeconds(8), QStringLiteral("8.00 s"));
    QCOMPARE(formatSeconds(125), QStringLiteral("2:05"));
    // Enough digits to tell runs apart, the same way everywhere ("final loss 2" was 1.99973).
    QCOMPARE(formatLoss(1.99973), QStringLiteral("1.99973"));
    QCOMPARE(formatLoss(2.0), QStringLiteral("2.00000"));
    QCOMPARE(formatLoss(0.0123456), QStringLiteral("0.0123456"));
    QCOMPARE(formatLoss(12.5), QStringLiteral("12.5000"));
    QCOMPARE(formatLoss(1.25e-5), QStringLiteral("1.25000e-05"));
    QCOMPARE(formatLoss(0), QStringLiteral("0.00000"));
    QCOMPARE(formatLoss(StageRun::kNaN), QString::fromUtf8("—"));
    const auto session = finishedSession(RunKind::Baseline, 10, 3 << 20, 1.99973, 2);
    QVERIFY2(session->summary().endsWith(QLatin1String("final loss 1.99973")), qPrintable(session->summary()));
    QCOMPARE(formatRatio(10, 5), QString::fromUtf8("0.50× (−50 %)"));
    QCOMPARE(formatRatio(0, 5), QString::fromUtf8("—"));
}

void TestRunConfig::historyShortColumnsStayInView()
{
    // Final loss and Outcome were behind a horizontal scroll bar even at 1920 pixels: the
    // long configuration and output folder took their whole width.
    const QString deep = QStringLiteral("/very/long/path/to/some/deeply/nested/place/on/a/shared/machine/where/"
                                        "the/datasets/of/many/people/are/kept/dataset-with-a-long-name");
    RunHistory history;
    RunHistoryPanel panel(&history);
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    history.add(finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 2, 4, deep));
    history.add(finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2, 4, deep));
    QTableView *table = panel.table();
    QHeaderView *header = table->horizontalHeader();
    auto textWidth = [table](int row, int column) {
        return table->fontMetrics().horizontalAdvance(table->model()->index(row, column).data().toString());
    };
    QApplication::processEvents();
    // The details come after the outcome, time, peak memory and loss.
    QCOMPARE(header->visualIndex(RunHistoryModel::ConfigurationColumn),
        header->visualIndex(RunHistoryModel::LossColumn) + 1);
    for (int width : {1000, 1900}) {
        panel.resize(width, 600);
        QApplication::processEvents();
        const int viewport = table->viewport()->width();
        QVERIFY2(!table->horizontalScrollBar()->isVisible(), qPrintable(QString::number(width)));
        for (int column : {RunHistoryModel::OutcomeColumn, RunHistoryModel::TimeColumn, RunHistoryModel::PeakColumn,
                 RunHistoryModel::LossColumn}) {
            const int left = header->sectionViewportPosition(column);
            QVERIFY2(left >= 0 && left + header->sectionSize(column) <= viewport,
                qPrintable(QStringLiteral("width %1: column %2 at %3..%4, viewport %5")
                               .arg(width)
                               .arg(column)
                               .arg(left)
                               .arg(left + header->sectionSize(column))
                               .arg(viewport)));
            // Not cut either: the whole text fits.
            for (int row = 0; row < table->model()->rowCount(); ++row)
                QVERIFY(header->sectionSize(column) > textWidth(row, column));
        }
        // The long columns take what is left.
        QCOMPARE(header->sectionViewportPosition(RunHistoryModel::OutputColumn)
                + header->sectionSize(RunHistoryModel::OutputColumn),
            viewport);
    }
    // Elided at 1000 pixels; the tooltips have the whole text.
    panel.resize(1000, 600);
    QApplication::processEvents();
    QVERIFY(header->sectionSize(RunHistoryModel::ConfigurationColumn) < textWidth(0, RunHistoryModel::ConfigurationColumn));
    QVERIFY(table->model()->index(0, RunHistoryModel::ConfigurationColumn).data(Qt::ToolTipRole).toString().contains(deep));
    QVERIFY(table->model()
                ->index(0, RunHistoryModel::OutputColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(table->model()->index(0, RunHistoryModel::OutputColumn).data().toString()));
}


// The loss chart's TensorBoard-like controls: smoothing recomputes the bold curve
// from the per-step loss, the log axis takes the curves, a zoom stays while points
// arrive until "show everything", and the CSV holds every step of every run.
void TestRunConfig::lossChartSmoothsZoomsAndExports()
{
    auto a = finishedSession(RunKind::Baseline, 10, 3 << 20, 0.25, 2);
    auto b = finishedSession(RunKind::Both, 8, 3 << 20, 0.25, 2);
    StageRun *training = nullptr;
    for (StageRun &stage : a->stages())
        training = stage.isTraining() ? &stage : training;
    QVERIFY(training);
    training->loss = {QPointF(1, 2.0), QPointF(2, 1.0), QPointF(3, 0.5), QPointF(4, 0.25)};
    LossChartView chart;
    chart.resize(600, 400);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.addRun(a, QStringLiteral("baseline, 1"), Qt::blue);
    chart.addRun(b, QStringLiteral("split"), Qt::red);
    QCOMPARE(chart.smoothing(), 0.9);
    const auto csvRows = [&chart] { return chart.curvesCsv().split('\n', Qt::SkipEmptyParts); };
    QStringList rows = csvRows();
    QCOMPARE(rows.size(), 1 + 4 + 2);
    QCOMPARE(rows[0], QStringLiteral("run,step,loss,smoothed"));
    // Debiased: the first smoothed value is the first loss.
    QCOMPARE(rows[1], QStringLiteral("\"baseline, 1\",1,2,2"));
    const double second = (0.9 * 0.1 * 2.0 + 0.1 * 1.0) / (1 - 0.81);
    QVERIFY(std::abs(rows[2].section(QLatin1Char(','), 4).toDouble() - second) < 1e-8);
    chart.setSmoothing(0);
    rows = csvRows();
    QCOMPARE(rows[3], QStringLiteral("\"baseline, 1\",3,0.5,0.5"));
    QCOMPARE(chart.smoothedPoints(0), 4);

    chart.setLogScale(true);
    QVERIFY(chart.logScale());
    QCOMPARE(chart.rawPoints(0), 4);
    chart.setLogScale(false);

    chart.zoomBy(2.0);
    QVERIFY(chart.zoomed());
    training->loss.append(QPointF(5, 0.2));
    chart.refresh();
    QVERIFY(chart.zoomed());
    QCOMPARE(chart.rawPoints(0), 5);
    QTest::mouseDClick(chart.viewport(), Qt::LeftButton);
    QVERIFY(!chart.zoomed());

    QTemporaryDir dir;
    QString error;
    QVERIFY2(chart.exportCsv(dir.filePath("loss.csv"), &error), qPrintable(error));
    QFile file(dir.filePath("loss.csv"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), chart.curvesCsv());
    QVERIFY(!chart.exportCsv(dir.filePath("no/such/folder/loss.csv"), &error));
    QVERIFY(!error.isEmpty());

    // The same controls in view, not only in the context menu: the slider and the box
    // show the state and change it, above the plot (not over the curves).
    QSlider *slider = chart.smoothingSlider();
    QCheckBox *log = chart.logScaleBox();
    QVERIFY(slider->isVisible() && log->isVisible());
    chart.setSmoothing(0.6);
    QCOMPARE(slider->value(), 60);
    slider->setValue(95);
    QCOMPARE(chart.smoothing(), 0.95);
    log->click();
    QVERIFY(chart.logScale());
    chart.setLogScale(false);
    QVERIFY(!log->isChecked());
    const QRect strip(slider->parentWidget()->geometry());
    QVERIFY2(strip.bottom() < chart.chart()->plotArea().top(), "the controls sit above the plot");
}

// With --nproc_per_node, the other ranks' memory and stage-one progress arrive
// marked with their rank: they go to series of their own, never into rank 0's, and
// the memory chart draws one dotted line per rank.
void TestRunConfig::otherRanksKeepTheirOwnSeries()
{
    auto session = std::make_shared<RunSession>(RunKind::StageOne, RunConfig());
    StageRun &one = session->addStage(RunStage::StageOne);
    one.clockOffset = 10;
    feed(one, {R"({"event":"start","time":0.02,"pid":42,"num_threads":1,"world_size":2,"rank":0})",
                  R"({"event":"progress","time":0.1,"stage":"data_process","done":3,"total":6,"rank":0})",
                  R"({"event":"progress","time":0.1,"stage":"data_process","done":1,"total":4,"rank":1})",
                  R"({"event":"memory","time":0.1,"rss_bytes":1000,"peak_rss_bytes":1200,"rank":0})",
                  R"({"event":"memory","time":0.15,"rss_bytes":9000,"peak_rss_bytes":9000,"rank":1})"});
    QCOMPARE(one.worldSize, 2);
    QCOMPARE(one.done, 3);
    QCOMPARE(one.total, 6);
    QCOMPARE(one.memory, (QVector<QPointF>{QPointF(10.1, 1000)}));
    QCOMPARE(one.peakRss, 1200);
    QCOMPARE(one.rankMemory.value(1), (QVector<QPointF>{QPointF(10.15, 9000)}));
    QCOMPARE(one.rankProgress.value(1), (QPair<qint64, qint64>(1, 4)));
    MemoryChartView chart;
    chart.addRun(session, QString(), QColor(), false);
    QVERIFY2(chart.legendText().contains("split, stage one: RSS, rank 1"), qPrintable(chart.legendText()));
}

QTEST_MAIN(TestRunConfig)
#include "tst_runconfig.moc"
