// SPDX-License-Identifier: MIT
// No input crashes, hangs or corrupts the importer's output: the fixtures replayed,
// thousands of deterministic mutations of them (the libFuzzer target does the same
// open-ended under sanitizers), and inputs built to hit every limit. Each input must
// satisfy ImporterInvariants.h.
#include "ImporterInvariants.h"

#include "core/importer/DiffSynthImporter.h"

#include <QDir>
#include <QTest>

#include <fstream>
#include <random>
#include <sstream>

using namespace splitscope;
using namespace splitscope::importer;
using splitscope::importer::testing::checkImporterInvariants;

namespace {

// Mutations per run; fixed seed, so a failure reproduces.
constexpr int kMutations = 5000;
constexpr unsigned kSeed = 20240611;

std::vector<std::string> corpus()
{
    std::vector<std::string> out;
    const QDir fixtures(QStringLiteral(SPLITSCOPE_IMPORTER_FIXTURES));
    QStringList files;
    for (const QString &f : fixtures.entryList({"*.py"}, QDir::Files, QDir::Name))
        files << fixtures.filePath(f);
    const QDir folder(fixtures.filePath("folder"));
    for (const QString &f : folder.entryList({"*.py"}, QDir::Files, QDir::Name))
        files << folder.filePath(f);
    for (const QString &f : files) {
        std::ifstream in(f.toStdString(), std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        out.push_back(text.str());
    }
    return out;
}

// Fragments that matter to a Python reader: brackets, quotes, indentation, the
// constructs the importer looks for, and bytes that are not UTF-8.
const std::vector<std::string> &fragments()
{
    static const std::vector<std::string> kFragments = {"(", ")", "[", "]", "{", "}", ":", ",", "=", "\"", "'", "'''",
        "\"\"\"", "\\\n", "\n", "    ", "\t", "#", "super().__init__(", "self.units = [", "self.units.append(",
        "class X(PipelineUnit):\n", "class P(BasePipeline):\n", "def __init__(self):\n", "input_params=",
        "output_params=", "onload_model_names=", "input_params_posi=", "(\"noise\")", "None", "True", "f\"", "r'",
        "b'", "**", "*", "lambda", "if ", "else", " for ", " in ", "not ", "+", "-", ".", "self.", "->", ":=",
        "...", "@", "0x", "1e", "\\x", "\\N{", std::string("\0", 1), "\xff", "\xc3\xa9", "\xe2\x82"};
    return kFragments;
}

std::string mutate(const std::vector<std::string> &seeds, std::mt19937 &random)
{
    const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::size_t(random() % n); };
    std::string s = seeds[pick(seeds.size())];
    const int rounds = 1 + static_cast<int>(pick(4));
    for (int round = 0; round < rounds; ++round) {
        const std::size_t at = pick(s.size() + 1);
        switch (pick(7)) {
        case 0: // delete a range
            s.erase(at, 1 + pick(16));
            break;
        case 1: // insert a fragment
            s.insert(at, fragments()[pick(fragments().size())]);
            break;
        case 2: { // duplicate a range elsewhere
            const std::string piece = s.substr(at, 1 + pick(64));
            s.insert(pick(s.size() + 1), piece);
            break;
        }
        case 3: // one byte to a printable character
            if (!s.empty())
                s[pick(s.size())] = static_cast<char>(32 + pick(95));
            break;
        case 4: { // splice: this one's head, another's tail
            const std::string &other = seeds[pick(seeds.size())];
            s = s.substr(0, at) + other.substr(pick(other.size() + 1));
            break;
        }
        case 5: // truncate
            s.resize(at);
            break;
        default: // random bytes
            for (std::size_t n = 1 + pick(4); n > 0; --n)
                s.insert(pick(s.size() + 1), 1, static_cast<char>(pick(256)));
            break;
        }
    }
    return s;
}

std::string repeat(const std::string &piece, int times)
{
    std::string out;
    out.reserve(piece.size() * static_cast<std::size_t>(times));
    for (int i = 0; i < times; ++i)
        out += piece;
    return out;
}

} // namespace

class TestImporterRobustness : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void replayCorpus();
    void mutations();
    void limits_data();
    void limits();
};

void TestImporterRobustness::replayCorpus()
{
    const std::vector<std::string> seeds = corpus();
    QVERIFY(seeds.size() >= 10);
    for (const std::string &s : seeds) {
        const std::string problem = checkImporterInvariants(s);
        QVERIFY2(problem.empty(), problem.c_str());
        // Every prefix of a real file is a plausible half-written file.
        for (std::size_t cut = 0; cut < s.size(); cut += 97) {
            const std::string prefix = checkImporterInvariants(std::string_view(s).substr(0, cut));
            QVERIFY2(prefix.empty(), prefix.c_str());
        }
    }
}

void TestImporterRobustness::mutations()
{
    const std::vector<std::string> seeds = corpus();
    std::mt19937 random(kSeed);
    int imported = 0;
    for (int i = 0; i < kMutations; ++i) {
        const std::string input = mutate(seeds, random);
        const std::string problem = checkImporterInvariants(input);
        if (!problem.empty()) {
            // Keep the input for a reproduction (and the fuzz corpus).
            std::ofstream(QDir::temp().filePath("importer-mutation-failure.py").toStdString(), std::ios::binary) << input;
            QFAIL(qPrintable(QString("mutation %1: %2").arg(i).arg(QString::fromStdString(problem))));
        }
        imported += importDiffSynthSource(input, "m.py").pipelines.empty() ? 0 : 1;
    }
    // The mutations are close enough to real files that many still import: those that
    // are still valid Python (a mutation that breaks the grammar is a python-syntax error).
    QVERIFY2(imported > kMutations / 20, qPrintable(QString::number(imported)));
}

