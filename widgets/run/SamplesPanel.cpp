// SPDX-License-Identifier: MIT
#include "SamplesPanel.h"

#include "CliTask.h"
#include "ExecutablePipeline.h"
#include "RunController.h"
#include "RunSession.h"

#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QScrollArea>
#include <QVBoxLayout>

namespace splitscope {

namespace {

constexpr int kImagePixels = 128; // each sample shown this large (they are drawn at 64x64)

} // namespace

SamplesPanel::SamplesPanel(RunController *controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_task(new CliTask(this))
    , m_prompts(new QLineEdit(QStringLiteral("a red circle|a blue square|a green triangle"), this))
    , m_enabled(new QCheckBox(tr("Draw samples after each epoch"), this))
    , m_status(new QLabel(this))
    , m_grid(new QGridLayout)
{
    m_prompts->setToolTip(tr("The prompts drawn with each epoch's LoRA, separated by '|'"));
    m_prompts->setAccessibleName(tr("Sample prompts"));
    m_enabled->setChecked(true);
    m_status->setWordWrap(true);
    m_status->setText(tr("Samples appear here as each epoch of a training stage ends."));
    auto *top = new QHBoxLayout;
    auto *label = new QLabel(tr("Prompts:"), this);
    label->setBuddy(m_prompts);
    top->addWidget(m_enabled);
    top->addWidget(label);
    top->addWidget(m_prompts, 1);
    auto *images = new QWidget(this);
    images->setLayout(m_grid);
    m_grid->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(images);
    scroll->setWidgetResizable(true);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(scroll, 1);
    connect(m_task, &CliTask::finished, this, &SamplesPanel::finished);
    connect(controller, &RunController::epochCheckpointSaved, this, [this](const QString &path, int epoch) {
        if (m_enabled->isChecked())
            drawEpoch(path, epoch);
    });
    connect(controller, &RunController::launchStarted, this, &SamplesPanel::clear);
}

SamplesPanel::~SamplesPanel() = default;

int SamplesPanel::imageCount(int row) const
{
    return row >= 0 && row < rowCount() ? static_cast<int>(m_rows[static_cast<std::size_t>(row)].size()) : 0;
}

QString SamplesPanel::statusText() const
{
    return m_status->text();
}

bool SamplesPanel::isDrawing() const
{
    return m_drawing || !m_queue.empty();
}

void SamplesPanel::clear()
{
    m_queue.clear();
    for (auto &row : m_rows) {
        for (QLabel *label : row)
            delete label;
    }
    m_rows.clear();
}

void SamplesPanel::drawEpoch(const QString &checkpoint, int epoch)
{
    Job job;
    job.checkpoint = checkpoint;
    job.epoch = epoch;
    job.folder = QFileInfo(checkpoint).dir().filePath(QStringLiteral("samples/epoch-%1").arg(epoch));
    job.prompts = m_prompts->text().split(QLatin1Char('|'), Qt::SkipEmptyParts);
    for (QString &prompt : job.prompts)
        prompt = prompt.trimmed();
    job.prompts.removeAll(QString());
    if (job.prompts.isEmpty()) {
        m_status->setText(tr("No prompt to draw: write one or more, separated by '|'."));
        return;
    }
    m_queue.push_back(job);
    if (!m_drawing)
        startNext();
}

void SamplesPanel::startNext()
{
    const auto session = m_controller->session();
    if (m_queue.empty() || !session)
        return;
    const Job &job = m_queue.front();
    const RunConfig &config = session->config();
    const ExecutablePipeline *pipeline = findExecutablePipeline(config.pipeline);
    if (!pipeline || !config.training.loraBase || *config.training.loraBase != "dit" || !config.training.trainable.empty()) {
        m_queue.clear();
        m_status->setText(tr("Samples are drawn for a LoRA on the DiT of an executable pipeline; this launch trains "
                             "something else."));
        Q_EMIT rowDone(false);
        return;
    }
    const RunSettings &s = config.settings;
    const QStringList args = {QStringLiteral("sample"), QStringLiteral("--model_root"), s.modelsRoot,
        QStringLiteral("--model_id_with_origin_paths"), pipeline->modelSpecs(), QStringLiteral("--lora"), job.checkpoint,
        QStringLiteral("--lora_target_modules"), s.loraTargets, QStringLiteral("--lora_rank"), QString::number(s.loraRank),
        QStringLiteral("--prompt"), job.prompts.join(QLatin1Char('|')), QStringLiteral("--seed"), QString::number(s.seed),
        QStringLiteral("--num_threads"), QStringLiteral("1"), QStringLiteral("--output_dir"), job.folder};
    QDir().mkpath(job.folder);
    m_task->setProgram(m_controller->workerProgram()); // as the controller's (tests and $SPLITSCOPE_CLI set it)
    m_drawing = m_task->start(tr("samples of epoch %1").arg(job.epoch + 1), args);
    m_status->setText(m_drawing ? tr("Drawing the samples of epoch %1…").arg(job.epoch + 1)
                                : tr("Could not start %1").arg(m_task->program()));
}

void SamplesPanel::finished(bool ok, const QString &message)
{
    m_drawing = false;
    if (m_queue.empty())
        return;
    const Job job = m_queue.front();
    m_queue.pop_front();
    if (ok) {
        addRow(job);
        m_status->setText(tr("Epoch %1's samples are in %2.").arg(job.epoch + 1).arg(QDir::toNativeSeparators(job.folder)));
    } else {
        m_status->setText(tr("The samples of epoch %1 could not be drawn: %2").arg(job.epoch + 1).arg(message));
    }
    Q_EMIT rowDone(ok);
    startNext();
}

void SamplesPanel::addRow(const Job &job)
{
    const int row = rowCount();
    std::vector<QLabel *> labels;
    auto *title = new QLabel(tr("Epoch %1").arg(job.epoch + 1), this);
    m_grid->addWidget(title, row, 0, Qt::AlignTop);
    labels.push_back(title);
    const QDir folder(job.folder);
    for (int i = 0; i < job.prompts.size(); ++i) {
        const QString file = folder.filePath(QStringLiteral("sample-%1.png").arg(i, 3, 10, QLatin1Char('0')));
        auto *image = new QLabel(this);
        QPixmap pixmap(file);
        if (pixmap.isNull()) {
            image->setText(tr("(no %1)").arg(QFileInfo(file).fileName()));
        } else {
            image->setPixmap(pixmap.scaled(kImagePixels, kImagePixels, Qt::KeepAspectRatio, Qt::FastTransformation));
            image->setToolTip(tr("%1\n%2").arg(job.prompts[i], QDir::toNativeSeparators(file)));
            image->setAccessibleName(tr("Epoch %1: %2").arg(job.epoch + 1).arg(job.prompts[i]));
        }
        m_grid->addWidget(image, row, i + 1);
        labels.push_back(image);
    }
    m_rows.push_back(labels);
}

} // namespace splitscope
