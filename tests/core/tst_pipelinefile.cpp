// SPDX-License-Identifier: MIT
// Loading and saving splitscope.pipeline/1: round trips, and one test per kind of
// bad input asserting its code, severity, JSON path, position and message.
#include "core/NameSuggestion.h"
#include "core/PipelineFile.h"
#include "resources/Examples.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace splitscope;

namespace {

// A valid document with `units` spliced in (and optional extra top-level members).
std::string doc(const std::string &units, const std::string &extra = {})
{
    return "{\n \"format\": \"splitscope.pipeline/1\",\n \"name\": \"t\",\n \"models\": [\"dit\", \"vae\"],\n"
           " \"units\": " + units + extra + "\n}";
}

const char *kUnitA = R"({"name": "A", "input_params": ["x"], "output_params": ["p"], "onload_model_names": ["vae"]})";

// A valid one-line document: columns in the expectations below count characters of it
// (`units` starts at column 85 with the default models).
std::string oneLine(const std::string &units, const std::string &models = R"(["dit", "vae"])",
    const std::string &extra = {})
{
    return R"({"format": "splitscope.pipeline/1", "name": "t", "models": )" + models + R"(, "units": )" + units + extra
        + "}";
}

const char *kUnitP = R"({"name": "A", "output_params": ["p"]})";

// Every diagnostic but the ubiquitous no-loss note, printed.
QStringList printed(const Diagnostics &ds)
{
    QStringList out;
    for (const Diagnostic &d : ds) {
        if (d.code != "no-loss")
            out << QString::fromStdString(d.toString());
    }
    return out;
}

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
    void deepNestingAnywhereGivesTheSyntaxErrorAlone_data();
    void deepNestingAnywhereGivesTheSyntaxErrorAlone();
    void diagnosticsComeInFileOrder();
    void misspelledReadsSuggestTheProducedName();
    void externalInputsOfTheExamplesSuggestNothing();
    void typoFinderIsStrict();
    void exactDiagnostics_data();
    void exactDiagnostics();
    void numberBelowADoubleReadsAsZero();
    void hundredThousandKeysLoadInLinearTime();
    void modelsAsStringKeepsItsForm();
    void emptyTrainingFieldsMeanNone();
    void notesOnlyForDocumentsThatLoad();
    void devicesAndFoldersAreNotRead();
    void oversizedInputIsRefusedUnread();
    void pipesAreReadUpToTheLimit();
    void modelsRequiringBackwardOnce();
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
    row("unknown model", doc(R"([{"name": "A", "onload_model_names": ["dit", "text_encoder"]}])"), "unknown-model", W,
        "units[0].onload_model_names[1]", 5, 56,
        "calls model \"text_encoder\", which \"models\" does not list (dit, vae)");
    row("unknown training model", doc(std::string("[") + kUnitA + "]", ",\n \"training\": {\"lora_base_model\": \"unet\"}"),
        "unknown-model", W, "training.lora_base_model", 6, 34, "model \"unet\" is not listed in \"models\" (dit, vae)");
    // Without a "models" list, the models the units call are the ones the file names.
    row("training model no unit calls",
        "{\"format\": \"splitscope.pipeline/1\", \"name\": \"t\",\n \"units\": [{\"name\": \"A\", "
        "\"onload_model_names\": [\"vae\"]}],\n \"training\": {\"trainable_models\": \"vae,a\"}}",
        "unknown-model", W, "training.trainable_models", 3, 35,
        "no unit calls model \"a\" (units call vae), and the file has no \"models\" list to name it");
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

    // Notes come in the file's order, as the reader of the file meets them (qwen_image's
    // noise initializer reads seed, rand_device and layer_num in that order).
    const BuiltinExample *e = findBuiltinExample("qwen_image");
    QVERIFY(e);
    const LoadResult q = parsePipeline(e->json, e->name);
    std::pair<int, int> previous{0, 0};
    int notes = 0;
    for (const Diagnostic &d : q.diagnostics) {
        if (d.code != "external-input")
            continue;
        const std::pair<int, int> at{d.line, d.column};
        QVERIFY2(previous < at, d.toString().c_str());
        previous = at;
        ++notes;
    }
    QCOMPARE(notes, 28);
}

