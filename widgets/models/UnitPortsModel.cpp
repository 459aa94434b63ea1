// SPDX-License-Identifier: MIT
#include "UnitPortsModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/graph/GraphStyle.h"

#include <QColor>
#include <QFont>

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
    m_prefix = m_document->hasPipeline() ? GraphStyle::commonUnitPrefix(m_document->graph()) : QString();
    const UnitId unit = m_document->currentUnit();
    if (m_document->hasPipeline() && unit != kNoUnit && m_document->analysis()) {
        if (m_side == Side::Inputs)
            addInputs(unit);
        else if (unit != m_document->graph().lossId())
            addOutputs(unit);
    }
    endResetModel();
}

QString UnitPortsModel::unitText(UnitId unit) const
{
    if (unit == kNoUnit)
        return tr("external input");
    const PipelineGraph &graph = m_document->graph();
    return unit == graph.lossId() ? tr("the loss") : nameText(graph.unitName(unit));
}

QString UnitPortsModel::hazardText(const Hazard &hazard) const
{
    // The Inspector's and the Verifier's wording: who reads what, and whose value.
    const auto valueOf = [this](UnitId u) {
        return u == kNoUnit ? tr("the external input's value") : tr("%1's value").arg(unitText(u));
    };
    const bool fromStageTwo = hazard.actual != kNoUnit && m_document->analysis()->split.isTrained(hazard.actual);
    return tr("Hazard (%1): in two-stage training %2 reads %3 and sees %4 (%5); one-stage training gives it %6. "
              "See the Verifier.")
        .arg(QString::fromLatin1(hazardKindName(hazard.kind)), unitText(hazard.reader),
            nameText(m_document->graph().paramName(hazard.param)), valueOf(hazard.actual),
            fromStageTwo ? tr("written in stage two") : tr("from the cache"), valueOf(hazard.expected));
}

void UnitPortsModel::addInputs(UnitId unit)
{
    const PipelineGraph &graph = m_document->graph();
    const auto analysis = m_document->analysis();
    const Split &split = analysis->split;
    const bool readsInStageTwo = unit == graph.lossId() || split.isTrained(unit);
    for (const ParamId p : graph.inputs(unit)) {
        Row row;
        row.param = p;
        row.peerUnit = graph.producerBefore(p, unit);
        row.peer = unitText(row.peerUnit);
        if (!readsInStageTwo) {
            row.source = tr("stage one run");
            m_rows.push_back(row);
            continue;
        }
        // Stage two gives the reader the value of the same producer as one-stage
        // training, except where the verifier found a hazard: then it names the
        // producer the reader actually sees (the cache's, or a stage-two writer's).
        const Hazard *hazard = nullptr;
        for (const Hazard &h : analysis->verification.hazards) {
            if (h.reader == unit && h.param == p) {
                hazard = &h;
                break;
            }
        }
        const UnitId seen = hazard ? hazard->actual : row.peerUnit;
        const bool fromStageTwo = seen != kNoUnit && split.isTrained(seen);
        row.fromCache = !fromStageTwo;
        // Short texts for a dock's narrow columns: the producer column names the units,
        // this one only where the value comes from (the tooltip has the whole story).
        if (!hazard) {
            row.source = fromStageTwo ? tr("stage two") : tr("cache");
        } else {
            // The one-stage producer first, as in the other rows, and on a line of its own
            // the producer whose value two-stage training gives instead.
            row.peer = tr("%1\n⚠ two-stage: %2").arg(unitText(hazard->expected), unitText(seen));
            row.source = fromStageTwo ? tr("⚠ stage two") : tr("⚠ cache");
            row.hazardNote = hazardText(*hazard);
        }
        m_rows.push_back(row);
    }
}

