// SPDX-License-Identifier: MIT
#pragma once

#include "core/TrainingChoice.h"

#include <QWidget>

class QButtonGroup;
class QComboBox;
class QLabel;
class QToolButton;
class QTreeView;

namespace splitscope {

class MovedUnitsModel;
class SplitDocument;

// Compares the current split (A) with a second one (B): the same models under the
// other algorithm (seed vs safe), or a training configuration of its own (a preset
// of the file, or models, LoRA base and mode picked here). Shows what moves, in
// which direction and why (diffSplits), and lets the graph show B overlaid on A or
// side by side.
class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(SplitDocument *document, QWidget *parent = nullptr);

    MovedUnitsModel *movedUnits() const { return m_model; }
    QTreeView *tree() const { return m_tree; }
    bool sideBySide() const { return m_sideBySide; }
    QString summaryText() const;

public Q_SLOTS:
    void compareOtherMode();
    void compareConfiguration(const TrainingChoice &b);
    void compareOff();
    void setSideBySide(bool on);

Q_SIGNALS:
    void sideBySideChanged(bool on);

private:
    void pipelineReset();
    void comparisonChanged();
    void configurationEdited();
    // Shows `shown` in the Split B row (B's configuration, or what the other mode compares with).
    void syncEditor(const TrainingChoice &shown);

    SplitDocument *m_document;
    MovedUnitsModel *m_model;
    QButtonGroup *m_kind;
    QWidget *m_editor;
    QComboBox *m_preset;
    QToolButton *m_models;
    QComboBox *m_lora;
    QComboBox *m_mode;
    QButtonGroup *m_display;
    QLabel *m_summary;
    QTreeView *m_tree;
    TrainingChoice m_b;
    bool m_sideBySide = false;
    bool m_syncing = false;
};

} // namespace splitscope