// Each row: a document and every diagnostic it gets (file:line:column, path, exact
// wording), so that a wrong index, a wrong position or a follow-on error fails it.
void TestPipelineFile::deepNestingAnywhereGivesTheSyntaxErrorAlone_data()
{
    QTest::addColumn<QByteArray>("text");
    // 600 levels, past JsonReader::kMaxDepth, where each field would take a value of another type.
    const std::string deep = std::string(600, '[') + std::string(600, ']');
    auto row = [](const char *name, const std::string &text) { QTest::newRow(name) << QByteArray::fromStdString(text); };
    row("a unit's doc", oneLine(R"([{"name": "A", "doc": )" + deep + "}]"));
    row("a unit's name", oneLine(R"([{"name": )" + deep + "}]"));
    row("a unit's flag", oneLine(R"([{"name": "A", "take_over": )" + deep + "}]"));
    row("a param of a list", oneLine(R"([{"name": "A", "input_params": ["x", )" + deep + "]}]"));
    row("a posi map", oneLine(R"([{"name": "A", "input_params_posi": )" + deep + "}]"));
    row("a unit", oneLine("[" + deep + "]"));
    row("a model", oneLine(kUnitP, "[" + deep + "]"));
    row("a model's params", oneLine(kUnitP, R"([{"name": "dit", "params": )" + deep + "}]"));
    row("trainable_models", oneLine(kUnitP, R"(["dit"])", R"(, "training": {"trainable_models": )" + deep + "}"));
    row("the loss", oneLine(kUnitP, R"(["dit"])", R"(, "loss": )" + deep));
    row("a repeated key", oneLine(R"([{"name": "A", "doc": "d", "doc": )" + deep + "}]"));
    row("after an earlier error", oneLine(R"([{"name": 1}, {"name": "B", "doc": )" + deep + "}]"));
}

// The README: malformed JSON gets the syntax error alone. Nesting too deep is found only
// inside the value, after the value's type was seen: no "a string expected, found a list".
void TestPipelineFile::deepNestingAnywhereGivesTheSyntaxErrorAlone()
{
    QFETCH(QByteArray, text);
    const LoadResult r = parsePipeline(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), "bad.json");
    QVERIFY(!r.ok());
    QCOMPARE(printed(r.diagnostics).size(), 1);
    QCOMPARE(r.diagnostics.front().code, std::string("json-syntax"));
    QCOMPARE(r.diagnostics.front().message, std::string("malformed JSON: nesting deeper than 512 levels"));
}

// Every diagnostic in the file's order (line, then column), whatever its severity and
// whether the reader or a check of the whole document found it.
void TestPipelineFile::diagnosticsComeInFileOrder()
{
    const std::string text = "{\"format\": \"splitscope.pipeline/1\", \"name\": \"t\", \"models\": [\"dit\"],\n"
                             "\"units\": [\n"
                             " {\"name\": \"A\", \"output_params\": [\"p\"], \"onload_model_names\": [\"te\"]},\n"
                             " {\"name\": \"A\", \"output_params\": \"q\"},\n"
                             " {\"name\": \"C\", \"output_params\": [1]}\n"
                             "]}";
    const LoadResult r = parsePipeline(text, "bad.json");
    QCOMPARE(printed(r.diagnostics),
        QStringList({"bad.json:3:63: warning: units[0].onload_model_names[0]: unit \"A\" calls model \"te\", which "
                     "\"models\" does not list (dit)",
            "bad.json:4:11: error: units[1].name: duplicate unit name \"A\" (first used by units[0] at line 3); the "
            "split and the cache refer to units by name",
            "bad.json:4:33: warning: units[1].output_params: a string where a list of param names belongs; read as the "
            "one-element list [\"q\"]. In DiffSynth this is the trailing-comma pitfall: (\"q\") without a comma is a "
            "plain string in Python, and iterating it yields its characters one by one; write (\"q\",) there and a "
            "list here",
            "bad.json:5:34: error: units[2].output_params[0]: a string expected, found a number"}));

    // Notes too, among the warnings; and those without a place (no-loss) last.
    const LoadResult n = parsePipeline(oneLine(R"([{"name": "A", "input_params": ["x"], "output_params": ["p"]}, )"
                                               R"({"name": "B", "input_params": ["p", "y"], "output_params": "q"}])"),
        "n.json");
    QVERIFY(n.ok());
    QStringList codes;
    for (const Diagnostic &d : n.diagnostics)
        codes << QString::fromStdString(d.code) + "@" + QString::number(d.column);
    QCOMPARE(codes, QStringList({"external-input@117", "external-input@184", "string-as-list@207", "no-loss@0"}));
}

