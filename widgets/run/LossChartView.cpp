// SPDX-License-Identifier: MIT
#include "LossChartView.h"

#include "RunCharts.h"
#include "RunSession.h"

#include "core/AtomicFile.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QToolButton>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QKeyEvent>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QScatterSeries>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr int kRawAlpha = 70;        // the per-step loss is noisy: drawn light under the smoothed curve
constexpr double kYPadding = 0.06;   // free room above and below the curves, as a fraction of their span
constexpr double kLeastRelativeSpan = 0.01; // of the loss axis, as a fraction of the largest loss
constexpr int kMaxEpochDots = 60;    // a scatter series costs a graphics item per dot
constexpr double kSmoothWidth = 2.2; // pen of the smoothed curve
constexpr double kWheelZoom = 1.25;  // per wheel notch
constexpr double kPanFraction = 0.1; // of the plot, per arrow key

} // namespace

LossChartView::LossChartView(QWidget *parent)
    : QChartView(parent), m_x(new QValueAxis(this)), m_y(new QValueAxis(this)), m_logY(new QLogValueAxis(this))
{
    m_logY->setTitleText(tr("loss (log)"));
    m_logY->setLabelFormat(QStringLiteral("%.3g"));
    m_logY->setBase(10);
    m_logY->setMinorTickCount(8);
    m_x->setTitleText(tr("optimizer step"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_y->setTitleText(tr("loss"));
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    setChart(makeRunChart(tr("Loss"), Qt::AlignBottom, m_x, m_y));
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(180, 150);
    // Whole repaints: the axes change range and ticks as points arrive, and partial
    // updates left stale bands over the lines and half-erased tick labels.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
    keepTicksFitting(chart(), m_y, &m_yTicks, [this] { fitAxes(); });
    setRubberBand(QChartView::RectangleRubberBand);
    setFocusPolicy(Qt::StrongFocus);
    setToolTip(tr("Drag a rectangle or turn the wheel to zoom, arrow keys to pan, double-click to see everything; "
                  "right-click for smoothing, log scale and CSV"));
    createControls();
    fitAxes();
}

void LossChartView::createControls()
{
    auto *strip = new QWidget(this);
    auto *row = new QHBoxLayout(strip);
    row->setContentsMargins(4, 2, 4, 0);
    row->setSpacing(6);
    m_ui = std::make_unique<Controls>(Controls{strip, new QLabel(tr("Smoothing"), strip), new QSlider(Qt::Horizontal, strip),
        new QLabel(strip), new QCheckBox(tr("Log"), strip), new QToolButton(strip), new QToolButton(strip)});
    Controls &ui = *m_ui;
    ui.smoothing->setRange(0, 99);
    ui.smoothing->setFixedWidth(90);
    ui.smoothing->setAccessibleName(tr("Smoothing"));
    ui.smoothing->setToolTip(tr("The smoothed curves' weight: 0 is the loss of each step, 0.99 the smoothest "
                                "(an exponential moving average, as TensorBoard's)"));
    static_cast<QLabel *>(ui.label)->setBuddy(ui.smoothing);
    ui.value->setMinimumWidth(ui.value->fontMetrics().horizontalAdvance(QStringLiteral("0.99")));
    ui.log->setToolTip(tr("A logarithmic loss axis"));
    ui.showAll->setText(tr("Show all"));
    ui.showAll->setToolTip(tr("Undo the zoom (or double-click the chart)"));
    ui.csv->setText(tr("CSV…"));
    ui.csv->setToolTip(tr("Export every run's loss and smoothed loss by step as CSV"));
    for (QWidget *w : std::initializer_list<QWidget *>{ui.label, ui.smoothing, ui.value, ui.log, ui.showAll, ui.csv})
        row->addWidget(w);
    connect(ui.smoothing, &QSlider::valueChanged, this, [this](int value) { setSmoothing(value / 100.0); });
    connect(ui.log, &QCheckBox::toggled, this, &LossChartView::setLogScale);
    connect(ui.showAll, &QToolButton::clicked, this, &LossChartView::resetZoom);
    connect(ui.csv, &QToolButton::clicked, this, &LossChartView::exportCsvInteractively);
    // Room above the title for the strip.
    QMargins margins = chart()->margins();
    margins.setTop(margins.top() + strip->sizeHint().height());
    chart()->setMargins(margins);
    updateControls();
}

void LossChartView::updateControls()
{
    if (!m_ui)
        return;
    const QSignalBlocker blockSlider(m_ui->smoothing);
    const QSignalBlocker blockLog(m_ui->log);
    m_ui->smoothing->setValue(static_cast<int>(std::lround(m_smoothing * 100)));
    m_ui->value->setText(m_smoothing == 0 ? tr("none") : QString::number(m_smoothing, 'f', 2));
    m_ui->log->setChecked(m_logScale);
    m_ui->showAll->setEnabled(m_zoomed);
    m_ui->csv->setEnabled(!m_traces.empty());
}

void LossChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    if (!m_ui)
        return;
    // A narrow chart (a dock column of 220 px) keeps the slider, the box and the buttons,
    // without the words around them.
    const bool narrow = [this] {
        m_ui->label->show();
        m_ui->value->show();
        m_ui->smoothing->setFixedWidth(90);
        m_ui->showAll->setText(tr("Show all"));
        return m_ui->strip->sizeHint().width() > width();
    }();
    if (narrow) {
        m_ui->label->hide();
        m_ui->value->hide();
        m_ui->smoothing->setFixedWidth(56);
        m_ui->showAll->setText(tr("All"));
    }
    const QSize size = m_ui->strip->sizeHint();
    m_ui->strip->setGeometry(0, 0, std::min(width(), size.width()), size.height());
}

void LossChartView::exportCsvInteractively()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export loss curves"), QStringLiteral("loss.csv"),
        tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export loss curves"), tr("Could not write %1: %2").arg(path, error));
}

