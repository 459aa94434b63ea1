// SPDX-License-Identifier: MIT
#include "GraphWorkspace.h"

#include "GraphStyle.h"
#include "GraphView.h"
#include "SplitGraphScene.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/layout/LayoutController.h"
#include "widgets/panels/LoadErrorBanner.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QAbstractItemView>
#include <QCompleter>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace splitscope {

namespace {

QLabel *caption(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::RichText);
    label->setContentsMargins(8, 3, 8, 3);
    label->setStyleSheet(QStringLiteral("background: #f1f3f5; color: #212529;"));
    return label;
}

} // namespace

GraphWorkspace::GraphWorkspace(SplitDocument *document, TraceCursor *cursor, QWidget *parent)
    : QWidget(parent), m_document(document),
      m_layouts(new LayoutController(document, &GraphStyle::nodeSizes, &GraphStyle::labelSizeForLayout, this)),
      m_scene(new SplitGraphScene(document, m_layouts, cursor, SplitGraphScene::Role::Primary, this)),
      m_comparisonScene(new SplitGraphScene(document, m_layouts, nullptr, SplitGraphScene::Role::Comparison, this)),
      m_view(new GraphView(m_scene, this)), m_comparisonView(new GraphView(m_comparisonScene, this)),
      m_comparisonPane(new QWidget(this)), m_captionA(caption(this)), m_captionB(caption(this)),
      m_banner(new LoadErrorBanner(document, this)), m_search(new QLineEdit(this)), m_searchStatus(new QLabel(this)),
      m_info(new QLabel(this)), m_unitNames(new QStringListModel(this)), m_splitter(new QSplitter(Qt::Horizontal, this))
{
    createActions();

    // Top strip: what is open, and the search field.
    m_info->setTextFormat(Qt::RichText);
    // Long pipeline names must not widen the window: the label gives way to the search field.
    m_info->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_search->setPlaceholderText(tr("Find unit (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(220);
    m_search->setMaximumWidth(320);
    auto *completer = new QCompleter(m_unitNames, this);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_search->setCompleter(completer);
    connect(completer, qOverload<const QString &>(&QCompleter::activated), this,
        [this](const QString &text) { findUnit(text); });
    connect(m_search, &QLineEdit::returnPressed, this, [this]() { findUnit(m_search->text()); });
    m_searchStatus->setMinimumWidth(90);
    m_info->installEventFilter(this); // re-elided on resize
    m_search->installEventFilter(this); // Escape: clear, then leave the box
    // Leaving the box returns to where the user came from (Ctrl+F from the Inspector
    // goes back to the Inspector), not always to the graph.
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget *old, QWidget *now) {
        if (now == m_search && old && old != m_search && old->window() == window())
            m_focusBeforeSearch = old;
    });
    createReadableButton();
    auto *strip = new QHBoxLayout;
    strip->setContentsMargins(8, 4, 8, 4);
    strip->addWidget(m_info, 1);
    strip->addWidget(m_readable);
    strip->addSpacing(12);
    strip->addWidget(m_searchStatus);
    strip->addWidget(m_search);

    // Views: A alone, or A | B.
    auto *paneA = new QWidget(this);
    auto *layoutA = new QVBoxLayout(paneA);
    layoutA->setContentsMargins(0, 0, 0, 0);
    layoutA->setSpacing(0);
    layoutA->addWidget(m_captionA);
    layoutA->addWidget(m_view, 1);
    auto *layoutB = new QVBoxLayout(m_comparisonPane);
    layoutB->setContentsMargins(0, 0, 0, 0);
    layoutB->setSpacing(0);
    layoutB->addWidget(m_captionB);
    layoutB->addWidget(m_comparisonView, 1);
    m_splitter->addWidget(paneA);
    m_splitter->addWidget(m_comparisonPane);
    m_splitter->setChildrenCollapsible(false);
    m_comparisonPane->hide();
    m_captionA->hide();
    m_comparisonScene->setDiffDisplay(SplitGraphScene::DiffDisplay::Marks);
    m_comparisonScene->setActive(false);
    m_comparisonView->setLeader(m_view);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bannerBox = new QVBoxLayout;
    bannerBox->setContentsMargins(8, 6, 8, 0);
    bannerBox->addWidget(m_banner);
    layout->addLayout(bannerBox);
    layout->addLayout(strip);
    layout->addWidget(m_splitter, 1);

    // Side by side: both views move together.
    auto follow = [](GraphView *from, GraphView *to) {
        connect(from, &GraphView::viewportMoved, to, [from, to]() {
            if (from->isVisible() && to->isVisible())
                to->followView(from);
        });
    };
    follow(m_view, m_comparisonView);
    follow(m_comparisonView, m_view);

    connect(m_banner, &LoadErrorBanner::detailsRequested, this, &GraphWorkspace::problemsRequested);
    connect(document, &SplitDocument::pipelineReset, this, &GraphWorkspace::pipelineReset);
    connect(document, &SplitDocument::comparisonChanged, this, &GraphWorkspace::updateCaptions);
    connect(document, &SplitDocument::analysisChanged, this, &GraphWorkspace::updateCaptions);
    connect(m_layouts, &LayoutController::layoutReady, this, &GraphWorkspace::layoutStatus);
    connect(m_scene, &SplitGraphScene::layoutApplied, this, &GraphWorkspace::arrangeComparison);
    connect(m_layouts, &LayoutController::layoutStarted, this, &GraphWorkspace::layoutStatus);
    pipelineReset();
}

