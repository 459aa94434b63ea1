// SPDX-License-Identifier: MIT
#include "RunPanel.h"

#include "CliTask.h"
#include "RunController.h"
#include "RunFormat.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace splitscope {

namespace {

constexpr int kValidationDelayMs = 150;  // fields are checked on disk once typing pauses
constexpr int kDefaultEpochs = 2;
constexpr int kDefaultDatasetImages = 32; // "Generate…": enough for a few seconds of training
constexpr int kDefaultImageSize = 64;

const char *const kErrorStyle = "color:#c2255c";
const char *const kInfoStyle = "color:#6c757d";

QString fieldText(const QLineEdit *edit)
{
    return edit->text().trimmed();
}

// Image rows of DIR/metadata.csv (its lines but the header), -1 when unreadable.
int datasetRows(const QString &path)
{
    QFile file(QDir(path).filePath(QStringLiteral("metadata.csv")));
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
        return -1;
    int lines = 0;
    while (!file.atEnd()) {
        if (!file.readLine().trimmed().isEmpty())
            ++lines;
    }
    return std::max(0, lines - 1);
}

} // namespace

RunPanel::RunPanel(SplitDocument *document, RunController *controller, QWidget *parent)
    : QWidget(parent), m_document(document), m_controller(controller), m_tools(new CliTask(this)),
      m_banner(new QLabel(this)), m_training(new QLabel(this)), m_form(new QWidget(this)),
      m_dataset(new QLineEdit(this)), m_models(new QLineEdit(this)), m_cache(new QLineEdit(this)),
      m_output(new QLineEdit(this)), m_generate(new QPushButton(tr("Generate…"), this)),
      m_create(new QPushButton(tr("Create…"), this)), m_epochs(new QSpinBox(this)), m_repeat(new QSpinBox(this)),
      m_learningRate(new QLineEdit(this)), m_rank(new QSpinBox(this)), m_targets(new QLineEdit(this)),
      m_seed(new QSpinBox(this)), m_threads(new QSpinBox(this)), m_shardSize(new QSpinBox(this)),
      m_allowHazards(new QCheckBox(tr("Allow hazards (two-stage training then differs from one-stage)"), this)),
      m_commandStage(new QComboBox(this)), m_command(new QPlainTextEdit(this)), m_status(new QLabel(this)),
      m_validation(new QTimer(this))
{
    m_tools->setProgram(controller->workerProgram());
    m_validation->setSingleShot(true);
    m_validation->setInterval(kValidationDelayMs);
    connect(m_validation, &QTimer::timeout, this, &RunPanel::validate);

    // --- actions (the window's Run menu shows the same ones) ---
    struct LaunchSpec {
        RunKind kind;
        const char *text;
        const char *icon;
        QKeySequence key;
        const char *tip;
    };
    const LaunchSpec specs[] = {
        {RunKind::StageOne, QT_TR_NOOP("Stage &one"), "", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_1),
            QT_TR_NOOP("Run stage one: the cached units over the dataset, into the cache folder")},
        {RunKind::StageTwo, QT_TR_NOOP("Stage &two"), "", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_2),
            QT_TR_NOOP("Run stage two: train from the cache")},
        {RunKind::Both, QT_TR_NOOP("&Both stages"), ":/splitscope/icons/run.svg", QKeySequence(Qt::CTRL | Qt::Key_R),
            QT_TR_NOOP("Run stage one, then stage two")},
        {RunKind::Baseline, QT_TR_NOOP("One-stage &baseline"), "", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
            QT_TR_NOOP("Train without a split, every unit every step: what split training is compared with")},
    };
    for (const LaunchSpec &s : specs) {
        QAction *a = makeAction(this, QString::fromLatin1(s.icon), tr(s.text), {s.key});
        a->setStatusTip(tr(s.tip));
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tr(s.tip), s.key.toString(QKeySequence::NativeText)));
        const RunKind kind = s.kind;
        connect(a, &QAction::triggered, this, [this, kind]() { launch(kind); });
        m_launch.insert(static_cast<int>(kind), a);
    }
    m_cancel = makeAction(this, QStringLiteral(":/splitscope/icons/stop.svg"), tr("&Cancel run"),
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X)});
    m_cancel->setStatusTip(tr("Stop the worker after the sample or step at hand, keeping its work; again: at once"));
    connect(m_cancel, &QAction::triggered, this, &RunPanel::cancel);
    m_resume = makeAction(this, QString(), tr("Res&ume"));
    m_resume->setStatusTip(tr("Continue the cancelled launch: stage one from its finished shards, training from its checkpoint"));
    connect(m_resume, &QAction::triggered, this, &RunPanel::resume);

    // --- layout ---
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setFrameShape(QFrame::StyledPanel);
    m_banner->setMargin(6);
    m_training->setWordWrap(true);
    m_training->setTextFormat(Qt::RichText);

    auto *paths = new QGroupBox(tr("Data and folders"), m_form);
    auto *pathForm = new QFormLayout(paths);
    pathForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow dock a field goes under its label rather than out of view.
    pathForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_dataset->setToolTip(tr("--dataset_base_path: a folder with metadata.csv (image,prompt) and the images"));
    m_models->setToolTip(tr("--model_root: holds Qwen/Qwen-Image/{transformer,text_encoder,vae,tokenizer}"));
    m_cache->setToolTip(tr("Stage one's --output_path and stage two's --dataset_base_path"));
    m_output->setToolTip(tr("Checkpoints, loss.csv and training_args.json: stage two in OUTPUT/two-stage, the "
                            "baseline in OUTPUT/one-stage"));
    m_generate->setToolTip(tr("Write a captioned synthetic image set here (splitscope-cli make-dataset)"));
    m_create->setToolTip(tr("Write the tiny Qwen-Image models here (splitscope-cli init-models)"));
    pathForm->addRow(tr("&Dataset:"), pathRow(m_dataset, tr("Dataset folder"), m_generate));
    pathForm->addRow(QString(), messageLabel(RunField::Dataset));
    pathForm->addRow(tr("&Models:"), pathRow(m_models, tr("Models folder"), m_create));
    pathForm->addRow(QString(), messageLabel(RunField::ModelsRoot));
    pathForm->addRow(tr("&Cache:"), pathRow(m_cache, tr("Stage-one cache folder"), nullptr));
    pathForm->addRow(QString(), messageLabel(RunField::Cache));
    pathForm->addRow(tr("&Output:"), pathRow(m_output, tr("Output folder"), nullptr));
    pathForm->addRow(QString(), messageLabel(RunField::Output));

    auto *numbers = new QGroupBox(tr("Training"), m_form);
    auto *numberForm = new QFormLayout(numbers);
    numberForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    numberForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_epochs->setRange(1, 100000);
    m_epochs->setToolTip(QStringLiteral("--num_epochs"));
    m_repeat->setRange(1, 1000000);
    m_repeat->setToolTip(tr("--dataset_repeat: passes over the dataset per epoch (training stages; stage one caches "
                            "each sample once)"));
    m_learningRate->setToolTip(tr("--learning_rate (AdamW), e.g. 1e-4"));
    m_rank->setRange(1, 4096);
    m_rank->setToolTip(QStringLiteral("--lora_rank"));
    m_targets->setToolTip(tr("--lora_target_modules: module names (suffixes) that get LoRA, comma-separated"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setToolTip(tr("--seed: every random draw derives from it; equal seeds give equal weights"));
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores"));
    m_threads->setToolTip(tr("--num_threads: LibTorch threads (equal counts give equal bits)"));
    m_shardSize->setRange(1, 1000000);
    m_shardSize->setToolTip(tr("--cache_shard_size: samples per cache shard; a cancelled stage one keeps finished shards"));
    auto *pair = [this](QWidget *a, const QString &label, QWidget *b) {
        auto *row = new QWidget(this);
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(a, 1);
        h->addWidget(new QLabel(label, row));
        h->addWidget(b, 1);
        return row;
    }(m_epochs, tr("repeat"), m_repeat);
    numberForm->addRow(tr("&Epochs:"), pair);
    numberForm->addRow(tr("&Learning rate:"), m_learningRate);
    numberForm->addRow(tr("LoRA &rank:"), m_rank);
    numberForm->addRow(tr("LoRA &targets:"), m_targets);
    numberForm->addRow(QString(), messageLabel(RunField::LoraTargets));
    numberForm->addRow(tr("&Seed:"), m_seed);
    numberForm->addRow(tr("T&hreads:"), m_threads);
    numberForm->addRow(tr("Shard si&ze:"), m_shardSize);

    auto *buttons = new QGridLayout;
    const RunKind order[] = {RunKind::StageOne, RunKind::StageTwo, RunKind::Both, RunKind::Baseline};
    for (int i = 0; i < 4; ++i) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(m_launch.value(static_cast<int>(order[i])));
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        buttons->addWidget(b, i / 2, i % 2);
    }
    for (int i = 0; i < 2; ++i) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(i == 0 ? m_cancel : m_resume);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        buttons->addWidget(b, 2, i);
    }

    for (RunStage s : {RunStage::StageOne, RunStage::StageTwo, RunStage::OneStage})
        m_commandStage->addItem(runStageTitle(s), static_cast<int>(s));
    m_command->setReadOnly(true);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setFixedHeight(m_command->fontMetrics().lineSpacing() * 6 + 10);
    m_command->setToolTip(tr("The equivalent command line (the GUI adds --events jsonl to read its progress)"));
    auto *copy = new QPushButton(tr("Cop&y"), this);
    copy->setToolTip(tr("Copy the command to the clipboard"));
    connect(copy, &QPushButton::clicked, this, &RunPanel::copyCommand);
    m_commandStage->setToolTip(tr("Which stage's command to show"));
    m_commandStage->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_commandStage->setMinimumContentsLength(8);
    auto *commandHeader = new QHBoxLayout;
    commandHeader->addWidget(new QLabel(tr("<b>Command</b>"), this));
    commandHeader->addWidget(m_commandStage, 1);
    commandHeader->addWidget(copy);

    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *formLayout = new QVBoxLayout(m_form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(m_training);
    formLayout->addWidget(messageLabel(RunField::Training));
    formLayout->addWidget(messageLabel(RunField::Hazards));
    formLayout->addWidget(m_allowHazards);
    formLayout->addWidget(paths);
    formLayout->addWidget(numbers);
    formLayout->addLayout(buttons);
    formLayout->addLayout(commandHeader);
    formLayout->addWidget(m_command);
    formLayout->addWidget(m_status);
    formLayout->addStretch(1);

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->addWidget(m_banner);
    contentLayout->addWidget(m_form, 1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    // --- wiring ---
    for (QLineEdit *edit : {m_dataset, m_models, m_cache, m_output, m_learningRate, m_targets})
        connect(edit, &QLineEdit::textChanged, this, &RunPanel::scheduleValidation);
    for (QSpinBox *spin : {m_epochs, m_repeat, m_rank, m_seed, m_threads, m_shardSize})
        connect(spin, &QSpinBox::valueChanged, this, &RunPanel::scheduleValidation);
    connect(m_allowHazards, &QCheckBox::toggled, this, &RunPanel::scheduleValidation);
    connect(m_commandStage, &QComboBox::currentIndexChanged, this, &RunPanel::updateCommand);
    connect(m_generate, &QPushButton::clicked, this, &RunPanel::askGenerateDataset);
    connect(m_create, &QPushButton::clicked, this, &RunPanel::askCreateModels);
    connect(document, &SplitDocument::pipelineReset, this, &RunPanel::pipelineChanged);
    connect(document, &SplitDocument::trainingChanged, this, &RunPanel::scheduleValidation);
    // A new split is not typing: the summary and the checks follow it at once.
    connect(document, &SplitDocument::analysisChanged, this, &RunPanel::validate);
    connect(controller, &RunController::stateChanged, this, [this]() {
        updateActions();
        updateStatus();
    });
    connect(controller, &RunController::stageFinished, this, &RunPanel::scheduleValidation);
    connect(controller, &RunController::stageStarted, this, [this](RunStage stage) {
        m_commandStage->setCurrentIndex(m_commandStage->findData(static_cast<int>(stage)));
        updateCommand();
    });
    connect(controller, &RunController::launchFinished, this, [this]() {
        updateStatus();
        scheduleValidation(); // the cache changed
    });
    connect(m_tools, &CliTask::finished, this, [this](bool ok, const QString &message) {
        const QString what = m_tools->title();
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>")
                              .arg(QLatin1String(ok ? kInfoStyle : kErrorStyle),
                                  breakableText((ok ? tr("%1: done. %2") : tr("%1 failed: %2")).arg(what, message))
                                      .toHtmlEscaped()));
        m_generate->setEnabled(true);
        m_create->setEnabled(true);
        updateActions();
        validate();
        Q_EMIT toolFinished(ok, message);
    });

    setSettings(defaultSettings());
    pipelineChanged();
}