LossChartView::~LossChartView() = default;

void LossChartView::clearRuns()
{
    for (Trace &t : m_traces) {
        for (QAbstractSeries *s : std::initializer_list<QAbstractSeries *>{t.raw, t.smoothed, t.epochs}) {
            chart()->removeSeries(s);
            delete s;
        }
    }
    m_traces.clear();
    updateControls();
    m_empty = true;
    m_xMax = 0;
    fitAxes();
}

void LossChartView::addRun(std::shared_ptr<const RunSession> session, const QString &label, const QColor &color)
{
    Trace t;
    t.session = std::move(session);
    t.raw = new QLineSeries;
    t.smoothed = new QLineSeries;
    t.epochs = new QScatterSeries;
    QColor light = color;
    light.setAlpha(kRawAlpha);
    QPen rawPen(light);
    rawPen.setWidthF(1.0);
    t.raw->setPen(rawPen);
    QPen smoothPen(color);
    smoothPen.setWidthF(kSmoothWidth);
    t.smoothed->setPen(smoothPen);
    // Runs that train the same (split and baseline) draw the same curve: the first
    // one widens under the others, so that both stay visible.
    if (!m_traces.empty()) {
        QPen under = m_traces.front().smoothed->pen();
        under.setWidthF(kSmoothWidth * 2.5);
        m_traces.front().smoothed->setPen(under);
    }
    t.smoothed->setName(label);
    t.epochs->setColor(color.darker(120));
    t.epochs->setBorderColor(Qt::white);
    t.epochs->setMarkerSize(7.0);
    t.epochs->setName(tr("%1: epoch mean").arg(label));
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{t.raw, t.smoothed, t.epochs}) {
        chart()->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(lossAxis());
    }
    t.label = label;
    // The legend names each run once (its smoothed curve).
    for (QLegendMarker *m : chart()->legend()->markers(t.raw))
        m->setVisible(false);
    for (QLegendMarker *m : chart()->legend()->markers(t.epochs))
        m->setVisible(false);
    t.rawFeed = SeriesFeed(t.raw);
    t.smoothedFeed = SeriesFeed(t.smoothed);
    t.epochFeed = SeriesFeed(t.epochs, 1.0, kMaxEpochDots);
    m_traces.push_back(std::move(t));
    updateControls();
    refresh();
}

void LossChartView::refresh()
{
    // The axes first: a range change makes Qt Charts recompute every series'
    // geometry, which then happens once, before the new points come.
    static const QVector<QPointF> none;
    bool changed = false;
    for (Trace &t : m_traces) {
        const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
        const QVector<QPointF> &loss = stage ? stage->loss : none;
        if (loss.size() < t.scanned)
            t.scanned = 0; // another stage: start over
        for (qsizetype i = t.scanned; i < loss.size(); ++i) {
            const QPointF &p = loss[i];
            if (m_empty) {
                m_yMin = m_yMax = p.y();
                m_empty = false;
            }
            m_xMax = std::max(m_xMax, p.x());
            m_yMin = std::min(m_yMin, p.y());
            m_yMax = std::max(m_yMax, p.y());
            changed = true;
        }
        t.scanned = loss.size();
    }
    if (changed)
        fitAxes();
    for (Trace &t : m_traces) {
        const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
        const QVector<QPointF> &loss = stage ? stage->loss : none;
        t.rawFeed.feed(loss);
        extendSmoothed(t, loss);
        t.smoothedFeed.feed(t.smoothedCurve);
        t.epochFeed.feed(stage ? stage->epochLoss : none);
        // A line through one point draws nothing: after the first step (or a launch that
        // stopped there) the chart looked empty. That point is drawn as a dot.
        const bool lone = t.smoothed->count() == 1;
        if (t.smoothed->pointsVisible() != lone)
            t.smoothed->setPointsVisible(lone);
    }
}

