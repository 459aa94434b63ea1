// SPDX-License-Identifier: MIT
#include "RunningUnitMarker.h"

#include "RunController.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/graph/UnitNodeItem.h"

#include <QGraphicsObject>
#include <QPainter>
#include <QTimer>

#include <cmath>

namespace splitscope {

namespace {

constexpr double kRingGap = 5.0;      // between the box and the ring, scene units
constexpr double kRingWidth = 4.0;
constexpr int kPulseMs = 1200;        // one pulse of the ring's opacity
constexpr int kPulseSteps = 12;       // repaints per pulse: a ring that breathes, not a 60 Hz animation

// The ring and tag around a running unit's box, behind the box.
class Halo : public QGraphicsObject {
public:
    Halo(const QRectF &box, QGraphicsItem *parent) : QGraphicsObject(parent), m_box(box)
    {
        setFlag(QGraphicsItem::ItemStacksBehindParent);
        setAcceptedMouseButtons(Qt::NoButton);
        setAcceptHoverEvents(false);
    }

    QRectF boundingRect() const override
    {
        const double out = kRingGap + kRingWidth + 2;
        return m_box.adjusted(-out, -out - tagHeight(), out, out);
    }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        const GraphStyle &style = GraphStyle::standard();
        const QColor color(0xe8, 0x59, 0x0c);
        const QRectF ring = m_box.adjusted(-kRingGap, -kRingGap, kRingGap, kRingGap);
        painter->setRenderHint(QPainter::Antialiasing);
        QColor glow = color;
        glow.setAlpha(60);
        painter->setPen(QPen(glow, kRingWidth * 2.5));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(ring, style.cornerRadius + kRingGap, style.cornerRadius + kRingGap);
        painter->setPen(QPen(color, kRingWidth));
        painter->drawRoundedRect(ring, style.cornerRadius + kRingGap, style.cornerRadius + kRingGap);

        const QString tag = QObject::tr("▶ running");
        QFont font = style.badgeFont;
        font.setBold(true);
        painter->setFont(font);
        const QFontMetricsF metrics(font);
        const QRectF tagRect(ring.left(), ring.top() - tagHeight(), metrics.horizontalAdvance(tag) + 10, tagHeight() - 2);
        painter->setPen(Qt::NoPen);
        painter->setBrush(color);
        painter->drawRoundedRect(tagRect, 3, 3);
        painter->setPen(Qt::white);
        painter->drawText(tagRect, Qt::AlignCenter, tag);
    }

private:
    static double tagHeight() { return QFontMetricsF(GraphStyle::standard().badgeFont).height() + 6; }

    QRectF m_box;
};

} // namespace

RunningUnitMarker::RunningUnitMarker(RunController *controller, SplitDocument *document, SplitGraphScene *scene,
    QObject *parent)
    : QObject(parent), m_controller(controller), m_document(document), m_scene(scene),
      m_pulse(new QTimer(this))
{
    m_pulse->setInterval(kPulseMs / kPulseSteps);
    connect(m_pulse, &QTimer::timeout, this, [this]() {
        m_phase = (m_phase + 1) % kPulseSteps;
        if (m_halo)
            m_halo->setOpacity(0.7 + 0.3 * std::cos(2.0 * M_PI * m_phase / kPulseSteps));
    });
    connect(controller, &RunController::unitChanged, this, &RunningUnitMarker::setRunningUnit);
    connect(controller, &RunController::launchFinished, this, [this]() { setRunningUnit(QString()); });
    // New items (a layout, a reload): put the ring on the new box.
    connect(scene, &SplitGraphScene::layoutApplied, this, &RunningUnitMarker::attach);
}

RunningUnitMarker::~RunningUnitMarker()
{
    delete m_halo.data();
}

void RunningUnitMarker::setRunningUnit(const QString &unit)
{
    m_unit = unit;
    attach();
}

void RunningUnitMarker::attach()
{
    const auto session = m_controller->session();
    UnitNodeItem *node = nullptr;
    if (!m_unit.isEmpty() && session && m_document->hasPipeline()
        && QString::fromStdString(m_document->pipeline().name) == session->config().pipeline) {
        node = m_scene->nodeItem(m_document->graph().findUnit(m_unit.toStdString()));
    }
    if (m_halo && (!node || m_halo->parentItem() != node)) {
        delete m_halo.data();
        m_halo = nullptr;
    }
    if (node && !m_halo)
        m_halo = new Halo(node->boxRect(), node);
    if (m_halo && !m_pulse->isActive())
        m_pulse->start();
    else if (!m_halo)
        m_pulse->stop();
}

} // namespace splitscope
