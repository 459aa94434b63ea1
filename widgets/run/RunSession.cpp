// SPDX-License-Identifier: MIT
#include "RunSession.h"

#include "RunFormat.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QUuid>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RunSession", text);
}

// Worse outcomes win when a launch's stages are summed up.
int severity(StageRun::Outcome outcome)
{
    switch (outcome) {
    case StageRun::Outcome::Finished:
        return 0;
    case StageRun::Outcome::Running:
        return 1;
    case StageRun::Outcome::Cancelled:
        return 2;
    case StageRun::Outcome::Failed:
        return 3;
    case StageRun::Outcome::Crashed:
        break;
    }
    return 4;
}

} // namespace

RunSession::RunSession(RunKind kind, RunConfig config, bool resumed)
    : m_id(QUuid::createUuid().toString(QUuid::WithoutBraces)), m_started(QDateTime::currentDateTime()), m_kind(kind),
      m_config(std::move(config)), m_resumed(resumed)
{
}

std::shared_ptr<RunSession> RunSession::continuation() const
{
    auto next = std::make_shared<RunSession>(*this);
    next->m_resumed = true;
    next->m_incomplete = false;
    return next;
}

StageRun &RunSession::addStage(RunStage stage)
{
    StageRun run;
    run.stage = stage;
    m_stages.push_back(run);
    return m_stages.back();
}

const StageRun *RunSession::stage(RunStage stage) const
{
    for (const StageRun &s : m_stages) {
        if (s.stage == stage)
            return &s;
    }
    return nullptr;
}

const StageRun *RunSession::trainingStage() const
{
    for (const StageRun &s : m_stages) {
        if (s.isTraining())
            return &s;
    }
    return nullptr;
}

bool RunSession::isRunning() const
{
    // Without a stage yet, the launch is starting its first one.
    return m_stages.empty()
        || std::any_of(m_stages.begin(), m_stages.end(), [](const StageRun &s) { return s.isRunning(); });
}

StageRun::Outcome RunSession::outcome() const
{
    StageRun::Outcome worst = StageRun::Outcome::Finished;
    for (const StageRun &s : m_stages) {
        if (severity(s.outcome) > severity(worst))
            worst = s.outcome;
    }
    if (m_stages.empty())
        return StageRun::Outcome::Running;
    if (worst == StageRun::Outcome::Finished && m_incomplete)
        return StageRun::Outcome::Failed;
    return worst;
}

double RunSession::totalSeconds() const
{
    double total = 0;
    for (const StageRun &s : m_stages) {
        if (s.processSeconds >= 0)
            total += s.processSeconds;
        else if (std::isfinite(s.wallSeconds))
            total += s.wallSeconds;
    }
    return total;
}

qint64 RunSession::peakMemory() const
{
    qint64 peak = 0;
    for (const StageRun &s : m_stages)
        peak = std::max(peak, s.peakMemory());
    return peak;
}

double RunSession::finalLoss() const
{
    const StageRun *training = trainingStage();
    return training ? training->finalLoss : StageRun::kNaN;
}

QString RunSession::summary() const
{
    QString text;
    switch (outcome()) {
    case StageRun::Outcome::Running:
        return tr("running");
    case StageRun::Outcome::Finished:
        text = tr("finished in %1").arg(formatDuration(totalSeconds()));
        break;
    case StageRun::Outcome::Cancelled:
        text = tr("cancelled after %1").arg(formatDuration(totalSeconds()));
        break;
    case StageRun::Outcome::Failed:
        text = tr("failed after %1").arg(formatDuration(totalSeconds()));
        break;
    case StageRun::Outcome::Crashed:
        text = tr("crashed after %1").arg(formatDuration(totalSeconds()));
        break;
    }
    if (peakMemory() > 0)
        text += tr(", peak %1").arg(formatBytes(peakMemory()));
    if (std::isfinite(finalLoss()))
        text += (outcome() == StageRun::Outcome::Finished ? tr(", final loss %1") : tr(", last loss %1"))
                    .arg(formatLoss(finalLoss()));
    return text;
}

void RunSession::addLog(LogLine::Level level, const QString &text, double time)
{
    m_log.push_back(LogLine{time, level, text});
    ++m_logTotal;
    while (m_log.size() > static_cast<std::size_t>(kMaxLogLines))
        m_log.pop_front();
}

QJsonObject RunSession::toJson() const
{
    QJsonArray stages;
    for (const StageRun &s : m_stages)
        stages.append(s.toJson(kHistoryPoints));
    return QJsonObject{{QStringLiteral("id"), m_id},
        {QStringLiteral("started"), m_started.toString(Qt::ISODateWithMs)}, {QStringLiteral("kind"), runKindKey(m_kind)},
        {QStringLiteral("resumed"), m_resumed}, {QStringLiteral("incomplete"), m_incomplete},
        {QStringLiteral("config"), m_config.toJson()}, {QStringLiteral("stages"), stages}};
}

std::shared_ptr<RunSession> RunSession::fromJson(const QJsonObject &json, QString *error)
{
    RunKind kind = RunKind::Both;
    if (!parseRunKind(json.value(QLatin1String("kind")).toString(), kind)) {
        if (error)
            *error = tr("\"kind\" is not one of stage_one, stage_two, both, baseline");
        return nullptr;
    }
    const QJsonArray stages = json.value(QLatin1String("stages")).toArray();
    if (stages.isEmpty()) {
        if (error)
            *error = tr("\"stages\" is missing or empty");
        return nullptr;
    }
    auto session = std::make_shared<RunSession>(kind, RunConfig::fromJson(json.value(QLatin1String("config")).toObject()),
        json.value(QLatin1String("resumed")).toBool());
    const QString id = json.value(QLatin1String("id")).toString();
    if (!id.isEmpty())
        session->m_id = id;
    const QDateTime started = QDateTime::fromString(json.value(QLatin1String("started")).toString(), Qt::ISODateWithMs);
    if (started.isValid())
        session->m_started = started;
    session->m_incomplete = json.value(QLatin1String("incomplete")).toBool();
    for (const QJsonValue &s : stages)
        session->m_stages.push_back(StageRun::fromJson(s.toObject()));
    return session;
}

} // namespace splitscope
