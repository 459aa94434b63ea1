// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QAbstractItemModel>

namespace splitscope {

class SplitDocument;

// The comparison of two splits as a tree: one top-level row per unit that is in
// stage two in one split and stage one in the other (diffSplits' order), with the
// core's explanation of why below it, one line per child row.
class MovedUnitsModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { UnitColumn, StageAColumn, StageBColumn, ColumnCount };
    static constexpr int kUnitRole = Qt::UserRole + 1; // the moved unit (also on its child rows)

    explicit MovedUnitsModel(SplitDocument *document, QObject *parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Top-level row of a moved unit, or -1.
    int rowOfUnit(UnitId unit) const;

private:
    void rebuild();

    SplitDocument *m_document;
    int m_rows = 0;
};

} // namespace splitscope
