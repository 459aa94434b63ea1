// SPDX-License-Identifier: MIT
// The graph view's keyboard walk: the arrow keys, Home and End select units as a
// click does (the document, the scene and the Inspector agree), follow the drawing
// in both layout directions, keep the unit in view and can be retraced; Escape
// clears, Tab leaves the view, and the view shows a frame while it has the focus.
#include "WidgetTestSupport.h"

#include "MainWindow.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/graph/GraphStyle.h"
#include "widgets/graph/GraphView.h"
#include "widgets/graph/GraphWorkspace.h"
#include "widgets/graph/SplitGraphScene.h"
#include "widgets/graph/UnitNodeItem.h"
#include "widgets/panels/InspectorPanel.h"
#include "widgets/panels/StepperPanel.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCompleter>
#include <QDockWidget>
#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLineF>
#include <QScrollBar>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>

#include <algorithm>
#include <set>
#include <tuple>

using namespace splitscope;
using namespace splitscope::test;

namespace {

// A window with a pipeline drawn top to bottom or left to right, the graph view focused.
struct Window {
    MainWindow window{false};
    GraphView *view = nullptr;
    SplitGraphScene *scene = nullptr;
    SplitDocument *document = nullptr;

    bool open(const QString &example, bool leftToRight)
    {
        window.resize(1500, 950);
        window.show();
        if (!window.openSource(example) || !waitForGraph(*window.workspace()))
            return false;
        QAction *direction = leftToRight ? window.workspace()->actions().directionRight
                                         : window.workspace()->actions().directionDown;
        if (!direction->isChecked()) {
            direction->trigger();
            if (!waitForGraph(*window.workspace()))
                return false;
        }
        view = window.workspace()->view();
        scene = window.workspace()->scene();
        document = window.document();
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window))
            return false;
        view->setFocus(Qt::OtherFocusReason);
        QApplication::processEvents();
        return view->hasFocus() && scene->leftToRight() == leftToRight;
    }

    QPointF center(UnitId unit) const
    {
        const UnitNodeItem *item = scene->nodeItem(unit);
        return item->mapRectToScene(item->boxRect()).center();
    }

    // The units the scene has selected (a click selects exactly one).
    std::vector<UnitId> selected() const
    {
        std::vector<UnitId> units;
        for (QGraphicsItem *item : scene->selectedItems()) {
            if (item->type() == UnitNodeItem::Type)
                units.push_back(static_cast<UnitNodeItem *>(item)->unit());
        }
        return units;
    }

    QString inspectorName() const
    {
        auto *header = window.inspector()->findChild<QLabel *>();
        return header ? header->toolTip() : QString();
    }

    // The unit selected everywhere: the document, the scene and the Inspector agree.
    UnitId current() const
    {
        const UnitId unit = document->currentUnit();
        if (unit == kNoUnit)
            return selected().empty() ? kNoUnit : -2;
        if (selected() != std::vector<UnitId>{unit})
            return -2;
        if (inspectorName() != QString::fromStdString(document->graph().unitName(unit)))
            return -3;
        return unit;
    }

    void key(Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        QTest::keyClick(view, key, modifiers);
        QApplication::processEvents();
    }

    // Where the unit's box is on screen, in viewport pixels.
    QRect onScreen(UnitId unit) const
    {
        return view->mapFromScene(scene->nodeItem(unit)->sceneBoundingRect()).boundingRect();
    }

    // The drawn neighbours of a unit along the data edges (the loss when it is drawn).
    std::set<UnitId> producers(UnitId unit) const
    {
        std::set<UnitId> out;
        for (const PipelineGraph::Edge &e : document->graph().inEdges(unit)) {
            if (scene->nodeItem(e.source))
                out.insert(e.source);
        }
        return out;
    }

    std::set<UnitId> consumers(UnitId unit) const
    {
        const PipelineGraph &graph = document->graph();
        std::set<UnitId> out;
        for (UnitId u = 0; u <= graph.lossId(); ++u) {
            if (scene->nodeItem(u) && producers(u).count(unit))
                out.insert(u);
        }
        return out;
    }

    // The one of `units` nearest to `from` in the drawing (ties: first along the rank).
    UnitId nearest(UnitId from, const std::set<UnitId> &units) const
    {
        const bool lr = scene->leftToRight();
        UnitId best = kNoUnit;
        std::tuple<double, double, UnitId> bestKey;
        for (const UnitId u : units) {
            const QPointF c = center(u);
            const std::tuple<double, double, UnitId> key(QLineF(center(from), c).length(), lr ? c.y() : c.x(), u);
            if (best == kNoUnit || key < bestKey) {
                best = u;
                bestKey = key;
            }
        }
        return best;
    }

    // A drawn unit (not the loss) with at least `producers` producers and `consumers` consumers.
    UnitId unitWith(std::size_t producerCount, std::size_t consumerCount) const
    {
        const PipelineGraph &graph = document->graph();
        for (UnitId u = 0; u < graph.lossId(); ++u) {
            if (scene->nodeItem(u) && producers(u).size() >= producerCount && consumers(u).size() >= consumerCount)
                return u;
        }
        return kNoUnit;
    }

    // The units of `unit`'s rank after (or before) it, nearest first.
    std::vector<UnitId> sameRank(UnitId unit, bool after) const
    {
        const bool lr = scene->leftToRight();
        const auto along = [lr](const QPointF &p) { return lr ? p.y() : p.x(); };
        std::vector<std::pair<double, UnitId>> found;
        for (UnitId u = 0; u <= document->graph().lossId(); ++u) {
            if (u == unit || !scene->nodeItem(u) || scene->rankOf(u) != scene->rankOf(unit))
                continue;
            const double offset = along(center(u)) - along(center(unit));
            if (after ? offset > 0 : offset < 0)
                found.emplace_back(std::abs(offset), u);
        }
        std::sort(found.begin(), found.end());
        std::vector<UnitId> out;
        for (const auto &f : found)
            out.push_back(f.second);
        return out;
    }
};

