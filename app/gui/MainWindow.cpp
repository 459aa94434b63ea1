// SPDX-License-Identifier: MIT
#include "MainWindow.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/PipelineFileWatcher.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/export/GraphExporter.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/layout/GraphLayout.h"
#include "widgets/layout/LayoutController.h"
#include "widgets/panels/ComparePanel.h"
#include "widgets/panels/InspectorPanel.h"
#include "widgets/panels/ParamsPanel.h"
#include "widgets/panels/ProblemsPanel.h"
#include "widgets/panels/StepperPanel.h"
#include "widgets/panels/TrainingPanel.h"
#include "widgets/panels/VerifierPanel.h"
#include "widgets/run/ExecutablePipeline.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunHistory.h"
#include "widgets/run/RunHistoryPanel.h"
#include "widgets/run/RunMonitor.h"
#include "widgets/run/RunPanel.h"
#include "widgets/run/RunningUnitMarker.h"
#ifdef SPLITSCOPE_HAVE_PLAN
#include "widgets/plan/PlanController.h"
#include "widgets/plan/PlanDialog.h"
#include "widgets/plan/PlanPanel.h"
#include "widgets/plan/PlanRunner.h"
#endif

#include "resources/Examples.h"

#ifdef SPLITSCOPE_HAVE_IMPORTER
#include "core/importer/DiffSynthImporter.h"
#endif

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSlider>
#include <QSettings>

#include "PanelSideBar.h"
#include "widgets/run/SamplesPanel.h"
#include <QShortcut>
#include <QStatusBar>
#include <QTabBar>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace splitscope {

namespace {

constexpr int kMaxRecentFiles = 10;
constexpr int kStatusMessageMs = 6000;
constexpr int kFoldRightPanelsBelow = 1500; // window widths (px) that start with the right panels folded
constexpr int kPresentationNamePixels = 10; // unit names on screen in presentation mode, at least
constexpr int kCloseWaitMs = 10000; // a cancelled worker finishes its step and saves before the window goes
constexpr int kMaxFocusSkips = 1000; // Tab passes over at most this many off-screen widgets

// A toolbar or menu icon, drawn in the palette's button text (theme::icon).
QIcon icon(const char *name)
{
    return theme::icon(QStringLiteral(":/splitscope/icons/%1.svg").arg(QLatin1String(name)));
}

// A dock's content, scrolled when the dock is smaller than the panel's minimum. A
// dock otherwise cannot shrink below its panel's minimum, and the window's minimum
// is then the sum of the widest panels (about 1100x670, more than a 1280x800 screen
// holds at a 125 % scale). The hint stays the panel's own, so that the docks open
// at the sizes the panels ask for.
class DockScrollArea : public QScrollArea {
public:
    DockScrollArea(QWidget *panel, QWidget *parent) : QScrollArea(parent)
    {
        setFrameShape(QFrame::NoFrame);
        setWidgetResizable(true);
        setFocusPolicy(Qt::NoFocus); // Tab goes to the panel's fields (the area scrolls to them)
        // The panel sits in a layout that hides its height-for-width: a scroll area
        // would otherwise keep a panel with wrapped text at its preferred height and
        // scroll it whole, where its tables should shrink and scroll on their own.
        auto *holder = new QWidget(this);
        auto *layout = new FixedHeightBoxLayout(holder);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(panel);
        setWidget(holder);
    }
    QSize sizeHint() const override { return widget()->sizeHint(); }
    QSize minimumSizeHint() const override { return QSize(kMinimumSide, kMinimumSide); }

private:
    class FixedHeightBoxLayout : public QVBoxLayout {
    public:
        using QVBoxLayout::QVBoxLayout;
        bool hasHeightForWidth() const override { return false; }
    };
    static constexpr int kMinimumSide = 60;
};

} // namespace

