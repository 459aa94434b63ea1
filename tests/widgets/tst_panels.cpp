// SPDX-License-Identifier: MIT
// The panels driven as a user drives them: the stepper's buttons, slider, chips,
// shortcuts, play and presentation mode; the training panel's LoRA choice, mode
// and presets; the comparison panel; the inspector's explanation.
#include "WidgetTestSupport.h"
#include "widgets/models/UnitPortsModel.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/models/DiagnosticsModel.h"
#include "widgets/models/ModelChoiceModel.h"
#include "widgets/models/MovedUnitsModel.h"
#include "widgets/models/ParamTableModel.h"
#include "widgets/panels/ComparePanel.h"
#include "widgets/panels/InspectorPanel.h"
#include "widgets/panels/ParamsPanel.h"
#include "widgets/panels/ProblemsPanel.h"
#include "widgets/panels/StepperPanel.h"
#include "widgets/panels/TrainingPanel.h"
#include "widgets/panels/VerifierPanel.h"

#include "core/Explain.h"
#include "core/SplitReport.h"

#include <QAction>
#include <QImage>
#include <QComboBox>
#include <QLabel>
#include <QRadioButton>
#include <QSlider>
#include <QMenu>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QTest>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>

using namespace splitscope;
using namespace splitscope::test;

namespace {

template <typename T>
T *findByText(QWidget *parent, const QString &text)
{
    for (T *w : parent->findChildren<T *>()) {
        if (w->text().remove(QLatin1Char('&')) == text)
            return w;
    }
    return nullptr;
}

} // namespace

class TestPanels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stepperButtonsSliderAndChips();
    void stepperShortcutsAndPresentationMode();
    void stepperPlaysToTheEnd();
    void stepperSliderShowsTheFocus();
    void trainingPanelChangesTheSplit();
    void comparePanelDrivesTheComparison();
    void inspectorExplainsTheCurrentUnit();
    void inspectorTablesShowWholeNamesWhenThereIsRoom();
    void problemsPanelSaysWhatFailed();
    void compareRowShowsSplitBOfTheOtherMode();
    void inspectorShortensALongName();
    void inspectorInputsShowTheProducerTwoStageGives();
    void inspectorOutputsShowWhoReadsTheValueInEachRun();
    void paramsPanelKeepsTheCacheColumnInView();
    void summariesCountInTheSingularAndPlural();
    void panelsWorkFromTheKeyboard();
};

void TestPanels::stepperButtonsSliderAndChips()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel panel(&document, &cursor);
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    document.setModelTrainable("vae", true);
    const Split &split = document.analysis()->split;
    const auto steps = traceSteps(split);
    QCOMPARE(panel.slider()->maximum(), static_cast<int>(steps.size()));
    QCOMPARE(panel.slider()->value(), static_cast<int>(steps.size())); // rests on the split
    const QList<QAction *> actions = panel.stepActions(); // first, previous, play, next, last, presentation
    actions[0]->trigger();
    QCOMPARE(cursor.position(), 0);
    QCOMPARE(panel.slider()->value(), 0);
    QVERIFY(!actions[0]->isEnabled() && !actions[1]->isEnabled());
    actions[3]->trigger();
    QCOMPARE(cursor.position(), 1);
    // The explanation is the core's, line by line.
    const auto lines = describeStep(document.graph(), split, steps[1]);
    for (const std::string &line : lines)
        QVERIFY2(panel.explanationText().contains(QString::fromStdString(line)), line.c_str());
    actions[1]->trigger();
    QCOMPARE(cursor.position(), 0);
    panel.slider()->setValue(2);
    QCOMPARE(cursor.position(), 2);
    // One chip per step plus "Split"; clicking one moves there.
    QToolButton *chip = findByText<QToolButton>(&panel, QString::fromStdString(steps[1].label()));
    QVERIFY(chip);
    QTest::mouseClick(chip, Qt::LeftButton);
    QCOMPARE(cursor.position(), 1);
    QVERIFY(chip->isChecked());
    actions[4]->trigger();
    QVERIFY(cursor.atSplit());
    QVERIFY(panel.explanationText().contains(QStringLiteral("The split")));
}

