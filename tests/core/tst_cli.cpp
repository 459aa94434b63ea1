// SPDX-License-Identifier: MIT
// splitscope-cli split / validate / examples as a user runs them: exit statuses,
// messages on stderr that name what is wrong, and the JSON schema.
#include "support/TestFiles.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

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

// Runs `program`; `setup` may redirect its streams or set its working folder first.
Run runProgram(const QString &program, const QStringList &args, const QByteArray &input = {},
    const std::function<void(QProcess &)> &setup = {})
{
    QProcess p;
    if (setup)
        setup(p);
    p.start(program, args);
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(60000);
    return Run{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError()};
}

Run cli(const QStringList &args, const QByteArray &input = {})
{
    return runProgram(QStringLiteral(SPLITSCOPE_CLI), args, input);
}

// The command line run by /bin/sh after `shellPrefix` (say `ulimit -v 100000;` or a
// redirection on exec), for what QProcess cannot set up.
Run cliInShell(const QString &shellPrefix, const QStringList &args, const QString &execRedirection = {})
{
    return runProgram(QStringLiteral("/bin/sh"),
        QStringList({"-c", shellPrefix + " exec \"$0\" \"$@\" " + execRedirection, QStringLiteral(SPLITSCOPE_CLI)})
            + args);
}

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &x : v.toArray())
        out << x.toString();
    return out;
}

const QString kExamples = QStringLiteral(SPLITSCOPE_EXAMPLES_DIR);

// AddressSanitizer (the fuzzing build instruments everything) reserves terabytes of
// address space up front, so a program built with it cannot start under `ulimit -v`.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// `ulimit -v KIB;` for cliInShell, or nothing where the limit cannot apply.
QString addressSpaceLimit(int kib)
{
    return kAddressSanitizer ? QString() : QString("ulimit -v %1;").arg(kib);
}

struct stat lstatOf(const QString &path)
{
    struct stat st {};
    ::lstat(path.toLocal8Bit().constData(), &st);
    return st;
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
    void validateListsDiagnosticsInFileOrder();
    void misspelledParamIsWarnedBySplit();
    void diffCommand();
    void failedStandardOutputFails_data();
    void failedStandardOutputFails();
    void fileSizeLimit();
    void closedStandardOutput();
    void unreadableInputsAreRefused();
    void memoryRunningOutIsAFailureNotAnAbort();
    void standardInput();
    void explainGivenPartitionNamesViolations();
    void failedCheckSaysWhy();
    void modelNamedTwiceOrEmpty();
    void outputErrorsNameTheCommand();
    void helpAndVersion();
    void folderNamedLikeABuiltin();
    void importWritesNoSourceThroughALink();
    void importUnknownPipelineClass();
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
    // An empty entry or a repeated unit changes nothing, but is said (as for model lists).
    const Run sloppy = cli({"split", "counterexample_write_after_read", "--stage-two", "C,,B,C", "--check"});
    QCOMPARE(sloppy.status, 0);
    QVERIFY(sloppy.out.contains("C1 holds, C2 holds, no hazards"));
    QVERIFY2(sloppy.err.contains("warning: --stage-two: 'C,,B,C' has an empty entry"), qPrintable(sloppy.err));
    QVERIFY2(sloppy.err.contains("warning: --stage-two names unit 'C' twice"), qPrintable(sloppy.err));
    QVERIFY(r.err.isEmpty());
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

