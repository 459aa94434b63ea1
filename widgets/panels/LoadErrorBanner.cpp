// SPDX-License-Identifier: MIT
#include "LoadErrorBanner.h"

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
    setStyleSheet(QStringLiteral("#LoadErrorBanner { background: #fff5f5; border: 1px solid #ffa8a8; "
                                 "border-radius: 4px; }"));
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
    m_label->setText(tr("<b style='color:#c92a2a'>⚠ Could not load %1</b> — %n error(s). %2<br><code>%3</code>",
        nullptr, static_cast<int>(countSeverity(d, Severity::Error)))
                         .arg(m_document->lastAttempt().toHtmlEscaped(), kept, first.toHtmlEscaped()));
    show();
}

QString LoadErrorBanner::text() const
{
    return plainTextOf(m_label->text());
}

} // namespace splitscope
