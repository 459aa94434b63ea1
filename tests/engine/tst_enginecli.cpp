// SPDX-License-Identifier: MIT
// splitscope-cli's engine commands as a user (or the GUI) runs them: exit statuses
// and messages for bad flags, JSON Lines events, SIGKILL during stage one and
// SIGTERM during stage two.
#include "EngineTestSupport.h"

#include "core/engine/MemoryEstimate.h"
#include "core/engine/SeedSequence.h"
#include "core/engine/TinyQwenImage.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QtEndian>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <tuple>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace enginetest;

namespace {

// Starts the CLI, reads its stdout until a line contains `marker`, then calls `stop`.
// Returns all stdout read.
QByteArray runUntil(QProcess &process, const QStringList &arguments, const QByteArray &marker,
    const std::function<void(QProcess &)> &stop)
{
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    QByteArray out;
    bool stopped = false;
    while (process.state() != QProcess::NotRunning || process.bytesAvailable() > 0) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
        if (!stopped && out.contains(marker)) {
            stop(process);
            stopped = true;
        }
        if (process.state() == QProcess::NotRunning && process.bytesAvailable() == 0)
            break;
    }
    process.waitForFinished();
    return out + process.readAllStandardOutput();
}


// Runs `process`'s child under `bytes` of address space, as `ulimit -v` does.
void limitAddressSpace(QProcess &process, rlim_t bytes)
{
    process.setChildProcessModifier([bytes] {
        const struct rlimit limit {bytes, bytes};
        ::setrlimit(RLIMIT_AS, &limit);
    });
}

// Caps running process `pid` at the address space it has now plus `extra` bytes, so
// that its next large allocation fails; false when that cannot be done.
bool capAddressSpaceNearItsSize(qint64 pid, rlim_t extra)
{
    QFile statm(QString("/proc/%1/statm").arg(pid));
    if (!statm.open(QIODevice::ReadOnly))
        return false;
    const rlim_t bytes = rlim_t(statm.readAll().split(' ').first().toULongLong()) * rlim_t(::sysconf(_SC_PAGESIZE));
    const struct rlimit limit {bytes + extra, bytes + extra};
    return ::prlimit(static_cast<pid_t>(pid), RLIMIT_AS, &limit, nullptr) == 0;
}

} // namespace

class TestEngineCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void describe();
    void cliHandsOverEveryEngineCommand();
    void badFlags_data();
    void badFlags();
    void eventsAreJsonLines();
    void killDuringStageOneThenResume();
    void sigtermDuringStageTwo();
    void secondRunIntoABusyFolderIsRefused();
    void cancelWhileTheEventPipeIsFullIsACancel();
    void failedWriteLeavesNoTemporaryFile();
    void imageTooLargeForMemoryIsRefused();
    void outOfMemoryDuringAStepSavesTheState();
    void stageTwoChecksMemoryFromTheCache();
    void editImagesCountInTheMemoryCheck();
    void outOfMemoryInStageOneKeepsTheShards();
    void badCacheStopsStageTwoBeforeItsFirstStep();
    void sampleDrawsWithTheLora();
    void makeDatasetKeepsAnExistingDataset();
    void memoryEstimateCoversSeveralSteps();
    void addressSpaceCountsTheThreadsToCome();
    void outOfMemoryAtTheFirstStepTrainsNothing();
    void brokenPipeCancelsTheRun();
    void damagedShardDuringStageTwoSavesTheState();
    void sigtermWhileTheEngineStartsIsACleanCancel();
    void memoryAdmissionKeepsHeadroom();

private:
    QStringList trainArgs(const QString &task, const QString &dataset, const QString &output) const;
    Fixture m_fixture;
};

void TestEngineCli::initTestCase()
{
    QString error;
    QVERIFY2(m_fixture.setUp(&error, 6), qPrintable(error));
}

// The events of a run (stdout with --events jsonl), parsed.
QList<QJsonObject> eventsOf(const QString &jsonl)
{
    QList<QJsonObject> events;
    for (const QString &line : jsonl.split('\n', Qt::SkipEmptyParts))
        events << QJsonDocument::fromJson(line.toUtf8()).object();
    return events;
}

QStringList TestEngineCli::trainArgs(const QString &task, const QString &dataset, const QString &output) const
{
    return {"train", "--task", task, "--dataset_base_path", dataset, "--model_root", m_fixture.models(),
        "--model_id_with_origin_paths", kModelSpecs, "--lora_base_model", "dit", "--lora_target_modules", kLoraTargets,
        "--lora_rank", "4", "--num_threads", "1", "--output_path", output};
}

void TestEngineCli::describe()
{
    QString out;
    QString err;
    QCOMPARE(runCli({"describe"}, &out, &err), 0);
    QCOMPARE(out.toStdString(), splitscope::engine::builtinPipelineJson("tiny-qwen-image") + "\n");
    QCOMPARE(runCli({"describe", "--task", "direct_distill"}, &out, &err), 0);
    QVERIFY(out.contains("DirectDistillLoss"));
    QCOMPARE(runCli({"describe", "tiny-flux"}, &out, &err), 2);
    QVERIFY2(err.contains("no built-in executable pipeline 'tiny-flux' (built-in: tiny-qwen-image)"), qPrintable(err));
    // The core's split command takes the built-in pipeline by name.
    QCOMPARE(runCli({"split", "tiny-qwen-image", "--trainable_models", "text_encoder", "--lora_base_model", "dit", "--check"}, &out, &err), 3);
    QVERIFY2((out + err).contains("edit_image"), qPrintable(out + err));
    QCOMPARE(runCli({"split", "tiny-qwen-image", "--check"}, &out, &err), 0);
    // A failed write of the description is a failure (the engine's commands check
    // standard output as splitscope-cli's do): it was exit 0 with nothing written.
    QProcess full;
    full.setStandardOutputFile(QStringLiteral("/dev/full"));
    full.start(QStringLiteral(SPLITSCOPE_CLI), {QStringLiteral("describe")});
    QVERIFY(full.waitForFinished(60000));
    QCOMPARE(full.exitCode(), 1);
    const QString said = QString::fromUtf8(full.readAllStandardError());
    QVERIFY2(said.contains(QStringLiteral("describe: cannot write standard output: No space left on device")),
        qPrintable(said));
}

void TestEngineCli::cliHandsOverEveryEngineCommand()
{
    // splitscope-cli lists the engine's commands without loading LibTorch
    // (app/cli/EngineProxy.cpp); the two lists must agree, summaries included.
    auto commandLines = [](const QString &program, const QStringList &arguments) {
        QProcess p;
        p.start(program, arguments);
        p.waitForFinished(60000);
        QStringList lines;
        for (const QString &line : QString::fromUtf8(p.readAllStandardOutput()).split('\n')) {
            if (line.startsWith("  "))
                lines << line.trimmed();
        }
        return lines;
    };
    const QString cli = QStringLiteral(SPLITSCOPE_CLI);
    const QString engine = QFileInfo(cli).dir().filePath("splitscope-engine");
    const QStringList engineCommands = commandLines(engine, {"--help"});
    QCOMPARE(engineCommands.size(), 5);
    const QStringList cliCommands = commandLines(cli, {"--help"});
    for (const QString &c : engineCommands)
        QVERIFY2(cliCommands.contains(c), qPrintable(c));
}

