// SPDX-License-Identifier: MIT
// splitscope: the desktop app. See GuiOptions.h for the command line.
#include "GuiOptions.h"
#include "MainWindow.h"
#include "StartupOptions.h"

#include "widgets/document/SplitDocument.h"

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
    const bool screenshot = wantsScreenshot(argc, argv);
    // A screenshot needs no display: render off screen unless told otherwise.
    if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Splitscope"));
    QApplication::setApplicationName(QStringLiteral("Splitscope"));
    QApplication::setApplicationVersion(QStringLiteral(SPLITSCOPE_VERSION));

    const splitscope::GuiOptionsResult parsed = splitscope::parseGuiOptions(QApplication::arguments());
    if (parsed.help) {
        std::fprintf(stdout, "%s", qPrintable(parsed.helpText));
        return kExitOk;
    }
    if (!parsed.error.isEmpty()) {
        std::fprintf(stderr, "splitscope: %s\nTry 'splitscope --help'.\n", qPrintable(parsed.error));
        return kExitBadInput;
    }
    const splitscope::GuiOptions &options = parsed.options;

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
    splitscope::showStartupPanel(window, options);
    if (screenshot) {
        QString error;
        const int status = splitscope::writeWindowScreenshot(window, options.screenshot, &error);
        if (status != 0) {
            std::fprintf(stderr, "splitscope: %s\n", qPrintable(error));
            return kExitFailure;
        }
        return kExitOk;
    }
    return app.exec();
}
