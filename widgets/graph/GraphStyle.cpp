// SPDX-License-Identifier: MIT
#include "GraphStyle.h"

#include "core/SplitReport.h"
#include "widgets/common/WidgetHelpers.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <map>

namespace splitscope {

namespace {

constexpr double kNamePointSize = 10.0;   // unit names at 100 % zoom
constexpr double kBadgePointSize = 7.5;   // model badges
constexpr double kStochasticMarkWidth = 14.0; // room for the dice mark of a stochastic unit
constexpr std::size_t kMinPrefixLength = 4;    // "Qw_" is not worth hiding

GraphStyle makeStandard()
{
    GraphStyle s;
    s.nameFont = QFont(QStringLiteral("DejaVu Sans"));
    s.nameFont.setPointSizeF(kNamePointSize);
    s.nameFont.setWeight(QFont::DemiBold);
    s.badgeFont = QFont(QStringLiteral("DejaVu Sans"));
    s.badgeFont.setPointSizeF(kBadgePointSize);
    s.labelFont = QFont(QStringLiteral("DejaVu Sans"));
    s.labelFont.setPointSizeF(kBadgePointSize);
    s.stageOne = QColor(QLatin1String(kStageOneColor));
    s.stageTwo = QColor(QLatin1String(kStageTwoColor));
    s.loss = QColor(QLatin1String(kLossColor));
    s.hazard = QColor(QLatin1String(kHazardColor));
    s.unsplit = QColor(0xf1, 0xf3, 0xf5);
    s.added = QColor(0xe8, 0x59, 0x0c);
    s.cause = QColor(0x19, 0x71, 0xc2);
    s.chain = QColor(0x70, 0x48, 0xe8);
    s.moved = QColor(0x0c, 0xa6, 0x78);
    s.selection = QColor(0x1c, 0x7e, 0xd6);
    s.border = QColor(0x49, 0x50, 0x57);
    s.edge = QColor(0x86, 0x8e, 0x96);
    s.text = QColor(0x21, 0x25, 0x29);
    s.mutedText = QColor(0x49, 0x50, 0x57);
    s.badgeTrainable = QColor(0xd9, 0x48, 0x0f);
    s.background = QColor(0xfc, 0xfc, 0xfd);
    return s;
}

} // namespace

const GraphStyle &GraphStyle::standard()
{
    static const GraphStyle style = makeStandard();
    return style;
}

double GraphStyle::nameHeight() const
{
    return QFontMetricsF(nameFont).height();
}

double GraphStyle::badgeHeight() const
{
    return QFontMetricsF(badgeFont).height() + 4.0;
}

double GraphStyle::labelWidth(const QString &text) const
{
    const auto found = m_labelWidths.constFind(text);
    if (found != m_labelWidths.constEnd())
        return *found;
    const double width = QFontMetricsF(labelFont).horizontalAdvance(text);
    m_labelWidths.insert(text, width);
    return width;
}

QStringList GraphStyle::labelLines(const QString &label) const
{
    QStringList lines = label.split(QLatin1Char('\n'));
    const QFontMetricsF metrics(labelFont);
    for (QString &line : lines) {
        if (labelWidth(line) > maxLabelWidth)
            line = metrics.elidedText(line, Qt::ElideMiddle, maxLabelWidth);
    }
    return lines;
}

QSizeF GraphStyle::labelBoxSize(const QStringList &lines) const
{
    double width = 0;
    for (const QString &line : lines)
        width = std::max(width, labelWidth(line));
    return QSizeF(width + 4, QFontMetricsF(labelFont).height() * lines.size() + 2);
}

QSizeF GraphStyle::labelSizeForLayout(const QString &label)
{
    const GraphStyle &style = standard();
    return style.labelBoxSize(style.labelLines(label));
}

double GraphStyle::badgeWidth(const QString &model) const
{
    return QFontMetricsF(badgeFont).horizontalAdvance(model) + 10.0;
}

QString GraphStyle::commonUnitPrefix(const PipelineGraph &graph)
{
    const int n = graph.unitCount();
    if (n < 2)
        return {};
    // A prefix is worth dropping when it is long enough, leaves every unit that has it
    // a name, and is shown the same (escaping a control character would change its length).
    const auto usable = [&](const std::string &prefix) {
        if (prefix.size() < kMinPrefixLength || nameText(prefix) != QString::fromStdString(prefix))
            return false;
        for (UnitId u = 0; u < n; ++u) {
            const std::string &name = graph.unitName(u);
            if (name.size() <= prefix.size() && name.compare(0, prefix.size(), prefix) == 0)
                return false; // this unit would be left without a name
        }
        return true;
    };
    // The longest prefix of every name, cut after its last underscore.
    std::string common = graph.unitName(0);
    for (UnitId u = 1; u < n && !common.empty(); ++u) {
        const std::string &name = graph.unitName(u);
        std::size_t k = 0;
        while (k < common.size() && k < name.size() && common[k] == name[k])
            ++k;
        common.resize(k);
    }
    const std::size_t cut = common.rfind('_');
    if (cut != std::string::npos) {
        common.resize(cut + 1);
        if (usable(common))
            return QString::fromStdString(common);
    }
    // Else the family prefix ("QwenImageUnit_") of more than half of the units.
    std::map<std::string, int> families;
    for (UnitId u = 0; u < n; ++u) {
        const std::string &name = graph.unitName(u);
        const std::size_t underscore = name.find('_');
        if (underscore != std::string::npos)
            ++families[name.substr(0, underscore + 1)];
    }
    for (const auto &[family, count] : families) {
        if (2 * count > n && usable(family))
            return QString::fromStdString(family);
    }
    return {};
}

std::vector<QSizeF> GraphStyle::nodeSizes(const PipelineGraph &graph)
{
    const QString prefix = commonUnitPrefix(graph);
    std::vector<QSizeF> sizes;
    sizes.reserve(static_cast<std::size_t>(graph.lossId()) + 1);
    for (UnitId u = 0; u <= graph.lossId(); ++u)
        sizes.push_back(standard().nodeSize(graph, u, prefix));
    return sizes;
}

QString GraphStyle::shownName(const PipelineGraph &graph, UnitId unit, const QString &prefix)
{
    const QString name = nameText(graph.unitName(unit));
    if (unit == graph.lossId() || prefix.isEmpty() || !name.startsWith(prefix))
        return name;
    return name.mid(prefix.size());
}

QSizeF GraphStyle::nodeSize(const PipelineGraph &graph, UnitId unit, const QString &prefix) const
{
    const QFontMetricsF nameMetrics(nameFont);
    const QString name = shownName(graph, unit, prefix);
    double width = std::min(nameMetrics.horizontalAdvance(name), maxNameWidth);
    if (unit != graph.lossId() && graph.isStochastic(unit))
        width += kStochasticMarkWidth;
    double height = nameHeight() + 2 * paddingY;
    if (unit != graph.lossId()) {
        const Span<ModelId> models = graph.unitModels(unit);
        if (!models.empty()) {
            double badges = 0;
            for (const ModelId m : models)
                badges += badgeWidth(nameText(graph.modelName(m))) + badgeGap;
            width = std::max(width, badges - badgeGap);
            height += badgeHeight() + badgeGap;
        }
    }
    return QSizeF(std::ceil(width + 2 * paddingX), std::ceil(height));
}

} // namespace splitscope
