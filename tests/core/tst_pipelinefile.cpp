// SPDX-License-Identifier: MIT
// Loading and saving splitscope.pipeline/1: round trips, and one test per kind of
// bad input asserting its code, severity, JSON path, position and message.
#include "core/PipelineFile.h"
#include "resources/Examples.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace splitscope;

namespace {

// A valid document with `units` spliced in (and optional extra top-level members).
std::string doc(const std::string &units, const std::string &extra = {})
{
    return "{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"t\",\n \"models\": [\"dit\", \"vae\"],\n"
           " \"units\": " + units + extra + "\n}";
}

const char *kUnitA = R"({"name": "A", "input_params": ["x"], "output_params": ["p"], "onload_model_names": ["vae"]})";

const Diagnostic *findCode(const Diagnostics &ds, const std::string &code)
{
    for (const Diagnostic &d : ds) {
        if (d.code == code)
            return &d;
    }
    return nullptr;
}

} // namespace

class TestPipelineFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examplesRoundTripByteForByte_data();
    void examplesRoundTripByteForByte();
    void badInput_data();
    void badInput();
    void errorsAreCollectedInOnePass();
    void unknownKeysAreKept();
    void stringAsListKeepsItsForm();
    void ioErrorNamesThePath();
    void saveIsAtomicAndRoundTrips();
    void deepNestingIsRejected();
    void externalInputsAreInfo();
};

void TestPipelineFile::examplesRoundTripByteForByte_data()
{
    QTest::addColumn<QString>("name");
    for (const BuiltinExample &e : builtinExamples())
        QTest::newRow(e.name.c_str()) << QString::fromStdString(e.name);
}

void TestPipelineFile::examplesRoundTripByteForByte()
{
    QFETCH(QString, name);
    const BuiltinExample *e = findBuiltinExample(name.toStdString());
    QVERIFY(e);
    const LoadResult r = parsePipeline(e->json, e->name);
    QVERIFY(r.ok());
    QVERIFY(!hasErrors(r.diagnostics));
    QCOMPARE(QString::fromStdString(serializePipeline(*r.pipeline)), QString::fromStdString(e->json));
}

