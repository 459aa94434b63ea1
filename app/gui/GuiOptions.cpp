// SPDX-License-Identifier: MIT
#include "GuiOptions.h"

#include <utility>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

namespace splitscope {

namespace {

constexpr std::pair<const char *, const char *> kStartupPanels[] = {{"training", "TrainingDock"}, {"run", "RunDock"},
    {"monitor", "RunMonitorDock"}, {"history", "RunHistoryDock"}, {"samples", "SamplesDock"},
    {"stepper", "StepperDock"},
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

namespace {

// The options of the command line, as QCommandLineParser takes them.
struct GuiFlags {
    const QCommandLineOption version{{QStringLiteral("v"), QStringLiteral("version")},
        QStringLiteral("Print the version and exit.")};
    const QCommandLineOption trainable{QStringLiteral("trainable"),
        QStringLiteral("Comma-separated trainable_models (empty: none)."), QStringLiteral("MODELS")};
    const QCommandLineOption lora{QStringLiteral("lora-base"),
        QStringLiteral("lora_base_model, or 'none'."), QStringLiteral("MODEL")};
    const QCommandLineOption mode{QStringLiteral("mode"), QStringLiteral("Split algorithm: seed or safe."),
        QStringLiteral("MODE")};
    const QCommandLineOption step{QStringLiteral("step"),
        QStringLiteral("Stepper position: a number (0 = X0) or a label (seed: X0, F1, U1, ..., split; "
                       "safe: X0, S, split)."),
        QStringLiteral("K")};
    const QCommandLineOption select{QStringLiteral("select"), QStringLiteral("Select and inspect this unit."),
        QStringLiteral("UNIT")};
    const QCommandLineOption compare{QStringLiteral("compare"),
        QStringLiteral("Compare with: 'other' (the other split mode), 'safe', 'seed', or a preset index "
                       "(0 = the file's training block, 1.. = alternative_training)."),
        QStringLiteral("WHAT")};
    const QCommandLineOption sideBySide{QStringLiteral("side-by-side"),
        QStringLiteral("Show the comparison side by side instead of overlaid.")};
    const QCommandLineOption chains{QStringLiteral("chains"), QStringLiteral("Draw update chains.")};
    const QCommandLineOption noLabels{QStringLiteral("no-labels"), QStringLiteral("No edge labels.")};
    const QCommandLineOption stageTwo{QStringLiteral("stage-two-only"),
        QStringLiteral("Show only stage two, the loss and their neighbours (View > Stage two and its neighbours only).")};
    const QCommandLineOption presentation{QStringLiteral("presentation"),
        QStringLiteral("Start in presentation mode (large stepper text).")};
    const QCommandLineOption screenshot{QStringLiteral("screenshot"),
        QStringLiteral("Render the window off screen to this PNG once laid out, then exit."), QStringLiteral("OUT.png")};
    const QCommandLineOption size{QStringLiteral("size"),
        QStringLiteral("Window size for --screenshot (default 1600x1000)."), QStringLiteral("WxH")};
    const QCommandLineOption run{QStringLiteral("run"),
        QStringLiteral("Launch training once the pipeline is open: stage-one, stage-two, both or baseline "
                       "(repeat it to launch several, one after the other)."),
        QStringLiteral("KIND")};
    const QCommandLineOption runSettings{QStringLiteral("run-settings"),
        QStringLiteral("The Run panel's fields as JSON (dataset_base_path, model_root, cache_path, output_path, "
                       "num_epochs, ...)."),
        QStringLiteral("FILE")};
    const QCommandLineOption runHistory{QStringLiteral("run-history"),
        QStringLiteral("Keep the run history in this file."), QStringLiteral("FILE")};
    const QCommandLineOption when{QStringLiteral("screenshot-when"),
        QStringLiteral("With --run: take the screenshot when the last launch is 'done' (default) or halfway "
                       "through its last stage ('running')."),
        QStringLiteral("WHEN")};
    const QCommandLineOption show{QStringLiteral("show"),
        QStringLiteral("Raise a panel once everything else is done: training, run, monitor, history, stepper, compare, "
                       "problems, inspector, verifier, params, plan or samples."),
        QStringLiteral("PANEL")};
    const QCommandLineOption plan{QStringLiteral("plan"),
        QStringLiteral("Plan this one-stage DiffSynth-Studio training script (.sh) as File > Plan DiffSynth "
                       "training does; needs --diffsynth."),
        QStringLiteral("SCRIPT")};
    const QCommandLineOption diffsynth{QStringLiteral("diffsynth"),
        QStringLiteral("With --plan: the DiffSynth-Studio checkout the script runs in (and, unless --workdir, "
                       "from)."),
        QStringLiteral("DIR")};
    const QCommandLineOption workdir{QStringLiteral("workdir"),
        QStringLiteral("With --plan: the folder the script runs from (relative model and dataset paths)."),
        QStringLiteral("DIR")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.addOptions({trainable, lora, mode, step, select, compare, sideBySide, chains, noLabels, stageTwo,
            presentation, screenshot, size, run, runSettings, runHistory, when, show, plan, diffsynth, workdir});
    }
};

// What to show: the pipeline, the split, the view and the screenshot. An error message, or "".
QString readViewOptions(const QCommandLineParser &parser, const GuiFlags &f, GuiOptions &o)
{
    if (parser.isSet(f.trainable))
        o.trainable = parser.value(f.trainable).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parser.isSet(f.lora))
        o.loraBase = parser.value(f.lora);
    if (parser.isSet(f.mode)) {
        const QString mode = parser.value(f.mode);
        if (mode != QLatin1String("seed") && mode != QLatin1String("safe"))
            return QStringLiteral("--mode: expected seed or safe, got '%1'").arg(mode);
        o.mode = mode == QLatin1String("safe") ? SplitMode::Safe : SplitMode::Seed;
    }
    if (parser.isSet(f.step))
        o.step = parser.value(f.step);
    if (parser.isSet(f.select))
        o.select = parser.value(f.select);
    if (parser.isSet(f.compare))
        o.compare = parser.value(f.compare);
    o.sideBySide = parser.isSet(f.sideBySide);
    o.chains = parser.isSet(f.chains);
    o.noLabels = parser.isSet(f.noLabels);
    o.stageTwoOnly = parser.isSet(f.stageTwo);
    o.presentation = parser.isSet(f.presentation);
    o.screenshot = parser.value(f.screenshot);
    if (parser.isSet(f.size)) {
        static const QRegularExpression pattern(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
        const QRegularExpressionMatch m = pattern.match(parser.value(f.size));
        if (!m.hasMatch()) {
            return QStringLiteral("--size: expected WIDTHxHEIGHT such as 1600x1000, got '%1'").arg(parser.value(f.size));
        }
        o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    return {};
}

// What to launch, and the plan to open.
QString readRunOptions(const QCommandLineParser &parser, const GuiFlags &f, GuiOptions &o)
{
    for (const QString &value : parser.values(f.run)) {
        RunKind kind = RunKind::Both;
        if (!parseRunKind(QString(value).replace(QLatin1Char('-'), QLatin1Char('_')), kind))
            return QStringLiteral("--run: expected stage-one, stage-two, both or baseline, got '%1'").arg(value);
        o.runs.push_back(kind);
    }
    o.runSettings = parser.value(f.runSettings);
    o.runHistory = parser.value(f.runHistory);
    if (parser.isSet(f.when)) {
        const QString value = parser.value(f.when);
        if (value != QLatin1String("running") && value != QLatin1String("done"))
            return QStringLiteral("--screenshot-when: expected running or done, got '%1'").arg(value);
        o.screenshotWhileRunning = value == QLatin1String("running");
    }
    if (parser.isSet(f.show)) {
        o.show = parser.value(f.show);
        if (startupPanelDock(o.show).isEmpty()) {
            return QStringLiteral("--show: expected one of %1, got '%2'")
                .arg(startupPanelNames().join(QStringLiteral(", ")), o.show);
        }
    }
    o.planScript = parser.value(f.plan);
    o.diffsynth = parser.value(f.diffsynth);
    o.planWorkdir = parser.value(f.workdir);
    return {};
}

// Options that do not go together.
QString checkCombinations(const GuiOptions &o, bool screenshotSet)
{
    if (o.planScript.isEmpty() != o.diffsynth.isEmpty()) {
        return o.planScript.isEmpty() ? QStringLiteral("--diffsynth: only with --plan SCRIPT")
                                      : QStringLiteral("--plan: needs --diffsynth DIR, the checkout it runs in");
    }
    if (!o.planWorkdir.isEmpty() && o.planScript.isEmpty())
        return QStringLiteral("--workdir: only with --plan SCRIPT");
    if (!o.planScript.isEmpty() && !o.pipeline.isEmpty()) {
        return QStringLiteral("--plan: not with a PIPELINE (%1); the plan opens the pipeline its script trains")
            .arg(o.pipeline);
    }
    if (!o.planScript.isEmpty() && !o.runs.empty())
        return QStringLiteral("--run: not with --plan (the plan's commands run from its panel)");
    if (screenshotSet && o.pipeline.isEmpty() && o.planScript.isEmpty())
        return QStringLiteral("--screenshot needs a PIPELINE or --plan");
    return {};
}

} // namespace

GuiOptionsResult parseGuiOptions(const QStringList &arguments)
{
    GuiOptionsResult result;
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Splitscope: see how a diffusion training pipeline splits into a cached stage and a training stage, and why."));
    parser.addHelpOption();
    const GuiFlags f;
    parser.addOption(f.version);
    parser.addPositionalArgument(QStringLiteral("PIPELINE"),
        QStringLiteral("A splitscope.pipeline/1 JSON file, or a built-in example name (qwen_image, wan_video, ...)."),
        QStringLiteral("[PIPELINE]"));
    f.addTo(parser);
    if (!parser.parse(arguments)) {
        result.error = parser.errorText();
        return result;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        result.help = true;
        result.helpText = parser.helpText();
        return result;
    }
    if (parser.isSet(f.version)) {
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
    result.error = readViewOptions(parser, f, o);
    if (result.error.isEmpty())
        result.error = readRunOptions(parser, f, o);
    if (result.error.isEmpty())
        result.error = checkCombinations(o, parser.isSet(f.screenshot));
    return result;
}

} // namespace splitscope
