// SPDX-License-Identifier: MIT
#include "SplitDocument.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace splitscope {

// One re-split: split A, and split B with the diff when a comparison is on.
struct SplitDocument::Results {
    std::shared_ptr<const SplitAnalysis> analysis;
    std::shared_ptr<const SplitAnalysis> comparison;
    std::shared_ptr<const SplitDiff> diff;
};

SplitDocument::SplitDocument(QObject *parent) : QObject(parent) {}

SplitDocument::~SplitDocument() = default;

bool SplitDocument::openSource(const QString &pathOrExample)
{
    m_lastAttempt = pathOrExample;
    return adopt(loadPipelineSource(pathOrExample), false);
}

bool SplitDocument::openFile(const QString &path)
{
    m_lastAttempt = path;
    return adopt(loadPipelineFromFile(path), false);
}

bool SplitDocument::openExample(const QString &name)
{
    m_lastAttempt = name;
    return adopt(loadBuiltinExample(name), false);
}

bool SplitDocument::reload()
{
    if (!m_failedPath.isEmpty() && (QFileInfo::exists(m_failedPath) || !hasPipeline()))
        return retryFailed();
    return reloadOpenPipeline();
}

bool SplitDocument::retryFailed()
{
    if (m_failedPath.isEmpty())
        return false;
    const QString path = m_failedPath;
    m_lastAttempt = path;
    return adopt(loadPipelineFromFile(path), path == m_source.path);
}

bool SplitDocument::reloadOpenPipeline()
{
    if (!hasPipeline())
        return false;
    if (!m_source.exampleName.isEmpty()) {
        m_lastAttempt = m_source.exampleName;
        return adopt(loadBuiltinExample(m_source.exampleName), true);
    }
    if (m_source.path.isEmpty())
        return false; // an import that was never saved: nothing to read again
    m_lastAttempt = m_source.path;
    return adopt(loadPipelineFromFile(m_source.path), true);
}

bool SplitDocument::setPipeline(Pipeline pipeline, const PipelineSource &source, const Diagnostics &diagnostics)
{
    SourcedLoad load;
    load.result.pipeline = std::move(pipeline);
    load.result.diagnostics = diagnostics;
    load.source = source;
    m_lastAttempt = source.displayName();
    return adopt(std::move(load), false);
}

void SplitDocument::reportLoadFailure(const QString &attempt, const Diagnostics &diagnostics)
{
    m_lastAttempt = attempt;
    SourcedLoad load;
    load.result.diagnostics = diagnostics;
    adopt(std::move(load), false);
}

bool SplitDocument::adopt(SourcedLoad load, bool keepChoice)
{
    if (!load.result.ok()) {
        // The open pipeline stays; only the diagnostics change.
        m_diagnostics = std::move(load.result.diagnostics);
        m_lastLoadFailed = true;
        m_failedPath = load.source.path; // a file to retry; empty for an example or an import
        Q_EMIT diagnosticsChanged();
        Q_EMIT loadFailed(m_lastAttempt);
        return false;
    }
    const std::string previousUnit = (hasPipeline() && m_currentUnit != kNoUnit) ? m_graph->unitName(m_currentUnit)
                                                                                   : std::string();
    const bool samePipeline = keepChoice && hasPipeline();
    m_pipeline = std::make_shared<const Pipeline>(std::move(*load.result.pipeline));
    m_graph = std::make_shared<const PipelineGraph>(*m_pipeline);
    m_source = std::move(load.source);
    m_diagnostics = std::move(load.result.diagnostics);
    m_lastLoadFailed = false;
    m_failedPath.clear();
    if (samePipeline) {
        m_training.restrictTo(modelNames());
        m_compareConfiguration.restrictTo(modelNames());
    } else {
        m_training = TrainingChoice::fromConfig(m_pipeline->trainingOrDefault(), m_training.mode);
        m_training.restrictTo(modelNames());
        m_compareKind = CompareKind::None;
    }
    m_analysis.reset();
    m_comparison.reset();
    m_diff.reset();
    ++m_splitJob; // results for the old graph must not land on the new one
    m_currentUnit = samePipeline && !previousUnit.empty() ? m_graph->findUnit(previousUnit) : kNoUnit;

    Q_EMIT diagnosticsChanged();
    Q_EMIT pipelineReset();
    Q_EMIT trainingChanged();
    resplit();
    Q_EMIT currentUnitChanged(m_currentUnit);
    return true;
}