void TestPipelineFile::badInput_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    const int E = static_cast<int>(Severity::Error), W = static_cast<int>(Severity::Warning);
    auto row = [](const char *name, const std::string &text, const char *code, int severity, const char *path, int line,
                   int column, const char *message) {
        QTest::newRow(name) << QByteArray::fromStdString(text) << QString(code) << severity << QString(path) << line
                            << column << QString(message);
    };
    row("malformed: missing value", "{\"format\": }", "json-syntax", E, "", 1, 12, "malformed JSON: unexpected '}', a value was expected");
    row("malformed: trailing comma", "{\"a\": [1, 2,]}", "json-syntax", E, "", 1, 13, "trailing comma before ']'");
    row("malformed: unterminated string", "{\"name\": \"abc", "json-syntax", E, "", 1, 14, "unterminated string");
    row("malformed: empty file", "", "json-syntax", E, "", 1, 1, "unexpected end of input");
    row("malformed: garbage after", "{} x", "json-syntax", E, "", 1, 4, "unexpected 'x' after the end of the document");
    row("malformed: bad escape", "{\"a\": \"\\q\"}", "json-syntax", E, "", 1, 8, "invalid escape \\q");
    row("malformed: invalid UTF-8", "{\"a\": \"\xff\"}", "json-syntax", E, "", 1, 8, "invalid UTF-8");
    row("not an object", "[1, 2]", "wrong-type", E, "", 1, 1, "the document must be a JSON object, found a list");
    row("units not a list", doc("{}"), "wrong-type", E, "units", 5, 11, "a list of units expected, found an object");
    row("param not a string", doc(R"([{"name": "A", "input_params": [1]}])"), "wrong-type", E, "units[0].input_params[0]", 5, 43,
        "a string expected, found a number");
    row("flag not a bool", doc(R"([{"name": "A", "take_over": "yes"}])"), "wrong-type", E, "units[0].take_over", 5, 39,
        "true or false expected, found a string");
    row("posi not a map", doc(R"([{"name": "A", "input_params_posi": ["prompt"]}])"), "wrong-type", E,
        "units[0].input_params_posi", 5, 47, "an object {process-arg: param} or null expected, found a list");
    row("wrong format", "{\"format\": \"splitscope.pipeline/2\", \"name\": \"t\", \"units\": [" + std::string(kUnitA) + "]}",
        "wrong-format", E, "format", 1, 12, "unsupported format \"splitscope.pipeline/2\"");
    row("missing format", "{\"name\": \"t\", \"units\": [" + std::string(kUnitA) + "]}", "missing-key", E, "", 1, 1,
        "missing \"format\"");
    row("missing unit name", doc(std::string("[") + kUnitA + R"(, {"input_params": []}])"), "missing-name", E, "units[1]",
        5, 105, "the unit has no \"name\"");
    row("missing pipeline name", "{\"format\": \"splitscope.pipeline/1\", \"units\": [" + std::string(kUnitA) + "]}",
        "missing-name", E, "", 1, 1, "the pipeline has no \"name\"");
    row("empty unit name", doc(R"([{"name": ""}])"), "empty-name", E, "units[0].name", 5, 21, "the unit name is empty");
    row("duplicate unit", doc(std::string("[") + kUnitA + ",\n  " + kUnitA + "]"), "duplicate-unit", E, "units[1].name", 6,
        12, "duplicate unit name \"A\" (first used by units[0] at line 5)");
    row("duplicate key", doc(R"([{"name": "A", "name": "B"}])"), "duplicate-key", E, "units[0].name", 5, 26,
        "the key \"name\" appears twice");
    row("empty pipeline", doc("[]"), "empty-pipeline", E, "units", 5, 11, "the pipeline has no units");
    row("string as list", doc(R"([{"name": "A", "output_params": "noise"}])"), "string-as-list", W,
        "units[0].output_params", 5, 43, "write (\"noise\",) there and a list here");
    row("unknown key", doc(R"([{"name": "A", "colour": 1}])"), "unknown-key", W, "units[0].colour", 5, 26,
        "unknown key \"colour\"");
    row("unknown model", doc(R"([{"name": "A", "onload_model_names": ["text_encoder"]}])"), "unknown-model", W,
        "units[0].onload_model_names", 5, 48, "calls model \"text_encoder\", which \"models\" does not list (dit, vae)");
    row("unknown training model", doc(std::string("[") + kUnitA + "]", ",\n \"training\": {\"lora_base_model\": \"unet\"}"),
        "unknown-model", W, "training.lora_base_model", 6, 34, "model \"unet\" is not listed in \"models\" (dit, vae)");
}

void TestPipelineFile::badInput()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, code);
    QFETCH(int, severity);
    QFETCH(QString, path);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const LoadResult r = parsePipeline(text.toStdString(), "bad.json");
    const Diagnostic *d = findCode(r.diagnostics, code.toStdString());
    QVERIFY2(d, qPrintable("no diagnostic " + code + " in: "
                     + (r.diagnostics.empty() ? QString("(none)") : QString::fromStdString(r.diagnostics.front().toString()))));
    QCOMPARE(static_cast<int>(d->severity), severity);
    QCOMPARE(QString::fromStdString(d->file), QString("bad.json"));
    QCOMPARE(QString::fromStdString(d->jsonPath), path);
    QCOMPARE(d->line, line);
    QCOMPARE(d->column, column);
    QVERIFY2(QString::fromStdString(d->message).contains(message), d->message.c_str());
    // Errors reject the document; warnings keep it.
    QCOMPARE(r.ok(), severity != static_cast<int>(Severity::Error));
    // The printed form leads with file:line:column.
    if (line > 0)
        QVERIFY(QString::fromStdString(d->toString()).startsWith(QString("bad.json:%1:%2: ").arg(line).arg(column)));
}

