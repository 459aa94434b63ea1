// SPDX-License-Identifier: MIT
#include "ThemeColors.h"

#include <QApplication>
#include <QFile>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPixmap>
#include <QPixmapCache>
#include <QStyle>
#include <QStyleOption>
#include <QSvgRenderer>

#include <algorithm>
#include <cmath>

namespace splitscope::theme {

namespace {

constexpr double kTextRatio = 4.5;  // WCAG AA for body text
constexpr double kFaintRatio = 3.0; // large or secondary text
constexpr double kLightnessStep = 0.02;
constexpr double kNoticeTint = 0.22;  // how much of the notice's hue a dark notice fill takes
constexpr double kBorderTint = 0.55;
const QLatin1String kIconInk("#343a40"); // the one ink of resources/gui/icons/*.svg

struct ToneSpec {
    QRgb light;
    double ratio;
};

ToneSpec spec(Tone tone)
{
    switch (tone) {
    case Tone::Text: return {0x343a40, kTextRatio};
    case Tone::Muted: return {0x495057, kTextRatio};
    case Tone::Subtle: return {0x6c757d, kTextRatio};
    case Tone::Faint: return {0x868e96, kFaintRatio};
    case Tone::Accent: return {0x1c6db5, kTextRatio};
    case Tone::Error: return {0xc92a2a, kTextRatio};
    case Tone::Hazard: return {0xc2255c, kTextRatio};
    case Tone::Warning: return {0xb35c00, kTextRatio};
    case Tone::Success: return {0x2b8a3e, kTextRatio};
    case Tone::Moved: return {0x0ca678, kTextRatio};
    case Tone::Running: return {0xe8590c, kTextRatio};
    }
    return {0x343a40, kTextRatio};
}

double channel(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// The lightest of the backgrounds text is drawn on: the window, the views' base and
// their alternate rows. Text that reads on it reads on the others of a dark palette.
QColor lightestBackground(const QPalette &palette)
{
    QColor lightest = palette.color(QPalette::Window);
    for (const QPalette::ColorRole role : {QPalette::Base, QPalette::AlternateBase}) {
        const QColor c = palette.color(role);
        if (relativeLuminance(c) > relativeLuminance(lightest))
            lightest = c;
    }
    return lightest;
}

QColor blend(const QColor &a, const QColor &b, double share)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - share) + b.redF() * share),
        static_cast<float>(a.greenF() * (1 - share) + b.greenF() * share),
        static_cast<float>(a.blueF() * (1 - share) + b.blueF() * share));
}

} // namespace

bool isDark(const QPalette &palette)
{
    return relativeLuminance(palette.color(QPalette::WindowText)) > relativeLuminance(palette.color(QPalette::Window));
}

double relativeLuminance(const QColor &color)
{
    const QColor rgb = color.toRgb();
    return 0.2126 * channel(rgb.redF()) + 0.7152 * channel(rgb.greenF()) + 0.0722 * channel(rgb.blueF());
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readable(const QColor &color, const QPalette &palette, double minRatio)
{
    if (!isDark(palette))
        return color;
    const QColor background = lightestBackground(palette);
    // Memoised: item models ask for their colors on every paint of every cell.
    static QHash<QString, QRgb> memo;
    const QString key = QStringLiteral("%1/%2/%3").arg(color.rgb()).arg(background.rgb()).arg(minRatio);
    const auto found = memo.constFind(key);
    if (found != memo.constEnd())
        return QColor(*found);
    const QColor hsl = color.toHsl();
    const float hue = hsl.hslHueF();
    const float saturation = hsl.hslSaturationF();
    float lightness = hsl.lightnessF();
    QColor out = color;
    while (contrastRatio(out, background) < minRatio && lightness < 1.0f) {
        lightness = std::min(1.0f, lightness + static_cast<float>(kLightnessStep));
        out = QColor(QColor::fromHslF(hue, saturation, lightness).rgb()); // as drawn: 8 bits a channel
    }
    memo.insert(key, out.rgb());
    return out;
}

QColor textColor(Tone tone, const QPalette &palette)
{
    const ToneSpec s = spec(tone);
    if (tone == Tone::Text && isDark(palette))
        return palette.color(QPalette::Text);
    return readable(QColor(s.light), palette, s.ratio);
}

QString css(Tone tone, const QPalette &palette)
{
    return textColor(tone, palette).name();
}

QColor inkOnLight()
{
    return QColor(0x21, 0x25, 0x29);
}

QString inkOnLightCss()
{
    return inkOnLight().name();
}

NoticeColors noticeColors(Notice notice, const QPalette &palette)
{
    const bool error = notice == Notice::Error;
    if (!isDark(palette)) {
        return error ? NoticeColors{QColor(0xff, 0xf5, 0xf5), QColor(0xff, 0xa8, 0xa8), palette.color(QPalette::WindowText)}
                     : NoticeColors{QColor(0xff, 0xf4, 0xe6), palette.color(QPalette::Mid), palette.color(QPalette::WindowText)};
    }
    const QColor hue = error ? QColor(0xfa, 0x52, 0x52) : QColor(0xfd, 0x7e, 0x14);
    const QColor window = palette.color(QPalette::Window);
    return {blend(window, hue, kNoticeTint), blend(window, hue, kBorderTint), palette.color(QPalette::WindowText)};
}

QColor textColor(Tone tone, const NoticeColors &notice, const QPalette &palette)
{
    QPalette on(palette);
    for (const QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::AlternateBase})
        on.setColor(role, notice.background);
    return textColor(tone, on);
}

