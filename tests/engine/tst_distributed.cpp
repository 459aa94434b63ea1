// SPDX-License-Identifier: MIT
// Data-parallel training over torch.distributed (c10d, Gloo over loopback), through
// splitscope-cli: the ranks started by the built-in launcher (--nproc_per_node), as
// two "nodes" on this machine, or by hand with torchrun's environment. What one rank
// computes, N ranks compute: two-stage equals one-stage bit for bit at any rank
// count, N ranks equal one rank accumulating N samples within float summation order,
// a cache made by some ranks reads with any count, and a rank that dies ends the run
// on every rank, the state kept for --resume.
#include "EngineTestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace enginetest;

namespace {

struct Outcome {
    int status = -1; // -1: crashed or timed out
    QString out;
    QString err;
    qint64 milliseconds = 0;
};

Outcome finish(QProcess &process, int timeoutMs, const QElapsedTimer &clock)
{
    Outcome o;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    } else if (process.exitStatus() == QProcess::NormalExit) {
        o.status = process.exitCode();
    }
    o.out = QString::fromUtf8(process.readAllStandardOutput());
    o.err = QString::fromUtf8(process.readAllStandardError());
    o.milliseconds = clock.elapsed();
    return o;
}

Outcome cli(const QStringList &arguments, const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
    int timeoutMs = 120000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    return finish(process, timeoutMs, clock);
}

// A TCP port nothing listens on now.
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

// The pid of the child of `launcher` that runs `rank` (from its environment); 0 when
// none is found within a few seconds.
pid_t rankPid(qint64 launcher, int rank)
{
    for (int attempt = 0; attempt < 500; ++attempt) {
        const QByteArray children = readFileBytes(QString("/proc/%1/task/%1/children").arg(launcher)).trimmed();
        for (const QByteArray &child : children.split(' ')) {
            if (child.isEmpty())
                continue;
            const QList<QByteArray> environment = readFileBytes("/proc/" + QString::fromLatin1(child) + "/environ").split('\0');
            if (environment.contains("RANK=" + QByteArray::number(rank)))
                return static_cast<pid_t>(child.toInt());
        }
        QTest::qWait(10);
    }
    return 0;
}

bool waitForFile(const QString &path, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!QFile::exists(path)) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QTest::qWait(5);
    }
    return true;
}

// loss.csv's values by step.
QList<double> losses(const QString &folder)
{
    QList<double> values;
    const QList<QByteArray> lines = readFileBytes(folder + "/loss.csv").split('\n');
    for (int i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> fields = lines[i].split(',');
        if (fields.size() == 3)
            values.append(fields[2].toDouble());
    }
    return values;
}

QJsonObject manifest(const QString &cache)
{
    return QJsonDocument::fromJson(readFileBytes(cache + "/manifest.json")).object();
}

// (first sample, checksum) of each shard: what a cache holds, wherever its files lie.
QStringList shardContents(const QString &cache)
{
    QStringList out;
    for (const QJsonValue &shard : manifest(cache).value("shards").toArray()) {
        const QJsonObject s = shard.toObject();
        out.append(QString::number(s.value("first").toInt()) + ":" + s.value("checksum").toString());
    }
    return out;
}

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void ranksEqualOneRankAccumulating_data();
    void ranksEqualOneRankAccumulating();
    void cacheOfTwoRanksReadsWithAnyCount();
    void unevenStageOneSharesMeet();
    void killedRankEndsEveryRankAndResumes();
    void killedRankInStageOneResumes();
    void cancelStopsEveryRank();
    void cancelAtStartStopsEveryRank();
    void twoNodesOnOneMachine();
    void resumeNeedsAsManyRanks();
    void ranksGivenOtherFlagsAreRefused();
    void badLaunchesAreRefused();

private:
    // `splitscope-cli train` on the fixture: LoRA on one thread, seeded.
    QStringList train(const QString &task, const QString &data, const QString &output) const;
    QStringList launch(int ranks, const QStringList &trainArgs) const;
    // A one-stage run long enough to be stopped midway (about 600 steps on 2 ranks).
    QStringList longRun(const QString &output) const;

    Fixture m_fixture;
    QString m_big; // 96 images of 128x128: a stage one long enough to kill a rank in
};

