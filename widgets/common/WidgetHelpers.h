// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QList>
#include <QString>

#include <string>

class QAction;
class QObject;

namespace splitscope {

// Small helpers shared by the panels and the graph workspace.

// An action with an icon (a resource path, or empty), its shortcuts listed in its
// tooltip ("Next step (Ctrl+Right, .)"), optionally checkable.
QAction *makeAction(QObject *owner, const QString &iconPath, const QString &text,
    const QList<QKeySequence> &shortcuts = {}, bool checkable = false, bool checked = false);

// A unit, param or model name as the app shows it: unchanged, unless it holds control
// characters, which are written as escapes (A\nB), as in the command line's reports
// (printableName). Identifiers stay raw; this is only for what people read.
QString nameText(const std::string &name);

// `text` cut to at most `maxChars` characters by replacing its middle with "…" (a third
// of the room for the end), never splitting a surrogate pair; shorter text unchanged.
QString shortenedInTheMiddle(const QString &text, int maxChars);

// `text` with zero-width spaces in its long unbroken runs, so that a word-wrapped
// label or text view can break a long name anywhere instead of growing to its
// width (a 300-character unit name must not widen a dock or the window).
QString breakableText(const QString &text);

// The text a rich-text label shows, without its markup (for tests and exports);
// the zero-width spaces of breakableText are dropped.
QString plainTextOf(const QString &html);

} // namespace splitscope
