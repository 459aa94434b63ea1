// SPDX-License-Identifier: MIT
#include "StageRun.h"

#include "RunEvent.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

QStringList stringList(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out << v.toString();
    return out;
}

QJsonArray pointsToJson(const QVector<QPointF> &points)
{
    // Flat [x0, y0, x1, y1, ...]: half the size of an array of pairs.
    QJsonArray out;
    for (const QPointF &p : points) {
        out.append(p.x());
        out.append(p.y());
    }
    return out;
}

QVector<QPointF> pointsFromJson(const QJsonValue &value)
{
    const QJsonArray flat = value.toArray();
    QVector<QPointF> out;
    out.reserve(flat.size() / 2);
    for (qsizetype i = 0; i + 1 < flat.size(); i += 2)
        out.append(QPointF(flat.at(i).toDouble(), flat.at(i + 1).toDouble()));
    return out;
}

// NaN is not JSON: it is written as null and read back as NaN.
QJsonValue numberOrNull(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

double numberOrNaN(const QJsonValue &value)
{
    return value.isDouble() ? value.toDouble() : StageRun::kNaN;
}

} // namespace

QString outcomeKey(StageRun::Outcome outcome)
{
    switch (outcome) {
    case StageRun::Outcome::Running:
        return QStringLiteral("running");
    case StageRun::Outcome::Finished:
        return QStringLiteral("finished");
    case StageRun::Outcome::Cancelled:
        return QStringLiteral("cancelled");
    case StageRun::Outcome::Failed:
        return QStringLiteral("failed");
    case StageRun::Outcome::Crashed:
        break;
    }
    return QStringLiteral("crashed");
}

QVector<QPointF> thinned(const QVector<QPointF> &points, int maxPoints)
{
    if (maxPoints < 2 || points.size() <= maxPoints)
        return points;
    QVector<QPointF> out;
    out.reserve(maxPoints);
    const double stride = static_cast<double>(points.size() - 1) / (maxPoints - 1);
    for (int i = 0; i < maxPoints; ++i)
        out.append(points.at(std::min<qsizetype>(points.size() - 1, std::llround(i * stride))));
    return out;
}

void StageRun::reopen()
{
    pid = 0; // the new process names itself in its start event
    outcome = Outcome::Running;
    exitCode = -1;
    failure.clear();
    stderrTail.clear();
    clockOffset = kNaN;
    trainStartTime = kNaN;
    lastEpochEnd = kNaN;
    wallSeconds = kNaN;
    finalLoss = kNaN;
    etaSeconds = kNaN;
    samplesPerSecond = kNaN;
    unit.clear();
    unitSample = -1;
    rss = 0;
    modelBytes.clear();
    started = false;
    lastTime = 0;
    priorSeconds = processSeconds >= 0 ? processSeconds : priorSeconds;
    processSeconds = -1;
}

bool StageRun::applyOtherRank(const RunEvent &event, int rank)
{
    switch (event.kind) {
    case RunEvent::Kind::Memory: {
        const double x = (std::isfinite(clockOffset) ? clockOffset : startOffset) + event.time;
        QVector<QPointF> &series = rankMemory[rank];
        series.append(QPointF(series.isEmpty() ? x : std::max(x, series.constLast().x()),
            static_cast<double>(event.integer("rss_bytes", 0))));
        return false;
    }
    case RunEvent::Kind::Progress:
        rankProgress[rank] = {event.integer("done", 0), event.integer("total", 0)};
        return true;
    default:
        return false;
    }
}

