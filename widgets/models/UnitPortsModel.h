// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QAbstractTableModel>

namespace splitscope {

class SplitDocument;
struct Hazard;

// The inspector's tables for the current unit.
//
// Inputs: each param the unit reads (fetch_input_params order), the unit that
// produces it (or the external input) and where the value comes from in two-stage
// training: the stage-one cache, a stage-two unit, or (for a stage-one unit) the
// stage-one run itself. Where two-stage training gives the reader another
// producer's value than one-stage training (a hazard of the verifier's), the row
// names both producers and is marked as a hazard.
//
// Outputs: each param the unit writes, the units and the loss that read this
// unit's value of it (its data edges), and whether that value goes into the cache.
// A reader that sees this value in only one of the two runs (a hazard) is listed
// with the run it sees it in, and the row is marked.
class UnitPortsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Side { Inputs, Outputs };
    enum Column { ParamColumn, PeerColumn, SourceColumn, ColumnCount };
    // Qt::UserRole on a row: the unit to jump to (producer or first consumer), or kNoUnit.
    static constexpr int kPeerUnitRole = Qt::UserRole + 1;
    // Qt::UserRole + 2 on a row: true when a hazard touches it.
    static constexpr int kHazardRole = Qt::UserRole + 2;

    UnitPortsModel(SplitDocument *document, Side side, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // The unit-name prefix the graph's boxes leave out ("QwenImageUnit_"): the tables leave it
    // out too, so that the part of a name that differs is not elided away; tooltips keep it.
    QString m_prefix;
    struct Row {
        ParamId param = -1;
        QString peer;
        QString source;
        QString hazardNote; // what the hazard does, for the tooltip; empty: no hazard
        UnitId peerUnit = kNoUnit;
        bool fromCache = false;
    };
    void addInputs(UnitId unit);
    void addOutputs(UnitId unit);
    QString unitText(UnitId unit) const;     // "external input" for kNoUnit, "the loss"
    QString hazardText(const Hazard &hazard) const; // a sentence, for the tooltip
    void rebuild();

    SplitDocument *m_document;
    Side m_side;
    std::vector<Row> m_rows;
};

} // namespace splitscope
