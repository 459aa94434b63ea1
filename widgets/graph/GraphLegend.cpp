// SPDX-License-Identifier: MIT
#include "GraphLegend.h"

#include "GraphStyle.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace splitscope {

namespace {

constexpr double kPadding = 8.0;
constexpr double kSwatchWidth = 26.0;
constexpr double kSwatchHeight = 12.0;
constexpr double kRowGap = 3.0;
constexpr double kSwatchGap = 7.0;    // between a swatch and its text
constexpr double kColumnGap = 14.0;
constexpr double kMinTextWidth = 40.0; // a narrow legend still shows this much of each text
constexpr int kEntriesPerColumn = 5;  // more entries: two columns, so the legend stays low

QString tr(const char *text)
{
    return QCoreApplication::translate("GraphLegend", text);
}

QFont legendFont()
{
    QFont font = GraphStyle::standard().badgeFont;
    font.setPointSizeF(8.5);
    return font;
}

} // namespace

GraphLegend::GraphLegend(const Context &c, double maxWidth, bool oneColumn)
{
    // While stepping, the fills show X at that step, not the split: a blue box may
    // still join X (and stage two) later.
    m_entries.push_back({Swatch::StageOne, c.stepping ? tr("not in X yet") : tr("stage one: cached")});
    m_entries.push_back({Swatch::StageTwo, c.stepping ? tr("in X so far (stage two)") : tr("stage two: every training step")});
    m_entries.push_back({Swatch::X0, tr("X0: calls a model that needs gradients")});
    m_entries.push_back({Swatch::Trainable, tr("model that needs gradients")});
    if (c.stepping) {
        m_entries.push_back({Swatch::Added, tr("added by this step")});
        m_entries.push_back({Swatch::Cause, tr("edge or chain that caused it")});
    }
    if (c.hazards)
        m_entries.push_back({Swatch::Hazard, tr("hazard: reader, producers, edge")});
    if (c.chains)
        m_entries.push_back({Swatch::Chain, tr("update chain (next rewriter)")});
    if (c.comparison) {
        m_entries.push_back({Swatch::Moved, tr("moved between the two splits")});
        if (c.overlay)
            m_entries.push_back({Swatch::Overlay, tr("left: split A, right: split B")});
    }
    m_entries.push_back({Swatch::Dice, tr("stochastic (red: noise frozen in cache)")});
    m_entries.push_back({Swatch::Loss, tr("the loss")});

    // More entries: two columns, so the legend stays low; one column where two do not fit.
    m_columns = !oneColumn && static_cast<int>(m_entries.size()) > kEntriesPerColumn ? 2 : 1;
    if (maxWidth <= 0)
        return;
    if (m_columns == 2 && widthOf(naturalColumnWidths(2)) > maxWidth)
        m_columns = 1;
    if (widthOf(naturalColumnWidths(m_columns)) > maxWidth)
        m_maxTextColumn = std::max(kSwatchWidth + kSwatchGap + kMinTextWidth,
            (maxWidth - 2 * kPadding - kColumnGap * (m_columns - 1)) / m_columns);
}

double GraphLegend::widthOf(const std::vector<double> &columnWidths)
{
    double width = 2 * kPadding + kColumnGap * (static_cast<double>(columnWidths.size()) - 1);
    for (const double w : columnWidths)
        width += w;
    return width;
}

std::vector<double> GraphLegend::columnWidths() const
{
    std::vector<double> widths = naturalColumnWidths(m_columns);
    if (m_maxTextColumn > 0) {
        for (double &w : widths)
            w = std::min(w, m_maxTextColumn);
    }
    return widths;
}

std::vector<double> GraphLegend::naturalColumnWidths(int cols) const
{
    const QFontMetricsF metrics(legendFont());
    const int rows = (static_cast<int>(m_entries.size()) + cols - 1) / cols;
    std::vector<double> widths(cols, 0.0);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const int col = static_cast<int>(i) / rows;
        widths[col] = std::max(widths[col], kSwatchWidth + kSwatchGap + metrics.horizontalAdvance(m_entries[i].text));
    }
    return widths;
}

QSizeF GraphLegend::size() const
{
    const QFontMetricsF metrics(legendFont());
    const int cols = columns();
    const int rows = (static_cast<int>(m_entries.size()) + cols - 1) / cols;
    const double width = widthOf(columnWidths());
    const double row = std::max(kSwatchHeight, metrics.height()) + kRowGap;
    return QSizeF(width, 2 * kPadding + row * rows - kRowGap);
}

