// SPDX-License-Identifier: MIT
// splitscope-cli split / validate / examples as a user runs them: exit statuses,
// messages on stderr that name what is wrong, and the JSON schema.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int status = -1;
    QByteArray out;
    QByteArray err;
};

Run cli(const QStringList &args, const QByteArray &input = {})
{
    QProcess p;
    p.start(QStringLiteral(SPLITSCOPE_CLI), args);
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(60000);
    return Run{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError()};
}

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &x : v.toArray())
        out << x.toString();
    return out;
}

const QString kExamples = QStringLiteral(SPLITSCOPE_EXAMPLES_DIR);

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonSchema();
    void modelFlagsOverrideTheTrainingBlock();
    void checkExitsThreeOnHazards();
    void safeModeHasNoHazards();
    void givenPartition();
    void explainUnit();
    void dotOutput();
    void outputFile();
    void usageErrors_data();
    void usageErrors();
    void badPipelineFile();
    void validateAndExamples();
    void diffCommand();
};

void TestCli::jsonSchema()
{
    const Run r = cli({"split", kExamples + "/wan_video.json", "--trainable_models", "image_encoder", "--lora_base_model",
        "", "--format", "json"});
    QCOMPARE(r.status, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    for (const char *key : {"mode", "x0", "iterations", "v1", "v2", "hazards", "cache_set"})
        QVERIFY2(o.contains(key), key);
    QCOMPARE(o["mode"].toString(), QString("seed"));
    QCOMPARE(strings(o["models_require_backward"]), QStringList({"image_encoder"}));
    const QJsonArray iterations = o["iterations"].toArray();
    QCOMPARE(iterations.size(), 2);
    QCOMPARE(strings(iterations[0].toObject()["forward"]),
        QStringList({"WanVideoUnit_FunControl", "WanVideoUnit_Animate2RefKVCacheEmbedder"}));
    QCOMPARE(strings(iterations[0].toObject()["update"]),
        QStringList({"WanVideoUnit_FunCameraControl", "WanVideoUnit_AnimateInpaint", "WanVideoUnit_Animate2VAEEmbedder"}));
    QCOMPARE(strings(iterations[1].toObject()["forward"]), QStringList());
    // v1 + v2 partition the units, each in pipeline order.
    QCOMPARE(strings(o["v1"]).size() + strings(o["v2"]).size(), 29);
    for (const QJsonValue &c : o["cache_set"].toArray()) {
        const QJsonObject entry = c.toObject();
        QVERIFY(entry["param"].isString());
        QVERIFY(entry["producer"].isString() || entry["producer"].isNull());
    }
}

void TestCli::modelFlagsOverrideTheTrainingBlock()
{
    const Run fileBlock = cli({"split", kExamples + "/qwen_image.json", "--format", "json"});
    QCOMPARE(QJsonDocument::fromJson(fileBlock.out).object()["models_require_backward"].toArray().size(), 1);
    QCOMPARE(strings(QJsonDocument::fromJson(fileBlock.out).object()["v1"]), QStringList());
    const Run vae = cli({"split", kExamples + "/qwen_image.json", "--trainable_models", "vae", "--format", "json"});
    const QJsonObject o = QJsonDocument::fromJson(vae.out).object();
    QCOMPARE(strings(o["models_require_backward"]), QStringList({"vae"}));
    QCOMPARE(strings(o["v1"]).size(), 6);
}

void TestCli::checkExitsThreeOnHazards()
{
    const Run r = cli({"split", kExamples + "/counterexample_write_after_read.json", "--check", "--format", "json"});
    QCOMPARE(r.status, 3);
    const QJsonArray hazards = QJsonDocument::fromJson(r.out).object()["hazards"].toArray();
    QCOMPARE(hazards.size(), 1);
    const QJsonObject h = hazards[0].toObject();
    QCOMPARE(h["kind"].toString(), QString("write-after-read"));
    QCOMPARE(h["reader"].toString(), QString("C"));
    QCOMPARE(h["param"].toString(), QString("p"));
    QCOMPARE(h["expected_producer"].toString(), QString("A"));
    QCOMPARE(h["actual_producer"].toString(), QString("B"));
    // Without --check the same split is a success.
    QCOMPARE(cli({"split", kExamples + "/counterexample_write_after_read.json"}).status, 0);
}

void TestCli::safeModeHasNoHazards()
{
    const Run r = cli({"split", "counterexample_write_after_write", "--mode", "safe", "--check", "--format", "json"});
    QCOMPARE(r.status, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o["mode"].toString(), QString("safe"));
    QCOMPARE(strings(o["v1"]), QStringList({"A", "B"}));
    QCOMPARE(o["hazards"].toArray().size(), 0);
    QCOMPARE(o["iterations"].toArray().size(), 0);
}

void TestCli::givenPartition()
{
    const Run r = cli({"split", "counterexample_write_after_read", "--stage-two", "C,B", "--check"});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.contains("C1 holds, C2 holds, no hazards"));
    const Run broken = cli({"split", "counterexample_write_after_read", "--stage-two", "A", "--check", "--format", "json"});
    QCOMPARE(broken.status, 3);
    const QJsonArray v = QJsonDocument::fromJson(broken.out).object()["violations"].toArray();
    QCOMPARE(v.size(), 3); // C calls dit but is in stage one; A -> C and A -> B carry p into stage one
    QCOMPARE(v[0].toObject()["condition"].toString(), QString("X0"));
    QCOMPARE(v[0].toObject()["unit"].toString(), QString("C"));
    QCOMPARE(v[0].toObject()["model"].toString(), QString("dit"));
    QCOMPARE(v[1].toObject()["condition"].toString(), QString("C1"));
}

