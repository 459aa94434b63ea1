// SPDX-License-Identifier: MIT
#pragma once

#include "core/plan/Plan.h"

#include <QObject>
#include <QString>

#include <memory>

namespace splitscope {

class PlanRunner;
class SplitDocument;

// The app's plan for a one-stage DiffSynth-Studio command (core/plan/Plan.h). plan()
// makes it off the GUI thread (reading a checkout takes most of a second) and then
// opens what it planned against in the document, with the command's training choice.
// From then on a change of the training choice in the document plans again with that
// choice in place of the command's --trainable_models and --lora_base_model, so the
// commands shown always split as the graph does. Stale results (an older job) are
// dropped. It owns the runner that runs the commands.
class PlanController : public QObject {
    Q_OBJECT
public:
    explicit PlanController(SplitDocument *document, QObject *parent = nullptr);
    ~PlanController() override;

    void plan(const plan::PlanInput &input);
    // Waits for the planning under way (tests, and Run plan before its commands are known).
    void waitForPlan();

    bool hasPlan() const { return m_plan != nullptr; }
    std::shared_ptr<const plan::Plan> current() const { return m_plan; }
    const Diagnostics &diagnostics() const { return m_diagnostics; } // of the last attempt
    bool isPlanning() const { return m_planning; }
    const plan::PlanInput &input() const { return m_input; }
    PlanRunner *runner() const { return m_runner; }

Q_SIGNALS:
    void planningChanged(bool busy);
    void planChanged();  // a new plan
    void planFailed();   // diagnostics() says why; the previous plan stays

private:
    struct Job;
    void start(bool adopt);
    void finish(quint64 job, const plan::PlanResult &result, bool adopt);
    void onTrainingChanged();

    SplitDocument *m_document;
    PlanRunner *m_runner;
    plan::PlanInput m_input;
    std::shared_ptr<const plan::Plan> m_plan;
    Diagnostics m_diagnostics;
    quint64 m_job = 0;
    bool m_planning = false;
    bool m_adopting = false; // the document is taking the plan's pipeline: its training change is ours
    std::unique_ptr<Job> m_running;
};

} // namespace splitscope