void TestDistributed::initTestCase()
{
    QString error;
    QVERIFY2(m_fixture.setUp(&error, 8), qPrintable(error));
    m_big = m_fixture.path("big");
    QCOMPARE(cli({"make-dataset", m_big, "--count", "96", "--width", "128", "--height", "128"}).status, 0);
}

QStringList TestDistributed::train(const QString &task, const QString &data, const QString &output) const
{
    return {"train", "--task", task, "--dataset_base_path", data, "--model_root", m_fixture.models(),
        "--model_id_with_origin_paths", kModelSpecs, "--lora_base_model", "dit", "--lora_target_modules", kLoraTargets,
        "--lora_rank", "4", "--learning_rate", "1e-3", "--num_threads", "1", "--seed", "3", "--output_path", output};
}

QStringList TestDistributed::launch(int ranks, const QStringList &trainArgs) const
{
    return trainArgs + QStringList{"--nproc_per_node", QString::number(ranks), "--dist_timeout", "20"};
}

QStringList TestDistributed::longRun(const QString &output) const
{
    return train("sft", m_fixture.data(), output) + QStringList{"--dataset_repeat", "150", "--checkpoint_interval", "0.2"};
}

void TestDistributed::ranksEqualOneRankAccumulating_data()
{
    QTest::addColumn<int>("ranks");
    QTest::newRow("2 ranks") << 2;
    QTest::newRow("3 ranks") << 3;
}

// N ranks take one sample each per step and average their gradients; one rank with
// --gradient_accumulation_steps N sums N samples' gradients, each scaled by 1/N. The
// same samples make each step (24 per epoch, a multiple of N, so no rank wraps round),
// so the weights differ only by the order of float sums: at most 1e-6 here. Stage two
// on N ranks runs the same steps as one-stage training on N ranks: equal bits.
void TestDistributed::ranksEqualOneRankAccumulating()
{
    QFETCH(int, ranks);
    const QString n = QString::number(ranks);
    const QStringList repeat = {"--dataset_repeat", "3"};
    const QString ranked = m_fixture.path("ranks-" + n);
    const QString accumulated = m_fixture.path("accumulated-" + n);
    Outcome o = cli(launch(ranks, train("sft", m_fixture.data(), ranked) + repeat));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    const int steps = 24 / ranks;
    QVERIFY2(o.err.contains(QString("1 epoch x %1 steps of %2 samples (1 sample on each of %2 ranks)").arg(steps).arg(ranks)),
        qPrintable(o.err));
    // The first step averages after its backward pass; the rest while it runs.
    QVERIFY2(o.err.contains("from step 2 the gradients are averaged in "), qPrintable(o.err));
    o = cli(train("sft", m_fixture.data(), accumulated) + repeat + QStringList{"--gradient_accumulation_steps", n});
    QVERIFY2(o.status == 0, qPrintable(o.err));

    QString error;
    const double diff = maxAbsDiff(ranked + "/epoch-0.safetensors", accumulated + "/epoch-0.safetensors", &error);
    QVERIFY2(diff >= 0, qPrintable(error));
    QVERIFY2(diff <= 1e-6, qPrintable(QString::number(diff)));
    const QList<double> a = losses(ranked);
    const QList<double> b = losses(accumulated);
    QCOMPARE(a.size(), steps);
    QCOMPARE(b.size(), steps);
    for (int i = 0; i < a.size(); ++i)
        QVERIFY2(std::abs(a[i] - b[i]) <= 1e-6, qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(a[i]).arg(b[i])));

    const QString cache = m_fixture.path("cache-" + n);
    const QString two = m_fixture.path("two-" + n);
    o = cli(launch(ranks, train("sft:data_process", m_fixture.data(), cache) + QStringList{"--cache_shard_size", "3"}));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    o = cli(launch(ranks, train("sft:train", cache, two) + repeat));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    QCOMPARE(readFileBytes(two + "/epoch-0.safetensors"), readFileBytes(ranked + "/epoch-0.safetensors"));
    QCOMPARE(readFileBytes(two + "/loss.csv"), readFileBytes(ranked + "/loss.csv"));

    // Every step's gradients travel in the same buckets, filled while the backward
    // pass runs or after it (the first step after a start or a resume): Gloo's ring adds
    // the ranks' values in an order set by the tensors' sizes, which at 3 ranks would
    // differ between two layouts.
    const QString resumed = m_fixture.path("resumed-" + n);
    QCOMPARE(cli(launch(ranks, train("sft", m_fixture.data(), resumed) + repeat + QStringList{"--max_steps", "3"})).status, 0);
    o = cli(launch(ranks, train("sft", m_fixture.data(), resumed) + repeat + QStringList{"--resume"}));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    QCOMPARE(readFileBytes(resumed + "/epoch-0.safetensors"), readFileBytes(ranked + "/epoch-0.safetensors"));
    QCOMPARE(readFileBytes(resumed + "/loss.csv"), readFileBytes(ranked + "/loss.csv"));
}

