// SPDX-License-Identifier: MIT
#include "UnitNodeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

constexpr double kDetailZoom = 0.45;  // below this scale badges are not drawn, and the name alone
constexpr double kBlockZoom = 0.12;   // below this, boxes are plain blocks
constexpr double kOutline = 8.0;      // room around the box for halos and double borders
constexpr double kDiceSize = 10.0;
constexpr double kMinBadgePixels = 13.0; // the moved badge's text height on screen, at least
// Below kDetailZoom the name is drawn this tall on screen (its font's line height),
// less where the box is lower, and not at all under kMinCompactNamePixels.
constexpr double kCompactNamePixels = 8.0;
constexpr double kMinCompactNamePixels = 7.0;
constexpr int kMinCompactNameLetters = 6; // shown of an elided name, at least (and 60 % of it)

QColor stageColor(UnitNodeItem::Stage stage, const GraphStyle &style)
{
    switch (stage) {
    case UnitNodeItem::Stage::One: return style.stageOne;
    case UnitNodeItem::Stage::Two: return style.stageTwo;
    case UnitNodeItem::Stage::Loss: return style.loss;
    case UnitNodeItem::Stage::Unknown: break;
    }
    return style.unsplit;
}

QColor faded(QColor color, bool dimmed)
{
    if (dimmed)
        color.setAlphaF(0.38);
    return color;
}

} // namespace

UnitNodeItem::UnitNodeItem(UnitId unit, const QString &name, const QStringList &models, bool stochastic,
    bool isLoss, const QSizeF &size, const GraphStyle &style)
    : m_unit(unit), m_name(name), m_models(models), m_stochastic(stochastic), m_isLoss(isLoss),
      m_box(QPointF(0, 0), size), m_style(style)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    // No item cache: creating 2,000 cache pixmaps made the first paint of a big graph
    // several times slower (bench_graph_view), and exports need vectors anyway.
    setZValue(2);
}

void UnitNodeItem::setLook(const Look &look)
{
    if (look == m_look)
        return;
    if (look.moved != m_look.moved)
        prepareGeometryChange(); // the badge is outside the box
    m_look = look;
    update();
}

QRectF UnitNodeItem::boundingRect() const
{
    const QRectF box = m_box.adjusted(-kOutline, -kOutline, kOutline, kOutline);
    // The moved badge, as large as it is drawn at the lowest zoom that draws it.
    return m_look.moved ? box.united(movedBadgeRect(kBlockZoom, nullptr).adjusted(-1, -1, 1, 1)) : box;
}

QPainterPath UnitNodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(m_box, m_style.cornerRadius, m_style.cornerRadius);
    return path;
}

void UnitNodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const double zoom = option->levelOfDetailFromTransform(painter->worldTransform());
    if (zoom < kBlockZoom && !isSelected() && !m_look.added && !m_look.hazard) {
        // A few pixels wide: a plain block, no curves, no antialiasing.
        painter->fillRect(m_box, faded(stageColor(m_look.stage, m_style), m_look.dimmed));
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing);
    paintFill(painter);
    paintBorder(painter);
    if (zoom >= kDetailZoom)
        paintText(painter);
    else
        paintCompactName(painter, zoom);
    // The badge also where the names are not drawn: it is what a comparison is about.
    if (m_look.moved && m_look.movedTo != 0 && zoom >= kBlockZoom)
        paintMovedBadge(painter, zoom);
}

void UnitNodeItem::paintMovedBadge(QPainter *painter, double zoom) const
{
    // "B→2" on the corner: where this unit goes in the other split, readable
    // without comparing two fills. At a fit zoom of a big graph its 7.5 pt were 3 px
    // on screen: it is drawn at least kMinBadgePixels tall (up to the box's height).
    const QString text = QStringLiteral("B→%1").arg(m_look.movedTo);
    QFont font;
    const QRectF badge = movedBadgeRect(zoom, &font);
    painter->setPen(QPen(Qt::white, 1.0));
    painter->setBrush(faded(m_style.moved, m_look.dimmed));
    painter->drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
    painter->setFont(font);
    painter->setPen(Qt::white);
    painter->drawText(badge, Qt::AlignCenter, text);
}

