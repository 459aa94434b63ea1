// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QAbstractTableModel>

namespace splitscope {

class SplitDocument;

// Every param of the pipeline: whether stage two reads it from the cache (and from
// which producer), its update chain (the units that write it, in order, each marked
// with its stage) and its readers. Sorted by name like the core's cache set. The
// short cache column comes before the two lists, which can be long (a view elides
// them); their tooltips have the whole list, one unit a line.
class ParamTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ParamColumn, CacheColumn, ChainColumn, ReadersColumn, ColumnCount };
    static constexpr int kParamIdRole = Qt::UserRole + 1;

    explicit ParamTableModel(SplitDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Row of a param, or -1.
    int rowOf(ParamId param) const;

private:
    // The unit-name prefix the graph's boxes leave out ("QwenImageUnit_"): the tables leave it
    // out too, so that the part of a name that differs is not elided away; tooltips keep it.
    QString m_prefix;
    void rebuild();
    void refreshCache();

    SplitDocument *m_document;
    std::vector<ParamId> m_params;          // rows, by name
    std::vector<int> m_cacheEntry;          // per param id: index in the analysis' cache set, or -1
};

} // namespace splitscope