void TestEngineCli::badFlags_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("message");
    QTest::addRow("misspelt flag") << QStringList{"train", "--lerning_rate", "1"} << 2 << "unknown flag --lerning_rate (did you mean --learning_rate?)";
    QTest::addRow("not a number") << QStringList{"train", "--num_epochs", "two"} << 2 << "--num_epochs: 'two' is not an integer";
    QTest::addRow("out of range") << QStringList{"train", "--lora_rank", "0"} << 2 << "--lora_rank: 0 is out of range";
    QTest::addRow("beyond 64 bits") << QStringList{"train", "--num_epochs", "99999999999999999999"} << 2
                                    << "--num_epochs: 99999999999999999999 is out of range";
    QTest::addRow("negative rate") << QStringList{"train", "--learning_rate", "-1"} << 2 << "--learning_rate: -1 must be positive";
    QTest::addRow("infinite rate") << QStringList{"train", "--learning_rate", "inf"} << 2 << "--learning_rate: inf is not a finite number";
    QTest::addRow("nan rate") << QStringList{"train", "--learning_rate", "nan"} << 2 << "--learning_rate: nan is not a finite number";
    QTest::addRow("infinite decay") << QStringList{"train", "--weight_decay", "inf"} << 2 << "--weight_decay: inf is not a finite number";
    QTest::addRow("rate too large for a double") << QStringList{"train", "--learning_rate", "1e400"} << 2
                                                 << "--learning_rate: '1e400' is too large a number";
    QTest::addRow("rate that reads as 0") << QStringList{"train", "--learning_rate", "1e-400"} << 2
                                          << "--learning_rate: 1e-400 must be positive";
    QTest::addRow("rate beyond float32") << QStringList{"train", "--learning_rate", "1e39"} << 2
                                         << "--learning_rate: 1e39 is too large for the float32 weights it scales";
    QTest::addRow("negative infinite decay") << QStringList{"train", "--weight_decay", "-infinity"} << 2
                                             << "--weight_decay: -infinity is not a finite number";
    QTest::addRow("height not a multiple of 16") << QStringList{"train", "--height", "40", "--width", "32"} << 2
                                                 << "--height: 40 is not a multiple of 16";
    QTest::addRow("width not a multiple of 16") << QStringList{"train", "--height", "32", "--width", "33"} << 2
                                                << "--width: 33 is not a multiple of 16";
    QTest::addRow("negative checkpoint interval") << QStringList{"train", "--checkpoint_interval", "-1"} << 2
                                                  << "--checkpoint_interval: -1 is not a number of seconds from 0 (off)";
    QTest::addRow("checkpoint interval not a number") << QStringList{"train", "--checkpoint_interval", "often"} << 2
                                                      << "--checkpoint_interval";
    QTest::addRow("events format") << QStringList{"train", "--events", "xml"} << 2 << "--events: 'xml' is not jsonl";
    QTest::addRow("split mode") << QStringList{"train", "--split_mode", "fast"} << 2 << "--split_mode: 'fast' is not seed or safe";
    QTest::addRow("missing value") << QStringList{"train", "--task"} << 2 << "--task needs a value";
    QTest::addRow("nothing to train") << QStringList{"train", "--dataset_base_path", "x"} << 2 << "nothing to train";
    QTest::addRow("no models") << QStringList{"train", "--lora_base_model", "dit", "--lora_target_modules", "to_q"} << 2
                               << "--model_id_with_origin_paths is required";
    QTest::addRow("preset") << QStringList{"init-models", "--root", "/tmp/x", "--preset", "huge"} << 2 << "unknown preset 'huge'";
    QTest::addRow("dataset folder") << QStringList{"make-dataset"} << 2 << "missing DIR";
    QTest::addRow("dataset count") << QStringList{"make-dataset", "d", "--count", "0"} << 2 << "--count: 0 is out of range";
    QTest::addRow("sample models") << QStringList{"sample", "--prompt", "x"} << 2 << "--model_id_with_origin_paths is required";
    // An empty path would quietly mean the default (or the current folder).
    QTest::addRow("empty dataset folder") << QStringList{"make-dataset", ""} << 2 << "make-dataset: DIR: empty path";
    QTest::addRow("empty models root") << QStringList{"init-models", "--root", ""} << 2 << "init-models: --root: empty path";
    QTest::addRow("empty model id") << QStringList{"init-models", "--root", "/tmp/x", "--model_id="} << 2
                                    << "init-models: --model_id: empty path";
    QTest::addRow("absolute model id") << QStringList{"init-models", "--root", "/tmp/x", "--model_id", "/tmp/elsewhere"}
                                       << 2 << "--model_id /tmp/elsewhere: must be a folder under the models root";
    QTest::addRow("model id leaving the root") << QStringList{"init-models", "--root", "/tmp/x", "--model_id", "Qwen/../../up"}
                                               << 2 << "--model_id Qwen/../../up: must be a folder under the models root";
    for (const char *flag : {"dataset_base_path", "dataset_metadata_path", "model_root", "tokenizer_path", "output_path",
             "lora_checkpoint"}) {
        QTest::addRow("train, empty --%s", flag) << QStringList{"train", QString("--%1").arg(flag), ""} << 2
                                                 << QString("train: --%1: empty path").arg(flag);
    }
    for (const char *flag : {"model_root", "tokenizer_path", "lora", "output_dir"}) {
        QTest::addRow("sample, empty --%s", flag) << QStringList{"sample", "--prompt", "x", QString("--%1=").arg(flag)} << 2
                                                  << QString("sample: --%1: empty path").arg(flag);
    }
}

void TestEngineCli::badFlags()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, status);
    QFETCH(QString, message);
    QString out;
    QString err;
    QCOMPARE(runCli(arguments, &out, &err), status);
    QVERIFY2(err.contains(message), qPrintable(err));
}

void TestEngineCli::eventsAreJsonLines()
{
    QString out;
    QString err;
    QStringList args = trainArgs("sft", m_fixture.data(), m_fixture.path("events-out"));
    args << "--events" << "jsonl";
    QCOMPARE(runCli(args, &out, &err), 0);
    const QStringList lines = out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 10);
    QStringList kinds;
    double lastTime = 0;
    for (const QString &line : lines) {
        QJsonParseError parseError;
        const QJsonObject e = QJsonDocument::fromJson(line.toUtf8(), &parseError).object();
        QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(line));
        QVERIFY(e.value("time").isDouble());
        QVERIFY(e.value("time").toDouble() >= lastTime);
        lastTime = e.value("time").toDouble();
        if (!kinds.contains(e.value("event").toString()))
            kinds << e.value("event").toString();
    }
    for (const char *kind : {"start", "stage", "step", "epoch", "checkpoint", "memory", "done"})
        QVERIFY2(kinds.contains(kind), kind);
    QVERIFY(lines.first().contains("\"event\":\"start\""));
    QVERIFY(lines.last().contains("\"event\":\"done\""));
    QVERIFY2(err.contains("done in"), qPrintable(err)); // people read stderr
    QVERIFY(!err.contains("{\"event\""));
}