QRectF UnitNodeItem::movedBadgeRect(double zoom, QFont *font) const
{
    QFont badgeFont = m_style.badgeFont;
    badgeFont.setBold(true);
    // Scaled up to kMinBadgePixels on screen, but never taller than the box.
    const double height = QFontMetricsF(badgeFont).height();
    const double scale = std::clamp(kMinBadgePixels / (height * std::max(zoom, kBlockZoom)), 1.0,
        std::max(1.0, m_box.height() / height));
    badgeFont.setPointSizeF(badgeFont.pointSizeF() * scale);
    const QFontMetricsF metrics(badgeFont);
    const double w = metrics.horizontalAdvance(QStringLiteral("B→2")) + 8, h = metrics.height() + 2;
    if (font)
        *font = badgeFont;
    return QRectF(m_box.right() - w + 4, m_box.top() - h / 2 - 2, w, h);
}

void UnitNodeItem::paintFill(QPainter *painter) const
{
    const double r = m_style.cornerRadius;
    QPainterPath box;
    box.addRoundedRect(m_box, r, r);
    painter->setPen(Qt::NoPen);
    painter->setBrush(faded(stageColor(m_look.stage, m_style), m_look.dimmed));
    painter->drawPath(box);
    if (m_look.otherStage != Stage::Unknown && m_look.otherStage != m_look.stage) {
        // Overlay of a comparison: the right part shows the other split's stage,
        // cut diagonally so that it reads as "this box is two colors".
        const double w = m_box.width(), h = m_box.height();
        QPainterPath right;
        right.moveTo(w * 0.55, 0);
        right.lineTo(w, 0);
        right.lineTo(w, h);
        right.lineTo(w * 0.45, h);
        right.closeSubpath();
        painter->setBrush(faded(stageColor(m_look.otherStage, m_style), m_look.dimmed));
        painter->drawPath(right.intersected(box));
    }
}

void UnitNodeItem::paintBorder(QPainter *painter) const
{
    const double r = m_style.cornerRadius;
    painter->setBrush(Qt::NoBrush);
    if (m_look.added) {
        // A soft halo: the eye finds what this step added before reading anything.
        QColor halo = m_style.added;
        halo.setAlphaF(0.35);
        painter->setPen(QPen(halo, 7.0));
        painter->drawRoundedRect(m_box.adjusted(-2, -2, 2, 2), r + 2, r + 2);
    }
    if (isSelected()) {
        QColor halo = m_style.selection;
        halo.setAlphaF(0.30);
        painter->setPen(QPen(halo, 8.0));
        painter->drawRoundedRect(m_box.adjusted(-3, -3, 3, 3), r + 3, r + 3);
    }
    if (m_look.moved) {
        painter->setPen(QPen(faded(m_style.moved, m_look.dimmed), 2.5, Qt::DashLine));
        painter->drawRoundedRect(m_box.adjusted(-4.5, -4.5, 4.5, 4.5), r + 4, r + 4);
    }
    QColor color = m_style.border;
    double width = 1.0;
    if (m_look.hazard) {
        color = m_style.hazard;
        width = m_look.hazardFocus ? 3.5 : 2.2;
    } else if (m_look.added) {
        color = m_style.added;
        width = 2.5;
    } else if (m_look.cause) {
        color = m_style.cause;
        width = 2.5;
    } else if (isSelected()) {
        color = m_style.selection;
        width = 2.0;
    }
    painter->setPen(QPen(faded(color, m_look.dimmed), width));
    painter->drawRoundedRect(m_box, r, r);
    if (m_look.x0) {
        // X0: a double border, as in the DOT export.
        painter->setPen(QPen(faded(color, m_look.dimmed), 1.0));
        painter->drawRoundedRect(m_box.adjusted(2.5, 2.5, -2.5, -2.5), r - 2, r - 2);
    }
}

double UnitNodeItem::nameWidth() const
{
    double width = m_box.width() - 2 * m_style.paddingX;
    if (m_stochastic)
        width -= kDiceSize + 4;
    return width;
}

const QString &UnitNodeItem::shownName() const
{
    // The box's width is fixed, so the shown name is too: elided on the first paint
    // that shows text (most boxes of a big graph never get one), not per paint.
    if (m_shownName.isNull())
        m_shownName = QFontMetricsF(m_style.nameFont).elidedText(m_name, Qt::ElideMiddle, nameWidth() + 0.5);
    return m_shownName;
}

