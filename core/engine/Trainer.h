// SPDX-License-Identifier: MIT
#pragma once

#include "CacheManifest.h"
#include "Engine.h"
#include "FlowMatchScheduler.h"
#include "MemoryEstimate.h"
#include "ModelFiles.h"
#include "RunFolder.h"
#include "TinyQwenImage.h"
#include "Values.h"
#include "core/PipelineGraph.h"
#include "core/Split.h"
#include "core/Verifier.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace splitscope::engine {

class Dataset;
class ImageDataset;
class ModelSet;
class ProcessGroup;
struct DatasetSample;
struct ResumePoint;
class StageOneRun;
class TrainingRun;

// One run of `train`: checks the flags, computes the split with the core, then runs
// the task's stage (one-stage training, stage one, or stage two). Private to the
// engine; train() (Engine.h) is the public face.
class Trainer {
public:
    Trainer(const TrainParams &params, const TrainCallbacks &callbacks, EventSink &events);
    ~Trainer();
    TrainResult run();

private:
    // The runs of the stages (StageOne.cpp, TrainingLoop.cpp) work in this context.
    friend class StageOneRun;
    friend class TrainingRun;

    // A failure with its status and error-event code (user input -> kTrainBadInput).
    struct Failure {
        int status;
        std::string code;
        std::string message;
    };
    static Failure badInput(const std::string &code, const std::string &message);
    // The flags against the task and the pipeline, the split, the model files.
    std::optional<Failure> prepare();
    std::optional<Failure> checkNumbers() const;
    // The dataset columns the pipeline reads against --data_file_keys.
    std::optional<Failure> checkInputColumns() const;
    std::optional<Failure> checkTrainedModels();
    // This stage's units and cache set from the core's split, or every unit.
    std::optional<Failure> computeStageSplit();
    std::optional<Failure> resolveModelFiles();
    TrainResult runDataProcess();
    TrainResult runTraining();
    // With torchrun's environment (DistributedEnvironment.h): joins the process group.
    std::optional<Failure> joinProcessGroup();
    // After joining: whether any rank was asked to stop before its work began (then
    // every rank stops: `cancelled`), and that every rank was given the same flags.
    std::optional<Failure> agreeOnStart(bool &cancelled);
    // Compares `facts` (what, value) across the ranks, naming the first rank whose
    // value differs from rank 0's. With `stopAnywhere`, also sets it when any rank
    // passed `stopHere` true.
    std::optional<Failure> agreeAcrossRanks(const std::string &name,
        const std::vector<std::pair<std::string, std::string>> &facts, bool stopHere = false,
        bool *stopAnywhere = nullptr);
    int rank() const;      // 0 when alone
    int worldSize() const; // 1 when alone
    // Rank 0 writes what the run leaves (checkpoints, loss.csv, training_args.json, the
    // resume state, the manifest); the other ranks compute and write nothing but their
    // own cache shards.
    bool writesRunFiles() const { return rank() == 0; }

    // The pipeline inputs of one dataset row (DiffSynth's get_pipeline_inputs).
    ValueMap pipelineInputs(const DatasetSample &sample) const;
    std::optional<Failure> openDataset(ImageDataset &dataset) const;
    std::vector<std::string> stageModels(const std::vector<int> &units, bool withLoss) const;
    CacheManifest wantedManifest(const ImageDataset &dataset, const std::vector<std::pair<std::string, std::uint64_t>> &hashes) const;
    std::optional<Failure> checkManifest(const CacheManifest &manifest);
    // Stage two: the dataset a cache was made from, when it is still there, against the
    // fingerprint stage one recorded.
    std::optional<Failure> checkCachedDataset(const CacheManifest &manifest);
    // --resume: refuses a state that --max_steps or --num_epochs leaves nothing to do.
    std::optional<Failure> checkResumePoint(const ResumePoint &point, std::size_t samplesPerEpoch) const;

    // A flag this stage does not use: stage one trains nothing; stage two reads what
    // stage one's flags shaped from the cache; one-stage training has no split and no
    // cache.
    struct IgnoredFlag {
        std::string name;  // without the dashes
        std::string value; // as the command line gives it; empty for a switch
        bool given = false; // not the default (which TrainParams cannot tell from a flag given its default value)
    };
    std::vector<IgnoredFlag> ignoredFlags() const;
    // One `ignored-flag` warning a flag given to this stage that it ignores (shown after
    // `start`); `manifest` (stage two) says what the cache was made with.
    void warnIgnoredFlags(const CacheManifest *manifest);
    // training_args.json: the flags this run uses, by DiffSynth's names, and under
    // "ignored" those it was given but does not use. The resume state keeps it too.
    std::string settingsJson() const;
    void emitStart(const std::string &stage);
    void emitMemory(const ModelSet &models, std::uint64_t cacheWritten, std::uint64_t cacheRead);
    bool aborted() const;
    TrainResult fail(const Failure &failure);
    // Locks --output_path for this run (RunFolder.h), creating it first when `create`;
    // a folder that does not exist (and is not created) is not locked. With `create`
    // (the run goes on to write there) it also removes the temporary files an
    // interrupted run left there.
    std::optional<Failure> lockOutputFolder(bool create, bool shardFolders);
public:
    // After a run that ended without training anything: removes --output_path (and the
    // folders above it) when this run made it and it is still empty.
    void removeUnusedOutputFolder();

private:
    // What this stage's step (or stage-one sample) holds in memory besides its inputs:
    // the models it runs and trains, and their weight bytes (MemoryEstimate.h).
    StepMemory stepMemory() const;
    // Refuses a step (or stage-one sample) of these inputs that would not fit in the
    // memory this process may use (MemoryEstimate.h); `source` says where the size
    // came from, for the message.
    std::optional<Failure> checkStepMemory(const StepSize &size, const std::string &source) const;
    // The same for the largest inputs of a dataset: its largest training size, with
    // its largest edit image (as stored, and resized to the training size).
    std::optional<Failure> checkDatasetStepMemory(const ImageDataset &dataset) const;
    // "--height 512 --width 512", or "the largest image, fitted to --max_pixels N".
    std::string trainingSizeSource() const;

    const TrainParams &m_params;
    const TrainCallbacks &m_callbacks;
    EventSink &m_events;
    TaskSpec m_task;
    const PipelineDeclaration *m_declaration = nullptr;
    const LossDeclaration *m_loss = nullptr;
    Pipeline m_pipeline;
    std::unique_ptr<PipelineGraph> m_graph;
    std::vector<std::string> m_modelsRequiringBackward;
    Split m_split;
    Verification m_verification;
    std::vector<int> m_units; // what this stage runs, in pipeline order
    std::vector<std::string> m_cacheSet;
    std::vector<ResolvedModel> m_models;
    std::set<std::string> m_offloaded;
    std::vector<std::pair<std::string, std::string>> m_pendingWarnings; // (code, message), shown after `start`
    int m_threads = 1;
    // The estimate checkStepMemory made (0: none), reported in memory events.
    mutable std::uint64_t m_estimatedStepBytes = 0;
    FolderLock m_outputLock; // --output_path, while the run uses it
    bool m_createdOutputFolder = false; // lockOutputFolder made --output_path
    std::string m_createdOutputRoot;    // the first folder of its path that it made
    std::unique_ptr<ProcessGroup> m_group; // with torchrun's environment
    FolderLock m_cacheLock; // stage two: the cache it reads (shared), so that no stage one rewrites it meanwhile
};

} // namespace splitscope::engine
