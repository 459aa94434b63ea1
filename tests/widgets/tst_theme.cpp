// SPDX-License-Identifier: MIT
// The panels under a dark palette (a desktop whose theme is dark): every notice, badge
// and colored line of text reads on what it is drawn on, the toolbar icons show on a
// dark toolbar (and disabled ones are dimmer), the item models' colors read on the
// views' base, and the charts take Qt Charts' dark theme. A light palette keeps the
// designed colors.
#include "WidgetTestSupport.h"

#include "widgets/common/ThemeColors.h"
#include "widgets/common/WidgetHelpers.h"
#include "widgets/document/SplitDocument.h"
#include "widgets/document/TraceCursor.h"
#include "widgets/models/FindingsModel.h"
#include "widgets/panels/ComparePanel.h"
#include "widgets/panels/InspectorPanel.h"
#include "widgets/panels/LoadErrorBanner.h"
#include "widgets/panels/StepperPanel.h"
#include "widgets/panels/TrainingPanel.h"
#include "widgets/panels/VerifierPanel.h"
#include "widgets/run/LossChartView.h"
#include "widgets/run/RunController.h"
#include "widgets/run/RunPanel.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QLabel>
#include <QPalette>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFragment>

#include <algorithm>

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr double kText = 4.5;  // WCAG AA, body text
constexpr double kMuted = 3.0; // secondary text, icons

// The dark palette of the QA's preload (Fusion, as a dark desktop theme gives it).
QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(45, 45, 48));
    p.setColor(QPalette::WindowText, QColor(220, 220, 220));
    p.setColor(QPalette::Base, QColor(30, 30, 30));
    p.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 60));
    p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    p.setColor(QPalette::Text, QColor(220, 220, 220));
    p.setColor(QPalette::Button, QColor(53, 53, 56));
    p.setColor(QPalette::ButtonText, QColor(220, 220, 220));
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(80, 160, 255));
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    p.setColor(QPalette::Mid, QColor(80, 80, 80));
    p.setColor(QPalette::Dark, QColor(25, 25, 25));
    p.setColor(QPalette::Light, QColor(90, 90, 90));
    p.setColor(QPalette::Midlight, QColor(70, 70, 70));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    return p;
}

// A run of text as it is drawn: its color and the color behind it.
struct Run {
    QString text;
    QColor ink;
    QColor paper;
};

// The runs of rich `html` drawn in `ink` on `paper` where it sets neither (a span's
// background or color, a paragraph's color).
QList<Run> runsOf(const QString &html, const QColor &ink, const QColor &paper)
{
    QTextDocument document;
    document.setHtml(html);
    QList<Run> runs;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QString text = fragment.text().trimmed().remove(QChar(0x200B)).remove(QChar::Nbsp);
            if (text.isEmpty())
                continue;
            const QTextCharFormat format = fragment.charFormat();
            runs.push_back({text,
                format.hasProperty(QTextFormat::ForegroundBrush) ? format.foreground().color() : ink,
                format.hasProperty(QTextFormat::BackgroundBrush) ? format.background().color() : paper});
        }
    }
    return runs;
}

// A label's runs, with the colors its style sheet gives it (a notice's fill and ink);
// `behind` is what shows through a label that fills nothing.
QList<Run> runsOf(QLabel *label, const QColor &behind)
{
    label->ensurePolished();
    const QPalette palette = label->palette();
    const bool fills = label->autoFillBackground() || label->testAttribute(Qt::WA_StyledBackground)
        || label->styleSheet().contains(QLatin1String("background"));
    return runsOf(label->text(), palette.color(QPalette::WindowText), fills ? palette.color(QPalette::Window) : behind);
}

QList<Run> runsOf(QTextBrowser *browser)
{
    const QPalette palette = browser->palette();
    return runsOf(browser->toHtml(), palette.color(QPalette::Text), palette.color(QPalette::Base));
}

// Fails naming the first run whose contrast is under `minimum`.
bool allReadable(const QList<Run> &runs, double minimum, QString *why)
{
    for (const Run &run : runs) {
        const double ratio = theme::contrastRatio(run.ink, run.paper);
        if (ratio < minimum) {
            *why = QStringLiteral("\"%1\": %2 on %3, contrast %4 < %5")
                       .arg(run.text.left(60), run.ink.name(), run.paper.name())
                       .arg(ratio, 0, 'f', 2)
                       .arg(minimum);
            return false;
        }
    }
    return !runs.isEmpty() || (*why = QStringLiteral("no text"), false);
}

#define VERIFY_READABLE(runs, minimum)                                                                                 \
    do {                                                                                                               \
        QString why_;                                                                                                  \
        QVERIFY2(allReadable((runs), (minimum), &why_), qPrintable(why_));                                             \
    } while (false)