void UnitNodeItem::paintText(QPainter *painter) const
{
    const GraphStyle &s = m_style;
    const QFontMetricsF nameMetrics(s.nameFont);
    const bool hasBadges = !m_models.isEmpty();
    const double nameTop = s.paddingY;
    painter->setFont(s.nameFont);
    painter->setPen(faded(s.text, m_look.dimmed));
    const QRectF nameRect(s.paddingX, nameTop, nameWidth(), nameMetrics.height());
    painter->drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter, shownName());
    if (m_stochastic) {
        paintDice(painter, QRectF(m_box.width() - s.paddingX - kDiceSize, nameTop + (nameMetrics.height() - kDiceSize) / 2,
                               kDiceSize, kDiceSize));
    }
    if (!hasBadges)
        return;
    painter->setFont(s.badgeFont);
    double x = s.paddingX;
    const double y = nameTop + nameMetrics.height() + s.badgeGap;
    const double h = s.badgeHeight();
    for (int i = 0; i < m_models.size(); ++i) {
        const double w = s.badgeWidth(m_models[i]);
        const QRectF badge(x, y, w, h);
        const bool trainable = i < 64 && (m_look.trainableBadges >> i) & 1u;
        painter->setPen(QPen(faded(trainable ? s.badgeTrainable : s.mutedText, m_look.dimmed), 0.8));
        painter->setBrush(faded(trainable ? s.badgeTrainable : QColor(255, 255, 255, 200), m_look.dimmed));
        painter->drawRoundedRect(badge, h / 2, h / 2);
        painter->setPen(faded(trainable ? QColor(Qt::white) : s.text, m_look.dimmed));
        painter->drawText(badge, Qt::AlignCenter, m_models[i]);
        x += w + s.badgeGap;
    }
}

void UnitNodeItem::paintCompactName(QPainter *painter, double zoom) const
{
    // A 10-unit pipeline fitted into a 1280x800 window is drawn at about 0.4: at the
    // name font's size its names would be 5 px tall, so they were left out and the
    // graph showed bare boxes. The name alone, larger, in the middle of the box:
    // kCompactNamePixels tall, less (down to kMinCompactNamePixels) where the box is
    // low or where that makes the whole name fit.
    const double pixels = std::min(kCompactNamePixels, m_box.height() * zoom - 1);
    if (pixels < kMinCompactNamePixels)
        return;
    const double padding = 3 / zoom;
    const double room = m_box.width() - 2 * padding;
    // Sizes in half points, so that a zoom does not measure every name anew at every step.
    const double pointSize = std::round(m_style.nameFont.pointSizeF() * pixels / zoom
                                            / QFontMetricsF(m_style.nameFont).height() * 2) / 2;
    QFont font = m_style.nameFont;
    font.setWeight(QFont::Normal); // narrower: more of the name fits
    if (pointSize != m_compactKey) {
        m_compactKey = pointSize;
        font.setPointSizeF(pointSize);
        const double width = QFontMetricsF(font).horizontalAdvance(m_name);
        const double smallest = pointSize * kMinCompactNamePixels / pixels;
        m_compactPointSize = width > room ? std::max(smallest, pointSize * room / width) : pointSize;
        font.setPointSizeF(m_compactPointSize);
        m_compactName = QFontMetricsF(font).elidedText(m_name, Qt::ElideMiddle, room + 0.5);
        // "u…5" for "unit951" or "Fun…nce" for "FunReference" says nothing: a name is
        // drawn whole or with most of it.
        const qsizetype kept = m_compactName.size() - (m_compactName == m_name ? 0 : 1);
        if (m_compactName != m_name && (kept < kMinCompactNameLetters || 5 * kept < 3 * m_name.size()))
            m_compactName.clear();
    }
    if (m_compactName.isEmpty())
        return;
    font.setPointSizeF(m_compactPointSize);
    painter->setFont(font);
    painter->setPen(faded(m_style.text, m_look.dimmed));
    painter->drawText(m_box.adjusted(padding, 0, -padding, 0), Qt::AlignCenter, m_compactName);
}

void UnitNodeItem::paintDice(QPainter *painter, const QRectF &rect) const
{
    const QColor ink = faded(m_look.frozenRandomness ? m_style.hazard : m_style.mutedText, m_look.dimmed);
    painter->setPen(QPen(ink, 1.0));
    painter->setBrush(Qt::white);
    painter->drawRoundedRect(rect, 2, 2);
    painter->setPen(Qt::NoPen);
    painter->setBrush(ink);
    const double d = rect.width() / 4;
    for (const QPointF &p : {rect.topLeft() + QPointF(d, d), rect.center(), rect.bottomRight() - QPointF(d, d)})
        painter->drawEllipse(p, 1.1, 1.1);
}

} // namespace splitscope