void TestPanels::stepperSliderShowsTheFocus()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel panel(&document, &cursor);
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    panel.resize(700, 220);
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    cursor.setPosition(1); // the handle away from the slider's ends
    QSlider *slider = panel.slider();
    // Pixels near the palette's highlight (the groove's filled part has that colour too).
    const auto highlightPixels = [slider]() {
        const QImage image = slider->grab().toImage();
        const QColor highlight = slider->palette().color(QPalette::Highlight);
        int count = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                count += std::abs(c.red() - highlight.red()) + std::abs(c.green() - highlight.green())
                        + std::abs(c.blue() - highlight.blue()) < 60;
            }
        }
        return count;
    };
    QVERIFY(!slider->hasFocus());
    const int unfocused = highlightPixels();
    slider->setFocus(Qt::TabFocusReason);
    QVERIFY(slider->hasFocus());
    const int focused = highlightPixels();
    // A 2 px ring round the handle: well over a hundred pixels more.
    QVERIFY2(focused > unfocused + 60, qPrintable(QStringLiteral("%1 against %2").arg(focused).arg(unfocused)));
    slider->clearFocus();
    QCOMPARE(highlightPixels(), unfocused);
}

void TestPanels::stepperShortcutsAndPresentationMode()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel panel(&document, &cursor);
    panel.show();
    QApplication::setActiveWindow(&panel);
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    document.setModelTrainable("vae", true);
    QTest::keyClick(&panel, Qt::Key_Home, Qt::ControlModifier);
    QCOMPARE(cursor.position(), 0);
    QTest::keyClick(&panel, Qt::Key_Period);
    QCOMPARE(cursor.position(), 1);
    QTest::keyClick(&panel, Qt::Key_Right, Qt::ControlModifier);
    QCOMPARE(cursor.position(), 2);
    QTest::keyClick(&panel, Qt::Key_Comma);
    QCOMPARE(cursor.position(), 1);
    // Plain arrows only step in presentation mode.
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(cursor.position(), 1);
    const double normal = panel.findChild<QTextBrowser *>()->font().pointSizeF();
    QSignalSpy presentation(&panel, &StepperPanel::presentationModeChanged);
    QTest::keyClick(&panel, Qt::Key_F5);
    QCOMPARE(presentation.count(), 1);
    QVERIFY(panel.presentationMode());
    QVERIFY(panel.findChild<QTextBrowser *>()->font().pointSizeF() >= 2 * normal);
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(cursor.position(), 2);
    QTest::keyClick(&panel, Qt::Key_Space);
    QCOMPARE(cursor.position(), 3);
    QTest::keyClick(&panel, Qt::Key_PageUp);
    QCOMPARE(cursor.position(), 2);
    panel.setPresentationMode(false);
    QCOMPARE(panel.findChild<QTextBrowser *>()->font().pointSizeF(), normal);
    QTest::keyClick(&panel, Qt::Key_End, Qt::ControlModifier);
    QVERIFY(cursor.atSplit());
}

void TestPanels::stepperPlaysToTheEnd()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel panel(&document, &cursor);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    document.setModelTrainable("vae", true);
    panel.setSecondsPerStep(0.5);
    QCOMPARE(panel.secondsPerStep(), 0.5);
    QSignalSpy moved(&cursor, &TraceCursor::positionChanged);
    panel.setPlaying(true); // from the split: starts over at X0
    QCOMPARE(cursor.position(), 0);
    QVERIFY(panel.isPlaying());
    cursor.setPosition(cursor.stepCount() - 1);
    moved.clear();
    QVERIFY(moved.wait(3000));
    QVERIFY(cursor.atSplit());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlaying(), 3000); // stops at the end
}

