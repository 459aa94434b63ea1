// SPDX-License-Identifier: MIT
#include "FindingsModel.h"

#include "core/Explain.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/graph/GraphStyle.h"

#include <QColor>

namespace splitscope {

FindingsModel::FindingsModel(SplitDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &SplitDocument::analysisChanged, this, &FindingsModel::rebuild);
    connect(document, &SplitDocument::pipelineReset, this, &FindingsModel::rebuild);
    rebuild();
}

void FindingsModel::rebuild()
{
    beginResetModel();
    m_prefix = m_document->hasPipeline() ? GraphStyle::commonUnitPrefix(m_document->graph()) : QString();
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    m_hazards = analysis ? static_cast<int>(analysis->verification.hazards.size()) : 0;
    m_violations = analysis ? static_cast<int>(analysis->verification.violations.size()) : 0;
    m_frozen = analysis ? static_cast<int>(analysis->verification.frozenRandomness.size()) : 0;
    m_declarations = analysis ? static_cast<int>(analysis->verification.findings.size()) : 0;
    m_lostGradients = analysis ? static_cast<int>(analysis->verification.lostGradients()) : 0;
    // Lost gradients first: they are hazards.
    m_declarationOrder.clear();
    for (int pass = 0; analysis && pass < 2; ++pass) {
        for (std::size_t i = 0; i < analysis->verification.findings.size(); ++i) {
            if (analysis->verification.findings[i].hazard == (pass == 0))
                m_declarationOrder.push_back(static_cast<int>(i));
        }
    }
    endResetModel();
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_hazards + m_violations + m_frozen + m_declarations;
}

int FindingsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto analysis = m_document->analysis();
    if (!analysis)
        return {};
    const PipelineGraph &graph = m_document->graph();
    const Verification &v = analysis->verification;
    auto unitName = [&](UnitId u) {
        if (u == kNoUnit)
            return tr("external input");
        return u == graph.lossId() ? tr("loss (%1)").arg(nameText(graph.unitName(u)))
                                   : nameText(graph.unitName(u));
    };
    int row = index.row();
    Kind kind = Kind::Hazard;
    if (row >= m_hazards + m_violations + m_frozen) {
        kind = Kind::Declaration;
        row -= m_hazards + m_violations + m_frozen;
    } else if (row >= m_hazards + m_violations) {
        kind = Kind::FrozenRandomness;
        row -= m_hazards + m_violations;
    } else if (row >= m_hazards) {
        kind = Kind::Violation;
        row -= m_hazards;
    }
    if (role == kKindRole)
        return static_cast<int>(kind);
    if (role == kIndexRole)
        return row;

    QString cells[ColumnCount];
    UnitId unit = kNoUnit;
    QString tip;
    switch (kind) {
    case Kind::Hazard: {
        const Hazard &h = v.hazards[row];
        unit = h.reader;
        const QString param = nameText(graph.paramName(h.param));
        cells[KindColumn] = QString::fromLatin1(hazardKindName(h.kind));
        cells[UnitColumn] = tr("%1\nreads %2").arg(unitName(h.reader), param);
        cells[ProducerColumn] = tr("one-stage: %1\ntwo-stage: %2").arg(unitName(h.expected), unitName(h.actual));
        tip = tr("%1 reads %2 in stage two and sees the value of %3, but in one-stage training it sees the value "
                 "of %4 (%5).")
                  .arg(unitName(h.reader), param, unitName(h.actual), unitName(h.expected),
                      QString::fromLatin1(hazardKindName(h.mechanism)));
        break;
    }
    case Kind::Violation: {
        const ConditionViolation &c = v.violations[row];
        if (c.condition == ConditionViolation::Condition::X0) {
            unit = c.from;
            cells[KindColumn] = tr("X0 broken");
            cells[UnitColumn] = tr("%1\ncalls %2").arg(unitName(c.from), nameText(graph.modelName(c.model)));
            tip = tr("%1 calls %2, which needs gradients, but is in stage one, which runs once without gradients.")
                      .arg(unitName(c.from), nameText(graph.modelName(c.model)));
            break;
        }
        unit = c.to;
        const bool c1 = c.condition == ConditionViolation::Condition::C1;
        const QString param = nameText(graph.paramName(c.param));
        cells[KindColumn] = c1 ? tr("C1 broken") : tr("C2 broken");
        cells[UnitColumn] = c1 ? tr("%1\nreads %2").arg(unitName(c.to), param)
                               : tr("%1\nrewrites %2").arg(unitName(c.to), param);
        cells[ProducerColumn] = c1 ? tr("stage two: %1").arg(unitName(c.from))
                                   : tr("first read by: %1").arg(unitName(c.from));
        tip = c1 ? tr("%1 (stage two) produces %2, read by %3 in stage one, which would run without it.")
                       .arg(unitName(c.from), param, unitName(c.to))
                 : tr("%2 is first read inside stage two by %1, which rewrites it, while a later rewriter %3 "
                      "stays in stage one.")
                       .arg(unitName(c.from), param, unitName(c.to));
        break;
    }
    case Kind::FrozenRandomness: {
        unit = v.frozenRandomness[row];
        cells[KindColumn] = tr("frozen randomness");
        cells[UnitColumn] = unitName(unit);
        tip = tr("%1 draws random numbers but runs in stage one, and its draws reach the cache (%2): they are "
                 "drawn once, so every epoch sees the same ones.")
                  .arg(unitName(unit), QString::fromStdString(frozenRouteText(graph, v.frozenRoutes[row])));
        break;
    }
    case Kind::Declaration: {
        const DeclarationFinding &f = v.findings[m_declarationOrder[row]];
        unit = f.unit;
        const QString name = nameText(f.name);
        cells[KindColumn] = QString::fromLatin1(declarationFindingName(f.kind)) + (f.hazard ? tr("\n(lost gradients)") : QString());
        switch (f.kind) {
        case DeclarationFinding::Kind::UndeclaredModel: cells[UnitColumn] = tr("%1\ncalls %2").arg(unitName(unit), name); break;
        case DeclarationFinding::Kind::UndeclaredOutput: cells[UnitColumn] = tr("%1\nreturns %2").arg(unitName(unit), name); break;
        case DeclarationFinding::Kind::UnreturnedOutput: cells[UnitColumn] = tr("%1\nnever returns %2").arg(unitName(unit), name); break;
        case DeclarationFinding::Kind::UndeclaredRead: cells[UnitColumn] = tr("%1\nreads %2").arg(unitName(unit), name); break;
        }
        cells[ProducerColumn] = QString::fromStdString(findingPlace(f));
        tip = QString::fromStdString(declarationFindingText(graph, f));
        break;
    }
    }
    if (role == kUnitRole)
        return unit;
    if (role == Qt::DisplayRole)
        return m_prefix.isEmpty() ? cells[index.column()] : QString(cells[index.column()]).remove(m_prefix);
    if (role == Qt::ToolTipRole)
        return tip;
    if (role == Qt::ForegroundRole && index.column() == KindColumn) {
        const bool warning = kind == Kind::FrozenRandomness
            || (kind == Kind::Declaration && !v.findings[m_declarationOrder[row]].hazard);
        return theme::textColor(warning ? theme::Tone::Warning : theme::Tone::Hazard);
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn: return tr("Finding");
    case UnitColumn: return tr("Reader / unit");
    case ProducerColumn: return tr("Producers");
    default: return {};
    }
}

} // namespace splitscope