// A read param that no unit produces, a small edit away from one that a unit does, is
// a likely typo: a warning naming the produced param and its producer, in place of the
// external-input note. For the loss's reads too.
void TestPipelineFile::misspelledReadsSuggestTheProducedName()
{
    const std::string units = R"([{"name": "Edit", "input_params": ["input_image"], "output_params": ["edit_image"]}, )"
                              R"({"name": "Prompt", "input_params": ["edit_imag", "prompt"], "output_params": ["prompt_emb"]}, )"
                              R"({"name": "Noise", "input_params_posi": {"seed": "sed"}, "output_params": ["latents"]}])";
    const LoadResult r = parsePipeline(
        oneLine(units, R"(["dit"])", R"(, "loss": {"name": "L", "input_params": ["latent", "prompt_emb", "height"]})"),
        "t.json");
    QVERIFY(r.ok());
    QCOMPARE(printed(r.diagnostics),
        QStringList({"t.json:1:113: info: units[0].input_params[0]: \"input_image\" is read (first by \"Edit\") but no "
                     "unit produces it: an external input from the dataset or the call",
            "t.json:1:199: warning: units[1].input_params[0]: \"edit_imag\" is read (first by \"Prompt\") but no unit "
            "produces it; did you mean \"edit_image\" (produced by \"Edit\")? As written it is an external input, and "
            "the split takes it as one",
            "t.json:1:212: info: units[1].input_params[1]: \"prompt\" is read (first by \"Prompt\") but no unit "
            "produces it: an external input from the dataset or the call",
            "t.json:1:305: info: units[2].input_params_posi.seed: \"sed\" is read (first by \"Noise\") but no unit "
            "produces it: an external input from the dataset or the call",
            "t.json:1:384: warning: loss.input_params[0]: \"latent\" is read by the loss but no unit produces it; did "
            "you mean \"latents\" (produced by \"Noise\")? As written it is an external input, and the split takes it "
            "as one",
            "t.json:1:408: info: loss.input_params[2]: \"height\" is read by the loss but no unit produces it: an "
            "external input"}));
    const Diagnostic *typo = findCode(r.diagnostics, "possible-typo");
    QVERIFY(typo);
    QCOMPARE(typo->severity, Severity::Warning);

    // Params that differ only in digits are different params, not typos.
    const LoadResult digits = parsePipeline(
        oneLine(R"([{"name": "A", "input_params": ["layer_2", "p12"], "output_params": ["layer_1", "p13"]}])"), "d.json");
    QVERIFY(digits.ok());
    QVERIFY(!findCode(digits.diagnostics, "possible-typo"));
}

// The ten DiffSynth pipelines (and the others built in) read many external inputs; none
// of them is close enough to a produced param to be taken for a typo.
void TestPipelineFile::externalInputsOfTheExamplesSuggestNothing()
{
    for (const BuiltinExample &e : builtinExamples()) {
        const LoadResult r = parsePipeline(e.json, e.name);
        QVERIFY2(r.ok(), e.name.c_str());
        const Diagnostic *typo = findCode(r.diagnostics, "possible-typo");
        QVERIFY2(!typo, typo ? typo->toString().c_str() : "");
        QVERIFY2(findCode(r.diagnostics, "external-input"), e.name.c_str());
    }
}

void TestPipelineFile::typoFinderIsStrict()
{
    TypoFinder finder({"edit_image", "prompt_emb", "edit_image_ids", "input_latents", "noise", "p1", "latents"});
    QCOMPARE(finder.find("edit_imag"), std::ptrdiff_t(0));
    QCOMPARE(finder.find("edit_imgae"), std::ptrdiff_t(0)); // a swap: two edits, for 10 bytes
    QCOMPARE(finder.find("latens"), std::ptrdiff_t(6));
    QCOMPARE(finder.find("edit_image"), std::ptrdiff_t(-1)); // itself: produced, nothing to suggest
    QCOMPARE(finder.find("prompt"), std::ptrdiff_t(-1));     // 4 edits
    QCOMPARE(finder.find("prompt_embeds"), std::ptrdiff_t(-1)); // 3 edits, the closest real pair
    QCOMPARE(finder.find("input_image"), std::ptrdiff_t(-1));
    QCOMPARE(finder.find("nose"), std::ptrdiff_t(4)); // 4 bytes: one edit
    QCOMPARE(finder.find("noi"), std::ptrdiff_t(-1));          // under 4 bytes: none
    QCOMPARE(finder.find("p2"), std::ptrdiff_t(-1));
    QCOMPARE(TypoFinder::maxEdits(7), std::size_t(1));
    QCOMPARE(TypoFinder::maxEdits(8), std::size_t(2));
    QCOMPARE(TypoFinder::maxEdits(40), std::size_t(2));
}