MainWindow::MainWindow(bool persistent, QWidget *parent)
    : QMainWindow(parent), m_persistent(persistent), m_document(new SplitDocument(this)),
      m_cursor(new TraceCursor(m_document, this)), m_watcher(new PipelineFileWatcher(m_document, this)),
      m_workspace(new GraphWorkspace(m_document, m_cursor, this)), m_runController(new RunController(this)),
      m_runHistory(new RunHistory(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/splitscope/icons/splitscope.svg"))); // the app's own colors
    setAcceptDrops(true);
    setCentralWidget(m_workspace);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    createDocks();
    createActions();
    m_status = new QLabel(this);
    statusBar()->addPermanentWidget(m_status);

    connect(m_document, &SplitDocument::pipelineReset, this, &MainWindow::pipelineReset);
    connect(m_document, &SplitDocument::analysisChanged, this, &MainWindow::updateStatus);
    connect(m_document, &SplitDocument::loadFailed, this, [this](const QString &source) {
        statusBar()->showMessage(m_document->hasPipeline()
                ? tr("Could not load %1; the open pipeline is unchanged").arg(source)
                : tr("Could not load %1").arg(source),
            kStatusMessageMs);
    });
    connect(m_watcher, &PipelineFileWatcher::reloaded, this, [this](const QString &path, bool ok) {
        const QString name = QFileInfo(path).fileName();
        if (ok) {
            statusBar()->showMessage(tr("Reloaded %1 after it changed on disk").arg(name), kStatusMessageMs);
            return;
        }
        // What is still shown: the last good version of this file, another pipeline, or nothing.
        const QString kept = !m_document->hasPipeline() ? QString()
            : m_document->source().path == path
            ? tr("; still showing the last good version")
            : tr("; still showing %1").arg(m_document->source().displayName());
        statusBar()->showMessage(QFileInfo::exists(path) ? tr("%1 changed on disk but has errors%2").arg(name, kept)
                                                         : tr("%1 was deleted or moved%2").arg(name, kept),
            kStatusMessageMs);
    });
    connect(m_workspace, &GraphWorkspace::problemsRequested, this, [this]() {
        m_problemsDock->show();
        m_problemsDock->raise();
    });
    connect(m_workspace->scene(), &SplitGraphScene::unitActivated, this, [this](UnitId) {
        if (auto *dock = findChild<QDockWidget *>(QStringLiteral("InspectorDock"))) {
            dock->show();
            dock->raise();
        }
    });
    connect(m_verifier, &VerifierPanel::hazardRequested, m_workspace, &GraphWorkspace::showHazard);
    connect(m_verifier, &VerifierPanel::unitRequested, m_workspace, &GraphWorkspace::showUnit);
    connect(m_compare, &ComparePanel::sideBySideChanged, m_workspace, &GraphWorkspace::setSideBySide);
    connect(m_workspace, &GraphWorkspace::sideBySideChanged, m_compare, &ComparePanel::setSideBySide);
    connect(m_stepper, &StepperPanel::presentationModeChanged, this, &MainWindow::setPresentationMode);
    // In presentation mode the graph may be larger than the view: it shows each step.
    connect(m_cursor, &TraceCursor::positionChanged, this, [this]() {
        if (m_presentation && m_workspace->view()->isFitted())
            m_workspace->view()->zoomToFit();
    });
    // Escape leaves presentation mode (as F5 does). Enabled only then: otherwise the
    // widgets take it (the Find box clears, the graph drops its selection).
    m_leavePresentation = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    m_leavePresentation->setEnabled(false);
    connect(m_leavePresentation, &QShortcut::activated, this, [this]() {
        if (m_presentation)
            setPresentationMode(false);
    });
    // F6 and Shift+F6 move between the graph and the panels (Tab moves within them).
    auto *nextPane = new QShortcut(QKeySequence(Qt::Key_F6), this);
    connect(nextPane, &QShortcut::activated, this, [this]() { focusNextPane(true); });
    auto *previousPane = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F6), this);
    connect(previousPane, &QShortcut::activated, this, [this]() { focusNextPane(false); });
    // A comparison that starts (from the menu, the command line or the panel) shows its panel.
    connect(m_document, &SplitDocument::comparisonChanged, this, [this]() {
        const bool comparing = m_document->comparison() != nullptr;
        if (comparing && !m_wasComparing)
            showDock(QStringLiteral("CompareDock"));
        m_wasComparing = comparing;
    });
    connect(m_workspace->layouts(), &LayoutController::layoutReady, this, &MainWindow::updateStatus);
    connect(m_run, &RunPanel::launched, this, &MainWindow::runLaunched);
    connect(m_runController, &RunController::launchFinished, this, &MainWindow::runFinished);
    // Each stage's own command (stage two's replaces stage one's).
    connect(m_runController, &RunController::stageStarted, this, [this]() {
        statusBar()->showMessage(tr("Started: %1").arg(m_runController->currentCommand()), kStatusMessageMs);
    });
    connect(m_run, &RunPanel::message, this,
        [this](const QString &message) { statusBar()->showMessage(message, kStatusMessageMs); });
    connect(m_run, &RunPanel::toolFinished, this, [this](bool ok, const QString &message) {
        statusBar()->showMessage(ok ? message : tr("Failed: %1").arg(message), kStatusMessageMs);
    });

    resize(1500, 940);
    if (m_persistent)
        readSettings();
    pipelineReset();
}

MainWindow::~MainWindow()
{
    // Every view observes the document: they go first (as children they would go
    // after it, in the order they were made).
    delete m_workspace;
    qDeleteAll(findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly));
}