RunPanel::~RunPanel() = default;

QWidget *RunPanel::pathRow(QLineEdit *edit, const QString &dialogTitle, QPushButton *extra)
{
    auto *row = new QWidget(this);
    auto *h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(4);
    h->addWidget(edit, 1);
    auto *browse = new QToolButton(row);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose a folder"));
    connect(browse, &QToolButton::clicked, this, [this, edit, dialogTitle]() {
        const QString dir = QFileDialog::getExistingDirectory(this, dialogTitle, fieldText(edit));
        if (!dir.isEmpty())
            edit->setText(QDir::toNativeSeparators(dir));
    });
    h->addWidget(browse);
    if (extra)
        h->addWidget(extra);
    return row;
}

QLabel *RunPanel::messageLabel(RunField field)
{
    auto *label = new QLabel(this);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    m_messages.insert(static_cast<int>(field), label);
    return label;
}

RunSettings RunPanel::defaultSettings()
{
    const QDir base(QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
                        .filePath(executablePipelines().front().name));
    RunSettings s;
    s.datasetPath = QDir::toNativeSeparators(base.filePath(QStringLiteral("dataset")));
    s.modelsRoot = QDir::toNativeSeparators(base.filePath(QStringLiteral("models")));
    s.cachePath = QDir::toNativeSeparators(base.filePath(QStringLiteral("cache")));
    s.outputPath = QDir::toNativeSeparators(base.filePath(QStringLiteral("output")));
    s.epochs = kDefaultEpochs;
    s.loraTargets = executablePipelines().front().loraTargets;
    return s;
}

