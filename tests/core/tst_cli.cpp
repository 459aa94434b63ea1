// SPDX-License-Identifier: MIT
// splitscope-cli split / validate / examples as a user runs them: exit statuses,
// messages on stderr that name what is wrong, and the JSON schema.
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

struct stat lstatOf(const QString &path)
{
    struct stat st {};
    ::lstat(path.toLocal8Bit().constData(), &st);
    return st;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

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
    void outputFollowsLinksAndWritesThroughDevices();
    void outputIsNotTheInput();
    void unknownModelInFlag_data();
    void unknownModelInFlag();
    void listedModelNoUnitCallsIsANote();
    void usageErrors_data();
    void usageErrors();
    void missingPipelineFile();
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
    // Each flag replaces only its own field: the file's lora_base_model (dit) stays.
    const Run vae = cli({"split", kExamples + "/qwen_image.json", "--trainable_models", "vae", "--format", "json"});
    QCOMPARE(vae.status, 0);
    const QJsonObject o = QJsonDocument::fromJson(vae.out).object();
    QCOMPARE(strings(o["models_require_backward"]), QStringList({"vae", "dit"}));
    QCOMPARE(strings(o["v1"]).size(), 6);
    // An empty value means none.
    const Run noLora = cli({"split", kExamples + "/qwen_image.json", "--trainable_models", "vae", "--lora_base_model", "",
        "--format", "json"});
    QCOMPARE(strings(QJsonDocument::fromJson(noLora.out).object()["models_require_backward"]), QStringList({"vae"}));
    const Run text = cli({"split", "qwen_image", "--trainable_models", "text_encoder,vae"});
    QCOMPARE(text.status, 0);
    QVERIFY2(text.out.contains("Models requiring backward: text_encoder, vae, dit"), text.out.constData());
    // diff's per-side flags likewise.
    const Run diff = cli({"diff", "qwen_image", "--trainable_models-a", "vae", "--format", "json"});
    QCOMPARE(diff.status, 0);
    const QJsonObject d = QJsonDocument::fromJson(diff.out).object();
    QCOMPARE(d["a"].toString(), QString("seed, trainable_models=vae lora_base_model=dit"));
    QCOMPARE(d["b"].toString(), QString("safe, lora_base_model=dit"));
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

void TestCli::outputFollowsLinksAndWritesThroughDevices()
{
    QTemporaryDir dir;
    const QString expected = QString::fromUtf8(cli({"split", "counterexample_write_after_read"}).out);
    QVERIFY(!expected.isEmpty());

    // A link is followed: its target gets the output, the link stays a link.
    const QString keep = dir.filePath("keep.txt");
    const QString link = dir.filePath("link.txt");
    QVERIFY(QFile(keep).open(QIODevice::WriteOnly));
    QVERIFY(::symlink("keep.txt", link.toLocal8Bit().constData()) == 0);
    const Run linked = cli({"split", "counterexample_write_after_read", "--output", link});
    QCOMPARE(linked.status, 0);
    QVERIFY(S_ISLNK(lstatOf(link).st_mode));
    QCOMPARE(QString::fromUtf8(readAll(keep)), expected);

    // Standard output named as a file is written on the descriptor.
    const Run stdoutRun = cli({"split", "counterexample_write_after_read", "--output", "/dev/stdout"});
    QCOMPARE(stdoutRun.status, 0);
    QCOMPARE(QString::fromUtf8(stdoutRun.out), expected);

    // A character device is written through, not replaced. As root a broken writer
    // would replace /dev/null itself, so root uses a private node of it.
    QString null = QStringLiteral("/dev/null");
    if (::geteuid() == 0) {
        null = dir.filePath("fakenull");
        QVERIFY(::mknod(null.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) == 0);
    }
    const Run device = cli({"split", "counterexample_write_after_read", "--output", null});
    QCOMPARE(device.status, 0);
    QVERIFY(S_ISCHR(lstatOf(null).st_mode));

    // A FIFO too. Its reading end is open (without blocking) before the CLI starts,
    // and the text fits the pipe's buffer, so neither side can wait forever.
    const QString fifo = dir.filePath("fifo");
    QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
    const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    const Run piped = cli({"split", "counterexample_write_after_read", "--output", fifo});
    QByteArray received;
    char buffer[4096];
    pollfd ready{reader, POLLIN, 0};
    while (::poll(&ready, 1, 5000) > 0) {
        const ssize_t n = ::read(reader, buffer, sizeof buffer);
        if (n <= 0)
            break;
        received.append(buffer, static_cast<int>(n));
    }
    ::close(reader);
    QCOMPARE(piped.status, 0);
    QCOMPARE(QString::fromUtf8(received), expected);
    QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));

    // A directory stays an error of the work (1), and stays a directory.
    const Run folder = cli({"split", "counterexample_write_after_read", "--output", dir.path()});
    QCOMPARE(folder.status, 1);
    QVERIFY2(folder.err.contains(("--output: cannot write '" + dir.path() + "': Is a directory").toUtf8()),
        folder.err.constData());
    QVERIFY(S_ISDIR(lstatOf(dir.path()).st_mode));
}