// A rank with at least two units: its first unit along the rank.
UnitId rankWithTwo(const Window &w)
{
    for (UnitId u = 0; u < w.document->graph().lossId(); ++u) {
        if (w.scene->nodeItem(u) && w.sameRank(u, false).empty() && !w.sameRank(u, true).empty())
            return u;
    }
    return kNoUnit;
}

// The color of the viewport's pixels a pixel inside its left and top edges.
std::pair<QColor, QColor> edgePixels(GraphView *view)
{
    const QImage image = view->viewport()->grab().toImage();
    const QPoint left(0, image.height() / 2);
    const QPoint top(image.width() / 3, 0);
    return {image.pixelColor(left), image.pixelColor(top)};
}

} // namespace

class TestGraphKeys : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void arrowSelectsTheFirstUnitOnScreen_data();
    void arrowSelectsTheFirstUnitOnScreen();
    void homeAndEndGoToTheEnds();
    void upAndDownFollowTheDataEdges();
    void leftAndRightStayOnTheRank();
    void keysFollowALeftToRightLayout();
    void aWalkIsRetracedKeyByKey();
    void aKeySelectsAsAClickDoes();
    void selectedUnitIsScrolledIntoView();
    void shiftArrowsStillPan();
    void escapeClearsTheSelection();
    void presentationKeysStillStep();
    void focusReturnsAfterFindAndPresentation();
    void f6MovesBetweenPanes();
    void tabLeavesTheView();
    void focusFrameOnlyWithFocus();
    void keysKeepTheViewSteady();
};

void TestGraphKeys::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // never touch the user's settings
}

void TestGraphKeys::arrowSelectsTheFirstUnitOnScreen_data()
{
    QTest::addColumn<int>("key");
    QTest::newRow("Down") << int(Qt::Key_Down);
    QTest::newRow("Up") << int(Qt::Key_Up);
    QTest::newRow("Left") << int(Qt::Key_Left);
    QTest::newRow("Right") << int(Qt::Key_Right);
}

void TestGraphKeys::arrowSelectsTheFirstUnitOnScreen()
{
    QFETCH(int, key);
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    QCOMPARE(w.current(), kNoUnit);
    // The whole graph is in view: the walk starts at the start of the pipeline.
    w.key(Qt::Key(key));
    QCOMPARE(w.current(), UnitId(0));
    QVERIFY(w.view->viewport()->rect().contains(w.onScreen(0)));
}