namespace {

// Draws an SVG resource with its ink replaced by the palette's button text, read at
// each paint (see theme::icon).
class PaletteIconEngine : public QIconEngine {
public:
    explicit PaletteIconEngine(const QString &path) : m_path(path)
    {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            m_svg = QString::fromUtf8(file.readAll());
        m_hasInk = m_svg.contains(kIconInk, Qt::CaseInsensitive);
    }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        const qreal scale = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
        painter->drawPixmap(rect, scaledPixmap(rect.size(), mode, state, scale));
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        return scaledPixmap(size, mode, state, 1.0);
    }

    QPixmap scaledPixmap(const QSize &size, QIcon::Mode mode, QIcon::State, qreal scale) override
    {
        const QPalette palette = QGuiApplication::palette();
        const bool dark = isDark(palette);
        // On a dark palette the disabled look is the palette's own disabled text;
        // elsewhere (light palettes, icons of their own colors) the style makes it.
        const bool ownDisabled = dark && m_hasInk;
        const QColor ink = !dark ? QColor(kIconInk)
            : palette.color(ownDisabled && mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active,
                  QPalette::ButtonText);
        const QSize pixels = (QSizeF(size) * scale).toSize();
        const QString key = QStringLiteral("splitscope-icon:%1:%2x%3:%4:%5")
                                .arg(m_path)
                                .arg(pixels.width())
                                .arg(pixels.height())
                                .arg(ink.name(QColor::HexArgb))
                                .arg(ownDisabled || mode == QIcon::Normal ? 0 : static_cast<int>(mode) + 1);
        QPixmap pm;
        if (QPixmapCache::find(key, &pm))
            return pm;
        pm = QPixmap(pixels);
        pm.fill(Qt::transparent);
        if (!pixels.isEmpty()) {
            QSvgRenderer renderer(QString(m_svg).replace(kIconInk, ink.name(), Qt::CaseInsensitive).toUtf8());
            QPainter painter(&pm);
            renderer.render(&painter);
        }
        if (!ownDisabled && mode != QIcon::Normal && qobject_cast<QApplication *>(QCoreApplication::instance())) {
            QStyleOption option;
            option.palette = palette;
            pm = QApplication::style()->generatedIconPixmap(mode, pm, &option);
        }
        pm.setDevicePixelRatio(scale);
        QPixmapCache::insert(key, pm);
        return pm;
    }

    QIconEngine *clone() const override { return new PaletteIconEngine(*this); }
    QString key() const override { return QStringLiteral("splitscope-palette-icon"); }
    bool isNull() override { return m_svg.isEmpty(); }

private:
    QString m_path;
    QString m_svg;
    bool m_hasInk = false;
};

} // namespace

QIcon icon(const QString &resourcePath)
{
    return QIcon(new PaletteIconEngine(resourcePath));
}

} // namespace splitscope::theme
