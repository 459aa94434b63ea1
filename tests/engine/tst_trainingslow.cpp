// SPDX-License-Identifier: MIT
// The long engine tests (label slow): the seed document's three commands, run as
// written with only the program and the paths changed, and the loss going down
// over a few hundred steps.
#include "EngineTestSupport.h"

#include "core/engine/SyntheticDataset.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <csignal>

using namespace enginetest;

namespace {

// /work/shared/spec/split-training.zh.md, with `accelerate launch
// examples/qwen_image/model_training/train.py` replaced by `splitscope-cli train`
// and the dataset and output paths pointed at the test's folders.
QStringList seedCommand(int which, const QString &data, const QString &out)
{
    const QString models = "Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors,"
                           "Qwen/Qwen-Image:text_encoder/model*.safetensors,"
                           "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors";
    const QString targets = "to_q,to_k,to_v,add_q_proj,add_k_proj,add_v_proj,to_out.0,to_add_out,img_mlp.net.2,img_mod.1,"
                            "txt_mlp.net.2,txt_mod.1";
    const QString common2 = "--lora_base_model|dit|--lora_target_modules|" + targets
        + "|--lora_rank|32|--use_gradient_checkpointing|--dataset_num_workers|8|--find_unused_parameters";
    QString line;
    if (which == 1) {
        line = "train|--dataset_base_path|" + data + "|--dataset_metadata_path|" + data + "/metadata.csv|--max_pixels|1048576"
            + "|--dataset_repeat|50|--model_id_with_origin_paths|" + models
            + "|--learning_rate|1e-4|--num_epochs|5|--remove_prefix_in_ckpt|pipe.dit.|--output_path|" + out
            + "/Qwen-Image_lora|" + common2;
    } else if (which == 2) {
        line = "train|--dataset_base_path|" + data + "|--dataset_metadata_path|" + data + "/metadata.csv|--max_pixels|1048576"
            + "|--dataset_repeat|1|--model_id_with_origin_paths|Qwen/Qwen-Image:text_encoder/model*.safetensors,"
              "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors"
            + "|--offload_models|Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors"
            + "|--learning_rate|1e-4|--num_epochs|5|--remove_prefix_in_ckpt|pipe.dit.|--output_path|" + out
            + "/Qwen-Image-LoRA-splited-cache|" + common2 + "|--task|sft:data_process";
    } else {
        line = "train|--dataset_base_path|" + out + "/Qwen-Image-LoRA-splited-cache|--max_pixels|1048576"
            + "|--dataset_repeat|50|--model_id_with_origin_paths|Qwen/Qwen-Image:text_encoder/model*.safetensors,"
              "Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors,Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors"
            + "|--offload_models|Qwen/Qwen-Image:text_encoder/model*.safetensors,Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors"
            + "|--learning_rate|1e-4|--num_epochs|5|--remove_prefix_in_ckpt|pipe.dit.|--output_path|" + out
            + "/Qwen-Image-LoRA-splited|" + common2 + "|--task|sft:train";
    }
    return line.split('|');
}

} // namespace

class TestTrainingSlow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void seedDocumentCommands();
    void lossDecreases();
    void killAnywhereThenResume_data();
    void killAnywhereThenResume();

private:
    Fixture m_fixture;
};

void TestTrainingSlow::initTestCase()
{
    QString error;
    QVERIFY2(m_fixture.setUp(&error, 16), qPrintable(error));
}

void TestTrainingSlow::seedDocumentCommands()
{
    // Two images: 2 x 50 repeats x 5 epochs = 500 steps per training run.
    engine::SyntheticDatasetOptions options;
    options.directory = m_fixture.path("seed-data").toStdString();
    options.count = 2;
    std::string error;
    QVERIFY(engine::makeSyntheticDataset(options, &error));
    const QString data = m_fixture.path("seed-data");
    const QString out = m_fixture.path("seed-out");
    for (int which = 1; which <= 3; ++which) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("SPLITSCOPE_MODEL_ROOT", m_fixture.models());
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(SPLITSCOPE_CLI), seedCommand(which, data, out));
        QVERIFY(process.waitForFinished(600000));
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
            qPrintable(QString::number(which) + ": " + QString::fromUtf8(process.readAllStandardError())));
    }
    for (int epoch = 0; epoch < 5; ++epoch) {
        QVERIFY(QFile::exists(out + QString("/Qwen-Image_lora/epoch-%1.safetensors").arg(epoch)));
        QVERIFY(QFile::exists(out + QString("/Qwen-Image-LoRA-splited/epoch-%1.safetensors").arg(epoch)));
    }
    QVERIFY(QFile::exists(out + "/Qwen-Image-LoRA-splited-cache/manifest.json"));
    QString message;
    QCOMPARE(maxAbsDiff(out + "/Qwen-Image_lora/epoch-4.safetensors", out + "/Qwen-Image-LoRA-splited/epoch-4.safetensors", &message), 0.0);
}

