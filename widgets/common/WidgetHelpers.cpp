// SPDX-License-Identifier: MIT
#include "WidgetHelpers.h"

#include "core/Explain.h"

#include <QAction>
#include <QHeaderView>
#include <QIcon>
#include <QTableView>
#include <QStringList>
#include <QTextDocument>

#include <algorithm>

namespace splitscope {

QString nameText(const std::string &name)
{
    return QString::fromStdString(printableName(name));
}

void fitColumnWidths(QTableView *table, const QList<int> &contentWidths, const QList<ColumnLimit> &limits)
{
    QHeaderView *header = table->horizontalHeader();
    const int charWidth = table->fontMetrics().averageCharWidth();
    for (int column = 0; column + 1 < header->count() && column < contentWidths.size(); ++column) {
        const ColumnLimit limit = column < limits.size() ? limits[column] : ColumnLimit{};
        const int widest = std::max(charWidth * limit.minimumChars, table->viewport()->width() * limit.maxShare / 100);
        header->resizeSection(column, std::min(contentWidths[column], widest));
    }
    header->setStretchLastSection(true);
}

QString shortenedInTheMiddle(const QString &text, int maxChars)
{
    if (text.size() <= maxChars || maxChars < 3)
        return text;
    int tail = maxChars / 3;
    int head = maxChars - tail - 1;
    if (text.at(head - 1).isHighSurrogate())
        --head; // never half a surrogate pair
    if (text.at(text.size() - tail).isLowSurrogate())
        --tail;
    return text.left(head) + QChar(0x2026) + text.right(tail);
}

QAction *makeAction(QObject *owner, const QString &iconPath, const QString &text,
    const QList<QKeySequence> &shortcuts, bool checkable, bool checked)
{
    auto *action = new QAction(iconPath.isEmpty() ? QIcon() : QIcon(iconPath), text, owner);
    action->setShortcuts(shortcuts);
    QStringList names;
    for (const QKeySequence &k : shortcuts)
        names << k.toString(QKeySequence::NativeText);
    action->setToolTip(names.isEmpty() ? text : QStringLiteral("%1 (%2)").arg(text, names.join(QStringLiteral(", "))));
    action->setCheckable(checkable);
    action->setChecked(checked);
    return action;
}

namespace {

constexpr QChar kZeroWidthSpace(0x200B);
constexpr int kBreakEvery = 12; // characters of an unbroken run between two break opportunities

} // namespace

QString breakableText(const QString &text)
{
    QString out;
    out.reserve(text.size() + text.size() / kBreakEvery);
    int run = 0;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        out += c;
        if (c.isSpace()) {
            run = 0;
            continue;
        }
        // Break after a separator, or inside a long run; never inside a surrogate pair or
        // before a combining mark.
        const bool separator = c == QLatin1Char('_') || c == QLatin1Char('.') || c == QLatin1Char('/')
            || c == QLatin1Char('-');
        const bool last = i + 1 == text.size();
        const bool joined = !last && (c.isHighSurrogate() || text.at(i + 1).isMark());
        if (!last && !joined && (separator || ++run >= kBreakEvery)) {
            out += kZeroWidthSpace;
            run = 0;
        }
    }
    return out;
}

QString plainTextOf(const QString &html)
{
    QTextDocument document;
    document.setHtml(html);
    return document.toPlainText().remove(kZeroWidthSpace);
}

} // namespace splitscope