bool StageRun::apply(const RunEvent &event)
{
    if (const qint64 rank = event.integer("rank", 0); rank > 0)
        return applyOtherRank(event, static_cast<int>(rank));
    ++events;
    lastTime = std::max(lastTime, event.time);
    switch (event.kind) {
    case RunEvent::Kind::Start:
        started = true;
        pid = event.integer("pid");
        resumed = event.fields.value(QLatin1String("resumed")).toBool();
        threads = static_cast<int>(event.integer("num_threads"));
        worldSize = static_cast<int>(event.integer("world_size", 1));
        stageOneUnits = stringList(event.fields.value(QLatin1String("stage_one_units")));
        stageTwoUnits = stringList(event.fields.value(QLatin1String("stage_two_units")));
        cacheSet = stringList(event.fields.value(QLatin1String("cache_set")));
        return true;
    case RunEvent::Kind::Stage:
        if (isTraining()) {
            total = event.integer("total_steps", total);
            epochs = static_cast<int>(event.integer("epochs", epochs));
            if (!std::isfinite(trainStartTime))
                trainStartTime = event.time;
        } else {
            total = event.integer("total_samples", total);
        }
        return true;
    case RunEvent::Kind::Unit:
        unit = event.text("unit");
        unitSample = event.integer("sample", -1);
        return true;
    case RunEvent::Kind::Progress:
        done = event.integer("done", done);
        total = event.integer("total", total);
        samplesPerSecond = event.number("samples_per_s", kNaN);
        etaSeconds = event.number("eta_s", kNaN);
        cacheWritten = event.integer("cache_bytes_written", cacheWritten);
        return true;
    case RunEvent::Kind::Step: {
        done = event.integer("step", done);
        total = event.integer("total_steps", total);
        epoch = static_cast<int>(event.integer("epoch", epoch));
        samplesPerSecond = event.number("samples_per_s", kNaN);
        etaSeconds = event.number("eta_s", kNaN);
        cacheRead = event.integer("cache_bytes_read", cacheRead);
        if (!std::isfinite(trainStartTime))
            trainStartTime = event.time;
        const double value = event.number("loss", kNaN);
        if (std::isfinite(value)) {
            const double step = static_cast<double>(done);
            loss.append(QPointF(step, value));
            ema = kSmoothing * ema + (1.0 - kSmoothing) * value;
            emaDecay *= kSmoothing;
            smoothedLoss.append(QPointF(step, ema / (1.0 - emaDecay)));
        }
        return true;
    }
    case RunEvent::Kind::Epoch: {
        const double mean = event.number("mean_loss", kNaN);
        if (std::isfinite(mean))
            epochLoss.append(QPointF(static_cast<double>(done), mean));
        // An epoch lasts from the previous one's end (or the loop's start) to this event.
        const double from = std::isfinite(lastEpochEnd) ? lastEpochEnd : trainStartTime;
        if (std::isfinite(from))
            epochSeconds.append(std::max(0.0, event.time - from));
        lastEpochEnd = event.time;
        return true;
    }
    case RunEvent::Kind::Memory: {
        rss = event.integer("rss_bytes", rss);
        peakRss = std::max(peakRss, event.integer("peak_rss_bytes", rss));
        cacheWritten = event.integer("cache_bytes_written", cacheWritten);
        cacheRead = event.integer("cache_bytes_read", cacheRead);
        modelBytes.clear();
        const QJsonObject bytes = event.fields.value(QLatin1String("model_bytes")).toObject();
        for (auto it = bytes.begin(); it != bytes.end(); ++it)
            modelBytes.insert(it.key(), static_cast<qint64>(it.value().toDouble()));
        // A model seen for the first time gets zeros for the samples before it.
        for (auto it = modelBytes.cbegin(); it != modelBytes.cend(); ++it) {
            if (!models.contains(it.key())) {
                models.append(it.key());
                QVector<QPointF> zeros;
                zeros.reserve(memory.size());
                for (const QPointF &p : memory)
                    zeros.append(QPointF(p.x(), 0));
                modelMemory.append(zeros);
            }
        }
        addMemorySample((std::isfinite(clockOffset) ? clockOffset : startOffset) + event.time, rss);
        return true;
    }
    case RunEvent::Kind::Warning:
        warnings.append(event.text("message"));
        return false;
    case RunEvent::Kind::Error:
        errors.append(event.text("message"));
        return false;
    case RunEvent::Kind::Done: {
        const int status = static_cast<int>(event.integer("exit_status", -1));
        exitCode = status;
        outcome = status == 0 ? Outcome::Finished : status == 4 ? Outcome::Cancelled : Outcome::Failed;
        wallSeconds = event.number("wall_s", kNaN);
        finalLoss = event.number("final_loss", kNaN);
        steps = event.integer("steps", steps);
        samples = event.integer("samples", samples);
        peakRss = std::max(peakRss, event.integer("peak_rss_bytes", 0));
        const QJsonObject out = event.fields.value(QLatin1String("outputs")).toObject();
        for (auto it = out.begin(); it != out.end(); ++it)
            outputs.insert(it.key(), it.value().toString());
        unit.clear();
        etaSeconds = kNaN;
        return true;
    }
    case RunEvent::Kind::Checkpoint:
    case RunEvent::Kind::Log:
    case RunEvent::Kind::Other:
        break;
    }
    return false;
}

