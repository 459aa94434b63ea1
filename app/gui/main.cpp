// SPDX-License-Identifier: MIT
// splitscope: the desktop app. See GuiOptions.h for the command line.
#include "GuiOptions.h"
#include "MainWindow.h"
#include "StartupOptions.h"

#include "widgets/document/SplitDocument.h"
#include "widgets/run/RunConfig.h"
#include "widgets/run/RunPanel.h"

#include <QApplication>
#include <QFileInfo>
#include <QSettings>

#include <cstdio>

namespace {

// Exit codes, as splitscope-cli's (app/cli/Commands.h).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

constexpr const char *kStartExample = "qwen_image"; // shown when nothing else is asked for

bool wantsScreenshot(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--screenshot" || arg.startsWith("--screenshot="))
            return true;
    }
    return false;
}

// --help and --version print text and exit: they need no display.
bool wantsTextOnly(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--") // what follows is a pipeline name, not an option
            return false;
        if (arg == "--help" || arg == "-h" || arg == "-?" || arg == "--version" || arg == "-v")
            return true;
    }
    return false;
}

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Splitscope"));
    QCoreApplication::setApplicationName(QStringLiteral("Splitscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SPLITSCOPE_VERSION));
}

// Prints the help, the version or the usage error; returns the exit code, or -1 when
// the command line asks for none of them.
int printTextResult(const splitscope::GuiOptionsResult &parsed)
{
    if (parsed.help || parsed.version) {
        std::fprintf(stdout, "%s", qPrintable(parsed.helpText));
        return kExitOk;
    }
    if (!parsed.error.isEmpty()) {
        std::fprintf(stderr, "splitscope: %s\nTry 'splitscope --help'.\n", qPrintable(parsed.error));
        return kExitBadInput;
    }
    return -1;
}

void printDiagnostics(const splitscope::Diagnostics &diagnostics)
{
    for (const splitscope::Diagnostic &d : diagnostics) {
        if (d.severity != splitscope::Severity::Info)
            std::fprintf(stderr, "%s\n", d.toString().c_str());
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (wantsTextOnly(argc, argv)) {
        const QCoreApplication app(argc, argv);
        setApplicationNames();
        const int status = printTextResult(splitscope::parseGuiOptions(QCoreApplication::arguments()));
        if (status >= 0)
            return status;
    }
    const bool screenshot = wantsScreenshot(argc, argv);
    // A screenshot needs no display: render off screen unless told otherwise.
    if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    setApplicationNames();

    const splitscope::GuiOptionsResult parsed = splitscope::parseGuiOptions(QApplication::arguments());
    if (const int status = printTextResult(parsed); status >= 0)
        return status;
    const splitscope::GuiOptions &options = parsed.options;
    if (!options.runSettings.isEmpty()) {
        // A wrong key, type or value is a bad input, as a file that is not JSON: a launch
        // with the defaults in its place would train something else and look fine.
        QStringList errors;
        if (!splitscope::readRunSettingsFile(options.runSettings, splitscope::RunPanel::defaultSettings(), &errors)) {
            for (const QString &error : errors)
                std::fprintf(stderr, "splitscope: --run-settings: %s\n", qPrintable(error));
            return kExitBadInput;
        }
    }

    splitscope::MainWindow window(!screenshot);
    splitscope::SplitDocument *document = window.document();
    if (screenshot)
        window.resize(options.size);
    window.show();
    if (!options.pipeline.isEmpty()) {
        if (!window.openSource(options.pipeline) && screenshot) {
            printDiagnostics(document->diagnostics());
            return kExitBadInput;
        }
    } else if (!options.planScript.isEmpty()) {
        // The plan opens the pipeline its script trains.
        if (const QString error = splitscope::startPlan(window, options); !error.isEmpty()) {
            std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
            if (screenshot)
                return kExitBadInput;
        }
    } else {
        // Reopen what was open last time, else the start example.
        const QString last = QSettings().value(QStringLiteral("lastPipeline")).toString();
        const bool reopened = !last.isEmpty() && (QFileInfo::exists(last) || !last.contains(QLatin1Char('/')))
            && document->openSource(last);
        if (!reopened)
            document->openExample(QString::fromLatin1(kStartExample));
    }
    if (document->hasPipeline()) {
        const QString error = splitscope::applyStartupOptions(window, options);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
            if (screenshot)
                return kExitBadInput;
        }
    }
    if (const QString error = splitscope::applyRunOptions(window, options); !error.isEmpty()) {
        std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
        if (screenshot)
            return kExitBadInput;
    }
    if (document->hasPipeline() && !options.runs.empty()) {
        // A screenshot waits for its launches; the window starts them and goes on.
        const QString error = splitscope::startRuns(window, options, screenshot);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
            if (screenshot)
                return error.contains(QLatin1String("cannot start")) ? kExitBadInput : kExitFailure;
        }
    }
    splitscope::waitForStartupPlan(window, options);
    splitscope::showStartupPanel(window, options);
    if (screenshot) {
        QString error;
        QSize written;
        const int status = splitscope::writeWindowScreenshot(window, options.screenshot, &error, &written);
        if (status != 0) {
            std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
            return kExitFailure;
        }
        // Taken halfway: the launch runs on to its end and into the run history, as it
        // would with the window open (it used to be cancelled, its state left behind).
        if (options.screenshotWhileRunning) {
            const QString unfinished = splitscope::finishRuns(window);
            if (!unfinished.isEmpty()) {
                std::fprintf(stderr, "splitscope: %s\n", qPrintable(unfinished));
                return kExitFailure;
            }
        }
        // The picture is in device pixels: --size times the scale (QT_SCALE_FACTOR=1.5 makes
        // 1280x800 a 1920x1200 picture). Only a window larger than asked is worth a word.
        const qreal scale = window.devicePixelRatio();
        const QSize logical(qRound(written.width() / scale), qRound(written.height() / scale));
        if (logical.width() > options.size.width() || logical.height() > options.size.height()) {
            // The docked panels need a minimum size: the window cannot be smaller.
            QStringList needs;
            if (logical.width() > options.size.width())
                needs << QStringLiteral("%1 px wide").arg(logical.width());
            if (logical.height() > options.size.height())
                needs << QStringLiteral("%1 px high").arg(logical.height());
            std::fprintf(stderr,
                "splitscope: --size %dx%d: the window cannot be that small (its panels need at least %s); "
                "the picture is %dx%d\n",
                options.size.width(), options.size.height(), qPrintable(needs.join(QStringLiteral(" and "))),
                written.width(), written.height());
        } else if (written != options.size) {
            std::fprintf(stderr, "splitscope: the picture is %dx%d device pixels: the %dx%d window at a scale of %s\n",
                written.width(), written.height(), options.size.width(), options.size.height(),
                qPrintable(QString::number(scale, 'g', 3)));
        }
        return kExitOk;
    }
    return app.exec();
}
