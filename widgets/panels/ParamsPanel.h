// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace splitscope {

class ParamTableModel;
class SplitDocument;

// Every param with its update chain, readers and cache-set membership, filterable
// by name. Selecting a row whose chain has units makes its first writer current.
class ParamsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParamsPanel(SplitDocument *document, QWidget *parent = nullptr);

    ParamTableModel *params() const { return m_model; }
    QTableView *table() const { return m_table; }
    void setFilter(const QString &text);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void measureColumns(); // after a reset: the widths the contents need, then fitColumns
    void fitColumns();

    SplitDocument *m_document;
    ParamTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
    QList<int> m_contentWidths; // per column, as resizeColumnsToContents measured them
};

} // namespace splitscope
