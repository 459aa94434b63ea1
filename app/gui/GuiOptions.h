// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/run/RunConfig.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace splitscope {

// The desktop app's command line:
//
//   splitscope [PIPELINE] [--trainable M1,M2] [--lora-base M|none] [--mode seed|safe]
//              [--step K|LABEL] [--select UNIT] [--compare safe|seed|PRESET_INDEX]
//              [--side-by-side] [--chains] [--no-labels] [--stage-two-only] [--presentation]
//              [--run stage-one|stage-two|both|baseline]... [--run-settings FILE.json]
//              [--run-history FILE.json] [--show PANEL]
//              [--plan SCRIPT.sh --diffsynth CHECKOUT [--workdir DIR]]
//              [--screenshot OUT.png [--size WxH] [--screenshot-when running|done]]
//   splitscope --help | --version      (no display needed)
//
// PIPELINE is a file or a built-in example name (`qwen_image`). With --screenshot
// the window is rendered off screen once the layout is done, written to OUT.png
// and the program exits (0 written, 1 failed, 2 bad input) — for tests and docs.
// --run launches training once the pipeline is open (several: one after the
// other), with the Run panel's fields from --run-settings (the JSON of
// RunSettings); with --screenshot the picture is taken when the last launch is
// done, or halfway through its last stage with --screenshot-when running.
// --plan plans a one-stage DiffSynth-Studio script as File ▸ Plan DiffSynth training
// does and opens the pipeline it trains (a screenshot waits for the plan).
struct GuiOptions {
    QString pipeline;                 // empty: the start state
    // Overrides of the pipeline's training choice (TrainingChoice.h), each checked
    // against its models once it is open.
    std::optional<QStringList> trainable;
    std::optional<QString> loraBase;  // "none" clears it
    std::optional<SplitMode> mode;
    std::optional<QString> step;      // a position (0 = X0) or a label (X0, F1, U1, S, split)
    std::optional<QString> select;    // a unit name
    std::optional<QString> compare;   // safe | seed | other | a preset index (0 = the file's training)
    bool sideBySide = false;
    bool chains = false;
    bool noLabels = false;
    bool stageTwoOnly = false;
    bool presentation = false;
    QString screenshot;               // output PNG
    QSize size{1600, 1000};
    std::vector<RunKind> runs;        // launches, in order
    QString runSettings;              // a RunSettings JSON file
    QString runHistory;               // where the run history is kept (screenshots: in memory by default)
    bool screenshotWhileRunning = false; // --screenshot-when running
    QString show;                     // a panel to raise: run, monitor, history, stepper, compare, ...
    QString planScript;               // --plan: a one-stage DiffSynth script to plan (opens its pipeline)
    QString diffsynth;                // the checkout it runs in
    QString planWorkdir;              // where it runs from; empty: the checkout
};

// The panels --show can raise, and the object name of each one's dock (empty
// for a name that is not a panel).
QStringList startupPanelNames();
QString startupPanelDock(const QString &panel);

struct GuiOptionsResult {
    GuiOptions options;
    QString error;    // non-empty: usage error, names the flag
    bool help = false;
    bool version = false;  // --version: helpText holds the version line
    QString helpText;
};

// `arguments` includes the program name first, as QCoreApplication::arguments().
GuiOptionsResult parseGuiOptions(const QStringList &arguments);

} // namespace splitscope
