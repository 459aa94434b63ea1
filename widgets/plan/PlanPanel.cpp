// SPDX-License-Identifier: MIT
#include "PlanPanel.h"

#include "PlanController.h"
#include "PlanModelsModel.h"
#include "PlanRunner.h"

#include "core/AtomicFile.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"

#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace splitscope {

namespace {

// The log keeps this many lines (tqdm's updates come several a second).
constexpr int kMaxLogLines = 5000;

QString stageName(int stage)
{
    return stage == 0 ? PlanPanel::tr("Stage one") : PlanPanel::tr("Stage two");
}

} // namespace

PlanPanel::PlanPanel(PlanController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_modelsModel(new PlanModelsModel(this))
{
    auto *layout = new QVBoxLayout(this);
    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    layout->addWidget(m_header);

    m_models = new QTableView(this);
    m_models->setModel(m_modelsModel);
    m_models->verticalHeader()->hide();
    m_models->horizontalHeader()->setStretchLastSection(false);
    m_models->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_models->horizontalHeader()->setSectionResizeMode(PlanModelsModel::EntryColumn, QHeaderView::Stretch);
    m_models->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_models->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_models->setTabKeyNavigation(false);
    m_models->setTextElideMode(Qt::ElideRight); // an entry's folder comes first and says most
    m_models->setWordWrap(false);
    m_models->setAccessibleName(tr("Model entries"));
    layout->addWidget(m_models);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (int stage = 0; stage < 2; ++stage) {
        auto *row = new QHBoxLayout;
        m_stageLabel[stage] = new QLabel(this);
        m_stageLabel[stage]->setWordWrap(true);
        m_copy[stage] = new QPushButton(tr("Copy"), this);
        m_copy[stage]->setToolTip(tr("Copy the %1 command").arg(stageName(stage).toLower()));
        connect(m_copy[stage], &QPushButton::clicked, this, [this, stage] { copyCommand(stage); });
        row->addWidget(m_stageLabel[stage], 1);
        row->addWidget(m_copy[stage]);
        layout->addLayout(row);
        m_command[stage] = new QPlainTextEdit(this);
        m_command[stage]->setReadOnly(true);
        m_command[stage]->setFont(mono);
        m_command[stage]->setLineWrapMode(QPlainTextEdit::NoWrap);
        m_command[stage]->setMinimumHeight(m_command[stage]->fontMetrics().lineSpacing() * 6);
        m_command[stage]->setAccessibleName(tr("%1 command").arg(stageName(stage)));
        layout->addWidget(m_command[stage], 1);
    }
    m_notes = new QLabel(this);
    m_notes->setWordWrap(true);
    m_notes->setTextFormat(Qt::RichText);
    layout->addWidget(m_notes);

    auto *buttons = new QHBoxLayout;
    m_save = new QPushButton(tr("Save as .sh…"), this);
    m_run = new QPushButton(tr("Run plan…"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_run->setToolTip(tr("Run both commands, one after the other, after you have seen them"));
    m_cancel->setToolTip(tr("Stop the running command (SIGINT to its process group, as Ctrl+C)"));
    buttons->addWidget(m_save);
    buttons->addStretch(1);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);
    connect(m_save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the plan as a script"),
            QStringLiteral("split_training.sh"), tr("Shell scripts (*.sh)"));
        if (!path.isEmpty())
            saveShell(path);
    });
    connect(m_run, &QPushButton::clicked, this, &PlanPanel::runPlan);
    connect(m_cancel, &QPushButton::clicked, m_controller->runner(), &PlanRunner::cancel);

    // What a run shows (its progress, memory and output) is hidden until the first run.
    m_runArea = new QWidget(this);
    auto *runLayout = new QVBoxLayout(m_runArea);
    runLayout->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(m_runArea);
    m_status->setWordWrap(true);
    m_progress = new QProgressBar(m_runArea);
    m_progress->setTextVisible(false); // the label above says it whole
    runLayout->addWidget(m_status);
    runLayout->addWidget(m_progress);

    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    m_x->setTitleText(tr("seconds"));
    m_y->setTitleText(tr("resident memory (MiB)"));
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (int stage = 0; stage < 2; ++stage) {
        m_rss[stage] = new QLineSeries;
        m_rss[stage]->setName(tr("%1: memory of its processes").arg(stageName(stage)));
        chart->addSeries(m_rss[stage]);
        m_rss[stage]->attachAxis(m_x);
        m_rss[stage]->attachAxis(m_y);
    }
    m_rss[0]->setColor(QColor(0x1c, 0x7e, 0xd6));
    m_rss[1]->setColor(QColor(0xe8, 0x59, 0x0c));
    m_chart = new QChartView(chart, m_runArea);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(160);
    runLayout->addWidget(m_chart);

    m_log = new QPlainTextEdit(m_runArea);
    m_log->setReadOnly(true);
    m_log->setFont(mono);
    m_log->setMaximumBlockCount(kMaxLogLines);
    m_log->setPlaceholderText(tr("The commands' output appears here when the plan runs."));
    m_log->setMinimumHeight(m_log->fontMetrics().lineSpacing() * 6);
    runLayout->addWidget(m_log, 1);
    m_runArea->hide();
    layout->addWidget(m_runArea, 2);

    m_confirm = [this](const QString &commands) {
        QMessageBox ask(QMessageBox::Question, tr("Run plan"),
            tr("Run these two commands, one after the other, in %1?").arg(
                QString::fromStdString(m_controller->current()->workdir)),
            QMessageBox::Cancel, this);
        QPushButton *run = ask.addButton(tr("Run both commands"), QMessageBox::AcceptRole);
        ask.setDetailedText(commands);
        ask.setInformativeText(tr("They run in your shell's environment. Show Details to read them exactly."));
        ask.exec();
        return ask.clickedButton() == run;
    };

    PlanRunner *runner = m_controller->runner();
    connect(runner, &PlanRunner::stageStarted, this, &PlanPanel::onStageStarted);
    connect(runner, &PlanRunner::output, this, &PlanPanel::onOutput);
    connect(runner, &PlanRunner::progress, this, &PlanPanel::onProgress);
    connect(runner, &PlanRunner::memory, this, &PlanPanel::onMemory);
    connect(runner, &PlanRunner::stageFinished, this, &PlanPanel::onStageFinished);
    connect(runner, &PlanRunner::finished, this, &PlanPanel::onFinished);
    connect(m_controller, &PlanController::planChanged, this, &PlanPanel::refresh);
    connect(m_controller, &PlanController::planFailed, this, &PlanPanel::refresh);
    connect(m_controller, &PlanController::planningChanged, this, &PlanPanel::refresh);
    refresh();
}

