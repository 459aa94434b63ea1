// SPDX-License-Identifier: MIT
// splitscope-cli import-diffsynth, run as a user runs it: outputs, exit statuses,
// messages that name the flag or the file, and a description that the rest of the
// command line (validate, split) takes as it is.
#include "core/PipelineFile.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace splitscope;

namespace {

const QString kFixtures = QStringLiteral(SPLITSCOPE_IMPORTER_FIXTURES);

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run cli(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    if (!process.waitForFinished(60000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

class TestImportCommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void oneFileToStandardOutput();
    void oneFileToAFile();
    void folderToAFolder();
    void usageErrors_data();
    void usageErrors();
    void badInput();
    void importedPipelineSplits();

private:
    QTemporaryDir m_dir;
};

void TestImportCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QFile::exists(QStringLiteral(SPLITSCOPE_CLI)));
}

void TestImportCommand::oneFileToStandardOutput()
{
    const Run r = cli({"import-diffsynth", kFixtures + "/qwen_image.py"});
    QCOMPARE(r.status, 0);
    const LoadResult loaded = parsePipeline(r.out.toStdString(), "stdout");
    QVERIFY(loaded.ok());
    QCOMPARE(loaded.pipeline->name, std::string("qwen_image"));
    QCOMPARE(loaded.pipeline->units.size(), std::size_t(10));
    // The summary goes to stderr; infos only with --verbose.
    QVERIFY2(r.err.contains("class QwenImagePipeline -> standard output (10 units, 9 models, 1 stochastic)"), qPrintable(r.err));
    QVERIFY(!r.err.contains("info:"));
    const Run verbose = cli({"import-diffsynth", kFixtures + "/qwen_image.py", "--verbose"});
    QVERIFY(verbose.err.contains("info: QwenImageUnit_NoiseInitializer: marked stochastic (heuristic)"));
}

void TestImportCommand::oneFileToAFile()
{
    const QString out = m_dir.filePath("literals.json");
    const Run r = cli({"import-diffsynth", kFixtures + "/literals.py", "-o", out});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.isEmpty());
    // Warnings name the file, line and column.
    QVERIFY2(r.err.contains(kFixtures + "/literals.py:77:27: warning: Pitfall.input_params: input_params is the str (\"noise\")"),
        qPrintable(r.err));
    const LoadResult loaded = loadPipelineFile(out.toStdString());
    QVERIFY(loaded.ok());
    QCOMPARE(loaded.pipeline->units.size(), std::size_t(8));
    // The long form of -o, and --loss.
    const QString second = m_dir.filePath("literals-distill.json");
    QCOMPARE(cli({"import-diffsynth", kFixtures + "/literals.py", "--output=" + second, "--loss", "DirectDistillLoss"}).status, 0);
    QCOMPARE(loadPipelineFile(second.toStdString()).pipeline->loss->name, std::string("DirectDistillLoss"));
    // A loss the importer does not know is allowed (one's own), with one warning that
    // names the flag (not a source line per class) and the likely meant name.
    const QString third = m_dir.filePath("literals-own-loss.json");
    const Run own = cli({"import-diffsynth", kFixtures + "/literals.py", "-o", third, "--loss", "FlowMatchSFTLos"});
    QCOMPARE(own.status, 0);
    QVERIFY2(own.err.contains("warning: --loss: 'FlowMatchSFTLos' is neither in the imported files nor a loss this importer knows"), qPrintable(own.err));
    QVERIFY2(own.err.contains("did you mean 'FlowMatchSFTLoss'?"), qPrintable(own.err));
    QCOMPARE(own.err.count("FlowMatchSFTLos'"), 1);
    QCOMPARE(loadPipelineFile(third.toStdString()).pipeline->loss->name, std::string("FlowMatchSFTLos"));
}

void TestImportCommand::folderToAFolder()
{
    const QString dir = m_dir.filePath("out/nested");
    const Run r = cli({"import-diffsynth", kFixtures + "/folder", "--output-dir", dir});
    QCOMPARE(r.status, 0);
    QCOMPARE(QDir(dir).entryList({"*.json"}, QDir::Files, QDir::Name),
        QStringList({"alpha_image.json", "beta_video.json", "beta_video_edit.json"}));
    for (const QString &f : QDir(dir).entryList({"*.json"}, QDir::Files))
        QVERIFY(loadPipelineFile(QDir(dir).filePath(f).toStdString()).ok());
    QCOMPARE(r.err.count(" -> "), 3);

    // One pipeline of the folder, chosen by class.
    const QString one = m_dir.filePath("edit.json");
    QCOMPARE(cli({"import-diffsynth", kFixtures + "/folder", "--pipeline", "BetaVideoEditPipeline", "-o", one}).status, 0);
    QCOMPARE(loadPipelineFile(one.toStdString()).pipeline->name, std::string("beta_video_edit"));

    // An --output onto a source file the folder import reads is refused, and the file kept.
    const QString copy = m_dir.filePath("src");
    QVERIFY(QDir().mkpath(copy));
    for (const QString &f : QDir(kFixtures + "/folder").entryList({"*.py"}, QDir::Files))
        QVERIFY(QFile::copy(kFixtures + "/folder/" + f, copy + "/" + f));
    QFile helpers(copy + "/helpers.py");
    QVERIFY(helpers.open(QIODevice::ReadOnly));
    const QByteArray before = helpers.readAll();
    helpers.close();
    const Run onSource = cli({"import-diffsynth", copy, "--pipeline", "BetaVideoEditPipeline", "-o", copy + "/helpers.py"});
    QCOMPARE(onSource.status, 2);
    QVERIFY2(onSource.err.contains("is one of the .py files read from"), qPrintable(onSource.err));
    QVERIFY(helpers.open(QIODevice::ReadOnly));
    QCOMPARE(helpers.readAll(), before);
}

void TestImportCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString folder = kFixtures + "/folder";
    QTest::newRow("no source") << QStringList({"import-diffsynth"}) << "missing SOURCE";
    QTest::newRow("unknown flag") << QStringList({"import-diffsynth", folder, "--out", "x"}) << "unknown flag --out";
    QTest::newRow("both outputs") << QStringList({"import-diffsynth", folder, "-o", "a.json", "--output-dir", "d"})
                                  << "give only one";
    QTest::newRow("several pipelines to one output")
        << QStringList({"import-diffsynth", folder}) << "3 pipelines were found (AlphaImagePipeline, BetaVideoPipeline, "
                                                        "BetaVideoEditPipeline); choose one with --pipeline CLASS";
    QTest::newRow("empty output") << QStringList({"import-diffsynth", folder, "--output="}) << "--output needs a file name";
}

void TestImportCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Run r = cli(arguments);
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(r.err.contains("usage: splitscope-cli import-diffsynth SOURCE"));
}

void TestImportCommand::badInput()
{
    const Run missing = cli({"import-diffsynth", m_dir.filePath("nowhere.py")});
    QCOMPARE(missing.status, 2);
    QVERIFY(missing.err.contains("nowhere.py: error: no such file or folder"));

    const Run unknown = cli({"import-diffsynth", kFixtures + "/folder", "--pipeline", "AlphaPipeline"});
    QCOMPARE(unknown.status, 2);
    QVERIFY2(unknown.err.contains("no pipeline class named 'AlphaPipeline' (did you mean 'AlphaImagePipeline'?)"),
        qPrintable(unknown.err));

    QFile broken(m_dir.filePath("broken.py"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("class P(BasePipeline):\n    def __init__(self):\n        self.units = [\n");
    broken.close();
    const Run syntax = cli({"import-diffsynth", broken.fileName()});
    QCOMPARE(syntax.status, 2);
    QVERIFY2(syntax.err.contains("broken.py:3:22: error: Python syntax error: '[' was never closed"), qPrintable(syntax.err));
    QVERIFY(syntax.out.isEmpty());

    // Python that CPython refuses: exit 2 with file:line:column, even where the rest of the
    // file would import (an unexpected indent used to be read as "never sets self.units",
    // a missing comma as a unit that declares nothing, with exit 0).
    const QByteArray valid = "class P(BasePipeline):\n    def __init__(self):\n        self.units = [U()]\n"
                             "        self.model_fn = f\n"
                             "class U(PipelineUnit):\n    def __init__(self):\n        super().__init__(\n"
                             "            input_params=('a', 'b'),\n            output_params=('c',),\n        )\n";
    const struct {
        QByteArray source;
        QString message;
    } invalid[] = {
        {QByteArray(valid).replace("        self.model_fn", "          self.model_fn"),
            "indent.py:4:10: error: Python syntax error: IndentationError: unexpected indent"},
        {QByteArray(valid).replace("('a', 'b'),", "('a', 'b')"),
            "indent.py:8:26: error: Python syntax error: invalid syntax. Perhaps you forgot a comma?"},
        {QByteArray(valid).replace("class U(PipelineUnit):", "class U(PipelineUnit)"),
            "indent.py:5:22: error: Python syntax error: expected ':'"},
    };
    QFile file(m_dir.filePath("indent.py"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(valid);
    file.close();
    QCOMPARE(cli({"import-diffsynth", file.fileName()}).status, 0);
    for (const auto &bad : invalid) {
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(bad.source);
        file.close();
        const Run r = cli({"import-diffsynth", file.fileName()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(m_dir.filePath(bad.message)), qPrintable(r.err));
        QVERIFY2(!r.err.contains("never sets self.units") && !r.err.contains("declaring nothing"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // An unwritable output: the status says the work failed, and nothing is half-written.
    const Run unwritable = cli({"import-diffsynth", kFixtures + "/qwen_image.py", "-o", m_dir.filePath("no/such/dir/x.json")});
    QCOMPARE(unwritable.status, 1);
    QVERIFY(unwritable.err.contains("--output:"));
}

void TestImportCommand::importedPipelineSplits()
{
    const QString out = m_dir.filePath("qwen.json");
    QCOMPARE(cli({"import-diffsynth", kFixtures + "/qwen_image.py", "-o", out}).status, 0);
    const Run validate = cli({"validate", out});
    QCOMPARE(validate.status, 0);
    const Run split = cli({"split", out, "--trainable_models", "text_encoder", "--format", "json"});
    QCOMPARE(split.status, 0);
    QVERIFY(split.out.contains("QwenImageUnit_PromptEmbedder"));
}

QTEST_GUILESS_MAIN(TestImportCommand)
#include "tst_importcommand.moc"
