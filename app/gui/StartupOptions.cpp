// SPDX-License-Identifier: MIT
#include "StartupOptions.h"

#include "MainWindow.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/layout/LayoutController.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunPanel.h"

#include "core/AtomicFile.h"

#ifdef SPLITSCOPE_HAVE_PLAN
#include "widgets/plan/PlanController.h"

#include <QDir>
#include <QProcessEnvironment>
#endif

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <functional>
#include <memory>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kLayoutTimeoutMs = 120000; // dot on thousands of units takes tens of seconds
constexpr int kRunTimeoutMs = 30 * 60 * 1000; // a screenshot's launches; they are meant to be short
constexpr double kHalfway = 0.5;              // --screenshot-when running: this far into the last stage

// Runs the event loop until `done` holds or `timeoutMs` passed; false on timeout.
bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer waited;
    waited.start();
    while (!done()) {
        if (waited.elapsed() > timeoutMs)
            return false;
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

QString launchName(RunKind kind)
{
    return runKindKey(kind).replace(QLatin1Char('_'), QLatin1Char('-'));
}

QString joined(const std::vector<std::string> &names)
{
    QStringList list;
    for (const auto &n : names)
        list << QString::fromStdString(n);
    return list.join(QStringLiteral(", "));
}

bool known(const std::vector<std::string> &names, const QString &name)
{
    return std::find(names.begin(), names.end(), name.toStdString()) != names.end();
}

} // namespace

QString applyStartupOptions(MainWindow &window, const GuiOptions &o)
{
    SplitDocument *document = window.document();
    if (!document->hasPipeline())
        return QStringLiteral("no pipeline is open");
    const auto models = document->modelNames();

    TrainingChoice choice = document->training();
    if (o.trainable) {
        choice.trainable.clear();
        for (const QString &m : *o.trainable) {
            if (!known(models, m))
                return QStringLiteral("--trainable: unknown model '%1' (models: %2)").arg(m, joined(models));
            choice.setTrainable(m.toStdString(), true, models);
        }
    }
    if (o.loraBase) {
        if (*o.loraBase == QLatin1String("none"))
            choice.loraBase.reset();
        else if (!known(models, *o.loraBase))
            return QStringLiteral("--lora-base: unknown model '%1' (models: %2, or none)").arg(*o.loraBase,
                joined(models));
        else
            choice.loraBase = o.loraBase->toStdString();
    }
    if (o.mode)
        choice.mode = *o.mode;
    document->setTraining(choice);

    if (o.compare) {
        const QString what = *o.compare;
        bool isIndex = false;
        const int preset = what.toInt(&isIndex);
        if (what == QLatin1String("other")) {
            document->setComparison(SplitDocument::CompareKind::OtherMode);
        } else if (what == QLatin1String("seed") || what == QLatin1String("safe")) {
            TrainingChoice b = choice;
            b.mode = what == QLatin1String("safe") ? SplitMode::Safe : SplitMode::Seed;
            if (b.mode != choice.mode)
                document->setComparison(SplitDocument::CompareKind::OtherMode);
            else
                document->setComparison(SplitDocument::CompareKind::Configuration, b);
        } else if (isIndex) {
            const auto presets = document->presets();
            if (preset < 0 || preset >= static_cast<int>(presets.size()))
                return QStringLiteral("--compare: preset %1 does not exist (this pipeline has %2: 0..%3)")
                    .arg(preset)
                    .arg(presets.size())
                    .arg(static_cast<int>(presets.size()) - 1);
            TrainingChoice b = presets[preset];
            b.mode = choice.mode;
            document->setComparison(SplitDocument::CompareKind::Configuration, b);
        } else {
            return QStringLiteral("--compare: expected other, seed, safe or a preset index, got '%1'").arg(what);
        }
    }
    const GraphWorkspace::Actions &actions = window.workspace()->actions();
    if (o.sideBySide)
        window.workspace()->setSideBySide(true);
    if (o.chains)
        actions.chains->setChecked(true);
    if (o.stageTwoOnly)
        actions.stageTwoOnly->setChecked(true);
    if (o.noLabels)
        actions.edgeLabels->setChecked(false);
    if (o.select) {
        const PipelineGraph &graph = document->graph();
        const std::string name = o.select->toStdString();
        UnitId unit = graph.findUnitOrLoss(name);
        if (unit == kNoUnit) // the name as the graph shows it, without the prefix most units share
            unit = graph.findUnit(GraphStyle::commonUnitPrefix(graph).toStdString() + name);
        if (unit == kNoUnit)
            return QStringLiteral("--select: no unit named '%1' in %2").arg(*o.select,
                QString::fromStdString(document->graph().pipelineName()));
        document->setCurrentUnit(unit);
        // Zoomed to where its name reads, and in the middle of the view.
        window.workspace()->view()->centerOnUnitWhenDrawn(unit);
    }
    if (o.step) {
        TraceCursor *cursor = window.cursor();
        bool isNumber = false;
        const int number = o.step->toInt(&isNumber);
        int position = -1;
        if (isNumber) {
            position = number;
        } else if (o.step->compare(QLatin1String("split"), Qt::CaseInsensitive) == 0) {
            position = cursor->stepCount();
        } else {
            for (int i = 0; i < cursor->stepCount(); ++i) {
                if (cursor->step(i).label.compare(*o.step, Qt::CaseInsensitive) == 0)
                    position = i;
            }
        }
        if (position < 0 || position > cursor->stepCount()) {
            QStringList labels;
            for (int i = 0; i < cursor->stepCount(); ++i)
                labels << cursor->step(i).label;
            return QStringLiteral("--step: '%1' is not a position of this split (0..%2 or %3, split)")
                .arg(*o.step)
                .arg(cursor->stepCount())
                .arg(labels.join(QStringLiteral(", ")));
        }
        cursor->setPosition(position);
    }
    if (o.presentation)
        window.setPresentationMode(true);
    return {};
}

