// SPDX-License-Identifier: MIT
// The engine's data side: metadata.csv and the dataset, PNG and resizing, the
// tokenizer, the synthetic dataset, model paths, the cache manifest and what a cache
// shard's header must hold.
#include "core/engine/CacheLayout.h"
#include "core/engine/CacheManifest.h"
#include "core/engine/Dataset.h"
#include "core/engine/Engine.h"
#include "core/engine/Events.h"
#include "core/engine/Hash.h"
#include "core/engine/Heartbeat.h"
#include "core/engine/ImageIO.h"
#include "core/engine/JsonDocument.h"
#include "core/engine/MemoryEstimate.h"
#include "core/engine/ModelConfig.h"
#include "core/engine/ModelFiles.h"
#include "core/engine/Safetensors.h"
#include "core/engine/SyntheticDataset.h"
#include "core/engine/TinyQwenImage.h"
#include "core/engine/Tokenizer.h"
#include "core/AtomicFile.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <functional>
#include <mutex>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace splitscope::engine;

namespace {

Image solid(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b)
{
    Image image;
    image.width = width;
    image.height = height;
    for (int i = 0; i < width * height; ++i) {
        image.rgb.push_back(r);
        image.rgb.push_back(g);
        image.rgb.push_back(b);
    }
    return image;
}

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

class TestEngineData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fileSetHashesAreRemembered();
    void longWorkIsReportedEveryFewSeconds();
    void csv_data();
    void csv();
    void csvUnterminatedQuote();
    void datasetReportsBadRows();
    void datasetNeedsItsColumns();
    void datasetRefusesRepeatedColumnsAndFolders();
    void datasetChecksEveryImageUpFront_data();
    void datasetChecksEveryImageUpFront();
    void datasetListsManyBadImages();
    void datasetReportsUnreadableImage();
    void datasetSizes();
    void fingerprintIgnoresTheFolderSpelling();
    void pngRoundTrip();
    void cropAndResize();
    void fitMaxPixels_data();
    void fitMaxPixels();
    void tokenizer();
    void tokenizerRejectsBadVocabulary();
    void syntheticDatasetIsDeterministic();
    void modelPathSpecs_data();
    void modelPathSpecs();
    void resolveModelsSaysWhatIsMissing();
    void initModelsKeepsExistingModels();
    void manifestRoundTripAndDifferences();
    void jsonErrorsNameFilePositionAndField();
    void cacheLayoutChecksShardHeaders();
    void jsonKeepsBytesThatAreNotUtf8();
    void readWholeFileRefusesDevicesAndHugeFiles();
    void readWholeFileTakesTheCallersLimit();
    void memoryEstimateCountsEditImages();
    void datasetGivesTheLargestEditImage();
};

void TestEngineData::csv_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QStringList>("lastRow");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("lastLine");
    QTest::addRow("plain") << QByteArray("image,prompt\na.png,a cat\n") << QStringList{"a.png", "a cat"} << 2 << 2;
    QTest::addRow("quoted comma") << QByteArray("image,prompt\na.png,\"red, big\"\n") << QStringList{"a.png", "red, big"} << 2 << 2;
    QTest::addRow("doubled quote") << QByteArray("image,prompt\na.png,\"say \"\"hi\"\"\"\n") << QStringList{"a.png", "say \"hi\""} << 2 << 2;
    QTest::addRow("crlf, no final newline") << QByteArray("image,prompt\r\na.png,x\r\nb.png,y") << QStringList{"b.png", "y"} << 3 << 3;
    QTest::addRow("bom and blank lines") << QByteArray("\xEF\xBB\xBFimage,prompt\n\na.png,x\n\n") << QStringList{"a.png", "x"} << 2 << 3;
    QTest::addRow("newline in quotes") << QByteArray("image,prompt\na.png,\"two\nlines\"\nb.png,z\n") << QStringList{"b.png", "z"} << 3 << 4;
}

void TestEngineData::csv()
{
    QFETCH(QByteArray, input);
    QFETCH(QStringList, lastRow);
    QFETCH(int, rows);
    QFETCH(int, lastLine);
    std::vector<std::vector<std::string>> cells;
    std::vector<int> lines;
    std::string error;
    QVERIFY2(parseCsv(input.toStdString(), cells, lines, &error), error.c_str());
    QCOMPARE(int(cells.size()), rows);
    QCOMPARE(cells.front().front(), std::string("image"));
    QStringList last;
    for (const auto &c : cells.back())
        last << text(c);
    QCOMPARE(last, lastRow);
    QCOMPARE(lines.back(), lastLine);
}

void TestEngineData::csvUnterminatedQuote()
{
    std::vector<std::vector<std::string>> cells;
    std::vector<int> lines;
    std::string error;
    QVERIFY(!parseCsv("image,prompt\na.png,\"open\nb.png,x\n", cells, lines, &error));
    QCOMPARE(text(error), QString("2:7: unclosed quote opened at 2:7: a quoted field is never closed"));
    // A quote missing mid-file: the quotes after it pair up the wrong way round, and the
    // last one opened (3:19) is not where the mistake is. It was reported there.
    QVERIFY(!parseCsv("image,prompt\na.png,a \"red circle\nb.png,\"blue square\"\nc.png,green\n", cells, lines, &error));
    QCOMPARE(text(error), QString("2:9: unclosed quote opened at 2:9: a quoted field is never closed (the quotes after it "
                                  "pair up the wrong way round, up to the last one opened, at 3:19)"));
}

void TestEngineData::datasetReportsBadRows()
{
    QTemporaryDir dir;
    std::string error;
    QVERIFY(writePngFile(dir.filePath("ok.png").toStdString(), solid(16, 16, 1, 2, 3), &error));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt\nok.png,fine\nmissing.png,gone\nok.png\n,empty image\nok.png,fine too\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    ImageDataset dataset;
    QVERIFY(!dataset.open(options, &error));
    const QString message = text(error);
    QVERIFY2(message.startsWith("3 bad rows in the dataset:"), error.c_str());
    QVERIFY2(message.contains("metadata.csv:3:1: 'image' file 'missing.png' not found (looked for '" + dir.filePath("missing.png") + "')"), error.c_str());
    QVERIFY2(message.contains("metadata.csv:4:1: 1 fields, the header has 2"), error.c_str());
    QVERIFY2(message.contains("metadata.csv:5:1: empty 'image'"), error.c_str());
    QVERIFY(!message.contains("metadata.csv:2:"));
}

// A header naming a column twice, and a row naming a folder, are refused saying so;
// every message about metadata.csv is FILE:LINE:COLUMN.
void TestEngineData::datasetRefusesRepeatedColumnsAndFolders()
{
    QTemporaryDir dir;
    std::string error;
    QVERIFY(writePngFile(dir.filePath("ok.png").toStdString(), solid(16, 16, 1, 2, 3), &error));
    QVERIFY(QDir(dir.path()).mkdir("images"));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt,prompt\nok.png,a,b\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    ImageDataset dataset;
    QVERIFY(!dataset.open(options, &error));
    QCOMPARE(text(error), dir.filePath("metadata.csv") + ":1:14: the header names the column 'prompt' twice (fields 2 and 3): "
        "rename or remove one");

    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt\nok.png,fine\nimages,a folder\n\"ok.png\",\"x\"\n"));
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).contains("metadata.csv:3:1: 'image' file 'images' is a folder, not an image file ('"
                 + dir.filePath("images") + "')"),
        error.c_str());
    QVERIFY(!text(error).contains("not found"));

    // The column of the cell at fault, counted in characters (the é is one).
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "prompt,image\nfine,ok.png\ncaf\xC3\xA9,missing.png\n"));
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).contains("metadata.csv:3:6: 'image' file 'missing.png' not found"), error.c_str());
}