void TestPipelineFile::errorsAreCollectedInOnePass()
{
    const LoadResult r = parsePipeline(doc(R"([{"name": "A", "input_params": [1, 2]}, {"output_params": 3}])"));
    QVERIFY(!r.ok());
    QCOMPARE(countSeverity(r.diagnostics, Severity::Error), std::size_t(4));
}

void TestPipelineFile::unknownKeysAreKept()
{
    const LoadResult r = parsePipeline(doc(R"([{"name": "A", "colour": {"r": [1, 2]}}])", ",\n \"author\": \"me\""));
    QVERIFY(r.ok());
    const std::string saved = serializePipeline(*r.pipeline);
    QVERIFY(saved.find("\"colour\"") != std::string::npos);
    QVERIFY(saved.find("\"author\": \"me\"") != std::string::npos);
    const LoadResult again = parsePipeline(saved);
    QVERIFY(again.ok());
    QCOMPARE(serializePipeline(*again.pipeline), saved);
}

void TestPipelineFile::stringAsListKeepsItsForm()
{
    const LoadResult r = parsePipeline(doc(R"([{"name": "A", "output_params": "noise", "onload_model_names": "vae"}])"));
    QVERIFY(r.ok());
    const Unit &u = r.pipeline->units.front();
    QCOMPARE(u.outputParams, std::vector<std::string>{"noise"});
    QVERIFY(u.callsModel("vae"));
    const std::string saved = serializePipeline(*r.pipeline);
    QVERIFY(saved.find("\"output_params\": \"noise\"") != std::string::npos);
    QCOMPARE(countSeverity(r.diagnostics, Severity::Warning), std::size_t(2));
}

void TestPipelineFile::ioErrorNamesThePath()
{
    const LoadResult r = loadPipelineFile("/nonexistent/dir/p.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    QCOMPARE(r.diagnostics.front().code, std::string("io"));
    QVERIFY(QString::fromStdString(r.diagnostics.front().message).contains("/nonexistent/dir/p.json"));
    QVERIFY(QString::fromStdString(r.diagnostics.front().message).contains("No such file"));
}

void TestPipelineFile::saveIsAtomicAndRoundTrips()
{
    QTemporaryDir dir;
    const std::string path = QDir(dir.path()).filePath("p.json").toStdString();
    const LoadResult r = parsePipeline(findBuiltinExample("wan_video")->json);
    QVERIFY(r.ok());
    std::string error;
    QVERIFY(savePipelineFile(*r.pipeline, path, &error));
    const LoadResult back = loadPipelineFile(path);
    QVERIFY(back.ok());
    QCOMPARE(serializePipeline(*back.pipeline), findBuiltinExample("wan_video")->json);
    // No temporary file is left beside it.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"p.json"}));
    // A failed save leaves nothing behind and says where.
    QVERIFY(!savePipelineFile(*r.pipeline, "/nonexistent/dir/p.json", &error));
    QVERIFY(QString::fromStdString(error).contains("/nonexistent/dir/p.json"));
}

void TestPipelineFile::deepNestingIsRejected()
{
    const std::string deep(100000, '[');
    const LoadResult r = parsePipeline("{\"units\": " + deep);
    QVERIFY(!r.ok());
    const Diagnostic *d = findCode(r.diagnostics, "json-syntax");
    QVERIFY(d);
    QVERIFY(QString::fromStdString(d->message).contains("nesting deeper than 512"));
}

void TestPipelineFile::externalInputsAreInfo()
{
    const LoadResult r = parsePipeline(doc(std::string("[") + kUnitA + "]", ",\n \"loss\": {\"name\": \"L\", \"input_params\": [\"p\", \"t\"]}"));
    QVERIFY(r.ok());
    QStringList external;
    for (const Diagnostic &d : r.diagnostics) {
        if (d.code == "external-input") {
            QCOMPARE(d.severity, Severity::Info);
            external << QString::fromStdString(d.message).section('"', 1, 1);
        }
    }
    QCOMPARE(external, QStringList({"x", "t"}));
}

QTEST_GUILESS_MAIN(TestPipelineFile)
#include "tst_pipelinefile.moc"