RunSettings RunPanel::settings() const
{
    RunSettings s;
    s.datasetPath = fieldText(m_dataset);
    s.modelsRoot = fieldText(m_models);
    s.cachePath = fieldText(m_cache);
    s.outputPath = fieldText(m_output);
    s.epochs = m_epochs->value();
    s.datasetRepeat = m_repeat->value();
    double lr = 0;
    s.learningRate = learningRate(&lr) ? lr : RunSettings().learningRate;
    s.loraRank = m_rank->value();
    s.loraTargets = fieldText(m_targets);
    s.seed = m_seed->value();
    s.threads = m_threads->value();
    s.cacheShardSize = m_shardSize->value();
    s.allowHazards = m_allowHazards->isChecked();
    return s;
}

void RunPanel::setSettings(const RunSettings &s)
{
    m_dataset->setText(s.datasetPath);
    m_models->setText(s.modelsRoot);
    m_cache->setText(s.cachePath);
    m_output->setText(s.outputPath);
    m_epochs->setValue(s.epochs);
    m_repeat->setValue(s.datasetRepeat);
    m_learningRate->setText(QString::number(s.learningRate, 'g', 6));
    m_rank->setValue(s.loraRank);
    m_targets->setText(s.loraTargets);
    m_seed->setValue(static_cast<int>(std::min<qint64>(s.seed, std::numeric_limits<int>::max())));
    m_threads->setValue(s.threads);
    m_shardSize->setValue(s.cacheShardSize);
    m_allowHazards->setChecked(s.allowHazards);
    validate();
}