void TestEngineData::datasetNeedsItsColumns()
{
    QTemporaryDir dir;
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "file,caption\na.png,x\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    ImageDataset dataset;
    std::string error;
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).endsWith("metadata.csv:1:1: no 'image' column (header: 'file,caption')"), error.c_str());

    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("other.csv"), "image,prompt\n"));
    options.metadataPath = dir.filePath("other.csv").toStdString();
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).endsWith("other.csv:2:1: no data rows after the header"), error.c_str());

    options.metadataPath = dir.filePath("nope.csv").toStdString();
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).startsWith("--dataset_metadata_path: cannot open") || text(error).contains("nope.csv"), error.c_str());

    options.basePath = dir.filePath("no-such-folder").toStdString();
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).startsWith("--dataset_base_path: '"), error.c_str());
}

// A damaged image is found when the dataset opens, before any work, whichever of
// the files a row names it is (here the edit image), and whatever the damage.
void TestEngineData::datasetChecksEveryImageUpFront_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("message");
    QTest::addRow("zero bytes") << "empty" << "empty file (0 bytes)";
    QTest::addRow("cut short") << "half" << "truncated: ";
    QTest::addRow("random bytes") << "random" << "not a PNG file (bad signature)";
    QTest::addRow("signature, then random bytes") << "signature" << "not a valid PNG file (it does not start with an IHDR chunk)";
    QTest::addRow("header changed") << "ihdr" << "corrupt PNG header (IHDR CRC mismatch)";
    QTest::addRow("no end") << "noend" << "truncated: the file ends after 70 bytes, before the PNG's end (IEND)";
    QTest::addRow("too short for a header") << "short" << "truncated: 20 bytes, too short for a PNG header";
}

void TestEngineData::datasetChecksEveryImageUpFront()
{
    QFETCH(QString, damage);
    QFETCH(QString, message);
    QTemporaryDir dir;
    std::string error;
    std::string png;
    QVERIFY(encodePng(solid(16, 16, 1, 2, 3), png, &error));
    QByteArray bytes = QByteArray::fromStdString(png);
    // Pseudo-random bytes, the same every run.
    QByteArray random;
    for (int i = 0; i < 200; ++i)
        random.append(static_cast<char>((i * 2654435761u) >> 24));
    if (damage == "empty")
        bytes.clear();
    else if (damage == "half")
        bytes.truncate(bytes.size() / 2);
    else if (damage == "random")
        bytes = random;
    else if (damage == "signature")
        bytes = bytes.left(8) + random;
    else if (damage == "ihdr")
        bytes[19] = static_cast<char>(bytes[19] + 1); // the width's low byte
    else if (damage == "noend")
        bytes.chop(12);
    else if (damage == "short")
        bytes.truncate(20);
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("ok.png"), QByteArray::fromStdString(png)));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("bad.png"), bytes));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt,edit_image\nok.png,a,ok.png\nok.png,b,bad.png\nok.png,c,ok.png\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    options.dataFileKeys = {"image", "edit_image"};
    options.extraInputs = {"edit_image"};
    ImageDataset dataset;
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).startsWith("1 bad row in the dataset:\n"), error.c_str());
    QVERIFY2(text(error).contains("metadata.csv:3:10: 'edit_image' file 'bad.png': "), error.c_str());
    QVERIFY2(text(error).contains(message), error.c_str());
    QVERIFY(checkPngFile(dir.filePath("ok.png").toStdString(), &error));
}

void TestEngineData::datasetListsManyBadImages()
{
    QTemporaryDir dir;
    QByteArray metadata = "image,prompt\n";
    for (int i = 0; i < 12; ++i) {
        const QString name = QString("bad-%1.png").arg(i);
        QVERIFY(splitscope::test::writeFileBytes(dir.filePath(name), i % 2 ? QByteArray() : QByteArray("\x89PNG\r\n\x1a\n")));
        metadata += name.toUtf8() + ",x\n";
    }
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), metadata));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    ImageDataset dataset;
    std::string error;
    QVERIFY(!dataset.open(options, &error));
    QVERIFY2(text(error).startsWith("12 bad rows in the dataset:\n"), error.c_str());
    QVERIFY2(text(error).contains("metadata.csv:2:1: 'image' file 'bad-0.png': truncated: 8 bytes"), error.c_str());
    QVERIFY2(text(error).contains("metadata.csv:11:1: 'image' file 'bad-9.png': empty file (0 bytes)"), error.c_str());
    QVERIFY2(text(error).endsWith("\n  ... and 2 more"), error.c_str());
}

// What the check up front leaves to decoding: bytes changed inside the compressed
// image data, which only a full decode sees (the structure is intact).
void TestEngineData::datasetReportsUnreadableImage()
{
    QTemporaryDir dir;
    std::string png;
    std::string error;
    QVERIFY(encodePng(solid(16, 16, 1, 2, 3), png, &error));
    const std::size_t data = png.find("IDAT") + 4;
    QVERIFY(data > 4);
    png[data] = '\xff';
    png[data + 1] = '\xff';
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("bad.png"), QByteArray::fromStdString(png)));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt\nbad.png,broken\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    ImageDataset dataset;
    QVERIFY2(dataset.open(options, &error), error.c_str());
    DatasetSample sample;
    QVERIFY(!dataset.load(0, sample, &error));
    QVERIFY2(text(error).contains("metadata.csv:2:1: cannot decode '"), error.c_str());
    QVERIFY2(text(error).contains("bad.png' as PNG: "), error.c_str());
}

void TestEngineData::datasetSizes()
{
    QTemporaryDir dir;
    std::string error;
    QVERIFY(writePngFile(dir.filePath("wide.png").toStdString(), solid(100, 40, 9, 9, 9), &error));
    QVERIFY(writePngFile(dir.filePath("edit.png").toStdString(), solid(30, 20, 1, 1, 1), &error));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt,edit_image,style\nwide.png,\"wide, flat\",edit.png,bold\n"));
    DatasetOptions options;
    options.basePath = dir.path().toStdString();
    options.dataFileKeys = {"image", "edit_image"};
    options.extraInputs = {"edit_image", "style"};
    ImageDataset dataset;
    QVERIFY2(dataset.open(options, &error), error.c_str());
    DatasetSample sample;
    QVERIFY2(dataset.load(0, sample, &error), error.c_str());
    QCOMPARE(sample.image.width, 96); // 100 and 40 rounded down to multiples of 16
    QCOMPARE(sample.image.height, 32);
    QCOMPARE(sample.prompt, std::string("wide, flat"));
    QCOMPARE(sample.images.at("edit_image").width, 30); // extra inputs stay as stored
    QCOMPARE(sample.texts.at("style"), std::string("bold"));

    options.maxPixels = 1000; // 100x40 = 4000 pixels: halved, then rounded to 16
    QVERIFY(dataset.open(options, &error));
    QVERIFY(dataset.load(0, sample, &error));
    QCOMPARE(sample.image.width, 48);
    QCOMPARE(sample.image.height, 16);

    options.width = 32;
    options.height = 64;
    QVERIFY(dataset.open(options, &error));
    QVERIFY(dataset.load(0, sample, &error));
    QCOMPARE(sample.image.width, 32);
    QCOMPARE(sample.image.height, 64);
    const std::uint64_t before = dataset.fingerprint();
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("metadata.csv"), "image,prompt,edit_image,style\nwide.png,\"wide, flat\",edit.png,bolder\n"));
    QVERIFY(dataset.open(options, &error));
    QVERIFY(dataset.fingerprint() != before);
}

