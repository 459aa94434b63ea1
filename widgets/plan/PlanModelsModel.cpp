// SPDX-License-Identifier: MIT
#include "PlanModelsModel.h"

#include "widgets/common/ThemeColors.h"

namespace splitscope {

PlanModelsModel::PlanModelsModel(QObject *parent) : QAbstractTableModel(parent) {}

void PlanModelsModel::setPlan(std::shared_ptr<const plan::Plan> plan)
{
    beginResetModel();
    m_plan = std::move(plan);
    // Entries of one model id ("Qwen/Qwen-Image:...") are shown by their paths, the id in
    // the header: in a narrow column the paths are what tells them apart.
    m_sharedId.clear();
    if (m_plan && !m_plan->models.empty()) {
        for (const plan::PlannedModel &m : m_plan->models) {
            const std::size_t colon = m.entry.find(':');
            const QString id = m.flag == "model_id_with_origin_paths" && colon != std::string::npos
                ? QString::fromStdString(m.entry.substr(0, colon + 1))
                : QString();
            if (id.isEmpty() || (!m_sharedId.isEmpty() && id != m_sharedId)) {
                m_sharedId.clear();
                break;
            }
            m_sharedId = id;
        }
    }
    endResetModel();
}

int PlanModelsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_plan ? 0 : static_cast<int>(m_plan->models.size());
}

int PlanModelsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString PlanModelsModel::sizeText(std::uint64_t bytes)
{
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024)
        return tr("%1 GiB").arg(b / (1024.0 * 1024 * 1024), 0, 'f', 1);
    if (b >= 1024.0 * 1024)
        return tr("%1 MiB").arg(b / (1024.0 * 1024), 0, 'f', 1);
    if (b >= 1024.0)
        return tr("%1 KiB").arg(b / 1024.0, 0, 'f', 1);
    return tr("%1 bytes").arg(bytes);
}

QVariant PlanModelsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const plan::PlannedModel &m = m_plan->models[static_cast<std::size_t>(index.row())];
    const auto stage = [&](bool needed) {
        return needed ? tr("loads") : m_plan->prune ? tr("drops") : tr("offloads");
    };
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case EntryColumn: return QString::fromStdString(m.entry).mid(static_cast<int>(m_sharedId.size()));
        case ModelColumn: {
            QStringList models;
            for (const std::string &name : m.models)
                models << QString::fromStdString(name);
            return models.join(QStringLiteral(", "));
        }
        case StageOneColumn: return stage(m.stageOne);
        case StageTwoColumn: return stage(m.stageTwo);
        case SizeColumn: return m.bytes ? sizeText(*m.bytes) : tr("unknown");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(m.entry) + QStringLiteral("\n") + tr("decided by %1: %2")
                          .arg(QString::fromStdString(m.resolvedBy), QString::fromStdString(m.how));
        for (const std::string &file : m.files)
            tip += QStringLiteral("\n") + QString::fromStdString(file);
        return tip;
    }
    if (role == Qt::ForegroundRole && (index.column() == StageOneColumn || index.column() == StageTwoColumn)) {
        const bool needed = index.column() == StageOneColumn ? m.stageOne : m.stageTwo;
        return needed ? QVariant() : QVariant(theme::textColor(theme::Tone::Muted));
    }
    if (role == Qt::TextAlignmentRole && index.column() == SizeColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PlanModelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section == EntryColumn && role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter); // its start says the most
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case EntryColumn: return m_sharedId.isEmpty() ? tr("Entry") : tr("Entry in %1").arg(m_sharedId.chopped(1));
    case ModelColumn: return tr("Model");
    case StageOneColumn: return tr("Stage one");
    case StageTwoColumn: return tr("Stage two");
    case SizeColumn: return tr("Size");
    default: return {};
    }
}

} // namespace splitscope