void StageRun::addMemorySample(double launchSeconds, qint64 rssBytes)
{
    // Two clocks meet here (the worker's, shifted, and the GUI's): keep x monotonic.
    const double x = memory.isEmpty() ? launchSeconds : std::max(launchSeconds, memory.constLast().x());
    rss = rssBytes;
    peakRss = std::max(peakRss, rssBytes);
    memory.append(QPointF(x, static_cast<double>(rssBytes)));
    for (int i = 0; i < models.size(); ++i)
        modelMemory[i].append(QPointF(x, static_cast<double>(modelBytes.value(models.at(i), 0))));
}

double StageRun::fraction() const
{
    if (total <= 0)
        return -1;
    return std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0);
}

double StageRun::meanEpochSeconds() const
{
    if (epochSeconds.isEmpty())
        return kNaN;
    double sum = 0;
    for (double s : epochSeconds)
        sum += s;
    return sum / epochSeconds.size();
}

qint64 StageRun::peakMemory() const
{
    qint64 peak = peakRss;
    for (const QPointF &p : memory)
        peak = std::max(peak, static_cast<qint64>(p.y()));
    return peak;
}

QJsonObject StageRun::toJson(int maxPoints) const
{
    QJsonObject json{{QStringLiteral("stage"), runStageKey(stage)}, {QStringLiteral("command"), command},
        {QStringLiteral("start_offset"), startOffset}, {QStringLiteral("process_s"), processSeconds},
        {QStringLiteral("resumed"), resumed}, {QStringLiteral("threads"), threads},
        {QStringLiteral("stage_one_units"), QJsonArray::fromStringList(stageOneUnits)},
        {QStringLiteral("stage_two_units"), QJsonArray::fromStringList(stageTwoUnits)},
        {QStringLiteral("cache_set"), QJsonArray::fromStringList(cacheSet)}, {QStringLiteral("done"), done},
        {QStringLiteral("total"), total}, {QStringLiteral("epoch"), epoch}, {QStringLiteral("epochs"), epochs},
        {QStringLiteral("samples_per_s"), numberOrNull(samplesPerSecond)},
        {QStringLiteral("cache_bytes_written"), cacheWritten}, {QStringLiteral("cache_bytes_read"), cacheRead},
        {QStringLiteral("peak_rss_bytes"), peakMemory()}, {QStringLiteral("outcome"), outcomeKey(outcome)},
        {QStringLiteral("exit_code"), exitCode}, {QStringLiteral("wall_s"), numberOrNull(wallSeconds)},
        {QStringLiteral("final_loss"), numberOrNull(finalLoss)}, {QStringLiteral("steps"), steps},
        {QStringLiteral("samples"), samples}, {QStringLiteral("failure"), failure},
        {QStringLiteral("errors"), QJsonArray::fromStringList(errors)},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)},
        {QStringLiteral("stderr_tail"), QJsonArray::fromStringList(stderrTail)},
        {QStringLiteral("loss"), pointsToJson(thinned(loss, maxPoints))},
        {QStringLiteral("smoothed_loss"), pointsToJson(thinned(smoothedLoss, maxPoints))},
        {QStringLiteral("epoch_loss"), pointsToJson(epochLoss)},
        {QStringLiteral("memory"), pointsToJson(thinned(memory, maxPoints))},
        {QStringLiteral("models"), QJsonArray::fromStringList(models)}};
    QJsonObject outs;
    for (auto it = outputs.cbegin(); it != outputs.cend(); ++it)
        outs.insert(it.key(), it.value());
    json.insert(QStringLiteral("outputs"), outs);
    QJsonArray seconds;
    for (double s : epochSeconds)
        seconds.append(s);
    json.insert(QStringLiteral("epoch_seconds"), seconds);
    QJsonArray perModel;
    for (const QVector<QPointF> &series : modelMemory)
        perModel.append(pointsToJson(thinned(series, maxPoints)));
    json.insert(QStringLiteral("model_memory"), perModel);
    QJsonObject bytes;
    for (auto it = modelBytes.cbegin(); it != modelBytes.cend(); ++it)
        bytes.insert(it.key(), it.value());
    json.insert(QStringLiteral("model_bytes"), bytes);
    return json;
}