QString applyRunOptions(MainWindow &window, const GuiOptions &o)
{
    if (!o.runSettings.isEmpty()) {
        // Checked as main() checks it: the same messages (file, line and column, key).
        QStringList errors;
        const auto settings = readRunSettingsFile(o.runSettings, RunPanel::defaultSettings(), &errors);
        if (!settings)
            return QStringLiteral("--run-settings: %1").arg(errors.join(QStringLiteral("; ")));
        window.runPanel()->setSettings(*settings);
    }
    if (!o.runHistory.isEmpty()) {
        QString error;
        if (!window.runHistory()->open(o.runHistory, &error))
            return QStringLiteral("--run-history: %1").arg(error);
    }
    return {};
}

QString startRuns(MainWindow &window, const GuiOptions &o, bool block)
{
    RunPanel *panel = window.runPanel();
    RunController *controller = window.runController();
    auto refused = [panel](RunKind kind) {
        QStringList problems;
        for (const RunIssue &issue : panel->issues())
            problems << issue.message;
        if (!panel->executability().runnable())
            problems << panel->executability().reason;
        return QStringLiteral("--run %1: cannot start: %2")
            .arg(launchName(kind), problems.isEmpty() ? QStringLiteral("a launch is going") : problems.join(QLatin1Char(' ')));
    };
    if (o.runs.empty())
        return {};
    window.showDock(QStringLiteral("RunDock"));
    if (!block) {
        // Each finished launch starts the next one.
        auto next = std::make_shared<std::size_t>(1);
        if (!panel->launch(o.runs.front()))
            return refused(o.runs.front());
        QObject::connect(controller, &RunController::launchFinished, panel, [panel, controller, next, runs = o.runs]() {
            const auto session = controller->session();
            if (*next >= runs.size() || !session || session->outcome() != StageRun::Outcome::Finished)
                return;
            panel->launch(runs[(*next)++]);
        });
        return {};
    }
    for (std::size_t i = 0; i < o.runs.size(); ++i) {
        const RunKind kind = o.runs[i];
        if (!panel->launch(kind))
            return refused(kind);
        const bool last = i + 1 == o.runs.size();
        const RunStage finalStage = stagesOf(kind).back();
        const bool finished = waitFor(
            [&]() {
                if (!controller->isRunning())
                    return true;
                if (!last || !o.screenshotWhileRunning)
                    return false;
                const StageRun *run = controller->session()->current();
                return run && run->stage == finalStage && run->fraction() >= kHalfway
                    && (!run->isTraining() || !run->loss.isEmpty());
            },
            kRunTimeoutMs);
        if (!finished)
            return QStringLiteral("--run %1: still running after %2 minutes").arg(launchName(kind)).arg(kRunTimeoutMs / 60000);
        const auto session = controller->session();
        if (!controller->isRunning() && session->outcome() != StageRun::Outcome::Finished) {
            QString why;
            for (const StageRun &stage : session->stages())
                why += stage.failure;
            return QStringLiteral("--run %1: %2\n%3").arg(launchName(kind), session->summary(), why);
        }
    }
    return {};
}

