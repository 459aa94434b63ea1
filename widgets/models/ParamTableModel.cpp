// SPDX-License-Identifier: MIT
#include "ParamTableModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/graph/GraphStyle.h"

#include <QColor>

#include <algorithm>

namespace splitscope {

namespace {

// Rich text, one entry a line, the later ones after `continuation`: a rich-text
// tooltip wraps to the screen where a plain one runs off it in one line.
QString htmlLines(const QStringList &entries, const QString &continuation = {})
{
    QString html;
    for (int i = 0; i < entries.size(); ++i) {
        if (i > 0)
            html += QStringLiteral("<br>") + continuation.toHtmlEscaped();
        html += entries[i].toHtmlEscaped();
    }
    return html;
}

} // namespace

ParamTableModel::ParamTableModel(SplitDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &SplitDocument::pipelineReset, this, &ParamTableModel::rebuild);
    connect(document, &SplitDocument::analysisChanged, this, &ParamTableModel::refreshCache);
    rebuild();
}

void ParamTableModel::rebuild()
{
    beginResetModel();
    m_params.clear();
    m_prefix = m_document->hasPipeline() ? GraphStyle::commonUnitPrefix(m_document->graph()) : QString();
    if (m_document->hasPipeline()) {
        const PipelineGraph &graph = m_document->graph();
        for (ParamId p = 0; p < graph.paramCount(); ++p)
            m_params.push_back(p);
        std::sort(m_params.begin(), m_params.end(),
            [&](ParamId a, ParamId b) { return graph.paramName(a) < graph.paramName(b); });
    }
    endResetModel();
    refreshCache();
}

void ParamTableModel::refreshCache()
{
    m_cacheEntry.assign(m_document->hasPipeline() ? m_document->graph().paramCount() : 0, -1);
    if (const auto analysis = m_document->analysis()) {
        for (std::size_t i = 0; i < analysis->cacheSet.size(); ++i)
            m_cacheEntry[analysis->cacheSet[i].param] = static_cast<int>(i);
    }
    if (!m_params.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int ParamTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_params.size());
}

int ParamTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int ParamTableModel::rowOf(ParamId param) const
{
    const auto found = std::find(m_params.begin(), m_params.end(), param);
    return found == m_params.end() ? -1 : static_cast<int>(found - m_params.begin());
}

QVariant ParamTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ParamId p = m_params[index.row()];
    if (role == kParamIdRole)
        return p;
    const PipelineGraph &graph = m_document->graph();
    const auto analysis = m_document->analysis();
    // Full names in tooltips; without the shared prefix in the cells.
    auto unitName = [&](UnitId u) {
        const QString name = nameText(graph.unitName(u));
        return role == Qt::DisplayRole && !m_prefix.isEmpty() && name.startsWith(m_prefix) ? name.mid(m_prefix.size())
                                                                                           : name;
    };
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case ParamColumn: return nameText(graph.paramName(p));
        case ChainColumn: {
            if (graph.isExternalInput(p))
                return tr("external input");
            QStringList chain;
            for (const UnitId u : graph.chain(p)) {
                QString entry = unitName(u);
                if (analysis)
                    entry += analysis->split.isTrained(u) ? tr(" [2]") : tr(" [1]");
                chain << entry;
            }
            // The tooltip has the whole chain, one writer a line (a view elides a long one).
            if (role == Qt::ToolTipRole)
                return tr("<qt>Written by, in order:<br>%1</qt>").arg(htmlLines(chain, QStringLiteral("→ ")));
            return chain.join(QStringLiteral(" → "));
        }
        case ReadersColumn: {
            QStringList readers;
            for (const UnitId u : graph.readers(p))
                readers << unitName(u);
            for (const ParamId q : graph.inputs(graph.lossId())) {
                if (q == p) {
                    readers << tr("the loss");
                    break;
                }
            }
            if (readers.isEmpty())
                return tr("nobody");
            return role == Qt::ToolTipRole ? tr("<qt>Read by:<br>%1</qt>").arg(htmlLines(readers))
                                           : readers.join(QStringLiteral(", "));
        }
        case CacheColumn: {
            const int entry = p < static_cast<ParamId>(m_cacheEntry.size()) ? m_cacheEntry[p] : -1;
            if (entry < 0 || !analysis)
                return role == Qt::ToolTipRole ? tr("Stage two does not read this param from the cache")
                                               : QStringLiteral("—");
            const CacheEntry &c = analysis->cacheSet[entry];
            const QString producer = c.producer == kNoUnit ? tr("external input") : unitName(c.producer);
            if (role == Qt::ToolTipRole) {
                QStringList readers;
                for (const UnitId r : c.readers)
                    readers << (r == graph.lossId() ? tr("the loss") : unitName(r));
                return tr("<qt>Cached from %1, read in stage two by:<br>%2</qt>")
                    .arg(producer.toHtmlEscaped(), htmlLines(readers));
            }
            // Only the producer: the header says "Cached from", and a narrow column
            // elided "cached from …" down to its first words.
            return producer;
        }
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == CacheColumn && p < static_cast<ParamId>(m_cacheEntry.size())
        && m_cacheEntry[p] >= 0)
        return theme::textColor(theme::Tone::Accent);
    return {};
}

QVariant ParamTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == CacheColumn)
        return tr("The cache set: the params stage two reads from the cache, each with the stage-one unit whose "
                  "value is cached (— : not in the cache set)");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ParamColumn: return tr("Param");
    case CacheColumn: return tr("Cached from");
    case ChainColumn: return tr("Update chain [stage]");
    case ReadersColumn: return tr("Read by");
    default: return {};
    }
}

} // namespace splitscope
