// SPDX-License-Identifier: MIT
#pragma once

#include "core/plan/Plan.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;
class QSpinBox;

namespace splitscope {

// File ▸ Plan DiffSynth training: the one-stage command (a .sh file, or pasted), the
// DiffSynth-Studio checkout it runs in, and the plan's options (the cache, stage two's
// output, the model folder, --prune). input() is what to plan; the checkout and the last
// script are remembered by the caller.
class PlanDialog : public QDialog {
    Q_OBJECT
public:
    explicit PlanDialog(QWidget *parent = nullptr);

    void setScriptPath(const QString &path);
    void setCheckout(const QString &path);
    void setCommand(const QString &text); // pasted instead of a file
    QString scriptPath() const;
    QString checkout() const;

    // False, with why() set, when something needed is missing or unreadable.
    bool makeInput(plan::PlanInput &input) const;
    QString why() const { return m_why; }

private:
    void accept() override;
    void updateFields();

    QRadioButton *m_fromFile;
    QRadioButton *m_pasted;
    QLineEdit *m_script;
    QPlainTextEdit *m_command;
    QLineEdit *m_checkout;
    QLineEdit *m_workdir;
    QLineEdit *m_cache;
    QLineEdit *m_output;
    QLineEdit *m_models;
    QSpinBox *m_line;
    QLineEdit *m_mappings;
    QCheckBox *m_prune;
    QLabel *m_problem;
    mutable QString m_why;
};

} // namespace splitscope
