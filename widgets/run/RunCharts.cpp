// SPDX-License-Identifier: MIT
#include "RunCharts.h"

#include "widgets/common/ThemeColors.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QLegend>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kLegendScale = 0.85; // legends are read less than the curves

} // namespace

QChart *makeRunChart(const QString &title, Qt::Alignment legend, QValueAxis *x, QValueAxis *y)
{
    auto *chart = new QChart;
    // The charts follow the window: Qt Charts' dark theme on a dark palette, on the
    // palette's base color so that they sit in the panel like its tables.
    if (theme::isDark()) {
        chart->setTheme(QChart::ChartThemeDark);
        chart->setBackgroundBrush(QGuiApplication::palette().color(QPalette::Base));
    }
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    QFont small = chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * kLegendScale);
    chart->legend()->setFont(small);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);
    chart->legend()->setAlignment(legend);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    return chart;
}

namespace {

double axisUnit(double span)
{
    return span > 0 ? std::pow(10.0, std::floor(std::log10(span))) / 2.0 : 1.0;
}

} // namespace

double roundUpForAxis(double value, double span)
{
    const double unit = axisUnit(span);
    return std::ceil(value / unit) * unit;
}

double roundDownForAxis(double value, double span)
{
    const double unit = axisUnit(span);
    return std::floor(value / unit) * unit;
}

void setAxisRange(QValueAxis *axis, double min, double max, bool integers, int maxTicks)
{
    // Fixed ticks while the range and the interval change: the old interval over the
    // new range could ask Qt Charts for millions of tick items (an interval of 0.0001
    // left from a loss curve, then 0..1) and hang the GUI.
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(min, max);
    const double span = axis->max() - axis->min();
    if (!std::isfinite(span) || !(span > 0) || maxTicks < 2)
        return;
    const double rough = span / (maxTicks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double interval = 10 * magnitude;
    for (const double step : {1.0, 2.0, 5.0}) {
        if (step * magnitude >= rough * (1 - 1e-9)) {
            interval = step * magnitude;
            break;
        }
    }
    if (integers)
        interval = std::max(1.0, std::round(interval));
    if (!(interval > 0) || span / interval > 4.0 * maxTicks)
        return; // (cannot happen for a finite span; kept fixed rather than risk a flood of ticks)
    const int decimals = interval >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(interval) - 1e-9));
    axis->setTickAnchor(std::ceil(axis->min() / interval - 1e-9) * interval);
    axis->setTickInterval(interval);
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    axis->setTickType(QValueAxis::TicksDynamic);
}

int ticksThatFit(double length, const QValueAxis *axis)
{
    constexpr double kPadding = 10; // Qt Charts: 4 px above and below each label, and rounding
    constexpr int kMost = 6;
    const double perTick = QFontMetricsF(axis->labelsFont()).height() + kPadding;
    return std::clamp(static_cast<int>(length / perTick), 2, kMost);
}

void keepTicksFitting(QChart *chart, const QValueAxis *axis, int *ticks, std::function<void()> refit)
{
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [axis, ticks, refit = std::move(refit)](const QRectF &area) {
        const int fit = area.height() > 0 ? ticksThatFit(area.height(), axis) : *ticks; // 0: not laid out yet
        if (fit != *ticks) {
            *ticks = fit;
            refit();
        }
    });
}

QStringList axisTickLabels(const QValueAxis *axis)
{
    QStringList labels;
    const double interval = axis->tickInterval();
    if (axis->tickType() != QValueAxis::TicksDynamic || !(interval > 0))
        return labels;
    const QByteArray format = axis->labelFormat().toLatin1();
    const double first = axis->tickAnchor() - std::floor((axis->tickAnchor() - axis->min()) / interval) * interval;
    for (double v = first; v <= axis->max() + interval * 1e-6; v += interval)
        labels << QString::asprintf(format.constData(), std::abs(v) < interval * 1e-6 ? 0.0 : v);
    return labels;
}

QSplitter *layOutWithCharts(QWidget *owner, QWidget *left, QWidget *loss, QWidget *memory, int leftStretch,
    QWidget *header)
{
    auto *splitter = new QSplitter(Qt::Horizontal, owner);
    splitter->addWidget(left);
    splitter->addWidget(loss);
    splitter->addWidget(memory);
    splitter->setStretchFactor(0, leftStretch);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(owner);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    if (header)
        layout->addWidget(header);
    layout->addWidget(splitter, 1);
    return splitter;
}

} // namespace splitscope