// Rank r of a stage one makes the shards r, r+N, ...; rank 0 joins their lists into
// one manifest when all are done. Any number of ranks reads the cache.
void TestDistributed::cacheOfTwoRanksReadsWithAnyCount()
{
    const QString cache1 = m_fixture.path("any-cache-1");
    const QString cache2 = m_fixture.path("any-cache-2");
    const QStringList shards = {"--cache_shard_size", "3"};
    QCOMPARE(cli(train("sft:data_process", m_fixture.data(), cache1) + shards).status, 0);
    const Outcome made = cli(launch(2, train("sft:data_process", m_fixture.data(), cache2) + shards)
        + QStringList{"--events", "jsonl"});
    QVERIFY2(made.status == 0, qPrintable(made.err));
    // Both ranks' lines on one standard output, each whole; the run's own events
    // (one done) are rank 0's, and rank 1 adds its progress and memory.
    int done = 0;
    QSet<int> progressRanks;
    for (const QString &line : made.out.split('\n', Qt::SkipEmptyParts)) {
        QJsonParseError error;
        const QJsonObject e = QJsonDocument::fromJson(line.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(line));
        QVERIFY2(e.contains("rank"), qPrintable(line));
        done += e.value("event").toString() == "done" ? 1 : 0;
        if (e.value("event").toString() == "progress")
            progressRanks.insert(e.value("rank").toInt());
    }
    QCOMPARE(done, 1);
    QCOMPARE(progressRanks, (QSet<int>{0, 1}));
    const QJsonObject m = manifest(cache2);
    QVERIFY(m.value("complete").toBool());
    QStringList files;
    for (const QJsonValue &s : m.value("shards").toArray())
        files.append(s.toObject().value("file").toString());
    QCOMPARE(files, QStringList({"0/shard-00000.safetensors", "1/shard-00001.safetensors", "0/shard-00002.safetensors"}));
    QVERIFY(!QFile::exists(cache2 + "/0/manifest.json"));
    QVERIFY(!QFile::exists(cache2 + "/1/manifest.json"));
    QCOMPARE(shardContents(cache2), shardContents(cache1));

    for (int ranks : {1, 3}) {
        const QString n = QString::number(ranks);
        const QString one = m_fixture.path("any-one-" + n);
        const QString fromOne = m_fixture.path("any-from-cache-1-" + n);
        const QString fromTwo = m_fixture.path("any-from-cache-2-" + n);
        const auto run = [&](const QStringList &args) { return cli(ranks == 1 ? args : launch(ranks, args)).status; };
        QCOMPARE(run(train("sft", m_fixture.data(), one)), 0);
        QCOMPARE(run(train("sft:train", cache1, fromOne)), 0);
        QCOMPARE(run(train("sft:train", cache2, fromTwo)), 0);
        QCOMPARE(readFileBytes(fromTwo + "/epoch-0.safetensors"), readFileBytes(one + "/epoch-0.safetensors"));
        QCOMPARE(readFileBytes(fromOne + "/epoch-0.safetensors"), readFileBytes(one + "/epoch-0.safetensors"));
    }
}

