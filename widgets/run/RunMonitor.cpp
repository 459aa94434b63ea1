// SPDX-License-Identifier: MIT
#include "RunMonitor.h"

#include "LossChartView.h"
#include "MemoryChartView.h"
#include "RunController.h"
#include "RunCharts.h"
#include "RunFormat.h"
#include "RunHistory.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"

#include <QChart>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPalette>
#include <QProgressBar>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QStyleOptionProgressBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr int kLogBlocks = 3000;      // lines the log view keeps
constexpr int kChartIntervalMs = 250; // the charts redraw at most four times a second
constexpr int kBarTextMargin = 12;    // pixels between the progress text and the bar's frame, each side

QString stateWord(StageRun::Outcome outcome)
{
    switch (outcome) {
    case StageRun::Outcome::Running:
        return RunMonitor::tr("running");
    case StageRun::Outcome::Finished:
        return RunMonitor::tr("finished");
    case StageRun::Outcome::Cancelled:
        return RunMonitor::tr("cancelled");
    case StageRun::Outcome::Failed:
        return RunMonitor::tr("failed");
    case StageRun::Outcome::Crashed:
        break;
    }
    return RunMonitor::tr("crashed");
}

// The empty log's text while the monitor follows a launch of this session (or none).
QString livePlaceholder()
{
    return RunMonitor::tr("The worker's log appears here: the command, its progress lines and how it ended.");
}

// How a stage ended, as the header shows it. A crash's message runs to nine lines (the
// worker's last error output) and a failure's to one line per error: in full, the header
// took the charts' height and the monitor scrolled. The log has the whole message (a
// launch of this session logs it; a launch from the history shows it there), so the
// header keeps its first lines, shortened, and says how many more the log has.
// `shortened` tells whether anything was left out.
QString endingText(const QString &message, bool *shortened)
{
    constexpr int kLines = 2;       // the summary, and the first error or what follows
    constexpr int kLineChars = 200; // about two rows of a 1366-pixel-wide monitor
    const QStringList lines = message.split(QLatin1Char('\n'));
    *shortened = lines.size() > kLines
        || std::any_of(lines.cbegin(), lines.cend(), [](const QString &line) { return line.size() > kLineChars; });
    if (!*shortened)
        return htmlLines(message);
    QStringList shown;
    for (const QString &line : lines.mid(0, kLines))
        shown << shortenedInTheMiddle(line, kLineChars).toHtmlEscaped();
    const auto more = static_cast<int>(lines.size()) - kLines;
    shown.last() += QStringLiteral(" <i>(%1)</i>")
                        .arg(more > 0 ? countText(more, RunMonitor::tr("%n more line in the log"),
                                            RunMonitor::tr("%n more lines in the log"))
                                      : RunMonitor::tr("the whole message is in the log"));
    return shown.join(QStringLiteral("<br>"));
}

QString levelColor(RunSession::LogLine::Level level)
{
    switch (level) {
    case RunSession::LogLine::Level::Command:
        return theme::css(theme::Tone::Accent);
    case RunSession::LogLine::Level::Warning:
        return theme::css(theme::Tone::Warning);
    case RunSession::LogLine::Level::Error:
        return theme::css(theme::Tone::Hazard);
    case RunSession::LogLine::Level::Note:
        return theme::css(theme::Tone::Success);
    case RunSession::LogLine::Level::Info:
        break;
    }
    return theme::css(theme::Tone::Text);
}

// Appends one line of a launch's log to `view` in its level's color. A line may hold
// several (how a stage ended, with the worker's last error output): as HTML their breaks
// were spaces, and they ran into one paragraph.
void appendLogLine(QPlainTextEdit *view, RunSession::LogLine::Level level, const QString &text)
{
    view->appendHtml(QStringLiteral("<span style='color:%1'>%2</span>")
                         .arg(levelColor(level), htmlLines(text)));
}

} // namespace