void TestGraphKeys::homeAndEndGoToTheEnds()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    const UnitId last = w.document->graph().unitCount() - 1;
    w.key(Qt::Key_End);
    QCOMPARE(w.current(), last);
    w.key(Qt::Key_Home);
    QCOMPARE(w.current(), UnitId(0));
    // Zoomed in on the last unit, an arrow starts the walk at the first unit on screen.
    w.document->setCurrentUnit(last);
    w.view->centerOnUnit(last);
    w.view->setZoom(2.5);
    w.view->centerOnUnit(last);
    w.key(Qt::Key_Escape);
    QCOMPARE(w.current(), kNoUnit);
    const QRectF visible = w.view->mapToScene(w.view->viewport()->rect()).boundingRect();
    UnitId firstShown = kNoUnit;
    for (UnitId u = 0; u <= last && firstShown == kNoUnit; ++u) {
        if (w.scene->nodeItem(u) && visible.contains(w.center(u)))
            firstShown = u;
    }
    QVERIFY(firstShown > 0);
    w.key(Qt::Key_Down);
    QCOMPARE(w.current(), firstShown);
}

void TestGraphKeys::upAndDownFollowTheDataEdges()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    // Down from a unit with several consumers: the nearest of them.
    const UnitId fork = w.unitWith(0, 2);
    QVERIFY(fork != kNoUnit);
    w.document->setCurrentUnit(fork);
    w.key(Qt::Key_Down);
    const UnitId down = w.current();
    QVERIFY(w.consumers(fork).count(down));
    QCOMPARE(down, w.nearest(fork, w.consumers(fork)));
    // Up from a unit with several producers: the nearest of them.
    const UnitId join = w.unitWith(2, 0);
    QVERIFY(join != kNoUnit);
    w.document->setCurrentUnit(join); // selected elsewhere: a new walk
    w.key(Qt::Key_Up);
    const UnitId up = w.current();
    QVERIFY(w.producers(join).count(up));
    QCOMPARE(up, w.nearest(join, w.producers(join)));
    // The same key from the same unit leads to the same unit again.
    w.document->setCurrentUnit(join);
    w.key(Qt::Key_Up);
    QCOMPARE(w.current(), up);
    // The first unit reads only external inputs: Up stays where it is.
    w.key(Qt::Key_Home);
    if (w.producers(0).empty()) {
        w.key(Qt::Key_Up);
        QCOMPARE(w.current(), UnitId(0));
    }
    // Down, Down, ... reaches a unit with no consumers (each step along an edge).
    UnitId at = 0;
    for (int i = 0; i < 200 && !w.consumers(at).empty(); ++i) {
        w.key(Qt::Key_Down);
        QVERIFY(w.consumers(at).count(w.current()));
        at = w.current();
    }
    QVERIFY(w.consumers(at).empty());
    w.key(Qt::Key_Down);
    QCOMPARE(w.current(), at);
}

void TestGraphKeys::leftAndRightStayOnTheRank()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    const UnitId first = rankWithTwo(w);
    QVERIFY(first != kNoUnit);
    const std::vector<UnitId> row = [&]() {
        std::vector<UnitId> r{first};
        for (const UnitId u : w.sameRank(first, true))
            r.push_back(u);
        return r;
    }();
    w.document->setCurrentUnit(first);
    w.key(Qt::Key_Left); // nothing left of the first: it stays
    QCOMPARE(w.current(), first);
    for (std::size_t i = 1; i < row.size(); ++i) {
        w.key(Qt::Key_Right);
        QCOMPARE(w.current(), row[i]);
        QCOMPARE(w.scene->rankOf(w.current()), w.scene->rankOf(first));
        QVERIFY(w.center(row[i]).x() > w.center(row[i - 1]).x());
    }
    w.key(Qt::Key_Right); // the last of the rank: it stays
    QCOMPARE(w.current(), row.back());
    for (std::size_t i = row.size() - 1; i-- > 0;) {
        w.key(Qt::Key_Left);
        QCOMPARE(w.current(), row[i]);
    }
}

void TestGraphKeys::keysFollowALeftToRightLayout()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), true));
    // Right goes downstream, Left upstream, Up and Down along the rank (a column).
    const UnitId fork = w.unitWith(1, 2);
    QVERIFY(fork != kNoUnit);
    w.document->setCurrentUnit(fork);
    w.key(Qt::Key_Right);
    QCOMPARE(w.current(), w.nearest(fork, w.consumers(fork)));
    QVERIFY(w.center(w.current()).x() > w.center(fork).x());
    w.document->setCurrentUnit(fork);
    w.key(Qt::Key_Left);
    QCOMPARE(w.current(), w.nearest(fork, w.producers(fork)));
    QVERIFY(w.center(w.current()).x() < w.center(fork).x());
    const UnitId top = rankWithTwo(w);
    QVERIFY(top != kNoUnit);
    w.document->setCurrentUnit(top);
    w.key(Qt::Key_Up);
    QCOMPARE(w.current(), top);
    w.key(Qt::Key_Down);
    QCOMPARE(w.current(), w.sameRank(top, true).front());
    QVERIFY(w.center(w.current()).y() > w.center(top).y());
}

