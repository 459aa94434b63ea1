// SPDX-License-Identifier: MIT
#include "RunPanel.h"

#include "CliTask.h"
#include "RunController.h"
#include "RunFormat.h"
#include "RunHistory.h"

#include "core/AtomicFile.h"
#include "widgets/common/ThemeColors.h"
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
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyle>
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

// Style attributes of the notes under the fields and of the status line (theme::Tone).
QString errorStyle()
{
    return QStringLiteral("color:%1").arg(theme::css(theme::Tone::Hazard));
}

QString infoStyle()
{
    return QStringLiteral("color:%1").arg(theme::css(theme::Tone::Subtle));
}

QString warningStyle()
{
    return QStringLiteral("color:%1").arg(theme::css(theme::Tone::Warning));
}

// The line under a field: one line high whatever it says, so that a problem that
// comes, goes or grows never moves the fields under it. Longer text is elided in the
// middle (a message starts with a path and ends with what is wrong with it); the
// tooltip has all of it, and so do the field's own tooltip and a refused launch's list.
class FieldLine : public QLabel {
public:
    explicit FieldLine(QWidget *parent) : QLabel(parent)
    {
        setTextFormat(Qt::PlainText);
        setWordWrap(false);
        setFixedHeight(fontMetrics().height() + 2);
        // A long path must not set the panel's minimum width.
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    }
    void setFullText(const QString &text)
    {
        m_full = text;
        setToolTip(text);
        // A screen reader reads the whole message, not the shortened line.
        setAccessibleName(text);
        elide();
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QLabel::resizeEvent(event);
        elide();
    }

private:
    void elide()
    {
        QString oneLine = m_full;
        oneLine.replace(QLatin1Char('\n'), QLatin1String("; "));
        setText(fontMetrics().elidedText(oneLine, Qt::ElideMiddle, std::max(0, contentsRect().width())));
    }

    QString m_full;
};

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

// A run's files for a question, short: "60 checkpoints (epoch-0 … epoch-59), loss.csv,
// training_args.json" rather than 62 names.
QString summarizedRunFiles(const QStringList &files)
{
    static const QRegularExpression checkpoint(QStringLiteral("^epoch-(\\d+)\\.safetensors$"));
    QList<int> epochs;
    QStringList others;
    for (const QString &file : files) {
        const QRegularExpressionMatch match = checkpoint.match(file);
        if (match.hasMatch())
            epochs << match.captured(1).toInt();
        else
            others << file;
    }
    std::sort(epochs.begin(), epochs.end());
    QStringList parts;
    if (epochs.size() == 1)
        parts << QStringLiteral("epoch-%1.safetensors").arg(epochs.front());
    else if (epochs.size() > 1)
        parts << RunPanel::tr("%1 checkpoints (epoch-%2 … epoch-%3)").arg(epochs.size()).arg(epochs.front()).arg(epochs.back());
    parts << others;
    return parts.join(QStringLiteral(", "));
}

} // namespace

RunPanel::RunPanel(SplitDocument *document, RunController *controller, QWidget *parent)
    : QWidget(parent), m_document(document), m_controller(controller), m_tools(new CliTask(this)),
      m_banner(new QLabel(this)), m_training(new QLabel(this)), m_form(new QWidget(this)),
      m_dataset(new QLineEdit(this)), m_models(new QLineEdit(this)), m_cache(new QLineEdit(this)),
      m_output(new QLineEdit(this)), m_perLaunch(new QCheckBox(tr("&New folder for each launch"), this)),
      m_generate(new QPushButton(tr("Generate…"), this)),
      m_create(new QPushButton(tr("Create…"), this)), m_epochs(new QSpinBox(this)), m_repeat(new QSpinBox(this)),
      m_learningRate(new QLineEdit(this)), m_rank(new QSpinBox(this)), m_targets(new QLineEdit(this)),
      m_seed(new QSpinBox(this)), m_threads(new QSpinBox(this)),
      m_processes(new QSpinBox(this)), m_shardSize(new QSpinBox(this)),
      m_allowHazards(new QCheckBox(tr("Allow ha&zards"), this)),
      m_commandStage(new QComboBox(this)), m_command(new QPlainTextEdit(this)), m_status(new QLabel(this)),
      m_validation(new QTimer(this))
{
    m_tools->setProgram(controller->workerProgram());
    m_validation->setSingleShot(true);
    m_validation->setInterval(kValidationDelayMs);
    connect(m_validation, &QTimer::timeout, this, &RunPanel::validate);

    createActions();
    buildLayout();
    connectFields();
    connectDocument(document, controller);
    setSettings(defaultSettings());
    pipelineChanged();
}

