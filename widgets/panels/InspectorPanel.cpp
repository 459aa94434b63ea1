// SPDX-License-Identifier: MIT
#include "InspectorPanel.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/models/UnitPortsModel.h"

#include "core/Explain.h"

#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kMinimumHeaderWidth = 120;
constexpr int kMaxHeaderNameChars = 80; // longer names are shortened in the middle in the header
constexpr int kMaxColumnChars = 18; // the param column is never narrower than this, where the view has room

} // namespace

InspectorPanel::InspectorPanel(SplitDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document),
      m_inputs(new UnitPortsModel(document, UnitPortsModel::Side::Inputs, this)),
      m_outputs(new UnitPortsModel(document, UnitPortsModel::Side::Outputs, this)), m_header(new QLabel(this)),
      m_reason(new QTextBrowser(this)), m_tabs(new QTabWidget(this))
{
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The header wraps to the dock's width; a long name must never make the dock (and
    // with it the window) wider: the names in it break anywhere (breakableText).
    m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_header->setMinimumWidth(kMinimumHeaderWidth);
    m_reason->setFrameShape(QFrame::NoFrame);
    showKeyboardFocus(m_reason);
    m_reason->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_reason->setOpenLinks(false);
    m_tabs->addTab(makeTable(m_inputs), tr("Inputs"));
    m_tabs->addTab(makeTable(m_outputs), tr("Outputs"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_header);
    // The explanation is what is read first; at 1366x768 it was cut mid-line at 2:3
    // while the ports table below had rows to spare.
    layout->addWidget(m_reason, 3);
    layout->addWidget(m_tabs, 2);
    connect(document, &SplitDocument::currentUnitChanged, this, &InspectorPanel::refresh);
    connect(document, &SplitDocument::analysisChanged, this, &InspectorPanel::refresh);
    connect(document, &SplitDocument::pipelineReset, this, &InspectorPanel::refresh);
    refresh();
}

QTableView *InspectorPanel::makeTable(UnitPortsModel *model)
{
    auto *table = new QTableView(this);
    table->setModel(model);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->setToolTip(tr("Double-click a row to inspect the producer or reader"));
    table->setTabKeyNavigation(false); // Tab goes on to the next widget; the arrows move between cells
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // A dock is about 360 px wide: cells wrap (a hazard's producers take two lines, a
    // long name breaks after its "_") and rows grow, where elided cells hid the names
    // that matter ("external…oResize)").
    setWrappedCells(table);
    // fit sets every column (a stretched last column keeps the width it had when it
    // became the last, here 100 px, and pushed the table into scrolling).
    table->horizontalHeader()->setStretchLastSection(false);
    const auto fit = [table]() {
        // Widths wanted on one line (resizeColumnsToContents), then shared out: the param
        // column up to 50 % (or kMaxColumnChars characters where the other two leave room:
        // names such as animate_pose_video stay whole), the short last column ("⚠ cache", "cached")
        // up to 30 %, the names in the middle the rest, wrapping where it is not enough.
        QHeaderView *header = table->horizontalHeader();
        if (header->count() < 3 || table->viewport()->width() <= 0)
            return;
        const QAbstractItemView *cells = table; // sizeHintForColumn is public here
        const int view = table->viewport()->width();
        const int chars = table->fontMetrics().averageCharWidth();
        const int param = std::min(cells->sizeHintForColumn(0) + 2 * chars,
            std::max(view * 50 / 100, chars * kMaxColumnChars));
        const int last = std::min(std::max(cells->sizeHintForColumn(2), header->sectionSizeHint(2)) + 2 * chars,
            view * 30 / 100);
        // The three fit the view: a long param name gives way first and wraps at its "_"
        // (animate2_reference_video took 171 of 342 px and pushed the last column out).
        const int middle = view * 25 / 100;
        header->resizeSection(0, std::max(std::min(param, view - middle - last), header->sectionSizeHint(0)));
        header->resizeSection(1, std::max(view - header->sectionSize(0) - last, middle));
        header->resizeSection(2, std::max(view - header->sectionSize(0) - header->sectionSize(1), last));
    };
    connect(model, &QAbstractItemModel::modelReset, table, fit);
    onResize(table->viewport(), fit);
    connect(table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const UnitId peer = index.data(UnitPortsModel::kPeerUnitRole).toInt();
        if (peer != kNoUnit)
            m_document->setCurrentUnit(peer);
    });
    return table;
}

