// SPDX-License-Identifier: MIT
#include "StepperPanel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/TraceCursor.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr int kMaxChips = 24;            // more steps than this: the slider alone
constexpr int kMinimumSliderWidth = 48;
constexpr double kNormalTextPoints = 10.5;
constexpr double kPresentationTextPoints = 22.0; // readable from the back of a classroom
constexpr double kSpeeds[] = {0.5, 1.0, 2.0, 4.0}; // seconds per step

// An action of the panel that works anywhere in its window.
QAction *windowAction(QWidget *owner, const QString &icon, const QString &text, const QList<QKeySequence> &keys)
{
    QAction *action = makeAction(owner, icon, text, keys);
    action->setShortcutContext(Qt::WindowShortcut);
    owner->addAction(action);
    return action;
}

QToolButton *buttonFor(QAction *action, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setAutoRaise(true);
    button->setIconSize(QSize(20, 20));
    return button;
}

// The stepper's slider, with a ring round its handle in the palette's highlight while
// it has the keyboard focus: Fusion draws no focus on a slider, so Tab reached it
// unseen, and the arrow keys then moved the steps with nothing showing why.
class FocusRingSlider : public QSlider {
public:
    using QSlider::QSlider;

protected:
    void paintEvent(QPaintEvent *event) override
    {
        QSlider::paintEvent(event);
        if (!hasFocus())
            return;
        QStyleOptionSlider option;
        initStyleOption(&option);
        const QRect handle = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
        painter.setBrush(Qt::NoBrush);
        // On the handle's edge, inside the widget: the handle touches the slider's top.
        const QRectF ring = QRectF(handle.intersected(rect())).adjusted(1, 1, -1, -1);
        painter.drawRoundedRect(ring, 3, 3);
    }
};

} // namespace