// The launch actions, Cancel and Resume (the window's Run menu shows the same ones).
void RunPanel::createActions()
{
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
        connect(a, &QAction::triggered, this, [this, kind]() { launchAsking(kind); });
        m_launch.insert(static_cast<int>(kind), a);
    }
    m_cancel = makeAction(this, QStringLiteral(":/splitscope/icons/stop.svg"), tr("&Cancel run"),
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X)});
    m_cancel->setStatusTip(tr("Stop the worker after the sample or step at hand, keeping its work; again: at once"));
    connect(m_cancel, &QAction::triggered, this, &RunPanel::cancel);
    // Ctrl+Shift+T, as a browser reopens what was closed (Ctrl+Shift+U is Unicode input on Linux).
    m_resume = makeAction(this, QString(), tr("Res&ume"), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T)});
    m_resume->setStatusTip(tr("Continue the cancelled launch: stage one from its finished shards, training from its checkpoint"));
    connect(m_resume, &QAction::triggered, this, &RunPanel::resume);
    m_loadSettings = makeAction(this, QString(), tr("&Load run settings…"), {});
    m_loadSettings->setStatusTip(tr("Fill the fields from a run settings file (.json, as --run-settings reads it)"));
    connect(m_loadSettings, &QAction::triggered, this, &RunPanel::askLoadSettings);
    m_saveSettings = makeAction(this, QString(), tr("Sa&ve run settings…"), {});
    m_saveSettings->setStatusTip(tr("Write the fields to a run settings file (.json) to load later, or to give "
                                    "splitscope --run-settings"));
    connect(m_saveSettings, &QAction::triggered, this, &RunPanel::askSaveSettings);
}

void RunPanel::buildLayout()
{
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setFrameShape(QFrame::StyledPanel);
    m_banner->setMargin(6);
    m_training->setWordWrap(true);
    m_training->setTextFormat(Qt::RichText);

    QWidget *paths = buildPathsBox();
    QWidget *numbers = buildTrainingBox();
    QWidget *tabBefore = m_shardSize; // Tab reaches the buttons after the numbers, as they read
    QGridLayout *buttons = buildLaunchButtons(tabBefore);
    QHBoxLayout *commandHeader = buildCommandHeader(tabBefore);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *formLayout = new QVBoxLayout(m_form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(m_training);
    formLayout->addWidget(messageLabel(RunField::Training));
    formLayout->addWidget(messageLabel(RunField::Hazards));
    buildHazardsRow();
    formLayout->addWidget(m_hazardsRow);
    formLayout->addWidget(paths);
    formLayout->addWidget(numbers);
    auto *settingsRow = new QHBoxLayout;
    for (QAction *action : {m_loadSettings, m_saveSettings}) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(action);
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        settingsRow->addWidget(b);
    }
    formLayout->addLayout(settingsRow);
    formLayout->addLayout(buttons);
    formLayout->addLayout(commandHeader);
    formLayout->addWidget(m_command);
    formLayout->addWidget(m_status);
    formLayout->addStretch(1);

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->addWidget(m_banner);
    contentLayout->addWidget(m_form, 1);
    // The banner is as tall as its text: the rest of the dock is empty when the form is
    // hidden (an inspect-only pipeline), instead of a notice filling it with text in its middle.
    contentLayout->addStretch(0);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setFocusPolicy(Qt::NoFocus); // Tab goes to the fields (the area scrolls to them)
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_scroll);
}

QWidget *RunPanel::buildPathsBox()
{
    auto *paths = new QGroupBox(tr("Data and folders"), m_form);
    auto *pathForm = new QFormLayout(paths);
    pathForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow dock a field goes under its label rather than out of view.
    pathForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_dataset->setToolTip(tr("--dataset_base_path: a folder with metadata.csv (image,prompt) and the images"));
    m_models->setToolTip(tr("--model_root: holds Qwen/Qwen-Image/{transformer,text_encoder,vae,tokenizer}"));
    m_cache->setToolTip(tr("Stage one's --output_path and stage two's --dataset_base_path"));
    m_output->setToolTip(tr("Checkpoints, loss.csv, training_args.json and the resume state of stage two and the "
                            "baseline: in a new folder per launch (OUTPUT/both-20250614-101500), or in OUTPUT itself"));
    m_perLaunch->setToolTip(tr("Each launch writes into a folder of its own under the output folder, so that no run "
                               "overwrites another. Off: launches write into the output folder itself, and a launch "
                               "asks before replacing a run there."));
    m_generate->setToolTip(tr("Write a captioned synthetic image set here (splitscope-cli make-dataset)"));
    m_create->setToolTip(tr("Write the tiny Qwen-Image models here (splitscope-cli init-models)"));
    pathForm->addRow(tr("&Dataset:"), pathRow(m_dataset, tr("Dataset folder"), m_generate));
    pathForm->addRow(QString(), messageLabel(RunField::Dataset));
    pathForm->addRow(tr("&Models:"), pathRow(m_models, tr("Models folder"), m_create));
    pathForm->addRow(QString(), messageLabel(RunField::ModelsRoot));
    pathForm->addRow(tr("&Cache:"), pathRow(m_cache, tr("Stage-one cache folder"), nullptr));
    pathForm->addRow(QString(), messageLabel(RunField::Cache));
    pathForm->addRow(tr("&Output:"), pathRow(m_output, tr("Output folder"), nullptr));
    pathForm->addRow(QString(), m_perLaunch);
    pathForm->addRow(QString(), messageLabel(RunField::Output));

    return paths;
}

