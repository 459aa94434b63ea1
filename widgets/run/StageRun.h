// SPDX-License-Identifier: MIT
#pragma once

#include "RunConfig.h"

#include <QJsonObject>
#include <QMap>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

#include <limits>

namespace splitscope {

struct RunEvent;

// One worker process of a launch and everything its events said: the live state
// (progress, the unit running now, memory, cache bytes), the series the charts
// draw, and how it ended. Filled by apply() from the events in order; a value
// type, also what the run history stores (with thinned series).
struct StageRun {
    enum class Outcome {
        Running,   // the process is going (or starting)
        Finished,  // exit status 0
        Cancelled, // exit status 4: stopped by SIGINT/SIGTERM, finished work kept
        Failed,    // another exit status (1 failed, 2 bad input, 3 hazards), or it could not start
        Crashed    // killed by a signal without its `done` event
    };

    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    // Weight of the exponential moving average of the smoothed loss curve (with
    // TensorBoard's bias correction, so the first points are not pulled to zero).
    static constexpr double kSmoothing = 0.9;

    RunStage stage = RunStage::StageOne;
    QString command;           // the equivalent command line (without --events)
    double startOffset = 0;    // seconds from the launch's start to this process's start
    // The launch time of the worker's time 0 (its clock starts when its run does,
    // after LibTorch has loaded): memory points from events and from the GUI's own
    // samples share the launch's clock. NaN until the first event.
    double clockOffset = kNaN;
    double processSeconds = -1; // start to exit as the GUI measured it (LibTorch's load included)
    double priorSeconds = 0;    // a resumed stage: its earlier processes' time (processSeconds includes it)

    // From `start`.
    bool started = false;
    qint64 pid = 0;
    bool resumed = false;
    int threads = 0;
    QStringList stageOneUnits;
    QStringList stageTwoUnits;
    QStringList cacheSet;

    // Live state.
    qint64 done = 0;  // samples (stage one) or optimizer steps (training)
    qint64 total = 0;
    int epoch = -1;   // 0-based, -1 before the first step
    int epochs = 0;
    double samplesPerSecond = kNaN;
    double etaSeconds = kNaN;
    qint64 cacheWritten = 0;
    qint64 cacheRead = 0;
    QString unit;     // the unit running now (stage one and one-stage), "" between units
    qint64 unitSample = -1;
    qint64 rss = 0;
    qint64 peakRss = 0;
    QMap<QString, qint64> modelBytes; // the latest memory event's loaded weights
    double lastTime = 0;              // the latest event's time (worker clock)
    qint64 events = 0;                // events received
    double trainStartTime = kNaN;     // worker time of the training loop's `stage` event
    double lastEpochEnd = kNaN;       // worker time of the latest `epoch` event
    double ema = 0;                   // the loss average before bias correction
    double emaDecay = 1;              // kSmoothing^steps: the bias correction's term

    // Series. Loss: x = global step. Memory: x = seconds since the launch began.
    QVector<QPointF> loss;
    QVector<QPointF> smoothedLoss;
    QVector<QPointF> epochLoss;  // x: the last step of the epoch, y: its mean loss
    QVector<double> epochSeconds;
    QVector<QPointF> memory;     // y: RSS bytes
    QStringList models;          // in order of first appearance
    QVector<QVector<QPointF>> modelMemory; // per model, same x as `memory`, y: bytes loaded
    // With several ranks (--nproc_per_node): the fields above are rank 0's; the other
    // ranks' resident memory (x as `memory`), and in stage one how many samples of its
    // share each has cached (done, total). Live only: the history keeps rank 0's.
    int worldSize = 1;
    QMap<int, QVector<QPointF>> rankMemory;
    QMap<int, QPair<qint64, qint64>> rankProgress;

    // The end.
    Outcome outcome = Outcome::Running;
    int exitCode = -1;   // the exit status, or the signal when crashed
    double wallSeconds = kNaN; // done.wall_s
    double finalLoss = kNaN;
    qint64 steps = 0;
    qint64 samples = 0;
    QMap<QString, QString> outputs; // done.outputs: checkpoint, loss_csv, cache, resume_state, ...
    QStringList errors;             // messages of `error` events
    QStringList warnings;           // messages of `warning` events
    QStringList stderrTail;         // the last lines of standard error
    QString failure;                // what went wrong, for people ("" when it finished)

    // Folds one event in. Returns true when it changed what the progress line shows.
    bool apply(const RunEvent &event);
    // An event of a rank other than 0 (its memory, its stage-one progress).
    bool applyOtherRank(const RunEvent &event, int rank);
    // Makes a stage that was cancelled or crashed running again, for a resumed worker:
    // its series, steps and time so far stay (the worker counts steps on from its
    // checkpoint), how it ended and the old worker's clock go.
    void reopen();
    // A resident-memory sample the GUI took itself (at `launchSeconds`), between
    // the worker's memory events (about one a second); loaded model bytes carry over.
    void addMemorySample(double launchSeconds, qint64 rssBytes);
    bool isTraining() const { return stage != RunStage::StageOne; }
    bool isRunning() const { return outcome == Outcome::Running; }
    // 0..1, or -1 before the total is known.
    double fraction() const;
    // Mean seconds per finished epoch (training stages), NaN before the first.
    double meanEpochSeconds() const;
    // The peak RSS: the worker's own figure, else the largest sample.
    qint64 peakMemory() const;

    // History form: series thinned to at most `maxPoints` each (first and last kept).
    QJsonObject toJson(int maxPoints) const;
    static StageRun fromJson(const QJsonObject &json);
};

QString outcomeKey(StageRun::Outcome outcome);
// Thins `points` to at most `maxPoints`, keeping the first and the last.
QVector<QPointF> thinned(const QVector<QPointF> &points, int maxPoints);

} // namespace splitscope
