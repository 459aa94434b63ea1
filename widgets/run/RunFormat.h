// SPDX-License-Identifier: MIT
#pragma once

#include "RunConfig.h"

#include <QColor>
#include <QString>

namespace splitscope {

// How the run views write sizes, times and ratios, and the colors they draw with.

// "1.5 MiB", "812 KiB", "3 B"; "—" for a negative size (unknown).
QString formatBytes(qint64 bytes);
// "0:42", "12:05", "1:02:03"; "—" for a negative or non-finite time.
QString formatDuration(double seconds);
// Seconds with three significant digits: "38.2 ms", "844 ms", "8.00 s", "12.3 s"; from
// 100 s on as a duration, "2:05".
QString formatSeconds(double seconds);
// A loss with six significant digits, trailing zeros kept: "1.99973", "2.00000",
// "0.0123457", "1.25000e-05"; "—" for NaN.
QString formatLoss(double loss);
// B relative to A, always as B / A: "0.62× (−38 %)"; "—" when either is not positive.
QString formatRatio(double a, double b);

// Chart lines of a stage: stage one blue and stage two orange (the graph's stage
// colors, darker), the one-stage baseline violet.
QColor stageLineColor(RunStage stage);
// The runs of a comparison: A violet, B orange.
QColor comparisonColor(int index);
// The loaded weights of one model in the memory chart.
QColor modelColor(int index);

} // namespace splitscope
