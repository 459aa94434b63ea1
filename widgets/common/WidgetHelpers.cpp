// SPDX-License-Identifier: MIT
#include "WidgetHelpers.h"

#include "ThemeColors.h"

#include "core/Explain.h"

#include <QAction>
#include <QEvent>
#include <QFrame>
#include <QHeaderView>
#include <QResizeEvent>
#include <QIcon>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QStringList>
#include <QTextDocument>
#include <QTimer>

#include <algorithm>

namespace splitscope {

QString countText(qint64 count, const QString &one, const QString &many)
{
    QString text = count == 1 ? one : many;
    return text.replace(QLatin1String("%n"), QString::number(count));
}

QStringList toQStringList(const std::vector<std::string> &items)
{
    QStringList out;
    for (const std::string &item : items)
        out << QString::fromStdString(item);
    return out;
}

std::vector<std::string> toStdStrings(const QStringList &items)
{
    std::vector<std::string> out;
    for (const QString &item : items)
        out.push_back(item.toStdString());
    return out;
}

QString nameText(const std::string &name)
{
    return QString::fromStdString(printableName(name));
}

QList<int> measureColumnWidths(QTableView *table)
{
    table->resizeColumnsToContents();
    QList<int> widths;
    for (int column = 0; column < table->model()->columnCount(); ++column)
        widths << table->columnWidth(column);
    return widths;
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
    auto *action = new QAction(iconPath.isEmpty() ? QIcon() : theme::icon(iconPath), text, owner);
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
        // And between the words of a CamelCase name ("EditImage|AutoResize").
        const bool camel = !last && c.isLower() && text.at(i + 1).isUpper();
        if (!last && !joined && (separator || camel || ++run >= kBreakEvery)) {
            out += kZeroWidthSpace;
            run = 0;
        }
    }
    return out;
}

QString htmlLines(const QString &text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}

QString plainTextOf(const QString &html)
{
    QTextDocument document;
    document.setHtml(html);
    return document.toPlainText().remove(kZeroWidthSpace);
}

namespace {

// Shows a cell's text with break opportunities in its long names (breakableText), so
// that a word-wrapped cell breaks "ZImageUnit_EditImageAutoResize" after the "_"
// instead of cutting it at the cell's edge.
class BreakableTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QString displayText(const QVariant &value, const QLocale &locale) const override
    {
        return breakableText(QStyledItemDelegate::displayText(value, locale));
    }
};

class ResizeWatcher : public QObject {
public:
    ResizeWatcher(QWidget *widget, std::function<void()> handler)
        : QObject(widget), m_handler(std::move(handler))
    {
        widget->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Resize)
            m_handler();
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_handler;
};

} // namespace

void onResize(QWidget *widget, std::function<void()> handler)
{
    new ResizeWatcher(widget, std::move(handler));
}

void setWrappedCells(QTableView *table)
{
    table->setWordWrap(true);
    table->setItemDelegate(new BreakableTextDelegate(table));
    table->setTextElideMode(Qt::ElideRight); // a cell still too narrow for one word: its end goes
    // Rows follow the columns' widths, measured once the columns have settled (a model
    // reset and the fitting of the columns after it resize several sections in a row).
    auto *measure = new QTimer(table);
    measure->setSingleShot(true);
    measure->setInterval(0);
    QObject::connect(measure, &QTimer::timeout, table, [table]() { table->resizeRowsToContents(); });
    QObject::connect(table->horizontalHeader(), &QHeaderView::sectionResized, measure,
        qOverload<>(&QTimer::start));
    if (table->model()) {
        QObject::connect(table->model(), &QAbstractItemModel::modelReset, measure, qOverload<>(&QTimer::start));
        QObject::connect(table->model(), &QAbstractItemModel::dataChanged, measure, qOverload<>(&QTimer::start));
        QObject::connect(table->model(), &QAbstractItemModel::rowsInserted, measure, qOverload<>(&QTimer::start));
    }
    measure->start();
}

QSize WrappedLabel::minimumSizeHint() const
{
    QSize size = QLabel::minimumSizeHint();
    if (wordWrap() && width() > 0)
        size.setHeight(std::max(size.height(), heightForWidth(width())));
    return size;
}

void WrappedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        updateGeometry(); // the minimum height follows the width
}

void showKeyboardFocus(QFrame *view)
{
    // Frameless, Qt's styles draw no focus for a text view: Tab stopped there unseen.
    view->setStyleSheet(QStringLiteral("%1 { border: 2px solid transparent; } %1:focus { border: 2px solid "
                                       "palette(highlight); }")
                            .arg(QLatin1String(view->metaObject()->className())));
}

void returnFocus(QWidget *previous, QWidget *fallback)
{
    const bool canTake = previous && previous->isVisible() && previous->isEnabled()
        && previous->focusPolicy() != Qt::NoFocus;
    QWidget *target = canTake ? previous : fallback;
    if (target)
        target->setFocus(Qt::OtherFocusReason);
}

} // namespace splitscope