void TestCli::explainUnit()
{
    const Run r = cli({"split", "qwen_image", "--trainable_models", "vae", "--explain", "QwenImageUnit_PromptEmbedder"});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.startsWith("QwenImageUnit_PromptEmbedder runs in stage two"));
    QVERIFY(r.out.contains("F1: QwenImageUnit_PromptEmbedder reads edit_image from QwenImageUnit_EditImageEmbedder"));
    const Run j = cli({"split", "qwen_image", "--explain", "QwenImageUnit_ShapeChecker", "--format", "json"});
    const QJsonObject e = QJsonDocument::fromJson(j.out).object()["explain"].toObject();
    QCOMPARE(e["stage"].toString(), QString("one"));
    QVERIFY(e["lines"].toArray().size() >= 3);
}

void TestCli::dotOutput()
{
    const Run r = cli({"split", "counterexample_write_after_read", "--format", "dot"});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.startsWith("digraph \"counterexample_write_after_read\" {"));
    QVERIFY(r.out.contains("u1 [label=\"C\\n[dit]\", fillcolor=\"#ffd8a8\", peripheries=2, color=\"#d6336c\""));
    QVERIFY(r.out.contains("u0 -> u1 [label=\"p\""));
    QVERIFY(r.out.trimmed().endsWith('}'));
}

void TestCli::outputFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("split.json");
    const Run r = cli({"split", "qwen_image", "--format", "json", "--output", path});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.isEmpty());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(f.readAll()).isObject());
    const Run bad = cli({"split", "qwen_image", "--output", "/nonexistent/dir/x.json"});
    QCOMPARE(bad.status, 1);
    QVERIFY(bad.err.contains("--output: cannot create a temporary file beside '/nonexistent/dir/x.json'"));
}

void TestCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList() << "usage: splitscope-cli COMMAND";
    QTest::newRow("unknown command") << QStringList({"splt"}) << "unknown command 'splt' (did you mean 'split'?)";
    QTest::newRow("unknown flag") << QStringList({"split", "qwen_image", "--colour"}) << "unknown flag --colour";
    QTest::newRow("single dash") << QStringList({"split", "qwen_image", "-x"}) << "unknown flag -x (flags start with two dashes)";
    QTest::newRow("missing value") << QStringList({"split", "qwen_image", "--mode"}) << "--mode needs a value (seed|safe)";
    QTest::newRow("bad mode") << QStringList({"split", "qwen_image", "--mode", "fast"}) << "--mode: 'fast' is not one of seed, safe";
    QTest::newRow("bad format") << QStringList({"split", "qwen_image", "--format", "yaml"}) << "--format: 'yaml' is not one of text, json, dot";
    QTest::newRow("missing pipeline") << QStringList({"split"}) << "missing PIPELINE";
    QTest::newRow("extra argument") << QStringList({"split", "qwen_image", "extra"}) << "unexpected argument 'extra'";
    QTest::newRow("unknown unit") << QStringList({"split", "qwen_image", "--explain", "QwenImageUnit_PromptEmbeder"})
                                  << "--explain: no unit named 'QwenImageUnit_PromptEmbeder' in qwen_image (did you mean 'QwenImageUnit_PromptEmbedder'?)";
    QTest::newRow("unknown stage-two unit") << QStringList({"split", "qwen_image", "--stage-two", "Nope"})
                                            << "--stage-two: unknown unit 'Nope'";
    QTest::newRow("mode with stage-two") << QStringList({"split", "qwen_image", "--stage-two", "A", "--mode", "safe"})
                                         << "cannot be combined with --mode";
    QTest::newRow("missing file") << QStringList({"split", "/nonexistent/p.json"}) << "/nonexistent/p.json: error: cannot open '/nonexistent/p.json'";
    QTest::newRow("unknown example") << QStringList({"split", "qwen_imag"}) << "no built-in pipeline has that name";
}

void TestCli::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = cli(args);
    QCOMPARE(r.status, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void TestCli::badPipelineFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"t\",\n \"units\": [{\"name\": \"A\", \"output_params\": [3]}]\n}");
    f.close();
    const Run r = cli({"split", path});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains((path + ":4:44: error: units[0].output_params[0]: a string expected, found a number").toUtf8()),
        r.err.constData());
}

void TestCli::validateAndExamples()
{
    const Run v = cli({"validate", kExamples + "/wan_video.json"});
    QCOMPARE(v.status, 0);
    QVERIFY(v.out.contains("warning: units[15].output_params: a string where a list of param names belongs"));
    QVERIFY(v.out.contains("0 error(s), 1 warning(s)"));
    const Run list = cli({"examples"});
    QCOMPARE(list.status, 0);
    QVERIFY(list.out.contains("qwen_image\n"));
    const Run one = cli({"examples", "krea2"});
    QCOMPARE(one.status, 0);
    QVERIFY(QJsonDocument::fromJson(one.out).object()["name"].toString() == "krea2");
}

void TestCli::diffCommand()
{
    const Run r = cli({"diff", "counterexample_write_after_read", "--format", "json"});
    QCOMPARE(r.status, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o["a"].toString(), QString("seed, lora_base_model=dit"));
    QCOMPARE(o["b"].toString(), QString("safe, lora_base_model=dit"));
    const QJsonArray moved = o["moved"].toArray();
    QCOMPARE(moved.size(), 1);
    QCOMPARE(moved[0].toObject()["unit"].toString(), QString("B"));
    QCOMPARE(moved[0].toObject()["stage_in_b"].toString(), QString("two"));
    QVERIFY(strings(moved[0].toObject()["why"]).filter("R1: C reads p").size() == 1);

    const Run configs = cli({"diff", "qwen_image", "--mode-b", "seed", "--trainable_models-a", "text_encoder",
        "--lora_base_model-a", "", "--trainable_models-b", "vae", "--lora_base_model-b", ""});
    QCOMPARE(configs.status, 0);
    QVERIFY(configs.out.contains("1 unit(s) in stage two in both, 3 in stage one in both, 6 moved"));
    QVERIFY(configs.out.contains("QwenImageUnit_EntityControl: stage two in A, stage one in B"));
    QCOMPARE(cli({"diff", "qwen_image", "--mode-a", "quick"}).status, 2);
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