// The ink of an icon's pixmap: the color of its most opaque pixel.
QColor inkOf(const QPixmap &pixmap)
{
    const QImage image = pixmap.toImage().convertToFormat(QImage::Format_ARGB32);
    QColor best(Qt::transparent);
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.alpha() > best.alpha())
                best = c;
        }
    }
    best.setAlpha(255);
    return best;
}

} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void helperMeetsTheContrastItPromises();
    void inspectorBadgesAndMutedTextRead();
    void noticesRead();
    void loadErrorBannerReads();
    void panelSummariesRead();
    void toolbarIconsShowAndDisabledOnesAreDimmer();
    void modelColorsReadOnTheBase();
    void chartsFollowThePalette();
    void lightPaletteKeepsTheDesignedColors();

private:
    QPalette m_original;
};

void TestTheme::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_original = QApplication::palette();
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(darkPalette());
    QVERIFY(theme::isDark());
}

void TestTheme::cleanupTestCase()
{
    QApplication::setPalette(m_original);
}

void TestTheme::helperMeetsTheContrastItPromises()
{
    const QPalette dark = darkPalette();
    // The WCAG formula: black on white is 21, a color on itself 1.
    QCOMPARE(qRound(theme::contrastRatio(Qt::black, Qt::white) * 100), 2100);
    QCOMPARE(theme::contrastRatio(QColor(0x49, 0x50, 0x57), QColor(0x49, 0x50, 0x57)), 1.0);
    using theme::Tone;
    for (const Tone tone : {Tone::Text, Tone::Muted, Tone::Subtle, Tone::Accent, Tone::Error, Tone::Hazard,
             Tone::Warning, Tone::Success, Tone::Moved, Tone::Running}) {
        for (const QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::AlternateBase}) {
            const double ratio = theme::contrastRatio(theme::textColor(tone, dark), dark.color(role));
            QVERIFY2(ratio >= kText, qPrintable(QStringLiteral("tone %1 on role %2: %3")
                                                    .arg(static_cast<int>(tone)).arg(role).arg(ratio)));
        }
    }
    QVERIFY(theme::contrastRatio(theme::textColor(Tone::Faint, dark), dark.color(QPalette::Window)) >= kMuted);
    // A tone keeps its hue: the hazard color stays a pink, not a grey.
    QVERIFY(theme::textColor(Tone::Hazard, dark).hslSaturationF() > 0.3);
    // Muted text is still quieter than the window's text.
    QVERIFY(theme::contrastRatio(theme::textColor(Tone::Muted, dark), dark.color(QPalette::Window))
        < theme::contrastRatio(dark.color(QPalette::WindowText), dark.color(QPalette::Window)));
}

// The stage, loss and model badges keep the graph's light fills: dark ink on them. The
// muted and hazard lines read on the dark window.
void TestTheme::inspectorBadgesAndMutedTextRead()
{
    SplitDocument document;
    InspectorPanel panel(&document);
    const QColor window = panel.palette().color(QPalette::Window);
    auto *header = panel.findChild<QLabel *>();
    QVERIFY(header);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    VERIFY_READABLE(runsOf(header, window), kText); // "No unit selected" and its muted hint
    for (const char *name : {"A", "B", "C"}) {
        document.setCurrentUnit(document.graph().findUnit(name));
        VERIFY_READABLE(runsOf(header, window), kText);
    }
    QVERIFY(panel.headerText().contains(QStringLiteral("stage two")));
    VERIFY_READABLE(runsOf(panel.findChild<QTextBrowser *>()), kText); // "Hazards touching this unit"
    document.setCurrentUnit(document.graph().findUnit("A"));
    QVERIFY(panel.headerText().contains(QStringLiteral("stage one")));
    document.setCurrentUnit(document.graph().lossId());
    QVERIFY(panel.headerText().contains(QStringLiteral("loss")));
    VERIFY_READABLE(runsOf(header, window), kText);
    // A model that needs no gradients: the light grey badge (wan_video's image encoder).
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    document.setModelTrainable("vae", true);
    document.setCurrentUnit(document.graph().findUnit("WanVideoUnit_Animate2CLIPEmbedder"));
    QVERIFY(panel.headerText().contains(QStringLiteral("image_encoder")));
    VERIFY_READABLE(runsOf(header, window), kText);
    // Stochastic but cached (the pink line).
    document.setCurrentUnit(document.graph().findUnit("WanVideoUnit_NoiseInitializer"));
    QVERIFY(panel.headerText().contains(QStringLiteral("Stochastic but cached")));
    VERIFY_READABLE(runsOf(header, window), kText);
}

// "Inspect only" in the Run panel and the training lock: a notice with a fill of its
// own, and text that reads on it. The Run panel's notice is as tall as its text.
void TestTheme::noticesRead()
{
    SplitDocument document;
    RunController controller;
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    RunPanel runPanel(&document, &controller);
    runPanel.resize(330, 800);
    runPanel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&runPanel));
    QVERIFY(!runPanel.executability().runnable());
    QVERIFY(plainTextOf(runPanel.banner()->text()).startsWith(QLatin1String("Inspect only")));
    const QColor window = runPanel.palette().color(QPalette::Window);
    const QList<Run> banner = runsOf(runPanel.banner(), window);
    VERIFY_READABLE(banner, kText);
    QVERIFY2(banner.front().paper != window, "the notice has a fill of its own");
    const int needed = runPanel.banner()->heightForWidth(runPanel.banner()->width());
    QVERIFY2(runPanel.banner()->height() <= needed + 4 * runPanel.banner()->margin(),
        qPrintable(QStringLiteral("%1 px tall for %2 px of text").arg(runPanel.banner()->height()).arg(needed)));

    TrainingPanel training(&document);
    training.setLocked(QStringLiteral("A launch is running."));
    VERIFY_READABLE(runsOf(training.lockLabel(), window), kText);
}

