// SPDX-License-Identifier: MIT
#include "PlanDialog.h"

#include "core/AtomicFile.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace splitscope {

namespace {

// A line edit with a Browse… button that fills it.
QWidget *withBrowse(QLineEdit *edit, QWidget *parent, bool folder, const QString &title)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *browse = new QPushButton(PlanDialog::tr("Browse…"), row);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, row, [edit, parent, folder, title] {
        const QString path = folder ? QFileDialog::getExistingDirectory(parent, title, edit->text())
                                    : QFileDialog::getOpenFileName(parent, title, QFileInfo(edit->text()).path(),
                                          PlanDialog::tr("Shell scripts (*.sh);;All files (*)"));
        if (!path.isEmpty())
            edit->setText(path);
    });
    return row;
}

} // namespace

PlanDialog::PlanDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Plan DiffSynth training"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("A one-stage DiffSynth-Studio training command becomes the two commands of split "
                                "training: stage one computes and caches what does not depend on the trained weights, "
                                "stage two trains from the cache. Nothing runs until you choose Run ▸ Run plan."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_fromFile = new QRadioButton(tr("From a script:"), this);
    m_pasted = new QRadioButton(tr("The command, pasted:"), this);
    m_fromFile->setChecked(true);
    m_script = new QLineEdit(this);
    m_script->setPlaceholderText(tr("examples/qwen_image/model_training/lora/Qwen-Image.sh"));
    m_command = new QPlainTextEdit(this);
    m_command->setPlaceholderText(tr("accelerate launch examples/qwen_image/model_training/train.py \\\n  --dataset_base_path ..."));
    m_command->setMinimumHeight(m_command->fontMetrics().lineSpacing() * 5);
    layout->addWidget(m_fromFile);
    layout->addWidget(withBrowse(m_script, this, false, tr("One-stage training script")));
    layout->addWidget(m_pasted);
    layout->addWidget(m_command);
    connect(m_fromFile, &QRadioButton::toggled, this, &PlanDialog::updateFields);

    auto *form = new QFormLayout;
    m_checkout = new QLineEdit(this);
    m_checkout->setPlaceholderText(tr("the folder holding diffsynth/pipelines/"));
    m_workdir = new QLineEdit(this);
    m_workdir->setPlaceholderText(tr("default: the checkout"));
    m_cache = new QLineEdit(this);
    m_cache->setPlaceholderText(tr("default: the command's --output_path + -cache"));
    m_output = new QLineEdit(this);
    m_output->setPlaceholderText(tr("default: the command's --output_path"));
    m_models = new QLineEdit(this);
    m_models->setPlaceholderText(tr("default: $DIFFSYNTH_MODEL_BASE_PATH, else ./models"));
    m_line = new QSpinBox(this);
    m_line->setObjectName(QStringLiteral("commandLine"));
    m_line->setRange(0, 1000000);
    m_line->setSpecialValueText(tr("the only train.py command"));
    m_line->setToolTip(tr("For a script with several train.py commands (Wan2.2 trains two DiTs): the line the one to "
                          "plan starts on"));
    m_mappings = new QLineEdit(this);
    m_mappings->setObjectName(QStringLiteral("modelMappings"));
    m_mappings->setPlaceholderText(tr("ENTRY=ATTR, space-separated; for entries the plan cannot map"));
    m_mappings->setToolTip(tr("As splitscope-cli plan --model: the pipeline model(s) a model entry holds, "
                              "for example Org/Model:file*.safetensors=dit (one file can hold several: =dit,vae)"));
    m_prune = new QCheckBox(tr("Remove unneeded models from the model list instead of --offload_models"), this);
    form->addRow(tr("DiffSynth-Studio checkout:"), withBrowse(m_checkout, this, true, tr("DiffSynth-Studio checkout")));
    form->addRow(tr("Runs in:"), withBrowse(m_workdir, this, true, tr("Where the commands run")));
    form->addRow(tr("Cache (stage one's output):"), m_cache);
    form->addRow(tr("Stage two's output:"), m_output);
    form->addRow(tr("Model files:"), withBrowse(m_models, this, true, tr("Model base folder")));
    form->addRow(tr("Command on line:"), m_line);
    form->addRow(tr("Model mappings:"), m_mappings);
    form->addRow(QString(), m_prune);
    layout->addLayout(form);
    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c2255c"));
    m_problem->hide();
    layout->addWidget(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Plan"));
    connect(buttons, &QDialogButtonBox::accepted, this, &PlanDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    updateFields();
    resize(640, sizeHint().height());
}

void PlanDialog::updateFields()
{
    m_script->setEnabled(m_fromFile->isChecked());
    m_command->setEnabled(m_pasted->isChecked());
}

void PlanDialog::setScriptPath(const QString &path)
{
    m_script->setText(path);
    m_fromFile->setChecked(true);
}

void PlanDialog::setCheckout(const QString &path)
{
    m_checkout->setText(path);
}

void PlanDialog::setCommand(const QString &text)
{
    m_command->setPlainText(text);
    m_pasted->setChecked(true);
}

QString PlanDialog::scriptPath() const
{
    return m_fromFile->isChecked() ? m_script->text().trimmed() : QString();
}

QString PlanDialog::checkout() const
{
    return m_checkout->text().trimmed();
}

bool PlanDialog::makeInput(plan::PlanInput &input) const
{
    input = plan::PlanInput();
    if (m_fromFile->isChecked()) {
        const QString path = scriptPath();
        std::string error;
        if (path.isEmpty() || !readWholeFile(path.toStdString(), input.script, &error)) {
            m_why = path.isEmpty() ? tr("Choose the one-stage script.")
                                   : tr("%1: %2").arg(path, QString::fromStdString(error));
            return false;
        }
        input.scriptName = path.toStdString();
    } else {
        input.script = m_command->toPlainText().toStdString();
        input.scriptName = tr("the pasted command").toStdString();
        if (m_command->toPlainText().trimmed().isEmpty()) {
            m_why = tr("Paste the one-stage command.");
            return false;
        }
    }
    if (checkout().isEmpty()) {
        m_why = tr("Choose the DiffSynth-Studio checkout the command runs in.");
        return false;
    }
    input.checkout = checkout().toStdString();
    input.workdir = (m_workdir->text().trimmed().isEmpty() ? checkout() : m_workdir->text().trimmed()).toStdString();
    input.cachePath = m_cache->text().trimmed().toStdString();
    input.outputPath = m_output->text().trimmed().toStdString();
    input.modelBase = m_models->text().trimmed().toStdString();
    for (const QString &value : m_mappings->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        std::pair<std::string, std::vector<std::string>> mapping;
        std::string error;
        if (!plan::parseModelMapping(value.toStdString(), mapping, error)) {
            m_why = tr("Model mappings: %1").arg(QString::fromStdString(error));
            return false;
        }
        input.models.push_back(std::move(mapping));
    }
    input.line = m_line->value();
    input.prune = m_prune->isChecked();
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &key : environment.keys())
        input.environment.emplace(key.toStdString(), environment.value(key).toStdString());
    return true;
}

void PlanDialog::accept()
{
    plan::PlanInput input;
    if (!makeInput(input)) {
        m_problem->setText(m_why);
        m_problem->show();
        return;
    }
    QDialog::accept();
}

} // namespace splitscope