void TestPipelineFile::exactDiagnostics_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expected");
    auto row = [](const char *name, const std::string &text, const QStringList &expected) {
        QTest::newRow(name) << QByteArray::fromStdString(text) << expected;
    };
    const std::string unitP = std::string("[") + kUnitP + "]";

    // Paths name the entry's index in the document, also after an entry that is no unit.
    // Notes (external inputs) describe a pipeline that loads: none after an error.
    row("json index after a non-object unit",
        oneLine(R"([7, {"name": "A", "onload_model_names": ["te"]}, {"name": "B", "input_params": ["x"]}, {"name": "A"}])"),
        {"bad.json:1:86: error: units[0]: a unit object expected, found a number",
            "bad.json:1:126: warning: units[1].onload_model_names[0]: unit \"A\" calls model \"te\", which \"models\" "
            "does not list (dit, vae)",
            "bad.json:1:181: error: units[3].name: duplicate unit name \"A\" (first used by units[1] at line 1); the split "
            "and the cache refer to units by name"});
    row("json index of a list element, after an element of a wrong type",
        oneLine(R"([{"name": "A", "input_params": ["x"]}, {"name": "B", "input_params": [1, "x"],
 "onload_model_names": ["dit", "te"]}])"),
        {"bad.json:1:155: error: units[1].input_params[0]: a string expected, found a number",
            "bad.json:2:32: warning: units[1].onload_model_names[1]: unit \"B\" calls model \"te\", which \"models\" "
            "does not list (dit, vae)"});

    // Control characters in names: legal JSON, but most likely a mistake.
    row("control characters in names",
        oneLine("[{\"name\": \"A\\nB\", \"input_params\": [\"x\\u0000y\"], \"input_params_posi\": {\"p\\tq\": \"z\"}, "
                "\"output_params\": [\"o\"]}]"),
        {"bad.json:1:95: warning: units[0].name: the unit name \"A\\nB\" contains a control character, which no "
         "DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:120: warning: units[0].input_params[0]: the param name \"x\\u0000y\" contains a control "
            "character, which no DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:120: info: units[0].input_params[0]: \"x\\u0000y\" is read (first by \"A\\nB\") but no unit "
            "produces it: an external input from the dataset or the call",
            "bad.json:1:155: warning: units[0].input_params_posi[\"p\\tq\"]: the argument name \"p\\tq\" contains a "
            "control character, which no DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:163: info: units[0].input_params_posi[\"p\\tq\"]: \"z\" is read (first by \"A\\nB\") but no "
            "unit produces it: an external input from the dataset or the call"});
    // The pipeline's, a model's and the loss's names too; and each name of a list at itself.
    row("control characters in the pipeline, model and loss names",
        R"({"format": "splitscope.pipeline/1", "name": "t\u0001", "models": ["d\tt"], "units": [{"name": "A", )"
        R"("onload_model_names": ["d\tt"], "output_params": ["p", "q\n"]}], "loss": {"name": "L\n", "input_params": )"
        R"(["p", "q\n"]}})",
        {"bad.json:1:45: warning: name: the pipeline name \"t\\u0001\" contains a control character, which no "
         "DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:67: warning: models[0]: the model name \"d\\tt\" contains a control character, which no "
            "DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:123: warning: units[0].onload_model_names[0]: the model name \"d\\tt\" contains a control "
            "character, which no DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:155: warning: units[0].output_params[1]: the param name \"q\\n\" contains a control character, "
            "which no DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:182: warning: loss.name: the loss name \"L\\n\" contains a control character, which no "
            "DiffSynth name has; reports and the app show it escaped, as here",
            "bad.json:1:211: warning: loss.input_params[1]: the param name \"q\\n\" contains a control character, "
            "which no DiffSynth name has; reports and the app show it escaped, as here"});

    // Numbers beyond a double: one error naming the path, not "a number expected, found a number".
    row("number too large", oneLine(unitP, R"([{"name": "dit", "params": 1e999}])"),
        {"bad.json:1:87: error: models[0].params: the number 1e999 is out of range (larger than a double can hold, "
         "about 1.8e308)"});
    row("negative number too large", oneLine(unitP, R"([{"name": "dit", "params": -12.5e+400}])"),
        {"bad.json:1:87: error: models[0].params: the number -12.5e+400 is out of range (larger than a double can hold, "
         "about 1.8e308)"});
    row("number too large in a kept unknown value", oneLine(R"([{"name": "A", "colour": [1, {"r": 2e400}]}])"),
        {"bad.json:1:120: error: units[0].colour: unknown key \"colour\" holds a number that is out of range (larger "
         "than a double can hold, about 1.8e308); it cannot be kept"});

    // Empty names: an error at the element itself.
    row("empty input param", oneLine(R"([{"name": "A"}, {"name": "B", "input_params": ["x", ""]}])"),
        {"bad.json:1:137: error: units[1].input_params[1]: empty param name"});
    row("empty output param as a lone string", oneLine(R"([{"name": "A", "output_params": ""}])"),
        {"bad.json:1:117: error: units[0].output_params: empty param name"});
    row("empty posi key", oneLine(R"([{"name": "A", "input_params_posi": {"": "prompt"}}])"),
        {"bad.json:1:122: error: units[0].input_params_posi[\"\"]: empty key: the key names an argument of the unit's "
         "process()"});
    row("empty posi value", oneLine(R"([{"name": "A", "input_params_posi": {"prompt": ""}}])"),
        {"bad.json:1:132: error: units[0].input_params_posi.prompt: empty param name"});
    row("empty nega value", oneLine(R"([{"name": "A", "input_params_nega": {"prompt": ""}}])"),
        {"bad.json:1:132: error: units[0].input_params_nega.prompt: empty param name"});
    row("empty loss input", oneLine(unitP, R"(["dit", "vae"])", R"(, "loss": {"name": "L", "input_params": ["p", ""]})"),
        {"bad.json:1:170: error: loss.input_params[1]: empty param name"});
    row("empty model name", oneLine(unitP, R"(["dit", ""])"), {"bad.json:1:68: error: models[1]: empty model name"});
    row("empty model name in an object, no follow-on warnings",
        oneLine(R"([{"name": "A", "onload_model_names": ["dit"]}])", R"(["te", {"name": "", "params": 1e9}, "vae"])"),
        {"bad.json:1:76: error: models[1].name: empty model name"});
    row("empty models string", oneLine(unitP, R"("")"), {"bad.json:1:60: error: models: empty model name"});
    row("empty onload model name", oneLine(R"([{"name": "A", "onload_model_names": [""]}])"),
        {"bad.json:1:123: error: units[0].onload_model_names[0]: empty model name"});

    // A wrong type is the only error about its value.
    row("unit name of a wrong type", oneLine(R"([{"name": 5}])"),
        {"bad.json:1:95: error: units[0].name: a string expected, found a number"});
    row("units of a wrong type", oneLine("true"), {"bad.json:1:85: error: units: a list of units expected, found a boolean"});
    row("model name of a wrong type", oneLine(unitP, R"([{"name": true}])"),
        {"bad.json:1:70: error: models[0].name: a string expected, found a boolean"});
    row("model name null", oneLine(unitP, R"([{"name": null}])"),
        {"bad.json:1:70: error: models[0].name: a string expected, found null"});

    // A lone model name is a one-element list, with a warning; trainable_models is one string.
    row("models as a string", oneLine(R"([{"name": "A", "onload_model_names": ["dit"]}])", R"("dit")"),
        {"bad.json:1:60: warning: models: a string where the list of model names belongs; read as the one-element list "
         "[\"dit\"] (write [\"dit\"])"});
    row("trainable_models as a list",
        oneLine(unitP, R"(["dit", "vae"])", R"(, "training": {"lora_base_model": null, "trainable_models": ["dit"]})"),
        {"bad.json:1:184: error: training.trainable_models: a comma-separated string of model names such as \"dit,vae\" "
         "(or null) expected, found a list"});

    // Malformed JSON gets the syntax error alone, whatever its first value is.
    row("malformed list", "[1,",
        {"bad.json:1:4: error: malformed JSON: unexpected end of input, a value was expected"});
    row("list with garbage after it", "[1] x",
        {"bad.json:1:5: error: malformed JSON: unexpected 'x' after the end of the document"});

    // Line breaks as editors count them: a lone CR (classic Mac OS) and CR LF are one each.
    row("CR line breaks",
        "{\r \"format\": \"splitscope.pipeline/1\",\r \"name\": \"t\",\r \"units\": [{\"name\": \"A\", "
        "\"output_params\": [3]}]\r}",
        {"bad.json:4:44: error: units[0].output_params[0]: a string expected, found a number"});
    row("CR LF line breaks",
        "{\r\n \"format\": \"splitscope.pipeline/1\",\r\n \"name\": \"t\",\r\n \"units\": [{\"name\": \"A\", "
        "\"output_params\": [3]}]\r\n}",
        {"bad.json:4:44: error: units[0].output_params[0]: a string expected, found a number"});

    // A repeated key is an error inside a kept (unknown) value too: saving would lose one.
    row("repeated key in a unit's unknown key", oneLine(R"([{"name": "A", "colour": {"k": 1, "k": 2}}])"),
        {"bad.json:1:119: error: units[0].colour.k: the key \"k\" appears twice in the same object"});
    row("repeated key deep in a top-level unknown key",
        oneLine(unitP, R"(["dit", "vae"])", R"(, "x": [1, {"a": {"k\n": 1, "k\n": [2]}}])"),
        {"bad.json:1:152: error: x[1].a[\"k\\n\"]: the key \"k\\n\" appears twice in the same object"});

    // Encodings other than UTF-8 are named.
    row("utf-16 little-endian", "\xff\xfe{\x00",
        {"bad.json:1:1: error: malformed JSON: the text looks like UTF-16 (it starts with the byte order mark FF FE); "
         "save the file as UTF-8"});
    row("utf-16 big-endian", std::string("\xfe\xff\x00{", 4),
        {"bad.json:1:1: error: malformed JSON: the text looks like UTF-16 (it starts with the byte order mark FE FF); "
         "save the file as UTF-8"});
    row("utf-16 without a byte order mark", std::string("{\x00\"\x00}\x00", 6),
        {"bad.json:1:1: error: malformed JSON: the text looks like UTF-16 (every character takes two bytes, one of them "
         "zero here); save the file as UTF-8"});

    // Columns count characters (code points), not bytes.
    row("column after 2-byte characters", "{\"format\": \"splitscope.pipeline/1\", \"name\": \"\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\xc3\xb1\", \"units\": 5}",
        {"bad.json:1:63: error: units: a list of units expected, found a number"});
    row("column after 3- and 4-byte characters",
        oneLine("[{\"name\": \"\xe6\x8b\x86\xe5\x88\x86\xf0\x9f\x98\x80\", \"take_over\": 1}]"),
        {"bad.json:1:115: error: units[0].take_over: true or false expected, found a number"});
}

