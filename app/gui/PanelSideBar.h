// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QPointer>
#include <QToolBar>

class QDockWidget;
class QMainWindow;
class QToolButton;

namespace splitscope {

// A narrow bar on one edge of the window with a button per panel of that side, its
// title written along the edge (as Netron's and IDEs' side bars): the panels of a side
// fold into it to give the graph their width, and a click on a title brings its panel
// (and those folded with it) back. Folding hides the docks; the window's saved state
// keeps which are hidden, so a folded side stays folded after a restart.
class PanelSideBar : public QToolBar {
    Q_OBJECT
public:
    // `area`: Qt::LeftDockWidgetArea or Qt::RightDockWidgetArea; `docks` those of that side.
    PanelSideBar(QMainWindow *window, Qt::DockWidgetArea area, const QList<QDockWidget *> &docks);

    // Whether every panel of the side is hidden (none floats).
    bool isFolded() const;
    void fold();
    // Shows the panels folded last (or, after a restart, `dock` alone) and raises `dock`
    // (the first of them when null).
    void unfold(QDockWidget *dock = nullptr);
    QAction *foldAction() const { return m_foldAction; }

private:
    void update();

    QMainWindow *m_window;
    Qt::DockWidgetArea m_area;
    QList<QPointer<QDockWidget>> m_docks;
    QList<QToolButton *> m_buttons; // by dock
    QList<QPointer<QDockWidget>> m_folded; // shown when the side folded
    QAction *m_foldAction;
    bool m_updating = false;
};

} // namespace splitscope