void PlanPanel::refresh()
{
    const auto plan = m_controller->current();
    m_modelsModel->setPlan(plan);
    // The table as high as its rows (a few entries), up to eight; then it scrolls.
    constexpr int kMostRows = 8;
    const int rows = std::clamp(m_modelsModel->rowCount(), 2, kMostRows);
    m_models->setFixedHeight(m_models->horizontalHeader()->sizeHint().height()
        + rows * (m_models->fontMetrics().height() + 8) + 2 * m_models->frameWidth()
        + m_models->horizontalScrollBar()->sizeHint().height());
    if (m_controller->isPlanning()) {
        m_header->setText(tr("<i>Planning…</i>"));
    } else if (!plan) {
        QString text = tr("File ▸ Plan DiffSynth training… reads a one-stage DiffSynth-Studio training command (a .sh "
                          "file, or one you paste) and writes the two commands of split training: what each stage "
                          "runs, and which models it must load.");
        for (const Diagnostic &d : m_controller->diagnostics())
            text += QStringLiteral("<br><span style='color:%1'>%2</span>")
                        .arg(theme::css(theme::Tone::Hazard, palette()), QString::fromStdString(d.toString()).toHtmlEscaped());
        m_header->setText(text);
    } else {
        m_header->setText(tr("<b>%1</b> from %2<br>Trained: %3")
                              .arg(QString::fromStdString(plan->pipeline).toHtmlEscaped(),
                                  QString::fromStdString(plan->source).toHtmlEscaped(),
                                  QString::fromStdString(plan->training).toHtmlEscaped()));
    }
    for (int stage = 0; stage < 2; ++stage) {
        const plan::PlannedStage *s = plan ? (stage == 0 ? &plan->stageOne : &plan->stageTwo) : nullptr;
        m_command[stage]->setPlainText(s ? QString::fromStdString(s->command) : QString());
        if (!s) {
            m_stageLabel[stage]->setText(QStringLiteral("<b>%1</b>").arg(stageName(stage)));
            continue;
        }
        QStringList models;
        for (const std::string &m : s->models)
            models << QString::fromStdString(m);
        m_stageLabel[stage]->setText(tr("<b>%1</b> (%2): %3; loads %4")
                                         .arg(stageName(stage), QString::fromStdString(s->task),
                                             countText(static_cast<qint64>(s->units.size()), tr("%n unit"), tr("%n units")),
                                             models.isEmpty() ? tr("no model") : models.join(QStringLiteral(", "))));
    }
    QString notes;
    if (plan) {
        for (const std::string &h : plan->hazards)
            notes += QStringLiteral("<span style='color:%1'>⚠ %2</span><br>")
                         .arg(theme::css(theme::Tone::Hazard, palette()), QString::fromStdString(h).toHtmlEscaped());
        for (const std::string &w : plan->warnings)
            notes += QStringLiteral("<span style='color:%1'>%2</span><br>")
                         .arg(theme::css(theme::Tone::Warning, palette()), QString::fromStdString(w).toHtmlEscaped());
    }
    m_notes->setText(notes);
    m_notes->setVisible(!notes.isEmpty());
    updateButtons();
}

