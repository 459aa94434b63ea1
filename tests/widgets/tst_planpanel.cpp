// SPDX-License-Identifier: MIT
// The app's plan for a one-stage DiffSynth command: planned off the GUI thread against
// the miniature checkout, the pipeline shown with the command's training, the Plan
// panel's models and commands, Copy and Save as .sh, a change of the training choice
// planning again, and Run plan with a launcher of our own (tqdm progress, memory of the
// process tree, Cancel by SIGINT to the process group, both stages to the end).
#include "../plan/PlanTestSupport.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/plan/PlanController.h"
#include "widgets/plan/PlanDialog.h"
#include "widgets/plan/PlanModelsModel.h"
#include "widgets/plan/PlanPanel.h"
#include "widgets/plan/PlanRunner.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace splitscope;

namespace {

const QString kLauncher = QStringLiteral(SPLITSCOPE_PLAN_FIXTURES "/fake_launcher.py");

plan::PlanInput input(const QString &workdir, int steps)
{
    plan::PlanInput in;
    in.scriptName = "train.sh";
    in.script = QStringLiteral("/usr/bin/python3 %1 examples/tiny_image/model_training/train.py \\\n"
                               "  --dataset_base_path data/tiny --dataset_metadata_path data/tiny/metadata.csv \\\n"
                               "  --model_id_with_origin_paths \"Tiny/Tiny-Image:transformer/diffusion_pytorch_model*.safetensors,"
                               "Tiny/Tiny-Image:text_encoder/model.safetensors,Tiny/Tiny-Image:vae/diffusion_pytorch_model.safetensors\" \\\n"
                               "  --lora_base_model dit --output_path out --fake_steps %2 --fake_delay 0.05\n")
                    .arg(kLauncher)
                    .arg(steps)
                    .toStdString();
    in.checkout = SPLITSCOPE_PLAN_CHECKOUT;
    in.workdir = workdir.toStdString();
    return in;
}

} // namespace

class TestPlanPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void planShowsAndFollowsTheTraining();
    void runAndCancel();
    void runToTheEnd();
    void progressLines_data();
    void progressLines();
    void dialogModelMappings();

private:
    QTemporaryDir m_work;
};

void TestPlanPanel::initTestCase()
{
    QVERIFY(m_work.isValid());
    plan::testing::writeTinyModels(m_work.path().toStdString());
}

