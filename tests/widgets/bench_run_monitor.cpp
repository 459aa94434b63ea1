// SPDX-License-Identifier: MIT
// Benchmark (a program, not a test): the GUI event loop's worst-case latency while
// a launch runs, measured by a latency probe (a 5 ms timer; the longest gap between
// its ticks is the longest the loop could not run), with the whole main window on
// screen: graph, Run panel, monitor (progress, loss and memory charts, log) and the
// running-unit ring.
//
//   1. The real worker at full rate: both stages of tiny-qwen-image with the small
//      models (hundreds of step events a second, every one of them unthrottled).
//   2. Far beyond any worker: the events of a real stage two, repeated, fed through
//      a pipe as fast as `cat` writes them.
//
//   QT_QPA_PLATFORM=offscreen build/tests/widgets/bench_run_monitor [EPOCHS] [REPEATS]
//
// Prints events, events per second, view refreshes, and the worst and 99th
// percentile event-loop latency; the target is at most 50 ms.
#include "LatencyProbe.h"
#include "WidgetTestSupport.h"

#include "MainWindow.h"

#include "widgets/run/RunController.h"
#include "widgets/run/RunPanel.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <cstdio>
#include <cstdlib>

using namespace splitscope;
using namespace splitscope::test;

namespace {

constexpr double kTargetMs = 50.0;  // the worst stall allowed while events arrive
constexpr int kSamples = 32;        // images of the benchmark's dataset (32x32, small models)
constexpr int kLaunchTimeoutMs = 600000;

bool cli(const QStringList &arguments, QByteArray *out = nullptr)
{
    QProcess process;
    process.start(QStringLiteral(SPLITSCOPE_CLI), arguments);
    if (!process.waitForFinished(120000) || process.exitCode() != 0) {
        std::fprintf(stderr, "splitscope-cli %s failed: %s\n", qPrintable(arguments.join(' ')),
            process.readAllStandardError().constData());
        return false;
    }
    if (out)
        *out = process.readAllStandardOutput();
    return true;
}

struct Figures {
    qint64 events = 0;
    double seconds = 0;
    int refreshes = 0;
    double worstMs = 0;
    double p99Ms = 0;
    double worstCpuMs = 0;
    double worstAt = 0; // seconds after the launch started
};

// Runs `kind` (or, with `replayScript`, that script as the worker of a stage two)
// and measures the event loop meanwhile.
Figures measure(MainWindow &window, RunKind kind)
{
    RunController *controller = window.runController();
    QSignalSpy updates(controller, &RunController::updated);
    QSignalSpy finished(controller, &RunController::launchFinished);
    LatencyProbe probe;
    QElapsedTimer clock;
    probe.start();
    clock.start();
    if (!window.runPanel()->launch(kind)) {
        std::fprintf(stderr, "the launch did not start\n");
        std::exit(1);
    }
    if (!finished.wait(kLaunchTimeoutMs)) {
        std::fprintf(stderr, "the launch did not finish\n");
        std::exit(1);
    }
    Figures f;
    f.worstMs = probe.worstMs();
    f.p99Ms = probe.percentileMs(0.99);
    f.worstCpuMs = probe.worstCpuMs();
    f.worstAt = probe.worstStartMs() / 1000.0;
    f.seconds = clock.nsecsElapsed() / 1e9;
    f.refreshes = static_cast<int>(updates.size());
    const auto session = controller->session();
    for (const StageRun &stage : session->stages()) {
        f.events += stage.events;
        if (stage.outcome != StageRun::Outcome::Finished) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(runStageTitle(stage.stage)), qPrintable(stage.failure));
            std::exit(1);
        }
    }
    return f;
}

void print(const char *what, const Figures &f)
{
    const qint64 lines = f.events;
    std::printf("%-36s %8lld events in %6.2f s (%8.0f/s), %4d view refreshes, worst stall %5.1f ms at %.2f s "
                "(GUI CPU in it %5.1f ms), p99 %4.1f ms: %s\n",
        what, static_cast<long long>(lines), f.seconds, lines / std::max(1e-9, f.seconds), f.refreshes, f.worstMs,
        f.worstAt, f.worstCpuMs, f.p99Ms, f.worstMs <= kTargetMs ? "within 50 ms" : "OVER 50 ms");
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int epochs = argc > 1 ? std::atoi(argv[1]) : 20;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 40;
    QTemporaryDir dir;
    const QString models = dir.filePath(QStringLiteral("models"));
    const QString data = dir.filePath(QStringLiteral("data"));
    if (!cli({"init-models", "--root", models, "--preset", "small"})
        || !cli({"make-dataset", data, "--count", QString::number(kSamples), "--width", "32", "--height", "32"}))
        return 1;

    MainWindow window(false);
    window.resize(1600, 1000);
    window.show();
    window.runController()->setWorkerProgram(QStringLiteral(SPLITSCOPE_CLI));
    if (!window.openSource(QStringLiteral("tiny-qwen-image")) || !waitForGraph(*window.workspace()))
        return 1;
    RunSettings s = RunPanel::defaultSettings();
    s.datasetPath = data;
    s.modelsRoot = models;
    s.cachePath = dir.filePath(QStringLiteral("cache"));
    s.outputPath = dir.filePath(QStringLiteral("out"));
    s.epochs = epochs;
    s.loraRank = 4;
    s.learningRate = 1e-3;
    s.threads = 1;
    window.runPanel()->setSettings(s);

    // 1. The real worker.
    const Figures both = measure(window, RunKind::Both);
    const auto session = window.runController()->session();
    std::printf("machine: %d cores; %d samples, %d epochs, %lld optimizer steps\n", QThread::idealThreadCount(),
        kSamples, epochs, static_cast<long long>(session->trainingStage()->steps));
    print("real worker, both stages:", both);
    for (const StageRun &stage : session->stages())
        std::printf("  %s: started at %.2f s, %.2f s, %lld events, %lld steps drawn\n", qPrintable(runStageTitle(stage.stage)),
            stage.startOffset, stage.processSeconds, static_cast<long long>(stage.events), static_cast<long long>(stage.loss.size()));

    // 2. A real stage two's events, repeated, at pipe speed.
    QByteArray recorded;
    QStringList args = trainArguments(window.runPanel()->config(), *window.runPanel()->executability().pipeline,
        RunStage::StageTwo, false);
    args[args.indexOf(QStringLiteral("--output_path")) + 1] = dir.filePath(QStringLiteral("recorded"));
    if (!cli(args + QStringList{"--events", "jsonl"}, &recorded))
        return 1;
    const QString replay = dir.filePath(QStringLiteral("replay.jsonl"));
    {
        // Every event but the last `done`, `repeats` times, then one `done`.
        QList<QByteArray> lines = recorded.trimmed().split('\n');
        const QByteArray done = lines.takeLast();
        QFile file(replay);
        if (!file.open(QIODevice::WriteOnly))
            return 1;
        for (int r = 0; r < repeats; ++r) {
            for (const QByteArray &line : lines)
                file.write(line + '\n');
        }
        file.write(done + '\n');
    }
    const QString script = dir.filePath(QStringLiteral("replay.sh"));
    {
        QFile file(script);
        if (!file.open(QIODevice::WriteOnly))
            return 1;
        file.write("#!/bin/sh\nexec cat '" + replay.toUtf8() + "'\n");
        file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    }
    window.runController()->setWorkerProgram(script);
    const Figures flood = measure(window, RunKind::StageTwo);
    print("replayed at pipe speed (stage two):", flood);
    return both.worstMs <= kTargetMs && flood.worstMs <= kTargetMs ? 0 : 2;
}