RunMonitor::RunMonitor(RunController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_title(new WrappedLabel(this)), m_stages(new WrappedLabel(this)),
      m_bar(new QProgressBar(this)), m_details(new QLabel(this)), m_log(new QPlainTextEdit(this)),
      m_loss(new LossChartView(this)), m_memory(new MemoryChartView(this))
{
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(4, 4, 4, 4);
    m_title->setTextFormat(Qt::RichText);
    // A finished run's title is long ("Both stages · LoRA on dit · seed split · finished in
    // 0:02, peak 173 MB, final loss 2.006"): unwrapped, it made the monitor so wide that
    // the side docks were squeezed after every run.
    m_title->setWordWrap(true);
    m_stages->setTextFormat(Qt::RichText);
    m_stages->setWordWrap(true);
    m_bar->setTextVisible(true);
    {
        // Fusion draws the text over the filled part in HighlightedText and the rest in
        // Text: at the fill's edge a digit was cut in two colours ("step 27C of 640").
        // One colour for all of it, over a fill light enough to read it on (dark enough
        // in a dark theme).
        QPalette palette = m_bar->palette();
        const QColor fill = palette.color(QPalette::Highlight);
        const QColor base = palette.color(QPalette::Base);
        const auto mixed = [&](double a, double b) { return 0.45 * a + 0.55 * b; };
        palette.setColor(QPalette::Highlight, QColor::fromRgbF(static_cast<float>(mixed(fill.redF(), base.redF())),
                                                  static_cast<float>(mixed(fill.greenF(), base.greenF())),
                                                  static_cast<float>(mixed(fill.blueF(), base.blueF()))));
        palette.setColor(QPalette::HighlightedText, palette.color(QPalette::Text));
        m_bar->setPalette(palette);
    }
    m_details->setTextFormat(Qt::RichText);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kLogBlocks);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Wrapped: in the narrow column beside the charts, unwrapped lines showed their first
    // dozen characters ("[ 0.2s] sta"), and an error had to be scrolled to sideways.
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_log->setPlaceholderText(livePlaceholder());
    QScrollBar *logScroll = m_log->verticalScrollBar();
    connect(logScroll, &QAbstractSlider::actionTriggered, this,
        [this, logScroll](int) { m_followLog = logScroll->sliderPosition() >= logScroll->maximum() - 1; });
    leftLayout->addWidget(m_log, 1);

    // What the launch is and how far it got, across the whole monitor. Stacked in the
    // column beside the charts, the title, the stages and the figures (one to a row)
    // wrapped to fifteen lines or more there: in a bottom dock of a 1366x768 screen the
    // monitor scrolled, its log showed one line and the charts lost their legends.
    auto *header = new QWidget(this);
    auto *headerLayout = new QGridLayout(header);
    headerLayout->setContentsMargins(4, 4, 4, 2);
    headerLayout->setVerticalSpacing(2);
    headerLayout->addWidget(m_title, 0, 0, 1, 2);
    headerLayout->addWidget(m_bar, 1, 0);
    headerLayout->addWidget(m_stages, 1, 1);
    headerLayout->addWidget(m_details, 2, 0, 1, 2);
    headerLayout->setColumnStretch(0, 2);
    headerLayout->setColumnStretch(1, 3);

    m_columns = layOutWithCharts(this, left, m_loss, m_memory, 2, header);
    m_columns->setObjectName(QStringLiteral("RunMonitorSplitter"));
    connect(m_columns, &QSplitter::splitterMoved, this, [this]() { m_columnsSizedByHand = true; });

    connect(controller, &RunController::launchStarted, this, &RunMonitor::launchStarted);
    connect(controller, &RunController::updated, this, &RunMonitor::refresh);
    connect(controller, &RunController::stateChanged, this, &RunMonitor::refresh);
    refresh();
}

void RunMonitor::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    sizeColumns();
}