void TestPanels::trainingPanelChangesTheSplit()
{
    SplitDocument document;
    TrainingPanel panel(&document);
    panel.show();
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    // LoRA base from the combo box, by keyboard.
    QComboBox *lora = panel.loraCombo();
    QCOMPARE(lora->currentText(), QStringLiteral("dit"));
    lora->setFocus();
    const int vae = lora->findText(QStringLiteral("vae"));
    while (lora->currentIndex() < vae)
        QTest::keyClick(lora, Qt::Key_Down);
    QCOMPARE(document.training().loraBase, std::optional<std::string>("vae"));
    QCOMPARE(document.analysis()->split.trained, computeSeedSplit(document.graph(), {"vae"}).trained);
    // The presets list the file's alternatives; the choice is now custom.
    QComboBox *presets = panel.presetCombo();
    QCOMPARE(presets->count(), static_cast<int>(document.presets().size()) + 1);
    QVERIFY(presets->currentText().startsWith(QStringLiteral("custom")));
    QVERIFY(presets->toolTip().startsWith(presets->currentText())); // a long one is cut in the box
    // Safe mode by its radio button.
    QRadioButton *safe = findByText<QRadioButton>(&panel, QStringLiteral("Safe: hazard-free closure"));
    QVERIFY(safe);
    QTest::mouseClick(safe, Qt::LeftButton, Qt::NoModifier, QPoint(5, safe->height() / 2));
    QCOMPARE(document.training().mode, SplitMode::Safe);
    // Picking the first preset (the file's training block) brings dit back, keeping the mode.
    presets->setFocus();
    while (presets->currentIndex() > 0)
        QTest::keyClick(presets, Qt::Key_Up);
    QCOMPARE(document.training().loraBase, std::optional<std::string>("dit"));
    QCOMPARE(document.training().mode, SplitMode::Safe);
}

void TestPanels::comparePanelDrivesTheComparison()
{
    SplitDocument document;
    ComparePanel panel(&document);
    panel.show();
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    QRadioButton *seedVsSafe = findByText<QRadioButton>(&panel, QStringLiteral("Seed vs safe"));
    QVERIFY(seedVsSafe);
    QTest::mouseClick(seedVsSafe, Qt::LeftButton, Qt::NoModifier, QPoint(5, seedVsSafe->height() / 2));
    QCOMPARE(document.compareKind(), SplitDocument::CompareKind::OtherMode);
    const auto diff = document.diff();
    QVERIFY(diff && !diff->moved.empty());
    QCOMPARE(panel.movedUnits()->rowCount(), static_cast<int>(diff->moved.size()));
    QVERIFY2(panel.summaryText().contains(QStringLiteral("move")), qPrintable(panel.summaryText()));
    QVERIFY(panel.tree()->isVisible()); // the list of moved units shows only with rows
    // Choosing a moved unit in the list makes it the current unit.
    panel.tree()->setCurrentIndex(panel.movedUnits()->index(0, 0));
    QCOMPARE(document.currentUnit(), diff->moved.front().unit);
    // Side by side.
    QSignalSpy side(&panel, &ComparePanel::sideBySideChanged);
    QToolButton *sideBySide = findByText<QToolButton>(&panel, QStringLiteral("Side by side"));
    QTest::mouseClick(sideBySide, Qt::LeftButton);
    QCOMPARE(side.count(), 1);
    QVERIFY(panel.sideBySide());
    // Another configuration: B gets its own models.
    TrainingChoice b;
    b.trainable = {"dit"};
    panel.compareConfiguration(b);
    QCOMPARE(document.compareKind(), SplitDocument::CompareKind::Configuration);
    QCOMPARE(document.comparisonChoice(), b);
    panel.compareOff();
    QVERIFY(!document.comparison());
    QVERIFY(!panel.tree()->isVisible());
}