void TestEngineCli::killDuringStageOneThenResume()
{
    QStringList reference = trainArgs("sft:data_process", m_fixture.data(), m_fixture.path("kill-ref"));
    reference << "--cache_shard_size" << "2";
    QCOMPARE(runCli(reference), 0);

    QStringList args = trainArgs("sft:data_process", m_fixture.data(), m_fixture.path("kill-run"));
    args << "--cache_shard_size" << "2" << "--events" << "jsonl";
    QProcess process;
    const QByteArray out = runUntil(process, args, "\"kind\":\"shard\"", [](QProcess &p) { p.kill(); });
    QCOMPARE(process.exitStatus(), QProcess::CrashExit); // killed, no chance to clean up
    QVERIFY(out.contains("\"kind\":\"shard\""));
    QVERIFY(QFile::exists(m_fixture.path("kill-run/manifest.json")));

    QString stdoutText;
    QString err;
    args.removeLast();
    args.removeLast();
    QCOMPARE(runCli(args, &stdoutText, &err), 0);
    QVERIFY2(err.contains("resuming stage one:"), qPrintable(err));
    for (const char *file : {"manifest.json", "0/shard-00000.safetensors", "0/shard-00001.safetensors", "0/shard-00002.safetensors"})
        QVERIFY2(readFileBytes(m_fixture.path("kill-ref/") + file) == readFileBytes(m_fixture.path("kill-run/") + file), file);
}

void TestEngineCli::sigtermDuringStageTwo()
{
    QStringList cacheArgs = trainArgs("sft:data_process", m_fixture.data(), m_fixture.path("term-cache"));
    QCOMPARE(runCli(cacheArgs), 0);
    QStringList args = trainArgs("sft:train", m_fixture.path("term-cache"), m_fixture.path("term-run"));
    args << "--num_epochs" << "40" << "--events" << "jsonl";
    QProcess process;
    const QByteArray out = runUntil(process, args, "\"step\":5,", [](QProcess &p) { p.terminate(); });
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 4);
    const QList<QByteArray> lines = out.trimmed().split('\n');
    const QJsonObject done = QJsonDocument::fromJson(lines.last()).object();
    QCOMPARE(done.value("event").toString(), QString("done"));
    QCOMPARE(done.value("cancelled").toBool(), true);
    QCOMPARE(done.value("exit_status").toInt(), 4);
    const QJsonObject checkpoint = QJsonDocument::fromJson(lines.at(lines.size() - 2)).object();
    QCOMPARE(checkpoint.value("event").toString(), QString("checkpoint"));
    QCOMPARE(checkpoint.value("kind").toString(), QString("resume"));
    QVERIFY(QFile::exists(checkpoint.value("path").toString()));

    // The same command without --resume would have overwritten the saved state and
    // loss.csv: it is refused, and nothing changes.
    const QByteArray savedState = readFileBytes(checkpoint.value("path").toString());
    const QByteArray savedLoss = readFileBytes(m_fixture.path("term-run/loss.csv"));
    QString newRunErr;
    QStringList newRun = args;
    newRun << "--max_steps" << "2";
    QCOMPARE(runCli(newRun, nullptr, &newRunErr), 2);
    QVERIFY2(newRunErr.contains("--output_path '" + m_fixture.path("term-run") + "' holds an unfinished run"),
        qPrintable(newRunErr));
    QCOMPARE(readFileBytes(checkpoint.value("path").toString()), savedState);
    QCOMPARE(readFileBytes(m_fixture.path("term-run/loss.csv")), savedLoss);

    args.removeLast();
    args.removeLast();
    // Resuming may change the epoch count (to one the state has not reached: the
    // signal may land a few steps after step 5, even in the next epoch).
    args.replace(args.indexOf("40"), QString::number(checkpoint.value("epoch").toInt() + 2));
    args << "--resume";
    // A limit the state has reached is refused before anything changes (the output
    // folder spelt with a trailing slash is the same folder).
    const QString state = checkpoint.value("path").toString();
    const QByteArray stateBytes = readFileBytes(state);
    QStringList limited = args;
    limited.replace(limited.indexOf(m_fixture.path("term-run")), m_fixture.path("term-run") + "/");
    limited << "--max_steps" << "3";
    QString limitErr;
    QCOMPARE(runCli(limited, nullptr, &limitErr), 2);
    QVERIFY2(limitErr.contains("--resume: --max_steps 3 is already reached: the resume state in '"), qPrintable(limitErr));
    QCOMPARE(readFileBytes(state), stateBytes);
    QString err;
    QCOMPARE(runCli(args, nullptr, &err), 0);
    QVERIFY2(err.contains("resuming at epoch"), qPrintable(err));
}

// Two runs into one folder at once: the second is refused (exit 2) naming the
// folder, training and stage one alike.
void TestEngineCli::secondRunIntoABusyFolderIsRefused()
{
    const QString cache = m_fixture.path("busy-cache");
    QCOMPARE(runCli(trainArgs("sft:data_process", m_fixture.data(), cache)), 0);
    const QString out = m_fixture.path("busy-run");
    QStringList args = trainArgs("sft:train", cache, out);
    args << "--num_epochs" << "1000" << "--events" << "jsonl";
    QProcess first;
    QByteArray said;
    const QByteArray events = runUntil(first, args, "\"step\":2,", [&](QProcess &p) {
        QString err;
        QCOMPARE(runCli(trainArgs("sft:train", cache, out), nullptr, &err), 2);
        said = err.toUtf8();
        // Stage one into a cache another stage one is writing: the busy-run folder
        // stands in for it (the lock is the folder's, whatever the run).
        QCOMPARE(runCli(trainArgs("sft:data_process", m_fixture.data(), out), nullptr, &err), 2);
        said += err.toUtf8();
        p.terminate();
    });
    const QByteArray firstSaid = first.readAllStandardError().right(300) + '\n' + events.right(700);
    QVERIFY2(first.exitStatus() == QProcess::NormalExit && first.exitCode() == 4,
        qPrintable(QStringLiteral("exit %1: %2").arg(first.exitCode()).arg(QString::fromUtf8(firstSaid))));
    QVERIFY2(said.count("--output_path '" + out.toUtf8() + "' is in use by another run (process ") == 2, said.constData());
}

