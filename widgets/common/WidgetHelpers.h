// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QLabel>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

class QAction;
class QFrame;
class QObject;
class QTableView;
class QWidget;

namespace splitscope {

// Small helpers shared by the panels and the graph workspace.

// An action with an icon (a resource path, or empty), its shortcuts listed in its
// tooltip ("Next step (Ctrl+Right, .)"), optionally checkable.
QAction *makeAction(QObject *owner, const QString &iconPath, const QString &text,
    const QList<QKeySequence> &shortcuts = {}, bool checkable = false, bool checked = false);

// A count with its noun, in the singular for one and the plural otherwise:
// countText(n, tr("%n unit"), tr("%n units")) reads "1 unit", "0 units", "3 units".
// `one` and `many` hold "%n" where the count goes; each is a tr() string of its own, so
// both forms stay translatable. (The app ships no translation with numerus forms:
// tr("%n unit(s)", nullptr, n) would show the "(s)".) Apply .arg() after this call.
QString countText(qint64 count, const QString &one, const QString &many);

// A unit, param or model name as the app shows it: unchanged, unless it holds control
// characters, which are written as escapes (A\nB), as in the command line's reports
// (printableName). Identifiers stay raw; this is only for what people read.
QString nameText(const std::string &name);

// Lists of names between the core's and Qt's strings (UTF-8).
QStringList toQStringList(const std::vector<std::string> &items);
std::vector<std::string> toStdStrings(const QStringList &items);

// `text` cut to at most `maxChars` characters by replacing its middle with "…" (a third
// of the room for the end), never splitting a surrogate pair; shorter text unchanged.
QString shortenedInTheMiddle(const QString &text, int maxChars);

// `text` with zero-width spaces after "_", ".", "/" and "-", between the words of a
// CamelCase name and in its long unbroken runs, so that a word-wrapped
// label or text view can break a long name anywhere instead of growing to its
// width (a 300-character unit name must not widen a dock or the window).
QString breakableText(const QString &text);

// `text` as rich text, each of its lines on a line of its own.
QString htmlLines(const QString &text);

// How wide fitColumnWidths lets a column be: at most `maxShare` percent of the
// viewport's width, but never capped below `minimumChars` average characters.
struct ColumnLimit {
    int maxShare = 100;
    int minimumChars = 0;
};

// A frameless text view (an explanation) that Tab reaches shows a frame in the
// palette's highlight while it has the keyboard focus, and none otherwise.
void showKeyboardFocus(QFrame *view);

// Gives the keyboard focus back to `previous` (the widget that had it before a
// search box or a mode took it over) when it can still take it: it exists, is shown
// and enabled, and accepts focus. Otherwise `fallback` gets it.
void returnFocus(QWidget *previous, QWidget *fallback);

// Sets the widths of a table's columns from the widths their contents need
// (`contentWidths`, as resizeColumnsToContents gives them), so that one wide column
// cannot push the others out of view: column i, for every column but the last, is as
// wide as its contents within limits[i]. The last column stretches over the rest.
// Text cut off is elided by the view; the models give it whole as the tooltip.
void fitColumnWidths(QTableView *table, const QList<int> &contentWidths, const QList<ColumnLimit> &limits);
// The widths a table's columns ask for (resizeColumnsToContents, which it applies), for fitColumnWidths.
QList<int> measureColumnWidths(QTableView *table);

// Makes a table's cells word-wrap, with rows as tall as their wrapped text: the cells
// show every line of their text ("A\nB" as two lines) and break a long name after "_",
// "." or "-" (or inside a long run), where an elided cell would hide the one part that
// matters ("external…oResize)"). Only the view changes: the model's texts stay as they
// are. The rows are measured again whenever a column's width changes.
void setWrappedCells(QTableView *table);

// Calls `handler` after `widget` has been resized (its width or height changed).
void onResize(QWidget *widget, std::function<void()> handler);

// A word-wrapped label that is never shorter than its text at its width. A layout
// takes a wrapped label's height for its width as a wish, not a minimum: when a panel
// is short (a dock at 1280x800), the label was squeezed and its lines were cut or ran
// under the widget below it. With the wrapped height as its minimum, the panel asks for
// that room, and the dock's scroll area scrolls the panel instead of clipping the text.
class WrappedLabel : public QLabel {
public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
};

// The text a rich-text label shows, without its markup (for tests and exports);
// the zero-width spaces of breakableText are dropped.
QString plainTextOf(const QString &html);

} // namespace splitscope