void TestPipelineFile::exactDiagnostics()
{
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expected);
    const LoadResult r = parsePipeline(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), "bad.json");
    QCOMPARE(printed(r.diagnostics), expected);
    QCOMPARE(r.ok(), !expected.join('\n').contains(": error: "));
    if (r.ok()) { // still the same document after a save
        const std::string saved = serializePipeline(*r.pipeline);
        const LoadResult again = parsePipeline(saved);
        QVERIFY(again.ok());
        QCOMPARE(serializePipeline(*again.pipeline), saved);
    }
}

void TestPipelineFile::numberBelowADoubleReadsAsZero()
{
    const LoadResult r = parsePipeline(oneLine(std::string("[") + kUnitP + "]", R"([{"name": "dit", "params": 1e-400}])"));
    QVERIFY(r.ok());
    QCOMPARE(printed(r.diagnostics), QStringList());
    QCOMPARE(r.pipeline->models.front().params, std::optional<double>(0.0));
}

// The duplicate-key and duplicate-output checks were quadratic (100k keys: 17 s). This
// runs in about 0.3 s in a RelWithDebInfo build; it asserts results, not time.
void TestPipelineFile::hundredThousandKeysLoadInLinearTime()
{
    constexpr int kKeys = 100000;
    auto members = [](const char *valueText) {
        std::string out;
        for (int i = 0; i < kKeys; ++i)
            out += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": " + valueText;
        return out;
    };
    QElapsedTimer timer;
    timer.start();

    // In input_params_posi: accepted, and saved back unchanged.
    const LoadResult posi = parsePipeline(oneLine("[{\"name\": \"A\", \"input_params_posi\": {" + members("\"x\"") + "}}]"));
    QVERIFY(posi.ok());
    QCOMPARE(posi.pipeline->units.front().inputParamsPosi->size(), std::size_t(kKeys));
    const std::string saved = serializePipeline(*posi.pipeline);
    QCOMPARE(serializePipeline(*parsePipeline(saved).pipeline), saved);

    // At the top level (unknown keys, as in a unit), with the first key repeated at the
    // end: a warning for each key, and one duplicate-key error, for the repeat.
    const std::string top = "{\"format\": \"splitscope.pipeline/1\", \"name\": \"t\", \"units\": [" + std::string(kUnitP)
        + "], " + members("1") + ", \"k0\": 2}";
    const LoadResult dup = parsePipeline(top, "bad.json");
    QVERIFY(!dup.ok());
    QCOMPARE(countSeverity(dup.diagnostics, Severity::Error), std::size_t(1));
    QCOMPARE(countSeverity(dup.diagnostics, Severity::Warning), std::size_t(kKeys));
    const Diagnostic *d = findCode(dup.diagnostics, "duplicate-key");
    QVERIFY(d);
    QCOMPARE(QString::fromStdString(d->toString()),
        QString("bad.json:1:%1: error: k0: the key \"k0\" appears twice in the same object")
            .arg(top.size() - std::string("\"k0\": 2}").size() + 1));

    // 100k outputs with one repeated: one duplicate-output warning, for the repeat.
    std::string outputs = "[";
    for (int i = 0; i < kKeys; ++i)
        outputs += "\"o" + std::to_string(i) + "\", ";
    outputs += "\"o7\"]";
    const std::string outText = oneLine("[{\"name\": \"A\", \"output_params\": " + outputs + "}]");
    const LoadResult out = parsePipeline(outText, "bad.json");
    QVERIFY(out.ok());
    QCOMPARE(printed(out.diagnostics),
        QStringList({QString("bad.json:1:%1: warning: units[0].output_params[%2]: unit \"A\" lists output \"o7\" twice")
                         .arg(outText.rfind("\"o7\"") + 1)
                         .arg(kKeys)}));
    qInfo("three documents of %d keys loaded in %lld ms", kKeys, static_cast<long long>(timer.elapsed()));
}