    // The loss, by its name: where each of its reads comes from, and the hazard at p.
    const Run loss = cli({"split", "counterexample_write_after_write", "--explain", "Loss"});
    QCOMPARE(loss.status, 0);
    QCOMPARE(QString::fromUtf8(loss.out),
        QStringLiteral("The loss (Loss) runs last, in stage two, at every training step; it reads 1 param (one-stage "
                       "training gives each the value of its last writer):\n"
                       "- p: from A (stage two); one-stage training gives it B's value: a hazard, see the verifier.\n"));
    // A wrong name lists the names (the loss's too), not the usage text.
    const Run wrong = cli({"split", "counterexample_write_after_write", "--explain", "Los"});
    QCOMPARE(wrong.status, 2);
    QCOMPARE(QString::fromUtf8(wrong.err),
        QStringLiteral("splitscope-cli split: --explain: no unit named 'Los' in counterexample_write_after_write (did you "
                       "mean 'Loss'?); its units and loss:\n  A\n  B\n  Loss\n"));
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
    QCOMPARE(QString::fromUtf8(splitscope::test::readFileBytes(keep)), expected);

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
    const QByteArray before = splitscope::test::readFileBytes(input);
    const Run same = cli({"split", input, "--output", input});
    QCOMPARE(same.status, 2);
    QVERIFY2(same.err.contains(("--output: '" + input + "' is the input file").toUtf8()), same.err.constData());
    // The same file by another name (a link) is refused too.
    const QString link = dir.filePath("link.json");
    QVERIFY(::symlink("p.json", link.toLocal8Bit().constData()) == 0);
    const Run linked = cli({"split", input, "--output", link});
    QCOMPARE(linked.status, 2);
    QVERIFY2(linked.err.contains("is the input file"), linked.err.constData());
    QCOMPARE(splitscope::test::readFileBytes(input), before);
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
    QTest::newRow("unknown example name") << QStringList({"examples", "nope"})
                                          << "no built-in pipeline named 'nope' (built-in: ace_step, anima_image,";
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
    QVERIFY2(v.out.contains("wan_video.json: 0 errors, 1 warning, "), v.out.constData());
    QVERIFY2(v.out.contains(" notes, 29 units\n"), v.out.constData());
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

// validate prints every diagnostic in the file's order: the repeated unit name (found
// once the whole document is read) at line 4 before the type error at line 5, and the
// warnings among the errors.
void TestCli::validateListsDiagnosticsInFileOrder()
{
    const QByteArray doc = "{\"format\": \"splitscope.pipeline/1\", \"name\": \"t\", \"models\": [\"dit\"],\n"
                           "\"units\": [\n"
                           " {\"name\": \"A\", \"output_params\": [\"p\"], \"onload_model_names\": [\"te\"]},\n"
                           " {\"name\": \"A\", \"output_params\": \"q\"},\n"
                           " {\"name\": \"C\", \"output_params\": [1]}\n"
                           "]}\n";
    const Run v = cli({"validate", "-"}, doc);
    QCOMPARE(v.status, 2);
    QList<QByteArray> places;
    for (const QByteArray &line : v.out.split('\n')) {
        if (line.startsWith("<stdin>:") && line.count(':') > 3)
            places << line.split(':').mid(1, 3).join(':');
    }
    QCOMPARE(places, QList<QByteArray>({"3:63: warning", "4:11: error", "4:33: warning", "5:34: error"}));
    QVERIFY2(v.out.endsWith("<stdin>: 2 errors, 2 warnings, 0 notes\n"), v.out.constData());
}

// A read param one edit away from a produced one changes the split without a word as a
// note (notes need --verbose): it is a warning, which split prints, with the name meant.
void TestCli::misspelledParamIsWarnedBySplit()
{
    const QByteArray doc = "{\"format\": \"splitscope.pipeline/1\", \"name\": \"t\", \"models\": [\"te\", \"dit\"],\n"
                           "\"units\": [\n"
                           " {\"name\": \"Edit\", \"input_params\": [\"input_image\"], \"output_params\": [\"edit_image\"]},\n"
                           " {\"name\": \"Prompt\", \"input_params\": [\"edit_imag\"], \"output_params\": [\"prompt_emb\"],"
                           " \"onload_model_names\": [\"te\"]}\n"
                           "],\n"
                           "\"loss\": {\"name\": \"L\", \"input_params\": [\"prompt_emb\"]}}\n";
    const Run split = cli({"split", "-", "--trainable_models", "te"}, doc);
    QCOMPARE(split.status, 0);
    QVERIFY2(split.err.contains("<stdin>:4:38: warning: units[1].input_params[0]: \"edit_imag\" is read (first by "
                                "\"Prompt\") but no unit produces it; did you mean \"edit_image\" (produced by \"Edit\")?"),
        split.err.constData());
    QVERIFY2(!split.err.contains("input_image"), split.err.constData()); // a true external input: a note, not shown
    const Run v = cli({"validate", "-"}, doc);
    QVERIFY2(v.out.contains("<stdin>: 0 errors, 1 warning, 1 note, 2 units"), v.out.constData());
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
    QVERIFY(configs.out.contains("1 unit in stage two in both, 3 in stage one in both, 6 moved"));
    QVERIFY(configs.out.contains("QwenImageUnit_EntityControl: stage two in side a, stage one in side b"));
    QCOMPARE(cli({"diff", "qwen_image", "--mode-a", "quick"}).status, 2);
}

void TestCli::failedStandardOutputFails_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("command");
    QTest::newRow("split") << QStringList({"split", "qwen_image"}) << "split";
    QTest::newRow("split json") << QStringList({"split", "qwen_image", "--format", "json"}) << "split";
    QTest::newRow("split dot") << QStringList({"split", "qwen_image", "--format", "dot"}) << "split";
    QTest::newRow("split --check with hazards") << QStringList({"split", "counterexample_write_after_read", "--check"})
                                                << "split";
    QTest::newRow("split help") << QStringList({"split", "--help"}) << "split";
    QTest::newRow("examples NAME") << QStringList({"examples", "wan_video"}) << "examples";
    QTest::newRow("examples") << QStringList({"examples"}) << "examples";
    QTest::newRow("diff json") << QStringList({"diff", "qwen_image", "--format", "json"}) << "diff";
    QTest::newRow("diff text") << QStringList({"diff", "qwen_image"}) << "diff";
    QTest::newRow("validate") << QStringList({"validate", "wan_video"}) << "validate";
    QTest::newRow("help") << QStringList({"help"}) << "";
    QTest::newRow("version") << QStringList({"--version"}) << "";
}