GraphWorkspace::~GraphWorkspace()
{
    // Views before the scenes they show (the scenes were made first, so as children
    // they would go first).
    delete m_splitter;
}

void GraphWorkspace::pipelineReset()
{
    // Another pipeline starts without a comparison: no empty pane B beside the graph.
    if (isSideBySide() && m_document->compareKind() == SplitDocument::CompareKind::None)
        setSideBySide(false);
    QStringList names;
    if (m_document->hasPipeline()) {
        const PipelineGraph &graph = m_document->graph();
        for (UnitId u = 0; u < graph.unitCount(); ++u)
            names << nameText(graph.unitName(u));
    }
    m_unitNames->setStringList(names);
    // A search belongs to its pipeline: another pipeline starts with an empty field
    // (a reload of the same one keeps it).
    const PipelineSource &source = m_document->source();
    const QString searchSource = m_document->hasPipeline()
        ? QStringList{source.path, source.exampleName, source.importedFrom}.join(QLatin1Char('\n'))
        : QString();
    if (searchSource != m_searchSource) {
        m_searchSource = searchSource;
        m_search->clear();
        m_lastSearch.clear();
    }
    m_lastFound = kNoUnit;
    m_searchStatus->clear();
    layoutStatus();
    updateCaptions();
}

void GraphWorkspace::layoutStatus()
{
    if (!m_document->hasPipeline()) {
        m_infoName.clear();
        m_infoRest = tr("No pipeline open: File ▸ Open or File ▸ Examples.");
        showInfo();
        return;
    }
    const PipelineGraph &graph = m_document->graph();
    m_infoName = nameText(graph.pipelineName());
    QString rest = tr("%1 · %2, %3")
                       .arg(m_document->source().displayName(),
                           countText(graph.unitCount(), tr("%n unit"), tr("%n units")),
                           countText(graph.paramCount(), tr("%n param"), tr("%n params")));
    const QString prefix = GraphStyle::commonUnitPrefix(graph);
    if (!prefix.isEmpty())
        rest += tr(" · names without %1").arg(prefix);
    const auto layout = m_layouts->layout();
    if (m_layouts->isBusy())
        rest += layout && layout->provisional ? tr(" · quick layout shown, Graphviz dot is working…")
                                              : tr(" · laying out…");
    else if (layout && layout->ok())
        rest += tr(" · dot layout %1 s").arg(layout->seconds, 0, 'f', 2);
    m_infoRest = rest;
    showInfo();
}

