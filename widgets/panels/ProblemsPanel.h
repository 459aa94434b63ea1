// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace splitscope {

class DiagnosticsModel;
class SplitDocument;

// The diagnostics of the last load: the errors of a file that failed (the previous
// pipeline stays open) or the warnings and notes of the open one, each with file,
// line:column and JSON path.
class ProblemsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsPanel(SplitDocument *document, QWidget *parent = nullptr);

    DiagnosticsModel *diagnostics() const { return m_model; }
    QTableView *table() const { return m_table; }

private:
    void refresh();
    void fitColumns();

    SplitDocument *m_document;
    DiagnosticsModel *m_model;
    QLabel *m_summary;
    QTableView *m_table;
    QList<int> m_contentWidths; // the columns' widths as their contents ask
};

} // namespace splitscope