void TestCli::failedStandardOutputFails()
{
    // /dev/full takes nothing: every command that writes to standard output must fail
    // with 1 and say so, rather than exit 0 with its output lost or cut short.
    QFETCH(QStringList, args);
    QFETCH(QString, command);
    const Run r = runProgram(QStringLiteral(SPLITSCOPE_CLI), args, {},
        [](QProcess &p) { p.setStandardOutputFile(QStringLiteral("/dev/full")); });
    QCOMPARE(r.status, 1);
    const QString prefix = command.isEmpty() ? QString("splitscope-cli") : "splitscope-cli " + command;
    QVERIFY2(QString::fromUtf8(r.err).contains(prefix + ": cannot write standard output: No space left on device"),
        r.err.constData());
}

void TestCli::fileSizeLimit()
{
    // Past `ulimit -f` the kernel sends SIGXFSZ, which killed the command (status 153,
    // no message, the temporary file left): now the write fails and is reported as a
    // full disk is, with nothing left behind.
    QTemporaryDir dir;
    const QString out = dir.filePath("big.json");
    const Run r = cliInShell("ulimit -f 4;", {"split", "wan_video", "--format", "json", "--output", out});
    QCOMPARE(r.status, 1);
    // The message names the file asked for, not the temporary file it removed.
    QVERIFY2(r.err.contains("cannot write '" + out.toUtf8() + "': File too large"), r.err.constData());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    const Run toStdout = cliInShell("ulimit -f 4;", {"examples", "wan_video"}, "> " + dir.filePath("stdout.json"));
    QCOMPARE(toStdout.status, 1);
    QVERIFY2(toStdout.err.contains("splitscope-cli examples: cannot write standard output: File too large"),
        toStdout.err.constData());
}

void TestCli::closedStandardOutput()
{
    // `>&-`: nothing can be written, which is a failure, not a silent success...
    const Run closed = cliInShell({}, {"split", "qwen_image"}, ">&-");
    QCOMPARE(closed.status, 1);
    QVERIFY2(closed.err.contains("splitscope-cli split: cannot write standard output: it is closed"),
        closed.err.constData());
    // ...and the file an --output opens must not take descriptor 1 and get text meant for it.
    QTemporaryDir dir;
    const QString out = dir.filePath("split.txt");
    const Run toFile = cliInShell({}, {"split", "qwen_image", "--output", out}, ">&-");
    QCOMPARE(toFile.status, 0);
    QVERIFY(toFile.err.isEmpty());
    QVERIFY(splitscope::test::readFileBytes(out).startsWith("Pipeline qwen_image: 10 units"));
}