void RunMonitor::sizeColumns()
{
    if (m_columnsSizedByHand)
        return;
    // The log a quarter of the width, and room for a progress line ("[ 0.7s] epoch 3
    // done, mean loss 1.27") where the charts keep their least width; the charts share
    // the rest. (Left to the splitter's stretch, the log kept the few pixels it had
    // while the dock was first laid out: about 12 characters.)
    constexpr int kLogCharacters = 26;
    const int room = std::max(0, width() - 2 * m_columns->handleWidth());
    const int charts = m_loss->minimumWidth() + m_memory->minimumWidth();
    const int line = kLogCharacters * m_log->fontMetrics().averageCharWidth() + m_log->verticalScrollBar()->sizeHint().width()
        + 2 * m_log->frameWidth() + 8; // and the left and right margins of the columns and of the text
    const int log = std::max(room / 4, std::min(line, room - charts));
    const int loss = (room - log) / 2;
    m_columns->setSizes({log, loss, room - log - loss});
}

void RunMonitor::setHistory(RunHistory *history)
{
    if (m_history)
        m_history->disconnect(this);
    m_history = history;
    if (history) {
        connect(history, &RunHistory::reset, this, &RunMonitor::refresh);
        connect(history, &RunHistory::added, this, &RunMonitor::refresh);
        connect(history, &RunHistory::removed, this, &RunMonitor::refresh);
    }
    refresh();
}

std::shared_ptr<const RunSession> RunMonitor::shownSession() const
{
    if (const auto session = m_controller->session())
        return session;
    if (m_history && m_history->count() > 0)
        return m_history->run(m_history->count() - 1);
    return nullptr;
}

void RunMonitor::launchStarted()
{
    m_charted.reset();
    m_bar->setMinimumWidth(0); // the new launch's text decides
    refresh(); // shows the new launch, whose log follows its end
}

void RunMonitor::showSession(const std::shared_ptr<const RunSession> &session)
{
    m_charted = session;
    m_loss->clearRuns();
    m_memory->clearRuns();
    m_log->clear();
    m_logShown = 0;
    m_chartClock.invalidate();
    // A launch from the history (an earlier session) comes without its log, which is
    // not kept: the placeholder said the log "appears here". How its stages ended is
    // kept, and shown in the log's place (whole there, shortened in the header).
    const bool fromHistory = session && session != m_controller->session();
    const QString notKept = tr("The log of a launch from an earlier session is not kept; its files are in its "
                               "output folder (Run history, Open output folder).");
    m_log->setPlaceholderText(fromHistory ? notKept : livePlaceholder());
    if (!session)
        return;
    // A launch from the history is read from the top (what the log holds, then how it
    // ended); a running one's log follows its end.
    m_followLog = !fromHistory;
    if (fromHistory) {
        using Level = RunSession::LogLine::Level;
        for (const StageRun &stage : session->stages()) {
            if (stage.failure.isEmpty())
                continue;
            if (m_log->document()->isEmpty())
                appendLogLine(m_log, Level::Info, notKept + QLatin1Char(' ') + tr("How it ended:"));
            appendLogLine(m_log, stage.outcome == StageRun::Outcome::Cancelled ? Level::Warning : Level::Error, stage.failure);
        }
        m_log->moveCursor(QTextCursor::Start); // appending kept the view at the end
    }
    const bool trains = session->kind() != RunKind::StageOne;
    m_loss->chart()->setTitle(trains ? tr("Loss") : tr("Loss (stage one trains nothing)"));
    m_loss->addRun(session, tr("smoothed"), stageLineColor(
        session->kind() == RunKind::Baseline ? RunStage::OneStage : RunStage::StageTwo));
    m_memory->addRun(session, QString(), QColor(), true);
}

void RunMonitor::setBarText(const QString &text)
{
    // Fusion draws the text word-wrapped in the bar: in a narrow monitor it broke
    // as "step 896 of 1600 (56" over "%)" and was clipped. No-break spaces keep it on
    // one line, and the bar is kept wide enough for it.
    QString line = text;
    line.replace(QLatin1Char(' '), QChar(QChar::Nbsp));
    m_bar->setFormat(line);
    QStyleOptionProgressBar option;
    option.initFrom(m_bar);
    const int needed = m_bar->fontMetrics().horizontalAdvance(line) + 2 * kBarTextMargin
        + 2 * m_bar->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, m_bar);
    // Only wider: a shrinking minimum would re-lay the monitor out at every step.
    if (needed > m_bar->minimumWidth())
        m_bar->setMinimumWidth(needed);
}