QWidget *RunPanel::buildTrainingBox()
{
    auto *numbers = new QGroupBox(tr("Training"), m_form);
    auto *numberForm = new QFormLayout(numbers);
    numberForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    numberForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_epochs->setRange(1, kMaxEpochs);
    m_epochs->setToolTip(QStringLiteral("--num_epochs"));
    m_repeat->setRange(1, kMaxDatasetRepeat);
    m_repeat->setToolTip(tr("--dataset_repeat: passes over the dataset per epoch (training stages; stage one caches "
                            "each sample once)"));
    m_learningRate->setToolTip(tr("--learning_rate (AdamW), e.g. 1e-4"));
    m_rank->setRange(1, kMaxLoraRank);
    m_rank->setToolTip(QStringLiteral("--lora_rank"));
    m_targets->setToolTip(tr("--lora_target_modules: module names (suffixes) that get LoRA, comma-separated"));
    m_seed->setRange(0, static_cast<int>(kMaxSeed));
    m_seed->setToolTip(tr("--seed: every random draw derives from it; equal seeds give equal weights"));
    m_threads->setRange(0, kMaxThreads);
    m_threads->setSpecialValueText(tr("all cores"));
    m_threads->setToolTip(tr("--num_threads: LibTorch threads (equal counts give equal bits)"));
    m_processes->setRange(1, kMaxProcesses);
    m_processes->setToolTip(tr("--nproc_per_node: data-parallel processes on this machine, each taking one sample per "
                               "step with its own threads; two-stage still equals one-stage bit for bit"));
    m_shardSize->setRange(1, kMaxCacheShardSize);
    m_shardSize->setToolTip(tr("--cache_shard_size: samples per cache shard; a cancelled stage one keeps finished shards"));
    const auto pair = [this](QWidget *a, const QString &label, QWidget *b) {
        auto *row = new QWidget(this);
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(a, 1);
        h->addWidget(new QLabel(label, row));
        h->addWidget(b, 1);
        return row;
    };
    numberForm->addRow(tr("&Epochs:"), pair(m_epochs, tr("repeat"), m_repeat));
    numberForm->addRow(tr("Le&arning rate:"), m_learningRate);
    numberForm->addRow(QString(), messageLabel(RunField::LearningRate));
    numberForm->addRow(tr("LoRA ran&k:"), m_rank);
    numberForm->addRow(tr("LoRA tar&gets:"), m_targets);
    numberForm->addRow(QString(), messageLabel(RunField::LoraTargets));
    numberForm->addRow(tr("Seed:"), m_seed);
    numberForm->addRow(tr("Threads:"), pair(m_threads, tr("processes"), m_processes));
    numberForm->addRow(tr("Shard s&ize:"), m_shardSize);

    return numbers;
}

// The launch buttons, two to a row, after `tabBefore` in the Tab order; `tabBefore`
// becomes the last of them.
QGridLayout *RunPanel::buildLaunchButtons(QWidget *&tabBefore)
{
    auto *buttons = new QGridLayout;
    const RunKind order[] = {RunKind::StageOne, RunKind::StageTwo, RunKind::Both, RunKind::Baseline};
    for (int i = 0; i < 6; ++i) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(i < 4 ? m_launch.value(static_cast<int>(order[i])) : i == 4 ? m_cancel : m_resume);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        buttons->addWidget(b, i / 2, i % 2);
        QWidget::setTabOrder(tabBefore, b);
        tabBefore = b;
    }

    return buttons;
}

QHBoxLayout *RunPanel::buildCommandHeader(QWidget *tabBefore)
{
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
    QWidget::setTabOrder(tabBefore, m_commandStage);
    QWidget::setTabOrder(m_commandStage, copy);
    QWidget::setTabOrder(copy, m_command);
    return commandHeader;
}

// The check box's own text cannot wrap: the explanation is a label under it (a long
// check box text made the panel too wide, with a scroll bar and clipped buttons).
void RunPanel::buildHazardsRow()
{
    m_hazardsRow = new QWidget(m_form);
    auto *hazardsLayout = new QVBoxLayout(m_hazardsRow);
    hazardsLayout->setContentsMargins(0, 0, 0, 0);
    hazardsLayout->setSpacing(0);
    hazardsLayout->addWidget(m_allowHazards);
    auto *hazardsNote = new QLabel(tr("Two-stage training then differs from one-stage training."), m_hazardsRow);
    hazardsNote->setWordWrap(true);
    hazardsNote->setStyleSheet(infoStyle());
    hazardsNote->setIndent(m_allowHazards->style()->pixelMetric(QStyle::PM_IndicatorWidth) + 6);
    hazardsLayout->addWidget(hazardsNote);
    m_allowHazards->setToolTip(tr("--allow_hazards: train with a split that has hazards; two-stage training then "
                                  "differs from one-stage training"));
}

void RunPanel::connectFields()
{
    for (QLineEdit *edit : {m_dataset, m_models, m_cache, m_output, m_learningRate, m_targets})
        connect(edit, &QLineEdit::textChanged, this, &RunPanel::scheduleValidation);
    for (QSpinBox *spin : {m_epochs, m_repeat, m_rank, m_seed, m_threads, m_processes, m_shardSize})
        connect(spin, &QSpinBox::valueChanged, this, &RunPanel::scheduleValidation);
    connect(m_allowHazards, &QCheckBox::toggled, this, &RunPanel::scheduleValidation);
    connect(m_perLaunch, &QCheckBox::toggled, this, &RunPanel::scheduleValidation);
    // The wheel scrolls the form: a spin or combo box under the mouse takes it only
    // when it has the focus (a click or Tab gives it), so that scrolling past the
    // LoRA rank no longer turns 32 into 26.
    for (QAbstractSpinBox *spin : findChildren<QAbstractSpinBox *>()) {
        spin->setFocusPolicy(Qt::StrongFocus);
        spin->installEventFilter(this);
    }
    for (QComboBox *combo : findChildren<QComboBox *>()) {
        combo->setFocusPolicy(Qt::StrongFocus);
        combo->installEventFilter(this);
    }
}