StepperPanel::StepperPanel(SplitDocument *document, TraceCursor *cursor, QWidget *parent)
    : QWidget(parent), m_document(document), m_cursor(cursor), m_slider(new FocusRingSlider(Qt::Horizontal, this)),
      m_position(new QLabel(this)), m_speed(new QComboBox(this)), m_chipBox(new QWidget(this)),
      m_chips(new QHBoxLayout(m_chipBox)), m_text(new QTextBrowser(this)), m_timer(new QTimer(this))
{
    m_first = windowAction(this, QStringLiteral(":/splitscope/icons/first.svg"), tr("First step (X0)"),
        {QKeySequence(Qt::CTRL | Qt::Key_Home)});
    m_previous = windowAction(this, QStringLiteral(":/splitscope/icons/previous.svg"), tr("Previous step"),
        {QKeySequence(Qt::CTRL | Qt::Key_Left), QKeySequence(Qt::Key_Comma)});
    m_play = windowAction(this, QStringLiteral(":/splitscope/icons/play.svg"), tr("Play"), {QKeySequence(Qt::Key_P)});
    m_play->setCheckable(true);
    m_next = windowAction(this, QStringLiteral(":/splitscope/icons/next.svg"), tr("Next step"),
        {QKeySequence(Qt::CTRL | Qt::Key_Right), QKeySequence(Qt::Key_Period)});
    m_last = windowAction(this, QStringLiteral(":/splitscope/icons/last.svg"), tr("Last: the split"),
        {QKeySequence(Qt::CTRL | Qt::Key_End)});
    m_presentationAction = windowAction(this, QStringLiteral(":/splitscope/icons/presentation.svg"),
        tr("Presentation mode"), {QKeySequence(Qt::Key_F5)});
    m_presentationAction->setCheckable(true);
    for (const auto &key : {Qt::Key_Right, Qt::Key_Space, Qt::Key_PageDown}) {
        QAction *a = windowAction(this, QString(), tr("Next step"), {QKeySequence(key)});
        connect(a, &QAction::triggered, cursor, &TraceCursor::next);
        a->setEnabled(false);
        m_slideKeys.push_back(a);
    }
    for (const auto &key : {Qt::Key_Left, Qt::Key_PageUp}) {
        QAction *a = windowAction(this, QString(), tr("Previous step"), {QKeySequence(key)});
        connect(a, &QAction::triggered, cursor, &TraceCursor::previous);
        a->setEnabled(false);
        m_slideKeys.push_back(a);
    }

    auto *controls = new QHBoxLayout;
    controls->setSpacing(2);
    for (QAction *a : {m_first, m_previous, m_play, m_next, m_last}) {
        m_transport.push_back(buttonFor(a, this));
        controls->addWidget(m_transport.back());
    }
    controls->addSpacing(4);
    m_slider->setPageStep(1);
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setTickInterval(1);
    m_slider->setMinimumWidth(kMinimumSliderWidth);
    m_slider->setToolTip(tr("Stepper position: X0, F1, U1, ... and the split"));
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_position);
    for (const double s : kSpeeds)
        m_speed->addItem(tr("%1 s / step").arg(s), s);
    m_speed->setCurrentIndex(1);
    m_speed->setToolTip(tr("Play speed"));

    // The chips, then the speed and presentation mode on the right: one row of controls
    // above would be wider than a bottom dock at 1280x800 (the panel then scrolled
    // sideways and its text was cut). The chips never widen the panel: where they do
    // not all fit, none is shown (the slider still reaches every step).
    m_chips->setContentsMargins(0, 0, 0, 0);
    m_chips->setSpacing(3);
    m_chips->setSizeConstraint(QLayout::SetNoConstraint);
    m_chipBox->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    onResize(m_chipBox, [this]() { fitChips(); });
    auto *secondRow = new QHBoxLayout;
    secondRow->setSpacing(4);
    secondRow->addWidget(m_chipBox, 1);
    secondRow->addStretch(0); // the speed stays on the right when the chips are hidden
    secondRow->addWidget(m_speed);
    m_presentationButton = buttonFor(m_presentationAction, this);
    secondRow->addWidget(m_presentationButton);

    m_text->setOpenLinks(false);
    m_text->setFrameShape(QFrame::NoFrame);
    showKeyboardFocus(m_text);
    m_text->setMinimumHeight(70);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(controls);
    layout->addLayout(secondRow);
    layout->addWidget(m_text, 1);

    connect(m_first, &QAction::triggered, cursor, &TraceCursor::first);
    connect(m_previous, &QAction::triggered, cursor, &TraceCursor::previous);
    connect(m_next, &QAction::triggered, cursor, &TraceCursor::next);
    connect(m_last, &QAction::triggered, cursor, &TraceCursor::last);
    connect(m_play, &QAction::toggled, this, &StepperPanel::setPlaying);
    connect(m_presentationAction, &QAction::toggled, this, &StepperPanel::setPresentationMode);
    connect(m_slider, &QSlider::valueChanged, cursor, &TraceCursor::setPosition);
    connect(m_speed, qOverload<int>(&QComboBox::currentIndexChanged), this,
        [this](int) { m_timer->setInterval(static_cast<int>(m_speed->currentData().toDouble() * 1000)); });
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &StepperPanel::tick);
    connect(cursor, &TraceCursor::stepsChanged, this, &StepperPanel::rebuildChips);
    connect(cursor, &TraceCursor::positionChanged, this, &StepperPanel::positionChanged);
    applyFonts();
    rebuildChips();
}

QList<QAction *> StepperPanel::stepActions() const
{
    return {m_first, m_previous, m_play, m_next, m_last, m_presentationAction};
}

bool StepperPanel::isPlaying() const
{
    return m_timer->isActive();
}

void StepperPanel::setPlaying(bool playing)
{
    if (playing && m_cursor->atSplit())
        m_cursor->first(); // play from the start, as a teacher expects
    if (playing)
        m_timer->start();
    else
        m_timer->stop();
    m_play->blockSignals(true);
    m_play->setChecked(playing);
    m_play->blockSignals(false);
    m_play->setIcon(theme::icon(playing ? QStringLiteral(":/splitscope/icons/pause.svg")
                                         : QStringLiteral(":/splitscope/icons/play.svg")));
    m_play->setText(playing ? tr("Pause") : tr("Play"));
}

void StepperPanel::setSecondsPerStep(double seconds)
{
    int best = 0;
    for (int i = 0; i < m_speed->count(); ++i) {
        if (std::abs(m_speed->itemData(i).toDouble() - seconds) < std::abs(m_speed->itemData(best).toDouble() - seconds))
            best = i;
    }
    m_speed->setCurrentIndex(best);
}

double StepperPanel::secondsPerStep() const
{
    return m_speed->currentData().toDouble();
}

void StepperPanel::tick()
{
    if (m_cursor->atSplit()) {
        setPlaying(false);
        return;
    }
    m_cursor->next();
}

