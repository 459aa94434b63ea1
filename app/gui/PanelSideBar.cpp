// SPDX-License-Identifier: MIT
#include "PanelSideBar.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStyleOptionToolButton>
#include <QStylePainter>
#include <QToolButton>

namespace splitscope {

namespace {

// A tool button whose text runs along the edge: down on the right side, up on the left.
class EdgeButton : public QToolButton {
public:
    EdgeButton(bool clockwise, QWidget *parent)
        : QToolButton(parent)
        , m_clockwise(clockwise)
    {
        setToolButtonStyle(Qt::ToolButtonTextOnly);
        setCheckable(true);
        setAutoRaise(true);
        setFocusPolicy(Qt::TabFocus);
    }
    QSize sizeHint() const override { return QToolButton::sizeHint().transposed(); }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QStylePainter painter(this);
        QStyleOptionToolButton option;
        initStyleOption(&option);
        // Drawn as a horizontal button into the rotated rectangle.
        option.rect = option.rect.transposed();
        if (m_clockwise) {
            painter.translate(width(), 0);
            painter.rotate(90);
        } else {
            painter.translate(0, height());
            painter.rotate(-90);
        }
        painter.drawComplexControl(QStyle::CC_ToolButton, option);
    }

private:
    bool m_clockwise;
};

} // namespace

PanelSideBar::PanelSideBar(QMainWindow *window, Qt::DockWidgetArea area, const QList<QDockWidget *> &docks)
    : QToolBar(window)
    , m_window(window)
    , m_area(area)
{
    const bool right = area == Qt::RightDockWidgetArea;
    setObjectName(right ? QStringLiteral("RightPanelBar") : QStringLiteral("LeftPanelBar"));
    setWindowTitle(right ? tr("Right panels") : tr("Left panels"));
    setMovable(false);
    setFloatable(false);
    setOrientation(Qt::Vertical);
    m_foldAction = new QAction(right ? tr("Fold the right panels") : tr("Fold the left panels"), this);
    m_foldAction->setCheckable(true);
    m_foldAction->setToolTip(right ? tr("Fold the right panels into this bar: the graph gets their width")
                                   : tr("Fold the left panels into this bar: the graph gets their width"));
    connect(m_foldAction, &QAction::triggered, this, [this](bool folded) {
        if (folded)
            fold();
        else
            unfold();
    });
    for (QDockWidget *dock : docks) {
        m_docks.append(dock);
        auto *button = new EdgeButton(right, this);
        button->setText(dock->windowTitle());
        button->setToolTip(tr("Show %1").arg(dock->windowTitle()));
        addWidget(button);
        m_buttons.append(button);
        connect(button, &QToolButton::clicked, this, [this, dock, button]() {
            // A click on the panel in view folds its side; on another, brings it up.
            if (!isFolded() && dock->isVisible() && !dock->visibleRegion().isEmpty()) {
                fold();
            } else {
                unfold(dock);
            }
            button->setChecked(dock->isVisible());
        });
        connect(dock, &QDockWidget::visibilityChanged, this, &PanelSideBar::update);
        connect(dock->toggleViewAction(), &QAction::toggled, this, &PanelSideBar::update);
    }
    window->addToolBar(right ? Qt::RightToolBarArea : Qt::LeftToolBarArea, this);
    update();
}

bool PanelSideBar::isFolded() const
{
    for (const QPointer<QDockWidget> &dock : m_docks) {
        if (dock && !dock->isHidden() && !dock->isFloating())
            return false;
    }
    return true;
}

void PanelSideBar::fold()
{
    m_folded.clear();
    m_updating = true;
    for (const QPointer<QDockWidget> &dock : m_docks) {
        if (dock && !dock->isHidden() && !dock->isFloating()) {
            m_folded.append(dock);
            dock->hide();
        }
    }
    m_updating = false;
    update();
}

void PanelSideBar::unfold(QDockWidget *dock)
{
    QList<QPointer<QDockWidget>> shown = m_folded;
    if (shown.isEmpty() && dock)
        shown.append(dock);
    if (shown.isEmpty() && !m_docks.isEmpty())
        shown.append(m_docks.first());
    m_updating = true;
    for (const QPointer<QDockWidget> &d : shown) {
        if (d)
            d->show();
    }
    if (dock) {
        dock->show();
        dock->raise();
    }
    m_updating = false;
    m_folded.clear();
    update();
}

void PanelSideBar::update()
{
    if (m_updating)
        return;
    m_foldAction->setChecked(isFolded());
    for (int i = 0; i < m_buttons.size(); ++i)
        m_buttons[i]->setChecked(m_docks[i] && !m_docks[i]->isHidden());
}

} // namespace splitscope