// SIGTERM while a write of the events blocks on a full pipe (a reader that is busy, as
// the app is): the write was interrupted (EINTR), and the run ended "cannot write
// standard output" with exit status 1 instead of 4, one Cancel in four on a busy machine.
void TestEngineCli::cancelWhileTheEventPipeIsFullIsACancel()
{
    const QString cache = m_fixture.path("full-pipe-cache");
    QCOMPARE(runCli(trainArgs("sft:data_process", m_fixture.data(), cache)), 0);
    QStringList args = trainArgs("sft:train", cache, m_fixture.path("full-pipe-run"));
    args << "--num_epochs" << "1000" << "--events" << "jsonl";
    QProcess process;
    process.setChildProcessModifier([] { ::fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4096); }); // the least a pipe holds
    process.start(QStringLiteral(SPLITSCOPE_CLI), args);
    QByteArray out;
    while (!out.contains("\"step\":2,") && process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
    }
    // Nothing read for a while: the pipe fills up (a step event is about 400 bytes) and
    // the worker's next write blocks; the signal comes in while it waits.
    QThread::msleep(1500);
    ::kill(static_cast<pid_t>(process.processId()), SIGTERM);
    QVERIFY(process.waitForFinished(60000));
    out += process.readAllStandardOutput();
    const QByteArray err = process.readAllStandardError();
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 4,
        qPrintable(QStringLiteral("exit %1: %2").arg(process.exitCode()).arg(QString::fromUtf8(err.right(400)))));
    QVERIFY2(out.contains("\"cancelled\":true"), out.right(400).constData());
    QVERIFY2(!err.contains("cannot write standard output"), err.constData());
}

// A write that fails (here: the file size limit, ulimit -f) removes its temporary
// file: the process used to die of SIGXFSZ and leave shard-00000.safetensors.tmp-XXXXXX
// behind, which no later run removed.
void TestEngineCli::failedWriteLeavesNoTemporaryFile()
{
    const QString cache = m_fixture.path("fsize-cache");
    QProcess process;
    process.setChildProcessModifier([] {
        const struct rlimit limit {rlim_t(4096), rlim_t(4096)};
        ::setrlimit(RLIMIT_FSIZE, &limit);
    });
    process.start(QStringLiteral(SPLITSCOPE_CLI), trainArgs("sft:data_process", m_fixture.data(), cache));
    QVERIFY(process.waitForFinished(120000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 1);
    QVERIFY2(err.contains("File too large"), qPrintable(err));
    QStringList left;
    QDirIterator it(cache, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        left << it.next();
    QVERIFY2(left.filter(".tmp-").isEmpty(), qPrintable(left.join(", ")));
    QVERIFY(!QFileInfo::exists(cache + "/.splitscope.lock"));
}

// An image size whose step cannot fit in the memory the process may use is refused
// before any work (exit 2), saying the estimate and the limit: it ran the machine out
// of memory (OOM-killed, exit 137), or ended in LibTorch's "can't allocate memory".
void TestEngineCli::imageTooLargeForMemoryIsRefused()
{
    for (const QString &task : {QString("sft"), QString("sft:data_process")}) {
        const QString out = m_fixture.path("huge-" + QString(task).replace(':', '-'));
        QStringList args = trainArgs(task, m_fixture.data(), out);
        args << "--height" << "4096" << "--width" << "4096";
        QProcess process;
        // 2 GiB of address space (ulimit -v), whatever this machine has.
        limitAddressSpace(process, rlim_t(2) << 30);
        process.start(QStringLiteral(SPLITSCOPE_CLI), args);
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 2);
        QVERIFY2(err.contains(QString(task == "sft" ? "a training step" : "a stage-one sample")
                     + " at 4096x4096 (--height 4096 --width 4096) needs about "),
            qPrintable(err));
        QVERIFY2(err.contains("the address-space limit (ulimit -v 2.0 GiB)"), qPrintable(err));
        QVERIFY2(err.contains(" (10 %) spare of the "), qPrintable(err)); // memoryAdmissionKeepsHeadroom
        QVERIFY2(!err.contains("enforce fail"), qPrintable(err));
        QVERIFY(!QFileInfo::exists(out));
    }
}

// An allocation that fails during a step (here: the address space limited once
// training runs) ends the run with "out of memory at step N (image HxW)", exit 1, and
// the state before that step saved: --resume continues from it.
void TestEngineCli::outOfMemoryDuringAStepSavesTheState()
{
    const QString out = m_fixture.path("oom-run");
    QStringList args = trainArgs("sft", m_fixture.data(), out);
    args << "--height" << "512" << "--width" << "512" << "--num_epochs" << "1000" << "--events" << "jsonl";
    QProcess process;
    const QByteArray events = runUntil(process, args, "\"step\":2,", [](QProcess &p) {
        // Its address space as it is now, and 16 MiB more: the next step's attention
        // scores (128 MiB) cannot be allocated.
        QVERIFY(capAddressSpaceNearItsSize(p.processId(), rlim_t(16) << 20));
    });
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 1);
    const QJsonObject done = QJsonDocument::fromJson(events.trimmed().split('\n').last()).object();
    QCOMPARE(done.value("exit_status").toInt(), 1);
    const QList<QByteArray> lines = events.trimmed().split('\n');
    const QJsonObject error = QJsonDocument::fromJson(lines.at(lines.size() - 2)).object();
    QCOMPARE(error.value("code").toString(), QString("out-of-memory"));
    const QString message = error.value("message").toString();
    QVERIFY2(QRegularExpression("^out of memory at step \\d+ \\(image 512x512\\): LibTorch: ").match(message).hasMatch(),
        qPrintable(message));
    QVERIFY2(message.contains("is saved in " + out + "/resume.safetensors: the same command with --resume continues"),
        qPrintable(message));
    QVERIFY(QFile::exists(out + "/resume.safetensors"));
    // Resumed (with room), it goes on from the step that failed.
    const int failedStep = QRegularExpression("at step (\\d+)").match(message).captured(1).toInt();
    args.replace(args.indexOf("1000"), QString::number(failedStep / 6 + 1));
    args << "--resume";
    QString resumedErr;
    QCOMPARE(runCli(args, nullptr, &resumedErr), 0);
    QVERIFY2(resumedErr.contains("after step " + QString::number(failedStep - 1)), qPrintable(resumedErr));
}