void TestImporterRobustness::limits_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("expectedCode"); // a diagnostic that must be there ("" for none in particular)
    const auto row = [](const char *name, const std::string &source, const char *code) {
        QTest::newRow(name) << QByteArray::fromStdString(source) << QString(code);
    };
    const std::string unitHeader = "class P(BasePipeline):\n    def __init__(self):\n        self.units = [U()]\n"
                                   "class U(PipelineUnit):\n    def __init__(self):\n        super().__init__(input_params=";
    row("deep brackets", "x = " + std::string(100000, '('), "python-syntax");
    // Redundant parentheses are no structure in CPython's tree: ((('a'))) is the str 'a'.
    row("deep brackets in an argument", unitHeader + std::string(150, '(') + "'a'" + std::string(150, ')') + ")\n",
        "string-as-list");
    row("deep indentation", repeat("if a:\n ", 1) + [] {
        std::string s;
        for (int i = 1; i < 3000; ++i)
            s += std::string(static_cast<std::size_t>(i), ' ') + "if a:\n";
        return s;
    }(), "python-syntax");
    row("inline compound chain", "class P(BasePipeline):\n    def __init__(self): " + repeat("if a: ", 5000) + "self.units = [U()]\n",
        "");
    // Nested past what CPython itself parses or compiles: CPython's error (MemoryError,
    // RecursionError), never a crash.
    row("unary chain", unitHeader + std::string(100000, '-') + "1)\n", "python-syntax");
    row("not chain", unitHeader + repeat("not ", 20000) + "1)\n", "python-syntax");
    row("attribute chain", unitHeader + "a" + repeat(".b", 50000) + ")\n", "python-syntax");
    row("long sum", unitHeader + "('a',)" + repeat(" + ('a',)", 20000) + ")\n", "python-syntax");
    // What CPython takes but nests past the evaluator's depth is a computed argument.
    row("long sum CPython compiles", unitHeader + "('a',)" + repeat(" + ('a',)", 990) + ")\n", "computed-argument");
    row("constant chain", [] {
        std::string s = "C0 = ('a',)\n";
        for (int i = 1; i < 20000; ++i)
            s += "C" + std::to_string(i) + " = C" + std::to_string(i - 1) + "\n";
        return s;
    }() + unitHeader + "C19999)\n", "computed-argument");
    row("doubling constants", [] {
        std::string s = "D0 = ('a',)\n";
        for (int i = 1; i < 60; ++i)
            s += "D" + std::to_string(i) + " = D" + std::to_string(i - 1) + " + D" + std::to_string(i - 1) + "\n";
        return s;
    }() + unitHeader + "D59)\n", "computed-argument");
    row("inheritance chain", [] {
        std::string s = "class P(BasePipeline):\n    def __init__(self):\n        self.units = [U4999()]\n"
                        "class U0(PipelineUnit):\n    def __init__(self):\n        super().__init__(output_params=('o',))\n";
        for (int i = 1; i < 5000; ++i)
            s += "class U" + std::to_string(i) + "(U" + std::to_string(i - 1) + "):\n    pass\n";
        return s;
    }(), "unknown-base-class");
    row("base cycle", "class P(BasePipeline):\n    def __init__(self):\n        self.units = [A()]\n"
                      "class A(B):\n    pass\nclass B(A):\n    pass\n", "unknown-base-class");
    row("pipeline cycle", "class P(Q):\n    def __init__(self):\n        super().__init__()\n        self.units = [U()]\n"
                          "class Q(P):\n    def __init__(self):\n        super().__init__()\n"
                          "class U(PipelineUnit):\n    pass\n", "");
    row("many units", "class P(BasePipeline):\n    def __init__(self):\n        self.units = [" + repeat("U(), ", 20000)
            + "]\nclass U(PipelineUnit):\n    def __init__(self):\n        super().__init__(output_params=('o',))\n",
        "duplicate-unit");
    row("many warnings", "class P(BasePipeline):\n    def __init__(self):\n        self.units = [" + repeat("f(x)(), ", 5000)
            + "U()]\nclass U(PipelineUnit):\n    pass\n", "too-many-diagnostics");
    row("long list of names", unitHeader + "(" + repeat("'n', ", 50000) + "))\n", "computed-argument");
    row("long string", unitHeader + "'" + std::string(2000000, 'x') + "')\n", "string-as-list");
    row("empty names", "class P(BasePipeline):\n    def __init__(self):\n        self.units = [U()]\n"
                       "        self.in_iteration_models = ('', 'dit')\n"
                       "class U(PipelineUnit):\n    def __init__(self):\n        super().__init__(input_params=('', 'a'), "
                       "output_params='', input_params_posi={'p': ''}, onload_model_names=('',))\n",
        "empty-name");
    row("not utf-8", "class P(BasePipeline):\n    x = '\xff'\n", "python-syntax");
    row("nul", std::string("class P(BasePipeline):\n\0", 24), "python-syntax");
}

void TestImporterRobustness::limits()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, expectedCode);
    const std::string_view input(source.constData(), static_cast<std::size_t>(source.size()));
    const std::string problem = checkImporterInvariants(input);
    QVERIFY2(problem.empty(), problem.c_str());
    if (expectedCode.isEmpty())
        return;
    const ImportResult r = importDiffSynthSource(input, "limits.py");
    bool found = false;
    for (const Diagnostic &d : r.diagnostics)
        found = found || QString::fromStdString(d.code) == expectedCode;
    QVERIFY2(found, qPrintable(expectedCode));
}

QTEST_GUILESS_MAIN(TestImporterRobustness)
#include "tst_importerrobustness.moc"