void TestCli::outputIsNotTheInput()
{
    QTemporaryDir dir;
    const QString input = dir.filePath("p.json");
    QVERIFY(QFile::copy(kExamples + "/counterexample_write_after_read.json", input));
    const QByteArray before = readAll(input);
    const Run same = cli({"split", input, "--output", input});
    QCOMPARE(same.status, 2);
    QVERIFY2(same.err.contains(("--output: '" + input + "' is the input file").toUtf8()), same.err.constData());
    // The same file by another name (a link) is refused too.
    const QString link = dir.filePath("link.json");
    QVERIFY(::symlink("p.json", link.toLocal8Bit().constData()) == 0);
    const Run linked = cli({"split", input, "--output", link});
    QCOMPARE(linked.status, 2);
    QVERIFY2(linked.err.contains("is the input file"), linked.err.constData());
    QCOMPARE(readAll(input), before);
    // A built-in name is no file: an output file of that name is fine.
    QCOMPARE(cli({"split", "counterexample_write_after_read", "--output", dir.filePath("out.txt")}).status, 0);
}

void TestCli::unknownModelInFlag_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString known = "; its models: text_encoder, dit, vae, blockwise_controlnet, siglip2_image_encoder, "
                          "dinov3_image_encoder, image2lora_style, image2lora_coarse, image2lora_fine";
    QTest::newRow("split trainable") << QStringList({"split", "qwen_image", "--trainable_models", "foo", "--check"})
                                     << "split: --trainable_models: no model 'foo' in qwen_image" + known;
    QTest::newRow("split trainable, second of two") << QStringList({"split", "qwen_image", "--trainable_models", "vae,te"})
                                                    << "--trainable_models: no model 'te' in qwen_image (did you mean 'text_encoder'?)" + known;
    QTest::newRow("split lora") << QStringList({"split", "qwen_image", "--lora_base_model", "dti"})
                                << "--lora_base_model: no model 'dti' in qwen_image (did you mean 'dit'?)" + known;
    QTest::newRow("diff trainable a") << QStringList({"diff", "qwen_image", "--trainable_models-a", "vea"})
                                      << "diff: --trainable_models-a: no model 'vea' in qwen_image (did you mean 'vae'?)" + known;
    QTest::newRow("diff trainable b") << QStringList({"diff", "qwen_image", "--trainable_models-b", "foo"})
                                      << "diff: --trainable_models-b: no model 'foo' in qwen_image" + known;
    QTest::newRow("diff lora a") << QStringList({"diff", "qwen_image", "--lora_base_model-a", "dti"})
                                 << "diff: --lora_base_model-a: no model 'dti' in qwen_image (did you mean 'dit'?)";
    QTest::newRow("diff lora b") << QStringList({"diff", "qwen_image", "--lora_base_model-b", "dti"})
                                 << "diff: --lora_base_model-b: no model 'dti' in qwen_image (did you mean 'dit'?)";
}

void TestCli::unknownModelInFlag()
{
    usageErrors(); // the same check: exit 2, the message on stderr, nothing on stdout
}