void TestCli::unreadableInputsAreRefused()
{
    // A device that never ends was read until memory ran out (std::bad_alloc, an abort).
    const Run zero = cliInShell(addressSpaceLimit(1000000), {"validate", "/dev/zero"});
    QCOMPARE(zero.status, 2);
    QVERIFY2(zero.out.contains(
                 "/dev/zero: error: cannot read '/dev/zero': it is a character device, not a regular file or a pipe"),
        zero.out.constData());
    const Run zeroSplit = cli({"split", "/dev/zero"});
    QCOMPARE(zeroSplit.status, 2);
    QVERIFY(zeroSplit.err.contains("/dev/zero: error: cannot read '/dev/zero': it is a character device"));
    // Above the size limit (a sparse file: no disk used), refused unread, naming the file.
    QTemporaryDir dir;
    const QString big = dir.filePath("big.json");
    QFile f(big);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(qint64(1536) << 20));
    f.close();
    const Run huge = cliInShell(addressSpaceLimit(1000000), {"split", big});
    QCOMPARE(huge.status, 2);
    QVERIFY2(huge.err.contains((big + ": error: the file has 1610612736 bytes; pipeline descriptions above 1073741824 "
                                      "bytes (1 GiB) are refused")
                                   .toUtf8()),
        huge.err.constData());
    // A folder that is not a built-in's name.
    const Run folder = cli({"validate", dir.path()});
    QCOMPARE(folder.status, 2);
    QVERIFY(folder.out.contains(("cannot read '" + dir.path() + "': it is a folder, not a pipeline file").toUtf8()));
}

void TestCli::memoryRunningOutIsAFailureNotAnAbort()
{
    // A valid 200,000-unit pipeline (15 MB) under address-space limits from "cannot load
    // it" to "cannot write its JSON": each run ends with 1 and a message, never with an
    // abort (134) from std::bad_alloc, even where a destructor runs out.
    if (kAddressSanitizer)
        QSKIP("built with AddressSanitizer, which cannot run under ulimit -v");
    QTemporaryDir dir;
    const QString path = dir.filePath("big.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "splitscope.pipeline/1", "name": "big", "units": [)");
    constexpr int kUnits = 200000;
    for (int i = 0; i < kUnits; ++i)
        f.write(QString(R"(%1{"name": "u%2", "input_params": ["p%3"], "output_params": ["p%2"]})")
                    .arg(i ? ", " : "")
                    .arg(i)
                    .arg(i - 1)
                    .toUtf8());
    f.write("]}");
    f.close();
    int failures = 0;
    for (const int kib : {60000, 150000, 200000, 250000, 300000}) {
        const Run r = cliInShell(addressSpaceLimit(kib), {"split", path, "--format", "json"}, ">/dev/null");
        QVERIFY2(r.status == 0 || r.status == 1,
            qPrintable(QString("ulimit -v %1: status %2: %3").arg(kib).arg(r.status).arg(QString::fromUtf8(r.err))));
        if (r.status == 1) {
            ++failures;
            QVERIFY2(r.err.contains("splitscope-cli split: not enough memory to finish"), r.err.constData());
        }
    }
    QVERIFY(failures > 0);
}

void TestCli::standardInput()
{
    // `-` reads standard input (it used to be looked up as a built-in name: "Did you mean ...").
    const QByteArray doc = splitscope::test::readFileBytes(kExamples + "/counterexample_write_after_read.json");
    const Run v = cli({"validate", "-"}, doc);
    QCOMPARE(v.status, 0);
    QVERIFY2(v.out.contains("<stdin>: 0 errors, 0 warnings"), v.out.constData());
    QVERIFY(!v.err.contains("Did you mean"));
    const Run split = cli({"split", "-", "--format", "json"}, doc);
    QCOMPARE(split.status, 0);
    QCOMPARE(strings(QJsonDocument::fromJson(split.out).object()["v1"]), QStringList({"C"}));
    const Run bad = cli({"validate", "-"}, "{\n \"units\": 3");
    QCOMPARE(bad.status, 2);
    QVERIFY2(bad.out.contains("<stdin>:2:"), bad.out.constData());
    // An --output onto the file that standard input reads is refused like one onto a named input.
    QTemporaryDir dir;
    const QString input = dir.filePath("p.json");
    QVERIFY(QFile::copy(kExamples + "/counterexample_write_after_read.json", input));
    const Run same = runProgram(QStringLiteral(SPLITSCOPE_CLI), {"split", "-", "--output", input}, {},
        [&input](QProcess &p) { p.setStandardInputFile(input); });
    QCOMPARE(same.status, 2);
    QVERIFY2(same.err.contains(("--output: '" + input + "' is the input file (standard input)").toUtf8()),
        same.err.constData());
    QCOMPARE(splitscope::test::readFileBytes(input), doc);
    const Run closed = cliInShell({}, {"validate", "-"}, "<&-");
    QCOMPARE(closed.status, 2);
    QVERIFY2(closed.out.contains("<stdin>: error: cannot read standard input: it is closed"), closed.out.constData());
    // A device as standard input is refused like a device named as a file.
    const Run zero = runProgram(QStringLiteral(SPLITSCOPE_CLI), {"validate", "-"}, {},
        [](QProcess &p) { p.setStandardInputFile(QStringLiteral("/dev/zero")); });
    QCOMPARE(zero.status, 2);
    QVERIFY2(zero.out.contains("<stdin>: error: cannot read '<stdin>': it is a character device"),
        zero.out.constData());
}

