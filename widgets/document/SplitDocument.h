// SPDX-License-Identifier: MIT
#pragma once

#include "PipelineSource.h"
#include "core/TrainingChoice.h"

#include "core/Explain.h"
#include "core/SplitReport.h"

#include <QObject>

#include <memory>

namespace splitscope {

// The open pipeline and everything computed from it: the document every view
// observes (in the manner of QtNodes' AbstractGraphModel). It holds the loaded
// Pipeline, its PipelineGraph, the user's training choice, the current split
// analysis, an optional second split to compare with, and the current unit.
// Views never store pipeline state; they read it here and react to the signals.
//
// The core computes everything (split, trace, verification, cache set, diff). A
// re-split runs on the GUI thread for pipelines up to asyncThreshold() units (a
// split of a real pipeline takes microseconds) and on a worker thread above it;
// each re-split has a job id and results of superseded jobs are dropped.
//
// Loading never loses the open pipeline: a file that fails to load leaves the
// current document as it was, records the errors in diagnostics() and emits
// loadFailed().
//
// Lives on the GUI thread; not thread-safe.
class SplitDocument : public QObject {
    Q_OBJECT
public:
    // What the second split of a comparison is.
    enum class CompareKind {
        None,         // no comparison
        OtherMode,    // the current models with the other split mode (seed vs safe)
        Configuration // a training choice of its own (comparisonChoice())
    };

    explicit SplitDocument(QObject *parent = nullptr);
    ~SplitDocument() override;

    // --- loading (true when the pipeline was replaced) ---
    bool openSource(const QString &pathOrExample);
    bool openFile(const QString &path);
    bool openExample(const QString &name);
    // File > Reload: retries the file whose last load failed (retryFailed(); a file
    // that failed at startup, or one just opened with errors, may be fixed now) while
    // it exists, else loads the open pipeline's source again (reloadOpenPipeline()).
    bool reload();
    // Loads failedPath() again; false (nothing done) when there is none.
    bool retryFailed();
    // Loads the open pipeline's source again, keeping the training choice (models
    // that are gone are dropped) and the current unit when its name still exists.
    // A retry of failedPath() keeps them the same way when it is the open file.
    bool reloadOpenPipeline();
    // Shows a pipeline built in memory (an import); `diagnostics` are shown as warnings.
    bool setPipeline(Pipeline pipeline, const PipelineSource &source, const Diagnostics &diagnostics = {});
    // Records a failed load that happened elsewhere (an import): like a file that
    // does not load, the open pipeline stays and the errors are shown.
    void reportLoadFailure(const QString &attempt, const Diagnostics &diagnostics);

    bool hasPipeline() const { return m_graph != nullptr; }
    const Pipeline &pipeline() const { return *m_pipeline; }             // requires hasPipeline()
    const PipelineGraph &graph() const { return *m_graph; }              // requires hasPipeline()
    std::shared_ptr<const PipelineGraph> sharedGraph() const { return m_graph; }
    const PipelineSource &source() const { return m_source; }
    // Diagnostics of the last load attempt: its errors when it failed, else the
    // warnings and notes of the pipeline now open.
    const Diagnostics &diagnostics() const { return m_diagnostics; }
    bool lastLoadFailed() const { return m_lastLoadFailed; }
    QString lastAttempt() const { return m_lastAttempt; } // what the last load tried to open
    // The file (absolute path) the last load failed to read, when it failed and was a
    // file (not an example name or an import); else empty.
    QString failedPath() const { return m_failedPath; }
    // Declared models, then models units call without declaring them.
    std::vector<std::string> modelNames() const;

    // --- training configuration; each change re-splits at once ---
    const TrainingChoice &training() const { return m_training; }
    void setTraining(const TrainingChoice &choice);
    void setModelTrainable(const std::string &model, bool trainable);
    void setLoraBase(const std::optional<std::string> &model);
    void setSplitMode(SplitMode mode);
    // The document's `training` block followed by its `alternative_training` entries.
    std::vector<TrainingChoice> presets() const;

    // --- the current split ---
    // Null while the first split of a large pipeline is still computing.
    std::shared_ptr<const SplitAnalysis> analysis() const { return m_analysis; }
    bool isSplitting() const { return m_splitting; }
    int asyncThreshold() const { return m_asyncThreshold; }
    void setAsyncThreshold(int units) { m_asyncThreshold = units; }

    // --- comparison ---
    CompareKind compareKind() const { return m_compareKind; }
    // The training choice of split B (derived from training() for OtherMode).
    TrainingChoice comparisonChoice() const;
    void setComparison(CompareKind kind, const TrainingChoice &configuration = {});
    std::shared_ptr<const SplitAnalysis> comparison() const { return m_comparison; }
    std::shared_ptr<const SplitDiff> diff() const { return m_diff; }

    // --- the current unit (kNoUnit: none; graph().lossId(): the loss) ---
    UnitId currentUnit() const { return m_currentUnit; }
    void setCurrentUnit(UnitId unit);

Q_SIGNALS:
    // A new pipeline (or a reload): unit ids, the graph and the layout are new.
    void pipelineReset();
    void loadFailed(const QString &source);
    void diagnosticsChanged();
    void trainingChanged();
    // Id-keyed: `unit` changed stage in the new analysis (emitted before analysisChanged).
    void unitStageChanged(UnitId unit);
    void analysisChanged();
    void comparisonChanged();
    void splittingChanged(bool busy);
    void currentUnitChanged(UnitId unit);

private:
    struct Results;
    bool adopt(SourcedLoad load, bool keepChoice);
    void resplit();
    void apply(quint64 job, const Results &results);
    void setSplitting(bool busy);

    std::shared_ptr<const Pipeline> m_pipeline;
    std::shared_ptr<const PipelineGraph> m_graph;
    PipelineSource m_source;
    Diagnostics m_diagnostics;
    bool m_lastLoadFailed = false;
    QString m_lastAttempt;
    QString m_failedPath;

    TrainingChoice m_training;
    std::shared_ptr<const SplitAnalysis> m_analysis;
    CompareKind m_compareKind = CompareKind::None;
    TrainingChoice m_compareConfiguration;
    std::shared_ptr<const SplitAnalysis> m_comparison;
    std::shared_ptr<const SplitDiff> m_diff;

    UnitId m_currentUnit = kNoUnit;
    quint64 m_splitJob = 0;
    bool m_splitting = false;
    int m_asyncThreshold = kDefaultAsyncThreshold;

    static constexpr int kDefaultAsyncThreshold = 5000; // units; a seed split of this size takes ~1 ms
};

} // namespace splitscope