void RunMonitor::refresh()
{
    const auto session = shownSession();
    if (session != m_charted)
        showSession(session);
    if (!session) {
        m_title->setText(tr("<b>No run yet</b>"));
        m_stages->setText(tr("Launch from the Run panel: stage one caches what stage two does not train; stage two "
                             "trains from the cache; the one-stage baseline trains without a split."));
        m_bar->setRange(0, 1);
        m_bar->setValue(0);
        setBarText(QString());
        m_details->clear();
        return;
    }
    const StageRun *run = session->current();
    const bool cancelling = m_controller->state() == RunController::State::Cancelling;
    // Before this session's first launch: the history's newest, and when it ran.
    const QString from = m_controller->session()
        ? QString()
        : tr("Last launch (%1): ").arg(QLocale().toString(session->started(), QLocale::ShortFormat)).toHtmlEscaped();
    m_title->setText(QStringLiteral("%1<b>%2</b> · %3 · %4")
                         .arg(from, runKindTitle(session->kind()).toHtmlEscaped(), session->config().label().toHtmlEscaped(),
                             session->isRunning() ? (cancelling ? tr("cancelling…") : tr("running"))
                                                  : session->summary().toHtmlEscaped()));

    // The stages of the launch, as chips: done, running, to come.
    QStringList chips;
    const auto plan = stagesOf(session->kind());
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const StageRun *s = i < session->stages().size() ? &session->stages()[i] : nullptr;
        const QString name = runStageTitle(plan[i]);
        if (!s) {
            chips << QStringLiteral("<span style='color:%1'>%2 · waiting</span>")
                         .arg(theme::css(theme::Tone::Faint, palette()), name);
            continue;
        }
        const QColor color = theme::readable(stageLineColor(s->stage), palette());
        QString text = QStringLiteral("<span style='color:%1'><b>%2</b></span> · %3")
                           .arg(color.name(), name, stateWord(s->outcome));
        if (!s->isRunning() && s->processSeconds >= 0)
            text += QStringLiteral(" in %1").arg(formatSeconds(s->processSeconds));
        chips << text;
    }
    m_stages->setText(chips.join(QStringLiteral(" &nbsp;→&nbsp; ")));

    if (!run) {
        m_details->clear();
        return;
    }
    // The bar: samples in stage one, steps in training.
    const QString unitWord = run->isTraining() ? tr("step") : tr("sample");
    if (run->total > 0) {
        m_bar->setRange(0, 1000);
        m_bar->setValue(static_cast<int>(std::lround(run->fraction() * 1000)));
        setBarText(tr("%1 %2 of %3 (%4 %)")
                       .arg(unitWord)
                       .arg(run->done)
                       .arg(run->total)
                       .arg(run->fraction() * 100, 0, 'f', 0));
    } else if (run->isRunning()) {
        m_bar->setRange(0, 0); // busy: LibTorch loads, the dataset is read
        setBarText(tr("starting…"));
    } else {
        m_bar->setRange(0, 1);
        m_bar->setValue(run->outcome == StageRun::Outcome::Finished ? 1 : 0);
        setBarText(stateWord(run->outcome));
    }

    // The figures flow as "Name value · Name value", each kept whole on its line.
    QStringList rows;
    const QString muted = theme::css(theme::Tone::Muted, palette());
    auto row = [&rows, &muted](const QString &name, const QString &value) {
        rows << QStringLiteral("<span style='white-space:nowrap'><span style='color:%1'>%2</span>&nbsp;%3</span>")
                    .arg(muted, name, value);
    };
    const double elapsed = run->isRunning() ? run->priorSeconds + std::max(0.0, run->lastTime) : run->processSeconds;
    if (run->isTraining() && run->epochs > 0)
        row(tr("Epoch"), tr("%1 of %2").arg(std::max(0, run->epoch) + 1).arg(run->epochs));
    if (std::isfinite(run->samplesPerSecond))
        row(tr("Speed"), tr("%1 samples/s").arg(run->samplesPerSecond, 0, 'f', 1));
    if (run->isRunning() && std::isfinite(run->etaSeconds))
        row(tr("Remaining"), formatDuration(run->etaSeconds));
    row(tr("Elapsed"), formatDuration(elapsed));
    if (run->stage == RunStage::StageOne || run->cacheWritten > 0)
        row(tr("Cache written"), formatBytes(run->cacheWritten));
    if (run->stage == RunStage::StageTwo)
        row(tr("Cache read"), formatBytes(run->cacheRead));
    if (!run->unit.isEmpty())
        row(tr("Running"), QStringLiteral("<span style='color:%1'><b>%2</b></span> (sample %3)")
                               .arg(theme::css(theme::Tone::Running, palette()), run->unit.toHtmlEscaped())
                               .arg(run->unitSample + 1));
    if (run->worldSize > 1)
        row(tr("Processes"), tr("%1 (rank 0 shown; the others dotted in the memory chart)").arg(run->worldSize));
    // Stage one's ranks cache their shares at their own pace.
    for (auto it = run->rankProgress.cbegin(); it != run->rankProgress.cend(); ++it)
        row(tr("Rank %1").arg(it.key()), tr("%1 of %2 samples").arg(it.value().first).arg(it.value().second));
    if (run->rss > 0)
        row(tr("Memory"), tr("%1 now, peak %2").arg(formatBytes(run->rss), formatBytes(run->peakMemory())));
    if (!run->modelBytes.isEmpty()) {
        QStringList models;
        for (auto it = run->modelBytes.cbegin(); it != run->modelBytes.cend(); ++it)
            models << QStringLiteral("%1 %2").arg(it.key(), formatBytes(it.value()));
        row(tr("Loaded models"), models.join(QStringLiteral(", ")));
    }
    // A run that stopped early has a last loss, not a final one.
    if (run->isTraining() && std::isfinite(run->finalLoss) && !run->isRunning())
        row(run->outcome == StageRun::Outcome::Finished ? tr("Final loss") : tr("Last loss"), formatLoss(run->finalLoss));
    QString details = rows.join(QStringLiteral(" &nbsp;· "));
    bool shortened = false;
    if (!run->failure.isEmpty() && !run->isRunning()) {
        const bool cancelled = run->outcome == StageRun::Outcome::Cancelled;
        details += QStringLiteral("<p style='color:%1'>%2</p>")
                       .arg(theme::css(cancelled ? theme::Tone::Warning : theme::Tone::Hazard, palette()),
                           endingText(run->failure, &shortened));
    }
    m_details->setText(details);
    m_details->setToolTip(shortened ? QStringLiteral("<p>%1</p>").arg(htmlLines(run->failure)) : QString());

    // The log: only the lines that are new since the last refresh.
    const auto &log = session->log();
    const qint64 fresh = std::min<qint64>(session->logTotal() - m_logShown, static_cast<qint64>(log.size()));
    for (auto it = log.end() - fresh; it != log.end(); ++it)
        appendLogLine(m_log, it->level, it->text);
    // The log follows its end unless the user scrolled up to read (a resize of the
    // dock keeps the top line, so the end is kept by hand).
    if (m_followLog)
        m_log->verticalScrollBar()->setValue(m_log->verticalScrollBar()->maximum());
    m_logShown = session->logTotal();

    // Charts cost a repaint of their curves: four times a second is enough to
    // watch them, and the last refresh of a stage always draws.
    if (!m_chartClock.isValid() || m_chartClock.elapsed() >= kChartIntervalMs || !run->isRunning()) {
        m_chartClock.start();
        m_loss->refresh();
        m_memory->refresh();
    }
}

} // namespace splitscope
