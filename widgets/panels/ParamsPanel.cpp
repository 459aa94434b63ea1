// SPDX-License-Identifier: MIT
#include "ParamsPanel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/models/ParamTableModel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace splitscope {

ParamsPanel::ParamsPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new ParamTableModel(document, this)),
      m_proxy(new QSortFilterProxyModel(this)), m_filter(new QLineEdit(this)), m_table(new QTableView(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(ParamTableModel::ParamColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(tr("Filter params…"));
    m_filter->setClearButtonEnabled(true);
    m_table->setModel(m_proxy);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Left-aligned headers: a centred one in a column wider than the panel was off screen.
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setToolTip(tr("Double-click a param to inspect the first unit that writes it"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &ParamsPanel::setFilter);
    connect(m_model, &QAbstractItemModel::modelReset, m_table, &QTableView::resizeColumnsToContents);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const ParamId p = index.data(ParamTableModel::kParamIdRole).toInt();
        const Span<UnitId> chain = m_document->graph().chain(p);
        if (!chain.empty())
            m_document->setCurrentUnit(chain.front());
    });
    m_table->resizeColumnsToContents();
}

void ParamsPanel::setFilter(const QString &text)
{
    m_proxy->setFilterFixedString(text);
}

} // namespace splitscope