// Stage two checks the memory of its largest step before the first from what the
// cache's shard headers say (the latents' size), also when stage one was not given
// --height/--width: it used to run into LibTorch's "can't allocate memory" (exit 1).
void TestEngineCli::stageTwoChecksMemoryFromTheCache()
{
    const QString data = m_fixture.path("large-data");
    QCOMPARE(runCli({"make-dataset", data, "--count", "1", "--width", "1024", "--height", "1024"}), 0);
    const QString cache = m_fixture.path("large-cache");
    // 1024x1024 by --max_pixels (its default), with no --height/--width.
    QCOMPARE(runCli(trainArgs("sft:data_process", data, cache)), 0);
    const QString out = m_fixture.path("large-run");
    QProcess process;
    // 2 GiB of address space (ulimit -v): the step's attention scores alone take 2 GiB.
    limitAddressSpace(process, rlim_t(2) << 30);
    process.start(QStringLiteral(SPLITSCOPE_CLI), trainArgs("sft:train", cache, out) << "--events" << "jsonl");
    QVERIFY(process.waitForFinished(120000));
    const QString stdoutText = QString::fromUtf8(process.readAllStandardOutput());
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 2);
    QVERIFY2(err.contains("a training step at 1024x1024 (the largest in the cache: sample 0) needs about "), qPrintable(err));
    QVERIFY2(err.contains("the address-space limit (ulimit -v 2.0 GiB) allows: make the cache at a smaller size"), qPrintable(err));
    QVERIFY2(!stdoutText.contains("\"event\":\"step\""), qPrintable(stdoutText));
    QVERIFY(!QFileInfo::exists(out));
}

// Edit images count in the estimate: the text encoder reads an edit image's patches
// at its stored size (here 2048x2048: 16386 tokens, scores of 2 GiB a layer), though
// the training image is 32x32. The estimate left them out, and the run ended in
// LibTorch's "can't allocate memory".
void TestEngineCli::editImagesCountInTheMemoryCheck()
{
    const QString data = m_fixture.path("large-edit-data");
    QCOMPARE(runCli({"make-dataset", data, "--count", "1", "--width", "32", "--height", "32", "--edit", "--edit_width",
                 "2048", "--edit_height", "2048"}),
        0);
    for (const QString &task : {QString("sft"), QString("sft:data_process")}) {
        const QString out = m_fixture.path("large-edit-" + QString(task).replace(':', '-'));
        QProcess process;
        limitAddressSpace(process, rlim_t(2) << 30);
        process.start(QStringLiteral(SPLITSCOPE_CLI), trainArgs(task, data, out) << "--data_file_keys" << "image,edit_image"
                                                                                 << "--extra_inputs" << "edit_image");
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 2);
        QVERIFY2(err.contains(QString(task == "sft" ? "a training step" : "a stage-one sample")
                     + " at 32x32 with a 2048x2048 edit image (the largest image, fitted to --max_pixels 1048576, and the "
                       "largest edit image as stored) needs about "),
            qPrintable(err));
        QVERIFY2(err.contains("or with smaller edit images. Nothing was started"), qPrintable(err));
        QVERIFY(!QFileInfo::exists(out));
    }
}

// An allocation that fails in stage one (here: the address space limited once the
// first shard is written) ends the run with "out of memory at sample N (image HxW)",
// exit 1, keeping the finished shards: the same command resumes from them. It used
// to end with LibTorch's message.
void TestEngineCli::outOfMemoryInStageOneKeepsTheShards()
{
    const QString cache = m_fixture.path("oom-cache");
    QStringList args = trainArgs("sft:data_process", m_fixture.data(), cache);
    args << "--height" << "1024" << "--width" << "1024" << "--cache_shard_size" << "2";
    QProcess process;
    const QByteArray events = runUntil(process, QStringList(args) << "--events" << "jsonl", "\"kind\":\"shard\"",
        [](QProcess &p) {
            // Its address space as it is now, and 16 MiB more: the VAE's activations at
            // 1024x1024 (32 MiB each) cannot be allocated.
            QVERIFY(capAddressSpaceNearItsSize(p.processId(), rlim_t(16) << 20));
        });
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 1);
    const QList<QByteArray> lines = events.trimmed().split('\n');
    QCOMPARE(QJsonDocument::fromJson(lines.last()).object().value("exit_status").toInt(), 1);
    const QJsonObject error = QJsonDocument::fromJson(lines.at(lines.size() - 2)).object();
    QCOMPARE(error.value("code").toString(), QString("out-of-memory"));
    const QString message = error.value("message").toString();
    QVERIFY2(QRegularExpression("^out of memory at sample [2-5] \\((image 1024x1024|loading it)\\): (LibTorch: |std::bad_alloc)")
                 .match(message)
                 .hasMatch(),
        qPrintable(message));
    QVERIFY2(message.contains(" of 3 shards are kept in " + cache + ": the same command resumes"), qPrintable(message));
    QVERIFY(QFile::exists(cache + "/0/shard-00000.safetensors"));
    QVERIFY(!QFile::exists(cache + "/0/shard-00002.safetensors"));
    // Run again (with room), it keeps the finished shards and makes the rest.
    QString err;
    QCOMPARE(runCli(args, nullptr, &err), 0);
    QVERIFY2(QRegularExpression("resuming stage one: [12] of 3 shards are done").match(err).hasMatch(), qPrintable(err));
    QVERIFY(QFile::exists(cache + "/0/shard-00002.safetensors"));
    QVERIFY2(QString::fromUtf8(readFileBytes(cache + "/manifest.json")).contains("\"complete\": true"), qPrintable(cache));
}

void TestEngineCli::badCacheStopsStageTwoBeforeItsFirstStep()
{
    // 6 samples in shards of 3. Epoch 0 begins with a sample of the first shard, so
    // without the check up front a step would run before the truncated last shard
    // is read.
    const auto order = splitscope::engine::shuffledOrder(
        6, splitscope::engine::deriveSeed(0, 0, 0, splitscope::engine::RandomPurpose::Shuffle));
    QVERIFY(order.front() < 3);
    const QString cache = m_fixture.path("bad-cache");
    QCOMPARE(runCli(trainArgs("sft:data_process", m_fixture.data(), cache) << "--cache_shard_size" << "3"), 0);
    const QString shard = cache + "/0/shard-00001.safetensors";
    QFile file(shard);
    QVERIFY(file.setPermissions(file.permissions() | QFileDevice::WriteOwner));
    QVERIFY(file.resize(file.size() / 2));

    const QString out = m_fixture.path("bad-cache-run");
    QString stdoutText;
    QString err;
    QCOMPARE(runCli(trainArgs("sft:train", cache, out) << "--events" << "jsonl", &stdoutText, &err), 2);
    QVERIFY2(!stdoutText.contains("\"event\":\"step\""), qPrintable(stdoutText));
    QVERIFY2(!stdoutText.contains("\"event\":\"start\""), qPrintable(stdoutText));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY2(err.contains("error: corrupt cache shard '" + shard + "': "), qPrintable(err));
    QVERIFY2(err.contains("bytes, the manifest says"), qPrintable(err));
}

