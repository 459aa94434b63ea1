// SPDX-License-Identifier: MIT
#include "LoadErrorBanner.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace splitscope {

LoadErrorBanner::LoadErrorBanner(SplitDocument *document, QWidget *parent)
    : QFrame(parent), m_document(document), m_label(new QLabel(this))
{
    setObjectName(QStringLiteral("LoadErrorBanner"));
    const theme::NoticeColors notice = theme::noticeColors(theme::Notice::Error, palette());
    setStyleSheet(QStringLiteral("#LoadErrorBanner { background: %1; border: 1px solid %2; border-radius: 4px; }")
                      .arg(notice.background.name(), notice.border.name()));
    // The label's own text color: style sheets are not inherited, and the palette's may not suit the fill.
    m_label->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(notice.text.name()));
    m_label->setTextFormat(Qt::RichText);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *details = new QPushButton(tr("Details"), this);
    auto *dismiss = new QPushButton(tr("Dismiss"), this);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    layout->addWidget(m_label, 1);
    layout->addWidget(details, 0, Qt::AlignTop);
    layout->addWidget(dismiss, 0, Qt::AlignTop);
    connect(details, &QPushButton::clicked, this, &LoadErrorBanner::detailsRequested);
    connect(dismiss, &QPushButton::clicked, this, &QWidget::hide);
    connect(document, &SplitDocument::diagnosticsChanged, this, &LoadErrorBanner::refresh);
    refresh();
}

void LoadErrorBanner::refresh()
{
    if (!m_document->lastLoadFailed()) {
        hide();
        return;
    }
    const Diagnostics &d = m_document->diagnostics();
    QString first;
    for (const Diagnostic &diagnostic : d) {
        if (diagnostic.severity == Severity::Error) {
            first = QString::fromStdString(diagnostic.toString());
            break;
        }
    }
    const QString kept = m_document->hasPipeline()
        ? tr("Still showing %1.").arg(m_document->source().displayName().toHtmlEscaped())
        : QString();
    const QColor error = theme::textColor(theme::Tone::Error, theme::noticeColors(theme::Notice::Error, palette()), palette());
    const QString errors = countText(static_cast<qint64>(countSeverity(d, Severity::Error)), tr("%n error"),
        tr("%n errors"));
    m_label->setText(tr("<b style='color:%4'>⚠ Could not load %1</b> — %5. %2<br><code>%3</code>")
                         .arg(m_document->lastAttempt().toHtmlEscaped(), kept, first.toHtmlEscaped(), error.name(),
                             errors));
    show();
}

QString LoadErrorBanner::text() const
{
    return plainTextOf(m_label->text());
}

} // namespace splitscope