void TestCli::explainGivenPartitionNamesViolations()
{
    // B reads p from A, which the partition puts in stage two: a C1 violation the
    // explanation used to leave out ("nothing in stage two reads p" alone).
    const Run r = cli({"split", "counterexample_write_after_read", "--stage-two", "A", "--explain", "B"});
    QCOMPARE(r.status, 0);
    QCOMPARE(QString::fromUtf8(r.out),
        QString("B runs in stage one (computed once and cached), because:\n"
                "- the given partition puts it there;\n"
                "- it reads p from A, which the partition puts in stage two: that breaks C1 (stage one runs first, "
                "so B would not get that value);\n"
                "- it writes p; nothing in stage two reads p.\n"));
    const Run a = cli({"split", "counterexample_write_after_read", "--stage-two", "A", "--explain", "A"});
    QVERIFY2(a.out.contains("- it writes p, which B reads in stage one: that breaks C1"), a.out.constData());
}

void TestCli::failedCheckSaysWhy()
{
    // The explanation does not show the verification: stderr says why --check fails.
    const Run r = cli({"split", "counterexample_write_after_read", "--check", "--explain", "C"});
    QCOMPARE(r.status, 3);
    QCOMPARE(QString::fromUtf8(r.err),
        QString("splitscope-cli split: --check: the split fails verification: C1 holds, C2 holds, 1 hazard\n"
                "  write-after-read: C reads p; one-stage training gives it A's value, two-stage gives it B's\n"
                "  (the whole report: the same 'splitscope-cli split' without --explain)\n"));
    QVERIFY(r.out.contains("- a hazard (write-after-read): it reads p"));
    // Broken conditions too, whatever the format.
    const Run given =
        cli({"split", "counterexample_write_after_read", "--stage-two", "A", "--check", "--format", "json"});
    QCOMPARE(given.status, 3);
    QVERIFY2(given.err.contains("--check: the split fails verification: X0 1 violation, C1 2 violations, C2 "
                                "holds, no hazards\n  X0: C calls dit"),
        given.err.constData());
    // A split that passes says nothing.
    QCOMPARE(cli({"split", "counterexample_write_after_read", "--mode", "safe", "--check"}).err, QByteArray());
}

void TestCli::modelNamedTwiceOrEmpty()
{
    const Run twice = cli({"split", "qwen_image", "--trainable_models", "vae,vae", "--format", "json"});
    QCOMPARE(twice.status, 0);
    QCOMPARE(strings(QJsonDocument::fromJson(twice.out).object()["models_require_backward"]),
        QStringList({"vae", "dit"}));
    // Trained in full and as the LoRA base (dit): named once, its note printed once.
    const Run both = cli({"split", "qwen_image", "--trainable_models", "vae,dit"});
    QCOMPARE(both.status, 0);
    QVERIFY2(both.out.contains("Models requiring backward: vae, dit (no unit calls dit; only the loss runs it, so it "
                               "puts no unit in stage two)\n"),
        both.out.constData());
    QCOMPARE(both.err.count("note: model 'dit' is listed in qwen_image but no unit calls it"), 1);
    // An empty entry, or blanks alone, name no model: ignored (as DiffSynth does), with a warning.
    const Run empty = cli({"split", "qwen_image", "--trainable_models", "vae,,text_encoder", "--format", "json"});
    QCOMPARE(empty.status, 0);
    QVERIFY2(empty.err.contains("splitscope-cli split: warning: --trainable_models: 'vae,,text_encoder' has an empty "
                                "entry, which names no model; it is ignored"),
        empty.err.constData());
    QCOMPARE(strings(QJsonDocument::fromJson(empty.out).object()["models_require_backward"]),
        QStringList({"vae", "text_encoder", "dit"}));
    const Run blank = cli({"diff", "qwen_image", "--trainable_models-b", " "});
    QCOMPARE(blank.status, 0);
    QVERIFY2(blank.err.contains("splitscope-cli diff: warning: --trainable_models-b: ' ' names no model, so none is "
                                "trained in full"),
        blank.err.constData());
}