void TestEngineCli::sampleDrawsWithTheLora()
{
    QCOMPARE(runCli(trainArgs("sft", m_fixture.data(), m_fixture.path("sample-lora"))), 0);
    const QString lora = m_fixture.path("sample-lora/epoch-0.safetensors");
    QString out;
    QString err;
    const QStringList common = {"sample", "--model_root", m_fixture.models(), "--model_id_with_origin_paths", kModelSpecs,
        "--lora", lora, "--lora_target_modules", kLoraTargets, "--width", "32", "--height", "48", "--steps", "4",
        "--num_threads", "1", "--output_dir", m_fixture.path("samples")};
    QCOMPARE(runCli(common + QStringList{"--lora_rank", "4", "--prompt", "a red circle|a blue square"}, &out, &err), 0);
    QCOMPARE(out.split('\n', Qt::SkipEmptyParts).size(), 2);
    const QByteArray png = readFileBytes(m_fixture.path("samples/sample-001.png"));
    QVERIFY(png.startsWith("\x89PNG"));
    // IHDR: width and height, big-endian, at bytes 16..23.
    QCOMPARE(qFromBigEndian<quint32>(png.constData() + 16), quint32(32));
    QCOMPARE(qFromBigEndian<quint32>(png.constData() + 20), quint32(48));
    // Bad flags and inputs are usage errors (2), named by sample's own flags.
    QCOMPARE(runCli(common + QStringList{"--lora_rank", "8", "--prompt", "x"}, &out, &err), 2);
    QVERIFY2(err.contains("splitscope-cli sample: --lora: '" + lora + "' holds a LoRA of rank 4 ('pipe.dit.transformer_blocks."), qPrintable(err));
    QVERIFY2(err.contains("but --lora_rank is 8: give --lora_rank 4"), qPrintable(err));
    QVERIFY2(!err.contains("--lora_checkpoint"), qPrintable(err));
    // Drawn with fewer target modules than it was trained on, the LoRA would act in
    // part: refused, with what is left out.
    QStringList part = common;
    part.replace(part.indexOf(kLoraTargets), "to_q,to_k");
    QCOMPARE(runCli(part + QStringList{"--lora_rank", "4", "--prompt", "x"}, &out, &err), 2);
    QVERIFY2(err.contains("splitscope-cli sample: --lora: ") && err.contains(" tensors in '" + lora + "' match no LoRA adapter of dit "
                                                                             "under --lora_target_modules \"to_q,to_k\" ('pipe.dit.transformer_blocks."),
        qPrintable(err));
    QVERIFY2(err.contains("so the LoRA would be applied in part: give the --lora_target_modules it was trained with"), qPrintable(err));
    auto with = [&](const QString &flag, const QString &value) {
        QStringList args = common;
        const int at = args.indexOf(flag);
        if (at >= 0) {
            args.removeAt(at + 1);
            args.removeAt(at);
        }
        if (!value.isNull())
            args << flag << value;
        return args + QStringList{"--lora_rank", "4"};
    };
    QCOMPARE(runCli(with("--width", "40") << "--prompt" << "x", &out, &err), 2);
    QVERIFY2(err.contains("--width and --height must be multiples of 16"), qPrintable(err));
    QCOMPARE(runCli(with("--prompt", ""), &out, &err), 2);
    QVERIFY2(err.contains("no prompt to sample (--prompt)"), qPrintable(err));
    QCOMPARE(runCli(with("--prompt", "a red circle|"), &out, &err), 2);
    QVERIFY2(err.contains("--prompt: prompt 2 of 2 is empty (prompts are separated by '|')"), qPrintable(err));
    QCOMPARE(runCli(with("--lora_target_modules", QString()) << "--prompt" << "x", &out, &err), 2);
    QVERIFY2(err.contains("--lora_target_modules is required with --lora"), qPrintable(err));
    QCOMPARE(runCli(with("--lora", m_fixture.path("no-such.safetensors")) << "--prompt" << "x", &out, &err), 2);
    QVERIFY2(err.contains("splitscope-cli sample: --lora: cannot open '"), qPrintable(err));
}

void TestEngineCli::makeDatasetKeepsAnExistingDataset()
{
    const QString dir = m_fixture.path("made");
    QString out;
    QString err;
    QCOMPARE(runCli({"make-dataset", dir, "--count", "4", "--width", "16", "--height", "16", "--edit"}, &out, &err), 0);
    const QByteArray metadata = readFileBytes(dir + "/metadata.csv");
    const QByteArray image = readFileBytes(dir + "/images/00003.png");
    // Refused without --overwrite, like init-models; nothing changes.
    QCOMPARE(runCli({"make-dataset", dir, "--count", "2", "--width", "32", "--height", "32"}, &out, &err), 2);
    QVERIFY2(err.contains("'" + dir + "/metadata.csv' already exists (--overwrite replaces the dataset)"), qPrintable(err));
    QCOMPARE(readFileBytes(dir + "/metadata.csv"), metadata);
    QCOMPARE(readFileBytes(dir + "/images/00003.png"), image);
    // --overwrite leaves no image the new metadata.csv does not list; files it did not write stay.
    QVERIFY(QFile(dir + "/images/notes.txt").open(QIODevice::WriteOnly));
    QCOMPARE(runCli({"make-dataset", dir, "--count", "2", "--width", "32", "--height", "32", "--overwrite"}, &out, &err), 0);
    QCOMPARE(QDir(dir + "/images").entryList(QDir::Files, QDir::Name), (QStringList{"00000.png", "00001.png", "notes.txt"}));
    QVERIFY(!QFileInfo::exists(dir + "/edit"));
    QCOMPARE(readFileBytes(dir + "/metadata.csv").count('\n'), 3);
    // An image of the user's own, without any metadata.csv yet, is not overwritten either.
    const QString own = m_fixture.path("own-images");
    QVERIFY(QDir().mkpath(own + "/images"));
    {
        QFile file(own + "/images/00001.png");
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("mine");
    }
    QCOMPARE(runCli({"make-dataset", own, "--count", "2", "--width", "16", "--height", "16"}, &out, &err), 2);
    QVERIFY2(err.contains("'" + own + "/images/00001.png' already exists (--overwrite replaces it)"), qPrintable(err));
    QCOMPARE(readFileBytes(own + "/images/00001.png"), QByteArray("mine"));
    QVERIFY(!QFileInfo::exists(own + "/metadata.csv"));
}

// The README's default models (not the tiny ones): what the memory estimate is
// calibrated on. Made once, for the tests that measure memory.
static QString defaultModels(const Fixture &fixture)
{
    const QString root = fixture.path("default-models");
    if (!QFileInfo::exists(root + "/Qwen/Qwen-Image/transformer"))
        runCli({"init-models", "--root", root});
    return root;
}