// Rank 1 makes 4 of the 60 samples and rank 0 56 (shards of 56, images of 512x512):
// rank 1 waits for rank 0 longer than --dist_timeout, which bounds a collective, not
// this wait.
void TestDistributed::unevenStageOneSharesMeet()
{
    const QString images = m_fixture.path("uneven-images");
    QCOMPARE(cli({"make-dataset", images, "--count", "60", "--width", "512", "--height", "512"}).status, 0);
    const QString cache = m_fixture.path("uneven");
    const Outcome o = cli(train("sft:data_process", images, cache)
        + QStringList{"--cache_shard_size", "56", "--nproc_per_node", "2", "--dist_timeout", "2"});
    QVERIFY2(o.status == 0, qPrintable(o.err));
    const QJsonObject m = manifest(cache);
    QVERIFY(m.value("complete").toBool());
    QCOMPARE(m.value("shards").toArray().size(), 2);
    QVERIFY2(o.milliseconds > 3000, "rank 0's share took too little time to show the wait");
}

// kill -9 of rank 1 midway: the launcher names it and rank 0 stops at once (Gloo
// sees the connection close), keeping the state after the last step all ranks made;
// --resume on two ranks then gives the uninterrupted run's weights and losses.
void TestDistributed::killedRankEndsEveryRankAndResumes()
{
    const QString reference = m_fixture.path("kill-reference");
    const QString out = m_fixture.path("kill-run");
    Outcome o = cli(launch(2, longRun(reference)));
    QVERIFY2(o.status == 0, qPrintable(o.err));

    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SPLITSCOPE_CLI), launch(2, longRun(out)));
    QVERIFY(process.waitForStarted());
    const pid_t victim = rankPid(process.processId(), 1);
    QVERIFY(victim > 0);
    QVERIFY2(waitForFile(out + "/resume.safetensors", 20000), "no periodic state");
    QTest::qWait(100);
    QCOMPARE(::kill(victim, SIGKILL), 0);
    QElapsedTimer sinceKill;
    sinceKill.start();
    o = finish(process, 60000, clock);
    QVERIFY2(sinceKill.elapsed() < 20000, "the ranks stop within --dist_timeout");
    QCOMPARE(o.status, 1);
    QVERIFY2(o.err.contains(QString("rank 1 (pid %1) was killed by signal 9").arg(victim)), qPrintable(o.err));
    QVERIFY2(o.err.contains("rank 0 of 2: averaging the gradients of step"), qPrintable(o.err));
    QVERIFY2(o.err.contains("the same command with --resume, on as many ranks, continues from it"), qPrintable(o.err));
    QVERIFY(!QFile::exists(out + "/epoch-0.safetensors"));

    o = cli(launch(2, longRun(out) + QStringList{"--resume"}));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    QVERIFY2(o.err.contains("resuming at epoch 1 of 1, after step"), qPrintable(o.err));
    QCOMPARE(readFileBytes(out + "/epoch-0.safetensors"), readFileBytes(reference + "/epoch-0.safetensors"));
    QCOMPARE(readFileBytes(out + "/loss.csv"), readFileBytes(reference + "/loss.csv"));
}

// A stage-one rank killed after its first shard: every rank ends, each keeps the
// shards it finished, and the same command makes only the rest.
void TestDistributed::killedRankInStageOneResumes()
{
    const QString reference = m_fixture.path("stage-one-reference");
    const QString cache = m_fixture.path("stage-one-killed");
    const QStringList shards = {"--cache_shard_size", "2"};
    QCOMPARE(cli(train("sft:data_process", m_big, reference) + shards).status, 0);

    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SPLITSCOPE_CLI), launch(2, train("sft:data_process", m_big, cache) + shards));
    QVERIFY(process.waitForStarted());
    const pid_t victim = rankPid(process.processId(), 1);
    QVERIFY(victim > 0);
    QVERIFY2(waitForFile(cache + "/1/shard-00001.safetensors", 20000), "rank 1 wrote no shard");
    QCOMPARE(::kill(victim, SIGKILL), 0);
    Outcome o = finish(process, 60000, clock);
    QCOMPARE(o.status, 1);
    QVERIFY2(o.err.contains(QString("rank 1 (pid %1) was killed by signal 9").arg(victim)), qPrintable(o.err));
    QVERIFY(!manifest(cache).value("complete").toBool());

    o = cli(launch(2, train("sft:data_process", m_big, cache) + shards));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    QVERIFY2(o.err.contains("resuming stage one: "), qPrintable(o.err));
    QVERIFY(manifest(cache).value("complete").toBool());
    QCOMPARE(shardContents(cache), shardContents(reference));
}