void TestPipelineFile::modelsAsStringKeepsItsForm()
{
    const std::string text = oneLine(R"([{"name": "A", "onload_model_names": ["dit"]}])", R"("dit")");
    const LoadResult r = parsePipeline(text);
    QVERIFY(r.ok());
    QCOMPARE(r.pipeline->modelNames(), std::vector<std::string>{"dit"});
    const std::string saved = serializePipeline(*r.pipeline);
    QVERIFY2(saved.find("\"models\": \"dit\",") != std::string::npos, saved.c_str());
    const LoadResult again = parsePipeline(saved);
    QVERIFY(again.ok());
    QCOMPARE(serializePipeline(*again.pipeline), saved);
    // With a second model it is a list again.
    Pipeline two = *r.pipeline;
    ModelSpec vae;
    vae.name = "vae";
    two.models.push_back(vae);
    QVERIFY(serializePipeline(two).find("\"models\": [") != std::string::npos);
}

void TestPipelineFile::notesOnlyForDocumentsThatLoad()
{
    // After errors, notes (no loss, external inputs) would describe a pipeline that is not there.
    const char *withAnError = R"({"format": "splitscope.pipeline/1", "name": "t", "units": )"
                              R"([{"name": "A", "input_params": ["x"], "output_params": 5}]})";
    for (const char *text : {"{}", "[1]", "[1,", withAnError}) {
        const LoadResult r = parsePipeline(text, "bad.json");
        QVERIFY(!r.ok());
        QVERIFY2(countSeverity(r.diagnostics, Severity::Info) == 0, text);
    }
    // A document that loads keeps them.
    const LoadResult ok = parsePipeline(oneLine(R"([{"name": "A", "input_params": ["x"]}])"), "ok.json");
    QVERIFY(ok.ok());
    QVERIFY(findCode(ok.diagnostics, "no-loss"));
    QVERIFY(findCode(ok.diagnostics, "external-input"));
}