// The fingerprint (what stage one and --resume compare) names the images as
// metadata.csv does: the same folder reached another way is the same dataset.
void TestEngineData::fingerprintIgnoresTheFolderSpelling()
{
    QTemporaryDir dir;
    std::string error;
    QVERIFY(QDir().mkpath(dir.filePath("data")));
    QVERIFY(writePngFile(dir.filePath("data/a.png").toStdString(), solid(16, 16, 1, 2, 3), &error));
    QVERIFY(splitscope::test::writeFileBytes(dir.filePath("data/metadata.csv"), "image,prompt\na.png,x\n"));
    QVERIFY(QFile::link(dir.filePath("data"), dir.filePath("link")));
    std::vector<std::uint64_t> fingerprints;
    for (const QString &base : {dir.filePath("data"), dir.filePath("data/"), dir.filePath("data/./"), dir.filePath("link")}) {
        DatasetOptions options;
        options.basePath = base.toStdString();
        ImageDataset dataset;
        QVERIFY2(dataset.open(options, &error), error.c_str());
        fingerprints.push_back(dataset.fingerprint());
    }
    QCOMPARE(std::count(fingerprints.begin(), fingerprints.end(), fingerprints.front()), 4L);
}

void TestEngineData::pngRoundTrip()
{
    Image image;
    image.width = 5;
    image.height = 3;
    for (int i = 0; i < 15 * 3; ++i)
        image.rgb.push_back(static_cast<std::uint8_t>(i * 17));
    std::string bytes;
    std::string error;
    QVERIFY(encodePng(image, bytes, &error));
    QCOMPARE(bytes.substr(1, 3), std::string("PNG"));
    Image back;
    QVERIFY2(decodePng(bytes, back, "memory", &error), error.c_str());
    QCOMPARE(back.width, 5);
    QCOMPARE(back.height, 3);
    QVERIFY(back.rgb == image.rgb);
    bytes.resize(bytes.size() / 2);
    QVERIFY(!decodePng(bytes, back, "half.png", &error));
    QVERIFY2(text(error).startsWith("cannot decode 'half.png' as PNG:"), error.c_str());
}

void TestEngineData::cropAndResize()
{
    // Left half red, right half blue; a square center crop keeps both halves.
    Image image = solid(64, 32, 255, 0, 0);
    for (int y = 0; y < 32; ++y) {
        for (int x = 32; x < 64; ++x) {
            std::uint8_t *p = image.pixel(x, y);
            p[0] = 0;
            p[2] = 255;
        }
    }
    const Image square = splitscope::engine::cropAndResize(image, 16, 16);
    QCOMPARE(square.width, 16);
    QCOMPARE(square.height, 16);
    QCOMPARE(int(square.pixel(0, 8)[0]), 255);
    QCOMPARE(int(square.pixel(15, 8)[2]), 255);
    const Image flat = resizeBilinear(solid(10, 10, 7, 8, 9), 3, 5);
    for (int i = 0; i < 15; ++i) {
        QCOMPARE(int(flat.rgb[std::size_t(i) * 3]), 7);
        QCOMPARE(int(flat.rgb[std::size_t(i) * 3 + 2]), 9);
    }
}

void TestEngineData::fitMaxPixels_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<long long>("maxPixels");
    QTest::addColumn<int>("expectedWidth");
    QTest::addColumn<int>("expectedHeight");
    QTest::addRow("fits") << 64 << 64 << 1048576LL << 64 << 64;
    QTest::addRow("rounded down") << 70 << 50 << 1048576LL << 64 << 48;
    QTest::addRow("scaled") << 2048 << 2048 << 1048576LL << 1024 << 1024;
    QTest::addRow("at least one block") << 10 << 10 << 1048576LL << 16 << 16;
}

void TestEngineData::fitMaxPixels()
{
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(long long, maxPixels);
    QFETCH(int, expectedWidth);
    QFETCH(int, expectedHeight);
    const auto fitted = splitscope::engine::fitMaxPixels(width, height, maxPixels, 16);
    QCOMPARE(fitted.first, expectedWidth);
    QCOMPARE(fitted.second, expectedHeight);
}

void TestEngineData::tokenizer()
{
    const Tokenizer t = Tokenizer::build({"a", "large", "red", "circle"});
    const auto ids = t.encode("A large RED circle!");
    QCOMPARE(ids.size(), std::size_t(5));
    QCOMPARE(t.token(ids[0]), std::string("a"));
    QCOMPARE(t.token(ids[2]), std::string("red"));
    QCOMPARE(t.token(ids[4]), std::string("<0x21>")); // '!' falls back to its byte
    QCOMPARE(t.encode("zebra").size(), std::size_t(5)); // one byte token per letter
    std::vector<std::int64_t> padded;
    std::vector<std::int64_t> mask;
    t.encodePadded("red circle", 4, padded, mask);
    QCOMPARE(padded.size(), std::size_t(4));
    QCOMPARE(mask, (std::vector<std::int64_t>{1, 1, 0, 0}));
    QCOMPARE(padded[3], t.padId());
    t.encodePadded("a a a a a a", 3, padded, mask);
    QCOMPARE(mask, (std::vector<std::int64_t>{1, 1, 1}));
    Tokenizer back;
    std::string error;
    QVERIFY2(back.loadFromJson(t.toJson(), "vocab.json", &error), error.c_str());
    QCOMPARE(back.vocabSize(), t.vocabSize());
    QCOMPARE(back.encode("a large red circle!"), t.encode("a large red circle!"));
}

void TestEngineData::tokenizerRejectsBadVocabulary()
{
    Tokenizer t;
    std::string error;
    QVERIFY(!t.loadFromJson("{\"format\":\"other\"}", "v.json", &error));
    QCOMPARE(text(error), QString("v.json:1:11: format: expected \"splitscope.tokenizer/1\" (not a tokenizer vocabulary "
                                  "otherwise), found the string \"other\""));
    QVERIFY(!t.loadFromJson("{\"format\":5}", "v.json", &error));
    QVERIFY2(text(error).startsWith("v.json:1:11: format: expected"), error.c_str());
    QVERIFY(!t.loadFromJson("{\"format\":\"splitscope.tokenizer/1\",\n \"tokens\":[\"a\", 7]}", "v.json", &error));
    QCOMPARE(text(error), QString("v.json:2:17: tokens[1]: expected a string, found the number 7"));
    QVERIFY(!t.loadFromJson("{\"format\":\"splitscope.tokenizer/1\",\"tokens\":[\"a\"]}", "v.json", &error));
    QVERIFY2(text(error).contains("lacks <|endoftext|>"), error.c_str());
    QVERIFY(!t.loadFromJson("{nope", "v.json", &error));
    QVERIFY2(text(error).startsWith("v.json:1:2: not valid JSON: "), error.c_str());
    QVERIFY2(!text(error).contains("json.exception"), error.c_str());
}

