// SPDX-License-Identifier: MIT
#pragma once

#include "GuiOptions.h"

namespace splitscope {

class MainWindow;

// Applies the command line's view options (training choice, comparison, stepper
// position, selection, toggles) to a window whose pipeline is open. Returns an
// empty string, or a usage error that names the flag and the valid values.
QString applyStartupOptions(MainWindow &window, const GuiOptions &options);

// The run options: --run-settings fills the Run panel, --run-history opens that
// history file. Returns "" or an error naming the flag.
QString applyRunOptions(MainWindow &window, const GuiOptions &options);

// Starts the --run launches, one after the other (the next when the previous one
// finished). `block`: returns when the last one is done or, with
// options.screenshotWhileRunning, halfway through its last stage; otherwise the
// launches chain in the background. Returns "" or an error naming the launch
// that could not start or failed.
QString startRuns(MainWindow &window, const GuiOptions &options, bool block);
// After a picture taken with --screenshot-when running: lets the launch under way run
// to its end (into the run history, as any launch goes). Returns "" or the failure.
QString finishRuns(MainWindow &window);

// --plan SCRIPT --diffsynth DIR: plans the script and opens the pipeline it trains,
// waiting for the plan. Returns "" or the error (the script unreadable, or what the
// planner said is wrong, with file and line). Nothing to do without --plan.
QString startPlan(MainWindow &window, const GuiOptions &options);
// With --plan, waits for a re-plan under way (a --trainable after the plan makes one).
void waitForStartupPlan(MainWindow &window, const GuiOptions &options);

// Raises the panel named by --show (nothing when it is empty).
void showStartupPanel(MainWindow &window, const GuiOptions &options);

// Waits until the window's graph is laid out (with the final, not the provisional
// layout) and its split computed, renders the window and writes it as PNG to
// `path` atomically. Returns 0, or 1 with `error` set; `written`: the picture's size.
int writeWindowScreenshot(MainWindow &window, const QString &path, QString *error, QSize *written = nullptr);

} // namespace splitscope