void GraphLegend::paint(QPainter *painter, const QPointF &topLeft) const
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const GraphStyle &s = GraphStyle::standard();
    const QRectF box(topLeft, size());
    painter->setPen(QPen(QColor(0xce, 0xd4, 0xda), 1.0));
    painter->setBrush(QColor(255, 255, 255, 235));
    painter->drawRoundedRect(box, 6, 6);
    const QFont font = legendFont();
    const QFontMetricsF metrics(font);
    const double row = std::max(kSwatchHeight, metrics.height()) + kRowGap;
    const int cols = columns();
    const int rows = (static_cast<int>(m_entries.size()) + cols - 1) / cols;
    const std::vector<double> widths = columnWidths();
    painter->setFont(font);
    double x = box.left() + kPadding;
    for (int col = 0; col < cols; ++col) {
        double y = box.top() + kPadding;
        for (int r = 0; r < rows; ++r) {
            const std::size_t i = static_cast<std::size_t>(col * rows + r);
            if (i >= m_entries.size())
                break;
            const QRectF swatch(x, y + (row - kRowGap - kSwatchHeight) / 2, kSwatchWidth, kSwatchHeight);
            paintSwatch(painter, m_entries[i].swatch, swatch);
            painter->setPen(s.text);
            const QRectF text(swatch.right() + kSwatchGap, y, widths[col] - kSwatchWidth - kSwatchGap, row - kRowGap);
            painter->drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
                m_maxTextColumn > 0 ? metrics.elidedText(m_entries[i].text, Qt::ElideRight, text.width())
                                    : m_entries[i].text);
            y += row;
        }
        x += widths[col] + kColumnGap;
    }
    painter->restore();
}

void GraphLegend::paintSwatch(QPainter *painter, Swatch swatch, const QRectF &r) const
{
    const GraphStyle &s = GraphStyle::standard();
    auto box = [&](const QColor &fill, const QPen &pen) {
        painter->setPen(pen);
        painter->setBrush(fill);
        painter->drawRoundedRect(r, 3, 3);
    };
    const QPen plain(s.border, 1.0);
    switch (swatch) {
    case Swatch::StageOne: box(s.stageOne, plain); break;
    case Swatch::StageTwo: box(s.stageTwo, plain); break;
    case Swatch::Loss: box(s.loss, plain); break;
    case Swatch::X0:
        box(s.stageTwo, plain);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r.adjusted(2, 2, -2, -2), 2, 2);
        break;
    case Swatch::Trainable:
        painter->setPen(Qt::NoPen);
        painter->setBrush(s.badgeTrainable);
        painter->drawRoundedRect(r.adjusted(2, 2, -2, -2), 4, 4);
        break;
    case Swatch::Hazard: box(s.stageTwo, QPen(s.hazard, 2.2)); break;
    case Swatch::Added: {
        QColor halo = s.added;
        halo.setAlphaF(0.35);
        painter->setPen(QPen(halo, 5));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r, 3, 3);
        box(s.stageTwo, QPen(s.added, 2.0));
        break;
    }
    case Swatch::Cause:
        painter->setPen(QPen(s.cause, 2.6, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()));
        break;
    case Swatch::Chain:
        painter->setPen(QPen(s.chain, 1.6, Qt::DashLine, Qt::RoundCap));
        painter->drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()));
        break;
    case Swatch::Moved:
        box(s.stageOne, plain);
        painter->setPen(QPen(s.moved, 2.0, Qt::DashLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r.adjusted(-1.5, -1.5, 1.5, 1.5), 4, 4);
        break;
    case Swatch::Overlay: {
        box(s.stageOne, plain);
        QPainterPath right;
        right.moveTo(r.left() + r.width() * 0.55, r.top());
        right.lineTo(r.right(), r.top());
        right.lineTo(r.right(), r.bottom());
        right.lineTo(r.left() + r.width() * 0.45, r.bottom());
        right.closeSubpath();
        painter->setPen(Qt::NoPen);
        painter->setBrush(s.stageTwo);
        painter->drawPath(right);
        painter->setPen(plain);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r, 3, 3);
        break;
    }
    case Swatch::Dice: {
        const QRectF d(r.center().x() - 5, r.center().y() - 5, 10, 10);
        painter->setPen(QPen(s.mutedText, 1.0));
        painter->setBrush(Qt::white);
        painter->drawRoundedRect(d, 2, 2);
        painter->setPen(Qt::NoPen);
        painter->setBrush(s.mutedText);
        for (const QPointF &p : {d.topLeft() + QPointF(2.5, 2.5), d.center(), d.bottomRight() - QPointF(2.5, 2.5)})
            painter->drawEllipse(p, 1.1, 1.1);
        break;
    }
    }
}

} // namespace splitscope
