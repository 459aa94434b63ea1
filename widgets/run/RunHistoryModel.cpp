// SPDX-License-Identifier: MIT
#include "RunHistoryModel.h"

#include "RunFormat.h"
#include "RunHistory.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QLocale>

#include <cmath>

namespace splitscope {

namespace {

QColor outcomeColor(StageRun::Outcome outcome)
{
    switch (outcome) {
    case StageRun::Outcome::Finished:
        return QColor(0x2b, 0x8a, 0x3e);
    case StageRun::Outcome::Cancelled:
        return QColor(0xb3, 0x5c, 0x00);
    case StageRun::Outcome::Running:
        return QColor(0x1c, 0x7e, 0xd6);
    case StageRun::Outcome::Failed:
    case StageRun::Outcome::Crashed:
        break;
    }
    return QColor(0xc2, 0x25, 0x5c);
}

// Where a launch's results are: the folder its training wrote to (its own), else
// the cache of a stage-one launch.
QString outputOf(const RunSession &session)
{
    const std::vector<RunStage> stages = stagesOf(session.kind());
    return stageOutputPath(session.config(), stages.back());
}

} // namespace

RunHistoryModel::RunHistoryModel(RunHistory *history, QObject *parent)
    : QAbstractTableModel(parent), m_history(history)
{
    connect(history, &RunHistory::aboutToReset, this, [this]() { beginResetModel(); });
    connect(history, &RunHistory::reset, this, [this]() { endResetModel(); });
    // Rows are newest first: an added run (the newest) becomes row 0.
    connect(history, &RunHistory::aboutToAdd, this, [this](int) { beginInsertRows({}, 0, 0); });
    connect(history, &RunHistory::added, this, [this](int) { endInsertRows(); });
    connect(history, &RunHistory::aboutToRemove, this, [this](int index) {
        const int row = rowOf(index);
        beginRemoveRows({}, row, row);
    });
    connect(history, &RunHistory::removed, this, [this](int) { endRemoveRows(); });
}

int RunHistoryModel::historyIndex(int row) const
{
    return m_history->count() - 1 - row;
}

int RunHistoryModel::rowOf(int historyIndex) const
{
    return m_history->count() - 1 - historyIndex;
}

int RunHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_history->count();
}

int RunHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto session = m_history->run(historyIndex(index.row()));
    const RunSession &s = *session;
    if (role == IdRole)
        return s.id();
    if (role == Qt::ForegroundRole && index.column() == OutcomeColumn)
        return QBrush(outcomeColor(s.outcome()));
    if (role == Qt::TextAlignmentRole && index.column() >= TimeColumn && index.column() <= LossColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    // The configuration is elided in a narrow table: its tooltip starts with the whole cell.
    if (role == Qt::ToolTipRole && index.column() == ConfigurationColumn)
        return tr("%1 · %2").arg(s.config().label(), s.config().numbersLabel()) + QStringLiteral("\n\n")
            + s.config().details();
    if (role == Qt::ToolTipRole) {
        QStringList lines;
        // The output column is elided: its tooltip starts with the whole folder.
        if (index.column() == OutputColumn)
            lines << QDir::toNativeSeparators(outputOf(s));
        for (const StageRun &stage : s.stages()) {
            lines << QStringLiteral("%1: %2").arg(runStageTitle(stage.stage), stage.command);
            if (!stage.failure.isEmpty())
                lines << stage.failure;
        }
        return lines.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(index.column())) {
    case StartedColumn:
        return QLocale().toString(s.started(), QLocale::ShortFormat);
    case LaunchColumn:
        return s.resumed() ? tr("%1 (resumed)").arg(runKindTitle(s.kind())) : runKindTitle(s.kind());
    case ConfigurationColumn:
        return tr("%1 · %2").arg(s.config().label(), s.config().numbersLabel());
    case OutcomeColumn:
        return outcomeKey(s.outcome());
    case TimeColumn:
        return formatDuration(s.totalSeconds());
    case PeakColumn:
        return formatBytes(s.peakMemory() > 0 ? s.peakMemory() : -1);
    case LossColumn:
        // A launch that stopped early has a last loss, not a final one.
        return std::isfinite(s.finalLoss()) && s.outcome() != StageRun::Outcome::Finished
            ? tr("%1 (last)").arg(formatLoss(s.finalLoss()))
            : formatLoss(s.finalLoss());
    case OutputColumn:
        return QDir::toNativeSeparators(outputOf(s));
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    // Short headers leave the room to the cells in a narrow dock; the tooltips say
    // what each column holds.
    if (role == Qt::ToolTipRole) {
        switch (static_cast<Column>(section)) {
        case StartedColumn:
            return tr("When the launch started");
        case LaunchColumn:
            return tr("What was launched: stage one, stage two, both stages or the one-stage baseline");
        case ConfigurationColumn:
            return tr("The training configuration, with epochs and dataset (the cell's tooltip has every setting)");
        case OutcomeColumn:
            return tr("How the launch ended");
        case TimeColumn:
            return tr("Time as waited: every process of the launch, from start to exit");
        case PeakColumn:
            return tr("Peak memory: the largest resident memory of the launch's processes");
        case LossColumn:
            return tr("Final loss; for a launch that stopped early, its last loss, marked (last)");
        case OutputColumn:
            return tr("The launch's output folder (the cache for a stage-one launch)");
        case ColumnCount:
            break;
        }
        return {};
    }
    switch (static_cast<Column>(section)) {
    case StartedColumn:
        return tr("Started");
    case LaunchColumn:
        return tr("Launch");
    case ConfigurationColumn:
        return tr("Config");
    case OutcomeColumn:
        return tr("Outcome");
    case TimeColumn:
        return tr("Time");
    case PeakColumn:
        return tr("Peak");
    case LossColumn:
        return tr("Final loss");
    case OutputColumn:
        return tr("Output");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace splitscope
