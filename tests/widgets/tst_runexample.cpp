// SPDX-License-Identifier: MIT
// The engine's C++ unit declarations are the single source of truth of the
// tiny-qwen-image description: the shipped resources/examples/tiny-qwen-image.json
// (the GUI's Examples menu, the Run panel's check) must be exactly what
// `splitscope-cli describe tiny-qwen-image` prints, and what the GUI knows about
// the executable pipeline (models, losses) must match it.
#include "widgets/run/ExecutablePipeline.h"

#include "core/PipelineFile.h"
#include "resources/Examples.h"

#include <QFile>
#include <QProcess>
#include <QTest>

using namespace splitscope;

namespace {

QByteArray describe(const QStringList &arguments, QString *error)
{
    QProcess process;
    process.start(QStringLiteral(SPLITSCOPE_CLI), QStringList{QStringLiteral("describe")} + arguments);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = QString::fromUtf8(process.readAllStandardError());
        return {};
    }
    return process.readAllStandardOutput();
}

} // namespace

class TestRunExample : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedDescriptionIsTheEngines();
    void guiKnowsTheEnginesModelsAndLosses();
};

void TestRunExample::shippedDescriptionIsTheEngines()
{
    const ExecutablePipeline *tiny = findExecutablePipeline(QStringLiteral("tiny-qwen-image"));
    QVERIFY(tiny);
    QString error;
    QByteArray engine = describe({tiny->name}, &error);
    QVERIFY2(!engine.isEmpty(), qPrintable(error));
    QVERIFY(engine.endsWith("}\n")); // a final newline on standard output, not in the file
    engine.chop(1);
    QFile file(QStringLiteral(SPLITSCOPE_EXAMPLES_DIR "/%1.json").arg(tiny->example));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY2(file.readAll() == engine,
        "resources/examples/tiny-qwen-image.json differs from the engine's declarations; regenerate it with "
        "`splitscope-cli describe tiny-qwen-image --output resources/examples/tiny-qwen-image.json`");
    // The same bytes are compiled into the programs.
    const BuiltinExample *builtin = findBuiltinExample(tiny->example.toStdString());
    QVERIFY(builtin);
    QCOMPARE(QByteArray::fromStdString(builtin->json), engine);
}

void TestRunExample::guiKnowsTheEnginesModelsAndLosses()
{
    const ExecutablePipeline &tiny = *findExecutablePipeline(QStringLiteral("tiny-qwen-image"));
    for (const QString &task : {QStringLiteral("sft"), QStringLiteral("direct_distill")}) {
        QString error;
        const QByteArray text = describe({tiny.name, QStringLiteral("--task"), task}, &error);
        QVERIFY2(!text.isEmpty(), qPrintable(error));
        const LoadResult loaded = parsePipeline(text.toStdString(), "describe");
        QVERIFY(loaded.ok());
        const Executability e = checkExecutable(*loaded.pipeline);
        QVERIFY2(e.runnable(), qPrintable(e.reason));
        QCOMPARE(e.task, task);
        QStringList models;
        for (const std::string &m : loaded.pipeline->modelNames()) {
            models << QString::fromStdString(m);
            QVERIFY2(!tiny.modelSpec(QString::fromStdString(m)).isEmpty(), m.c_str());
        }
        QCOMPARE(static_cast<std::size_t>(models.size()), tiny.modelFiles.size());
    }
}

QTEST_GUILESS_MAIN(TestRunExample)
#include "tst_runexample.moc"