void RunPanel::connectDocument(SplitDocument *document, RunController *controller)
{
    connect(m_commandStage, &QComboBox::currentIndexChanged, this, &RunPanel::updateCommand);
    connect(m_generate, &QPushButton::clicked, this, &RunPanel::askGenerateDataset);
    connect(m_create, &QPushButton::clicked, this, &RunPanel::askCreateModels);
    connect(document, &SplitDocument::pipelineReset, this, &RunPanel::pipelineChanged);
    connect(document, &SplitDocument::trainingChanged, this, [this]() {
        recordTrainingChoice();
        scheduleValidation();
    });
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
        updateStatus();
    });
    connect(controller, &RunController::launchFinished, this, [this]() {
        updateStatus();
        revealStatus();
        scheduleValidation(); // the cache changed
    });
    connect(m_tools, &CliTask::finished, this, [this](bool ok, const QString &message) {
        const QString what = m_tools->title();
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>")
                              .arg(ok ? infoStyle() : errorStyle(),
                                  breakableText((ok ? tr("%1: done. %2") : tr("%1 failed: %2")).arg(what, message))
                                      .toHtmlEscaped()));
        m_generate->setEnabled(true);
        m_create->setEnabled(true);
        updateActions();
        validate();
        Q_EMIT toolFinished(ok, message);
    });
}

RunPanel::~RunPanel() = default;

void RunPanel::setHistory(RunHistory *history)
{
    if (m_history)
        m_history->disconnect(this);
    m_history = history;
    if (history) {
        // A history read at start may hold the launch that Ctrl+Q cancelled.
        auto follow = [this]() {
            updateActions();
            updateStatus();
        };
        connect(history, &RunHistory::reset, this, follow);
        connect(history, &RunHistory::added, this, follow);
        connect(history, &RunHistory::removed, this, follow);
    }
    updateActions();
    updateStatus();
}

std::shared_ptr<const RunSession> RunPanel::resumableLaunch() const
{
    // The last launch: this session's, else (after a restart) the history's newest.
    std::shared_ptr<const RunSession> last = m_controller->session();
    if (!last && m_history && m_history->count() > 0)
        last = m_history->run(m_history->count() - 1);
    if (!last || last->isRunning() || !m_executability.runnable() || last->config().pipeline != m_pipeline.name)
        return nullptr;
    const StageRun::Outcome outcome = last->outcome();
    return outcome == StageRun::Outcome::Cancelled || outcome == StageRun::Outcome::Crashed ? last : nullptr;
}

void RunPanel::setTrainingChoices(const QJsonObject &choices)
{
    m_choices = choices;
    restoreTrainingChoice();
}

void RunPanel::restoreTrainingChoice()
{
    if (!m_executability.runnable() || !m_document->hasPipeline())
        return;
    const QJsonObject saved = m_choices.value(m_pipeline.name).toObject();
    if (saved.isEmpty())
        return;
    TrainingChoice choice;
    for (const QJsonValue &m : saved.value(QLatin1String("trainable_models")).toArray())
        choice.trainable.push_back(m.toString().toStdString());
    const QString base = saved.value(QLatin1String("lora_base_model")).toString();
    if (!base.isEmpty())
        choice.loraBase = base.toStdString();
    choice.mode = saved.value(QLatin1String("split_mode")).toString() == QLatin1String("safe") ? SplitMode::Safe
                                                                                            : SplitMode::Seed;
    choice.restrictTo(m_document->modelNames());
    m_document->setTraining(choice);
}

void RunPanel::recordTrainingChoice()
{
    if (!m_executability.runnable() || !m_document->hasPipeline())
        return;
    const TrainingChoice &choice = m_document->training();
    QJsonArray trainable;
    for (const std::string &m : choice.trainable)
        trainable.append(QString::fromStdString(m));
    m_choices.insert(m_pipeline.name,
        QJsonObject{{QStringLiteral("trainable_models"), trainable},
            {QStringLiteral("lora_base_model"), choice.loraBase ? QString::fromStdString(*choice.loraBase) : QString()},
            {QStringLiteral("split_mode"), QString::fromLatin1(splitModeName(choice.mode))}});
}

