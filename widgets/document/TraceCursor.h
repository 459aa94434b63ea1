// SPDX-License-Identifier: MIT
#pragma once

#include "core/Split.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace splitscope {

class SplitDocument;
struct SplitAnalysis;

// Why one unit joined X at one step: the data edge or update chain that pulled it in.
struct StepCause {
    enum class Kind {
        Model,    // X0: the unit calls a model that needs gradients (no edge)
        DataEdge, // F / C1: `from` produces `param`, read by `to`
        Chain,    // U: `from` is the first reader in X of `param` and rewrites it; `to` rewrites it later
        Reader    // safe R1/R2: `from` (a unit or the loss) reads `param` in stage two, so `to` must run there
    };
    Kind kind = Kind::Model;
    UnitId from = kNoUnit;
    UnitId to = kNoUnit;
    ParamId param = -1;
};

// One stepper position.
struct TracePosition {
    QString label;              // "X0", "F1", "U1", ..., "S" (safe closure)
    QString title;              // "Iteration 1, forward closure"
    std::vector<UnitId> added;  // pipeline order
    std::vector<StepCause> causes;
    QStringList explanation;    // describeStep's lines
};

// The fixed-point stepper's state over the document's current split: the steps of
// the core's trace (traceSteps: X0, F1, U1, F2, ...), plus, for a safe split, one
// closing step "S" with the units the safe rules add. Positions run from 0 (X0) to
// stepCount(); position stepCount() is "the split" (everything applied, nothing
// highlighted), which is where the cursor rests by default.
//
// membersAt(k) for k < stepCount() is membersAfterSteps(split, k + 1) of the core;
// views color X with it and mark added(k) and causes(k).
class TraceCursor : public QObject {
    Q_OBJECT
public:
    explicit TraceCursor(SplitDocument *document, QObject *parent = nullptr);

    int stepCount() const { return static_cast<int>(m_steps.size()); }
    int position() const { return m_position; }
    bool atSplit() const { return m_position >= stepCount(); }
    const TracePosition &step(int index) const { return m_steps[index]; }
    QString positionLabel(int position) const; // step label, or "split" at the end
    // Stage-two membership after applying steps 0..position (the whole split at the end).
    std::vector<char> membersAt(int position) const;

public Q_SLOTS:
    void setPosition(int position);
    void first() { setPosition(0); }
    void previous() { setPosition(m_position - 1); }
    void next() { setPosition(m_position + 1); }
    void last() { setPosition(stepCount()); }

Q_SIGNALS:
    void stepsChanged();
    void positionChanged(int position);

private:
    void rebuild();

    SplitDocument *m_document;
    std::shared_ptr<const SplitAnalysis> m_analysis;
    std::vector<TracePosition> m_steps;
    int m_position = 0;
};

} // namespace splitscope