void LossChartView::extendSmoothed(Trace &t, const QVector<QPointF> &loss) const
{
    if (loss.size() < t.smoothedCurve.size()) {
        t.smoothedCurve.clear(); // another stage: start over
        t.ema = 0;
        t.decay = 1;
    }
    for (qsizetype i = t.smoothedCurve.size(); i < loss.size(); ++i) {
        const QPointF &p = loss[i];
        t.ema = m_smoothing * t.ema + (1.0 - m_smoothing) * p.y();
        t.decay *= m_smoothing;
        // Debiased, as TensorBoard does: the first points are not pulled towards 0.
        t.smoothedCurve.append(QPointF(p.x(), m_smoothing > 0 ? t.ema / (1.0 - t.decay) : p.y()));
    }
}

QAbstractAxis *LossChartView::lossAxis() const
{
    return m_logScale ? static_cast<QAbstractAxis *>(m_logY) : m_y;
}

void LossChartView::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.99);
    if (weight == m_smoothing)
        return;
    m_smoothing = weight;
    updateControls();
    for (Trace &t : m_traces) {
        t.smoothedCurve.clear();
        t.ema = 0;
        t.decay = 1;
        t.smoothedFeed.feed({}); // a shorter vector: the feed starts over
    }
    refresh();
}

void LossChartView::setLogScale(bool on)
{
    if (on == m_logScale)
        return;
    QAbstractAxis *old = lossAxis();
    m_logScale = on;
    updateControls();
    QAbstractAxis *now = lossAxis();
    chart()->addAxis(now, Qt::AlignLeft);
    for (Trace &t : m_traces) {
        for (QXYSeries *s : std::initializer_list<QXYSeries *>{t.raw, t.smoothed, t.epochs}) {
            s->detachAxis(old);
            s->attachAxis(now);
        }
    }
    chart()->removeAxis(old);
    m_zoomed = false;
    updateControls();
    fitAxes();
}

void LossChartView::zoomBy(double factor)
{
    chart()->zoom(factor);
    m_zoomed = true;
    updateControls();
}

void LossChartView::resetZoom()
{
    chart()->zoomReset();
    m_zoomed = false;
    updateControls();
    fitAxes();
}

QString LossChartView::curvesCsv() const
{
    QString csv = QStringLiteral("run,step,loss,smoothed\n");
    for (const Trace &t : m_traces) {
        const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
        if (!stage)
            continue;
        QString label = t.label;
        if (label.contains(QLatin1Char(',')) || label.contains(QLatin1Char('"')))
            label = QLatin1Char('"') + label.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
        for (qsizetype i = 0; i < stage->loss.size(); ++i) {
            const QPointF &p = stage->loss[i];
            const double smoothed = i < t.smoothedCurve.size() ? t.smoothedCurve[i].y() : p.y();
            csv += label + QLatin1Char(',') + QString::number(static_cast<qint64>(p.x())) + QLatin1Char(',')
                + QString::number(p.y(), 'g', 9) + QLatin1Char(',') + QString::number(smoothed, 'g', 9) + QLatin1Char('\n');
        }
    }
    return csv;
}

bool LossChartView::exportCsv(const QString &path, QString *error) const
{
    std::string why;
    if (writeFileAtomically(path.toStdString(), curvesCsv().toStdString(), &why))
        return true;
    if (error)
        *error = QString::fromStdString(why);
    return false;
}

