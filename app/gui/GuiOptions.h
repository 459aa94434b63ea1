// SPDX-License-Identifier: MIT
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

namespace splitscope {

// The desktop app's command line:
//
//   splitscope [PIPELINE] [--trainable M1,M2] [--lora-base M|none] [--mode seed|safe]
//              [--step K|LABEL] [--select UNIT] [--compare safe|seed|PRESET_INDEX]
//              [--side-by-side] [--chains] [--no-labels] [--presentation]
//              [--screenshot OUT.png [--size WxH]]
//
// PIPELINE is a file or a built-in example name (`qwen_image`). With --screenshot
// the window is rendered off screen once the layout is done, written to OUT.png
// and the program exits (0 written, 1 failed, 2 bad input) — for tests and docs.
struct GuiOptions {
    QString pipeline;                 // empty: the start state
    std::optional<QStringList> trainable;
    std::optional<QString> loraBase;  // "none" clears it
    std::optional<QString> mode;      // seed | safe
    std::optional<QString> step;      // a position (0 = X0) or a label (X0, F1, U1, S, split)
    std::optional<QString> select;    // a unit name
    std::optional<QString> compare;   // safe | seed | other | a preset index (0 = the file's training)
    bool sideBySide = false;
    bool chains = false;
    bool noLabels = false;
    bool presentation = false;
    QString screenshot;               // output PNG
    QSize size{1600, 1000};
};

struct GuiOptionsResult {
    GuiOptions options;
    QString error;    // non-empty: usage error, names the flag
    bool help = false;
    QString helpText;
};

// `arguments` includes the program name first, as QCoreApplication::arguments().
GuiOptionsResult parseGuiOptions(const QStringList &arguments);

} // namespace splitscope
