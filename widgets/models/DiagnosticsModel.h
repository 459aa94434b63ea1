// SPDX-License-Identifier: MIT
#pragma once

#include "core/Diagnostic.h"

#include <QAbstractTableModel>

namespace splitscope {

class SplitDocument;

// The document's diagnostics (errors of the last failed load, or the warnings and
// notes of the open pipeline): severity, file:line:column, JSON path, message.
class DiagnosticsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, LocationColumn, PathColumn, MessageColumn, ColumnCount };

    explicit DiagnosticsModel(SplitDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    SplitDocument *m_document;
    Diagnostics m_diagnostics;
};

} // namespace splitscope