void StepperPanel::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    m_presentationAction->blockSignals(true);
    m_presentationAction->setChecked(on);
    m_presentationAction->blockSignals(false);
    for (QAction *a : m_slideKeys)
        a->setEnabled(on);
    applyFonts();
    updateExplanation();
    Q_EMIT presentationModeChanged(on);
}

void StepperPanel::applyFonts()
{
    QFont font = this->font();
    font.setPointSizeF(m_presentation ? kPresentationTextPoints : kNormalTextPoints);
    m_text->setFont(font);
    QFont label = this->font();
    label.setBold(true);
    label.setPointSizeF(m_presentation ? kPresentationTextPoints * 0.8 : this->font().pointSizeF());
    m_position->setFont(label);
    fitPositionLabel();
}

void StepperPanel::rebuildChips()
{
    while (QLayoutItem *item = m_chips->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const int steps = m_cursor->stepCount();
    m_slider->blockSignals(true);
    m_slider->setRange(0, steps);
    m_slider->setValue(m_cursor->position());
    m_slider->blockSignals(false);
    m_chipBox->setVisible(steps > 0 && steps <= kMaxChips);
    if (steps > 0 && steps <= kMaxChips) {
        m_chips->addWidget(new QLabel(tr("Steps:"), m_chipBox));
        for (int i = 0; i <= steps; ++i) {
            auto *chip = new QToolButton(m_chipBox);
            chip->setText(i < steps ? m_cursor->step(i).label : tr("Split"));
            chip->setCheckable(true);
            chip->setAutoRaise(true);
            chip->setToolTip(i < steps ? m_cursor->step(i).title : tr("The split: every step applied"));
            if (i < steps && m_cursor->step(i).added.empty())
                chip->setStyleSheet(QStringLiteral("QToolButton { color: %1; }").arg(theme::css(theme::Tone::Faint, palette())));
            connect(chip, &QToolButton::clicked, this, [this, i]() { m_cursor->setPosition(i); });
            m_chips->addWidget(chip);
        }
        m_chips->addStretch(1);
    }
    fitPositionLabel();
    fitChips();
    orderTabStops();
    positionChanged(m_cursor->position());
}

void StepperPanel::orderTabStops()
{
    // Tab went from the slider to the speed, the text and then the buttons, and reached
    // the chips last of the whole window (made after everything else, they were at the
    // end of its focus chain).
    std::vector<QWidget *> order(m_transport.begin(), m_transport.end());
    order.push_back(m_slider);
    for (int i = 0; i < m_chips->count(); ++i) {
        if (auto *chip = qobject_cast<QToolButton *>(m_chips->itemAt(i)->widget()))
            order.push_back(chip);
    }
    for (QWidget *w : {static_cast<QWidget *>(m_speed), static_cast<QWidget *>(m_presentationButton),
             static_cast<QWidget *>(m_text)})
        order.push_back(w);
    for (std::size_t i = 1; i < order.size(); ++i)
        QWidget::setTabOrder(order[i - 1], order[i]);
}

QString StepperPanel::positionText(int position) const
{
    const int steps = m_cursor->stepCount();
    return steps == 0      ? QString()
        : position < steps ? tr("%1  (%2 of %3)").arg(m_cursor->step(position).label).arg(position + 1).arg(steps)
                           : tr("Split");
}

void StepperPanel::fitPositionLabel()
{
    // As wide as the longest of this pipeline's positions, so that the slider keeps its
    // length as the text changes (and no wider: the panel must fit a narrow dock).
    const QFontMetrics metrics(m_position->font());
    int widest = 0;
    for (int position = 0; position <= m_cursor->stepCount(); ++position)
        widest = std::max(widest, metrics.horizontalAdvance(positionText(position)));
    m_position->setMinimumWidth(widest + 2);
}

void StepperPanel::fitChips()
{
    // Measured from the chips themselves: a hidden widget has no size in its layout.
    const QMargins margins = m_chips->contentsMargins();
    int needed = margins.left() + margins.right();
    for (int i = 0; i < m_chips->count(); ++i) {
        if (QWidget *chip = m_chips->itemAt(i)->widget())
            needed += chip->sizeHint().width() + m_chips->spacing();
    }
    const bool fits = needed <= m_chipBox->width();
    for (int i = 0; i < m_chips->count(); ++i) {
        if (QWidget *chip = m_chips->itemAt(i)->widget())
            chip->setVisible(fits);
    }
}

void StepperPanel::positionChanged(int position)
{
    m_slider->blockSignals(true);
    m_slider->setValue(position);
    m_slider->blockSignals(false);
    const int steps = m_cursor->stepCount();
    m_first->setEnabled(steps > 0 && position > 0);
    m_previous->setEnabled(steps > 0 && position > 0);
    m_next->setEnabled(position < steps);
    m_last->setEnabled(position < steps);
    m_play->setEnabled(steps > 0);
    int chip = 0;
    for (int i = 0; i < m_chips->count(); ++i) {
        if (auto *button = qobject_cast<QToolButton *>(m_chips->itemAt(i)->widget())) {
            // The current step is also bold: Tab's focus tints a chip too.
            button->setChecked(chip == position);
            QFont font = button->font();
            font.setBold(chip == position);
            button->setFont(font);
            ++chip;
        }
    }
    m_position->setText(positionText(position));
    updateExplanation();
}

void StepperPanel::updateExplanation()
{
    m_text->setHtml(explanationHtml(m_cursor->position()));
}

QString StepperPanel::explanationHtml(int position) const
{
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis || m_cursor->stepCount() == 0)
        return tr("<i>No split yet.</i>");
    const PipelineGraph &graph = m_document->graph();
    QString html;
    if (position >= m_cursor->stepCount()) {
        const Split &split = analysis->split;
        const int iterations = static_cast<int>(split.iterations.size());
        const int trained = static_cast<int>(split.trainedCount());
        html = tr("<p><b>The split</b> — %1. Stage two (every training step): <b>%2</b> of %3. "
                  "Stage one (cached): %4.</p>")
                   .arg(split.mode == SplitMode::Seed
                           ? countText(iterations, tr("DiffSynth's fixed point, reached after %n iteration"),
                               tr("DiffSynth's fixed point, reached after %n iterations"))
                           : tr("the safe closure"),
                       QString::number(trained), countText(graph.unitCount(), tr("%n unit"), tr("%n units")),
                       countText(graph.unitCount() - trained, tr("%n unit"), tr("%n units")));
        html += tr("<p style='color:%3'>Step through it from X0 with %1 or play it with %2.</p>")
                    .arg(m_first->shortcut().toString(QKeySequence::NativeText),
                        m_play->shortcut().toString(QKeySequence::NativeText), theme::css(theme::Tone::Muted, palette()));
    } else {
        const TracePosition &step = m_cursor->step(position);
        const std::vector<char> members = m_cursor->membersAt(position);
        int inX = 0;
        for (const char m : members)
            inX += m ? 1 : 0;
        html = QStringLiteral("<p><b>%1</b> — %2. <span style='color:%4'>%3</span></p>")
                   .arg(step.label.toHtmlEscaped(), step.title.toHtmlEscaped(),
                       tr("X now has %1 of %2; this step added %3.")
                           .arg(QString::number(inX), countText(graph.unitCount(), tr("%n unit"), tr("%n units")),
                               QString::number(step.added.size())),
                       theme::css(theme::Tone::Muted, palette()));
        html += QStringLiteral("<ul style='margin-left:-20px'>");
        for (int i = 0; i < step.explanation.size(); ++i) {
            const QString line = step.explanation[i].toHtmlEscaped();
            html += i == 0 ? QStringLiteral("<li><i>%1</i></li>").arg(line) : QStringLiteral("<li>%1</li>").arg(line);
        }
        html += QStringLiteral("</ul>");
    }
    return html;
}

int StepperPanel::heightForWholeExplanation(int width) const
{
    // The explanation of every step laid out at the text's width: the tallest one, and
    // the controls above it.
    const QMargins margins = layout()->contentsMargins();
    const int frame = 2 * m_text->frameWidth();
    QTextDocument document;
    document.setDefaultFont(m_text->font());
    document.setDocumentMargin(m_text->document()->documentMargin());
    document.setTextWidth(std::max(60, width - margins.left() - margins.right() - frame));
    double tallest = 0;
    for (int position = 0; position <= m_cursor->stepCount(); ++position) {
        document.setHtml(explanationHtml(position));
        tallest = std::max(tallest, document.size().height());
    }
    const int controls = sizeHint().height() - m_text->sizeHint().height();
    return controls + static_cast<int>(std::ceil(tallest)) + frame;
}

QString StepperPanel::explanationText() const
{
    return m_text->toPlainText();
}

} // namespace splitscope
