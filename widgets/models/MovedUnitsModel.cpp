// SPDX-License-Identifier: MIT
#include "MovedUnitsModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"

#include <QColor>

namespace splitscope {

namespace {

// internalId of a top-level row; a child row stores its parent's row + 1.
constexpr quintptr kTopLevel = 0;

} // namespace

MovedUnitsModel::MovedUnitsModel(SplitDocument *document, QObject *parent)
    : QAbstractItemModel(parent), m_document(document)
{
    connect(document, &SplitDocument::comparisonChanged, this, &MovedUnitsModel::rebuild);
    connect(document, &SplitDocument::pipelineReset, this, &MovedUnitsModel::rebuild);
    rebuild();
}

void MovedUnitsModel::rebuild()
{
    beginResetModel();
    const auto diff = m_document->diff();
    m_rows = diff ? static_cast<int>(diff->moved.size()) : 0;
    endResetModel();
}

QModelIndex MovedUnitsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopLevel);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex MovedUnitsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int MovedUnitsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return m_rows;
    if (parent.internalId() != kTopLevel || parent.column() != 0)
        return 0;
    const auto diff = m_document->diff();
    if (!diff || parent.row() >= static_cast<int>(diff->moved.size()))
        return 0;
    return static_cast<int>(diff->moved[parent.row()].why.size());
}

int MovedUnitsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

int MovedUnitsModel::rowOfUnit(UnitId unit) const
{
    const auto diff = m_document->diff();
    if (!diff)
        return -1;
    for (std::size_t i = 0; i < diff->moved.size(); ++i) {
        if (diff->moved[i].unit == unit)
            return static_cast<int>(i);
    }
    return -1;
}

QVariant MovedUnitsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto diff = m_document->diff();
    if (!diff)
        return {};
    const bool top = index.internalId() == kTopLevel;
    const int unitRow = top ? index.row() : static_cast<int>(index.internalId() - 1);
    if (unitRow >= static_cast<int>(diff->moved.size()))
        return {};
    const MovedUnit &moved = diff->moved[unitRow];
    if (role == kUnitRole)
        return moved.unit;
    if (!top) {
        if (index.column() == UnitColumn && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
            return QString::fromStdString(moved.why[index.row()]);
        return {};
    }
    const QString stageTwo = tr("stage two");
    const QString stageOne = tr("stage one");
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case UnitColumn: return nameText(m_document->graph().unitName(moved.unit));
        case StageAColumn: return moved.trainedInB ? stageOne : stageTwo;
        case StageBColumn: return moved.trainedInB ? stageTwo : stageOne;
        default: return {};
        }
    case Qt::ToolTipRole:
        return moved.trainedInB ? tr("Cached in split A, in stage two in split B")
                                : tr("In stage two in split A, cached in split B");
    case Qt::ForegroundRole:
        if (index.column() == StageBColumn)
            return moved.trainedInB ? theme::readable(QColor(0xc2, 0x55, 0x00)) : theme::textColor(theme::Tone::Accent);
        return {};
    default: return {};
    }
}

QVariant MovedUnitsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case UnitColumn: return tr("Moved unit / why");
    case StageAColumn: return tr("Split A");
    case StageBColumn: return tr("Split B");
    default: return {};
    }
}

} // namespace splitscope
