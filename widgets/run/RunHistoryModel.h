// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

namespace splitscope {

class RunHistory;

// The run history as a table, newest first: when, what was launched, the training
// configuration (with epochs and dataset; the tooltip has every setting), the
// outcome, time, peak memory, final loss and the launch's output folder (the cache
// for a stage-one launch). IdRole gives a row's session id.
class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartedColumn, LaunchColumn, ConfigurationColumn, OutcomeColumn, TimeColumn, PeakColumn,
        LossColumn, OutputColumn, ColumnCount };
    static constexpr int IdRole = Qt::UserRole + 1;

    explicit RunHistoryModel(RunHistory *history, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The history index of a row (rows are newest first) and the other way round.
    int historyIndex(int row) const;
    int rowOf(int historyIndex) const;

private:
    RunHistory *m_history;
};

} // namespace splitscope