void TestCli::listedModelNoUnitCallsIsANote()
{
    const QByteArray warning = "note: model 'image2lora_fine' is listed in qwen_image but no unit calls it";
    const Run split = cli({"split", "qwen_image", "--trainable_models", "image2lora_fine", "--check"});
    QCOMPARE(split.status, 0);
    QVERIFY2(split.err.contains("splitscope-cli split: " + warning), split.err.constData());
    const Run diff = cli({"diff", "qwen_image", "--trainable_models-b", "image2lora_fine"});
    QCOMPARE(diff.status, 0);
    QVERIFY2(diff.err.contains("splitscope-cli diff: " + warning), diff.err.constData());
    // The file's own training block (lora_base_model dit, which only the loss calls) says nothing.
    QCOMPARE(cli({"split", "qwen_image"}).err, QByteArray());
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
    QTest::newRow("output eats a flag") << QStringList({"split", "qwen_image", "--output", "--check"})
                                        << "--output: missing value (next argument is --check)";
    QTest::newRow("value eats a flag") << QStringList({"split", "qwen_image", "--explain", "--format", "json"})
                                       << "--explain: missing value (next argument is --format)";
    QTest::newRow("repeated mode") << QStringList({"split", "qwen_image", "--mode", "safe", "--mode", "seed"})
                                   << "--mode is given more than once ('safe', then 'seed')";
    QTest::newRow("repeated stage-two") << QStringList({"split", "qwen_image", "--stage-two", "A", "--stage-two=B"})
                                        << "--stage-two is given more than once ('A', then 'B')";
    QTest::newRow("repeated switch") << QStringList({"split", "qwen_image", "--check", "--check"})
                                     << "--check is given more than once";
    QTest::newRow("explain with dot") << QStringList({"split", "qwen_image", "--explain", "QwenImageUnit_PromptEmbedder", "--format", "dot"})
                                      << "--explain: the dot format has no room for an explanation; use --format text or json";
    QTest::newRow("empty output") << QStringList({"split", "qwen_image", "--output", ""}) << "split: --output: empty file name";
    QTest::newRow("empty output inline") << QStringList({"split", "qwen_image", "--output="}) << "--output: empty file name";
    QTest::newRow("diff repeated") << QStringList({"diff", "qwen_image", "--mode-a", "safe", "--mode-a", "seed"})
                                   << "diff: --mode-a is given more than once ('safe', then 'seed')";
    QTest::newRow("diff eats a flag") << QStringList({"diff", "qwen_image", "--trainable_models-a", "--format", "json"})
                                      << "--trainable_models-a: missing value (next argument is --format)";
    QTest::newRow("validate repeated") << QStringList({"validate", "qwen_image", "--quiet", "--quiet"})
                                       << "validate: --quiet is given more than once";
    QTest::newRow("examples empty output") << QStringList({"examples", "krea2", "--output", ""})
                                           << "examples: --output: empty file name";
    QTest::newRow("examples output eats a flag") << QStringList({"examples", "krea2", "--output", "--x"})
                                                 << "--output: missing value (next argument is --x)";
    QTest::newRow("examples output without a name") << QStringList({"examples", "--output", "x.json"})
                                                    << "--output writes one example; name it";
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

void TestCli::missingPipelineFile()
{
    // A path (with a /) is never a built-in name: only the file is missing.
    const Run path = cli({"split", "/nonexistent/x.json"});
    QCOMPARE(path.status, 2);
    QCOMPARE(QString::fromUtf8(path.err).trimmed(),
        QString("/nonexistent/x.json: error: cannot open '/nonexistent/x.json': No such file or directory"));
    // A bare name gets a hint and the built-in names, each once.
    const Run name = cli({"split", "qwen_imag"});
    QCOMPARE(name.status, 2);
    QVERIFY2(name.err.contains("no built-in pipeline has that name. Did you mean 'qwen_image'? Built-in: ace_step, "),
        name.err.constData());
    QCOMPARE(name.err.count("tiny-qwen-image"), 1);
    QCOMPARE(name.err.count("qwen_image,"), 1);
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
    // Each built-in once, however many ways it is built in.
    const QList<QByteArray> listed = list.out.trimmed().split('\n');
    QSet<QByteArray> names;
    for (const QByteArray &line : listed)
        names.insert(line.split(' ').front());
    QCOMPARE(names.size(), listed.size());
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
    QVERIFY(configs.out.contains("QwenImageUnit_EntityControl: stage two in side a, stage one in side b"));
    QCOMPARE(cli({"diff", "qwen_image", "--mode-a", "quick"}).status, 2);
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
