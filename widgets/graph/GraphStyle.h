// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QColor>
#include <QFont>
#include <QHash>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <vector>

namespace splitscope {

// Fonts, metrics and colors of the unit graph, shared by the items that draw it,
// the layout request (node sizes) and the legend, so that the three agree. Stage
// colors come from core/SplitReport.h, the same ones the DOT export uses.
// The graph is deliberately drawn on light paper (`background`) with dark ink whatever
// the desktop theme: its stage fills are the colors of the exports and the DOT output,
// and they must read the same on screen. Nothing here comes from the palette.
struct GraphStyle {
    QFont nameFont;   // unit names
    QFont badgeFont;  // model badges, tags
    QFont labelFont;  // edge labels (params)

    QColor stageOne;   // cached (V2)
    QColor stageTwo;   // trained (V1)
    QColor loss;
    QColor unsplit;    // before the first split arrives
    QColor hazard;
    QColor added;      // what the current step added
    QColor cause;      // the edge or chain that caused it
    QColor chain;      // update chains
    QColor moved;      // units that changed stage between two splits
    QColor selection;
    QColor border;
    QColor edge;
    QColor text;
    QColor mutedText;
    QColor badgeTrainable; // a model requiring backward
    QColor background;

    double paddingX = 10.0; // inside a node, scene units
    double paddingY = 6.0;
    double badgeGap = 4.0;
    double cornerRadius = 6.0;
    // A unit name wider than this is elided (about 45 characters at the name font:
    // DiffSynth's names are up to about 40, without their family prefix far fewer).
    double maxNameWidth = 400.0;
    double maxLabelWidth = 280.0; // an edge label's line wider than this is elided

private:
    mutable QHash<QString, double> m_labelWidths;

public:

    static const GraphStyle &standard();

    // The prefix, up to an underscore, that boxes leave out so that the names that
    // differ are readable; empty when none. It is the longest prefix every unit name
    // shares ("QwenImageUnit_"), else the family prefix (up to the first underscore)
    // of more than half of the units: tiny-qwen-image's QwenImageUnit_ units next to
    // one ZImageUnit_ unit, which keeps its whole name.
    static QString commonUnitPrefix(const PipelineGraph &graph);
    // The name a box shows: without `prefix` where it starts with it (the loss keeps its name).
    static QString shownName(const PipelineGraph &graph, UnitId unit, const QString &prefix);

    // The node size of `unit` (or the loss): name on top, model badges below.
    QSizeF nodeSize(const PipelineGraph &graph, UnitId unit, const QString &prefix = {}) const;
    // Every node's size with the standard style (units in order, then the loss).
    static std::vector<QSizeF> nodeSizes(const PipelineGraph &graph);
    double badgeWidth(const QString &model) const;
    // Width of `text` in labelFont. Memoised (edge labels repeat the same param
    // names thousands of times); GUI thread only.
    double labelWidth(const QString &text) const;
    // An edge label as drawn: its lines, each shortened in the middle to maxLabelWidth.
    QStringList labelLines(const QString &label) const;
    // The box those lines are drawn in (text plus a small margin): the room the layout
    // reserves for the label, so that what Graphviz places is what the view draws.
    QSizeF labelBoxSize(const QStringList &lines) const;
    // labelBoxSize(labelLines(label)) with the standard style; GUI thread only.
    static QSizeF labelSizeForLayout(const QString &label);
    double nameHeight() const;
    double badgeHeight() const;
};

} // namespace splitscope