void GraphWorkspace::showInfo()
{
    // Rich text cannot be elided by QLabel, so the plain parts are measured here:
    // the name first (bold, itself elided when it alone is too long), then the rest.
    const int width = std::max(0, m_info->contentsRect().width());
    QFont bold = m_info->font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold), metrics(m_info->font());
    const QString name = boldMetrics.elidedText(m_infoName, Qt::ElideMiddle, width);
    const int gap = m_infoName.isEmpty() ? 0 : metrics.horizontalAdvance(QStringLiteral("  "));
    const QString rest = metrics.elidedText(m_infoRest, Qt::ElideRight,
        std::max(0, width - boldMetrics.horizontalAdvance(name) - gap));
    QString html;
    if (!name.isEmpty())
        html = QStringLiteral("<b>%1</b>&nbsp;&nbsp;").arg(name.toHtmlEscaped());
    html += QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::css(theme::Tone::Muted, palette()), rest.toHtmlEscaped());
    m_info->setText(html);
    const QString full = m_infoName.isEmpty() ? m_infoRest : m_infoName + QStringLiteral("  ") + m_infoRest;
    m_info->setToolTip(name != m_infoName || rest != m_infoRest ? full : QString());
}

void GraphWorkspace::createActions()
{
    m_actions.zoomIn = makeAction(this, QStringLiteral(":/splitscope/icons/zoom-in.svg"), tr("Zoom &in"),
        {QKeySequence::ZoomIn});
    m_actions.zoomOut = makeAction(this, QStringLiteral(":/splitscope/icons/zoom-out.svg"), tr("Zoom &out"),
        {QKeySequence::ZoomOut});
    m_actions.zoomFit = makeAction(this, QStringLiteral(":/splitscope/icons/zoom-fit.svg"), tr("Zoom to &fit"),
        {QKeySequence(Qt::CTRL | Qt::Key_0)});
    m_actions.zoomReset = makeAction(this, QString(), tr("Actual &size"), {QKeySequence(Qt::CTRL | Qt::Key_1)});
    m_actions.edgeLabels = makeAction(this, QStringLiteral(":/splitscope/icons/labels.svg"), tr("Edge &labels"),
        {QKeySequence(Qt::CTRL | Qt::Key_L)}, true, true);
    m_actions.chains = makeAction(this, QStringLiteral(":/splitscope/icons/chains.svg"), tr("Update &chains"),
        {QKeySequence(Qt::CTRL | Qt::Key_U)}, true, false);
    m_actions.lineage = makeAction(this, QString(), tr("Highlight up/downstream on click"), {}, true, true);
    m_actions.legend = makeAction(this, QString(), tr("Le&gend"), {}, true, true);
    m_actions.overview = makeAction(this, QString(), tr("&Overview map"), {}, true, true);
    m_actions.find = makeAction(this, QStringLiteral(":/splitscope/icons/search.svg"), tr("&Find unit…"),
        {QKeySequence::Find});
    m_actions.sideBySide = makeAction(this, QString(), tr("Comparison side by &side"), {}, true, false);
    m_actions.chains->setToolTip(tr("Show update chains: each param's rewriters in order (Ctrl+U)"));
    m_actions.stageTwoOnly = makeAction(this, QString(), tr("Stage &two and its neighbours only"),
        {QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_2)}, true, false);
    m_actions.stageTwoOnly->setToolTip(tr("Show only the units of stage two, the loss, and the units they read from "
                                          "or feed (Ctrl+Alt+2): a large graph's trained part"));
    m_actions.directionAuto = makeAction(this, QString(), tr("&Automatic"), {}, true, true);
    m_actions.directionAuto->setToolTip(tr("Top to bottom, or left to right when the graph is much wider than deep"));
    m_actions.directionDown = makeAction(this, QString(), tr("&Top to bottom"), {}, true, false);
    m_actions.directionRight = makeAction(this, QString(), tr("&Left to right"), {}, true, false);
    auto *directions = new QActionGroup(this);
    const std::pair<QAction *, LayoutOptions::Direction> choices[] = {
        {m_actions.directionAuto, LayoutOptions::Direction::Auto},
        {m_actions.directionDown, LayoutOptions::Direction::TopToBottom},
        {m_actions.directionRight, LayoutOptions::Direction::LeftToRight}};
    for (const auto &[action, direction] : choices) {
        directions->addAction(action);
        connect(action, &QAction::triggered, this, [this, direction = direction]() {
            LayoutOptions options = m_layouts->options();
            options.direction = direction;
            m_layouts->setOptions(options);
        });
    }

    connect(m_actions.zoomIn, &QAction::triggered, m_view, &GraphView::zoomIn);
    connect(m_actions.zoomOut, &QAction::triggered, m_view, &GraphView::zoomOut);
    connect(m_actions.zoomFit, &QAction::triggered, m_view, &GraphView::zoomToFit);
    connect(m_actions.zoomReset, &QAction::triggered, m_view, &GraphView::resetZoom);
    connect(m_actions.edgeLabels, &QAction::toggled, this, [this](bool on) {
        LayoutOptions options = m_layouts->options();
        options.edgeLabels = on;
        m_layouts->setOptions(options);
    });
    connect(m_actions.chains, &QAction::toggled, this, [this](bool on) {
        m_scene->setShowChains(on);
        m_comparisonScene->setShowChains(on);
    });
    connect(m_actions.stageTwoOnly, &QAction::toggled, this, [this](bool on) {
        m_scene->setStageTwoFilter(on);
        m_comparisonScene->setStageTwoFilter(on);
        m_view->zoomToFit();
        if (isSideBySide())
            m_comparisonView->zoomToFit();
    });
    connect(m_actions.lineage, &QAction::toggled, this, [this](bool on) {
        m_scene->setHighlightLineage(on);
        m_comparisonScene->setHighlightLineage(on);
    });
    connect(m_actions.legend, &QAction::toggled, this, [this](bool on) {
        m_view->setLegendVisible(on);
    });
    connect(m_actions.overview, &QAction::toggled, this, [this](bool on) {
        m_view->setOverviewEnabled(on);
        m_comparisonView->setOverviewEnabled(on);
    });
    connect(m_actions.find, &QAction::triggered, this, [this]() {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    connect(m_actions.sideBySide, &QAction::toggled, this, &GraphWorkspace::setSideBySide);
}

void GraphWorkspace::createReadableButton()
{
    // Where the fitted graph's names are too small to read, the view says so and offers
    // the zoom at which they read (in the row above it: over the graph it would cover units).
    m_readable = new QToolButton(this);
    m_readable->setObjectName(QStringLiteral("ReadableNamesButton"));
    m_readable->hide();
    connect(m_readable, &QToolButton::clicked, m_view, &GraphView::zoomToReadableNames);
    connect(m_view, &GraphView::zoomChanged, this, &GraphWorkspace::updateReadableButton);
    connect(m_scene, &SplitGraphScene::layoutApplied, this, &GraphWorkspace::updateReadableButton);
}

void GraphWorkspace::updateReadableButton()
{
    const bool small = m_scene->hasGraph() && !m_view->namesReadable();
    if (small) {
        const int readable = static_cast<int>(std::ceil(GraphView::zoomForNamePixels(GraphView::kReadableNamePixels) * 100));
        m_readable->setText(tr("Names too small: zoom to %1 %").arg(readable));
        m_readable->setToolTip(tr("At this zoom the unit names are under %1 px tall, too small to read (and boxes "
                                  "show them shortened or not at all). This zooms to %2 %, where they read, onto the "
                                  "stage-two units; the overview and dragging reach the rest, Fit shows it all.")
                                   .arg(GraphView::kReadableNamePixels)
                                   .arg(readable));
    }
    m_readable->setVisible(small);
}

bool GraphWorkspace::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_info && event->type() == QEvent::Resize)
        showInfo();
    if (watched == m_search && (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride)
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape
        && static_cast<QKeyEvent *>(event)->modifiers() == Qt::NoModifier) {
        // The box takes Escape (no window shortcut gets it): the first clears the text, the
        // next gives the focus back to the widget that had it before the box (else to the
        // graph). An open completion list closes by itself.
        if (m_search->completer() && m_search->completer()->popup()->isVisible())
            return false;
        event->accept();
        if (event->type() == QEvent::ShortcutOverride)
            return true;
        if (!m_search->text().isEmpty()) {
            m_search->clear();
            m_searchStatus->clear();
        } else {
            returnFocus(m_focusBeforeSearch, m_view);
        }
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void GraphWorkspace::updateCaptions()
{
    const bool compare = m_document->comparison() != nullptr;
    m_captionA->setVisible(isSideBySide());
    m_captionA->setText(tr("<b>A</b> &nbsp;%1").arg(nameText(m_document->training().label()).toHtmlEscaped()));
    m_captionB->setText(compare ? tr("<b>B</b> &nbsp;%1").arg(nameText(m_document->comparisonChoice().label()).toHtmlEscaped())
                                : tr("<b>B</b> &nbsp;<i>no comparison chosen (Compare panel)</i>"));
}

bool GraphWorkspace::isSideBySide() const
{
    return m_actions.sideBySide->isChecked();
}

void GraphWorkspace::setSideBySide(bool on)
{
    if (m_actions.sideBySide->isChecked() != on) {
        m_actions.sideBySide->setChecked(on); // comes back here through toggled()
        return;
    }
    m_comparisonScene->setActive(on);
    m_comparisonPane->setVisible(on);
    // One legend for both; a wide graph puts B under A, a tall one beside it.
    m_comparisonView->setLegendVisible(false);
    arrangeComparison();
    m_scene->setDiffDisplay(on ? SplitGraphScene::DiffDisplay::Marks : SplitGraphScene::DiffDisplay::Overlay);
    if (on) {
        const int total = m_splitter->orientation() == Qt::Vertical ? m_splitter->height() : m_splitter->width();
        m_splitter->setSizes({total / 2, total - total / 2});
    }
    updateCaptions();
    Q_EMIT sideBySideChanged(on);
}

void GraphWorkspace::arrangeComparison()
{
    if (!isSideBySide())
        return;
    const QRectF graph = m_scene->graphRect();
    const bool stacked = !graph.isEmpty() && graph.width() / graph.height() > double(width()) / std::max(1, height());
    const Qt::Orientation orientation = stacked ? Qt::Vertical : Qt::Horizontal;
    if (m_splitter->orientation() != orientation) {
        m_splitter->setOrientation(orientation);
        const int total = stacked ? m_splitter->height() : m_splitter->width();
        m_splitter->setSizes({total / 2, total - total / 2});
    }
    m_view->zoomToFit();
    m_comparisonView->followView(m_view);
}

bool GraphWorkspace::findUnit(const QString &text)
{
    const QString needle = text.trimmed();
    if (!m_document->hasPipeline() || needle.isEmpty())
        return false;
    const PipelineGraph &graph = m_document->graph();
    const int n = graph.unitCount();
    // An exact name wins; otherwise cycle through names containing the text.
    UnitId found = graph.findUnit(needle.toStdString());
    int matches = found == kNoUnit ? 0 : 1;
    if (found == kNoUnit) {
        const UnitId start = (needle == m_lastSearch && m_lastFound != kNoUnit) ? m_lastFound + 1 : 0;
        for (int i = 0; i < n; ++i) {
            const UnitId u = (start + i) % n;
            if (nameText(graph.unitName(u)).contains(needle, Qt::CaseInsensitive)) {
                ++matches;
                if (found == kNoUnit)
                    found = u;
            }
        }
    }
    m_lastSearch = needle;
    m_lastFound = found;
    if (found == kNoUnit) {
        m_searchStatus->setText(tr("<span style='color:%1'>no match</span>").arg(theme::css(theme::Tone::Error, palette())));
        return false;
    }
    m_searchStatus->setText(matches > 1 ? tr("%1 matches (Enter: next)").arg(matches) : tr("found"));
    showUnit(found);
    return true;
}

void GraphWorkspace::showUnit(UnitId unit)
{
    m_scene->setFocusedHazard(-1);
    m_document->setCurrentUnit(unit);
    m_view->centerOnUnit(unit);
}

void GraphWorkspace::showHazard(int hazard)
{
    const auto analysis = m_document->analysis();
    if (!analysis || hazard < 0 || hazard >= static_cast<int>(analysis->verification.hazards.size()))
        return;
    const Hazard &h = analysis->verification.hazards[hazard];
    m_document->setCurrentUnit(h.reader);
    m_scene->setFocusedHazard(hazard);
    m_view->centerOnUnit(h.reader);
}

} // namespace splitscope