QDockWidget *MainWindow::addPanel(QWidget *panel, const QString &title, const QString &objectName,
    Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(new DockScrollArea(panel, dock));
    dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable
        | QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createDocks()
{
    m_training = new TrainingPanel(m_document, this);
    m_stepper = new StepperPanel(m_document, m_cursor, this);
    m_inspector = new InspectorPanel(m_document, this);
    m_verifier = new VerifierPanel(m_document, this);
    m_params = new ParamsPanel(m_document, this);
    m_compare = new ComparePanel(m_document, this);
    m_problems = new ProblemsPanel(m_document, this);
    m_run = new RunPanel(m_document, m_runController, this);
    m_monitor = new RunMonitor(m_runController, this);
    m_historyPanel = new RunHistoryPanel(m_runHistory, this);
    m_run->setHistory(m_runHistory); // Resume after a restart: the history's last launch
    m_monitor->setHistory(m_runHistory); // and the monitor shows it until the next launch
    m_runningUnit = new RunningUnitMarker(m_runController, m_document, m_workspace->scene(), this);

    // Each dock joins its tab group as soon as it is added: docks side by side for a
    // moment would make the window's minimum width their sum.
    QDockWidget *training = addPanel(m_training, tr("Training configuration"), QStringLiteral("TrainingDock"),
        Qt::LeftDockWidgetArea);
    QDockWidget *run = addPanel(m_run, tr("Run"), QStringLiteral("RunDock"), Qt::LeftDockWidgetArea);
    tabifyDockWidget(training, run);
    QDockWidget *inspector = addPanel(m_inspector, tr("Inspector"), QStringLiteral("InspectorDock"),
        Qt::RightDockWidgetArea);
    QDockWidget *verifier = addPanel(m_verifier, tr("Verifier"), QStringLiteral("VerifierDock"),
        Qt::RightDockWidgetArea);
    QDockWidget *params = addPanel(m_params, tr("Params"), QStringLiteral("ParamsDock"), Qt::RightDockWidgetArea);
    // Short titles: they are the tabs of the bottom docks, five in a row under the graph.
    m_stepperDock = addPanel(m_stepper, tr("Stepper"), QStringLiteral("StepperDock"), Qt::BottomDockWidgetArea);
    m_stepperDock->setToolTip(tr("The fixed point, step by step"));
    QDockWidget *compare = addPanel(m_compare, tr("Compare splits"), QStringLiteral("CompareDock"),
        Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_stepperDock, compare);
    m_problemsDock = addPanel(m_problems, tr("Problems"), QStringLiteral("ProblemsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(compare, m_problemsDock);
    m_monitorDock = addPanel(m_monitor, tr("Run monitor"), QStringLiteral("RunMonitorDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_problemsDock, m_monitorDock);
    QDockWidget *history = addPanel(m_historyPanel, tr("Run history"), QStringLiteral("RunHistoryDock"),
        Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_monitorDock, history);
    m_samples = new SamplesPanel(m_runController, this);
    QDockWidget *samples = addPanel(m_samples, tr("Samples"), QStringLiteral("SamplesDock"), Qt::BottomDockWidgetArea);
    samples->setToolTip(tr("Images drawn with each epoch's LoRA during training"));
    tabifyDockWidget(history, samples);
#ifdef SPLITSCOPE_HAVE_PLAN
    m_planController = new PlanController(m_document, this);
    m_planPanel = new PlanPanel(m_planController, this);
    // Next to Run: both run training, one with Splitscope's engine, one with DiffSynth's commands.
    QDockWidget *planDock = addPanel(m_planPanel, tr("Plan"), QStringLiteral("PlanDock"), Qt::LeftDockWidgetArea);
    tabifyDockWidget(run, planDock);
    planDock->setToolTip(tr("The two commands of split training for a DiffSynth-Studio command"));
    planDock->hide(); // until File ▸ Plan DiffSynth training
    connect(m_planController, &PlanController::planChanged, this, [this] {
        const auto plan = m_planController->current();
        statusBar()->showMessage(tr("Planned %1: stage one runs %2, stage two %3")
                                     .arg(QString::fromStdString(plan->pipeline),
                                         countText(static_cast<qint64>(plan->stageOne.units.size()), tr("%n unit"), tr("%n units")),
                                         countText(static_cast<qint64>(plan->stageTwo.units.size()), tr("%n unit"), tr("%n units"))),
            kStatusMessageMs);
    });
    connect(m_planController, &PlanController::planFailed, this, [this] {
        statusBar()->showMessage(tr("No plan: the Plan panel says why"), kStatusMessageMs);
    });
#endif
    splitDockWidget(inspector, verifier, Qt::Vertical);
    tabifyDockWidget(verifier, params);
    verifier->raise();
    training->raise();
    m_stepperDock->raise();
    QList<QDockWidget *> left = {training, run};
#ifdef SPLITSCOPE_HAVE_PLAN
    left.append(planDock);
#endif
    m_leftBar = new PanelSideBar(this, Qt::LeftDockWidgetArea, left);
    m_rightBar = new PanelSideBar(this, Qt::RightDockWidgetArea, {inspector, verifier, params});
    resizeDocksToDefaults();
    keepDockTabsWhole();
    // The dock area corners: the bottom panels span under the training panel, not the inspector.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

void MainWindow::keepDockTabsWhole()
{
    // Tabs too narrow for their titles scroll instead of eliding: elided, "Run monitor"
    // and "Run history" both read "R…" (at 1280 px and a 200 % scale). The main window
    // makes the dock tab bars as docks are tabified, also on restoreState.
    for (QTabBar *bar : findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
    }
}

bool MainWindow::event(QEvent *event)
{
    if (event->type() == QEvent::ChildPolished && qobject_cast<QTabBar *>(static_cast<QChildEvent *>(event)->child()))
        keepDockTabsWhole();
    return QMainWindow::event(event);
}

bool MainWindow::focusNextPrevChild(bool next)
{
    // Qt keeps a dock that is behind another's tab visible, moved out of the window:
    // Tab walked through the 40-odd fields of those docks with the focus nowhere to
    // be seen. Such widgets are passed over (Qt's own walk, repeated).
    QWidget *start = QApplication::focusWidget();
    for (int i = 0; i < kMaxFocusSkips; ++i) {
        if (!QMainWindow::focusNextPrevChild(next))
            return false;
        QWidget *now = QApplication::focusWidget();
        if (!now || now == start || onScreen(now))
            break;
    }
    return true;
}

bool MainWindow::onScreen(const QWidget *widget) const
{
    for (const QWidget *w = widget; w && w != this; w = w->parentWidget()) {
        if (const auto *dock = qobject_cast<const QDockWidget *>(w)) {
            return dock->isFloating() || QRect(dock->mapTo(this, QPoint(0, 0)), dock->size()).intersects(rect());
        }
    }
    return true;
}

void MainWindow::focusNextPane(bool next)
{
    // The panes and the widget of each that takes the focus.
    QWidget *view = m_workspace->view();
    QList<QPair<QWidget *, QWidget *>> panes{{m_workspace, view}};
    QList<QDockWidget *> docks;
    for (QDockWidget *dock : findChildren<QDockWidget *>()) {
        if (dock->isVisible() && onScreen(dock))
            docks.push_back(dock);
    }
    const auto position = [this](const QDockWidget *dock) {
        const QPoint at = dock->isFloating() ? dock->pos() + QPoint(0, 100000) : dock->mapTo(this, QPoint(0, 0));
        return qMakePair(at.y(), at.x());
    };
    std::stable_sort(docks.begin(), docks.end(),
        [&position](const QDockWidget *a, const QDockWidget *b) { return position(a) < position(b); });
    for (QDockWidget *dock : docks) {
        // The stepper's slider (its arrow keys step), else the first widget Tab reaches
        // inside the dock, in the window's focus chain.
        QWidget *first = dock == m_stepperDock && m_stepper->slider()->isEnabled() ? m_stepper->slider() : nullptr;
        int guard = 0;
        for (QWidget *w = dock->nextInFocusChain(); !first && w != dock && guard < 10000;
             w = w->nextInFocusChain(), ++guard) {
            if (dock->isAncestorOf(w) && w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus)) {
                first = w;
                break;
            }
        }
        if (first)
            panes.push_back({dock, first});
    }
    // The pane that holds the focus now (none: start before the graph).
    QWidget *focus = QApplication::focusWidget();
    int current = next ? -1 : 0;
    for (int i = 0; i < panes.size(); ++i) {
        if (focus && (focus == panes[i].first || panes[i].first->isAncestorOf(focus))) {
            current = i;
            break;
        }
    }
    const int count = static_cast<int>(panes.size());
    const int target = ((current + (next ? 1 : -1)) % count + count) % count;
    // As a shortcut's focus, so that the styles draw it (they draw keyboard focus only).
    panes[target].second->setFocus(Qt::ShortcutFocusReason);
}

void MainWindow::resizeDocksToDefaults()
{
    auto *inspector = findChild<QDockWidget *>(QStringLiteral("InspectorDock"));
    auto *verifier = findChild<QDockWidget *>(QStringLiteral("VerifierDock"));
    auto *training = findChild<QDockWidget *>(QStringLiteral("TrainingDock"));
    resizeDocks({inspector, verifier}, {520, 300}, Qt::Vertical);
    // The side columns take a fifth of the window each, within their readable widths:
    // on a 1366 px laptop the graph gets 56 % of the width (it had 45 %, with 390 and
    // 360 px columns), on a 1920 px screen they are as wide as before.
    const int side = width() / 5;
    resizeDocks({inspector, training}, {std::clamp(side, 260, 360), std::clamp(side, 320, 390)}, Qt::Horizontal);
    resizeDocks({m_stepperDock}, {230}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_shown && m_defaultDockSizes) {
        resizeDocksToDefaults(); // for the size the window is shown at (--size, a small screen)
        // A laptop's width goes to the graph: the inspector and the verifier wait in
        // their side bar (the training panel's summary says whether there are hazards).
        if (width() < kFoldRightPanelsBelow)
            m_rightBar->fold();
    }
    m_shown = true;
}

bool MainWindow::fitIntoScreen()
{
    QScreen *screen = QGuiApplication::screenAt(geometry().center());
    if (!screen)
        screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return false;
    const QRect available = screen->availableGeometry();
    const QRect before = geometry();
    QRect fitted(before.topLeft(), before.size().boundedTo(available.size()).expandedTo(minimumSizeHint()));
    if (fitted.right() > available.right())
        fitted.moveRight(available.right());
    if (fitted.bottom() > available.bottom())
        fitted.moveBottom(available.bottom());
    if (fitted.left() < available.left())
        fitted.moveLeft(available.left());
    if (fitted.top() < available.top())
        fitted.moveTop(available.top());
    if (fitted == before)
        return false;
    setGeometry(fitted);
    return true;
}

void MainWindow::createActions()
{
    const GraphWorkspace::Actions &view = m_workspace->actions();

    // File
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(icon("open"), tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QMenu *examples = file->addMenu(tr("&Examples"));
    rebuildExamplesMenu(examples);
#ifdef SPLITSCOPE_HAVE_IMPORTER
    QAction *import = file->addAction(tr("&Import DiffSynth source…"), this, &MainWindow::importDiffSynth);
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    import->setToolTip(tr("Read a DiffSynth-Studio pipeline (.py file or folder) into a pipeline description"));
#endif
#ifdef SPLITSCOPE_HAVE_PLAN
    QAction *planAction = file->addAction(tr("&Plan DiffSynth training…"), this, &MainWindow::planDiffSynth);
    planAction->setToolTip(tr("Turn a one-stage DiffSynth-Studio training command into the two stage commands"));
#endif
    file->addSeparator();
    QAction *reload = file->addAction(icon("reload"), tr("Re&load"), this, [this]() { m_document->reload(); });
    reload->setShortcut(QKeySequence(Qt::Key_F5 | Qt::SHIFT));
    QAction *watch = file->addAction(tr("Reload when the file &changes"));
    watch->setCheckable(true);
    watch->setChecked(m_watcher->isEnabled());
    connect(watch, &QAction::toggled, m_watcher, &PipelineFileWatcher::setEnabled);
    QAction *saveAs = file->addAction(tr("&Save pipeline as…"), this, &MainWindow::saveAs);
    saveAs->setShortcut(QKeySequence::SaveAs);
    QMenu *exportMenu = file->addMenu(icon("export"), tr("&Export"));
    exportMenu->addAction(tr("Graph as &PNG…"), this, [this]() { exportAs(QStringLiteral("png")); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportMenu->addAction(tr("Graph as &SVG…"), this, [this]() { exportAs(QStringLiteral("svg")); });
    exportMenu->addAction(tr("Split as Graphviz &DOT…"), this, [this]() { exportAs(QStringLiteral("dot")); });
    exportMenu->addAction(tr("Split as &JSON (splitscope.split/1)…"), this,
        [this]() { exportAs(QStringLiteral("json")); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    // View
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addActions({view.zoomIn, view.zoomOut, view.zoomFit, view.zoomReset});
    m_viewMenu->addSeparator();
    m_viewMenu->addActions({view.edgeLabels, view.chains, view.lineage, view.stageTwoOnly, view.legend, view.overview,
        view.sideBySide});
    QMenu *direction = m_viewMenu->addMenu(tr("Layout &direction"));
    direction->addActions({view.directionAuto, view.directionDown, view.directionRight});
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(view.find);
    m_viewMenu->addSeparator();
    QMenu *panels = m_viewMenu->addMenu(tr("&Panels"));
    m_leftBar->foldAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_BracketLeft));
    m_rightBar->foldAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_BracketRight));
    addAction(m_leftBar->foldAction());
    addAction(m_rightBar->foldAction());
    panels->addActions({m_leftBar->foldAction(), m_rightBar->foldAction()});
    panels->addSeparator();
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        panels->addAction(dock->toggleViewAction());

    // Split
    QMenu *split = menuBar()->addMenu(tr("&Split"));
    auto *modes = new QActionGroup(this);
    QAction *seed = split->addAction(tr("&Seed (DiffSynth's algorithm)"));
    QAction *safe = split->addAction(tr("S&afe (hazard-free closure)"));
    for (QAction *a : {seed, safe}) {
        a->setCheckable(true);
        modes->addAction(a);
    }
    seed->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    safe->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    connect(seed, &QAction::triggered, this, [this]() { m_document->setSplitMode(SplitMode::Seed); });
    connect(safe, &QAction::triggered, this, [this]() { m_document->setSplitMode(SplitMode::Safe); });
    connect(m_document, &SplitDocument::trainingChanged, this, [this, seed, safe]() {
        (m_document->training().mode == SplitMode::Safe ? safe : seed)->setChecked(true);
    });
    // A launch trains the configuration it started with: while it runs, nothing may
    // change it, or the graph, the Run panel and the ring of the unit running now would
    // describe another run than the one going.
    connect(m_runController, &RunController::stateChanged, this, [this, modes]() {
        const auto session = m_runController->session();
        const bool running = m_runController->isRunning() && session;
        modes->setEnabled(!running);
        m_training->setLocked(running
                ? tr("The launch going now (%1) trains this configuration: %2. Cancel it, or wait for it to end, "
                     "to change it.")
                      .arg(runKindTitle(session->kind()), session->config().label())
                : QString());
    });
    split->addSeparator();
    split->addAction(tr("&Compare seed vs safe"), this, [this]() {
        m_compare->compareOtherMode();
        showDock(QStringLiteral("CompareDock"));
    });
    split->addAction(tr("Stop comparing"), m_compare, &ComparePanel::compareOff);

    // Step
    QMenu *step = menuBar()->addMenu(tr("S&tep"));
    step->addActions(m_stepper->stepActions());

    createRunMenu();

    // Help
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts)->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Splitscope"), this, &MainWindow::showAbout);

    // Toolbar
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("MainToolBar"));
    bar->setIconSize(QSize(20, 20));
    bar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    bar->addAction(open);
    bar->addAction(reload);
    bar->addAction(exportMenu->menuAction());
    bar->addSeparator();
    bar->addActions({view.zoomIn, view.zoomOut, view.zoomFit});
    bar->addSeparator();
    bar->addActions({view.edgeLabels, view.chains});
    bar->addSeparator();
    for (QAction *a : m_stepper->stepActions())
        bar->addAction(a);
    bar->addSeparator();
    bar->addAction(m_run->launchAction(RunKind::Both));
    bar->addAction(m_run->cancelAction());
}

// The Run menu: the launches, Cancel and Resume, the run settings files, the plan's
// run, and the run panels.
void MainWindow::createRunMenu()
{
    QMenu *runMenu = menuBar()->addMenu(tr("&Run"));
    for (RunKind kind : {RunKind::Both, RunKind::StageOne, RunKind::StageTwo, RunKind::Baseline})
        runMenu->addAction(m_run->launchAction(kind));
    runMenu->addSeparator();
    runMenu->addAction(m_run->cancelAction());
    runMenu->addAction(m_run->resumeAction());
    runMenu->addSeparator();
    runMenu->addAction(m_run->loadSettingsAction());
    runMenu->addAction(m_run->saveSettingsAction());
#ifdef SPLITSCOPE_HAVE_PLAN
    runMenu->addSeparator();
    QAction *runPlan = runMenu->addAction(tr("Run &plan…"), this, [this]() {
        showDock(QStringLiteral("PlanDock"));
        m_planPanel->runPlan();
    });
    runPlan->setToolTip(tr("Run the plan's two commands, one after the other, once you have seen them"));
    runPlan->setEnabled(false);
    const auto updateRunPlan = [this, runPlan]() {
        runPlan->setEnabled(m_planController->hasPlan() && !m_planController->runner()->isRunning());
    };
    connect(m_planController, &PlanController::planChanged, this, updateRunPlan);
    connect(m_planController->runner(), &PlanRunner::stageStarted, this, updateRunPlan);
    connect(m_planController->runner(), &PlanRunner::finished, this, updateRunPlan);
#endif
    runMenu->addSeparator();
    runMenu->addAction(tr("Run &settings"), this, [this]() { showDock(QStringLiteral("RunDock")); });
    runMenu->addAction(tr("Run &monitor"), this, [this]() { showDock(QStringLiteral("RunMonitorDock")); });
    runMenu->addAction(tr("Run &history"), this, [this]() { showDock(QStringLiteral("RunHistoryDock")); });
    runMenu->addAction(tr("Compare &baseline vs split"), this, [this]() {
        showDock(QStringLiteral("RunHistoryDock"));
        if (!m_historyPanel->compareBaselineAndSplit())
            statusBar()->showMessage(m_historyPanel->pairingProblem(), kStatusMessageMs);
    });
}

void MainWindow::showDock(const QString &objectName)
{
    auto *dock = findChild<QDockWidget *>(objectName);
    if (!dock)
        return;
    dock->show();
    dock->raise();
    // The run monitor and history come up with room for their charts and tables, the
    // comparison with room for its list of moved units (it had one and a half rows).
    // The monitor takes up to half a short window: two fifths of 768 pixels left its
    // charts a plot 90 pixels high.
    constexpr int kMonitorRoom = 380;
    const int monitorRoom = std::max(height() * 2 / 5, std::min(height() / 2, kMonitorRoom));
    const int room = objectName == QLatin1String("RunHistoryDock") ? height() / 2
        : objectName == QLatin1String("RunMonitorDock")            ? monitorRoom
        : objectName == QLatin1String("CompareDock")               ? height() * 2 / 5
                                                                    : 0;
    if (dock->height() < room)
        resizeDocks({dock}, {room}, Qt::Vertical);
    // The plan's commands are long lines: its column gets a third of the window (they
    // scroll sideways; more would leave the graph too little).
    if (objectName == QLatin1String("PlanDock") && dock->width() < width() / 3)
        resizeDocks({dock}, {width() / 3}, Qt::Horizontal);
}

void MainWindow::runLaunched()
{
    showDock(QStringLiteral("RunMonitorDock"));
}

void MainWindow::runFinished()
{
    const auto session = m_runController->session();
    if (!session)
        return;
    m_runHistory->add(session);
    QString message = tr("%1: %2").arg(runKindTitle(session->kind()), session->summary());
    // The history shows the launch (with its baseline or split when they pair up), unless
    // the user compares two runs of their choice there: that comparison stays.
    if (m_historyPanel->comparisonChosenByHand())
        message += tr(" · the Run history keeps the comparison you chose");
    else if (m_historyPanel->showFinishedLaunch(session->id()))
        message += tr(" · the Run history compares it with the %1")
                       .arg(session->kind() == RunKind::Baseline ? tr("split") : tr("baseline"));
    statusBar()->showMessage(message, kStatusMessageMs);
}

void MainWindow::rebuildExamplesMenu(QMenu *menu)
{
    for (const BuiltinExample &example : builtinExamples()) {
        const QString name = QString::fromStdString(example.name);
        menu->addAction(name, this, [this, name]() { m_document->openExample(name); });
    }
}

bool MainWindow::openSource(const QString &pathOrExample)
{
    const bool ok = m_document->openSource(pathOrExample);
    if (ok && !m_document->source().path.isEmpty())
        rememberRecent(m_document->source().path);
    if (!ok) {
        m_problemsDock->show();
        m_problemsDock->raise();
    }
    return ok;
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = m_document->source().path.isEmpty() ? settings.value(QStringLiteral("lastDir")).toString()
                                                            : QFileInfo(m_document->source().path).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open pipeline"), dir,
        tr("Pipeline descriptions (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    if (m_persistent)
        settings.setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    openSource(path);
}

void MainWindow::importDiffSynth()
{
#ifdef SPLITSCOPE_HAVE_IMPORTER
    QMessageBox ask(QMessageBox::Question, tr("Import DiffSynth source"),
        tr("Import one pipeline file (.py) or a folder (diffsynth/pipelines, or a DiffSynth-Studio checkout)?"),
        QMessageBox::NoButton, this);
    QPushButton *fileButton = ask.addButton(tr("A .py file…"), QMessageBox::AcceptRole);
    QPushButton *folderButton = ask.addButton(tr("A folder…"), QMessageBox::AcceptRole);
    ask.addButton(QMessageBox::Cancel);
    ask.exec();
    // Both dialogs start where the last import was (a file's folder, or the folder's parent).
    QSettings settings;
    const QString start = settings.value(QStringLiteral("lastImportDir")).toString();
    QString path;
    if (ask.clickedButton() == fileButton)
        path = QFileDialog::getOpenFileName(this, tr("DiffSynth pipeline source"), start,
            tr("Python (*.py);;All files (*)"));
    else if (ask.clickedButton() == folderButton)
        path = QFileDialog::getExistingDirectory(this, tr("DiffSynth pipelines folder"), start);
    if (path.isEmpty())
        return;
    if (m_persistent)
        settings.setValue(QStringLiteral("lastImportDir"), QFileInfo(path).absolutePath());
    importDiffSynthPath(path);
#endif
}

void MainWindow::planDiffSynth()
{
#ifdef SPLITSCOPE_HAVE_PLAN
    PlanDialog dialog(this);
    QSettings settings;
    dialog.setScriptPath(settings.value(QStringLiteral("lastPlanScript")).toString());
    dialog.setCheckout(settings.value(QStringLiteral("lastCheckout")).toString());
    if (dialog.exec() != QDialog::Accepted)
        return;
    plan::PlanInput input;
    if (!dialog.makeInput(input))
        return;
    if (m_persistent) {
        settings.setValue(QStringLiteral("lastPlanScript"), dialog.scriptPath());
        settings.setValue(QStringLiteral("lastCheckout"), dialog.checkout());
    }
    planDiffSynthInput(input);
#endif
}

void MainWindow::planDiffSynthInput(const plan::PlanInput &input)
{
#ifdef SPLITSCOPE_HAVE_PLAN
    showDock(QStringLiteral("PlanDock"));
    m_planController->plan(input);
    statusBar()->showMessage(tr("Planning %1…").arg(QString::fromStdString(input.scriptName)), kStatusMessageMs);
#else
    Q_UNUSED(input);
#endif
}

bool MainWindow::importDiffSynthPath(const QString &path)
{
#ifdef SPLITSCOPE_HAVE_IMPORTER
    QApplication::setOverrideCursor(Qt::WaitCursor);
    importer::ImportResult result = importer::importDiffSynthPath(path.toStdString());
    QApplication::restoreOverrideCursor();
    if (result.pipelines.empty()) {
        m_document->reportLoadFailure(path, result.diagnostics);
        m_problemsDock->show();
        m_problemsDock->raise();
        return false;
    }
    int chosen = 0;
    if (result.pipelines.size() > 1) {
        QStringList names;
        for (const auto &p : result.pipelines)
            names << QStringLiteral("%1  (%2, %3)").arg(QString::fromStdString(p.pipeline.name),
                QString::fromStdString(p.className), QFileInfo(QString::fromStdString(p.sourceFile)).fileName());
        bool ok = false;
        const QString choice = QInputDialog::getItem(this, tr("Import DiffSynth source"),
            tr("%1 pipelines found. Open which one?").arg(names.size()), names, 0, false, &ok);
        if (!ok)
            return false;
        chosen = static_cast<int>(names.indexOf(choice));
    }
    PipelineSource source;
    source.importedFrom = QString::fromStdString(result.pipelines[chosen].sourceFile);
    m_document->setPipeline(std::move(result.pipelines[chosen].pipeline), source, result.diagnostics);
    statusBar()->showMessage(tr("Imported %1; File ▸ Save pipeline as… writes it as JSON")
                                 .arg(QString::fromStdString(m_document->pipeline().name)),
        kStatusMessageMs);
    return true;
#else
    Q_UNUSED(path);
    return false;
#endif
}

void MainWindow::saveAs()
{
    if (!m_document->hasPipeline())
        return;
    const QString suggested = QString::fromStdString(m_document->pipeline().name) + QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save pipeline (with the current training choice)"),
        suggested, tr("Pipeline descriptions (*.json)"));
    if (path.isEmpty())
        return;
    Pipeline pipeline = m_document->pipeline();
    TrainingConfig config = m_document->training().toConfig();
    if (pipeline.training)
        config.extra = pipeline.training->extra;
    pipeline.training = config;
    std::string error;
    if (!savePipelineFile(pipeline, path.toStdString(), &error)) {
        QMessageBox::warning(this, tr("Save pipeline"), QString::fromStdString(error));
        return;
    }
    openSource(path);
}

void MainWindow::exportAs(const QString &format)
{
    if (!m_document->hasPipeline())
        return;
    const QString base = QStringLiteral("%1-%2").arg(QString::fromStdString(m_document->graph().pipelineName()),
        QString::fromLatin1(splitModeName(m_document->training().mode)));
    const QString filter = format == QLatin1String("png") ? tr("PNG image (*.png)")
        : format == QLatin1String("svg")                  ? tr("SVG drawing (*.svg)")
        : format == QLatin1String("dot")                  ? tr("Graphviz DOT (*.dot *.gv)")
                                                          : tr("Split JSON (*.json)");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), base + QLatin1Char('.') + format, filter);
    if (path.isEmpty())
        return;
    QString error;
    bool ok = false;
    if (format == QLatin1String("png"))
        ok = GraphExporter::writePng(*m_workspace->scene(), path, &error);
    else if (format == QLatin1String("svg"))
        ok = GraphExporter::writeSvg(*m_workspace->scene(), path, &error);
    else if (format == QLatin1String("dot"))
        ok = GraphExporter::writeDot(*m_document, path, &error, m_workspace->actions().edgeLabels->isChecked());
    else
        ok = GraphExporter::writeSplitJson(*m_document, path, &error);
    if (!ok)
        QMessageBox::warning(this, tr("Export"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(path), kStatusMessageMs);
}

void MainWindow::rememberRecent(const QString &path)
{
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > kMaxRecentFiles)
        m_recent.removeLast();
    rebuildRecentMenu();
    if (m_persistent)
        QSettings().setValue(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString &path : m_recent) {
        QAction *a = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path]() { openSource(path); });
        a->setToolTip(path);
        a->setEnabled(QFileInfo::exists(path));
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
    if (!m_recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear list"), this, [this]() {
            m_recent.clear();
            rebuildRecentMenu();
            if (m_persistent)
                QSettings().setValue(QStringLiteral("recentFiles"), m_recent);
        });
    }
}