void TestPlanPanel::planShowsAndFollowsTheTraining()
{
    SplitDocument document;
    PlanController controller(&document);
    PlanPanel panel(&controller);
    QAbstractItemModelTester tester(panel.modelsTable()->model());
    QSignalSpy planned(&controller, &PlanController::planChanged);
    controller.plan(input(m_work.path(), 4));
    QVERIFY(controller.isPlanning());
    QVERIFY(planned.wait(20000));
    // The document shows what was planned against, with the command's training.
    QVERIFY(document.hasPipeline());
    QCOMPARE(document.pipeline().name, std::string("tiny_image"));
    QCOMPARE(document.training().loraBase, std::optional<std::string>("dit"));
    QVERIFY(panel.headerText().startsWith("tiny_image from train.sh:1"));
    QCOMPARE(panel.modelsTable()->model()->rowCount(), 3);
    // One model id for all entries: it goes to the header, the cells show the paths.
    QCOMPARE(panel.modelsTable()->model()->headerData(PlanModelsModel::EntryColumn, Qt::Horizontal).toString(),
        QString("Entry in Tiny/Tiny-Image"));
    QCOMPARE(panel.modelsTable()->model()->index(0, PlanModelsModel::EntryColumn).data().toString(),
        QString("transformer/diffusion_pytorch_model*.safetensors"));
    QVERIFY(panel.modelsTable()->model()->index(0, PlanModelsModel::EntryColumn).data(Qt::ToolTipRole).toString()
                .startsWith("Tiny/Tiny-Image:transformer/"));
    QCOMPARE(panel.modelsTable()->model()->index(0, PlanModelsModel::ModelColumn).data().toString(), QString("dit"));
    QCOMPARE(panel.modelsTable()->model()->index(0, PlanModelsModel::StageOneColumn).data().toString(), QString("offloads"));
    QCOMPARE(panel.modelsTable()->model()->index(0, PlanModelsModel::StageTwoColumn).data().toString(), QString("loads"));
    QVERIFY(panel.commandText(0).contains("--task \"sft:data_process\""));
    QVERIFY(panel.commandText(1).contains("--task \"sft:train\""));
    // Copy and Save as .sh.
    panel.copyCommand(1);
    QCOMPARE(QGuiApplication::clipboard()->text(), panel.commandText(1));
    const QString script = m_work.filePath("split.sh");
    QVERIFY(panel.saveShell(script));
    QFile saved(script);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(saved.readAll());
    QVERIFY(text.startsWith("#!/bin/sh\n# Two-stage split training planned by Splitscope from train.sh:1"));
    QVERIFY(text.contains(panel.commandText(0)) && text.contains(panel.commandText(1)));
    QVERIFY(QFileInfo(script).isExecutable());
    // A change of the training choice plans again: the commands train the text encoder too.
    document.setModelTrainable("text_encoder", true);
    QVERIFY(planned.wait(20000));
    QVERIFY(panel.commandText(0).contains("--trainable_models text_encoder"));
    QVERIFY(panel.commandText(1).contains("--lora_base_model dit"));
    QCOMPARE(panel.modelsTable()->model()->index(1, PlanModelsModel::StageTwoColumn).data().toString(), QString("loads"));
    QCOMPARE(document.pipeline().name, std::string("tiny_image")); // the pipeline stays
}

void TestPlanPanel::runAndCancel()
{
    SplitDocument document;
    PlanController controller(&document);
    PlanPanel panel(&controller);
    QSignalSpy planned(&controller, &PlanController::planChanged);
    controller.plan(input(m_work.path(), 400));
    QVERIFY(planned.wait(20000));
    QString asked;
    panel.setConfirmation([&asked](const QString &commands) {
        asked = commands;
        return true;
    });
    PlanRunner *runner = controller.runner();
    QSignalSpy progress(runner, &PlanRunner::progress);
    QSignalSpy memory(runner, &PlanRunner::memory);
    QSignalSpy finished(runner, &PlanRunner::finished);
    QVERIFY(panel.runPlan());
    // The user saw both commands exactly before anything ran.
    QVERIFY(asked.contains(panel.commandText(0)) && asked.contains(panel.commandText(1)));
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 3 && memory.count() >= 2, 20000);
    QCOMPARE(progress.last().at(0).toInt(), 0); // stage one
    QCOMPARE(progress.last().at(2).toLongLong(), 400);
    QVERIFY(panel.progressMaximum() == 400 && panel.progressValue() > 0);
    QVERIFY(memory.last().at(2).toLongLong() > 40 * 1024 * 1024); // the launcher holds 48 MiB
    QVERIFY(panel.memoryPoints() >= 2);
    QVERIFY(panel.statusText().startsWith("Stage one: "));
    runner->cancel();
    QVERIFY(finished.wait(15000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    QCOMPARE(finished.last().at(1).toBool(), true);
    QVERIFY(!runner->isRunning());
    QCOMPARE(runner->stage(), 0); // stage two never started
    QVERIFY(panel.logText().contains("fake launcher: interrupted"));
    QCOMPARE(panel.statusText(), QString("Cancelled: the command was stopped."));
}

void TestPlanPanel::runToTheEnd()
{
    SplitDocument document;
    PlanController controller(&document);
    PlanPanel panel(&controller);
    QSignalSpy planned(&controller, &PlanController::planChanged);
    controller.plan(input(m_work.path(), 5));
    QVERIFY(planned.wait(20000));
    panel.setConfirmation([](const QString &) { return true; });
    QSignalSpy started(controller.runner(), &PlanRunner::stageStarted);
    QSignalSpy finished(controller.runner(), &PlanRunner::finished);
    QVERIFY(panel.runPlan());
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QCOMPARE(started.count(), 2);
    QVERIFY(started.at(1).at(1).toString().contains("--task \"sft:train\""));
    const QString log = panel.logText();
    QVERIFY(log.contains("[Stage one finished]") && log.contains("[Stage two finished]"));
    QVERIFY(log.indexOf("sft:data_process") < log.indexOf("sft:train"));
    QCOMPARE(panel.statusText(), QString("Both stages finished."));
    // Declined: nothing runs.
    panel.setConfirmation([](const QString &) { return false; });
    QVERIFY(!panel.runPlan());
    QVERIFY(!controller.runner()->isRunning());
}

void TestPlanPanel::progressLines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<qint64>("done");
    QTest::addColumn<qint64>("total");
    QTest::addRow("tqdm") << "sft:train:  42%|████▏     | 42/100 [00:01<00:02, 20.00it/s]" << qint64(42) << qint64(100);
    QTest::addRow("ascii bar") << " 7%|7         | 7/100 [00:00<?, ?it/s]" << qint64(7) << qint64(100);
    QTest::addRow("not progress") << "Loading models from: 42/100" << qint64(-1) << qint64(-1);
}