void LossChartView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    QMenu *smoothing = menu.addMenu(tr("&Smoothing"));
    auto *weights = new QActionGroup(smoothing);
    for (const double w : {0.0, 0.6, 0.8, 0.9, 0.95, 0.99}) {
        QAction *a = smoothing->addAction(w == 0 ? tr("None") : QString::number(w));
        a->setCheckable(true);
        a->setChecked(std::abs(w - m_smoothing) < 1e-9);
        weights->addAction(a);
        connect(a, &QAction::triggered, this, [this, w] { setSmoothing(w); });
    }
    QAction *log = menu.addAction(tr("&Log scale"));
    log->setCheckable(true);
    log->setChecked(m_logScale);
    connect(log, &QAction::toggled, this, &LossChartView::setLogScale);
    QAction *reset = menu.addAction(tr("Show &everything"));
    reset->setEnabled(m_zoomed);
    connect(reset, &QAction::triggered, this, &LossChartView::resetZoom);
    menu.addSeparator();
    QAction *csv = menu.addAction(tr("Export curves as &CSV…"));
    csv->setEnabled(!m_traces.empty());
    connect(csv, &QAction::triggered, this, &LossChartView::exportCsvInteractively);
    menu.exec(event->globalPos());
}

void LossChartView::mouseReleaseEvent(QMouseEvent *event)
{
    // The right button opens the menu; Qt Charts would also zoom out on it.
    if (event->button() == Qt::RightButton) {
        event->accept();
        return;
    }
    QChartView::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton && chart()->isZoomed())
        m_zoomed = true;
        updateControls();
}

void LossChartView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        resetZoom();
    event->accept();
}

void LossChartView::wheelEvent(QWheelEvent *event)
{
    const int notches = event->angleDelta().y() / 120;
    if (notches == 0) {
        event->ignore();
        return;
    }
    zoomBy(std::pow(kWheelZoom, notches));
    event->accept();
}

void LossChartView::keyPressEvent(QKeyEvent *event)
{
    const QRectF area = chart()->plotArea();
    const double dx = area.width() * kPanFraction;
    const double dy = area.height() * kPanFraction;
    switch (event->key()) {
    case Qt::Key_Left:
        chart()->scroll(-dx, 0);
        break;
    case Qt::Key_Right:
        chart()->scroll(dx, 0);
        break;
    case Qt::Key_Up:
        chart()->scroll(0, dy);
        break;
    case Qt::Key_Down:
        chart()->scroll(0, -dy);
        break;
    case Qt::Key_Plus:
        zoomBy(kWheelZoom);
        return;
    case Qt::Key_Minus:
        zoomBy(1.0 / kWheelZoom);
        return;
    case Qt::Key_0:
        resetZoom();
        return;
    default:
        QChartView::keyPressEvent(event);
        return;
    }
    m_zoomed = true;
    updateControls();
}

void LossChartView::fitAxes()
{
    // The user's zoom and pan stay until they ask for everything again.
    if (m_zoomed)
        return;
    if (m_logScale) {
        double low = 0;
        double high = 0;
        for (const Trace &t : m_traces) {
            const StageRun *stage = t.session ? t.session->trainingStage() : nullptr;
            for (const QPointF &p : stage ? stage->loss : QVector<QPointF>()) {
                if (p.y() > 0) {
                    low = low > 0 ? std::min(low, p.y()) : p.y();
                    high = std::max(high, p.y());
                }
            }
        }
        if (low <= 0) {
            low = 0.1;
            high = 1;
        }
        // Whole decades: the log axis labels its ticks at powers of the base.
        m_logY->setRange(std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high * 1.0001))));
    }
    if (m_empty) {
        setAxisRange(m_x, 0, 10, true);
        setAxisRange(m_y, 0, 1, false, m_yTicks);
        return;
    }
    // The x axis spans the stage's steps from the start (known from its first
    // event), so that it does not move while the curve grows.
    double steps = m_xMax;
    for (const Trace &t : m_traces) {
        if (const StageRun *stage = t.session ? t.session->trainingStage() : nullptr)
            steps = std::max(steps, static_cast<double>(stage->total));
    }
    setAxisRange(m_x, 0, std::max(1.0, steps), true);
    // A flat curve (one step, or a loss that has not moved yet) spans at least 1 % of its
    // value: its range was 1e-6 wide and read "1.4999..." and "1.5000...".
    const double span = std::max({m_yMax - m_yMin, kLeastRelativeSpan * std::abs(m_yMax), 1e-6});
    setAxisRange(m_y, std::max(0.0, roundDownForAxis(m_yMin - kYPadding * span, span)),
        roundUpForAxis(m_yMax + kYPadding * span, span), false, m_yTicks);
}

int LossChartView::rawPoints(int index) const
{
    return index >= 0 && index < runCount() ? static_cast<int>(m_traces[index].raw->count()) : 0;
}

int LossChartView::smoothedPoints(int index) const
{
    return index >= 0 && index < runCount() ? static_cast<int>(m_traces[index].smoothed->count()) : 0;
}

} // namespace splitscope
