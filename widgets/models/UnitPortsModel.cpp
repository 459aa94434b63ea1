// SPDX-License-Identifier: MIT
#include "UnitPortsModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/WidgetHelpers.h"

#include <QColor>

#include <algorithm>

namespace splitscope {

UnitPortsModel::UnitPortsModel(SplitDocument *document, Side side, QObject *parent)
    : QAbstractTableModel(parent), m_document(document), m_side(side)
{
    connect(document, &SplitDocument::currentUnitChanged, this, &UnitPortsModel::rebuild);
    connect(document, &SplitDocument::analysisChanged, this, &UnitPortsModel::rebuild);
    connect(document, &SplitDocument::pipelineReset, this, &UnitPortsModel::rebuild);
    rebuild();
}

void UnitPortsModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    const UnitId unit = m_document->currentUnit();
    const auto analysis = m_document->analysis();
    if (m_document->hasPipeline() && unit != kNoUnit && analysis) {
        const PipelineGraph &graph = m_document->graph();
        const Split &split = analysis->split;
        const bool isLoss = unit == graph.lossId();
        auto name = [&](UnitId u) {
            return u == kNoUnit ? tr("external input") : nameText(graph.unitName(u));
        };
        if (m_side == Side::Inputs) {
            const bool readsInStageTwo = isLoss || split.isTrained(unit);
            for (const ParamId p : graph.inputs(unit)) {
                Row row;
                row.param = p;
                row.peerUnit = graph.producerBefore(p, unit);
                row.peer = name(row.peerUnit);
                if (!readsInStageTwo) {
                    row.source = tr("stage one run");
                } else {
                    // Stage two sees the cache unless a stage-two unit before it wrote p.
                    UnitId stageTwoWriter = kNoUnit;
                    for (const UnitId w : graph.chain(p)) {
                        if (w >= unit)
                            break;
                        if (split.isTrained(w))
                            stageTwoWriter = w;
                    }
                    if (stageTwoWriter != kNoUnit) {
                        row.source = tr("stage two (%1)").arg(name(stageTwoWriter));
                    } else {
                        row.fromCache = true;
                        row.source = row.peerUnit == kNoUnit ? tr("cache (external input)") : tr("cache");
                    }
                }
                m_rows.push_back(row);
            }
        } else if (!isLoss) {
            std::vector<ParamId> seen;
            for (const ParamId p : graph.outputs(unit)) {
                if (std::find(seen.begin(), seen.end(), p) != seen.end())
                    continue;
                seen.push_back(p);
                Row row;
                row.param = p;
                QStringList readers;
                for (const PipelineGraph::Edge &e : graph.outEdges(unit)) {
                    if (e.param == p) {
                        readers << name(e.target);
                        if (row.peerUnit == kNoUnit)
                            row.peerUnit = e.target;
                    }
                }
                for (const PipelineGraph::Edge &e : graph.inEdges(graph.lossId())) {
                    if (e.source == unit && e.param == p)
                        readers << tr("the loss");
                }
                row.peer = readers.isEmpty() ? tr("nobody (overwritten or unused)") : readers.join(QStringLiteral(", "));
                for (const CacheEntry &c : analysis->cacheSet) {
                    if (c.param == p && c.producer == unit) {
                        row.fromCache = true;
                        break;
                    }
                }
                row.source = row.fromCache ? tr("cached")
                                           : (split.isTrained(unit) ? tr("stage two") : tr("not cached"));
                m_rows.push_back(row);
            }
        }
    }
    endResetModel();
}

int UnitPortsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int UnitPortsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant UnitPortsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[index.row()];
    if (role == kPeerUnitRole)
        return row.peerUnit;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case ParamColumn: return nameText(m_document->graph().paramName(row.param));
        case PeerColumn: return row.peer;
        case SourceColumn: return row.source;
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == SourceColumn && row.fromCache)
        return QColor(0x1c, 0x6d, 0xb5);
    return {};
}

QVariant UnitPortsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const bool inputs = m_side == Side::Inputs;
    switch (section) {
    case ParamColumn: return tr("Param");
    case PeerColumn: return inputs ? tr("Producer") : tr("Read by");
    case SourceColumn: return inputs ? tr("Two-stage run") : tr("Cache");
    default: return {};
    }
}

} // namespace splitscope
