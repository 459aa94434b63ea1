// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QList>
#include <QString>

#include <string>

class QAction;
class QObject;
class QTableView;

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

// How wide fitColumnWidths lets a column be: at most `maxShare` percent of the
// viewport's width, but never capped below `minimumChars` average characters.
struct ColumnLimit {
    int maxShare = 100;
    int minimumChars = 0;
};

// Sets the widths of a table's columns from the widths their contents need
// (`contentWidths`, as resizeColumnsToContents gives them), so that one wide column
// cannot push the others out of view: column i, for every column but the last, is as
// wide as its contents within limits[i]. The last column stretches over the rest.
// Text cut off is elided by the view; the models give it whole as the tooltip.
void fitColumnWidths(QTableView *table, const QList<int> &contentWidths, const QList<ColumnLimit> &limits);

// The text a rich-text label shows, without its markup (for tests and exports);
// the zero-width spaces of breakableText are dropped.
QString plainTextOf(const QString &html);

} // namespace splitscope