void TestPanels::inspectorExplainsTheCurrentUnit()
{
    SplitDocument document;
    InspectorPanel panel(&document);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    document.setModelTrainable("vae", true);
    QVERIFY(panel.headerText().contains(QStringLiteral("No unit selected")));
    const UnitId unit = document.graph().findUnit("QwenImageUnit_PromptEmbedder");
    document.setCurrentUnit(unit);
    QVERIFY(panel.headerText().contains(QStringLiteral("QwenImageUnit_PromptEmbedder")));
    QVERIFY(panel.headerText().contains(QStringLiteral("stage two")));
    QVERIFY(panel.headerText().contains(QStringLiteral("text_encoder")));
    const Explanation e = explainUnit(document.graph(), document.analysis()->split, unit);
    for (std::size_t i = 1; i < e.lines.size(); ++i) {
        const QString line = QString::fromStdString(e.lines[i]).section(QStringLiteral(". "), 1);
        QVERIFY2(panel.reasonText().contains(line), qPrintable(line));
    }
    // A cached unit says why it stays in stage one.
    const UnitId shape = document.graph().findUnit("QwenImageUnit_ShapeChecker");
    document.setCurrentUnit(shape);
    QVERIFY(panel.headerText().contains(QStringLiteral("stage one")));
    QVERIFY(panel.reasonText().contains(QStringLiteral("calls no model")));
    document.setCurrentUnit(document.graph().lossId());
    QVERIFY(panel.headerText().contains(QStringLiteral("loss")));
}