bool RunPanel::learningRate(double *value) const
{
    bool ok = false;
    const double lr = fieldText(m_learningRate).toDouble(&ok);
    if (!ok || !(lr > 0) || !std::isfinite(lr))
        return false;
    *value = lr;
    return true;
}

RunConfig RunPanel::config() const
{
    RunConfig c;
    if (m_executability.pipeline) {
        c.pipeline = m_executability.pipeline->name;
        c.task = m_executability.task;
    }
    const TrainingChoice &choice = m_document->training();
    for (const std::string &m : choice.trainable)
        c.trainable << QString::fromStdString(m);
    c.loraBase = choice.loraBase ? QString::fromStdString(*choice.loraBase) : QString();
    c.mode = choice.mode;
    // The models each stage runs, from the split shown: the others are offloaded,
    // as DiffSynth's split-training commands do. Stage two also runs the models
    // that need gradients (the loss calls the DiT).
    if (const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr) {
        const PipelineGraph &graph = m_document->graph();
        for (UnitId u = 0; u < graph.unitCount(); ++u) {
            QStringList &models = analysis->split.isTrained(u) ? c.stageTwoModels : c.stageOneModels;
            for (const ModelId m : graph.unitModels(u)) {
                const QString name = QString::fromStdString(graph.modelName(m));
                if (!models.contains(name))
                    models << name;
            }
        }
        for (const std::string &m : choice.modelsRequiringBackward()) {
            if (!c.stageTwoModels.contains(QString::fromStdString(m)))
                c.stageTwoModels << QString::fromStdString(m);
        }
    }
    c.settings = settings();
    c.datasetColumns = readDatasetColumns(c.settings.datasetPath);
    return c;
}