void PlanPanel::updateButtons()
{
    const bool plan = m_controller->hasPlan() && !m_controller->isPlanning();
    const bool running = m_controller->runner()->isRunning();
    m_save->setEnabled(plan);
    m_copy[0]->setEnabled(plan);
    m_copy[1]->setEnabled(plan);
    m_run->setEnabled(plan && !running);
    m_cancel->setEnabled(running);
}

bool PlanPanel::runPlan()
{
    const auto plan = m_controller->current();
    if (!plan || m_controller->runner()->isRunning())
        return false;
    const QString one = QString::fromStdString(plan->stageOne.command);
    const QString two = QString::fromStdString(plan->stageTwo.command);
    if (!m_confirm(tr("# Stage one\n%1\n# Stage two\n%2").arg(one, two)))
        return false;
    m_log->clear();
    m_peak = 0;
    m_stageOneSeconds = 0;
    m_lastSeconds = 0;
    for (QLineSeries *series : m_rss)
        series->clear();
    m_x->setRange(0, 10);
    m_y->setRange(0, 100);
    m_runArea->show();
    const bool started = m_controller->runner()->start({one, two}, QString::fromStdString(plan->workdir));
    updateButtons();
    return started;
}

bool PlanPanel::saveShell(const QString &path)
{
    const auto plan = m_controller->current();
    std::string error;
    if (!plan || !writeFileAtomically(path.toStdString(), plan::planToShell(*plan), &error)) {
        if (plan)
            QMessageBox::warning(this, tr("Save the plan"), QString::fromStdString(error));
        return false;
    }
    QFile::setPermissions(path, QFile::permissions(path) | QFileDevice::ExeOwner | QFileDevice::ExeUser);
    return true;
}

void PlanPanel::copyCommand(int stage)
{
    QGuiApplication::clipboard()->setText(m_command[stage]->toPlainText());
}

void PlanPanel::onStageStarted(int stage, const QString &command)
{
    m_status->setText(tr("%1 running…").arg(stageName(stage)));
    m_progress->setRange(0, 0); // busy until tqdm says how far
    m_log->appendPlainText(QStringLiteral("$ ") + command.trimmed());
    if (stage == 1)
        m_stageOneSeconds = m_lastSeconds;
    updateButtons();
}

void PlanPanel::onOutput(int, const QString &line)
{
    m_log->appendPlainText(line);
}

void PlanPanel::onProgress(int stage, qint64 done, qint64 total)
{
    m_progress->setRange(0, static_cast<int>(std::min<qint64>(total, INT_MAX)));
    m_progress->setValue(static_cast<int>(std::min<qint64>(done, INT_MAX)));
    m_status->setText(tr("%1: %2 of %3").arg(stageName(stage)).arg(done).arg(total));
}

void PlanPanel::onMemory(int stage, double seconds, qint64 bytes)
{
    const double t = m_stageOneSeconds + seconds;
    m_lastSeconds = t;
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    m_rss[stage]->append(t, mib);
    m_peak = std::max(m_peak, bytes);
    m_x->setRange(0, std::max(10.0, t * 1.1));
    m_y->setRange(0, std::max(100.0, static_cast<double>(m_peak) / (1024.0 * 1024.0) * 1.15));
}

void PlanPanel::onStageFinished(int stage, int exitCode, bool crashed)
{
    const QString how = crashed ? tr("was stopped by a signal") : exitCode == 0 ? tr("finished") : tr("failed (exit status %1)").arg(exitCode);
    m_log->appendPlainText(tr("[%1 %2]").arg(stageName(stage), how));
}

void PlanPanel::onFinished(bool completed, bool cancelled)
{
    m_progress->setRange(0, 1);
    m_progress->setValue(completed ? 1 : 0);
    m_status->setText(completed ? tr("Both stages finished.")
            : cancelled          ? tr("Cancelled: the command was stopped.")
                                 : tr("Stopped: a stage failed (see the log)."));
    updateButtons();
}

QString PlanPanel::headerText() const
{
    return plainTextOf(m_header->text());
}

QString PlanPanel::commandText(int stage) const
{
    return m_command[stage]->toPlainText();
}

QString PlanPanel::notesText() const
{
    return plainTextOf(m_notes->text());
}

QString PlanPanel::statusText() const
{
    return m_status->text();
}

QString PlanPanel::logText() const
{
    return m_log->toPlainText();
}

int PlanPanel::progressValue() const
{
    return m_progress->value();
}

int PlanPanel::progressMaximum() const
{
    return m_progress->maximum();
}

int PlanPanel::memoryPoints() const
{
    return static_cast<int>(m_rss[0]->count() + m_rss[1]->count());
}

} // namespace splitscope