void MainWindow::pipelineReset()
{
    setWindowTitle(m_document->hasPipeline()
            ? tr("%1 — Splitscope").arg(m_document->source().displayName())
            : tr("Splitscope"));
    setWindowFilePath(m_document->source().path);
    // Another pipeline than before (not a reload of the same file): if it cannot run,
    // what it offers is its configuration and its fixed point, not the run panels.
    const PipelineSource &source = m_document->source();
    const QString shown = m_document->hasPipeline()
        ? source.path + QLatin1Char('\n') + source.exampleName + QLatin1Char('\n') + source.importedFrom
        : QString();
    if (shown != m_shownSource && m_document->hasPipeline() && !checkExecutable(m_document->pipeline()).runnable())
        raiseInspectionTabs();
    m_shownSource = shown;
    updateStatus();
}

void MainWindow::raiseInspectionTabs()
{
    // Only tabs the user keeps open and tabbed with a run panel; a layout of their own
    // (docks apart, or closed) stays as it is, and so does one where a run panel is
    // not the tab in front.
    const QList<QDockWidget *> runDocks{findChild<QDockWidget *>(QStringLiteral("RunDock")), m_monitorDock,
        findChild<QDockWidget *>(QStringLiteral("RunHistoryDock"))};
    auto raiseOverRun = [&runDocks, this](QDockWidget *dock) {
        // A tab behind another is open (its View menu entry checked), though not visible.
        if (!dock || !dock->toggleViewAction()->isChecked() || dock->isFloating())
            return;
        for (QDockWidget *other : tabifiedDockWidgets(dock)) {
            if (runDocks.contains(other) && other->isVisible() && !other->visibleRegion().isEmpty()) {
                dock->raise();
                return;
            }
        }
    };
    raiseOverRun(findChild<QDockWidget *>(QStringLiteral("TrainingDock")));
    raiseOverRun(m_stepperDock);
}

