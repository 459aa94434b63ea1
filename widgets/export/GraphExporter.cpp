// SPDX-License-Identifier: MIT
#include "GraphExporter.h"

#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/graph/GraphLegend.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/SplitGraphScene.h"

#include "core/AtomicFile.h"

#include <QBuffer>
#include <QImage>
#include <QGraphicsItem>
#include <QPainter>
#include <QSignalBlocker>
#include <QSvgGenerator>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kMaxPngSide = 16000; // pixels; larger images fail to allocate or open
constexpr double kMargin = 16.0;   // scene units around the drawing in exports

bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

bool writeBytes(const QString &path, const QByteArray &bytes, QString *error)
{
    std::string why;
    if (!writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), bytes.size()), &why))
        return fail(error, QString::fromStdString(why));
    return true;
}

// The picture of every export: background, the graph, the legend under it.
QSizeF pictureSize(const SplitGraphScene &scene)
{
    const QRectF graph = scene.graphRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
    const QSizeF legend = GraphLegend(scene.legendContext()).size();
    return QSizeF(std::max(graph.width(), legend.width() + 2 * kMargin), graph.height() + legend.height() + kMargin);
}

// While an export paints, the scene draws the split itself: no lineage fading or
// hazard emphasis of the current selection, no selection frame, and a comparison
// shown as the overlay does (B's stage painted into each box), since an export has
// no pane B next to it: the legend's "moved" entries then match what is drawn.
// Everything is put back afterwards, without the document seeing a new selection.
class ExportLook {
public:
    explicit ExportLook(SplitGraphScene &scene)
        : m_scene(scene), m_lineage(scene.highlightLineage()), m_diff(scene.diffDisplay()),
          m_hazard(scene.focusedHazard()), m_selected(scene.selectedItems())
    {
        const QSignalBlocker block(&m_scene); // the document keeps its current unit
        for (QGraphicsItem *item : m_selected)
            item->setSelected(false);
        m_scene.setHighlightLineage(false);
        if (m_hazard >= 0)
            m_scene.setFocusedHazard(-1);
        if (m_diff == SplitGraphScene::DiffDisplay::Marks)
            m_scene.setDiffDisplay(SplitGraphScene::DiffDisplay::Overlay);
    }
    ~ExportLook()
    {
        const QSignalBlocker block(&m_scene);
        m_scene.setDiffDisplay(m_diff);
        if (m_hazard >= 0)
            m_scene.setFocusedHazard(m_hazard);
        m_scene.setHighlightLineage(m_lineage);
        for (QGraphicsItem *item : m_selected)
            item->setSelected(true);
    }
    ExportLook(const ExportLook &) = delete;
    ExportLook &operator=(const ExportLook &) = delete;

private:
    SplitGraphScene &m_scene;
    bool m_lineage;
    SplitGraphScene::DiffDisplay m_diff;
    int m_hazard;
    QList<QGraphicsItem *> m_selected;
};

// (with an ExportLook in place: it sets what the legend lists)
void paintPicture(SplitGraphScene &scene, QPainter *painter, double scale)
{
    const QRectF graph = scene.graphRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
    const QSizeF size = pictureSize(scene);
    painter->fillRect(QRectF(QPointF(0, 0), size * scale), GraphStyle::standard().background);
    scene.render(painter, QRectF(0, 0, graph.width() * scale, graph.height() * scale), graph);
    painter->save();
    painter->scale(scale, scale);
    GraphLegend(scene.legendContext()).paint(painter, QPointF(kMargin, graph.height()));
    painter->restore();
}

} // namespace

namespace GraphExporter {

bool writePng(SplitGraphScene &scene, const QString &path, QString *error, double scale)
{
    if (!scene.hasGraph())
        return fail(error, QStringLiteral("%1: nothing to export (no graph is laid out)").arg(path));
    const ExportLook look(scene);
    const QSizeF size = pictureSize(scene);
    scale = std::min(scale, kMaxPngSide / std::max(size.width(), size.height()));
    QImage image((size * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return fail(error, QStringLiteral("%1: cannot allocate a %2x%3 image").arg(path).arg(size.width() * scale).arg(
                               size.height() * scale));
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        paintPicture(scene, &painter, scale);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        return fail(error, QStringLiteral("%1: PNG encoding failed").arg(path));
    return writeBytes(path, bytes, error);
}

bool writeSvg(SplitGraphScene &scene, const QString &path, QString *error)
{
    if (!scene.hasGraph())
        return fail(error, QStringLiteral("%1: nothing to export (no graph is laid out)").arg(path));
    const ExportLook look(scene);
    const QSizeF size = pictureSize(scene);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size.toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), size));
    svg.setTitle(QStringLiteral("Splitscope: %1").arg(scene.document()->hasPipeline()
            ? QString::fromStdString(scene.document()->graph().pipelineName())
            : QString()));
    svg.setDescription(nameText(scene.document()->training().label()));
    {
        QPainter painter(&svg);
        if (!painter.isActive())
            return fail(error, QStringLiteral("%1: SVG rendering failed").arg(path));
        paintPicture(scene, &painter, 1.0);
    }
    return writeBytes(path, bytes, error);
}

bool writeDot(const SplitDocument &document, const QString &path, QString *error, bool edgeLabels)
{
    const auto analysis = document.hasPipeline() ? document.analysis() : nullptr;
    if (!analysis)
        return fail(error, QStringLiteral("%1: nothing to export (no split yet)").arg(path));
    DotOptions options;
    options.edgeLabels = edgeLabels;
    const std::string dot = splitToDot(document.graph(), *analysis, options);
    return writeBytes(path, QByteArray::fromStdString(dot), error);
}

bool writeSplitJson(const SplitDocument &document, const QString &path, QString *error)
{
    const auto analysis = document.hasPipeline() ? document.analysis() : nullptr;
    if (!analysis)
        return fail(error, QStringLiteral("%1: nothing to export (no split yet)").arg(path));
    std::optional<Explanation> explanation;
    const UnitId unit = document.currentUnit();
    if (unit != kNoUnit && unit < document.graph().unitCount())
        explanation = explainUnit(document.graph(), analysis->split, unit);
    std::string json = splitToJson(document.graph(), *analysis, explanation);
    json += '\n';
    return writeBytes(path, QByteArray::fromStdString(json), error);
}

} // namespace GraphExporter

} // namespace splitscope