bool RunPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Wheel) {
        auto *widget = qobject_cast<QWidget *>(watched);
        if (widget && !widget->hasFocus()) {
            // Not for this box: the scroll area around the form takes it. Sent to it
            // here rather than left to Qt's propagation, which skips synthesized events.
            // Left ignored when the form cannot scroll further, so that an enclosing
            // scroll area (the dock's) goes on.
            event->ignore();
            QCoreApplication::sendEvent(m_scroll->viewport(), event);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

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
    // Tab follows the row: the field, its "…", then the extra button (made earlier,
    // they came after every field of the form).
    QWidget::setTabOrder(edit, browse);
    if (extra) {
        h->addWidget(extra);
        QWidget::setTabOrder(browse, extra);
    }
    return row;
}

QLabel *RunPanel::messageLabel(RunField field)
{
    // The training choice and the hazards are above the form, and change with the
    // Training configuration panel, not as the user types here: they wrap.
    const bool wraps = field == RunField::Training || field == RunField::Hazards;
    QLabel *label = wraps ? new QLabel(this) : new FieldLine(this);
    label->setWordWrap(wraps);
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
    s.newFolderPerLaunch = m_perLaunch->isChecked();
    s.epochs = m_epochs->value();
    s.datasetRepeat = m_repeat->value();
    double lr = 0;
    s.learningRate = learningRate(&lr) ? lr : RunSettings().learningRate;
    s.loraRank = m_rank->value();
    s.loraTargets = fieldText(m_targets);
    s.seed = m_seed->value();
    s.threads = m_threads->value();
    s.processes = m_processes->value();
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
    m_perLaunch->setChecked(s.newFolderPerLaunch);
    m_epochs->setValue(s.epochs);
    m_repeat->setValue(s.datasetRepeat);
    m_learningRate->setText(QString::number(s.learningRate, 'g', 6));
    m_rank->setValue(s.loraRank);
    m_targets->setText(s.loraTargets);
    m_seed->setValue(static_cast<int>(std::min<qint64>(s.seed, std::numeric_limits<int>::max())));
    m_threads->setValue(s.threads);
    m_processes->setValue(s.processes);
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
    c.training = m_document->training();
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
        for (const std::string &m : c.training.modelsRequiringBackward()) {
            if (!c.stageTwoModels.contains(QString::fromStdString(m)))
                c.stageTwoModels << QString::fromStdString(m);
        }
        // What a cache of this split holds (RunChecks compares it with a cache's manifest).
        for (UnitId u = 0; u < graph.unitCount(); ++u) {
            if (!analysis->split.isTrained(u))
                c.stageOneUnits << QString::fromStdString(graph.unitName(u));
        }
        for (const CacheEntry &entry : analysis->cacheSet)
            c.cacheSet << QString::fromStdString(graph.paramName(entry.param));
    }
    c.settings = settings();
    c.datasetColumns = readDatasetColumns(c.settings.datasetPath);
    return c;
}

QString RunPanel::fieldMessage(RunField field) const
{
    return m_said.value(static_cast<int>(field));
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
    const theme::NoticeColors notice = theme::noticeColors(theme::Notice::Warning, palette());
    m_banner->setStyleSheet(m_executability.runnable() || !m_document->hasPipeline()
            ? QString()
            : QStringLiteral("QLabel { background:%1; color:%2; }").arg(notice.background.name(), notice.text.name()));
    m_form->setVisible(m_executability.runnable());
    // The choice this pipeline had last (its Run fields, the cache above all, were made for it).
    restoreTrainingChoice();
    validate();
    updateStatus();
}

void RunPanel::scheduleValidation()
{
    m_validation->start();
}

void RunPanel::validate()
{
    m_validation->stop();
    if (!m_executability.runnable()) {
        m_refused.reset();
        showIssues({});
        updateActions();
        return;
    }
    const auto analysis = m_document->analysis();
    const int hazards = analysis ? static_cast<int>(analysis->verification.hazardCount()) : 0;
    const RunConfig c = config();
    // The live check is the one of a full launch (both stages), or of the launch
    // last refused while its problems are shown; a launch of one stage or of the
    // baseline is checked again when it is asked for.
    const QList<RunIssue> issues = checks(m_refused.value_or(RunKind::Both));
    m_hazardsRow->setVisible(hazards > 0 || m_allowHazards->isChecked());
    if (analysis) {
        const std::size_t trained = analysis->split.trainedCount();
        const auto units = [this](std::size_t count) {
            return countText(static_cast<qint64>(count), tr("%n unit"), tr("%n units"));
        };
        m_training->setText(tr("<b>Trains</b> %1<br>Stage one caches %2; stage two runs %3 and the "
                               "loss. Change it in <i>Training configuration</i>.")
                                .arg(breakableText(c.label()).toHtmlEscaped(),
                                    units(analysis->split.trained.size() - trained), units(trained)));
    }
    showIssues(issues);
    if (m_refused) {
        // The refusal's list follows the fields: fixed problems leave it, and it goes when none is left.
        if (issues.isEmpty()) {
            m_refused.reset();
            updateStatus();
        } else {
            showRefusal(*m_refused, issues);
        }
    }
    updateCommand();
    updateActions();
}

QList<RunIssue> RunPanel::checks(RunKind kind) const
{
    const auto analysis = m_document->analysis();
    const int hazards = analysis ? static_cast<int>(analysis->verification.hazardCount()) : 0;
    QList<RunIssue> issues = validateRun(config(), m_pipeline, kind, hazards);
    double lr = 0;
    if (!learningRate(&lr) && kind != RunKind::StageOne) {
        // In field order: after the folders, before the LoRA targets.
        const auto at = std::find_if(issues.begin(), issues.end(),
            [](const RunIssue &issue) { return issue.field == RunField::LoraTargets; });
        issues.insert(at,
            {RunField::LearningRate,
                tr("The learning rate “%1” is not a positive number (write it like 1e-4).")
                    .arg(fieldText(m_learningRate))});
    }
    return issues;
}

void RunPanel::revealStatus()
{
    // The status line is at the end of the form: scrolled into view once laid out, so
    // that a refusal or how a launch ended is seen where the button was pressed.
    QTimer::singleShot(0, this, [this]() {
        if (!m_status->text().isEmpty() && m_status->isVisibleTo(m_scroll->widget()))
            m_scroll->ensureWidgetVisible(m_status, 0, 8);
    });
}

