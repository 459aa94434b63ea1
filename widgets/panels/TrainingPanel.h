// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QButtonGroup;
class QComboBox;
class QLabel;
class QTableView;

namespace splitscope {

class ModelChoiceModel;
class SplitDocument;

// The training configuration: presets from the document (its `training` block and
// `alternative_training`), the models with check boxes for trainable, the LoRA
// base model, and the split mode (seed: DiffSynth's algorithm; safe: the
// hazard-free closure). Every change goes to the document, which re-splits at once;
// a summary line shows the result.
class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainingPanel(SplitDocument *document, QWidget *parent = nullptr);

    QTableView *modelTable() const { return m_table; }
    QComboBox *loraCombo() const { return m_lora; }
    QComboBox *presetCombo() const { return m_presets; }
    ModelChoiceModel *modelChoices() const { return m_models; }
    QLabel *lockLabel() const { return m_lock; }
    // The summary under the controls, without its markup (for tests).
    QString summaryText() const;

    // While a launch runs, the configuration it trains cannot change (the graph, the
    // Run panel and the ring of the unit running now describe that launch): the
    // controls are disabled, and a line above them says why (`reason`; "" unlocks).
    void setLocked(const QString &reason);
    bool isLocked() const { return !m_lockReason.isEmpty(); }

private:
    void pipelineReset();
    void trainingChanged();
    void analysisChanged();

    SplitDocument *m_document;
    ModelChoiceModel *m_models;
    QComboBox *m_presets;
    QTableView *m_table;
    QComboBox *m_lora;
    QButtonGroup *m_mode;
    QLabel *m_summary;
    QLabel *m_lock;
    QWidget *m_controls;
    QString m_lockReason;
};

} // namespace splitscope