void TestTrainingSlow::lossDecreases()
{
    auto p = m_fixture.params("sft", m_fixture.path("loss-out"));
    p.datasetRepeat = 10;
    p.numEpochs = 2; // 16 images x 10 x 2 = 320 steps
    p.loraRank = 8;
    const Run run = runTraining(p);
    QCOMPARE(run.result.status, engine::kTrainOk);
    const auto steps = run.all("step");
    QCOMPARE(steps.size(), 320);
    double first = 0;
    double last = 0;
    for (int i = 0; i < 50; ++i) {
        first += steps.at(i).value("loss").toDouble() / 50;
        last += steps.at(steps.size() - 1 - i).value("loss").toDouble() / 50;
    }
    QVERIFY2(last < 0.85 * first, qPrintable(QString("first 50 steps %1, last 50 steps %2").arg(first).arg(last)));
    QCOMPARE(run.all("epoch").size(), 2);
    QVERIFY(run.all("epoch").last().value("mean_loss").toDouble() < run.all("epoch").first().value("mean_loss").toDouble());
}

void TestTrainingSlow::killAnywhereThenResume_data()
{
    QTest::addColumn<QString>("task");
    QTest::addRow("one-stage") << "sft";
    QTest::addRow("stage two") << "sft:train";
}

// kill -9 at random moments of training (20 kills: half at a random time after the
// launch, half at a random time after the first step), each run resumed from the state
// it left: the weights and loss.csv end bit for bit those of an uninterrupted run, and
// no kill lost more than --checkpoint_interval (plus the step under way and the write).
void TestTrainingSlow::killAnywhereThenResume()
{
    QFETCH(QString, task);
    const QString name = QString(task).remove(':');
    QString dataset = m_fixture.data();
    const QStringList common = {"--model_root", m_fixture.models(), "--model_id_with_origin_paths", kModelSpecs,
        "--lora_base_model", "dit", "--lora_target_modules", kLoraTargets, "--lora_rank", "4", "--num_threads", "1"};
    if (task == "sft:train") {
        dataset = m_fixture.path("kill-cache");
        QString err;
        QVERIFY2(runCli(QStringList{"train", "--task", "sft:data_process", "--dataset_base_path", m_fixture.data(),
                            "--output_path", dataset} + common, nullptr, &err) == 0, qPrintable(err));
    }
    // Long enough that twenty kills land before it ends (16 samples x 40 x 3 epochs: about 12 s
    // of steps on one thread here).
    const QStringList args = QStringList{"train", "--task", task, "--dataset_base_path", dataset, "--num_epochs", "3",
        "--dataset_repeat", "40", "--events", "jsonl"} + common;
    const QString reference = m_fixture.path("kill-reference-" + name);
    QString err;
    QVERIFY2(runCli(args + QStringList{"--output_path", reference, "--checkpoint_interval", "0"}, nullptr, &err) == 0,
        qPrintable(err));

    constexpr double kInterval = 0.2;
    // A state is taken at the end of the first step after the interval, then written.
    constexpr double kSlack = 0.6;
    const QString out = m_fixture.path("kill-run-" + name);
    const QStringList runArgs = args + QStringList{"--output_path", out, "--checkpoint_interval", QString::number(kInterval)};
    QRandomGenerator random(20261203);
    int kills = 0;
    bool finished = false;
    // What the last kill leaves to check, until a run reports where it starts: the
    // last step the state must hold (-1: none), and the last step reported.
    int mustKeep = -1;
    int lastSeen = -1;
    QStringList lost; // per kill during the steps: the steps reported before it that were done again
    for (int attempt = 0; attempt < 80 && !finished; ++attempt) {
        QStringList attemptArgs = runArgs;
        const bool resuming = QFile::exists(out + "/resume.safetensors");
        if (resuming)
            attemptArgs << "--resume";
        QProcess process;
        process.start(QStringLiteral(SPLITSCOPE_CLI), attemptArgs);
        QVERIFY(process.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        const bool afterFirstStep = kills % 2 == 1;
        const qint64 delayMs = afterFirstStep ? random.bounded(600) : 200 + random.bounded(1300);
        std::optional<qint64> firstStepAt;
        QList<QPair<int, qint64>> steps; // step, when its event was read
        int resumedAt = 0;
        bool started = false; // it said where it starts: its resume event, or (a new run) its first step
        QByteArray pending;
        std::optional<qint64> killedAt;
        while (process.state() != QProcess::NotRunning) {
            process.waitForReadyRead(5);
            pending += process.readAllStandardOutput();
            for (int end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
                const QJsonObject e = QJsonDocument::fromJson(pending.left(end)).object();
                pending.remove(0, end + 1);
                if (e.value("event").toString() == "step") {
                    steps.append({e.value("step").toInt(), clock.elapsed()});
                    if (!firstStepAt)
                        firstStepAt = clock.elapsed();
                    started = true;
                }
                if (e.value("event").toString() == "checkpoint" && e.value("kind").toString() == "resume"
                    && !e.contains("write_s") && steps.isEmpty()) {
                    resumedAt = e.value("step").toInt();
                    started = true;
                }
            }
            const bool due = afterFirstStep ? firstStepAt && clock.elapsed() >= *firstStepAt + delayMs : clock.elapsed() >= delayMs;
            if (due && kills < 20) {
                ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
                killedAt = clock.elapsed();
                break;
            }
        }
        process.waitForFinished(60000);
        if (started) {
            QVERIFY2(resuming || mustKeep < 0, qPrintable(QString("kill %1: no state, but step %2 was done").arg(kills).arg(mustKeep)));
            QVERIFY2(resumedAt >= mustKeep, qPrintable(QString("kill %1: resumed after step %2, but step %3 was done %4 s "
                                                              "before the kill")
                                                              .arg(kills)
                                                              .arg(resumedAt)
                                                              .arg(mustKeep)
                                                              .arg(kInterval + kSlack)));
            if (lastSeen >= 0)
                lost << QString::number(lastSeen - resumedAt);
            mustKeep = resuming ? resumedAt : -1; // a new run has no state until it writes one
            lastSeen = -1;
        }
        if (!killedAt) {
            QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
                qPrintable(QString::fromUtf8(process.readAllStandardError())));
            finished = true;
            break;
        }
        ++kills;
        // Killed after the run had finished its work (its state removed, its last
        // checkpoint written): there is nothing to resume.
        if (!QFile::exists(out + "/resume.safetensors") && QFile::exists(out + "/epoch-2.safetensors")) {
            finished = true;
            break;
        }
        if (!steps.isEmpty())
            lastSeen = steps.last().first;
        for (const auto &[step, at] : steps) {
            if (at <= *killedAt - qint64((kInterval + kSlack) * 1000))
                mustKeep = std::max(mustKeep, step);
        }
    }
    QVERIFY(finished);
    qInfo("%d kills, %lld of them during the steps; the steps reported before each of those and done again: %s", kills,
        static_cast<long long>(lost.size()), qPrintable(lost.join(' ')));
    QVERIFY2(kills >= 19, qPrintable(QString::number(kills)));
    QString message;
    QCOMPARE(maxAbsDiff(reference + "/epoch-2.safetensors", out + "/epoch-2.safetensors", &message), 0.0);
    QCOMPARE(readFileBytes(out + "/loss.csv"), readFileBytes(reference + "/loss.csv"));
    QVERIFY(!QFile::exists(out + "/resume.safetensors"));
}

QTEST_GUILESS_MAIN(TestTrainingSlow)
#include "tst_trainingslow.moc"