void RunPanel::showRefusal(RunKind kind, const QList<RunIssue> &issues)
{
    QStringList lines;
    for (const RunIssue &issue : issues)
        lines << QStringLiteral("• ") + breakableText(issue.message).toHtmlEscaped();
    m_status->setText(QStringLiteral("<span style='%1'><b>%2</b><br>%3</span>")
                          .arg(errorStyle(),
                              countText(issues.size(), tr("%1 cannot start: %n problem, shown at its field:"),
                                  tr("%1 cannot start: %n problems, shown at their fields:"))
                                  .arg(runKindTitle(kind))
                                  .toHtmlEscaped(),
                              lines.join(QStringLiteral("<br>"))));
}

void RunPanel::showIssues(const QList<RunIssue> &issues)
{
    m_issues = issues;
    updateInfo();
    QHash<int, QStringList> byField;
    QHash<int, bool> confirmable;
    for (const RunIssue &issue : issues) {
        byField[static_cast<int>(issue.field)] << issue.message;
        confirmable[static_cast<int>(issue.field)] = issue.confirmable;
    }
    // A line that came and went as the user typed pushed the fields under it down (a
    // click aimed at LoRA rank landed on the learning rate's message). The number
    // fields have nothing to say otherwise: their problem is in the field, and their
    // line is there only after a refused launch. The folders' lines always are.
    auto inFieldOnly = [](int field) {
        return field == static_cast<int>(RunField::LearningRate) || field == static_cast<int>(RunField::LoraTargets);
    };
    auto folderLine = [](int field) {
        return field == static_cast<int>(RunField::Dataset) || field == static_cast<int>(RunField::ModelsRoot)
            || field == static_cast<int>(RunField::Cache) || field == static_cast<int>(RunField::Output);
    };
    m_said.clear();
    for (auto it = m_messages.begin(); it != m_messages.end(); ++it) {
        const QStringList problems = byField.value(it.key());
        const QString info = m_info.value(it.key());
        QLabel *label = it.value();
        if (!problems.isEmpty())
            m_said.insert(it.key(), problems.join(QLatin1Char('\n')));
        else if (!info.isEmpty())
            m_said.insert(it.key(), info);
        auto *line = dynamic_cast<FieldLine *>(label);
        auto say = [label, line](const QString &text) {
            if (line)
                line->setFullText(text);
            else // paths break anywhere: a long one must not set the panel's minimum width
                label->setText(breakableText(text));
        };
        if (inFieldOnly(it.key())) {
            say(problems.join(QLatin1Char('\n')));
            label->setStyleSheet(errorStyle());
            label->setVisible(m_reserveLines);
        } else if (!problems.isEmpty()) {
            say(problems.join(QLatin1Char('\n')));
            // A run the launch would replace is a question for the user, not an error.
            label->setStyleSheet(confirmable.value(it.key()) ? warningStyle() : errorStyle());
            label->show();
        } else if (!info.isEmpty()) {
            say(info);
            label->setStyleSheet(infoStyle());
            label->show();
        } else {
            say(QString());
            // A folder's line stays, empty, for the information or problem to come.
            label->setVisible(folderLine(it.key()));
        }
    }
    // The field of a problem gets a red frame, a warning icon and the problem as its
    // tooltip, so that it is found at a glance and read where it is.
    const std::pair<RunField, QLineEdit *> edits[] = {{RunField::Dataset, m_dataset}, {RunField::ModelsRoot, m_models},
        {RunField::Cache, m_cache}, {RunField::Output, m_output}, {RunField::LearningRate, m_learningRate},
        {RunField::LoraTargets, m_targets}};
    for (const auto &[field, edit] : edits) {
        const int key = static_cast<int>(field);
        if (!edit->property("fieldToolTip").isValid()) {
            edit->setProperty("fieldToolTip", edit->toolTip());
            // The red frame (a style sheet) changes the field's height hint: it moved
            // the fields under it by a few pixels.
            edit->setFixedHeight(edit->sizeHint().height());
        }
        const bool problem = byField.contains(key);
        const QString problems = byField.value(key).join(QLatin1Char('\n'));
        const bool question = confirmable.value(key);
        QAction *&icon = m_problemIcons[key];
        if (!icon && problem)
            icon = edit->addAction(style()->standardIcon(QStyle::SP_MessageBoxWarning), QLineEdit::TrailingPosition);
        if (icon) {
            icon->setVisible(problem);
            icon->setToolTip(problems);
        }
        edit->setToolTip(problem ? problems : edit->property("fieldToolTip").toString());
        // Read out with the field by a screen reader, which does not show tooltips.
        edit->setAccessibleDescription(problems);
        edit->setStyleSheet(problem ? QStringLiteral("QLineEdit { border: 1px solid %1; }")
                                          .arg(theme::css(question ? theme::Tone::Warning : theme::Tone::Hazard))
                                    : QString());
    }
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
            tr("%1; columns %2")
                .arg(countText(rows, tr("%n image"), tr("%n images")),
                    readDatasetColumns(s.datasetPath).join(QStringLiteral(", "))));
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
            s.newFolderPerLaunch
                ? tr("each launch in a new folder, such as %1")
                      .arg(QDir::toNativeSeparators(
                          QDir(s.outputPath).filePath(runFolderName(RunKind::Both, QDateTime::currentDateTime()))))
                : tr("stage two and the baseline write here"));
}

