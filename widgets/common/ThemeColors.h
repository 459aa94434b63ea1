// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QGuiApplication>
#include <QIcon>
#include <QPalette>
#include <QString>

namespace splitscope {

// Colors of text and icons that follow the palette, shared by every panel so that a
// dark desktop theme (Qt's dark QPalette) gets readable text everywhere from one rule.
//
// On a light palette every color is the designed one (the Open Color shades the app
// always used), so the light look does not change. On a dark palette a color keeps its
// hue but is lightened until it reads on the window, base and alternate base colors:
// a contrast ratio (WCAG 2) of at least 4.5, 3 for faint text.
namespace theme {

enum class Tone {
    Text,    // ordinary dark ink (#343a40); the palette's Text on a dark palette
    Muted,   // secondary text (#495057)
    Subtle,  // hints under fields (#6c757d)
    Faint,   // what is not there yet: waiting stages, empty steps (#868e96)
    Accent,  // cache reads, commands (#1c6db5)
    Error,   // could not load, failures (#c92a2a)
    Hazard,  // hazards, frozen randomness errors (#c2255c)
    Warning, // warnings, stochastic units (#b35c00)
    Success, // exact splits, no hazards (#2b8a3e)
    Moved,   // units that change stage between two splits (#0ca678)
    Running, // the running unit (#e8590c)
};

// True when the palette draws light text on a dark window.
bool isDark(const QPalette &palette = QGuiApplication::palette());

// The WCAG 2 relative luminance of `color` (0 black .. 1 white) and the contrast ratio
// of two colors (1 .. 21; 4.5 is the minimum for body text).
double relativeLuminance(const QColor &color);
double contrastRatio(const QColor &a, const QColor &b);

// The text color of `tone` for `palette`.
QColor textColor(Tone tone, const QPalette &palette = QGuiApplication::palette());
// The same as "#rrggbb", for the style attributes of rich text.
QString css(Tone tone, const QPalette &palette = QGuiApplication::palette());

// `color` as text on `palette`'s window: unchanged on a light palette, else lightened
// (same hue) to a contrast of at least `minRatio` (a stage's line color in a label).
// Memoised per color and palette; GUI thread only, as every function here.
QColor readable(const QColor &color, const QPalette &palette = QGuiApplication::palette(), double minRatio = 4.5);

// Ink for text on the fixed light fills that mean the same in both themes (stage
// badges, the graph's paper): never taken from the palette.
QColor inkOnLight();
QString inkOnLightCss();

// A notice box (a "cannot run here" note, a load error): its fill, border and text.
// Light palettes keep the designed tints; dark ones get a dark tint of the same hue,
// with the palette's window text on it.
enum class Notice { Warning, Error };
struct NoticeColors {
    QColor background;
    QColor border;
    QColor text;
};
NoticeColors noticeColors(Notice notice, const QPalette &palette = QGuiApplication::palette());
// The text color of `tone` on a notice's fill instead of the window.
QColor textColor(Tone tone, const NoticeColors &notice, const QPalette &palette = QGuiApplication::palette());

// An icon from an SVG resource drawn in the app's single ink (#343a40): the ink is
// replaced, when the icon is drawn, by the palette's button text (Active for the normal
// and active modes, Disabled for the disabled mode) on a dark palette, so that icons
// show on a dark toolbar and disabled ones look dimmer than enabled ones; light palettes
// keep the designed ink and Qt's disabled look. The palette is read on each paint, so
// a palette change is followed without reloading anything.
QIcon icon(const QString &resourcePath);

} // namespace theme

} // namespace splitscope
