// SPDX-License-Identifier: MIT
#pragma once

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

private:
    SplitDocument *m_document;
    ParamTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
};

} // namespace splitscope