void RunPanel::updateActions()
{
    const bool idle = !m_controller->isRunning() && !m_tools->isRunning();
    const bool runnable = m_executability.runnable();
    for (QAction *a : std::as_const(m_launch))
        a->setEnabled(idle && runnable);
    m_cancel->setEnabled(m_controller->isRunning());
    m_cancel->setText(m_controller->state() == RunController::State::Cancelling ? tr("Stop &now") : tr("&Cancel run"));
    m_resume->setEnabled(idle && runnable && resumableLaunch());
    m_generate->setEnabled(!m_tools->isRunning() && !m_controller->isRunning());
    m_create->setEnabled(!m_tools->isRunning() && !m_controller->isRunning());
    m_form->setEnabled(true);
    for (QWidget *w : m_form->findChildren<QLineEdit *>())
        w->setEnabled(!m_controller->isRunning());
    for (QWidget *w : m_form->findChildren<QSpinBox *>())
        w->setEnabled(!m_controller->isRunning());
    m_perLaunch->setEnabled(!m_controller->isRunning());
    m_allowHazards->setEnabled(!m_controller->isRunning());
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
    RunConfig c = config();
    if (c.settings.newFolderPerLaunch && stage != RunStage::StageOne)
        // The folder a launch of this stage alone would get now (made when it starts).
        c.runFolder = QDir(c.settings.outputPath)
                          .filePath(runFolderName(stage == RunStage::StageTwo ? RunKind::StageTwo : RunKind::Baseline,
                              QDateTime::currentDateTime()));
    else if (!c.settings.newFolderPerLaunch)
        c.runFolder = c.settings.outputPath;
    const QStringList arguments = trainArguments(c, m_pipeline, stage, false);
    QString text = shellCommand(m_controller->workerProgram(), arguments);
    // With several processes, also the same run under torchrun.
    if (const QString torchrun = torchrunCommand(QStringLiteral("splitscope-cli"), arguments); !torchrun.isEmpty())
        text += QStringLiteral("\n\n# ") + tr("or, with torchrun:") + QStringLiteral("\n") + torchrun;
    m_command->setPlainText(text);
}

void RunPanel::updateStatus()
{
    if (m_refused)
        return; // the refused launch's problems stay until they are fixed (validate)
    const auto session = m_controller->session();
    if (!session) {
        // After a restart: the launch Ctrl+Q cancelled, if Resume can continue it.
        const auto last = resumableLaunch();
        if (!last) {
            m_status->clear();
            return;
        }
        m_status->setText(tr("<b>Last launch</b>: %1, %2 (%3). <i>Resume</i> continues it in %4.")
                              .arg(runKindTitle(last->kind()).toHtmlEscaped(),
                                  breakableText(last->summary()).toHtmlEscaped(),
                                  QLocale().toString(last->started(), QLocale::ShortFormat).toHtmlEscaped(),
                                  breakableText(QDir::toNativeSeparators(
                                                    stageOutputPath(last->config(), stagesOf(last->kind()).back())))
                                      .toHtmlEscaped()));
        return;
    }
    if (m_controller->isRunning()) {
        // The session is the running launch (it has no stage for a moment at its start).
        const StageRun *run = session->current();
        const bool cancelling = m_controller->state() == RunController::State::Cancelling;
        QString text = tr("<b>%1</b> %2").arg(runKindTitle(session->kind()).toHtmlEscaped(),
            cancelling ? tr("cancelling") : run ? tr("running") : tr("starting"));
        if (run && stagesOf(session->kind()).size() > 1)
            text += QStringLiteral(" (%1)").arg(runStageTitle(run->stage).toLower().toHtmlEscaped());
        m_status->setText(text + QStringLiteral("…"));
        return;
    }
    QString text = tr("<b>Last launch</b>: %1, %2.").arg(runKindTitle(session->kind()).toHtmlEscaped(),
        breakableText(session->summary()).toHtmlEscaped());
    for (const StageRun &run : session->stages()) {
        if (run.failure.isEmpty())
            continue;
        const bool cancelled = run.outcome == StageRun::Outcome::Cancelled;
        text += QStringLiteral("<br><span style='%1'>%2</span>")
                    .arg(cancelled ? warningStyle() : errorStyle(),
                        htmlLines(breakableText(run.failure)));
    }
    m_status->setText(text);
    updateCommand();
}

bool RunPanel::launch(RunKind kind, bool replaceRun)
{
    if (!m_executability.runnable() || m_controller->isRunning() || m_tools->isRunning())
        return false;
    const RunConfig c = config();
    QList<RunIssue> issues = checks(kind);
    if (replaceRun)
        issues.removeIf([](const RunIssue &issue) { return issue.confirmable; });
    if (!issues.isEmpty()) {
        m_refused = kind;
        m_reserveLines = true;
        showIssues(issues);
        showRefusal(kind, issues);
        revealStatus();
        Q_EMIT message(issues.size() == 1 ? tr("%1 cannot start: %2").arg(runKindTitle(kind), issues.front().message)
                                          : tr("%1 cannot start: %2 problems, listed in the Run panel")
                                                .arg(runKindTitle(kind))
                                                .arg(issues.size()));
        return false;
    }
    m_refused.reset();
    if (m_reserveLines) {
        m_reserveLines = false;
        showIssues(m_issues);
    }
    if (replaceRun && !c.settings.newFolderPerLaunch) {
        // The user agreed: the old run goes first, so that nothing of it mixes with the new one.
        const QDir output(c.settings.outputPath);
        for (const QString &file : runFilesIn(c.settings.outputPath)) {
            if (!QFile::remove(output.filePath(file))) {
                m_status->setText(QStringLiteral("<span style='%1'>%2</span>")
                                      .arg(errorStyle(),
                                          breakableText(tr("%1 cannot be removed: the run there stays, nothing was "
                                                           "launched.")
                                                            .arg(QDir::toNativeSeparators(output.filePath(file))))
                                              .toHtmlEscaped()));
                return false;
            }
        }
    }
    QString error;
    if (!m_controller->start(kind, c, m_pipeline, false, &error)) {
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>").arg(errorStyle(), breakableText(error).toHtmlEscaped()));
        return false;
    }
    Q_EMIT launched(kind);
    return true;
}

