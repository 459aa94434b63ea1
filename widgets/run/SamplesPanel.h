// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QWidget>

#include <deque>

class QCheckBox;
class QGridLayout;
class QLabel;
class QLineEdit;

namespace splitscope {

class CliTask;
class RunController;

// The Samples tab: images drawn from a few prompts with each epoch's LoRA while the
// training goes on, as OneTrainer's and kohya_ss's sample previews. When a training
// stage saves epoch N's checkpoint, `splitscope-cli sample` draws the prompts with it
// (one thread, beside the training) into <run folder>/samples/epoch-N/, and the tab
// adds a row: the epoch, then one image per prompt. Checkpoints that come while one is
// drawn wait their turn. Only a LoRA on the DiT can be sampled (what `sample` loads).
class SamplesPanel : public QWidget {
    Q_OBJECT
public:
    explicit SamplesPanel(RunController *controller, QWidget *parent = nullptr);
    ~SamplesPanel() override;

    QLineEdit *promptsField() const { return m_prompts; }
    QCheckBox *enabledBox() const { return m_enabled; }
    // Rows drawn so far (epochs), and the images of each.
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    int imageCount(int row) const;
    bool isDrawing() const;
    QString statusText() const; // what it does now, or why it could not
    // Draws the prompts with `checkpoint` (the controller's current launch says which
    // models and LoRA settings); what epochCheckpointSaved does when enabled.
    void drawEpoch(const QString &checkpoint, int epoch);
    void clear();

Q_SIGNALS:
    // A row was added (or a draw failed: `ok` false, the status says why).
    void rowDone(bool ok);

private:
    struct Job {
        QString checkpoint;
        int epoch = 0;
        QString folder;
        QStringList prompts;
    };
    void startNext();
    void finished(bool ok, const QString &message);
    void addRow(const Job &job);

    RunController *m_controller;
    CliTask *m_task;
    QLineEdit *m_prompts;
    QCheckBox *m_enabled;
    QLabel *m_status;
    QGridLayout *m_grid;
    std::deque<Job> m_queue;
    std::vector<std::vector<QLabel *>> m_rows;
    bool m_drawing = false;
};

} // namespace splitscope
