// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <Qt>

#include <functional>

class QChart;
class QSplitter;
class QValueAxis;
class QWidget;

namespace splitscope {

// The look the run charts share: no animation (they refresh ten times a second),
// tight margins, a small legend at `legend`, and the two value axes.
QChart *makeRunChart(const QString &title, Qt::Alignment legend, QValueAxis *x, QValueAxis *y);

// Axis ends that move seldom while a run grows its curves (every move re-lays out
// the chart): `value` rounded away from zero to a multiple of half the power of
// ten of `span` (span 2.6 -> multiples of 0.5: 2.66 -> 3.0).
double roundUpForAxis(double value, double span);
double roundDownForAxis(double value, double span);

// Ticks at a round interval (1, 2 or 5 times a power of ten; at least 1 for
// `integers`, such as optimizer steps) over the axis's current range, at most
// about `maxTicks` of them, with labels that carry the decimals the interval needs:
// never "0 0 1 1 1" for 0..1 or "0 2 5 7 10" for 0..10. Sets the range too, in an
// order that never leaves Qt Charts an old interval over a much larger new range.
void setAxisRange(QValueAxis *axis, double min, double max, bool integers, int maxTicks = 6);

// How many ticks a vertical axis of `length` pixels can label: Qt Charts shortens a
// label to "..." when the axis height per tick is less than the label's height and
// padding (a loss axis of 0.0 to 2.5 in a 1366x768 window's monitor read "... ... ...").
int ticksThatFit(double length, const QValueAxis *axis);
// Keeps `*ticks` at what fits `axis` (vertical) as `chart`'s plot changes height, and
// calls `refit` when that number changes.
void keepTicksFitting(QChart *chart, const QValueAxis *axis, int *ticks, std::function<void()> refit);

// The tick labels `axis` shows with its dynamic ticks (for tests).
QStringList axisTickLabels(const QValueAxis *axis);

// Gives `owner` one layout: `left`, then the loss and the memory chart, side by
// side in a splitter (the monitor's and the history's arrangement), under `header`
// (across the whole width) when one is given.
QSplitter *layOutWithCharts(QWidget *owner, QWidget *left, QWidget *loss, QWidget *memory, int leftStretch,
    QWidget *header = nullptr);

} // namespace splitscope
