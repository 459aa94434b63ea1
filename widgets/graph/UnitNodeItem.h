// SPDX-License-Identifier: MIT
#pragma once

#include "GraphStyle.h"

#include <QGraphicsItem>
#include <QStringList>

namespace splitscope {

// One unit (or the loss) in the graph: a rounded box filled by stage, the unit's
// name, its model badges (filled when the model requires backward), a dice mark
// when it is stochastic. The scene decides everything it shows through Look; the
// item only paints. Below kDetailZoom the badges and the dice are skipped and the
// name alone is drawn, centered and scaled up to stay legible, where the box is tall
// enough on screen for it; below kBlockZoom a box is a plain block (level of detail),
// so a 2,000-unit graph at fit zoom paints as colored blocks.
class UnitNodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    enum class Stage { Unknown, One, Two, Loss };

    struct Look {
        Stage stage = Stage::Unknown;
        Stage otherStage = Stage::Unknown; // the compared split's stage, drawn as the right half; Unknown: none
        bool x0 = false;            // double border
        bool hazard = false;        // reader or producer of a hazard
        bool hazardFocus = false;   // the hazard the verifier is showing
        bool frozenRandomness = false; // stochastic and cached
        bool added = false;         // added by the current stepper position
        bool cause = false;         // the unit whose edge or chain caused the current step
        bool moved = false;         // changes stage between the compared splits
        int movedTo = 0;            // when moved: the stage it has in split B (1 or 2)
        bool dimmed = false;        // outside the highlighted lineage or hazard
        quint64 trainableBadges = 0; // bit i: model badge i requires backward

        bool operator==(const Look &o) const
        {
            return stage == o.stage && otherStage == o.otherStage && x0 == o.x0 && hazard == o.hazard
                && hazardFocus == o.hazardFocus && frozenRandomness == o.frozenRandomness && added == o.added
                && cause == o.cause && moved == o.moved && movedTo == o.movedTo && dimmed == o.dimmed
                && trainableBadges == o.trainableBadges;
        }
        bool operator!=(const Look &o) const { return !(*this == o); }
    };

    UnitNodeItem(UnitId unit, const QString &name, const QStringList &models, bool stochastic, bool isLoss,
        const QSizeF &size, const GraphStyle &style);

    UnitId unit() const { return m_unit; }
    const QString &name() const { return m_name; } // as given: without the graph's common prefix
    const QString &shownName() const;                 // as drawn: name() elided to the box
    const QStringList &models() const { return m_models; } // the badges, in order
    const Look &look() const { return m_look; }
    void setLook(const Look &look);
    QRectF boxRect() const { return m_box; }

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    double nameWidth() const; // the room for the name in the box
    void paintFill(QPainter *painter) const;
    void paintBorder(QPainter *painter) const;
    void paintText(QPainter *painter) const;
    void paintCompactName(QPainter *painter, double zoom) const;
    void paintDice(QPainter *painter, const QRectF &rect) const;
    void paintMovedBadge(QPainter *painter, double zoom) const;
    // Where the "B→2" badge is drawn at `zoom`, and its font (when asked for).
    QRectF movedBadgeRect(double zoom, QFont *font) const;

    UnitId m_unit;
    QString m_name;
    mutable QString m_shownName; // elided to the box, on first use
    // Below kDetailZoom: for the font size that zoom asks for (m_compactKey), the size
    // the name is drawn at and the name as drawn (empty: not drawn).
    mutable double m_compactKey = -1;
    mutable double m_compactPointSize = 0;
    mutable QString m_compactName;
    QStringList m_models;
    bool m_stochastic;
    bool m_isLoss;
    QRectF m_box;
    const GraphStyle &m_style;
    Look m_look;
};

} // namespace splitscope
