// SPDX-License-Identifier: MIT
// Robustness of the pipeline loader without a fuzzer toolchain: every shipped
// example and thousands of seeded mutations of them (byte flips, cuts, splices of
// JSON tokens) go through the same property as the libFuzzer target
// (PipelineInputCheck.h). The libFuzzer run itself: packaging/splitscope-dev fuzz.
#include "PipelineInputCheck.h"

#include "core/PipelineFile.h"
#include "resources/Examples.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <random>

namespace {

constexpr int kMutationsPerExample = 1500; // 19,500 inputs per run (13 examples)

const char *const kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "true", "1e309", "-0", "\"\\u0000\"",
    "\"units\"", "\"name\"", "\"input_params\"", "\"output_params\"", "\"onload_model_names\"", "\"loss\"",
    "\"training\"", "\"x\"", "\xff", "\"\\ud800\"", "[[[[[[[[", "{\"a\":", "\"format\": \"splitscope.pipeline/1\""};

std::string mutate(const std::string &input, std::mt19937_64 &rng)
{
    std::string s = input;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 5) {
        case 0: s[at] = static_cast<char>(rng() & 0xff); break;
        case 1: s.erase(at, 1 + rng() % 16); break;
        case 2: s.insert(at, kTokens[rng() % (sizeof kTokens / sizeof *kTokens)]); break;
        case 3: s.resize(at); break;
        case 4: { // duplicate a slice elsewhere
            const std::size_t len = 1 + rng() % 64;
            const std::string slice = s.substr(rng() % s.size(), len);
            s.insert(at, slice);
            break;
        }
        }
    }
    return s;
}

} // namespace

class TestLoaderRobustness : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examplesAndMutations();
    void savedFuzzCorpus();
};

void TestLoaderRobustness::examplesAndMutations()
{
    std::mt19937_64 rng(7);
    int inputs = 0, loaded = 0;
    for (const auto &example : splitscope::builtinExamples()) {
        const std::string &text = example.json;
        QCOMPARE(QString::fromStdString(
                     checkPipelineInput(reinterpret_cast<const std::uint8_t *>(text.data()), text.size())),
            QString());
        for (int i = 0; i < kMutationsPerExample; ++i) {
            const std::string m = mutate(text, rng);
            const std::string problem = checkPipelineInput(reinterpret_cast<const std::uint8_t *>(m.data()), m.size());
            QVERIFY2(problem.empty(), (problem + "\ninput:\n" + m).c_str());
            ++inputs;
            loaded += splitscope::parsePipeline(m).ok() ? 1 : 0;
        }
    }
    qInfo("%d mutated inputs, %d of them still load", inputs, loaded);
    QVERIFY(loaded > 0 && loaded < inputs); // the mutations reach both paths
}

void TestLoaderRobustness::savedFuzzCorpus()
{
    // Inputs the fuzzer found interesting (crashes fixed, slow cases) are kept here.
    const QDir dir(QStringLiteral(SPLITSCOPE_FUZZ_CORPUS_DIR));
    for (const QString &name : dir.entryList(QDir::Files)) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const std::string problem = checkPipelineInput(reinterpret_cast<const std::uint8_t *>(bytes.constData()),
            static_cast<std::size_t>(bytes.size()));
        QVERIFY2(problem.empty(), qPrintable(name + ": " + QString::fromStdString(problem)));
    }
}

QTEST_GUILESS_MAIN(TestLoaderRobustness)
#include "tst_loaderrobustness.moc"