void MainWindow::updateStatus()
{
    const auto analysis = m_document->hasPipeline() ? m_document->analysis() : nullptr;
    if (!analysis) {
        m_status->clear();
        return;
    }
    const std::size_t hazards = analysis->verification.hazardCount();
    m_status->setText(tr("%1 · stage two %2 / stage one %3 · %4")
                          .arg(QString::fromLatin1(splitModeName(analysis->split.mode)),
                              QString::number(analysis->split.trainedCount()),
                              QString::number(analysis->split.trained.size() - analysis->split.trainedCount()),
                              countText(static_cast<qint64>(hazards), tr("%n hazard"), tr("%n hazards"))));
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    m_leavePresentation->setEnabled(on);
    m_stepper->setPresentationMode(on);
    if (on) {
        // Only the graph and the stepper, large: for a projector.
        m_statePresentationSaved = saveState();
        m_wasMaximized = isMaximized();
        m_focusBeforePresentation = QApplication::focusWidget();
        for (QDockWidget *dock : findChildren<QDockWidget *>()) {
            if (dock != m_stepperDock)
                dock->hide();
        }
        for (QToolBar *bar : findChildren<QToolBar *>())
            bar->hide();
        menuBar()->hide();
        statusBar()->hide();
        m_stepperDock->show();
        m_stepperDock->raise();
        m_workspace->searchField()->hide(); // a projector shows the graph, not a search box
        if (!QGuiApplication::platformName().startsWith(QLatin1String("offscreen")))
            showFullScreen();
        // Names readable from the back of the room: the graph is fitted at no less than
        // this zoom, and follows the steps where it is larger than the view.
        m_workspace->view()->setMinimumFitZoom(GraphView::zoomForNamePixels(kPresentationNamePixels));
        // The graph follows the steps: no minimap over its corner (it covered a unit).
        m_overviewBeforePresentation = m_workspace->view()->overviewEnabled();
        m_workspace->view()->setOverviewEnabled(false);
        fitPresentationText();
    } else {
        m_workspace->view()->setMinimumFitZoom(0);
        m_workspace->view()->setOverviewEnabled(m_overviewBeforePresentation);
        restoreState(m_statePresentationSaved);
        m_workspace->searchField()->show();
        menuBar()->show();
        statusBar()->show();
        if (isFullScreen())
            m_wasMaximized ? showMaximized() : showNormal();
        // Hiding the docks moved the focus on; it goes back where it was (else the graph).
        returnFocus(m_focusBeforePresentation, m_workspace->view());
    }
    m_workspace->view()->zoomToFit();
}

