// SPDX-License-Identifier: MIT
#pragma once

#include <QMainWindow>
#include <QPointer>

class QDockWidget;
class QLabel;
class QMenu;
class QShortcut;

namespace splitscope {

namespace plan {
struct PlanInput;
}
class ComparePanel;
class PanelSideBar;
class SamplesPanel;
class PlanController;
class PlanPanel;
class GraphWorkspace;
class InspectorPanel;
class ParamsPanel;
class PipelineFileWatcher;
class ProblemsPanel;
class RunController;
class RunHistory;
class RunHistoryPanel;
class RunMonitor;
class RunPanel;
class RunningUnitMarker;
class SplitDocument;
class StepperPanel;
class TraceCursor;
class TrainingPanel;
class VerifierPanel;

// The Splitscope window. Thin by design: it creates the document and the reusable
// widgets of splitscope_widgets, puts them in docks around the graph, and wires
// menus, toolbar, recent files, drag and drop, file watching and QSettings. The
// Run panel (below the training configuration) launches the engine's
// executable pipelines; the run monitor and the run history dock at the bottom
// next to the stepper.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `persistent`: restore and save geometry, dock layout, toggles and recent files
    // (off for screenshots and tests, which must not depend on a user's settings).
    explicit MainWindow(bool persistent = true, QWidget *parent = nullptr);
    ~MainWindow() override;

    SplitDocument *document() const { return m_document; }
    TraceCursor *cursor() const { return m_cursor; }
    GraphWorkspace *workspace() const { return m_workspace; }
    TrainingPanel *trainingPanel() const { return m_training; }
    StepperPanel *stepper() const { return m_stepper; }
    InspectorPanel *inspector() const { return m_inspector; }
    VerifierPanel *verifier() const { return m_verifier; }
    ParamsPanel *params() const { return m_params; }
    ComparePanel *comparePanel() const { return m_compare; }
    ProblemsPanel *problems() const { return m_problems; }
    PipelineFileWatcher *fileWatcher() const { return m_watcher; }
    RunController *runController() const { return m_runController; }
    RunHistory *runHistory() const { return m_runHistory; }
    RunPanel *runPanel() const { return m_run; }
    RunMonitor *runMonitor() const { return m_monitor; }
    RunHistoryPanel *runHistoryPanel() const { return m_historyPanel; }
    SamplesPanel *samplesPanel() const { return m_samples; }
    RunningUnitMarker *runningUnitMarker() const { return m_runningUnit; }
    bool presentationMode() const { return m_presentation; }

public Q_SLOTS:
    // Opens a file or a built-in example; a failure keeps the open pipeline and
    // shows the errors. Returns whether the pipeline was replaced.
    bool openSource(const QString &pathOrExample);
    void setPresentationMode(bool on);
    // Imports a DiffSynth-Studio pipeline source (.py file or folder) and shows it;
    // asks which one when there are several. False (errors shown) when nothing was
    // imported or the importer is not built.
    bool importDiffSynthPath(const QString &path);
    // Plans a one-stage DiffSynth command (File ▸ Plan DiffSynth training, without the dialog).
    void planDiffSynthInput(const plan::PlanInput &input);
    PlanController *planController() const { return m_planController; }
    PlanPanel *planPanel() const { return m_planPanel; }
    // Shows and raises the dock with this object name (RunDock, RunMonitorDock, ...).
    void showDock(const QString &objectName);
    // F6 / Shift+F6: the keyboard focus to the next / previous pane: the graph, then
    // each panel on screen in reading order (top to bottom, then left to right), on
    // its first widget that Tab reaches. Panels behind another's tab are passed over.
    void focusNextPane(bool next);

protected:
    bool event(QEvent *event) override;
    bool focusNextPrevChild(bool next) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    QDockWidget *addPanel(QWidget *panel, const QString &title, const QString &objectName, Qt::DockWidgetArea area);
    void createDocks();
    // False for a widget inside a dock that Qt keeps "visible" outside the window
    // because another dock's tab is in front of it.
    bool onScreen(const QWidget *widget) const;
    void createActions();
    void createRunMenu();
    void openDialog();
    void importDiffSynth();
    void planDiffSynth();
    void saveAs();
    void exportAs(const QString &format);
    void rememberRecent(const QString &path);
    void rebuildRecentMenu();
    void rebuildExamplesMenu(QMenu *menu);
    void pipelineReset();
    void updateStatus();
    void runLaunched();
    void runFinished();
    void showShortcuts();
    void showAbout();
    void readSettings();
    void writeSettings() const;
    void resizeDocksToDefaults();
    void fitPresentationText(); // the stepper's height in presentation mode
    void keepDockTabsWhole();   // dock tabs scroll rather than elide
    // A pipeline that cannot run puts Training configuration and Stepper in front of
    // the run panels tabbed with them (Run said "Inspect only", the monitor was empty).
    void raiseInspectionTabs();
    // Shrinks and moves the window into its screen's available area (a geometry saved
    // on a larger screen, or by an older version that let a long name widen the window).
    // Returns whether it had to change anything.
    bool fitIntoScreen();

    bool m_persistent;
    // The docks have their default sizes (no saved arrangement was restored): on the
    // first show they are sized for the window's width then.
    bool m_defaultDockSizes = true;
    bool m_shown = false;
    SplitDocument *m_document;
    TraceCursor *m_cursor;
    PipelineFileWatcher *m_watcher;
    GraphWorkspace *m_workspace;
    TrainingPanel *m_training = nullptr;
    StepperPanel *m_stepper = nullptr;
    InspectorPanel *m_inspector = nullptr;
    VerifierPanel *m_verifier = nullptr;
    ParamsPanel *m_params = nullptr;
    ComparePanel *m_compare = nullptr;
    ProblemsPanel *m_problems = nullptr;
    QDockWidget *m_stepperDock = nullptr;
    PanelSideBar *m_leftBar = nullptr;
    SamplesPanel *m_samples = nullptr;
    bool m_overviewBeforePresentation = true;
    PanelSideBar *m_rightBar = nullptr;
    QDockWidget *m_problemsDock = nullptr;
    RunController *m_runController;
    RunHistory *m_runHistory;
    RunPanel *m_run = nullptr;
    RunMonitor *m_monitor = nullptr;
    RunHistoryPanel *m_historyPanel = nullptr;
    RunningUnitMarker *m_runningUnit = nullptr;
    PlanController *m_planController = nullptr; // null without the importer
    PlanPanel *m_planPanel = nullptr;
    QDockWidget *m_monitorDock = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QLabel *m_status = nullptr;
    QShortcut *m_leavePresentation = nullptr;
    QStringList m_recent;
    bool m_presentation = false;
    QByteArray m_statePresentationSaved;
    bool m_wasMaximized = false;
    QPointer<QWidget> m_focusBeforePresentation; // gets the focus back when presentation mode ends
    bool m_wasComparing = false;
    QString m_shownSource; // the pipeline last opened: a reload of it keeps the tabs in front
};

} // namespace splitscope