void TestGraphKeys::aWalkIsRetracedKeyByKey()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    // A unit with several consumers, reached by walking down from the first unit:
    // walking back up retraces each step, though the nearest producer may differ.
    w.key(Qt::Key_Home);
    std::vector<UnitId> path{0};
    const std::vector<Qt::Key> keys{Qt::Key_Down, Qt::Key_Down, Qt::Key_Right, Qt::Key_Down, Qt::Key_Left,
        Qt::Key_Down};
    std::vector<Qt::Key> taken;
    for (const Qt::Key key : keys) {
        w.key(key);
        if (w.current() != path.back()) {
            path.push_back(w.current());
            taken.push_back(key);
        }
    }
    QVERIFY(path.size() >= 3);
    for (std::size_t i = taken.size(); i-- > 0;) {
        const Qt::Key key = taken[i];
        const Qt::Key back = key == Qt::Key_Down ? Qt::Key_Up
            : key == Qt::Key_Up                  ? Qt::Key_Down
            : key == Qt::Key_Left                ? Qt::Key_Right
                                                 : Qt::Key_Left;
        w.key(back);
        QCOMPARE(w.current(), path[i]);
    }
}

void TestGraphKeys::aKeySelectsAsAClickDoes()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    const UnitId fork = w.unitWith(1, 2);
    QVERIFY(fork != kNoUnit);
    // A click first: what it changes.
    QSignalSpy changes(w.document, &SplitDocument::currentUnitChanged);
    const QPoint at = w.view->mapFromScene(w.center(fork));
    QTest::mouseClick(w.view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(w.current(), fork);
    QCOMPARE(changes.size(), 1);
    // A key: one change too (never "nothing selected" in between), the same agreement.
    changes.clear();
    w.key(Qt::Key_Down);
    const UnitId down = w.current();
    QVERIFY(down >= 0 && down != fork);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(changes.front().front().value<UnitId>(), down);
    // The verifier's "Show in graph" ends with a key as with a click.
    w.scene->setFocusedHazard(0);
    w.key(Qt::Key_Up);
    QCOMPARE(w.scene->focusedHazard(), -1);
    QCOMPARE(w.current(), fork);
    // The lineage highlight follows: the selected unit's producers are not dimmed.
    const std::vector<UnitId> bright = w.scene->undimmedUnits();
    for (const UnitId p : w.producers(fork))
        QVERIFY(std::find(bright.begin(), bright.end(), p) != bright.end());
}

void TestGraphKeys::selectedUnitIsScrolledIntoView()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.view->setZoom(1.5); // the graph is larger than the view, each box smaller
    w.key(Qt::Key_Home);
    QVERIFY(w.view->viewport()->rect().contains(w.onScreen(0)));
    const UnitId last = w.document->graph().unitCount() - 1;
    QVERIFY(!w.view->viewport()->rect().intersects(w.onScreen(last))); // off screen: the key scrolls
    w.key(Qt::Key_End);
    QCOMPARE(w.current(), last);
    const QRect box = w.onScreen(last);
    QVERIFY2(w.view->viewport()->rect().contains(box), qPrintable(QStringLiteral("%1,%2 %3x%4")
        .arg(box.x()).arg(box.y()).arg(box.width()).arg(box.height())));
    // Not hidden under the legend either.
    QVERIFY(!box.intersects(w.view->legendRect().toAlignedRect()));
    // Each step of a walk down keeps the unit in view.
    w.key(Qt::Key_Home);
    for (int i = 0; i < 12; ++i) {
        w.key(Qt::Key_Down);
        QVERIFY(w.view->viewport()->rect().contains(w.onScreen(w.current())));
    }
}

void TestGraphKeys::shiftArrowsStillPan()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.view->setZoom(3.0);
    w.key(Qt::Key_Home);
    const int before = w.view->verticalScrollBar()->value();
    w.key(Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(w.current(), UnitId(0));
    QVERIFY(w.view->verticalScrollBar()->value() > before);
}

void TestGraphKeys::escapeClearsTheSelection()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.key(Qt::Key_Down);
    QCOMPARE(w.current(), UnitId(0));
    w.key(Qt::Key_Escape);
    QCOMPARE(w.current(), kNoUnit);
    QVERIFY(w.inspectorName().isEmpty());
    QVERIFY(w.view->hasFocus());
    // And the next arrow starts a new walk.
    w.key(Qt::Key_Down);
    QCOMPARE(w.current(), UnitId(0));
}

