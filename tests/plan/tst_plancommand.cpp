// SPDX-License-Identifier: MIT
// splitscope-cli plan, run as a user runs it: the plan of a script or of the command
// after --, in each format and to a file, the same plan as the library makes, a saved
// script that really runs both stages one after the other, the exit status for a split
// with hazards, and every usage error naming its flag or file.
#include "PlanTestSupport.h"
#include "support/TestFiles.h"

#include "core/plan/Plan.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sstream>

using namespace splitscope;

namespace {

const QString kCheckout = QStringLiteral(SPLITSCOPE_PLAN_CHECKOUT);
const QString kFixtures = QStringLiteral(SPLITSCOPE_PLAN_FIXTURES);

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run run(const QString &program, const QStringList &arguments, const QString &workdir = {})
{
    QProcess process;
    if (!workdir.isEmpty())
        process.setWorkingDirectory(workdir);
    process.start(program, arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

Run cli(const QStringList &arguments, const QString &workdir = {})
{
    return run(QStringLiteral(SPLITSCOPE_CLI), QStringList{QStringLiteral("plan")} + arguments, workdir);
}

} // namespace

class TestPlanCommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void textToStandardOutput();
    void jsonIsTheLibrarysPlan();
    void savedScriptRunsBothStages();
    void hazardsExitWithThree();
    void usageErrors_data();
    void usageErrors();
    void unwritableOutputLosesNothing();

private:
    QTemporaryDir m_work;
};

void TestPlanCommand::initTestCase()
{
    QVERIFY(m_work.isValid());
    QVERIFY(QFile::exists(QStringLiteral(SPLITSCOPE_CLI)));
    plan::testing::writeTinyModels(m_work.path().toStdString());
}

void TestPlanCommand::textToStandardOutput()
{
    const Run r = cli({kFixtures + "/lora.sh", "--diffsynth", kCheckout, "--workdir", m_work.path()});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("Plan for tiny_image (" + kFixtures + "/lora.sh:7), --lora_base_model dit\n"), qPrintable(r.out));
    // Both commands, each with the feature document's changes.
    QCOMPARE(r.out.count("accelerate launch --num_processes 1 examples/tiny_image/model_training/train.py"), 2);
    QVERIFY(r.out.contains("--task \"sft:data_process\""));
    QVERIFY(r.out.contains("--task \"sft:train\""));
    QVERIFY(r.out.contains("--dataset_base_path \"./models/train/Tiny-Image_lora-cache\""));
}

void TestPlanCommand::jsonIsTheLibrarysPlan()
{
    // The script, and the same command given after --: one plan, the library's.
    plan::PlanInput in;
    in.scriptName = (kFixtures + "/lora.sh").toStdString();
    in.script = test::readFileText((kFixtures + "/lora.sh").toStdString());
    in.checkout = kCheckout.toStdString();
    in.workdir = m_work.path().toStdString();
    const plan::PlanResult planned = plan::makePlan(in);
    QVERIFY(planned.plan);
    const Run fromFile = cli({kFixtures + "/lora.sh", "--diffsynth", kCheckout, "--workdir", m_work.path(), "--format", "json"});
    QVERIFY2(fromFile.status == 0, qPrintable(fromFile.err));
    QCOMPARE(fromFile.out.toStdString(), plan::planToJson(*planned.plan));
    const nlohmann::json doc = nlohmann::json::parse(fromFile.out.toStdString());
    QCOMPARE(doc.at("format").get<std::string>(), std::string("splitscope.plan/1"));

    const QStringList command = {"accelerate", "launch", "examples/tiny_image/model_training/train.py",
        "--dataset_base_path", "data/tiny_dataset", "--dataset_metadata_path", "data/tiny_dataset/metadata.csv",
        "--model_id_with_origin_paths",
        "Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors,Tiny/Tiny-Image:text_encoder/model.safetensors,"
        "Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors",
        "--output_path", "./models/train/Tiny-Image_lora", "--lora_base_model", "dit"};
    const Run afterDashes = cli(QStringList{"--diffsynth", kCheckout, "--workdir", m_work.path(), "--format", "json", "--"} + command);
    QVERIFY2(afterDashes.status == 0, qPrintable(afterDashes.err));
    // The same decisions (the commands differ: the script has more flags).
    const nlohmann::json dashes = nlohmann::json::parse(afterDashes.out.toStdString());
    for (const char *stage : {"stage_one", "stage_two"}) {
        for (const char *key : {"units", "models", "offloaded"})
            QCOMPARE(dashes.at(stage).at(key).dump(), doc.at(stage).at(key).dump());
    }
    QCOMPARE(dashes.at("models").dump(), doc.at("models").dump());
}

