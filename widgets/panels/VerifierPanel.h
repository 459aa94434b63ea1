// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace splitscope {

class FindingsModel;
class SplitDocument;

// The verifier's verdict on the current split: a one-line summary, then every
// hazard, broken condition and frozen-randomness warning, each with "Show", which
// asks the graph to select and emphasise the reader, the producers and the edge.
class VerifierPanel : public QWidget {
    Q_OBJECT
public:
    explicit VerifierPanel(SplitDocument *document, QWidget *parent = nullptr);

    FindingsModel *findings() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString summaryText() const;

public Q_SLOTS:
    // Shows the finding in `row` (as the Show button does).
    void showRow(int row);

Q_SIGNALS:
    // A hazard of the current split (index into verification.hazards) should be shown.
    void hazardRequested(int hazard);
    // Another finding: show this unit.
    void unitRequested(UnitId unit);

private:
    void refresh();
    void fitColumns(); // the text columns get the room, the producers wrap

    SplitDocument *m_document;
    FindingsModel *m_model;
    QLabel *m_summary;
    QTableView *m_table;
    QPushButton *m_show;
};

} // namespace splitscope
