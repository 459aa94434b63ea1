// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineGraph.h"

#include <QPointer>
#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QSplitter;
class QStringListModel;
class QToolButton;

namespace splitscope {

class GraphView;
class LayoutController;
class LoadErrorBanner;
class SplitDocument;
class SplitGraphScene;
class TraceCursor;

// The central area of the app: the load-error banner, a search field, and the unit
// graph, alone or next to split B of a comparison (same layout, zoom and scroll;
// B beside A for a tall graph, under it for a wide one). Owns the layout controller shared by both scenes and the view actions
// (zoom, fit, labels, chains, lineage, legend, overview, find) that menus and
// toolbars show.
class GraphWorkspace : public QWidget {
    Q_OBJECT
public:
    struct Actions {
        QAction *zoomIn;
        QAction *zoomOut;
        QAction *zoomFit;
        QAction *zoomReset;
        QAction *edgeLabels;
        QAction *chains;
        QAction *lineage;
        QAction *legend;
        QAction *overview;
        QAction *find;
        QAction *sideBySide;
        QAction *stageTwoOnly; // the stage filter (SplitGraphScene::setStageTwoFilter)
        QAction *directionAuto;  // layout direction, one of three (an exclusive group)
        QAction *directionDown;
        QAction *directionRight;
    };

    GraphWorkspace(SplitDocument *document, TraceCursor *cursor, QWidget *parent = nullptr);
    ~GraphWorkspace() override;

    const Actions &actions() const { return m_actions; }
    LayoutController *layouts() const { return m_layouts; }
    SplitGraphScene *scene() const { return m_scene; }
    SplitGraphScene *comparisonScene() const { return m_comparisonScene; }
    GraphView *view() const { return m_view; }
    GraphView *comparisonView() const { return m_comparisonView; }
    LoadErrorBanner *banner() const { return m_banner; }
    QLineEdit *searchField() const { return m_search; }
    QLabel *infoLabel() const { return m_info; } // what is open, above the graph (elided to fit)
    // "Names 4 px: zoom to 69 %", shown while the names are too small to read.
    QToolButton *readableNamesButton() const { return m_readable; }
    bool isSideBySide() const;

public Q_SLOTS:
    // Selects and centers the next unit whose name contains `text` (case-insensitive),
    // cycling through matches on repeated calls; false when none matches.
    bool findUnit(const QString &text);
    void showHazard(int hazard);
    void showUnit(UnitId unit);
    void setSideBySide(bool on);

Q_SIGNALS:
    void problemsRequested();
    void sideBySideChanged(bool on);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void pipelineReset();
    void updateCaptions();
    // The view actions (zoom, labels, chains, filter, legend, ...) and what they do.
    void createActions();
    void createReadableButton();
    void updateReadableButton();
    void arrangeComparison();
    void layoutStatus();
    void showInfo(); // m_infoName and m_infoRest, the rest elided with "…" to the label's width

    SplitDocument *m_document;
    LayoutController *m_layouts;
    SplitGraphScene *m_scene;
    SplitGraphScene *m_comparisonScene;
    GraphView *m_view;
    GraphView *m_comparisonView;
    QWidget *m_comparisonPane;
    QLabel *m_captionA;
    QLabel *m_captionB;
    LoadErrorBanner *m_banner;
    QLineEdit *m_search;
    QPointer<QWidget> m_focusBeforeSearch; // where Escape in the empty search box sends the focus
    QLabel *m_searchStatus;
    QLabel *m_info;
    QToolButton *m_readable = nullptr;
    QString m_infoName; // the pipeline's name, in bold
    QString m_infoRest; // file, counts, layout status (plain text)
    QStringListModel *m_unitNames;
    QSplitter *m_splitter;
    Actions m_actions{};
    QString m_lastSearch;
    QString m_searchSource; // the pipeline the search field's text was typed for (see pipelineReset)
    UnitId m_lastFound = kNoUnit;
};

} // namespace splitscope