// At the dock's usual width, wan_video's four animate_*_video outputs are shown whole
// (they were all "animat…_video"), and each header is readable.
void TestPanels::inspectorTablesShowWholeNamesWhenThereIsRoom()
{
    SplitDocument document;
    InspectorPanel panel(&document);
    panel.resize(330, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    QTableView *outputs = nullptr;
    for (QTableView *table : panel.findChildren<QTableView *>()) {
        if (table->model() == panel.outputsModel())
            outputs = table;
    }
    QVERIFY(outputs);
    panel.findChild<QTabWidget *>()->setCurrentIndex(1); // Outputs
    QCoreApplication::processEvents();
    document.setCurrentUnit(document.graph().findUnit("WanVideoUnit_AnimateVideoSplit"));
    QCOMPARE(panel.outputsModel()->rowCount(), 4);
    // The param column is as wide as its widest name needs (not capped short of it).
    const QAbstractItemView *view = outputs; // sizeHintForColumn is public there
    const int needed = view->sizeHintForColumn(UnitPortsModel::ParamColumn);
    QVERIFY2(outputs->columnWidth(UnitPortsModel::ParamColumn) >= needed,
        qPrintable(QStringLiteral("%1 px for %2 px of names").arg(outputs->columnWidth(UnitPortsModel::ParamColumn)).arg(needed)));
}

void TestPanels::problemsPanelSaysWhatFailed()
{
    SplitDocument document;
    ProblemsPanel panel(&document);
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QVERIFY(!document.openSource(QStringLiteral("/nonexistent/p.json")));
    QVERIFY(panel.findChild<QLabel *>()->text().contains(QStringLiteral("could not be loaded")));
    QVERIFY(panel.findChild<QLabel *>()->text().contains(QStringLiteral("qwen_image")));
    QVERIFY2(panel.findChild<QLabel *>()->text().contains(QStringLiteral("could not be loaded</b></span> (1 error).")),
        qPrintable(panel.findChild<QLabel *>()->text()));

    // In a narrow dock the message stays in view (the file and the JSON path took the
    // whole width at 1280x720): wan_video's warning names units[15].output_params.
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    QVERIFY(panel.table()->model()->rowCount() > 0);
    panel.resize(520, 200);
    panel.show();
    QApplication::processEvents();
    const int message = panel.table()->columnViewportPosition(DiagnosticsModel::MessageColumn);
    QVERIFY2(message + 120 < panel.table()->viewport()->width(),
        qPrintable(QStringLiteral("message column at %1 of %2").arg(message).arg(panel.table()->viewport()->width())));
}

void TestPanels::compareRowShowsSplitBOfTheOtherMode()
{
    SplitDocument document;
    ComparePanel panel(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    TrainingChoice a = document.training();
    a.mode = SplitMode::Safe;
    document.setTraining(a);
    // Seed vs safe: B is A's models under the seed algorithm; the greyed row says so.
    panel.compareOtherMode();
    const TrainingChoice b = document.comparisonChoice();
    QCOMPARE(b.mode, SplitMode::Seed);
    QComboBox *mode = nullptr;
    QComboBox *lora = nullptr;
    for (QComboBox *box : panel.findChildren<QComboBox *>()) {
        if (box->findText(QStringLiteral("safe")) >= 0 && box->count() == 2)
            mode = box;
        else if (box->findText(QStringLiteral("(none)")) >= 0)
            lora = box;
    }
    QVERIFY(mode && lora);
    QVERIFY(!mode->isEnabled());
    QCOMPARE(mode->currentText(), QStringLiteral("seed"));
    QCOMPARE(lora->currentData().toString(), b.loraBase ? QString::fromStdString(*b.loraBase) : QString());
    auto *models = findByText<QToolButton>(&panel, QStringLiteral("Trainable…"));
    QVERIFY(models);
    for (QAction *action : models->menu()->actions())
        QCOMPARE(action->isChecked(), b.isTrainable(action->data().toString().toStdString()));
    // Switching A's algorithm switches B's, and the row follows.
    a.mode = SplitMode::Seed;
    document.setTraining(a);
    QCOMPARE(mode->currentText(), QStringLiteral("safe"));
}

void TestPanels::inspectorShortensALongName()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.json"));
    QVERIFY(writeLongNamesPipeline(path));
    SplitDocument document;
    InspectorPanel panel(&document);
    panel.resize(320, 700);
    panel.show();
    QVERIFY(document.openSource(path));
    const int minimumBefore = panel.minimumSizeHint().width();
    document.setCurrentUnit(document.graph().findUnit(longUnitName().toStdString()));
    // The panel can stay as narrow as before: the name wraps and is shortened.
    QVERIFY2(panel.minimumSizeHint().width() <= std::max(minimumBefore, 320),
        qPrintable(QString::number(panel.minimumSizeHint().width())));
    QVERIFY2(panel.sizeHint().width() < 600, qPrintable(QString::number(panel.sizeHint().width())));
    const QString header = panel.headerText();
    QVERIFY2(header.startsWith(QStringLiteral("VeryLongUnitName_Abcdefghij")) && header.contains(QChar(0x2026)),
        qPrintable(header));
    QVERIFY(!header.contains(longUnitName()));
    QCOMPARE(panel.findChild<QLabel *>()->toolTip(), longUnitName());
}

// The table the user reads for `model` in the inspector.
static QTableView *tableOf(InspectorPanel &panel, const UnitPortsModel *model)
{
    for (QTableView *table : panel.findChildren<QTableView *>()) {
        if (table->model() == model)
            return table;
    }
    return nullptr;
}

// In the write-after-read counterexample (A: x->p, C[dit]: p->y, B: p->p), two-stage
// training gives C the p that B wrote (the cache holds the last stage-one value); the
// Inputs table said "p | A | cache". It must say what the Verifier says.
void TestPanels::inspectorInputsShowTheProducerTwoStageGives()
{
    SplitDocument document;
    InspectorPanel panel(&document);
    panel.resize(360, 600);
    panel.show();
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    const PipelineGraph &graph = document.graph();
    const UnitId a = graph.findUnit("A");
    const UnitId b = graph.findUnit("B");
    const UnitId c = graph.findUnit("C");
    document.setCurrentUnit(c); // as a click on C does
    QTableView *inputs = tableOf(panel, panel.inputsModel());
    QVERIFY(inputs);
    QCOMPARE(inputs->model()->rowCount(), 1);
    const auto &hazards = document.analysis()->verification.hazards;
    QCOMPARE(hazards.size(), std::size_t(1));
    QCOMPARE(hazards.front().expected, a);
    QCOMPARE(hazards.front().actual, b);
    const QModelIndex producer = inputs->model()->index(0, UnitPortsModel::PeerColumn);
    const QModelIndex source = inputs->model()->index(0, UnitPortsModel::SourceColumn);
    QCOMPARE(producer.data().toString(), QStringLiteral("A\n⚠ two-stage: B"));
    QCOMPARE(source.data().toString(), QStringLiteral("⚠ cache"));
    QVERIFY(source.data(UnitPortsModel::kHazardRole).toBool());
    QCOMPARE(source.data(Qt::ForegroundRole).value<QColor>(), QColor(QLatin1String(kHazardColor)));
    const QString tip = source.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("write-after-read")) && tip.contains(QStringLiteral("sees B's value"))
            && tip.contains(QStringLiteral("gives it A's value")),
        qPrintable(tip));
    // The explanation's own list markers ("1. ", "- ") are not shown twice.
    for (const QString &line : panel.reasonText().split(QLatin1Char('\n')))
        QVERIFY2(!line.trimmed().startsWith(QStringLiteral("- ")), qPrintable(panel.reasonText()));
    // The safe split runs B in stage two after C: the cache holds A's p, as one-stage training gives.
    document.setSplitMode(SplitMode::Safe);
    QVERIFY(document.analysis()->verification.hazards.empty());
    QCOMPARE(inputs->model()->index(0, UnitPortsModel::PeerColumn).data().toString(), QStringLiteral("A"));
    QCOMPARE(inputs->model()->index(0, UnitPortsModel::SourceColumn).data().toString(), QStringLiteral("cache"));
    QVERIFY(!inputs->model()->index(0, UnitPortsModel::SourceColumn).data(UnitPortsModel::kHazardRole).toBool());

    // Write-after-write: the loss reads p, which B (stage one) writes last, but stage
    // two leaves A's value.
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_write")));
    document.setSplitMode(SplitMode::Seed); // another pipeline keeps the algorithm
    document.setCurrentUnit(document.graph().lossId());
    QCOMPARE(inputs->model()->rowCount(), 1);
    QCOMPARE(inputs->model()->index(0, UnitPortsModel::PeerColumn).data().toString(),
        QStringLiteral("B\n⚠ two-stage: A"));
    QCOMPARE(inputs->model()->index(0, UnitPortsModel::SourceColumn).data().toString(),
        QStringLiteral("⚠ stage two"));
}