void TestCli::outputErrorsNameTheCommand()
{
    const Run split = cli({"split", "qwen_image", "--output", "/nonexistent/dir/x.txt"});
    QCOMPARE(split.status, 1);
    QVERIFY2(split.err.startsWith("splitscope-cli split: --output: cannot create a temporary file beside "
                                  "'/nonexistent/dir/x.txt'"),
        split.err.constData());
    const Run examples = cli({"examples", "krea2", "--output", "/nonexistent/dir/x.json"});
    QCOMPARE(examples.status, 1);
    QVERIFY2(examples.err.startsWith("splitscope-cli examples: --output: "), examples.err.constData());
}

void TestCli::helpAndVersion()
{
    // `help split` is `split --help`, not the general usage.
    const Run help = cli({"help", "split"});
    QCOMPARE(help.status, 0);
    QVERIFY2(help.out.startsWith("usage: splitscope-cli split PIPELINE [flags]"), help.out.constData());
    QCOMPARE(help.out, cli({"split", "--help"}).out);
    const Run unknown = cli({"help", "splt"});
    QCOMPARE(unknown.status, 2);
    QVERIFY(unknown.err.contains("unknown command 'splt' (did you mean 'split'?)"));
    // `help help` is the general usage, which lists every exit status.
    const Run helpHelp = cli({"help", "help"});
    QCOMPARE(helpHelp.status, 0);
    QCOMPARE(helpHelp.out, cli({"--help"}).out);
    QVERIFY2(helpHelp.out.contains("4 train was cancelled"), helpHelp.out.constData());
    // As the GUI's `splitscope --version`.
    const Run version = cli({"--version"});
    QCOMPARE(version.status, 0);
    QCOMPARE(QString::fromUtf8(version.out), QString("splitscope-cli %1\n").arg(SPLITSCOPE_VERSION));
}

void TestCli::folderNamedLikeABuiltin()
{
    // A folder is no pipeline file: one named like a built-in pipeline (an output folder
    // named after the model, say) does not hide it ("Is a directory"); a note says so.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("qwen_image"));
    QVERIFY(QDir(dir.path()).mkdir("mine"));
    const auto inDir = [&dir](QProcess &p) { p.setWorkingDirectory(dir.path()); };
    const Run builtin = runProgram(QStringLiteral(SPLITSCOPE_CLI), {"split", "qwen_image"}, {}, inDir);
    QCOMPARE(builtin.status, 0);
    QVERIFY(builtin.out.startsWith("Pipeline qwen_image: 10 units"));
    QCOMPARE(QString::fromUtf8(builtin.err),
        QString("splitscope-cli split: note: 'qwen_image' here is a folder, not a pipeline file; reading the built-in "
                "pipeline of that name\n"));
    // With a / it is a path, and a folder of no built-in's name is said to be a folder.
    const Run path = runProgram(QStringLiteral(SPLITSCOPE_CLI), {"split", "./qwen_image"}, {}, inDir);
    QCOMPARE(path.status, 2);
    QVERIFY2(path.err.contains("cannot read './qwen_image': it is a folder, not a pipeline file"),
        path.err.constData());
    const Run mine = runProgram(QStringLiteral(SPLITSCOPE_CLI), {"validate", "mine"}, {}, inDir);
    QCOMPARE(mine.status, 2);
    QVERIFY2(mine.out.contains("mine: error: cannot read 'mine': it is a folder, not a pipeline file"),
        mine.out.constData());
}

