// SPDX-License-Identifier: MIT
#include "ParamsPanel.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/ParamTableModel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QResizeEvent>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace splitscope {

namespace {

// Column limits (see fitColumnWidths). Even in a narrow dock a param name keeps up to
// 28 characters (wan_video's longest has 24) and the unit whose value is cached 20
// (cut in the middle beyond), more in a wide panel; the update chain takes at most
// 35 % of the width and the list of readers, last, gets the rest.
const QList<ColumnLimit> kColumnLimits = {{35, 28}, {35, 20}, {35, 16}};

} // namespace

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
    // Names and lists cut in the middle keep their ends: "WanVideoUnit_…EmbedderVAE".
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setToolTip(tr("Double-click a param to inspect the first unit that writes it"));
    m_table->setTabKeyNavigation(false); // Tab goes on to the next widget; the arrows move between cells
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &ParamsPanel::setFilter);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ParamsPanel::measureColumns);
    // A new split changes the cache column ("—" before the first split, unit names
    // after): measured again, or it stays as narrow as "—" and elides every name.
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this]() {
        m_table->resizeColumnToContents(ParamTableModel::CacheColumn);
        if (m_contentWidths.size() > ParamTableModel::CacheColumn)
            m_contentWidths[ParamTableModel::CacheColumn] = m_table->columnWidth(ParamTableModel::CacheColumn);
        fitColumns();
    });
    m_table->viewport()->installEventFilter(this); // the limits follow the panel's width
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const ParamId p = index.data(ParamTableModel::kParamIdRole).toInt();
        const Span<UnitId> chain = m_document->graph().chain(p);
        if (!chain.empty())
            m_document->setCurrentUnit(chain.front());
    });
    measureColumns();
}

void ParamsPanel::measureColumns()
{
    m_contentWidths = measureColumnWidths(m_table);
    fitColumns();
}

void ParamsPanel::fitColumns()
{
    fitColumnWidths(m_table, m_contentWidths, kColumnLimits);
}

bool ParamsPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) {
        const auto *resize = static_cast<QResizeEvent *>(event);
        if (resize->size().width() != resize->oldSize().width())
            fitColumns();
    }
    return QWidget::eventFilter(watched, event);
}

void ParamsPanel::setFilter(const QString &text)
{
    m_proxy->setFilterFixedString(text);
}

} // namespace splitscope
