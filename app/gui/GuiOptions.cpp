// SPDX-License-Identifier: MIT
#include "GuiOptions.h"

#include <utility>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

namespace splitscope {

namespace {

constexpr std::pair<const char *, const char *> kStartupPanels[] = {{"training", "TrainingDock"}, {"run", "RunDock"},
    {"monitor", "RunMonitorDock"}, {"history", "RunHistoryDock"}, {"stepper", "StepperDock"},
    {"compare", "CompareDock"}, {"problems", "ProblemsDock"}, {"inspector", "InspectorDock"},
    {"verifier", "VerifierDock"}, {"params", "ParamsDock"}, {"plan", "PlanDock"}};

} // namespace

QStringList startupPanelNames()
{
    QStringList names;
    for (const auto &[name, dock] : kStartupPanels)
        names << QLatin1String(name);
    return names;
}

QString startupPanelDock(const QString &panel)
{
    for (const auto &[name, dock] : kStartupPanels) {
        if (panel == QLatin1String(name))
            return QLatin1String(dock);
    }
    return {};
}

GuiOptionsResult parseGuiOptions(const QStringList &arguments)
{
    GuiOptionsResult result;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Splitscope: see how a diffusion training pipeline splits into a cached stage and a training stage, and why."));
    parser.addHelpOption();
    const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
        QStringLiteral("Print the version and exit."));
    parser.addOption(version);
    parser.addPositionalArgument(QStringLiteral("PIPELINE"),
        QStringLiteral("A splitscope.pipeline/1 JSON file, or a built-in example name (qwen_image, wan_video, ...)."),
        QStringLiteral("[PIPELINE]"));
    const QCommandLineOption trainable(QStringLiteral("trainable"),
        QStringLiteral("Comma-separated trainable_models (empty: none)."), QStringLiteral("MODELS"));
    const QCommandLineOption lora(QStringLiteral("lora-base"),
        QStringLiteral("lora_base_model, or 'none'."), QStringLiteral("MODEL"));
    const QCommandLineOption mode(QStringLiteral("mode"), QStringLiteral("Split algorithm: seed or safe."),
        QStringLiteral("MODE"));
    const QCommandLineOption step(QStringLiteral("step"),
        QStringLiteral("Stepper position: a number (0 = X0) or a label (seed: X0, F1, U1, ..., split; "
                       "safe: X0, S, split)."),
        QStringLiteral("K"));
    const QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select and inspect this unit."),
        QStringLiteral("UNIT"));
    const QCommandLineOption compare(QStringLiteral("compare"),
        QStringLiteral("Compare with: 'other' (the other split mode), 'safe', 'seed', or a preset index "
                       "(0 = the file's training block, 1.. = alternative_training)."),
        QStringLiteral("WHAT"));
    const QCommandLineOption sideBySide(QStringLiteral("side-by-side"),
        QStringLiteral("Show the comparison side by side instead of overlaid."));
    const QCommandLineOption chains(QStringLiteral("chains"), QStringLiteral("Draw update chains."));
    const QCommandLineOption noLabels(QStringLiteral("no-labels"), QStringLiteral("No edge labels."));
    const QCommandLineOption presentation(QStringLiteral("presentation"),
        QStringLiteral("Start in presentation mode (large stepper text)."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Render the window off screen to this PNG once laid out, then exit."), QStringLiteral("OUT.png"));
    const QCommandLineOption size(QStringLiteral("size"),
        QStringLiteral("Window size for --screenshot (default 1600x1000)."), QStringLiteral("WxH"));
    const QCommandLineOption run(QStringLiteral("run"),
        QStringLiteral("Launch training once the pipeline is open: stage-one, stage-two, both or baseline "
                       "(repeat it to launch several, one after the other)."),
        QStringLiteral("KIND"));
    const QCommandLineOption runSettings(QStringLiteral("run-settings"),
        QStringLiteral("The Run panel's fields as JSON (dataset_base_path, model_root, cache_path, output_path, "
                       "num_epochs, ...)."),
        QStringLiteral("FILE"));
    const QCommandLineOption runHistory(QStringLiteral("run-history"),
        QStringLiteral("Keep the run history in this file."), QStringLiteral("FILE"));
    const QCommandLineOption when(QStringLiteral("screenshot-when"),
        QStringLiteral("With --run: take the screenshot when the last launch is 'done' (default) or halfway "
                       "through its last stage ('running')."),
        QStringLiteral("WHEN"));
    const QCommandLineOption show(QStringLiteral("show"),
        QStringLiteral("Raise a panel once everything else is done: training, run, monitor, history, stepper, compare, "
                       "problems, inspector, verifier, params or plan."),
        QStringLiteral("PANEL"));
    const QCommandLineOption plan(QStringLiteral("plan"),
        QStringLiteral("Plan this one-stage DiffSynth-Studio training script (.sh) as File > Plan DiffSynth "
                       "training does; needs --diffsynth."),
        QStringLiteral("SCRIPT"));
    const QCommandLineOption diffsynth(QStringLiteral("diffsynth"),
        QStringLiteral("With --plan: the DiffSynth-Studio checkout the script runs in (and, unless --workdir, "
                       "from)."),
        QStringLiteral("DIR"));
    const QCommandLineOption workdir(QStringLiteral("workdir"),
        QStringLiteral("With --plan: the folder the script runs from (relative model and dataset paths)."),
        QStringLiteral("DIR"));
    parser.addOptions({trainable, lora, mode, step, select, compare, sideBySide, chains, noLabels, presentation,
        screenshot, size, run, runSettings, runHistory, when, show, plan, diffsynth, workdir});

    if (!parser.parse(arguments)) {
        result.error = parser.errorText();
        return result;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        result.help = true;
        result.helpText = parser.helpText();
        return result;
    }
    if (parser.isSet(version)) {
        result.version = true;
        result.helpText = QStringLiteral("splitscope %1\n").arg(QCoreApplication::applicationVersion());
        return result;
    }
    GuiOptions &o = result.options;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        result.error = QStringLiteral("one PIPELINE at most, got %1: %2")
                           .arg(positional.size())
                           .arg(positional.join(QLatin1Char(' ')));
        return result;
    }
    if (!positional.isEmpty())
        o.pipeline = positional.front();
    if (parser.isSet(trainable))
        o.trainable = parser.value(trainable).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parser.isSet(lora))
        o.loraBase = parser.value(lora);
    if (parser.isSet(mode)) {
        o.mode = parser.value(mode);
        if (*o.mode != QLatin1String("seed") && *o.mode != QLatin1String("safe")) {
            result.error = QStringLiteral("--mode: expected seed or safe, got '%1'").arg(*o.mode);
            return result;
        }
    }
    if (parser.isSet(step))
        o.step = parser.value(step);
    if (parser.isSet(select))
        o.select = parser.value(select);
    if (parser.isSet(compare))
        o.compare = parser.value(compare);
    o.sideBySide = parser.isSet(sideBySide);
    o.chains = parser.isSet(chains);
    o.noLabels = parser.isSet(noLabels);
    o.presentation = parser.isSet(presentation);
    o.screenshot = parser.value(screenshot);
    if (parser.isSet(size)) {
        static const QRegularExpression pattern(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
        const QRegularExpressionMatch m = pattern.match(parser.value(size));
        if (!m.hasMatch()) {
            result.error = QStringLiteral("--size: expected WIDTHxHEIGHT such as 1600x1000, got '%1'")
                               .arg(parser.value(size));
            return result;
        }
        o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    for (const QString &value : parser.values(run)) {
        RunKind kind = RunKind::Both;
        if (!parseRunKind(QString(value).replace(QLatin1Char('-'), QLatin1Char('_')), kind)) {
            result.error = QStringLiteral("--run: expected stage-one, stage-two, both or baseline, got '%1'").arg(value);
            return result;
        }
        o.runs.push_back(kind);
    }
    o.runSettings = parser.value(runSettings);
    o.runHistory = parser.value(runHistory);
    if (parser.isSet(when)) {
        const QString value = parser.value(when);
        if (value != QLatin1String("running") && value != QLatin1String("done")) {
            result.error = QStringLiteral("--screenshot-when: expected running or done, got '%1'").arg(value);
            return result;
        }
        o.screenshotWhileRunning = value == QLatin1String("running");
    }
    if (parser.isSet(show)) {
        o.show = parser.value(show);
        if (startupPanelDock(o.show).isEmpty()) {
            result.error = QStringLiteral("--show: expected one of %1, got '%2'")
                               .arg(startupPanelNames().join(QStringLiteral(", ")), o.show);
            return result;
        }
    }
    o.planScript = parser.value(plan);
    o.diffsynth = parser.value(diffsynth);
    o.planWorkdir = parser.value(workdir);
    if (o.planScript.isEmpty() != o.diffsynth.isEmpty()) {
        result.error = o.planScript.isEmpty() ? QStringLiteral("--diffsynth: only with --plan SCRIPT")
                                              : QStringLiteral("--plan: needs --diffsynth DIR, the checkout it runs in");
        return result;
    }
    if (!o.planWorkdir.isEmpty() && o.planScript.isEmpty()) {
        result.error = QStringLiteral("--workdir: only with --plan SCRIPT");
        return result;
    }
    if (!o.planScript.isEmpty() && !o.pipeline.isEmpty()) {
        result.error = QStringLiteral("--plan: not with a PIPELINE (%1); the plan opens the pipeline its script trains")
                           .arg(o.pipeline);
        return result;
    }
    if (!o.planScript.isEmpty() && !o.runs.empty()) {
        result.error = QStringLiteral("--run: not with --plan (the plan's commands run from its panel)");
        return result;
    }
    if (parser.isSet(screenshot) && o.pipeline.isEmpty() && o.planScript.isEmpty()) {
        result.error = QStringLiteral("--screenshot needs a PIPELINE or --plan");
        return result;
    }
    return result;
}

} // namespace splitscope