// The estimate made before the first step is above the peak of the whole run: it
// was calibrated on the peak after one step, and from the second step on the
// optimizer's moments (and the allocator's pools) took more: at 512x512 one-stage the
// peak was 877 MiB against an estimate of 781 MiB, and `ulimit -v` runs that passed
// the check ended out of memory at step 2.
void TestEngineCli::memoryEstimateCoversSeveralSteps()
{
    const QString models = defaultModels(m_fixture);
    QVERIFY(QFileInfo::exists(models + "/Qwen/Qwen-Image/transformer"));
    const QString data = m_fixture.path("mem-data");
    QCOMPARE(runCli({"make-dataset", data, "--count", "2", "--width", "512", "--height", "512"}), 0);
    auto measure = [&](const QString &task, const QString &dataset, const QString &out) {
        QStringList args = trainArgs(task, dataset, out);
        args.replace(args.indexOf(m_fixture.models()), models);
        args.replace(args.indexOf("4"), "32"); // --lora_rank, as the README's commands
        args << "--num_epochs" << "2" << "--events" << "jsonl";
        if (task != "sft:train")
            args << "--height" << "512" << "--width" << "512";
        QString stdoutText;
        QString err;
        const int status = runCli(args, &stdoutText, &err);
        double estimate = 0;
        double peak = 0;
        int steps = 0;
        for (const QJsonObject &e : eventsOf(stdoutText)) {
            if (e.value("event").toString() == "memory")
                estimate = std::max(estimate, e.value("estimated_step_bytes").toDouble());
            if (e.value("event").toString() == "done") {
                peak = e.value("peak_rss_bytes").toDouble();
                steps = e.value("steps").toInt();
            }
        }
        return std::make_tuple(status, estimate, peak, steps, err);
    };
    for (const QString &task : {QString("sft"), QString("sft:data_process"), QString("sft:train")}) {
        const auto [status, estimate, peak, steps, err] = measure(task,
            task == "sft:train" ? m_fixture.path("mem-cache") : data,
            m_fixture.path(task == "sft:data_process" ? "mem-cache" : "mem-" + QString(task).replace(':', '-')));
        QVERIFY2(status == 0, qPrintable(err));
        if (task != "sft:data_process")
            QCOMPARE(steps, 4); // two epochs of two steps
        QVERIFY2(peak > 0 && estimate >= peak, qPrintable(QString("%1: estimate %2 MiB, peak %3 MiB")
                                                              .arg(task)
                                                              .arg(estimate / 1048576.0)
                                                              .arg(peak / 1048576.0)));
    }
}

// Under `ulimit -v` the threads a run starts (LibTorch's, OpenBLAS's, the cache
// reader's, each with a stack and a malloc arena) count in the check: the address
// space they take was measured before any of them existed, and stage two at 512x512
// under 1.0 GiB passed the check, then ran out of memory at step 1.
void TestEngineCli::addressSpaceCountsTheThreadsToCome()
{
    const QString cache = m_fixture.path("mem-cache");
    if (!QFileInfo::exists(cache + "/manifest.json"))
        QSKIP("needs memoryEstimateCoversSeveralSteps's cache");
    QStringList args = trainArgs("sft:train", cache, m_fixture.path("as-run"));
    args.replace(args.indexOf(m_fixture.models()), defaultModels(m_fixture));
    args.replace(args.indexOf("4"), "32");
    args.replace(args.indexOf("1"), "2"); // --num_threads: LibTorch's and OpenBLAS's pools
    args << "--max_steps" << "4";
    QProcess process;
    limitAddressSpace(process, rlim_t(1050000) << 10);
    process.start(QStringLiteral(SPLITSCOPE_CLI), args);
    QVERIFY(process.waitForFinished(300000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 2, qPrintable(err));
    QVERIFY2(err.contains("a training step at 512x512 (the largest in the cache: sample "), qPrintable(err));
    QVERIFY2(err.contains("the address-space limit (ulimit -v 1.0 GiB)"), qPrintable(err));
    QVERIFY(!QFileInfo::exists(m_fixture.path("as-run")));
}

// Out of memory at the first step: nothing was trained, so no resume state is
// written (it said "the state after step 0 is saved") and the run folder, made by
// this run, is gone again.
void TestEngineCli::outOfMemoryAtTheFirstStepTrainsNothing()
{
    const QString out = m_fixture.path("oom-first");
    QStringList args = trainArgs("sft", m_fixture.data(), out);
    args << "--height" << "512" << "--width" << "512" << "--events" << "jsonl";
    QProcess process;
    const QByteArray events = runUntil(process, args, "\"event\":\"stage\"", [](QProcess &p) {
        // Its address space as it is now, and 16 MiB more: the first step's attention
        // scores (128 MiB) cannot be allocated.
        QVERIFY(capAddressSpaceNearItsSize(p.processId(), rlim_t(16) << 20));
    });
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 1);
    const QList<QByteArray> lines = events.trimmed().split('\n');
    const QJsonObject error = QJsonDocument::fromJson(lines.at(lines.size() - 2)).object();
    QCOMPARE(error.value("code").toString(), QString("out-of-memory"));
    const QString message = error.value("message").toString();
    QVERIFY2(message.startsWith("out of memory at step 1 (image 512x512): "), qPrintable(message));
    QVERIFY2(message.endsWith("; nothing was trained, and --output_path '" + out + "' is as it was"), qPrintable(message));
    QVERIFY2(!events.contains("\"kind\":\"resume\""), events.constData());
    QVERIFY(!QFileInfo::exists(out));
}

// A reader of the output that goes away (`train ... | head -2`) used to kill the run
// with SIGPIPE (exit 141, no message, its lock and an unfinished manifest left). It
// now stops as SIGTERM stops it: the sample or step finishes, its work is kept, exit 4.
void TestEngineCli::brokenPipeCancelsTheRun()
{
    auto shell = [](const QString &command, QString *err = nullptr) {
        QProcess process;
        process.start("bash", {"-c", command});
        process.waitForFinished(300000);
        if (err)
            *err = QString::fromUtf8(process.readAllStandardError());
        return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
    };
    auto quoted = [](QStringList args) {
        for (QString &a : args)
            a = "'" + a + "'";
        return "'" + QStringLiteral(SPLITSCOPE_CLI) + "' " + args.join(' ');
    };
    // Stage one, both streams into a pipe whose reader has gone (head -c 0 reads nothing).
    const QString cache = m_fixture.path("pipe-cache");
    QStringList stageOne = trainArgs("sft:data_process", m_fixture.data(), cache) << "--cache_shard_size" << "2";
    QCOMPARE(shell(quoted(stageOne) + " 2>&1 | head -c 0; echo ${PIPESTATUS[0]}"), QString("4"));
    QVERIFY(!QFileInfo::exists(cache + "/.splitscope.lock"));
    QString err;
    QCOMPARE(runCli(stageOne, nullptr, &err), 0);
    QVERIFY2(QString::fromUtf8(readFileBytes(cache + "/manifest.json")).contains("\"complete\": true"), qPrintable(err));
    // Stage two, events into the pipe: stderr says why it stops, and the state is kept.
    const QString out = m_fixture.path("pipe-run");
    QStringList stageTwo = trainArgs("sft:train", cache, out) << "--num_epochs" << "3";
    const QString errFile = m_fixture.path("pipe-run.err");
    QCOMPARE(shell(quoted(stageTwo) + " --events jsonl 2>'" + errFile + "' | head -c 0; echo ${PIPESTATUS[0]}"), QString("4"));
    const QString said = QString::fromUtf8(readFileBytes(errFile));
    QVERIFY2(said.contains("standard output was closed (broken pipe): stopping after the current step"), qPrintable(said));
    QVERIFY2(said.contains("cancelled: state saved"), qPrintable(said));
    QVERIFY(QFileInfo::exists(out + "/resume.safetensors"));
    QVERIFY(!QFileInfo::exists(out + "/.splitscope.lock"));
    QCOMPARE(runCli(stageTwo << "--resume", nullptr, &err), 0);
    QVERIFY2(err.contains("resuming at epoch"), qPrintable(err));
    // SIGHUP (the terminal closed) stops as SIGTERM does; it killed the run.
    const QString hup = m_fixture.path("hup-run");
    QProcess process;
    runUntil(process, trainArgs("sft:train", cache, hup) << "--num_epochs" << "1000" << "--events" << "jsonl", "\"step\":2,",
        [](QProcess &p) { ::kill(static_cast<pid_t>(p.processId()), SIGHUP); });
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 4);
    QVERIFY(QFileInfo::exists(hup + "/resume.safetensors"));
}

