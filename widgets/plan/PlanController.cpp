// SPDX-License-Identifier: MIT
#include "PlanController.h"

#include "PlanRunner.h"
#include "widgets/document/SplitDocument.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace splitscope {

struct PlanController::Job {
    QFutureWatcher<plan::PlanResult> watcher;
};

PlanController::PlanController(SplitDocument *document, QObject *parent)
    : QObject(parent), m_document(document), m_runner(new PlanRunner(this))
{
    connect(document, &SplitDocument::trainingChanged, this, &PlanController::onTrainingChanged);
}

PlanController::~PlanController()
{
    if (m_running)
        m_running->watcher.waitForFinished();
}

void PlanController::plan(const plan::PlanInput &input)
{
    m_input = input;
    start(true);
}

void PlanController::start(bool adopt)
{
    const quint64 job = ++m_job;
    if (m_running)
        m_running->watcher.waitForFinished(); // planning is short; one at a time keeps it simple
    m_running = std::make_unique<Job>();
    connect(&m_running->watcher, &QFutureWatcher<plan::PlanResult>::finished, this, [this, job, adopt] {
        finish(job, m_running->watcher.result(), adopt);
    });
    if (!m_planning) {
        m_planning = true;
        Q_EMIT planningChanged(true);
    }
    const plan::PlanInput input = m_input;
    m_running->watcher.setFuture(QtConcurrent::run([input] { return plan::makePlan(input); }));
}

void PlanController::waitForPlan()
{
    // Done or not, the job's finished() may still be queued: deliver it.
    while (m_planning && m_running) {
        m_running->watcher.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void PlanController::finish(quint64 job, const plan::PlanResult &result, bool adopt)
{
    if (job != m_job)
        return; // a newer plan is coming
    m_planning = false;
    Q_EMIT planningChanged(false);
    m_diagnostics = result.diagnostics;
    if (!result.plan) {
        Q_EMIT planFailed();
        return;
    }
    m_plan = std::make_shared<const plan::Plan>(*result.plan);
    if (adopt) {
        // Show what was planned against, split as the command trains it.
        m_adopting = true;
        PipelineSource source;
        source.importedFrom = QString::fromStdString(m_plan->trainScript.empty() ? m_input.scriptName : m_plan->trainScript);
        m_document->setPipeline(m_plan->description, source, result.diagnostics);
        TrainingChoice choice = TrainingChoice::fromConfig(m_plan->trainingConfig, m_document->training().mode);
        choice.mode = SplitMode::Seed; // DiffSynth runs its own split in both stages
        m_document->setTraining(choice);
        m_adopting = false;
    }
    Q_EMIT planChanged();
}

void PlanController::onTrainingChanged()
{
    if (m_adopting || !m_plan || m_input.script.empty())
        return;
    const TrainingConfig wanted = m_document->training().toConfig();
    if (wanted.trainableModels == m_plan->trainingConfig.trainableModels
        && wanted.loraBaseModel == m_plan->trainingConfig.loraBaseModel)
        return;
    m_input.training = wanted;
    start(false);
}

} // namespace splitscope
