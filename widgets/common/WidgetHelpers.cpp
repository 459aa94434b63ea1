// SPDX-License-Identifier: MIT
#include "WidgetHelpers.h"

#include "core/Explain.h"

#include <QAction>
#include <QIcon>
#include <QStringList>
#include <QTextDocument>

namespace splitscope {

QString nameText(const std::string &name)
{
    return QString::fromStdString(printableName(name));
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

QString plainTextOf(const QString &html)
{
    QTextDocument document;
    document.setHtml(html);
    return document.toPlainText();
}

} // namespace splitscope