void TestGraphKeys::presentationKeysStillStep()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.key(Qt::Key_Home);
    w.window.cursor()->first();
    w.window.setPresentationMode(true);
    w.view->setFocus(Qt::OtherFocusReason);
    QApplication::processEvents();
    const int position = w.window.cursor()->position();
    QVERIFY(position < w.window.cursor()->stepCount());
    w.key(Qt::Key_Right);
    QCOMPARE(w.window.cursor()->position(), position + 1);
    QCOMPARE(w.current(), UnitId(0));
    w.key(Qt::Key_Left);
    QCOMPARE(w.window.cursor()->position(), position);
    w.window.setPresentationMode(false);
}

void TestGraphKeys::focusReturnsAfterFindAndPresentation()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.window.showDock(QStringLiteral("VerifierDock"));
    auto *list = w.window.findChild<QDockWidget *>(QStringLiteral("VerifierDock"))->findChild<QAbstractItemView *>();
    QVERIFY(list);
    list->setFocus(Qt::OtherFocusReason);
    QApplication::processEvents();
    QVERIFY(list->hasFocus());

    // Ctrl+F, a search, Escape twice: back in the Verifier's list, not in the graph.
    QLineEdit *find = w.window.workspace()->searchField();
    w.window.workspace()->actions().find->trigger();
    QVERIFY(find->hasFocus());
    QTest::keyClicks(find, QStringLiteral("zz")); // no unit matches: no completion list opens
    QTest::keyClick(find, Qt::Key_Escape);
    QVERIFY(find->hasFocus());
    QTest::keyClick(find, Qt::Key_Escape);
    QVERIFY2(list->hasFocus(), QApplication::focusWidget() ? QApplication::focusWidget()->metaObject()->className() : "none");

    // Presentation mode hides the list's dock; leaving it gives the list the focus back.
    w.window.setPresentationMode(true);
    QApplication::processEvents();
    // (The offscreen platform may hand the activation to a hidden top-level, here the
    // completion list that showed while typing; the window is active again, as on a desktop.)
    w.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w.window));
    QVERIFY(!list->isVisible());
    w.window.setPresentationMode(false);
    QApplication::processEvents();
    QVERIFY(list->isVisible());
    QVERIFY2(list->hasFocus(), QApplication::focusWidget() ? QApplication::focusWidget()->metaObject()->className() : "none");

    // A widget that is gone or hidden by then leaves the focus to the graph.
    list->setFocus(Qt::OtherFocusReason);
    w.window.workspace()->actions().find->trigger();
    w.window.findChild<QDockWidget *>(QStringLiteral("VerifierDock"))->hide();
    QTest::keyClick(find, Qt::Key_Escape);
    QVERIFY(w.view->hasFocus());
}

void TestGraphKeys::f6MovesBetweenPanes()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.key(Qt::Key_Down); // a unit selected: the Inspector has tables to focus
    const auto dockOfFocus = []() -> QDockWidget * {
        for (QWidget *x = QApplication::focusWidget(); x; x = x->parentWidget()) {
            if (auto *dock = qobject_cast<QDockWidget *>(x))
                return dock;
        }
        return nullptr;
    };
    // The panels on screen (a panel behind another's tab is not), by where they are.
    int onScreen = 0;
    for (QDockWidget *dock : w.window.findChildren<QDockWidget *>()) {
        if (dock->isVisible() && QRect(dock->mapTo(&w.window, QPoint(0, 0)), dock->size()).intersects(w.window.rect()))
            ++onScreen;
    }
    QVERIFY(onScreen >= 4); // training, inspector, verifier, stepper at least

    // F6 from the graph visits each panel once, top to bottom, then comes back.
    std::vector<QDockWidget *> visited;
    QPoint previous(-1, -1);
    for (int i = 0; i < onScreen; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6);
        QDockWidget *dock = dockOfFocus();
        QVERIFY2(dock, "F6 left the focus outside the panels");
        QVERIFY(std::find(visited.begin(), visited.end(), dock) == visited.end());
        const QPoint at = dock->mapTo(&w.window, QPoint(0, 0));
        QVERIFY(std::make_pair(at.y(), at.x()) >= std::make_pair(previous.y(), previous.x()));
        previous = at;
        visited.push_back(dock);
        if (dock->objectName() == QLatin1String("StepperDock")) // the panel's choice: its slider
            QCOMPARE(QApplication::focusWidget(), w.window.findChild<StepperPanel *>()->slider());
    }
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6);
    QVERIFY(w.view->hasFocus());

    // Shift+F6 goes the other way: from the graph to the last panel, then the one before.
    QTest::keyClick(w.view, Qt::Key_F6, Qt::ShiftModifier);
    QCOMPARE(dockOfFocus(), visited.back());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6, Qt::ShiftModifier);
    QCOMPARE(dockOfFocus(), visited[visited.size() - 2]);
}