QString RunPanel::fieldMessage(RunField field) const
{
    const QLabel *label = m_messages.value(static_cast<int>(field));
    return label && !label->isHidden() ? label->text().remove(QChar(0x200B)) : QString(); // without breakableText's breaks
}

QAction *RunPanel::launchAction(RunKind kind) const
{
    return m_launch.value(static_cast<int>(kind));
}

void RunPanel::pipelineChanged()
{
    m_executability = m_document->hasPipeline() ? checkExecutable(m_document->pipeline()) : Executability{};
    if (m_executability.pipeline)
        m_pipeline = *m_executability.pipeline;
    if (!m_document->hasPipeline()) {
        m_banner->setText(tr("No pipeline is open."));
    } else if (m_executability.runnable()) {
        m_banner->setText(tr("<b>%1</b> runs here: the engine trains it in a child process "
                             "(<tt>splitscope-cli train</tt>), on %2.")
                              .arg(m_pipeline.name.toHtmlEscaped(), m_executability.task == QLatin1String("sft")
                                      ? tr("the flow-matching loss (sft)")
                                      : tr("the direct distillation loss")));
    } else {
        m_banner->setText(QStringLiteral("<b>%1</b><br>%2")
                              .arg(tr("Inspect only"), m_executability.reason.toHtmlEscaped()));
    }
    m_banner->setStyleSheet(m_executability.runnable() || !m_document->hasPipeline()
            ? QString()
            : QStringLiteral("QLabel { background:#fff4e6; }"));
    m_form->setVisible(m_executability.runnable());
    validate();
}

void RunPanel::scheduleValidation()
{
    m_validation->start();
}

void RunPanel::validate()
{
    m_validation->stop();
    if (!m_executability.runnable()) {
        showIssues({});
        updateActions();
        return;
    }
    const auto analysis = m_document->analysis();
    const int hazards = analysis ? static_cast<int>(analysis->verification.hazards.size()) : 0;
    const RunConfig c = config();
    // The live check is the one of a full launch (both stages); a launch of one
    // stage or of the baseline is checked again when it is asked for.
    QList<RunIssue> issues = validateRun(c, m_pipeline, RunKind::Both, hazards);
    m_allowHazards->setVisible(hazards > 0 || m_allowHazards->isChecked());
    if (analysis) {
        const std::size_t trained = analysis->split.trainedCount();
        m_training->setText(tr("<b>Trains</b> %1<br>Stage one caches %2 unit(s); stage two runs %3 unit(s) and the "
                               "loss. Change it in <i>Training configuration</i>.")
                                .arg(breakableText(c.label()).toHtmlEscaped())
                                .arg(analysis->split.trained.size() - trained)
                                .arg(trained));
    }
    showIssues(issues);
    updateCommand();
    updateActions();
}