void TestPipelineFile::devicesAndFoldersAreNotRead()
{
    // /dev/zero never ends: read, it filled memory until std::bad_alloc.
    const LoadResult zero = loadPipelineFile("/dev/zero");
    QCOMPARE(printed(zero.diagnostics),
        QStringList(
            {"/dev/zero: error: cannot read '/dev/zero': it is a character device, not a regular file or a pipe"}));
    QTemporaryDir dir;
    const LoadResult folder = loadPipelineFile(dir.path().toStdString());
    QCOMPARE(printed(folder.diagnostics),
        QStringList({dir.path() + ": error: cannot read '" + dir.path() + "': it is a folder, not a pipeline file"}));
    QCOMPARE(folder.diagnostics.front().code, std::string("io"));
}

void TestPipelineFile::oversizedInputIsRefusedUnread()
{
    // A sparse file: above the limit in size, nothing on disk, and never read.
    QTemporaryDir dir;
    const QString path = dir.filePath("huge.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(static_cast<qint64>(kMaxPipelineBytes) + 1));
    f.close();
    QElapsedTimer timer;
    timer.start();
    const LoadResult r = loadPipelineFile(path.toStdString());
    QVERIFY(timer.elapsed() < 1000);
    QCOMPARE(printed(r.diagnostics),
        QStringList({path + ": error: the file has 1073741825 bytes; pipeline descriptions above 1073741824 bytes "
                            "(1 GiB) are refused (a 10^6-unit pipeline takes 308 MB)"}));
    QCOMPARE(r.diagnostics.front().code, std::string("input-too-large"));
    // Below the limit the same file is read (ten NUL bytes: no JSON).
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(10));
    f.close();
    QVERIFY(findCode(loadPipelineFile(path.toStdString()).diagnostics, "json-syntax"));
}