QString finishRuns(MainWindow &window)
{
    RunController *controller = window.runController();
    if (!waitFor([controller]() { return !controller->isRunning(); }, kRunTimeoutMs))
        return QStringLiteral("--screenshot-when running: the launch is still running after %1 minutes").arg(kRunTimeoutMs / 60000);
    const auto session = controller->session();
    if (session && session->outcome() != StageRun::Outcome::Finished) {
        QString why;
        for (const StageRun &stage : session->stages())
            why += stage.failure;
        return QStringLiteral("--run %1: %2\n%3").arg(launchName(session->kind()), session->summary(), why);
    }
    return {};
}

QString startPlan(MainWindow &window, const GuiOptions &o)
{
    if (o.planScript.isEmpty())
        return {};
#ifdef SPLITSCOPE_HAVE_PLAN
    plan::PlanInput input;
    std::string error;
    if (!readWholeFile(o.planScript.toStdString(), input.script, &error))
        return QStringLiteral("--plan: %1: %2").arg(o.planScript, QString::fromStdString(error));
    input.scriptName = o.planScript.toStdString();
    input.checkout = o.diffsynth.toStdString();
    input.workdir = (o.planWorkdir.isEmpty() ? o.diffsynth : o.planWorkdir).toStdString();
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &key : environment.keys())
        input.environment.emplace(key.toStdString(), environment.value(key).toStdString());
    window.planDiffSynthInput(input);
    PlanController *planner = window.planController();
    planner->waitForPlan();
    if (!planner->hasPlan() || hasErrors(planner->diagnostics())) { // a failed attempt keeps the last plan
        QStringList lines;
        for (const Diagnostic &d : planner->diagnostics()) {
            if (d.severity == Severity::Error)
                lines << QString::fromStdString(d.toString());
        }
        return QStringLiteral("--plan: %1: no plan\n%2").arg(o.planScript, lines.join(QLatin1Char('\n')));
    }
    return {};
#else
    Q_UNUSED(window);
    return QStringLiteral("--plan: this build has no planner (it needs CPython's library, python3.11-dev)");
#endif
}

void waitForStartupPlan(MainWindow &window, const GuiOptions &o)
{
#ifdef SPLITSCOPE_HAVE_PLAN
    if (!o.planScript.isEmpty())
        window.planController()->waitForPlan();
#else
    Q_UNUSED(window);
    Q_UNUSED(o);
#endif
}

void showStartupPanel(MainWindow &window, const GuiOptions &o)
{
    const QString dock = startupPanelDock(o.show);
    if (!dock.isEmpty())
        window.showDock(dock);
}

int writeWindowScreenshot(MainWindow &window, const QString &path, QString *error, QSize *written)
{
    LayoutController *layouts = window.workspace()->layouts();
    SplitDocument *document = window.document();
    auto ready = [&]() {
        const auto layout = layouts->layout();
        return !layouts->isBusy() && !document->isSplitting() && layout && !layout->provisional
            && window.workspace()->scene()->hasGraph();
    };
    if (!waitFor(ready, kLayoutTimeoutMs)) {
        *error = QStringLiteral("%1: the layout did not finish within %2 s").arg(path).arg(kLayoutTimeoutMs / 1000);
        return 1;
    }
    if (const auto layout = layouts->layout(); !layout->ok()) {
        *error = QStringLiteral("%1: %2").arg(path, layout->error);
        return 1;
    }
    // Let docks and views settle at their final sizes before grabbing.
    for (int i = 0; i < 3; ++i)
        QApplication::processEvents();
    if (!window.workspace()->view()->graphScene()->hasGraph()) {
        *error = QStringLiteral("%1: nothing was drawn").arg(path);
        return 1;
    }
    const QImage image = window.grab().toImage();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG")) {
        *error = QStringLiteral("%1: rendering the window failed").arg(path);
        return 1;
    }
    std::string why;
    if (!writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), bytes.size()), &why)) {
        *error = QString::fromStdString(why);
        return 1;
    }
    if (written)
        *written = image.size();
    return 0;
}

} // namespace splitscope