void TestPlanCommand::savedScriptRunsBothStages()
{
    // A command whose launcher is our own stand-in: the saved script runs stage one, then
    // stage two, each with its own flags.
    const QString launcher = kFixtures + "/fake_launcher.py";
    const QString out = m_work.filePath("split.sh");
    const Run planned = cli({"--diffsynth", kCheckout, "--workdir", m_work.path(), "--format", "sh", "--output", out,
        "--", "/usr/bin/python3", launcher, "examples/tiny_image/model_training/train.py", "--dataset_base_path",
        "data/tiny", "--dataset_metadata_path", "data/tiny/metadata.csv", "--model_id_with_origin_paths",
        "Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors,Tiny/Tiny-Image:text_encoder/model.safetensors,"
        "Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors",
        "--lora_base_model", "dit", "--output_path", "out", "--fake_steps", "3", "--fake_delay", "0"});
    QVERIFY2(planned.status == 0, qPrintable(planned.err));
    QVERIFY(planned.out.isEmpty());
    QVERIFY(QFileInfo(out).isExecutable());
    const Run ran = run(out, {}, m_work.path());
    QVERIFY2(ran.status == 0, qPrintable(ran.err + ran.out));
    const QStringList lines = ran.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4); // each stage: its flags, then done
    QVERIFY2(lines[0].contains("--task sft:data_process") && lines[0].contains("--dataset_repeat 1")
            && lines[0].contains("--output_path out-cache")
            && lines[0].contains("--offload_models Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors"),
        qPrintable(lines[0]));
    QCOMPARE(lines[1], QStringLiteral("fake launcher: done"));
    QVERIFY2(lines[2].contains("--task sft:train") && lines[2].contains("--dataset_base_path out-cache")
            && !lines[2].contains("--dataset_metadata_path") && lines[2].contains("--output_path out"),
        qPrintable(lines[2]));
    QCOMPARE(lines[3], QStringLiteral("fake launcher: done"));
}

void TestPlanCommand::hazardsExitWithThree()
{
    // The template pipeline's unit calls a trained model it does not declare: DiffSynth's
    // split caches its output. The plan is written, and the exit status says so.
    const Run r = cli({kFixtures + "/template.sh", "--diffsynth", kCheckout, "--workdir", m_work.path()});
    QCOMPARE(r.status, 3);
    QVERIFY(r.out.contains("Stage two"));
    QVERIFY2(r.err.contains("DiffSynth's split has hazards"), qPrintable(r.err));
}

void TestPlanCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString lora = kFixtures + "/lora.sh";
    QTest::newRow("no script") << QStringList{"--diffsynth", kCheckout} << "give the one-stage script";
    QTest::newRow("no pipeline") << QStringList{lora} << "give the DiffSynth-Studio checkout (--diffsynth DIR)";
    QTest::newRow("bad format") << QStringList{lora, "--diffsynth", kCheckout, "--format", "yaml"}
                                << "--format: 'yaml' is not text, json or sh";
    QTest::newRow("unknown flag") << QStringList{lora, "--diffsynth", kCheckout, "--trainable_models", "dit"}
                                  << "unknown flag --trainable_models";
    QTest::newRow("bad line") << QStringList{lora, "--diffsynth", kCheckout, "--line", "0"} << "--line";
    QTest::newRow("no command on that line") << QStringList{lora, "--diffsynth", kCheckout, "--line", "3"}
                                             << "lora.sh:3: error: no command that runs a train.py starts on line 3 (it starts on line 7)";
    QTest::newRow("bad model") << QStringList{lora, "--diffsynth", kCheckout, "--model", "dit"}
                               << "--model 'dit': write ENTRY=ATTRIBUTE";
    QTest::newRow("missing script") << QStringList{"/nonexistent/train.sh", "--diffsynth", kCheckout}
                                    << "plan: /nonexistent/train.sh:";
    QTest::newRow("missing checkout") << QStringList{lora, "--diffsynth", "/nonexistent/DiffSynth-Studio"}
                                      << "/nonexistent/DiffSynth-Studio";
    QTest::newRow("no train.py") << QStringList{"--diffsynth", kCheckout, "--", "echo", "hello"}
                                 << "the command after --:1: error: no command runs a train.py";
}

void TestPlanCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Run r = cli(arguments, m_work.path());
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestPlanCommand::unwritableOutputLosesNothing()
{
    // A folder where the file should go: nothing is written over it, and the flag is named.
    const QString out = m_work.filePath("a-folder");
    QVERIFY(QDir().mkpath(out + "/inside"));
    const Run r = cli({kFixtures + "/lora.sh", "--diffsynth", kCheckout, "--format", "sh", "--output", out});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("--output"), qPrintable(r.err));
    QVERIFY(QFileInfo(out + "/inside").isDir());
}

QTEST_GUILESS_MAIN(TestPlanCommand)
#include "tst_plancommand.moc"
