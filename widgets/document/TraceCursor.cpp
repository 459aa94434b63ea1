// SPDX-License-Identifier: MIT
#include "TraceCursor.h"

#include "widgets/common/WidgetHelpers.h"

#include "SplitDocument.h"

#include "core/Explain.h"

#include <algorithm>

namespace splitscope {

namespace {

StepCause causeOf(const Split &split, UnitId unit)
{
    const Reason &r = split.reasons[unit];
    switch (r.rule) {
    case Reason::Rule::Forward: return StepCause{StepCause::Kind::DataEdge, r.cause, unit, r.param};
    case Reason::Rule::Update: return StepCause{StepCause::Kind::Chain, r.cause, unit, r.param};
    case Reason::Rule::LaterProducer:
    case Reason::Rule::ReachingDefinition: return StepCause{StepCause::Kind::Reader, r.cause, unit, r.param};
    default: return StepCause{StepCause::Kind::Model, kNoUnit, unit, -1};
    }
}

QString stepTitle(const TraceStep &step)
{
    switch (step.kind) {
    case TraceStep::Kind::Initial: return QStringLiteral("Start: the units that call a model that needs gradients");
    case TraceStep::Kind::Forward: return QStringLiteral("Iteration %1, forward closure F").arg(step.iteration);
    case TraceStep::Kind::Update: return QStringLiteral("Iteration %1, update chains U").arg(step.iteration);
    }
    return {};
}

} // namespace

TraceCursor::TraceCursor(SplitDocument *document, QObject *parent) : QObject(parent), m_document(document)
{
    connect(document, &SplitDocument::analysisChanged, this, &TraceCursor::rebuild);
    connect(document, &SplitDocument::pipelineReset, this, &TraceCursor::rebuild);
    rebuild();
}

void TraceCursor::rebuild()
{
    const bool wasAtSplit = atSplit();
    m_analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    m_steps.clear();
    if (m_analysis) {
        const PipelineGraph &graph = m_document->graph();
        const Split &split = m_analysis->split;
        for (const TraceStep &step : traceSteps(split)) {
            TracePosition p;
            p.label = QString::fromStdString(step.label());
            p.title = stepTitle(step);
            p.added = step.added;
            for (const UnitId u : step.added)
                p.causes.push_back(causeOf(split, u));
            p.explanation = toQStringList(describeStep(graph, split, step));
            m_steps.push_back(std::move(p));
        }
        if (split.mode != SplitMode::Seed) {
            // The core's trace of a non-seed split is X0 alone; what the closure added
            // comes as one more step, in the order the rules added the units.
            TracePosition closure;
            closure.label = QStringLiteral("S");
            closure.title = QStringLiteral("Safe closure: C1, R1, R2 and the loss");
            std::vector<char> inX0(split.trained.size(), 0);
            for (const UnitId u : split.x0)
                inX0[u] = 1;
            for (const UnitId u : split.v1()) {
                if (!inX0[u])
                    closure.added.push_back(u);
            }
            std::stable_sort(closure.added.begin(), closure.added.end(),
                [&](UnitId a, UnitId b) { return split.reasons[a].iteration < split.reasons[b].iteration; });
            closure.explanation << QStringLiteral(
                "S: the least set containing X0 that is closed under data edges (C1), later producers of what it "
                "reads (R1) and the writes its reads must see (R2), with the loss as the last reader.");
            if (closure.added.empty())
                closure.explanation << QStringLiteral("Nothing joins: X0 is already closed.");
            for (const UnitId u : closure.added) {
                closure.causes.push_back(causeOf(split, u));
                closure.explanation << QString::fromStdString(describeReason(graph, split, u));
            }
            m_steps.push_back(std::move(closure));
        }
    }
    const int wanted = wasAtSplit ? stepCount() : std::min(m_position, stepCount());
    m_position = wanted;
    Q_EMIT stepsChanged();
    Q_EMIT positionChanged(m_position);
}

QString TraceCursor::positionLabel(int position) const
{
    if (position >= 0 && position < stepCount())
        return m_steps[position].label;
    return QStringLiteral("split");
}

std::vector<char> TraceCursor::membersAt(int position) const
{
    if (!m_analysis)
        return {};
    const Split &split = m_analysis->split;
    // The last step completes the split (for a safe split, the closure step).
    if (position >= stepCount() - 1)
        return split.trained;
    return membersAfterSteps(split, static_cast<std::size_t>(position) + 1, static_cast<int>(split.trained.size()));
}

void TraceCursor::setPosition(int position)
{
    position = std::clamp(position, 0, stepCount());
    if (position == m_position)
        return;
    m_position = position;
    Q_EMIT positionChanged(position);
}

} // namespace splitscope