void TestPlanPanel::progressLines()
{
    QFETCH(QString, line);
    QFETCH(qint64, done);
    QFETCH(qint64, total);
    qint64 d = -1, t = -1;
    const bool parsed = PlanRunner::parseProgress(line, d, t);
    QCOMPARE(parsed, done >= 0);
    if (parsed) {
        QCOMPARE(d, done);
        QCOMPARE(t, total);
    }
}

// The dialog's model mappings are the command line's --model values, space-separated;
// a malformed one is refused with what is wrong, and the dialog stays open.
void TestPlanPanel::dialogModelMappings()
{
    PlanDialog dialog;
    dialog.setCommand(QStringLiteral("accelerate launch examples/x/train.py --output_path out"));
    dialog.setCheckout(QStringLiteral(SPLITSCOPE_PLAN_CHECKOUT));
    auto *mappings = dialog.findChild<QLineEdit *>(QStringLiteral("modelMappings"));
    QVERIFY(mappings);
    mappings->setText(QStringLiteral("  Org/M:all.safetensors=dit,vae   Org/M:te/*.safetensors=text_encoder "));
    plan::PlanInput in;
    QVERIFY(dialog.makeInput(in));
    QCOMPARE(in.models.size(), std::size_t(2));
    QCOMPARE(in.models[0].first, std::string("Org/M:all.safetensors"));
    QCOMPARE(in.models[0].second, (std::vector<std::string>{"dit", "vae"}));
    QCOMPARE(in.models[1].second, std::vector<std::string>{"text_encoder"});
    QCOMPARE(in.line, 0); // the only train.py command
    auto *line = dialog.findChild<QSpinBox *>(QStringLiteral("commandLine"));
    QVERIFY(line);
    line->setValue(23);
    QVERIFY(dialog.makeInput(in));
    QCOMPARE(in.line, 23);
    mappings->setText(QStringLiteral("Org/M:all.safetensors=dit Org/M:vae.safetensors"));
    QVERIFY(!dialog.makeInput(in));
    QVERIFY2(dialog.why().contains(QStringLiteral("Model mappings: 'Org/M:vae.safetensors': write ENTRY=ATTRIBUTE")), qPrintable(dialog.why()));
    mappings->setText(QStringLiteral("Org/M:all.safetensors=dit,,vae"));
    QVERIFY(!dialog.makeInput(in));
    QVERIFY2(dialog.why().contains(QStringLiteral("an empty attribute name")), qPrintable(dialog.why()));
}

QTEST_MAIN(TestPlanPanel)
#include "tst_planpanel.moc"