// SIGTERM to the launcher reaches every rank once; they agree on the step to stop
// after, exit 4, and --resume continues exactly.
void TestDistributed::cancelStopsEveryRank()
{
    const QString reference = m_fixture.path("kill-reference"); // killedRankEndsEveryRankAndResumes's
    const QString out = m_fixture.path("cancel-run");
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SPLITSCOPE_CLI), launch(2, longRun(out)));
    QVERIFY(process.waitForStarted());
    QVERIFY2(waitForFile(out + "/resume.safetensors", 20000), "no periodic state");
    QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGTERM), 0);
    Outcome o = finish(process, 60000, clock);
    QVERIFY2(o.status == 4, qPrintable(o.err));
    QVERIFY2(o.err.contains("cancelled: state saved"), qPrintable(o.err));
    o = cli(launch(2, longRun(out) + QStringList{"--resume"}));
    QVERIFY2(o.status == 0, qPrintable(o.err));
    QCOMPARE(readFileBytes(out + "/epoch-0.safetensors"), readFileBytes(reference + "/epoch-0.safetensors"));
}

// A stop right after the launch, while the ranks read their flags or meet: they
// agree on it once met, and none is left waiting for one that already left.
void TestDistributed::cancelAtStartStopsEveryRank()
{
    const QString out = m_fixture.path("cancel-at-start");
    for (int delayMs : {100, 250, 500}) {
        QProcess process;
        QElapsedTimer clock;
        clock.start();
        process.start(QStringLiteral(SPLITSCOPE_CLI),
            train("sft", m_fixture.data(), out) + QStringList{"--nproc_per_node", "2", "--dist_timeout", "600"});
        QVERIFY(process.waitForStarted());
        QTest::qWait(delayMs);
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGTERM), 0);
        const Outcome o = finish(process, 60000, clock);
        QVERIFY2(o.status == 4, qPrintable(QString::number(o.status) + "\n" + o.err));
        QVERIFY2(o.milliseconds < 60000, qPrintable(o.err));
        QDir(out).removeRecursively();
    }
}

// Two launchers, one rank each, meeting over TCP as two machines would: the same
// run as two ranks of one launcher.
void TestDistributed::twoNodesOnOneMachine()
{
    const QString out = m_fixture.path("two-nodes");
    const QString port = QString::number(freePort());
    const QStringList args = train("sft", m_fixture.data(), out) + QStringList{"--nproc_per_node", "1", "--nnodes", "2",
        "--master_addr", "127.0.0.1", "--master_port", port};
    QProcess node1;
    QElapsedTimer clock;
    clock.start();
    node1.start(QStringLiteral(SPLITSCOPE_CLI), args + QStringList{"--node_rank", "1"});
    QVERIFY(node1.waitForStarted());
    const Outcome node0 = cli(args + QStringList{"--node_rank", "0"});
    const Outcome other = finish(node1, 60000, clock);
    QVERIFY2(node0.status == 0, qPrintable(node0.err));
    QVERIFY2(other.status == 0, qPrintable(other.err));
    QVERIFY2(node0.err.contains("rendezvous at 127.0.0.1:" + port), qPrintable(node0.err));
    const QString oneNode = m_fixture.path("two-nodes-reference");
    QCOMPARE(cli(launch(2, train("sft", m_fixture.data(), oneNode))).status, 0);
    QCOMPARE(readFileBytes(out + "/epoch-0.safetensors"), readFileBytes(oneNode + "/epoch-0.safetensors"));
}