void TestTheme::loadErrorBannerReads()
{
    SplitDocument document;
    LoadErrorBanner banner(&document);
    QVERIFY(!document.openSource(QStringLiteral("/nonexistent/p.json")));
    QVERIFY(banner.text().contains(QStringLiteral("Could not load")));
    banner.ensurePolished();
    auto *label = banner.findChild<QLabel *>();
    QVERIFY(label);
    VERIFY_READABLE(runsOf(label, banner.palette().color(QPalette::Window)), kText);
}

// The stepper's muted hints, the verifier's and the comparison's colored summaries.
void TestTheme::panelSummariesRead()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel stepper(&document, &cursor);
    VerifierPanel verifier(&document);
    ComparePanel compare(&document);
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    auto *text = stepper.findChild<QTextBrowser *>();
    QVERIFY(text);
    VERIFY_READABLE(runsOf(text), kText); // "Step through it from X0 …"
    cursor.setPosition(1);
    VERIFY_READABLE(runsOf(text), kText); // "X now has …"
    const QColor window = verifier.palette().color(QPalette::Window);
    for (QLabel *label : verifier.findChildren<QLabel *>()) {
        if (!label->text().isEmpty())
            VERIFY_READABLE(runsOf(label, window), kText);
    }
    for (QLabel *label : compare.findChildren<QLabel *>()) {
        if (label->text().contains(QLatin1String("<span")))
            VERIFY_READABLE(runsOf(label, window), kMuted);
    }
}

// The stepper's icons: the enabled ones stand out from the window, the disabled ones
// less than the enabled ones.
void TestTheme::toolbarIconsShowAndDisabledOnesAreDimmer()
{
    SplitDocument document;
    TraceCursor cursor(&document);
    StepperPanel stepper(&document, &cursor);
    QVERIFY(document.openExample(QStringLiteral("wan_video")));
    const QColor window = QApplication::palette().color(QPalette::Window);
    int checked = 0;
    for (QAction *action : stepper.findChildren<QAction *>()) {
        if (action->icon().isNull())
            continue;
        const QColor enabled = inkOf(action->icon().pixmap(24, QIcon::Normal));
        const QColor disabled = inkOf(action->icon().pixmap(24, QIcon::Disabled));
        const QString name = action->text();
        QVERIFY2(theme::contrastRatio(enabled, window) >= kMuted,
            qPrintable(QStringLiteral("%1: %2 on %3").arg(name, enabled.name(), window.name())));
        QVERIFY2(theme::contrastRatio(disabled, window) < theme::contrastRatio(enabled, window),
            qPrintable(QStringLiteral("%1: disabled %2, enabled %3").arg(name, disabled.name(), enabled.name())));
        ++checked;
    }
    QVERIFY(checked >= 5);
}

void TestTheme::modelColorsReadOnTheBase()
{
    SplitDocument document;
    FindingsModel findings(&document);
    QVERIFY(document.openExample(QStringLiteral("counterexample_write_after_read")));
    QVERIFY(findings.rowCount() > 0);
    const QPalette palette = QApplication::palette();
    for (int row = 0; row < findings.rowCount(); ++row) {
        const QVariant color = findings.data(findings.index(row, FindingsModel::KindColumn), Qt::ForegroundRole);
        QVERIFY(color.canConvert<QColor>());
        QVERIFY(theme::contrastRatio(color.value<QColor>(), palette.color(QPalette::Base)) >= kText);
        QVERIFY(theme::contrastRatio(color.value<QColor>(), palette.color(QPalette::AlternateBase)) >= kText);
    }
}

void TestTheme::chartsFollowThePalette()
{
    LossChartView view;
    QCOMPARE(view.chart()->theme(), QChart::ChartThemeDark);
    QVERIFY(theme::contrastRatio(view.chart()->titleBrush().color(), view.chart()->backgroundBrush().color()) >= kText);
}

// A light palette keeps the colors the app always had.
void TestTheme::lightPaletteKeepsTheDesignedColors()
{
    QApplication::setPalette(QApplication::style()->standardPalette());
    QVERIFY(!theme::isDark());
    QCOMPARE(theme::css(theme::Tone::Muted), QStringLiteral("#495057"));
    QCOMPARE(theme::css(theme::Tone::Hazard), QStringLiteral("#c2255c"));
    QCOMPARE(theme::css(theme::Tone::Accent), QStringLiteral("#1c6db5"));
    QCOMPARE(inkOf(theme::icon(QStringLiteral(":/splitscope/icons/play.svg")).pixmap(24)).name(),
        QStringLiteral("#343a40"));
    LossChartView view;
    QCOMPARE(view.chart()->theme(), QChart::ChartThemeLight);
    QApplication::setPalette(darkPalette());
}

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