void TestCli::importWritesNoSourceThroughALink()
{
#ifndef SPLITSCOPE_IMPORTER_FIXTURES
    QSKIP("splitscope-cli is built without the DiffSynth importer");
#else
    QTemporaryDir dir;
    const QString source = dir.filePath("f3");
    QVERIFY(QDir().mkpath(source));
    const QDir fixtures(QStringLiteral(SPLITSCOPE_IMPORTER_FIXTURES) + "/folder");
    for (const QString &name : fixtures.entryList({"*.py"}, QDir::Files))
        QVERIFY(QFile::copy(fixtures.filePath(name), source + "/" + name));
    const QByteArray beta = splitscope::test::readFileBytes(source + "/beta_video.py");
    const QByteArray alpha = splitscope::test::readFileBytes(source + "/alpha_image.py");

    // out3/beta_video.json -> ../f3/beta_video.py: writing it would replace the source.
    const QString out = dir.filePath("out3");
    QVERIFY(QDir().mkpath(out));
    QVERIFY(::symlink("../f3/beta_video.py", (out + "/beta_video.json").toLocal8Bit().constData()) == 0);
    const Run linked = cli({"import-diffsynth", source, "--output-dir", out});
    QCOMPARE(linked.status, 2);
    const QString refused = "splitscope-cli import-diffsynth: --output-dir: '" + out
        + "/beta_video.json' is one of the .py files read from '" + source + "' ('" + source
        + "/beta_video.py'); writing would overwrite it; nothing was written";
    QVERIFY2(linked.err.contains(refused.toUtf8()),
        linked.err.constData());
    QCOMPARE(splitscope::test::readFileBytes(source + "/beta_video.py"), beta);
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::System), QStringList({"beta_video.json"})); // nothing else written

    // --output-dir the source folder itself, where alpha_image.json links to alpha_image.py.
    QVERIFY(::symlink("alpha_image.py", (source + "/alpha_image.json").toLocal8Bit().constData()) == 0);
    const Run same = cli({"import-diffsynth", source, "--output-dir", source});
    QCOMPARE(same.status, 2);
    QVERIFY2(same.err.contains("/alpha_image.json' is one of the .py files read from"), same.err.constData());
    QCOMPARE(splitscope::test::readFileBytes(source + "/alpha_image.py"), alpha);
    QVERIFY(!QFile::exists(source + "/beta_video.json"));

    // A hard link is the same file by another name; -o is checked the same way.
    const QString hardLink = dir.filePath("hard.json");
    QVERIFY(::link((source + "/beta_video.py").toLocal8Bit().constData(), hardLink.toLocal8Bit().constData()) == 0);
    const Run hard = cli({"import-diffsynth", source, "--pipeline", "AlphaImagePipeline", "-o", hardLink});
    QCOMPARE(hard.status, 2);
    QVERIFY2(hard.err.contains("hard.json' is one of the .py files read from"), hard.err.constData());
    QCOMPARE(splitscope::test::readFileBytes(source + "/beta_video.py"), beta);

    // Without links the folder imports as before, into the source folder too.
    QVERIFY(QFile::remove(source + "/alpha_image.json"));
    QCOMPARE(cli({"import-diffsynth", source, "--output-dir", source}).status, 0);
    QVERIFY(QFile::exists(source + "/alpha_image.json"));
    QCOMPARE(splitscope::test::readFileBytes(source + "/alpha_image.py"), alpha);
#endif
}

void TestCli::importUnknownPipelineClass()
{
#ifndef SPLITSCOPE_IMPORTER_FIXTURES
    QSKIP("splitscope-cli is built without the DiffSynth importer");
#else
    // The error names the folder and the flag (it used to be a bare "error: ...").
    const QString folder = QStringLiteral(SPLITSCOPE_IMPORTER_FIXTURES) + "/folder";
    const Run r = cli({"import-diffsynth", folder, "--pipeline", "NoSuch"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.startsWith((folder + ": error: --pipeline: no pipeline class named 'NoSuch'; found: "
                                        "AlphaImagePipeline, BetaVideoPipeline, BetaVideoEditPipeline")
                                  .toUtf8()),
        r.err.constData());
#endif
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
