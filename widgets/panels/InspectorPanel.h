// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLabel;
class QTableView;
class QTabWidget;
class QTextBrowser;

namespace splitscope {

class SplitDocument;
class UnitPortsModel;

// Everything about the document's current unit: its stage and models, the chain of
// reasons that puts it there (explainUnit), the hazards that touch it, and two
// tables: its inputs (producer, and whether two-stage training reads the value
// from the cache) and its outputs (who reads them, whether they are cached).
// Double-clicking a producer or reader makes it the current unit.
class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(SplitDocument *document, QWidget *parent = nullptr);

    QString headerText() const;    // plain text, for tests
    QString reasonText() const;
    UnitPortsModel *inputsModel() const { return m_inputs; }
    UnitPortsModel *outputsModel() const { return m_outputs; }

private:
    void refresh();
    QTableView *makeTable(UnitPortsModel *model);

    SplitDocument *m_document;
    UnitPortsModel *m_inputs;
    UnitPortsModel *m_outputs;
    QLabel *m_header;
    QTextBrowser *m_reason;
    QTabWidget *m_tabs;
};

} // namespace splitscope