void UnitPortsModel::addOutputs(UnitId unit)
{
    const PipelineGraph &graph = m_document->graph();
    const auto analysis = m_document->analysis();
    std::vector<ParamId> seen;
    for (const ParamId p : graph.outputs(unit)) {
        if (std::find(seen.begin(), seen.end(), p) != seen.end())
            continue;
        seen.push_back(p);
        Row row;
        row.param = p;
        // The one-stage readers of this unit's value (its data edges, the loss last).
        std::vector<UnitId> readers;
        for (const PipelineGraph::Edge &e : graph.outEdges(unit)) {
            if (e.param == p)
                readers.push_back(e.target);
        }
        for (const PipelineGraph::Edge &e : graph.inEdges(graph.lossId())) {
            if (e.source == unit && e.param == p)
                readers.push_back(graph.lossId());
        }
        if (!readers.empty())
            row.peerUnit = readers.front();
        // A hazard moves a reader: it sees this value in one run only.
        QStringList notes;
        std::vector<UnitId> oneStageOnly;
        std::vector<UnitId> twoStageOnly;
        for (const Hazard &h : analysis->verification.hazards) {
            if (h.param != p || (h.expected == unit) == (h.actual == unit))
                continue;
            (h.expected == unit ? oneStageOnly : twoStageOnly).push_back(h.reader);
            notes << hazardText(h);
        }
        QStringList names;
        for (const UnitId r : readers) {
            const bool moved = std::find(oneStageOnly.begin(), oneStageOnly.end(), r) != oneStageOnly.end();
            names << (moved ? tr("⚠ %1 (one-stage only)").arg(unitText(r)) : unitText(r));
        }
        for (const UnitId r : twoStageOnly) {
            names << tr("⚠ %1 (two-stage only)").arg(unitText(r));
            if (row.peerUnit == kNoUnit)
                row.peerUnit = r;
        }
        row.peer = names.isEmpty() ? tr("nobody (overwritten or unused)") : names.join(QStringLiteral(", "));
        row.hazardNote = notes.join(QLatin1Char('\n'));
        for (const CacheEntry &c : analysis->cacheSet) {
            if (c.param == p && c.producer == unit) {
                row.fromCache = true;
                break;
            }
        }
        row.source = row.fromCache ? tr("cached")
                                   : (analysis->split.isTrained(unit) ? tr("stage two") : tr("not cached"));
        m_rows.push_back(row);
    }
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
    const bool hazard = !row.hazardNote.isEmpty();
    if (role == kPeerUnitRole)
        return row.peerUnit;
    if (role == kHazardRole)
        return hazard;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        QString text;
        switch (index.column()) {
        case ParamColumn: text = nameText(m_document->graph().paramName(row.param)); break;
        case PeerColumn: text = row.peer; break;
        case SourceColumn: text = row.source; break;
        default: return {};
        }
        // A hazard's tooltip says what it does (rich text: it wraps, and has paragraphs).
        if (role == Qt::ToolTipRole && hazard) {
            return QStringLiteral("<qt><p>%1</p><p>%2</p></qt>").arg(htmlLines(text), htmlLines(row.hazardNote));
        }
        if (role == Qt::DisplayRole && index.column() != ParamColumn && !m_prefix.isEmpty())
            text.remove(m_prefix);
        return text;
    }
    if (role == Qt::ForegroundRole && hazard)
        return theme::readable(QColor(QLatin1String(kHazardColor)));
    if (role == Qt::ForegroundRole && index.column() == SourceColumn && row.fromCache)
        return theme::textColor(theme::Tone::Accent);
    if (role == Qt::FontRole && hazard && index.column() == SourceColumn) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    return {};
}

QVariant UnitPortsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    const bool inputs = m_side == Side::Inputs;
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == SourceColumn)
        return inputs ? tr("Where two-stage training gets the value: the stage-one cache or a stage-two unit")
                      : tr("Whether the value goes into the stage-one cache");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ParamColumn: return tr("Param");
    case PeerColumn: return inputs ? tr("Producer") : tr("Read by");
    case SourceColumn: return inputs ? tr("Two-stage") : tr("Cache");
    default: return {};
    }
}

} // namespace splitscope