void TestPipelineFile::pipesAreReadUpToTheLimit()
{
    const std::string text = oneLine(std::string("[") + kUnitP + "]");
    auto throughAPipe = [&text](std::size_t maxBytes) {
        int fds[2];
        if (::pipe(fds) != 0)
            return LoadResult{};
        // The text fits the pipe's buffer, so one thread can write it all, then read.
        const bool written = ::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
        ::close(fds[1]);
        LoadResult r = written ? loadPipelineDescriptor(fds[0], "<stdin>", maxBytes) : LoadResult{};
        ::close(fds[0]);
        return r;
    };
    QVERIFY(throughAPipe(kMaxPipelineBytes).ok());
    QVERIFY(throughAPipe(text.size()).ok());
    const LoadResult tooLong = throughAPipe(text.size() - 1);
    QCOMPARE(printed(tooLong.diagnostics),
        QStringList({QString("<stdin>: error: it holds more than %1 bytes; pipeline descriptions above %1 bytes are "
                             "refused (a 10^6-unit pipeline takes 308 MB)")
                         .arg(text.size() - 1)}));
}

void TestPipelineFile::modelsRequiringBackwardOnce()
{
    // Named twice, or trained in full and as the LoRA base: needs gradients once, in first-named order.
    TrainingConfig config;
    config.trainableModels = "vae,vae, dit,,text_encoder";
    config.loraBaseModel = "dit";
    QCOMPARE(config.modelsRequiringBackward(), (std::vector<std::string>{"vae", "dit", "text_encoder"}));
}

void TestPipelineFile::emptyTrainingFieldsMeanNone()
{
    // "" is "no model" on DiffSynth's command line: accepted, no "model \"\" is not listed".
    const LoadResult r = parsePipeline(oneLine(std::string("[") + kUnitP + "]", R"(["dit", "vae"])",
        R"(, "loss": {"name": "", "input_params": ["p"]}, "training": {"lora_base_model": "", "trainable_models": ""})"
        R"(, "alternative_training": [{"lora_base_model": ""}])"));
    QVERIFY(r.ok());
    QCOMPARE(printed(r.diagnostics), QStringList());
    QCOMPARE(r.pipeline->training->loraBaseModel, std::optional<std::string>(""));
    QVERIFY(r.pipeline->training->modelsRequiringBackward().empty());
    const std::string saved = serializePipeline(*r.pipeline);
    QVERIFY(saved.find("\"lora_base_model\": \"\",") != std::string::npos);
    QCOMPARE(serializePipeline(*parsePipeline(saved).pipeline), saved);
}

QTEST_GUILESS_MAIN(TestPipelineFile)
#include "tst_pipelinefile.moc"
