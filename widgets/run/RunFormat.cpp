// SPDX-License-Identifier: MIT
#include "RunFormat.h"

#include <cmath>

namespace splitscope {

namespace {

constexpr const char *kUnknown = "—";
// Significant digits of a loss: two runs whose final losses differ in the fifth
// digit must not read the same ("2" for 1.99973 did).
constexpr int kLossDigits = 6;

} // namespace

QString formatBytes(qint64 bytes)
{
    if (bytes < 0)
        return QString::fromUtf8(kUnknown);
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    if (unit == 0)
        return QStringLiteral("%1 B").arg(bytes);
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 2 : value < 100 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QString::fromUtf8(kUnknown);
    const qint64 total = static_cast<qint64>(std::llround(seconds));
    const qint64 h = total / 3600;
    const qint64 m = (total / 60) % 60;
    const qint64 s = total % 60;
    if (h > 0)
        return QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QLatin1Char('0')).arg(s, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(m).arg(s, 2, 10, QLatin1Char('0'));
}

QString formatSeconds(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QString::fromUtf8(kUnknown);
    // Three significant digits below 100 s, so that a ratio of two times can be checked
    // from the times shown ("0.04 s" against "0.04 s" next to "1.13×" could not).
    if (seconds < 0.9995) {
        const double ms = seconds * 1000.0;
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 9.995 ? 2 : ms < 99.95 ? 1 : 0);
    }
    if (seconds < 9.995)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
    if (seconds < 99.95)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
    return formatDuration(seconds);
}

QString formatLoss(double loss)
{
    if (!std::isfinite(loss))
        return QString::fromUtf8(kUnknown);
    const double magnitude = std::fabs(loss);
    if (magnitude == 0)
        return QString::number(0.0, 'f', kLossDigits - 1);
    if (magnitude < 1e-3 || magnitude >= 1e6)
        return QString::number(loss, 'e', kLossDigits - 1);
    // Fixed notation with trailing zeros kept, so that every loss shows the same digits.
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    return QString::number(loss, 'f', std::max(0, kLossDigits - 1 - exponent));
}

QString formatRatio(double a, double b)
{
    if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b))
        return QString::fromUtf8(kUnknown);
    const double ratio = b / a;
    const double percent = (ratio - 1.0) * 100.0;
    const QString sign = percent < 0 ? QString::fromUtf8("−") : QStringLiteral("+");
    return QString::fromUtf8("%1× (%2%3 %)").arg(ratio, 0, 'f', 2).arg(sign).arg(std::fabs(percent), 0, 'f', 0);
}

} // namespace splitscope

namespace splitscope {

QColor stageLineColor(RunStage stage)
{
    switch (stage) {
    case RunStage::StageOne:
        return QColor(0x19, 0x71, 0xc2);
    case RunStage::StageTwo:
        return QColor(0xe8, 0x59, 0x0c);
    case RunStage::OneStage:
        break;
    }
    return QColor(0x67, 0x41, 0xd9);
}

QColor comparisonColor(int index)
{
    // A and B as before (violet, orange), then hues apart from both and each other
    // (teal, crimson, olive, blue, brown, grey), for overlays of more runs.
    static const QColor palette[] = {QColor(0x67, 0x41, 0xd9), QColor(0xe8, 0x59, 0x0c), QColor(0x0c, 0x85, 0x99),
        QColor(0xc2, 0x25, 0x5c), QColor(0x66, 0x80, 0x2e), QColor(0x1c, 0x7e, 0xd6), QColor(0x8b, 0x5a, 0x2b),
        QColor(0x49, 0x50, 0x57)};
    return palette[static_cast<unsigned>(index) % (sizeof palette / sizeof palette[0])];
}

QColor modelColor(int index)
{
    static const QColor palette[] = {QColor(0x2f, 0x9e, 0x44), QColor(0x0c, 0x85, 0x99), QColor(0xae, 0x3e, 0xc9),
        QColor(0xf0, 0x8c, 0x00), QColor(0x86, 0x8e, 0x96)};
    return palette[static_cast<unsigned>(index) % (sizeof palette / sizeof palette[0])];
}

} // namespace splitscope