void InspectorPanel::refresh()
{
    const UnitId unit = m_document->currentUnit();
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis || unit == kNoUnit) {
        m_header->setToolTip(QString());
        m_header->setText(tr("<b>No unit selected</b><br><span style='color:%1'>Click a unit in the graph, "
                             "or press Ctrl+F to find one.</span>")
                              .arg(theme::css(theme::Tone::Muted, palette())));
        m_reason->clear();
        m_reason->setFocusPolicy(Qt::NoFocus); // nothing to read: no Tab stop
        m_tabs->setEnabled(false);
        return;
    }
    m_reason->setFocusPolicy(Qt::StrongFocus);
    m_tabs->setEnabled(true);
    const PipelineGraph &graph = m_document->graph();
    const Split &split = analysis->split;
    const auto esc = [](const std::string &name) { return nameText(name).toHtmlEscaped(); }; // names only
    // The header's names can break anywhere (the label must not grow to a long name's width),
    // and a very long one is shortened in the middle (the tooltip has it in full).
    const auto breakable = [](const std::string &name) {
        return breakableText(shortenedInTheMiddle(nameText(name), kMaxHeaderNameChars)).toHtmlEscaped();
    };
    m_header->setToolTip(nameText(graph.unitName(unit)));
    if (unit == graph.lossId()) {
        const QString params = countText(static_cast<qint64>(graph.inputs(unit).size()), tr("%n param"),
            tr("%n params"));
        m_header->setText(tr("<b style='font-size:13pt'>%1</b><br><span style='background:%2;color:%3'>&nbsp;loss&nbsp;"
                             "</span> Runs last in stage two and reads %4.")
                              .arg(breakable(graph.unitName(unit)), QLatin1String(kLossColor), theme::inkOnLightCss(),
                                  params));
        m_reason->setHtml(tr("<p>The loss reads the final value of each of its params. Stage two must produce the "
                             "same values as one-stage training: see the Verifier for reads that differ.</p>"));
        m_tabs->setCurrentIndex(0);
        return;
    }
    const bool trained = split.isTrained(unit);
    QString models;
    for (const ModelId m : graph.unitModels(unit)) {
        const bool needsGrad = std::find(split.models.begin(), split.models.end(), graph.modelName(m))
            != split.models.end();
        // White on the graph's #d9480f is 4.3:1; a shade darker reads at 4.5:1.
        models += needsGrad ? QStringLiteral(" <span style='background:#d2460f;color:white'>&nbsp;%1&nbsp;</span>")
                                  .arg(breakable(graph.modelName(m)))
                            : QStringLiteral(" <span style='background:#f1f3f5;color:%2'>&nbsp;%1&nbsp;</span>")
                                  .arg(breakable(graph.modelName(m)), theme::inkOnLightCss());
    }
    QString header = QStringLiteral("<b style='font-size:13pt'>%1</b><br>").arg(breakable(graph.unitName(unit)));
    // The stage badges have the graph's fills, which stay light in a dark theme: dark ink on them.
    header += trained ? tr("<span style='background:%1;color:%2'>&nbsp;stage two · every training step&nbsp;</span>")
                            .arg(QLatin1String(kStageTwoColor), theme::inkOnLightCss())
                      : tr("<span style='background:%1;color:%2'>&nbsp;stage one · cached&nbsp;</span>")
                            .arg(QLatin1String(kStageOneColor), theme::inkOnLightCss());
    if (std::find(split.x0.begin(), split.x0.end(), unit) != split.x0.end())
        header += tr(" &nbsp;<b>X0</b>");
    header += QStringLiteral("<br>");
    header += models.isEmpty() ? tr("Calls no model.") : tr("Models:%1").arg(models);
    const std::vector<UnitId> &frozen = analysis->verification.frozenRandomness;
    if (graph.isStochastic(unit) && trained)
        header += tr("<br>Stochastic: draws fresh random numbers every step.");
    else if (graph.isStochastic(unit) && std::find(frozen.begin(), frozen.end(), unit) != frozen.end())
        header += tr("<br><span style='color:%1'>Stochastic but cached: its random draws are frozen "
                     "into the cache.</span>")
                      .arg(theme::css(theme::Tone::Hazard, palette()));
    else if (graph.isStochastic(unit))
        header += tr("<br>Stochastic, but nothing it writes reaches stage two: its random draws take no part in "
                     "training.");
    // What its process() does beyond the declaration (read from the source by the importer).
    for (const DeclarationFinding &f : analysis->verification.findings) {
        if (f.unit != unit)
            continue;
        const QString place = QString::fromStdString(findingPlace(f)).toHtmlEscaped();
        const QString name = breakable(f.name);
        QString line;
        switch (f.kind) {
        case DeclarationFinding::Kind::UndeclaredModel:
            line = f.hazard ? tr("calls %1, not declared: %2 — its gradients through this unit are lost").arg(name, place)
                            : tr("uses %1, not declared: %2").arg(name, place);
            break;
        case DeclarationFinding::Kind::UndeclaredOutput: line = tr("returns %1, not declared: %2").arg(name, place); break;
        case DeclarationFinding::Kind::UnreturnedOutput: line = tr("never returns its output %1").arg(name); break;
        case DeclarationFinding::Kind::UndeclaredRead: line = tr("reads %1, not declared: %2").arg(name, place); break;
        }
        header += QStringLiteral("<br><span style='color:%1'>⚠ %2</span>")
                      .arg(theme::css(f.hazard ? theme::Tone::Hazard : theme::Tone::Warning, palette()), line);
    }
    const int position = unit + 1;
    header += tr("<br><span style='color:%3'>Unit %1 of %2 in pipeline order.</span>")
                  .arg(position)
                  .arg(graph.unitCount())
                  .arg(theme::css(theme::Tone::Muted, palette()));
    m_header->setText(header);

    const Explanation explanation = explainUnit(graph, split, unit);
    QString html = QStringLiteral("<p><b>%1</b></p>")
                       .arg(QString::fromStdString(explanation.lines.front()).toHtmlEscaped());
    // explainUnit numbers the trained chain itself ("1. ..."), lists a stage-one unit's
    // reasons as "- ..." and may add a heading with "- ..." items after the chain
    // ("What the verifier reports at C:"). The HTML lists number and bullet them again.
    QString openList; // "ol", "ul" or empty
    for (std::size_t i = 1; i < explanation.lines.size(); ++i) {
        QString line = QString::fromStdString(explanation.lines[i]);
        QString list;
        const int dot = line.indexOf(QStringLiteral(". "));
        bool numbered = dot > 0 && dot < 4;
        for (int c = 0; numbered && c < dot; ++c)
            numbered = line.at(c).isDigit();
        if (numbered) {
            list = QStringLiteral("ol");
            line = line.mid(dot + 2);
        } else if (line.startsWith(QStringLiteral("- "))) {
            list = trained ? QStringLiteral("ul") : QStringLiteral("ol");
            line = line.mid(2);
        }
        if (list != openList) {
            if (!openList.isEmpty())
                html += QStringLiteral("</%1>").arg(openList);
            if (!list.isEmpty())
                html += QStringLiteral("<%1 style='margin-left:-18px'>").arg(list);
            openList = list;
        }
        html += list.isEmpty() ? QStringLiteral("<p><b>%1</b></p>").arg(line.toHtmlEscaped())
                               : QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
    }
    if (!openList.isEmpty())
        html += QStringLiteral("</%1>").arg(openList);
    QStringList hazards;
    for (const Hazard &h : analysis->verification.hazards) {
        if (h.reader != unit && h.expected != unit && h.actual != unit)
            continue;
        auto name = [&](UnitId u) {
            return u == kNoUnit ? tr("the external input") : nameText(graph.unitName(u)).toHtmlEscaped();
        };
        hazards << tr("<li><b>%1</b>: %2 reads <i>%3</i> and sees %4's value; one-stage training gives it %5's.</li>")
                       .arg(QString::fromLatin1(hazardKindName(h.kind)),
                           h.reader == graph.lossId() ? tr("the loss") : name(h.reader),
                           esc(graph.paramName(h.param)), name(h.actual), name(h.expected));
    }
    if (!hazards.isEmpty())
        html += tr("<p style='color:%2'><b>Hazards touching this unit</b></p><ul style='margin-left:-18px'>%1</ul>")
                    .arg(hazards.join(QString()), theme::css(theme::Tone::Hazard, m_reason->palette()));
    m_reason->setHtml(html);
}

QString InspectorPanel::headerText() const
{
    return plainTextOf(m_header->text());
}

QString InspectorPanel::reasonText() const
{
    return m_reason->toPlainText();
}

} // namespace splitscope