void TestGraphKeys::tabLeavesTheView()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.key(Qt::Key_Down);
    QVERIFY(w.view->hasFocus());
    w.key(Qt::Key_Tab);
    QVERIFY(!w.view->hasFocus());
    QVERIFY(QApplication::focusWidget());
    w.view->setFocus(Qt::OtherFocusReason);
    QApplication::processEvents();
    w.key(Qt::Key_Backtab, Qt::ShiftModifier);
    QVERIFY(!w.view->hasFocus());
    QCOMPARE(w.current(), UnitId(0)); // leaving keeps the selection
}

void TestGraphKeys::focusFrameOnlyWithFocus()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    const QColor paper = GraphStyle::standard().background;
    // With the focus: a frame along the viewport's edges, in a color that stands out.
    QVERIFY(w.view->hasFocus());
    QCOMPARE(w.view->focusFrameRect(), w.view->viewport()->rect());
    const auto [left, top] = edgePixels(w.view);
    QVERIFY2(left != paper, qPrintable(left.name()));
    QCOMPARE(left, top);
    QVERIFY2(theme::contrastRatio(left, paper) >= 3.0, qPrintable(left.name()));
    if (qEnvironmentVariableIsSet("SPLITSCOPE_GRAPHKEYS_PNG"))
        w.view->grab().save(qEnvironmentVariable("SPLITSCOPE_GRAPHKEYS_PNG"));
    // Without it: none (the edge is the paper's, as the view's middle row far from any unit).
    w.window.workspace()->searchField()->setFocus(Qt::TabFocusReason);
    QApplication::processEvents();
    QVERIFY(!w.view->hasFocus());
    QVERIFY(w.view->focusFrameRect().isEmpty());
    const auto [leftAfter, topAfter] = edgePixels(w.view);
    QCOMPARE(leftAfter, paper);
    QCOMPARE(topAfter, paper);
    // Back with the focus (a click, or Tab), the frame is back.
    w.view->setFocus(Qt::TabFocusReason);
    QApplication::processEvents();
    QCOMPARE(edgePixels(w.view).first, left);
}

// With the pointer resting on the graph, + zoomed around the pointer, and the unit
// selected with the keys went out of view. It now stays where it is on screen; with
// none selected, the view's centre does.
void TestGraphKeys::keysKeepTheViewSteady()
{
    Window w;
    QVERIFY(w.open(QStringLiteral("wan_video"), false));
    w.key(Qt::Key_End); // the last unit
    const UnitId unit = w.current();
    QVERIFY(unit >= 0);
    QTest::mouseMove(w.view->viewport(), QPoint(5, 5)); // a corner, far from the unit
    const QPoint before = w.onScreen(unit).center();
    for (int i = 0; i < 4; ++i)
        w.key(Qt::Key_Plus);
    QVERIFY((w.onScreen(unit).center() - before).manhattanLength() <= 3);
    w.key(Qt::Key_Escape);
    const QPointF middle = w.view->mapToScene(w.view->viewport()->rect().center());
    w.key(Qt::Key_Minus);
    QVERIFY((w.view->mapFromScene(middle) - w.view->viewport()->rect().center()).manhattanLength() <= 3);

    // At the fitted zoom every unit is in view: selecting one by key does not scroll
    // (the first unit of a left-to-right layout is at the left edge, in the margin a
    // walk keeps around a unit it scrolls to).
    Window fit;
    QVERIFY(fit.open(QStringLiteral("wan_video"), true));
    const QPointF fitted = fit.view->mapToScene(fit.view->viewport()->rect().center());
    fit.key(Qt::Key_Home);
    QVERIFY(fit.current() >= 0);
    QCOMPARE(fit.view->mapToScene(fit.view->viewport()->rect().center()), fitted);
}

QTEST_MAIN(TestGraphKeys)
#include "tst_graphkeys.moc"
