// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QAbstractTableModel>

#include <vector>

namespace splitscope {

class SplitDocument;

// The verifier's findings for the current split, one row each: hazards first (a
// read in stage two that sees a different producer than one-stage training),
// then broken split conditions (C1/C2), then stochastic units whose randomness
// the cache would freeze, then what process() bodies do beyond their declarations
// (an undeclared call of a model needing gradients in stage one among them is a hazard).
class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Kind { Hazard, Violation, FrozenRandomness, Declaration };
    // Three columns, for a dock about 360 px wide (the cells wrap): what was found; the
    // unit and the param it reads ("PromptEmbedder" / "reads edit_image"); the producers
    // of a hazard, one line each ("one-stage: …" / "two-stage: …").
    enum Column { KindColumn, UnitColumn, ProducerColumn, ColumnCount };
    static constexpr int kKindRole = Qt::UserRole + 1;  // Kind as int
    static constexpr int kIndexRole = Qt::UserRole + 2; // index in the analysis' list of that kind
    static constexpr int kUnitRole = Qt::UserRole + 3;  // the unit the row is about

    explicit FindingsModel(SplitDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int hazardCount() const { return m_hazards; }
    int violationCount() const { return m_violations; }
    int frozenCount() const { return m_frozen; }
    int declarationCount() const { return m_declarations; }
    int lostGradientCount() const { return m_lostGradients; }

private:
    void rebuild();

    SplitDocument *m_document;
    // The unit-name prefix the graph's boxes leave out ("QwenImageUnit_"): the tables leave it
    // out too, so that the part of a name that differs is not elided away; tooltips keep it.
    QString m_prefix;
    int m_hazards = 0;
    int m_violations = 0;
    int m_frozen = 0;
    int m_declarations = 0;
    int m_lostGradients = 0;
    std::vector<int> m_declarationOrder; // rows -> findings, lost gradients first
};

} // namespace splitscope