void TestDistributed::resumeNeedsAsManyRanks()
{
    const QString out = m_fixture.path("world-size");
    QCOMPARE(cli(launch(2, longRun(out) + QStringList{"--max_steps", "5"})).status, 0);
    const Outcome o = cli(launch(3, longRun(out) + QStringList{"--resume"}));
    QCOMPARE(o.status, 2);
    QVERIFY2(o.err.contains("the number of ranks (WORLD_SIZE, --nproc_per_node x --nnodes): the state has 2, this run 3"),
        qPrintable(o.err));
    QCOMPARE(cli(launch(2, longRun(out) + QStringList{"--resume", "--max_steps", "7"})).status, 0);
}

// Two "nodes" given other weight decays: refused before any step, naming the rank.
void TestDistributed::ranksGivenOtherFlagsAreRefused()
{
    const QString out = m_fixture.path("other-flags");
    const QString port = QString::number(freePort());
    const QStringList args = train("sft", m_fixture.data(), out) + QStringList{"--nproc_per_node", "1", "--nnodes", "2",
        "--master_addr", "127.0.0.1", "--master_port", port, "--dist_timeout", "20"};
    QProcess node1;
    QElapsedTimer clock;
    clock.start();
    node1.start(QStringLiteral(SPLITSCOPE_CLI), args + QStringList{"--node_rank", "1", "--weight_decay", "0.5"});
    QVERIFY(node1.waitForStarted());
    const Outcome node0 = cli(args + QStringList{"--node_rank", "0"});
    const Outcome other = finish(node1, 60000, clock);
    QCOMPARE(node0.status, 2);
    QCOMPARE(other.status, 2);
    QVERIFY2(node0.err.contains("rank 1 starts from other flags than rank 0"), qPrintable(node0.err));
    QVERIFY(!QFile::exists(out + "/loss.csv"));
}

void TestDistributed::badLaunchesAreRefused()
{
    const QStringList args = train("sft", m_fixture.data(), m_fixture.path("refused"));
    const auto environment = [](const QStringList &pairs) {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        for (const QString &pair : pairs)
            e.insert(pair.section('=', 0, 0), pair.section('=', 1));
        return e;
    };
    struct Case {
        QStringList variables;
        QStringList flags;
        int status;
        QString message;
    };
    const QString port = QString::number(freePort());
    const QList<Case> cases = {
        {{"RANK=5", "WORLD_SIZE=2"}, {}, 2, "RANK='5' is not a rank from 0 to WORLD_SIZE-1 = 1"},
        {{"RANK=1", "WORLD_SIZE=2"}, {}, 2, "WORLD_SIZE is 2 but MASTER_ADDR is not set"},
        {{"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=99999"}, {}, 2, "MASTER_PORT='99999' is not a port"},
        {{}, {"--nproc_per_node", "2", "--nnodes", "2"}, 2, "--nnodes 2 needs --master_addr"},
        {{}, {"--nnodes", "2"}, 2, "go with --nproc_per_node"},
        {{}, {"--nproc_per_node", "2", "--node_rank", "1"}, 2, "--node_rank 1 is not below --nnodes 1"},
        {{}, {"--dist_backend", "nccl"}, 2, "--dist_backend nccl needs a LibTorch built with CUDA"},
        {{}, {"--gradient_accumulation_steps", "0"}, 2, "--gradient_accumulation_steps"},
        {{"RANK=1", "WORLD_SIZE=2"}, {"--nproc_per_node", "2"}, 2, "this process already is one"},
        // Rank 1 of a group whose rank 0 never comes: a bounded wait, then the address.
        {{"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port}, {"--dist_timeout", "3"}, 1,
            "rank 1 of 2: cannot reach the rendezvous store at 127.0.0.1:" + port + " (rank 0 hosts it) within --dist_timeout 3 s"},
    };
    for (const Case &c : cases) {
        const Outcome o = cli(args + c.flags, environment(c.variables));
        QVERIFY2(o.status == c.status, qPrintable(c.message + "\n" + o.err));
        QVERIFY2(o.err.contains(c.message), qPrintable(c.message + "\n" + o.err));
        QVERIFY2(o.milliseconds < 30000, qPrintable(c.message));
    }
    QVERIFY(!QDir(m_fixture.path("refused")).exists());
}

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