void TestPanels::inspectorOutputsShowWhoReadsTheValueInEachRun()
{
    SplitDocument document;
    InspectorPanel panel(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    // B's p goes into the cache and C reads it there, in two-stage training only.
    document.setCurrentUnit(document.graph().findUnit("B"));
    UnitPortsModel *outputs = panel.outputsModel();
    QCOMPARE(outputs->rowCount(), 1);
    QCOMPARE(outputs->index(0, UnitPortsModel::PeerColumn).data().toString(), QStringLiteral("⚠ C (two-stage only)"));
    QCOMPARE(outputs->index(0, UnitPortsModel::SourceColumn).data().toString(), QStringLiteral("cached"));
    QVERIFY(outputs->index(0, UnitPortsModel::PeerColumn).data(UnitPortsModel::kHazardRole).toBool());
    // A's p is what C reads in one-stage training only (B reads it in both).
    document.setCurrentUnit(document.graph().findUnit("A"));
    QCOMPARE(outputs->index(0, UnitPortsModel::PeerColumn).data().toString(),
        QStringLiteral("⚠ C (one-stage only), B"));
}

// wan_video's Params panel floating at 1590 px, and docked at its usual width: the
// "Read by" column was as wide as its longest list, so "Cache set" was off screen
// and, measured before the first split, elided to "cached …".
void TestPanels::paramsPanelKeepsTheCacheColumnInView()
{
    SplitDocument document;
    ParamsPanel panel(&document);
    panel.resize(1590, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    QCoreApplication::processEvents();
    QTableView *table = panel.table();
    const QAbstractItemView *view = table; // sizeHintForColumn is public there
    const int viewport = table->viewport()->width();
    const int cacheLeft = table->columnViewportPosition(ParamTableModel::CacheColumn);
    const int cacheWidth = table->columnWidth(ParamTableModel::CacheColumn);
    QVERIFY2(cacheLeft >= 0 && cacheLeft + cacheWidth <= viewport,
        qPrintable(QStringLiteral("cache set at %1..%2 of %3").arg(cacheLeft).arg(cacheLeft + cacheWidth).arg(viewport)));
    const int cacheNeeds = view->sizeHintForColumn(ParamTableModel::CacheColumn);
    QVERIFY2(cacheWidth >= cacheNeeds, qPrintable(QStringLiteral("%1 px for %2 px").arg(cacheWidth).arg(cacheNeeds)));
    // Every column starts in view; the lists are capped, not the panel's width.
    for (int column = 0; column < ParamTableModel::ColumnCount; ++column)
        QVERIFY2(table->columnViewportPosition(column) < viewport, qPrintable(QString::number(column)));
    QVERIFY(table->columnWidth(ParamTableModel::ChainColumn) <= viewport * 2 / 5);
    // The longest list of readers is elided; its tooltip has every reader.
    const ParamTableModel *model = panel.params();
    int longest = 0;
    for (int row = 1; row < model->rowCount(); ++row) {
        if (model->index(row, ParamTableModel::ReadersColumn).data().toString().size()
            > model->index(longest, ParamTableModel::ReadersColumn).data().toString().size())
            longest = row;
    }
    const ParamId param = model->index(longest, 0).data(ParamTableModel::kParamIdRole).toInt();
    const QString tip = model->index(longest, ParamTableModel::ReadersColumn).data(Qt::ToolTipRole).toString();
    for (const UnitId reader : document.graph().readers(param))
        QVERIFY2(tip.contains(QString::fromStdString(document.graph().unitName(reader))), qPrintable(tip));
    // Docked at its usual width, the cache set is still the second column, in view.
    panel.resize(360, 500);
    QCoreApplication::processEvents();
    QVERIFY(table->columnViewportPosition(ParamTableModel::CacheColumn) + 20 < table->viewport()->width());
}

void TestPanels::summariesCountInTheSingularAndPlural()
{
    // Three units, each reading only the external prompt: every unit that calls a
    // trained model is stage two, the others stage one. Trained vae: 1 unit in stage
    // two, 2 in stage one; vae and dit: 2 and 1.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("counts.json"));
    QVERIFY(writeFileBytes(path, R"({"format": "splitscope.pipeline/1", "name": "counts", "models": ["vae", "dit"],
  "units": [
    {"name": "A", "input_params": ["prompt"], "output_params": ["a"], "onload_model_names": ["vae"]},
    {"name": "B", "input_params": ["prompt"], "output_params": ["b"], "onload_model_names": ["dit"]},
    {"name": "C", "input_params": ["prompt"], "output_params": ["c"]}
  ],
  "loss": {"name": "Loss", "input_params": ["a", "b", "c"]},
  "training": {"trainable_models": "vae"}}
)"));
    SplitDocument document;
    TraceCursor cursor(&document);
    TrainingPanel training(&document);
    StepperPanel stepper(&document, &cursor);
    ComparePanel compare(&document);
    QVERIFY(document.openFile(path));
    QCOMPARE(document.analysis()->split.trainedCount(), std::size_t(1));
    compare.compareOtherMode(); // seed vs safe: the same split here
    QVERIFY(cursor.atSplit());
    // Whole phrases, so that "1 unit" is not found inside "1 units".
    QString text = training.summaryText();
    QVERIFY2(text.contains(QStringLiteral("Stage two (every step): 1 unit ")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Stage one (cached): 2 units\n")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("(s)")), qPrintable(text));
    text = stepper.explanationText();
    QVERIFY2(text.contains(QStringLiteral("Stage two (every training step): 1 of 3 units. Stage one (cached): 2 units.")),
        qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("reached after 1 iteration.")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("(s)")), qPrintable(text));
    text = compare.summaryText();
    QVERIFY2(text.contains(QStringLiteral("Identical splits: 1 stays in stage two, 2 stay cached.")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("(s)")), qPrintable(text));

    document.setModelTrainable("dit", true);
    QCOMPARE(document.analysis()->split.trainedCount(), std::size_t(2));
    text = training.summaryText();
    QVERIFY2(text.contains(QStringLiteral("Stage two (every step): 2 units ")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Stage one (cached): 1 unit\n")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("(s)")), qPrintable(text));
    text = stepper.explanationText();
    QVERIFY2(text.contains(QStringLiteral("Stage two (every training step): 2 of 3 units. Stage one (cached): 1 unit.")),
        qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("(s)")), qPrintable(text));
    text = compare.summaryText();
    QVERIFY2(text.contains(QStringLiteral("Identical splits: 2 stay in stage two, 1 stays cached.")), qPrintable(text));
    // The X0 step says what X0 is, in the words of the legend, without repeating its label.
    cursor.setPosition(0);
    text = stepper.explanationText();
    QVERIFY2(text.startsWith(QStringLiteral("X0 — Start: the units that call a model that needs gradients. "
                                            "X now has 2 of 3 units; this step added 2.")),
        qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("(DiffSynth's models_require_backward: vae, dit)")), qPrintable(text));
    QVERIFY2(!training.summaryText().contains(QStringLiteral("no unit calls it")), qPrintable(training.summaryText()));
    // A model no unit calls (a denoiser only the loss runs) puts no unit in stage two: the summary says why.
    QVERIFY(document.openExample(QStringLiteral("qwen_image")));
    QCOMPARE(document.analysis()->split.trainedCount(), std::size_t(0));
    QVERIFY2(training.summaryText().contains(QStringLiteral(
                 "dit needs gradients but no unit calls it: only the loss runs it, so it puts no unit in stage two")),
        qPrintable(training.summaryText()));
}

// Keyboard use the audits found broken: Space in the model table's counts column did
// nothing, Enter on a Verifier finding did nothing, and the empty Inspector was a Tab
// stop with nothing in it.
void TestPanels::panelsWorkFromTheKeyboard()
{
    SplitDocument document;
    TrainingPanel training(&document);
    VerifierPanel verifier(&document);
    InspectorPanel inspector(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    auto *table = training.findChild<QTableView *>();
    QVERIFY(table);
    table->setFocus();
    table->setCurrentIndex(table->model()->index(0, ModelChoiceModel::UnitsColumn));
    QCOMPARE(table->currentIndex().column(), int(ModelChoiceModel::ModelColumn));
    QVERIFY(!document.training().isTrainable("dit"));
    QTest::keyClick(table, Qt::Key_Space);
    QVERIFY(document.training().isTrainable("dit"));
    QTest::keyClick(table, Qt::Key_Space);
    QVERIFY(!document.training().isTrainable("dit"));

    auto *findings = verifier.findChild<QTableView *>();
    QVERIFY(findings && findings->model()->rowCount() > 0);
    int requested = -1;
    connect(&verifier, &VerifierPanel::hazardRequested, this, [&requested](int hazard) { requested = hazard; });
    findings->setCurrentIndex(findings->model()->index(0, 0));
    QTest::keyClick(findings, Qt::Key_Return);
    QCOMPARE(requested, 0);

    auto *explanation = inspector.findChild<QTextBrowser *>();
    QVERIFY(explanation);
    document.setCurrentUnit(kNoUnit);
    QCOMPARE(explanation->focusPolicy(), Qt::NoFocus);
    document.setCurrentUnit(0);
    QVERIFY(explanation->focusPolicy() & Qt::TabFocus);
}

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