bool RunPanel::launchAsking(RunKind kind)
{
    if (launch(kind))
        return true;
    const QList<RunIssue> issues = checks(kind);
    const bool onlyQuestions = !issues.isEmpty()
        && std::all_of(issues.begin(), issues.end(), [](const RunIssue &issue) { return issue.confirmable; });
    // Headless (no window on screen) nobody can answer: the refusal stands.
    if (!onlyQuestions || !window()->isVisible())
        return false;
    const QString folder = QDir::toNativeSeparators(fieldText(m_output));
    const QStringList files = runFilesIn(fieldText(m_output));
    const QString question
        = tr("%1 holds a run already: %2.\n\nReplace it? Its checkpoints, loss.csv, training_args.json%3 are deleted "
             "before the launch. (To keep it, turn on “New folder for each launch”.)")
              .arg(folder, summarizedRunFiles(files),
                  files.contains(QStringLiteral("resume.safetensors"))
                      ? tr(" and its resume state (Resume could continue it)")
                      : QString());
    if (QMessageBox::question(this, tr("Replace the run?"), question, QMessageBox::Yes | QMessageBox::No,
            QMessageBox::No)
        != QMessageBox::Yes)
        return false;
    return launch(kind, true);
}

bool RunPanel::resume()
{
    const auto session = resumableLaunch();
    if (!session || !m_resume->isEnabled())
        return false;
    // The same launch with the same settings, in its own folder, as one launch: the
    // stages that finished stay, the one that stopped goes on (stage one finds its
    // finished shards, training its resume state).
    QString error;
    m_refused.reset();
    if (!m_controller->resume(*session, m_pipeline, &error)) {
        m_status->setText(QStringLiteral("<span style='%1'>%2</span>").arg(errorStyle(), breakableText(error).toHtmlEscaped()));
        return false;
    }
    Q_EMIT launched(session->kind());
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
    if (!m_tools->start(countText(count, tr("Generating %n image"), tr("Generating %n images")), args))
        return false;
    m_refused.reset();
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
    m_refused.reset();
    m_status->setText(tr("Writing the tiny models under %1…").arg(breakableText(QDir::toNativeSeparators(dir)).toHtmlEscaped()));
    updateActions();
    return true;
}

bool RunPanel::saveSettingsFile(const QString &path, QString *error)
{
    const QByteArray json = QJsonDocument(settings().toJson()).toJson(QJsonDocument::Indented);
    std::string why;
    if (writeFileAtomically(QFile::encodeName(path).toStdString(), std::string_view(json.constData(), json.size()), &why))
        return true;
    if (error)
        *error = QString::fromStdString(why);
    return false;
}

bool RunPanel::loadSettingsFile(const QString &path, QStringList *errors)
{
    const std::optional<RunSettings> read = readRunSettingsFile(path, defaultSettings(), errors);
    if (!read)
        return false;
    setSettings(*read);
    return true;
}

void RunPanel::askSaveSettings()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save run settings"),
        QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)).filePath(QStringLiteral("run-settings.json")),
        tr("Run settings (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveSettingsFile(path, &error))
        QMessageBox::warning(this, tr("Save run settings"), tr("The settings were not saved: %1").arg(error));
}

void RunPanel::askLoadSettings()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load run settings"),
        QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), tr("Run settings (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QStringList errors;
    if (!loadSettingsFile(path, &errors)) {
        QMessageBox::warning(this, tr("Load run settings"),
            tr("The fields are unchanged: %1").arg(errors.join(QLatin1Char('\n'))));
    }
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
                   "not name are removed; other files stay."),
                QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
            != QMessageBox::Yes)
            return;
        overwrite = true;
    }
    generateDataset(count->value(), size->value(), edit->isChecked(), overwrite);
}

void RunPanel::askCreateModels()
{
    const QStringList presets{tr("default (full sizes, docs/engine.md)"), tr("small (seconds per run; for tests)")};
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Create tiny models"),
        tr("Seeded Qwen-Image-shaped models under\n%1").arg(QDir::toNativeSeparators(fieldText(m_models))), presets, 0,
        false, &ok);
    if (!ok)
        return;
    const bool exists = QFileInfo::exists(QDir(fieldText(m_models)).filePath(m_pipeline.modelId));
    bool overwrite = false;
    if (exists) {
        if (QMessageBox::question(this, tr("Create tiny models"),
                tr("Models exist there already. Replace them? Caches and runs made with them no longer match."),
                QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
            != QMessageBox::Yes)
            return;
        overwrite = true;
    }
    createModels(choice == presets.front() ? QStringLiteral("default") : QStringLiteral("small"), overwrite);
}

} // namespace splitscope