void RunPanel::showIssues(const QList<RunIssue> &issues)
{
    m_issues = issues;
    updateInfo();
    QHash<int, QStringList> byField;
    for (const RunIssue &issue : issues)
        byField[static_cast<int>(issue.field)] << issue.message;
    double lr = 0;
    const bool lrOk = learningRate(&lr);
    m_learningRate->setStyleSheet(lrOk ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c2255c; }"));
    m_learningRate->setToolTip(lrOk ? tr("--learning_rate (AdamW), e.g. 1e-4")
                                    : tr("Not a positive number: write it like 1e-4 or 0.0001"));
    for (auto it = m_messages.begin(); it != m_messages.end(); ++it) {
        const QStringList problems = byField.value(it.key());
        const QString info = m_info.value(it.key());
        QLabel *label = it.value();
        if (!problems.isEmpty()) {
            // Paths break anywhere: a long one must not set the panel's minimum width.
            label->setText(breakableText(problems.join(QLatin1Char('\n'))));
            label->setStyleSheet(QLatin1String(kErrorStyle));
            label->show();
        } else if (!info.isEmpty()) {
            label->setText(breakableText(info));
            label->setStyleSheet(QLatin1String(kInfoStyle));
            label->show();
        } else {
            label->clear();
            label->hide();
        }
    }
    // The field of a problem gets a red frame, so that it is found at a glance.
    const std::pair<RunField, QLineEdit *> edits[] = {{RunField::Dataset, m_dataset}, {RunField::ModelsRoot, m_models},
        {RunField::Cache, m_cache}, {RunField::Output, m_output}, {RunField::LoraTargets, m_targets}};
    for (const auto &[field, edit] : edits)
        edit->setStyleSheet(byField.contains(static_cast<int>(field))
                ? QStringLiteral("QLineEdit { border: 1px solid #c2255c; }")
                : QString());
}

void RunPanel::updateInfo()
{
    m_info.clear();
    RunConfig c;
    c.settings = settings();
    const RunSettings &s = c.settings;
    const int rows = datasetRows(s.datasetPath);
    if (rows >= 0)
        m_info.insert(static_cast<int>(RunField::Dataset),
            tr("%n image(s); columns %1", nullptr, rows).arg(readDatasetColumns(s.datasetPath).join(QStringLiteral(", "))));
    if (!s.modelsRoot.isEmpty() && m_executability.runnable()) {
        QStringList names;
        for (const ExecutablePipeline::ModelFile &f : m_pipeline.modelFiles)
            names << f.model;
        m_info.insert(static_cast<int>(RunField::ModelsRoot),
            tr("%1 under %2")
                .arg(names.join(QStringLiteral(", ")),
                    QDir::toNativeSeparators(QDir(s.modelsRoot).filePath(m_pipeline.modelId))));
    }
    m_info.insert(static_cast<int>(RunField::Cache), readCacheStatus(s.cachePath).summary());
    if (!s.outputPath.isEmpty())
        m_info.insert(static_cast<int>(RunField::Output),
            tr("stage two → %1, baseline → %2")
                .arg(QDir::toNativeSeparators(stageOutputPath(c, RunStage::StageTwo)),
                    QDir::toNativeSeparators(stageOutputPath(c, RunStage::OneStage))));
}

void RunPanel::updateActions()
{
    const bool idle = !m_controller->isRunning() && !m_tools->isRunning();
    const bool runnable = m_executability.runnable();
    for (QAction *a : std::as_const(m_launch))
        a->setEnabled(idle && runnable);
    m_cancel->setEnabled(m_controller->isRunning());
    m_cancel->setText(m_controller->state() == RunController::State::Cancelling ? tr("Stop &now") : tr("&Cancel run"));
    const auto session = m_controller->session();
    const bool resumable = session && !session->isRunning()
        && (session->outcome() == StageRun::Outcome::Cancelled || session->outcome() == StageRun::Outcome::Crashed);
    m_resume->setEnabled(idle && runnable && resumable);
    m_generate->setEnabled(!m_tools->isRunning() && !m_controller->isRunning());
    m_create->setEnabled(!m_tools->isRunning() && !m_controller->isRunning());
    m_form->setEnabled(true);
    for (QWidget *w : m_form->findChildren<QLineEdit *>())
        w->setEnabled(!m_controller->isRunning());
    for (QWidget *w : m_form->findChildren<QSpinBox *>())
        w->setEnabled(!m_controller->isRunning());
}