StageRun StageRun::fromJson(const QJsonObject &json)
{
    StageRun s;
    parseRunStage(json.value(QLatin1String("stage")).toString(), s.stage);
    s.command = json.value(QLatin1String("command")).toString();
    s.startOffset = json.value(QLatin1String("start_offset")).toDouble();
    s.processSeconds = json.value(QLatin1String("process_s")).toDouble(-1);
    s.started = true;
    s.resumed = json.value(QLatin1String("resumed")).toBool();
    s.threads = json.value(QLatin1String("threads")).toInt();
    s.stageOneUnits = stringList(json.value(QLatin1String("stage_one_units")));
    s.stageTwoUnits = stringList(json.value(QLatin1String("stage_two_units")));
    s.cacheSet = stringList(json.value(QLatin1String("cache_set")));
    s.done = json.value(QLatin1String("done")).toInteger();
    s.total = json.value(QLatin1String("total")).toInteger();
    s.epochs = json.value(QLatin1String("epochs")).toInt();
    // The epoch reached; entries written before it was kept have it from the steps done,
    // as every epoch takes the same number of steps (they showed "Epoch 1 of 20").
    const QJsonValue epoch = json.value(QLatin1String("epoch"));
    if (epoch.isDouble())
        s.epoch = epoch.toInt();
    else if (s.total > 0 && s.epochs > 0 && s.done > 0)
        s.epoch = static_cast<int>(std::min<qint64>(s.epochs - 1, (s.done - 1) * s.epochs / s.total));
    s.samplesPerSecond = numberOrNaN(json.value(QLatin1String("samples_per_s")));
    s.cacheWritten = json.value(QLatin1String("cache_bytes_written")).toInteger();
    s.cacheRead = json.value(QLatin1String("cache_bytes_read")).toInteger();
    s.peakRss = json.value(QLatin1String("peak_rss_bytes")).toInteger();
    const QString outcome = json.value(QLatin1String("outcome")).toString();
    s.outcome = Outcome::Failed;
    for (Outcome o : {Outcome::Finished, Outcome::Cancelled, Outcome::Failed, Outcome::Crashed}) {
        if (outcomeKey(o) == outcome)
            s.outcome = o;
    }
    s.exitCode = json.value(QLatin1String("exit_code")).toInt(-1);
    s.wallSeconds = numberOrNaN(json.value(QLatin1String("wall_s")));
    s.finalLoss = numberOrNaN(json.value(QLatin1String("final_loss")));
    s.steps = json.value(QLatin1String("steps")).toInteger();
    s.samples = json.value(QLatin1String("samples")).toInteger();
    s.failure = json.value(QLatin1String("failure")).toString();
    s.errors = stringList(json.value(QLatin1String("errors")));
    s.warnings = stringList(json.value(QLatin1String("warnings")));
    s.stderrTail = stringList(json.value(QLatin1String("stderr_tail")));
    s.loss = pointsFromJson(json.value(QLatin1String("loss")));
    s.smoothedLoss = pointsFromJson(json.value(QLatin1String("smoothed_loss")));
    s.epochLoss = pointsFromJson(json.value(QLatin1String("epoch_loss")));
    s.memory = pointsFromJson(json.value(QLatin1String("memory")));
    s.models = stringList(json.value(QLatin1String("models")));
    const QJsonObject outs = json.value(QLatin1String("outputs")).toObject();
    for (auto it = outs.begin(); it != outs.end(); ++it)
        s.outputs.insert(it.key(), it.value().toString());
    for (const QJsonValue &v : json.value(QLatin1String("epoch_seconds")).toArray())
        s.epochSeconds.append(v.toDouble());
    for (const QJsonValue &v : json.value(QLatin1String("model_memory")).toArray())
        s.modelMemory.append(pointsFromJson(v));
    while (s.modelMemory.size() < s.models.size())
        s.modelMemory.append(QVector<QPointF>());
    const QJsonObject bytes = json.value(QLatin1String("model_bytes")).toObject();
    for (auto it = bytes.begin(); it != bytes.end(); ++it)
        s.modelBytes.insert(it.key(), it.value().toInteger());
    return s;
}

} // namespace splitscope