std::vector<std::string> SplitDocument::modelNames() const
{
    std::vector<std::string> names;
    if (!hasPipeline())
        return names;
    for (const ModelSpec &m : m_pipeline->models)
        names.push_back(m.name);
    for (ModelId m = 0; m < m_graph->modelCount(); ++m) {
        const std::string &name = m_graph->modelName(m);
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

void SplitDocument::setTraining(const TrainingChoice &choice)
{
    if (choice == m_training)
        return;
    m_training = choice;
    Q_EMIT trainingChanged();
    resplit();
}

void SplitDocument::setModelTrainable(const std::string &model, bool trainable)
{
    TrainingChoice choice = m_training;
    choice.setTrainable(model, trainable, modelNames());
    setTraining(choice);
}

void SplitDocument::setLoraBase(const std::optional<std::string> &model)
{
    TrainingChoice choice = m_training;
    choice.loraBase = (model && !model->empty()) ? model : std::nullopt;
    setTraining(choice);
}

void SplitDocument::setSplitMode(SplitMode mode)
{
    TrainingChoice choice = m_training;
    choice.mode = mode;
    setTraining(choice);
}

std::vector<TrainingChoice> SplitDocument::presets() const
{
    std::vector<TrainingChoice> out;
    if (!hasPipeline())
        return out;
    auto add = [&](const TrainingConfig &config) {
        TrainingChoice choice = TrainingChoice::fromConfig(config);
        if (std::find(out.begin(), out.end(), choice) == out.end())
            out.push_back(choice);
    };
    add(m_pipeline->trainingOrDefault());
    if (m_pipeline->alternativeTraining) {
        for (const TrainingConfig &config : *m_pipeline->alternativeTraining)
            add(config);
    }
    return out;
}

TrainingChoice SplitDocument::comparisonChoice() const
{
    if (m_compareKind == CompareKind::OtherMode) {
        TrainingChoice other = m_training;
        other.mode = m_training.mode == SplitMode::Seed ? SplitMode::Safe : SplitMode::Seed;
        return other;
    }
    return m_compareConfiguration;
}

void SplitDocument::setComparison(CompareKind kind, const TrainingChoice &configuration)
{
    if (kind == m_compareKind && (kind != CompareKind::Configuration || configuration == m_compareConfiguration))
        return;
    m_compareKind = kind;
    if (kind == CompareKind::Configuration)
        m_compareConfiguration = configuration;
    resplit();
}

void SplitDocument::setCurrentUnit(UnitId unit)
{
    if (!hasPipeline() || unit < 0 || unit > m_graph->lossId())
        unit = kNoUnit;
    if (unit == m_currentUnit)
        return;
    m_currentUnit = unit;
    Q_EMIT currentUnitChanged(unit);
}

void SplitDocument::resplit()
{
    if (!hasPipeline())
        return;
    const quint64 job = ++m_splitJob;
    auto work = [graph = m_graph, a = m_training, compare = m_compareKind != CompareKind::None,
                    b = comparisonChoice()]() {
        Results r;
        r.analysis = std::make_shared<const SplitAnalysis>(
            analyzeSplit(*graph, a.modelsRequiringBackward(), a.mode));
        if (compare) {
            r.comparison = std::make_shared<const SplitAnalysis>(
                analyzeSplit(*graph, b.modelsRequiringBackward(), b.mode));
            r.diff = std::make_shared<const SplitDiff>(diffSplits(*graph, r.analysis->split, r.comparison->split));
        }
        return r;
    };
    if (m_graph->unitCount() <= m_asyncThreshold) {
        apply(job, work());
        return;
    }
    setSplitting(true);
    // Reported through the event loop (see LayoutController::relayout for why).
    auto *watcher = new QFutureWatcher<Results>(this);
    connect(watcher, &QFutureWatcher<Results>::finished, this, [this, watcher, job]() {
        apply(job, watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void SplitDocument::apply(quint64 job, const Results &results)
{
    if (job != m_splitJob)
        return; // superseded: a newer choice or pipeline is being split
    setSplitting(false);
    const std::shared_ptr<const SplitAnalysis> previous = m_analysis;
    m_analysis = results.analysis;
    const bool comparisonWas = m_comparison != nullptr;
    m_comparison = results.comparison;
    m_diff = results.diff;
    const int n = m_graph->unitCount();
    for (UnitId u = 0; u < n; ++u) {
        if (!previous || previous->split.isTrained(u) != m_analysis->split.isTrained(u))
            Q_EMIT unitStageChanged(u);
    }
    Q_EMIT analysisChanged();
    if (comparisonWas || m_comparison)
        Q_EMIT comparisonChanged();
}

void SplitDocument::setSplitting(bool busy)
{
    if (busy == m_splitting)
        return;
    m_splitting = busy;
    Q_EMIT splittingChanged(busy);
}

} // namespace splitscope