void TestEngineData::syntheticDatasetIsDeterministic()
{
    QTemporaryDir dir;
    SyntheticDatasetOptions options;
    options.count = 5;
    options.width = 32;
    options.height = 32;
    options.edit = true;
    std::string error;
    options.directory = dir.filePath("a").toStdString();
    QVERIFY2(makeSyntheticDataset(options, &error), error.c_str());
    options.directory = dir.filePath("b").toStdString();
    QVERIFY(makeSyntheticDataset(options, &error));
    options.directory = dir.filePath("c").toStdString();
    options.seed = 1;
    QVERIFY(makeSyntheticDataset(options, &error));
    auto read = [](const QString &path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    QCOMPARE(read(dir.filePath("a/metadata.csv")), read(dir.filePath("b/metadata.csv")));
    QCOMPARE(read(dir.filePath("a/images/00003.png")), read(dir.filePath("b/images/00003.png")));
    QVERIFY(read(dir.filePath("a/metadata.csv")) != read(dir.filePath("c/metadata.csv")));
    const QStringList lines = QString::fromUtf8(read(dir.filePath("a/metadata.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines.front(), QString("image,prompt,edit_image"));
    QVERIFY2(lines[1].contains(" background\",edit/00000.png"), qPrintable(lines[1]));
    Image edit;
    QVERIFY(readPngFile(dir.filePath("a/edit/00000.png").toStdString(), edit, &error));
    QCOMPARE(edit.width, 48);
    // The captions' words are in the tokenizer's vocabulary.
    const Tokenizer t = Tokenizer::build(syntheticCaptionWords());
    const QString caption = lines[1].section('"', 1, 1);
    QCOMPARE(int(t.encode(caption.toStdString()).size()), caption.split(' ').size());
}

void TestEngineData::modelPathSpecs_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("error");
    QTest::addRow("seed's list") << "Org/M:transformer/d*.safetensors,Org/M:vae/v.safetensors" << 2 << "";
    QTest::addRow("blanks and empty entries") << " Org/M:a.safetensors , ," << 1 << "";
    QTest::addRow("no colon") << "Org/M/a.safetensors" << 0 << "--flag: 'Org/M/a.safetensors' is not MODEL_ID:FILE_PATTERN";
    QTest::addRow("two colons") << "Org/M:a:b" << 0 << "is not MODEL_ID:FILE_PATTERN";
    QTest::addRow("leaves the root") << "Org/M:../x.safetensors" << 0 << "leaves the models root";
}

void TestEngineData::modelPathSpecs()
{
    QFETCH(QString, list);
    QFETCH(int, count);
    QFETCH(QString, error);
    std::vector<ModelPathSpec> specs;
    std::string message;
    const bool ok = parseModelPathSpecs(list.toStdString(), "flag", specs, &message);
    QCOMPARE(ok, error.isEmpty());
    if (ok)
        QCOMPARE(int(specs.size()), count);
    else
        QVERIFY2(text(message).contains(error), message.c_str());
}

void TestEngineData::resolveModelsSaysWhatIsMissing()
{
    QTemporaryDir dir;
    InitModelsParams init;
    init.root = dir.filePath("models").toStdString();
    init.preset = "small";
    std::string error;
    QVERIFY2(initModels(init, nullptr, &error), error.c_str());
    std::vector<ModelPathSpec> specs;
    std::vector<ResolvedModel> models;
    QVERIFY(parseModelPathSpecs("Qwen/Qwen-Image:transformer/diffusion_pytorch_model*.safetensors,Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors",
        "f", specs, &error));
    QVERIFY2(resolveModels(init.root, specs, models, &error), error.c_str());
    QCOMPARE(models.size(), std::size_t(2));
    QCOMPARE(models[0].name, std::string("dit"));
    QCOMPARE(models[0].files.size(), std::size_t(2)); // both shards
    QCOMPARE(models[1].name, std::string("vae"));

    QVERIFY(parseModelPathSpecs("Qwen/Qwen-Image:vae/nothing*.safetensors", "f", specs, &error));
    QVERIFY(!resolveModels(init.root, specs, models, &error));
    QVERIFY2(text(error).contains("no file matches 'vae/nothing*.safetensors' under '" + dir.filePath("models/Qwen/Qwen-Image") + "'"), error.c_str());

    QVERIFY(parseModelPathSpecs("Other/Model:x.safetensors", "f", specs, &error));
    QVERIFY(!resolveModels(init.root, specs, models, &error));
    QVERIFY2(text(error).contains("no folder '" + dir.filePath("models/Other/Model") + "'"), error.c_str());

    QVERIFY(QFile::remove(dir.filePath("models/Qwen/Qwen-Image/vae/config.json")));
    QVERIFY(parseModelPathSpecs("Qwen/Qwen-Image:vae/diffusion_pytorch_model.safetensors", "f", specs, &error));
    QVERIFY(!resolveModels(init.root, specs, models, &error));
    QVERIFY2(text(error).contains("no config.json beside the weights"), error.c_str());

    QVERIFY(parseModelPathSpecs("Qwen/Qwen-Image:transformer/diffusion_pytorch_model-00001*.safetensors,"
                                "Qwen/Qwen-Image:transformer/diffusion_pytorch_model-00002*.safetensors",
        "f", specs, &error));
    QVERIFY(!resolveModels(init.root, specs, models, &error));
    QVERIFY2(text(error).contains("are both the dit"), error.c_str());
}

void TestEngineData::initModelsKeepsExistingModels()
{
    QTemporaryDir dir;
    InitModelsParams init;
    init.root = dir.path().toStdString();
    init.preset = "small";
    std::string error;
    std::vector<std::string> written;
    QVERIFY(initModels(init, &written, &error));
    QCOMPARE(written.size(), std::size_t(8)); // vocab, 2 configs + 1 file, 1 config + 1 file, 1 config + 2 shards
    QVERIFY(!initModels(init, nullptr, &error));
    QVERIFY2(text(error).contains("already exists (--overwrite replaces the models)"), error.c_str());
    init.overwrite = true;
    QVERIFY(initModels(init, nullptr, &error));
    init.preset = "huge";
    QVERIFY(!initModels(init, nullptr, &error));
    QVERIFY2(text(error).contains("unknown preset 'huge' (presets: default, small)"), error.c_str());
}

void TestEngineData::manifestRoundTripAndDifferences()
{
    CacheManifest m;
    m.complete = true;
    m.pipeline = "tiny-qwen-image";
    m.pipelineHash = 0x1234;
    m.task = "sft";
    m.loss = "FlowMatchSFTLoss";
    m.splitMode = "seed";
    m.modelsRequiringBackward = {"dit"};
    m.stageOneUnits = {"A", "B"};
    m.cacheSet = {"prompt_emb"};
    m.models = {{"vae", "Q/Q:vae/x.safetensors", 42}};
    m.datasetBasePath = "data";
    m.samples = 3;
    m.settings["seed"] = "0";
    m.shards = {{0, "0/shard-00000.safetensors", 0, 3, 100, 0xabc}};
    CacheManifest back;
    std::string error;
    QVERIFY2(CacheManifest::parse(m.toJson(), "manifest.json", back, &error), error.c_str());
    QCOMPARE(back.toJson(), m.toJson());
    QVERIFY(compareCacheSettings(back, m).empty());

    CacheManifest other = m;
    other.modelsRequiringBackward = {"text_encoder", "dit"};
    other.models[0].hash = 43;
    other.settings["seed"] = "1";
    const auto diffs = compareCacheSettings(m, other);
    QCOMPARE(diffs.size(), std::size_t(3));
    QCOMPARE(text(diffs[0]), QString("models requiring backward: the cache has [dit], this run [text_encoder, dit]"));
    QVERIFY(text(diffs[1]).startsWith("vae weights: the cache has 000000000000002a, this run 000000000000002b"));
    QCOMPARE(text(diffs[2]), QString("seed: the cache has 0, this run 1"));

    QVERIFY(!CacheManifest::parse("{\"format\":\"splitscope.cache/1\"}", "m.json", back, &error));
    QCOMPARE(text(error), QString("m.json:1:1: complete: missing (expected true or false)"));
    std::string evil = m.toJson();
    evil.replace(evil.find("0/shard-00000"), 13, "../../etc/pwd");
    QVERIFY(!CacheManifest::parse(evil, "m.json", back, &error));
    QVERIFY2(text(error).contains("shards[0].file: expected a path inside the cache"), error.c_str());

    // Hand-edited manifests: each refused with the file's name, never a wrapped number
    // or a library's exception.
    const std::string good = m.toJson();
    const auto edited = [&good](const std::string &from, const std::string &to) {
        std::string doc = good;
        const std::size_t at = doc.find(from);
        return at == std::string::npos ? std::string() : doc.replace(at, from.size(), to);
    };
    const struct {
        std::string doc;
        const char *message;
    } bad[] = {
        {"{\"format\": 3}", "m.json:1:12: format: expected \"splitscope.cache/1\""},
        {edited("\"count\": 3", "\"count\": -1"), "shards[0].count: expected a whole number from 0 to "},
        {edited("\"bytes\": 100", "\"bytes\": 1e30"), "shards[0].bytes: expected a whole number from 0 to "
                                                       "18446744073709551615, found 1e+30 (too large)"},
        {edited("\"count\": 3", "\"count\": 0"), "shards[0].count: expected at least 1"},
        {edited("\"models\": [", "\"models\": {\"x\": ["), "not valid JSON: "},
    };
    for (const auto &b : bad) {
        QVERIFY2(!b.doc.empty(), b.message);
        QVERIFY2(!CacheManifest::parse(b.doc, "m.json", back, &error), b.message);
        QVERIFY2(text(error).startsWith("m.json:") && text(error).contains(b.message), error.c_str());
    }
    std::string objectModels = good;
    const std::size_t models = objectModels.find("\"models\": [");
    QVERIFY(models != std::string::npos);
    const std::size_t end = objectModels.find(']', models);
    objectModels.replace(models, end - models + 1, "\"models\": {}");
    QVERIFY(!CacheManifest::parse(objectModels, "m.json", back, &error));
    QVERIFY2(text(error).contains("models: expected a list, found an object"), error.c_str());
}

// Each error in a manifest, a model's config.json or a tokenizer names the file, the
// line and column, the field's path, what it must hold and what it holds.
void TestEngineData::jsonErrorsNameFilePositionAndField()
{
    CacheManifest m;
    m.pipeline = "tiny-qwen-image";
    m.stageOneUnits = {"a", "b"};
    m.models = {{"vae", "x", 1}, {"text_encoder", "y", 2}};
    m.samples = 7;
    m.shards = {{0, "0/shard-00000.safetensors", 0, 3, 100, 0xabc}, {0, "0/shard-00001.safetensors", 3, 3, 100, 0xabd},
        {0, "0/shard-00002.safetensors", 6, 1, 100, 0xabe}};
    const std::string good = m.toJson();
    // The line of the last `needle` in `doc` and the column just after it: where its value starts.
    const auto where = [](const std::string &doc, const std::string &needle) {
        const std::size_t at = doc.rfind(needle);
        const std::size_t lineStart = doc.rfind('\n', at) + 1;
        return QString("%1:%2").arg(std::count(doc.begin(), doc.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1)
            .arg(at + needle.size() - lineStart + 1);
    };
    struct Case {
        std::string from;
        std::string to;
        std::size_t occurrence; // which match of `from` is changed
        QString expected;       // after "m.json:LINE:COL: "
        std::string positionOf; // text before the value the position points at
    };
    const Case cases[] = {
        {"\"pipeline_hash\"", "\"pipeline_hash_x\"", 0, "pipeline_hash: missing (expected a 16-digit hex hash)", ""},
        {"\"stage_one_units\": [\n   \"a\",\n   \"b\"\n  ]", "\"stage_one_units\": 5", 0,
            "split.stage_one_units: expected a list of strings, found the number 5", "\"stage_one_units\": "},
        {"\"bytes\": 100", "\"bytes\": \"x\"", 2,
            "shards[2].bytes: expected a whole number from 0 to 18446744073709551615, found the string \"x\"", ""},
        {"\"samples\": 7", "\"samples\": 1e30", 0,
            "dataset.samples: expected a whole number from 0 to 18446744073709551615, found 1e+30 (too large)",
            "\"samples\": "},
        {"\"samples\": 7", "\"samples\": 2.5", 0, "dataset.samples: expected a whole number from 0 to "
            "18446744073709551615, found 2.5 (not a whole number)", "\"samples\": "},
        {"\"name\": \"text_encoder\"", "\"name\": null", 0, "models[1].name: expected a string, found null", "\"name\": "},
    };
    for (const Case &c : cases) {
        std::string doc = good;
        std::size_t at = doc.find(c.from);
        for (std::size_t i = 0; i < c.occurrence && at != std::string::npos; ++i)
            at = doc.find(c.from, at + 1);
        QVERIFY2(at != std::string::npos, c.from.c_str());
        doc.replace(at, c.from.size(), c.to);
        CacheManifest back;
        std::string error;
        QVERIFY(!CacheManifest::parse(doc, "m.json", back, &error));
        QVERIFY2(!text(error).contains("json.exception"), error.c_str());
        QVERIFY2(text(error).endsWith(": " + c.expected), error.c_str());
        if (!c.positionOf.empty()) {
            const QString position = where(doc.substr(0, at) + c.positionOf, c.positionOf);
            QVERIFY2(text(error).startsWith("m.json:" + position + ": "), qPrintable(text(error) + " vs " + position));
        } else {
            QVERIFY2(QRegularExpression("^m\\.json:\\d+:\\d+: ").match(text(error)).hasMatch(), error.c_str());
        }
    }
    // A syntax error: its line and column, nlohmann's codes left out.
    CacheManifest back;
    std::string error;
    QVERIFY(!CacheManifest::parse("{\n  \"format\": \"splitscope.cache/1\",\n  \"complete\": tru\n}", "m.json", back, &error));
    QVERIFY2(text(error).startsWith("m.json:3:15: not valid JSON: "), error.c_str());

    // A model's config.json.
    VaeConfig vae;
    QVERIFY(!parseVaeConfig("{\n  \"base_channels\": 1e12\n}", "vae/config.json", vae, &error));
    QCOMPARE(text(error), QString("vae/config.json:2:20: base_channels: expected a whole number from 1 to 1000000, found "
                                  "1000000000000.0 (too large)"));
    QVERIFY(!parseVaeConfig("{\"channel_multipliers\": [1, 2, 0]}", "vae/config.json", vae, &error));
    QCOMPARE(text(error), QString("vae/config.json:1:32: channel_multipliers[2]: expected a whole number from 1 to 64, "
                                  "found 0 (too small)"));
    DitConfig dit;
    QVERIFY(!parseDitConfig("{\"num_layers\": 2,\n\"patch_size\": }", "dit/config.json", dit, &error));
    QVERIFY2(text(error).startsWith("dit/config.json:2:15: not valid JSON: "), error.c_str());
    QVERIFY2(!text(error).contains("json.exception"), error.c_str());
}

// A cache shard's header against what stage two reads (the tiny pipeline's param
// specs, a DiT of 4 latent channels and a 6-wide prompt embedding): each change to a
// good shard is refused with a message naming the shard and the tensor.
void TestEngineData::cacheLayoutChecksShardHeaders()
{
    struct Tensor {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::string kind;
    };
    const std::vector<Tensor> good = {
        {"5/height", DType::I64, {}, "int"},
        {"5/input_latents", DType::F32, {1, 4, 2, 3}, "tensor"},
        {"5/prompt_emb", DType::F32, {1, 7, 6}, "tensor"},
        {"5/prompt_emb_mask", DType::I64, {1, 7}, "tensor"},
        {"6/height", DType::I64, {}, "int"},
        {"6/input_latents", DType::F32, {1, 4, 4, 4}, "tensor"},
        {"6/prompt_emb", DType::F32, {1, 9, 6}, "tensor"},
        {"6/prompt_emb_mask", DType::I64, {1, 9}, "tensor"},
    };
    CacheManifest manifest;
    manifest.cacheSet = {"edit_latents", "height", "input_latents", "prompt_emb", "prompt_emb_mask"};
    const CacheLayout layout(manifest, manifest.cacheSet, tinyQwenImageDeclaration().params,
        {{"dit.latent_channels", 4}, {"dit.joint_attention_dim", 6}});

    // The shard of `tensors` and `metadata` (over the defaults; "" removes a key), checked.
    auto check = [](const CacheLayout &against, const std::vector<Tensor> &tensors,
                     const std::map<std::string, std::string> &metadata, std::string &error) {
        SafetensorsWriter writer;
        std::string kinds;
        for (const Tensor &t : tensors) {
            std::size_t bytes = dtypeSize(t.dtype);
            for (const std::int64_t d : t.shape)
                bytes *= static_cast<std::size_t>(d);
            const std::string zeros(bytes, '\0');
            if (!writer.add(t.name, t.dtype, t.shape, zeros.data(), zeros.size(), &error))
                return false;
            kinds += (kinds.empty() ? "" : ",") + ("\"" + t.name + "\":\"" + t.kind + "\"");
        }
        std::map<std::string, std::string> meta = {{"splitscope.format", "splitscope.cache-shard/1"},
            {"splitscope.samples", "5:2"}, {"splitscope.kinds", "{" + kinds + "}"}};
        for (const auto &[key, value] : metadata)
            meta[key] = value;
        for (const auto &[key, value] : meta) {
            if (!value.empty())
                writer.setMetadata(key, value);
        }
        const std::string bytes = writer.serialize();
        SafetensorsFile file;
        const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
        if (!file.parse(data, bytes.size(), "c/0/shard-00001.safetensors", &error))
            return false;
        std::map<std::string, std::string> recorded;
        return against.checkShard(file, CacheShard{0, "0/shard-00001.safetensors", 5, 2, 0, 0}, recorded, &error);
    };
    std::string error;
    QVERIFY2(check(layout, good, {}, error), error.c_str());

    auto with = [&](const std::string &name, const std::function<void(Tensor &)> &change) {
        std::vector<Tensor> tensors;
        for (Tensor t : good) {
            if (t.name == name)
                change(t);
            if (!t.name.empty())
                tensors.push_back(t);
        }
        return tensors;
    };
    auto rename = [](const std::string &to) { return [to](Tensor &t) { t.name = to; }; };
    const struct {
        std::vector<Tensor> tensors;
        std::map<std::string, std::string> metadata;
        const char *message;
    } bad[] = {
        {with("6/prompt_emb_mask", [](Tensor &t) { t.shape = {1, 8}; }), {},
            "tensor '6/prompt_emb_mask' is I64 [1, 8], its L 8 is not the 9 of '6/prompt_emb'; stage two reads "
            "prompt_emb_mask as I64 [1, L]"},
        {with("5/input_latents", [](Tensor &t) { t.shape = {1, 4, 6}; }), {},
            "tensor '5/input_latents' is F32 [1, 4, 6]; stage two reads input_latents as F32 [1, 4 (dit.latent_channels), h, w]"},
        {with("5/prompt_emb", [](Tensor &t) { t.dtype = DType::F16; }), {},
            "tensor '5/prompt_emb' is F16 [1, 7, 6]; stage two reads prompt_emb as F32 [1, L, 6 (dit.joint_attention_dim)]"},
        {with("5/height", [](Tensor &t) { t.kind = "float"; }), {},
            "tensor '5/height' is I64 [], not how a value of kind float is stored (F64 [])"},
        {with("5/height", [](Tensor &t) {
             t.kind = "float";
             t.dtype = DType::F64;
         }),
            {}, "tensor '5/height' is of kind float; stage two reads height as a value of kind int"},
        {with("6/prompt_emb", rename("")), {}, "sample 6 has no 'prompt_emb', which stage two reads"},
        {with("6/height", rename("7/height")), {},
            "tensor '7/height' is of sample 7; the manifest gives this shard samples 5 to 6"},
        {with("6/height", rename("6/noise")), {}, "tensor '6/noise': the manifest's cache_set does not list 'noise'"},
        {with("6/height", rename("06/height")), {}, "tensor '06/height' is not named <sample>/<param>"},
        {with("6/height", rename("height")), {}, "tensor 'height' is not named <sample>/<param>"},
        {good, {{"splitscope.samples", "0:2"}}, "its metadata says it holds samples '0:2', the manifest '5:2' (first:count)"},
        {good, {{"splitscope.format", ""}}, "not a Splitscope cache shard"},
        {good, {{"splitscope.kinds", "{\"5/height\": \"int\""}}, "bad \"splitscope.kinds\" metadata"},
        {good, {{"splitscope.kinds", "[]"}}, "\"splitscope.kinds\" is not a JSON object"},
        {good, {{"splitscope.kinds", "{\"5/height\": \"integer\"}"}}, "unknown kind \"integer\" for '5/height'"},
        {good, {{"splitscope.kinds", "{\"5/height\": \"int\"}"}}, "no kind recorded for tensor '5/input_latents'"},
        {good, {{"splitscope.kinds", "{\"5/width\": \"int\"}"}},
            "\"splitscope.kinds\" names '5/width', which the shard does not hold"},
    };
    for (const auto &b : bad) {
        QVERIFY2(!check(layout, b.tensors, b.metadata, error), b.message);
        QVERIFY2(text(error).startsWith("cache shard 'c/0/shard-00001.safetensors': "), error.c_str());
        QVERIFY2(text(error).contains(b.message), error.c_str());
    }
    // With --cache_all_params a shard may hold any param; one the pipeline does not
    // specify is checked for its kind only. Sizes no model gives are only held equal
    // within a sample.
    manifest.cacheAllParams = true;
    const CacheLayout all(manifest, manifest.cacheSet, tinyQwenImageDeclaration().params, {});
    std::vector<Tensor> more = good;
    more.push_back({"6/style", DType::U8, {4}, "text"});
    more[1].shape = {1, 5, 2, 3};
    QVERIFY2(check(all, more, {}, error), error.c_str());
    more.back().dtype = DType::F32;
    QVERIFY(!check(all, more, {}, error));
    QVERIFY2(text(error).endsWith("tensor '6/style' is F32 [4], not how a value of kind text is stored (U8 [bytes])"),
        error.c_str());
}

// A Linux path is bytes; JSON text is UTF-8. A byte that is not UTF-8 is written as
// Python's surrogateescape writes it (\udc80..\udcff) and read back as the byte.
void TestEngineData::jsonKeepsBytesThatAreNotUtf8()
{
    // Valid UTF-8 (é, €, an emoji) as it is; a lone byte, a stray continuation byte, an
    // overlong '/', an encoded surrogate and a truncated sequence escaped byte by byte.
    QCOMPARE(jsonQuote("d\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::string("\"d\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""));
    QCOMPARE(jsonQuote("data\xe9/\x80\xc0\xaf\xed\xa0\x80\xe2\x82\"\n"),
        std::string("\"data\\udce9/\\udc80\\udcc0\\udcaf\\udced\\udca0\\udc80\\udce2\\udc82\\\"\\n\""));

    // Byte for byte what nlohmann writes, where nlohmann can write it.
    nlohmann::ordered_json doc;
    doc["text"] = "caf\xc3\xa9 \"q\" \\ \x01\x1f\x7f";
    doc["number"] = 1e-4;
    doc["big"] = std::uint64_t(1) << 62;
    doc["list"] = {"a", 2, true, nullptr};
    doc["empty_list"] = nlohmann::ordered_json::array();
    doc["empty_object"] = nlohmann::ordered_json::object();
    doc["nested"] = {{"a", {1, 2}}, {"b", {{"c", "d"}}}};
    for (const int indent : {-1, 0, 1, 2})
        QCOMPARE(dumpJson(doc, indent), doc.dump(indent));

    // Round trip: the bytes come back, U+0001 (the marker parsing uses) stays itself,
    // a real surrogate pair is a character, and an escaped backslash stays text.
    nlohmann::json paths;
    paths["path"] = "/tmp/data\xe9/out\xff";
    paths["control"] = "\x01" "e9 and \x01";
    paths["pair"] = "\xf0\x9f\x98\x80";
    paths["literal"] = "\\udce9";
    paths["key\xe9"] = {"a\xe9", "b"};
    const std::string written = dumpJson(paths, 2);
    QVERIFY2(written.find("\"/tmp/data\\udce9/out\\udcff\"") != std::string::npos, written.c_str());
    nlohmann::json back;
    std::string error;
    QVERIFY2(parseJsonObject(written, "paths", back, &error), error.c_str());
    QVERIFY(back == paths);
    QVERIFY2(parseJsonObject("{\"p\": \"\\ud83d\\ude00 \\udce9\"}", "pair", back, &error), error.c_str());
    QCOMPARE(back["p"].get<std::string>(), std::string("\xf0\x9f\x98\x80 \xe9"));
    // What nlohmann refuses stays refused: a lone high surrogate, a low one outside
    // the bytes' range.
    QVERIFY(!parseJsonObject("{\"p\": \"\\ud83d\"}", "lone", back, &error));
    QVERIFY(!parseJsonObject("{\"p\": \"\\udc10\"}", "low", back, &error));
}

// readWholeFile reads what ends (a file, a pipe) up to a limit, and refuses a device
// that would never end and a file above the limit before reading any of it, with an
// error naming the file (it once read /dev/zero until memory ran out).
void TestEngineData::readWholeFileRefusesDevicesAndHugeFiles()
{
    std::string bytes = "old";
    std::string error;
    QVERIFY(!splitscope::readWholeFile("/dev/zero", bytes, &error));
    QCOMPARE(error, std::string("cannot read '/dev/zero': it is a character device, not a regular file or a pipe"));
    QVERIFY(bytes.empty());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Sparse: 1 GiB and a byte of nothing on disk.
    const QString huge = dir.filePath("huge.json");
    {
        QFile file(huge);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize((qint64(1) << 30) + 1));
    }
    QVERIFY(!splitscope::readWholeFile(huge.toStdString(), bytes, &error));
    QCOMPARE(QString::fromStdString(error),
        "cannot read '" + huge + "': the file has 1073741825 bytes, above the limit of 1073741824 bytes (1 GiB)");

    QVERIFY(!splitscope::readWholeFile(dir.path().toStdString(), bytes, &error));
    QVERIFY2(error.find("cannot read '" + dir.path().toStdString() + "': ") == 0, error.c_str());

    // A pipe (as `<(...)` gives: /dev/fd/N) is read to its end.
    int fds[2];
    QVERIFY(::pipe(fds) == 0);
    QVERIFY(::write(fds[1], "image,prompt\n", 13) == 13);
    ::close(fds[1]);
    QVERIFY2(splitscope::readWholeFile("/proc/self/fd/" + std::to_string(fds[0]), bytes, &error), error.c_str());
    QCOMPARE(bytes, std::string("image,prompt\n"));
    ::close(fds[0]);
}

void TestEngineData::readWholeFileTakesTheCallersLimit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("five.txt");
    QVERIFY(splitscope::test::writeFileBytes(path, "12345"));
    std::string bytes;
    std::string error;
    QVERIFY2(splitscope::readWholeFile(path.toStdString(), bytes, &error, 5), error.c_str());
    QCOMPARE(bytes, std::string("12345"));
    QVERIFY(!splitscope::readWholeFile(path.toStdString(), bytes, &error, 4));
    QCOMPARE(QString::fromStdString(error), "cannot read '" + path + "': the file has 5 bytes, above the limit of 4 bytes");
    QVERIFY(bytes.empty());

    // A pipe is cut off one byte past the limit.
    int fds[2];
    QVERIFY(::pipe(fds) == 0);
    QVERIFY(::write(fds[1], "123456789", 9) == 9);
    ::close(fds[1]);
    const std::string pipe = "/proc/self/fd/" + std::to_string(fds[0]);
    QVERIFY(!splitscope::readWholeFile(pipe, bytes, &error, 4));
    QCOMPARE(error, "cannot read '" + pipe + "': it gave more than the limit of 4 bytes");
    ::close(fds[0]);
}

// The estimate counts an edit image: its patches are tokens of the text encoder (at
// the size it is stored at) and, as the prompt embedding, of the DiT, whose image
// tokens its resized latents double. It once left edit images out.
void TestEngineData::memoryEstimateCountsEditImages()
{
    ModelPreset preset;
    QVERIFY(modelPreset("default", preset));
    StepMemory oneStage;
    oneStage.stageOneModels = true;
    oneStage.textEncoderRuns = true;
    oneStage.trainsDit = true;
    oneStage.textEncoder = preset.textEncoder;
    oneStage.vae = preset.vae;
    oneStage.dit = preset.dit;
    oneStage.modelBytes = 105 << 20;
    constexpr std::uint64_t kMiB = 1 << 20;

    StepSize plain;
    plain.width = 256;
    plain.height = 256;
    StepSize edit = plain;
    edit.editWidth = 1024;
    edit.editHeight = 1024;
    edit.editLatentWidth = 256;
    edit.editLatentHeight = 256;
    QCOMPARE(QString::fromStdString(edit.text()), QString("256x256 with a 1024x1024 edit image"));
    // Peak RSS of runs of 8 steps over 2 epochs with the default models, one thread:
    // 444-466 MiB without the edit image, 2092 MiB with it (one-stage); the estimate
    // stays above both. (After one step they were 343 and 1998 MiB, which the estimate
    // was once fitted to.)
    const std::uint64_t withoutEdit = estimateStepBytes(oneStage, plain);
    const std::uint64_t withEdit = estimateStepBytes(oneStage, edit);
    QVERIFY2(withoutEdit > 466 * kMiB && withoutEdit < 650 * kMiB, qPrintable(QString::number(withoutEdit >> 20)));
    QVERIFY2(withEdit > 2092 * kMiB && withEdit < 3200 * kMiB, qPrintable(QString::number(withEdit >> 20)));

    // Stage one: the text encoder reads the edit image at its stored size (measured
    // 1748 MiB).
    StepMemory stageOne = oneStage;
    stageOne.trainsDit = false;
    stageOne.modelBytes = 85 << 20;
    const std::uint64_t stageOneEdit = estimateStepBytes(stageOne, edit);
    QVERIFY2(stageOneEdit > 1748 * kMiB && stageOneEdit < 2500 * kMiB, qPrintable(QString::number(stageOneEdit >> 20)));
    // Stage two reads the prompt's length and the edit latents from the cache: the
    // same DiT step as one-stage training (measured 1871 MiB).
    StepMemory stageTwo = oneStage;
    stageTwo.stageOneModels = false;
    stageTwo.textEncoderRuns = false;
    stageTwo.modelBytes = 20 << 20;
    StepSize cached = plain;
    cached.editLatentWidth = 256;
    cached.editLatentHeight = 256;
    cached.promptTokens = 32 + 2 + 64 * 64;
    const std::uint64_t stageTwoEdit = estimateStepBytes(stageTwo, cached);
    QVERIFY2(stageTwoEdit > 1871 * kMiB && stageTwoEdit < 2900 * kMiB, qPrintable(QString::number(stageTwoEdit >> 20)));
    QVERIFY(estimateStepBytes(stageTwo, cached) > estimateStepBytes(stageTwo, plain));
}

void TestEngineData::datasetGivesTheLargestEditImage()
{
    QTemporaryDir dir;
    SyntheticDatasetOptions options;
    options.directory = dir.path().toStdString();
    options.count = 2;
    options.width = 32;
    options.height = 32;
    options.edit = true;
    options.editWidth = 80;
    options.editHeight = 48;
    std::string error;
    QVERIFY2(makeSyntheticDataset(options, &error), error.c_str());
    DatasetOptions open;
    open.basePath = dir.path().toStdString();
    open.dataFileKeys = {"image", "edit_image"};
    open.extraInputs = {"edit_image"};
    ImageDataset dataset;
    QVERIFY2(dataset.open(open, &error), error.c_str());
    QCOMPARE(dataset.largestStoredSize("edit_image"), std::make_pair(80, 48));
    QCOMPARE(dataset.largestStoredSize("image"), std::make_pair(0, 0));
    // Without edit_image among the files, it is text to the pipeline: no image.
    open.dataFileKeys = {"image"};
    QVERIFY2(dataset.open(open, &error), error.c_str());
    QCOMPARE(dataset.largestStoredSize("edit_image"), std::make_pair(0, 0));
}

// A set of files hashed once is not read again while every file keeps its identity;
// a file rewritten in place, even with its modification time put back, is.
void TestEngineData::fileSetHashesAreRemembered()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray memo = (dir.path() + "/memo/file-set-hashes").toUtf8();
    const QByteArray old = qgetenv("SPLITSCOPE_HASH_CACHE");
    qputenv("SPLITSCOPE_HASH_CACHE", memo);
    const auto restore = qScopeGuard([&old] { qputenv("SPLITSCOPE_HASH_CACHE", old); });
    const std::vector<std::string> files = {(dir.path() + "/a.safetensors").toStdString(), (dir.path() + "/b.safetensors").toStdString()};
    QVERIFY(splitscope::test::writeFileBytes(QString::fromStdString(files[0]), "first file"));
    QVERIFY(splitscope::test::writeFileBytes(QString::fromStdString(files[1]), "second file"));
    int reads = 0;
    const auto read = [&reads] { ++reads; };
    std::uint64_t direct = 0;
    QVERIFY(hashFileSet(files, direct));
    std::uint64_t hash = 0;
    QVERIFY(hashFileSetRemembered(files, hash, read));
    QCOMPARE(hash, direct);
    QCOMPARE(reads, 1);
    QVERIFY(hashFileSetRemembered(files, hash, read));
    QCOMPARE(hash, direct);
    QCOMPARE(reads, 1); // remembered

    struct stat before {};
    QVERIFY(::stat(files[1].c_str(), &before) == 0);
    QThread::msleep(20); // a status-change time the rewrite cannot share
    QVERIFY(splitscope::test::writeFileBytes(QString::fromStdString(files[1]), "SECOND FILE"));
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    QVERIFY(::utimensat(AT_FDCWD, files[1].c_str(), times, 0) == 0);
    QVERIFY(hashFileSetRemembered(files, hash, read));
    QCOMPARE(reads, 2);
    QVERIFY(hashFileSet(files, direct));
    QCOMPARE(hash, direct);

    qputenv("SPLITSCOPE_HASH_CACHE", "off");
    QVERIFY(hashFileSetRemembered(files, hash, read));
    QVERIFY(hashFileSetRemembered(files, hash, read));
    QCOMPARE(reads, 4);
    std::string error;
    QVERIFY(!hashFileSetRemembered({dir.path().toStdString() + "/missing"}, hash, read, &error));
    QVERIFY2(error.find("/missing") != std::string::npos, error.c_str());
}

// Work that runs long says so every interval (here 100 ms), and stops saying so when
// it ends.
void TestEngineData::longWorkIsReportedEveryFewSeconds()
{
    QStringList messages;
    std::mutex mutex;
    EventSink events([&](const EventRecord &record) {
        const std::lock_guard<std::mutex> lock(mutex);
        messages << QString::fromStdString(record.text);
    });
    {
        Heartbeat heartbeat(events, std::chrono::milliseconds(100));
        {
            const HeartbeatScope beat(heartbeat, "running step 3");
            QThread::msleep(350);
        }
        QThread::msleep(300); // nothing under way: silent
    }
    const std::lock_guard<std::mutex> lock(mutex);
    QVERIFY2(messages.size() >= 2 && messages.size() <= 4, qPrintable(messages.join(" | ")));
    QVERIFY2(messages.first().startsWith("still running step 3: "), qPrintable(messages.first()));
    QVERIFY(messages.last().endsWith(" s so far"));
}

QTEST_GUILESS_MAIN(TestEngineData)
#include "tst_enginedata.moc"
