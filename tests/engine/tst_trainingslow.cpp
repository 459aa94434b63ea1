// SPDX-License-Identifier: MIT
// The long engine tests (label slow): the seed document's three commands, run as
// written with only the program and the paths changed, and the loss going down
// over a few hundred steps.
#include "EngineTestSupport.h"

#include "core/engine/SyntheticDataset.h"

#include <QFile>
#include <QProcess>
#include <QTest>

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

QTEST_GUILESS_MAIN(TestTrainingSlow)
#include "tst_trainingslow.moc"