void RunPanel::updateCommand()
{
    RunStage stage = RunStage::StageOne;
    parseRunStage(runStageKey(static_cast<RunStage>(m_commandStage->currentData().toInt())), stage);
    // While (or after) a launch ran this stage, show what it ran; else what it would run.
    const auto session = m_controller->session();
    if (session) {
        for (auto it = session->stages().rbegin(); it != session->stages().rend(); ++it) {
            if (it->stage == stage && (session->isRunning() || !m_executability.runnable())) {
                m_command->setPlainText(it->command);
                return;
            }
        }
    }
    if (!m_executability.runnable()) {
        m_command->clear();
        return;
    }
    m_command->setPlainText(shellCommand(m_controller->workerProgram(), trainArguments(config(), m_pipeline, stage, false)));
}

void RunPanel::updateStatus()
{
    const auto session = m_controller->session();
    if (!session) {
        m_status->clear();
        return;
    }
    if (session->isRunning()) {
        const StageRun *run = session->current();
        m_status->setText(tr("<b>%1</b> running (%2)…")
                              .arg(runKindTitle(session->kind()).toHtmlEscaped(),
                                  run ? runStageTitle(run->stage).toLower().toHtmlEscaped() : QString()));
        return;
    }
    QString text = tr("<b>Last launch</b>: %1, %2.").arg(runKindTitle(session->kind()).toHtmlEscaped(),
        breakableText(session->summary()).toHtmlEscaped());
    for (const StageRun &run : session->stages()) {
        if (run.failure.isEmpty())
            continue;
        const bool cancelled = run.outcome == StageRun::Outcome::Cancelled;
        text += QStringLiteral("<br><span style='%1'>%2</span>")
                    .arg(QLatin1String(cancelled ? "color:#b35c00" : kErrorStyle),
                        breakableText(run.failure).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    }
    m_status->setText(text);
    updateCommand();
}

bool RunPanel::launch(RunKind kind)
{
    if (!m_executability.runnable() || m_controller->isRunning() || m_tools->isRunning())
        return false;
    double lr = 0;
    const auto analysis = m_document->analysis();
    const int hazards = analysis ? static_cast<int>(analysis->verification.hazards.size()) : 0;
    const RunConfig c = config();
    const QList<RunIssue> issues = validateRun(c, m_pipeline, kind, hazards);
    if (!issues.isEmpty() || !learningRate(&lr)) {
        showIssues(issues);
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>")
                              .arg(QLatin1String(kErrorStyle),
                                  breakableText(tr("%1 cannot start: %2")
                                                    .arg(runKindTitle(kind), issues.isEmpty()
                                                            ? tr("the learning rate is not a positive number.")
                                                            : issues.front().message))
                                      .toHtmlEscaped()));
        return false;
    }
    QString error;
    if (!m_controller->start(kind, c, m_pipeline, false, &error)) {
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>").arg(QLatin1String(kErrorStyle), breakableText(error).toHtmlEscaped()));
        return false;
    }
    Q_EMIT launched(kind);
    return true;
}

bool RunPanel::resume()
{
    const auto session = m_controller->session();
    if (!session || !m_resume->isEnabled())
        return false;
    // The same launch with the same settings; the stages that finished are skipped
    // (stage one finds its cache complete, training its resume state).
    RunKind kind = session->kind();
    if (kind == RunKind::Both && session->stage(RunStage::StageOne)
        && session->stage(RunStage::StageOne)->outcome == StageRun::Outcome::Finished)
        kind = RunKind::StageTwo;
    QString error;
    if (!m_controller->start(kind, session->config(), m_pipeline, true, &error)) {
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>").arg(QLatin1String(kErrorStyle), breakableText(error).toHtmlEscaped()));
        return false;
    }
    Q_EMIT launched(kind);
    return true;
}