// A shard found damaged by its checksum during stage two (4 bytes of its data
// flipped, its header intact) stops the run with exit 2 naming the shard, keeping the
// steps done as a cancellation does; stage one rebuilds that shard alone, byte for
// byte (naming it and why), and --resume then ends with the weights of a run that
// was never stopped.
void TestEngineCli::damagedShardDuringStageTwoSavesTheState()
{
    const QString cache = m_fixture.path("flip-cache");
    QStringList stageOne = trainArgs("sft:data_process", m_fixture.data(), cache) << "--cache_shard_size" << "1";
    QCOMPARE(runCli(stageOne), 0);
    QStringList reference = trainArgs("sft:train", cache, m_fixture.path("flip-ref")) << "--num_epochs" << "2";
    QCOMPARE(runCli(reference), 0);
    QVERIFY(!QFileInfo::exists(cache + "/.splitscope.lock")); // stage two leaves none in the cache

    // The sample of epoch 0's fourth step: three steps run before its shard is read.
    const auto order = splitscope::engine::shuffledOrder(
        6, splitscope::engine::deriveSeed(0, 0, 0, splitscope::engine::RandomPurpose::Shuffle));
    const QString file = QString("0/shard-%1.safetensors").arg(order[3], 5, 10, QChar('0'));
    const QString shard = cache + "/" + file;
    const QByteArray intact = readFileBytes(shard);
    {
        QFile f(shard);
        QVERIFY(f.setPermissions(f.permissions() | QFileDevice::WriteOwner));
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.seek(f.size() - 8));
        const QByteArray bytes = f.read(4);
        QByteArray flipped;
        for (const char c : bytes)
            flipped.append(char(~c));
        QVERIFY(f.seek(f.size() - 8));
        QCOMPARE(f.write(flipped), qint64(4));
    }
    const QString out = m_fixture.path("flip-run");
    QStringList stageTwo = trainArgs("sft:train", cache, out) << "--num_epochs" << "2";
    QString err;
    QCOMPARE(runCli(stageTwo, nullptr, &err), 2);
    QVERIFY2(err.contains("error: corrupt cache shard '" + shard + "': checksum "), qPrintable(err));
    QVERIFY2(err.contains("; the state after step 3 is saved in " + out + "/resume.safetensors: once the shard is rebuilt "
                          "(the same stage-one command, sft:data_process with --output_path '" + cache + "', rebuilds only "
                          "the damaged shards), the same command with --resume continues from it"),
        qPrintable(err));
    QVERIFY(QFileInfo::exists(out + "/resume.safetensors"));
    QVERIFY(QFileInfo::exists(out + "/step-3.safetensors"));

    QCOMPARE(runCli(stageOne, nullptr, &err), 0);
    QVERIFY2(err.contains("resuming stage one: 5 of 6 shards are done; making 1 damaged shard again: " + file
                 + " (corrupt: checksum "),
        qPrintable(err));
    QCOMPARE(readFileBytes(shard), intact);

    QCOMPARE(runCli(stageTwo << "--resume", nullptr, &err), 0);
    QVERIFY2(err.contains("resuming at epoch 1 of 2, after step 3"), qPrintable(err));
    QString diffError;
    QCOMPARE(maxAbsDiff(out + "/epoch-1.safetensors", m_fixture.path("flip-ref/epoch-1.safetensors"), &diffError), 0.0);
    QVERIFY(!QFileInfo::exists(cache + "/.splitscope.lock"));
}

// A Cancel the moment the worker starts (SIGTERM while splitscope-engine is still
// loading LibTorch) used to end the process by the signal (143): splitscope-cli now
// holds the stop signals back across the hand-over, and the engine takes them once
// it handles them, so it is a clean cancel (4) that has made nothing.
void TestEngineCli::sigtermWhileTheEngineStartsIsACleanCancel()
{
    // Once the process is splitscope-engine (after the hand-over, while LibTorch loads
    // or the flags are read), then a little later.
    for (const int delayMs : {0, 30, 120}) {
        const QString out = m_fixture.path("early-term-" + QString::number(delayMs));
        QProcess process;
        process.start(QStringLiteral(SPLITSCOPE_CLI), trainArgs("sft", m_fixture.data(), out));
        QVERIFY(process.waitForStarted());
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 10000
            && !QFileInfo(QString("/proc/%1/exe").arg(process.processId())).symLinkTarget().endsWith("splitscope-engine"))
            QThread::usleep(200);
        QThread::msleep(static_cast<unsigned long>(delayMs));
        ::kill(static_cast<pid_t>(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 4, qPrintable(QString("exit %1: %2").arg(process.exitCode()).arg(err)));
        QVERIFY2(!QFileInfo::exists(out), qPrintable(err));
    }
}

// Admission keeps 10 % of the memory spare (at least 64 MiB): a step that would use
// it all was admitted, then swapped or was killed long after the start.
void TestEngineCli::memoryAdmissionKeepsHeadroom()
{
    const std::uint64_t mib = 1024 * 1024;
    QCOMPARE(engine::memoryHeadroom(1000 * mib), 100 * mib);
    QCOMPARE(engine::memoryHeadroom(100 * mib), 64 * mib);
    QVERIFY(engine::fitsInMemory(900 * mib, 1000 * mib));
    QVERIFY(!engine::fitsInMemory(901 * mib, 1000 * mib));
    QVERIFY(!engine::fitsInMemory(1, 32 * mib));
    // 22.7 GiB against 22.8 GiB: the case that was admitted.
    QVERIFY(!engine::fitsInMemory(std::uint64_t(22.7 * 1024) * mib, std::uint64_t(22.8 * 1024) * mib));
}

QTEST_GUILESS_MAIN(TestEngineCli)
#include "tst_enginecli.moc"