void MainWindow::fitPresentationText()
{
    // The explanation gets the room its longest step needs (at least a third of the
    // window, at most half: the graph is the rest). The stepper is the only dock now:
    // as wide as the window.
    const int title = m_stepperDock->height() - m_stepperDock->widget()->height();
    const int wanted = m_stepper->heightForWholeExplanation(width()) + std::max(title, fontMetrics().height() + 8);
    resizeDocks({m_stepperDock}, {std::clamp(wanted, height() / 3, height() / 2)}, Qt::Vertical);
}

void MainWindow::showShortcuts()
{
    QMessageBox::information(this, tr("Keyboard shortcuts"),
        tr("<table cellspacing=4>"
           "<tr><td><b>Ctrl+O</b></td><td>open a pipeline (or drop a .json file on the window)</td></tr>"
#ifdef SPLITSCOPE_HAVE_IMPORTER
           "<tr><td><b>Ctrl+I</b></td><td>import a DiffSynth-Studio source (.py file or folder)</td></tr>"
#endif
           "<tr><td><b>Shift+F5</b></td><td>reload the pipeline file (also one that failed to load)</td></tr>"
           "<tr><td><b>Ctrl+F</b></td><td>find a unit; Enter jumps to the next match</td></tr>"
           "<tr><td><b>wheel, + / −</b></td><td>zoom around the pointer (the keys: around the selected unit, or "
           "the centre); <b>Ctrl+0</b> or <b>F</b> fits; <b>Ctrl+1</b> actual size</td></tr>"
           "<tr><td><b>drag, Shift+arrows</b></td><td>pan; the overview in the corner moves the view too</td></tr>"
           "<tr><td><b>click</b></td><td>select a unit and highlight its upstream and downstream; "
           "<b>Esc</b> clears (in the Find box: clears the text, then goes back to where you were)</td></tr>"
           "<tr><td><b>↑ ↓ ← →</b></td><td>in the graph: the nearest producer / consumer along the data edges, "
           "or the next unit of the same rank (the keys follow the layout's direction; the opposite key goes "
           "back); <b>Home / End</b> first / last unit</td></tr>"
           "<tr><td><b>Ctrl+Home / End</b></td><td>first step (X0) / the split</td></tr>"
           "<tr><td><b>Ctrl+← / → or , / .</b></td><td>previous / next step</td></tr>"
           "<tr><td><b>P</b></td><td>play or pause the stepper</td></tr>"
           "<tr><td><b>F6 / Shift+F6</b></td><td>the keyboard focus to the next / previous pane: the graph, then "
           "each panel on screen (Tab moves within one)</td></tr>"
           "<tr><td><b>F5</b></td><td>presentation mode (then ←, →, Space, Page Up/Down step; F5 or Esc leaves)</td></tr>"
           "<tr><td><b>Alt+1 / Alt+2</b></td><td>seed / safe split</td></tr>"
           "<tr><td><b>Ctrl+L / Ctrl+U</b></td><td>edge labels / update chains</td></tr>"
           "<tr><td><b>Ctrl+E</b></td><td>export PNG</td></tr>"
           "<tr><td><b>Ctrl+R</b></td><td>run both stages; <b>Ctrl+Shift+R</b> the one-stage baseline; "
           "<b>Ctrl+Shift+1 / 2</b> stage one / two</td></tr>"
           "<tr><td><b>Ctrl+Shift+X</b></td><td>cancel the run (again: stop at once); <b>Ctrl+Shift+T</b> "
           "resumes a cancelled launch</td></tr>"
           "<tr><td><b>Delete</b></td><td>in the Run history: delete the selected runs (asks first)</td></tr>"
           "<tr><td><b>Tab / Shift+Tab</b></td><td>the next / previous control on screen; <b>Space</b> checks a "
           "model in the training table; <b>Enter</b> on a Verifier finding shows it in the graph</td></tr>"
           "<tr><td><b>F1</b></td><td>this list</td></tr>"
           "</table>"));
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Splitscope"),
        tr("<h3>Splitscope %1</h3><p>Two-stage split training for diffusion models: how a training pipeline "
           "splits into a cached stage and a training stage, why, and whether the split changes training.</p>"
           "<p>The split follows DiffSynth-Studio's algorithm exactly; the safe split and the verifier go "
           "beyond it. Layout by Graphviz dot.</p>")
            .arg(QApplication::applicationVersion()));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    event->acceptProposedAction();
    openSource(urls.front().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_runController->isRunning()) {
        if (m_persistent
            && QMessageBox::question(this, tr("Quit"),
                   tr("A training run is going. Cancel it and quit? (Its finished work is kept; Resume continues "
                      "it later.)"))
                != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_runController->cancel();
        if (!m_runController->waitForIdle(kCloseWaitMs)) {
            m_runController->cancel(); // the second time: at once
            m_runController->waitForIdle(kCloseWaitMs);
        }
    }
    if (m_presentation)
        setPresentationMode(false);
    if (m_persistent)
        writeSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::readSettings()
{
    QSettings settings;
    if (settings.contains(QStringLiteral("geometry")))
        restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    const bool refitted = fitIntoScreen();
    if (settings.contains(QStringLiteral("windowState")))
        m_defaultDockSizes = !restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    if (refitted)
        resizeDocksToDefaults(); // the saved dock sizes were for the oversized window
    m_recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    rebuildRecentMenu();
    const GraphWorkspace::Actions &a = m_workspace->actions();
    a.edgeLabels->setChecked(settings.value(QStringLiteral("view/edgeLabels"), true).toBool());
    a.chains->setChecked(settings.value(QStringLiteral("view/chains"), false).toBool());
    a.lineage->setChecked(settings.value(QStringLiteral("view/lineage"), true).toBool());
    a.legend->setChecked(settings.value(QStringLiteral("view/legend"), true).toBool());
    a.overview->setChecked(settings.value(QStringLiteral("view/overview"), true).toBool());
    const QString direction = settings.value(QStringLiteral("view/direction")).toString();
    if (direction == QLatin1String("down"))
        a.directionDown->trigger();
    else if (direction == QLatin1String("right"))
        a.directionRight->trigger();
    m_stepper->setSecondsPerStep(settings.value(QStringLiteral("stepper/secondsPerStep"), 1.0).toDouble());
    const QJsonObject run = QJsonDocument::fromJson(settings.value(QStringLiteral("run/settings")).toByteArray()).object();
    if (!run.isEmpty())
        m_run->setSettings(RunSettings::fromJson(run, RunPanel::defaultSettings()));
    m_run->setTrainingChoices(
        QJsonDocument::fromJson(settings.value(QStringLiteral("run/trainingChoices")).toByteArray()).object());
    QString error;
    if (!m_runHistory->open(RunHistory::defaultPath(), &error))
        statusBar()->showMessage(error, kStatusMessageMs);
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    settings.setValue(QStringLiteral("recentFiles"), m_recent);
    const GraphWorkspace::Actions &a = m_workspace->actions();
    settings.setValue(QStringLiteral("view/edgeLabels"), a.edgeLabels->isChecked());
    settings.setValue(QStringLiteral("view/chains"), a.chains->isChecked());
    settings.setValue(QStringLiteral("view/lineage"), a.lineage->isChecked());
    settings.setValue(QStringLiteral("view/legend"), a.legend->isChecked());
    settings.setValue(QStringLiteral("view/overview"), a.overview->isChecked());
    settings.setValue(QStringLiteral("view/direction"), a.directionDown->isChecked() ? QStringLiteral("down")
            : a.directionRight->isChecked()                                         ? QStringLiteral("right")
                                                                                     : QStringLiteral("auto"));
    settings.setValue(QStringLiteral("stepper/secondsPerStep"), m_stepper->secondsPerStep());
    settings.setValue(QStringLiteral("run/settings"), QJsonDocument(m_run->settings().toJson()).toJson(QJsonDocument::Compact));
    settings.setValue(QStringLiteral("run/trainingChoices"),
        QJsonDocument(m_run->trainingChoices()).toJson(QJsonDocument::Compact));
    if (!m_document->source().path.isEmpty())
        settings.setValue(QStringLiteral("lastPipeline"), m_document->source().path);
    else if (!m_document->source().exampleName.isEmpty())
        settings.setValue(QStringLiteral("lastPipeline"), m_document->source().exampleName);
}

} // namespace splitscope