void RunPanel::cancel()
{
    m_controller->cancel();
}

void RunPanel::copyCommand()
{
    QGuiApplication::clipboard()->setText(m_command->toPlainText());
}

bool RunPanel::generateDataset(int count, int size, bool edit, bool overwrite)
{
    const QString dir = fieldText(m_dataset);
    if (dir.isEmpty() || m_tools->isRunning() || m_controller->isRunning())
        return false;
    QStringList args{QStringLiteral("make-dataset"), dir, QStringLiteral("--count"), QString::number(count),
        QStringLiteral("--width"), QString::number(size), QStringLiteral("--height"), QString::number(size)};
    if (edit)
        args << QStringLiteral("--edit");
    if (overwrite)
        args << QStringLiteral("--overwrite");
    m_tools->setProgram(m_controller->workerProgram());
    if (!m_tools->start(tr("Generating %n image(s)", nullptr, count), args))
        return false;
    m_status->setText(tr("Generating the example dataset in %1…").arg(breakableText(QDir::toNativeSeparators(dir)).toHtmlEscaped()));
    updateActions();
    return true;
}

bool RunPanel::createModels(const QString &preset, bool overwrite)
{
    const QString dir = fieldText(m_models);
    if (dir.isEmpty() || m_tools->isRunning() || m_controller->isRunning())
        return false;
    QStringList args{QStringLiteral("init-models"), QStringLiteral("--root"), dir, QStringLiteral("--preset"), preset};
    if (overwrite)
        args << QStringLiteral("--overwrite");
    m_tools->setProgram(m_controller->workerProgram());
    if (!m_tools->start(tr("Creating the tiny models (%1)").arg(preset), args))
        return false;
    m_status->setText(tr("Writing the tiny models under %1…").arg(breakableText(QDir::toNativeSeparators(dir)).toHtmlEscaped()));
    updateActions();
    return true;
}

void RunPanel::askGenerateDataset()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Generate example dataset"));
    auto *form = new QFormLayout(&dialog);
    auto *count = new QSpinBox(&dialog);
    count->setRange(1, 100000);
    count->setValue(kDefaultDatasetImages);
    auto *size = new QSpinBox(&dialog);
    size->setRange(16, 1024);
    size->setSingleStep(16);
    size->setValue(kDefaultImageSize);
    size->setSuffix(tr(" px"));
    auto *edit = new QCheckBox(tr("Also an edit image per sample (edit_image)"), &dialog);
    form->addRow(new QLabel(tr("Captioned synthetic images (a shape of a color on a background) in\n%1")
                                .arg(QDir::toNativeSeparators(fieldText(m_dataset))),
        &dialog));
    form->addRow(tr("Images:"), count);
    form->addRow(tr("Size:"), size);
    form->addRow(QString(), edit);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(box);
    connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    bool overwrite = false;
    if (QFileInfo::exists(QDir(fieldText(m_dataset)).filePath(QStringLiteral("metadata.csv")))) {
        if (QMessageBox::question(this, tr("Generate example dataset"),
                tr("A dataset exists there already (metadata.csv). Replace it? Its images that the new list does "
                   "not name are removed; other files stay."))
            != QMessageBox::Yes)
            return;
        overwrite = true;
    }
    generateDataset(count->value(), size->value(), edit->isChecked(), overwrite);
}

void RunPanel::askCreateModels()
{
    const QStringList presets{tr("default (the README's sizes)"), tr("small (seconds per run; for tests)")};
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Create tiny models"),
        tr("Seeded Qwen-Image-shaped models under\n%1").arg(QDir::toNativeSeparators(fieldText(m_models))), presets, 0,
        false, &ok);
    if (!ok)
        return;
    const bool exists = QFileInfo::exists(QDir(fieldText(m_models)).filePath(m_pipeline.modelId));
    bool overwrite = false;
    if (exists) {
        if (QMessageBox::question(this, tr("Create tiny models"), tr("Models exist there already. Replace them?"))
            != QMessageBox::Yes)
            return;
        overwrite = true;
    }
    createModels(choice == presets.front() ? QStringLiteral("default") : QStringLiteral("small"), overwrite);
}

} // namespace splitscope
