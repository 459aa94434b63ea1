// SPDX-License-Identifier: MIT
#pragma once

#include "core/plan/Plan.h"

#include <QAbstractTableModel>

#include <memory>

namespace splitscope {

// The model entries of a plan, one row each: the entry as the command writes it, the
// pipeline model(s) it holds and how that was decided, what each stage does with it
// (loads it, offloads it, or with --prune drops it) and its size from the safetensors
// headers.
class PlanModelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { EntryColumn, ModelColumn, StageOneColumn, StageTwoColumn, SizeColumn, ColumnCount };

    explicit PlanModelsModel(QObject *parent = nullptr);
    void setPlan(std::shared_ptr<const plan::Plan> plan);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString sizeText(std::uint64_t bytes);

private:
    std::shared_ptr<const plan::Plan> m_plan;
    QString m_sharedId; // "Org/Model:" when every entry is of that model id
};

} // namespace splitscope
