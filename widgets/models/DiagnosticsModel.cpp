// SPDX-License-Identifier: MIT
#include "DiagnosticsModel.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/document/SplitDocument.h"

#include <QColor>
#include <QFileInfo>

namespace splitscope {

DiagnosticsModel::DiagnosticsModel(SplitDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &SplitDocument::diagnosticsChanged, this, &DiagnosticsModel::rebuild);
    rebuild();
}

void DiagnosticsModel::rebuild()
{
    beginResetModel();
    m_diagnostics = m_document->diagnostics();
    endResetModel();
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_diagnostics.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Diagnostic &d = m_diagnostics[index.row()];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case SeverityColumn: // "note", as the panel's count says ("5 notes")
            return d.severity == Severity::Info ? tr("note") : QString::fromLatin1(severityName(d.severity));
        case LocationColumn: {
            QString where = QFileInfo(QString::fromStdString(d.file)).fileName();
            if (where.isEmpty())
                where = QString::fromStdString(d.file);
            if (d.line > 0)
                where += QStringLiteral(":%1:%2").arg(d.line).arg(d.column);
            return where;
        }
        case PathColumn: {
            // JSON files: the JSON path, or the whole document. Python sources (the
            // importer): the class or attribute, when the message is about one.
            if (!d.jsonPath.empty())
                return QString::fromStdString(d.jsonPath);
            return QString::fromStdString(d.file).endsWith(QLatin1String(".py")) ? QString() : tr("(document)");
        }
        case MessageColumn: return QString::fromStdString(d.message);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(d.toString());
    if (role == Qt::ForegroundRole && index.column() == SeverityColumn) {
        switch (d.severity) {
        case Severity::Error: return theme::textColor(theme::Tone::Error);
        case Severity::Warning: return theme::textColor(theme::Tone::Warning);
        case Severity::Info: return theme::textColor(theme::Tone::Muted);
        }
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    // Short headers: the columns are capped so that the message stays in view, and a
    // long header was cut at both ends. The tooltip says what "Where" holds.
    if (section == PathColumn && role == Qt::ToolTipRole)
        return tr("Where in the file: a JSON path, or a Python name for an imported source");
    if (role == Qt::ToolTipRole)
        return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case LocationColumn: return tr("File:line:col");
    case PathColumn: return tr("Where");
    case MessageColumn: return tr("Message");
    default: return {};
    }
}

} // namespace splitscope
