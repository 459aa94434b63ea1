// SPDX-License-Identifier: MIT
// Safetensors writing and reading (with a header reader written here, independently
// of the engine's), validation of broken files, and the content hash.
#include "core/engine/Hash.h"
#include "core/engine/Safetensors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <unistd.h>
#include <vector>

using namespace splitscope::engine;

namespace {

// Builds a file by hand: 8-byte little-endian length, the header text, the data.
std::string buildFile(const std::string &header, const std::string &data)
{
    std::string out;
    const std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    return out + header + data;
}

bool parseBytes(const std::string &bytes, std::string *error)
{
    SafetensorsFile file;
    return file.parse(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), "sample.safetensors", error);
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void headerReadIndependently();
    void readsHandWrittenFile();
    void fileTruncatedAfterOpeningIsNotMapped();
    void rejectsBrokenFiles_data();
    void rejectsBrokenFiles();
    void writerRejectsBadInput();
    void hashIsChunkingIndependent();
    void hashHexRoundTrip();
};

void TestSafetensors::roundTrip()
{
    QTemporaryDir dir;
    const float weights[6] = {1.5f, -2.0f, 0.25f, 3.0e-8f, -0.0f, 1e10f};
    const std::int64_t ids[3] = {7, -1, 1LL << 40};
    const unsigned char bytes[5] = {0, 1, 2, 254, 255};
    const double scalar = 3.141592653589793;
    SafetensorsWriter writer;
    writer.setMetadata("format", "pt");
    writer.setMetadata("note", "a \"quoted\" value");
    QVERIFY(writer.add("layer.weight", DType::F32, {2, 3}, weights, sizeof(weights)));
    QVERIFY(writer.add("ids", DType::I64, {3}, ids, sizeof(ids)));
    QVERIFY(writer.add("text", DType::U8, {5}, bytes, sizeof(bytes)));
    QVERIFY(writer.add("scalar", DType::F64, {}, &scalar, sizeof(scalar)));
    QVERIFY(writer.add("empty", DType::F32, {0, 4}, nullptr, 0));
    const QString path = dir.filePath("round.safetensors");
    std::string error;
    QVERIFY2(writer.write(path.toStdString(), &error), error.c_str());

    SafetensorsFile file;
    QVERIFY2(file.open(path.toStdString(), &error), error.c_str());
    QCOMPARE(file.tensors().size(), std::size_t(5));
    QCOMPARE(file.metadata().at("format"), std::string("pt"));
    QCOMPARE(file.metadata().at("note"), std::string("a \"quoted\" value"));
    const TensorInfo *w = file.find("layer.weight");
    QVERIFY(w);
    QCOMPARE(w->dtype, DType::F32);
    QCOMPARE(w->shape, (std::vector<std::int64_t>{2, 3}));
    QCOMPARE(std::memcmp(file.data(*w), weights, sizeof(weights)), 0);
    const TensorInfo *i = file.find("ids");
    QCOMPARE(std::memcmp(file.data(*i), ids, sizeof(ids)), 0);
    QCOMPARE(std::memcmp(file.data(*file.find("text")), bytes, sizeof(bytes)), 0);
    const TensorInfo *s = file.find("scalar");
    QCOMPARE(s->shape.size(), std::size_t(0));
    QCOMPARE(s->numel(), std::int64_t(1));
    double back = 0;
    std::memcpy(&back, file.data(*s), sizeof(back));
    QCOMPARE(back, scalar);
    QCOMPARE(file.find("empty")->byteSize(), std::size_t(0));
    QVERIFY(!file.find("missing"));
}

void TestSafetensors::headerReadIndependently()
{
    const float values[4] = {1, 2, 3, 4};
    const std::int32_t counts[3] = {10, 20, 30};
    SafetensorsWriter writer;
    writer.setMetadata("format", "pt");
    QVERIFY(writer.add("b.values", DType::F32, {4}, values, sizeof(values)));
    QVERIFY(writer.add("a.counts", DType::I32, {3, 1}, counts, sizeof(counts)));
    const std::string file = writer.serialize();

    // The format, read here from its definition rather than through the engine.
    QVERIFY(file.size() >= 8);
    std::uint64_t headerLength = 0;
    for (int b = 7; b >= 0; --b)
        headerLength = (headerLength << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(b)]);
    QVERIFY(8 + headerLength <= file.size());
    QCOMPARE((8 + headerLength) % 8, std::uint64_t(0)); // data starts aligned
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(file.substr(8, headerLength)), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QJsonObject header = doc.object();
    QCOMPARE(header.value("__metadata__").toObject().value("format").toString(), QString("pt"));
    const std::string data = file.substr(8 + headerLength);

    const QJsonObject v = header.value("b.values").toObject();
    QCOMPARE(v.value("dtype").toString(), QString("F32"));
    QCOMPARE(v.value("shape").toArray(), QJsonArray({4}));
    const QJsonArray vo = v.value("data_offsets").toArray();
    QCOMPARE(vo.at(1).toInteger() - vo.at(0).toInteger(), qint64(sizeof(values)));
    QCOMPARE(std::memcmp(data.data() + vo.at(0).toInteger(), values, sizeof(values)), 0);

    const QJsonObject c = header.value("a.counts").toObject();
    QCOMPARE(c.value("dtype").toString(), QString("I32"));
    QCOMPARE(c.value("shape").toArray(), QJsonArray({3, 1}));
    const QJsonArray co = c.value("data_offsets").toArray();
    QCOMPARE(std::memcmp(data.data() + co.at(0).toInteger(), counts, sizeof(counts)), 0);
    // The two tensors cover the data exactly.
    const qint64 covered = (vo.at(1).toInteger() - vo.at(0).toInteger()) + (co.at(1).toInteger() - co.at(0).toInteger());
    QCOMPARE(covered, qint64(data.size()));
    QCOMPARE(qMin(vo.at(0).toInteger(), co.at(0).toInteger()), qint64(0));
}

void TestSafetensors::readsHandWrittenFile()
{
    // Keys out of order, a metadata block last, no padding: all valid.
    const std::string data("\x01\x00\x02\x00\x03\x00\x00\x00\x80\x3f", 10);
    const std::string header = "{\"y\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[6,10]},"
                               "\"x\":{\"shape\":[3],\"dtype\":\"I16\",\"data_offsets\":[0,6]},"
                               "\"__metadata__\":{\"k\":\"v\"}}";
    const std::string bytes = buildFile(header, data);
    SafetensorsFile file;
    std::string error;
    QVERIFY2(file.parse(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), "hand", &error), error.c_str());
    QCOMPARE(file.tensors().front().name, std::string("x")); // listed in data order
    float y = 0;
    std::memcpy(&y, file.data(*file.find("y")), 4);
    QCOMPARE(y, 1.0f);
    std::int16_t x[3];
    std::memcpy(x, file.data(*file.find("x")), 6);
    QCOMPARE(x[2], std::int16_t(3));
    QCOMPARE(file.metadata().at("k"), std::string("v"));
}

void TestSafetensors::rejectsBrokenFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const std::string four(4, '\0');
    auto file = [](const std::string &header, const std::string &data) { return QByteArray::fromStdString(buildFile(header, data)); };
    QTest::addRow("shorter than the length") << QByteArray("abc") << "less than the 8-byte header length";
    QTest::addRow("length past the end") << QByteArray::fromStdString(std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10))
                                         << "exceeds the file";
    QTest::addRow("not JSON") << file("{oops", "") << "not valid JSON";
    QTest::addRow("not an object") << file("[1]", "") << "not a JSON object";
    QTest::addRow("no dtype") << file(R"({"t":{"shape":[1],"data_offsets":[0,4]}})", four) << "tensor 't': missing or non-string dtype";
    QTest::addRow("unknown dtype") << file(R"({"t":{"dtype":"F8","shape":[1],"data_offsets":[0,4]}})", four) << "unknown dtype 'F8'";
    QTest::addRow("negative dim") << file(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four) << "not a non-negative integer";
    QTest::addRow("offsets past the data") << file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", four) << "do not fit the 4 data bytes";
    QTest::addRow("size against shape") << file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four) << "do not match dtype F32";
    QTest::addRow("overlap") << file(R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", four)
                             << "overlaps";
    QTest::addRow("hole") << file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", four) << "belong to no tensor";
    QTest::addRow("trailing bytes") << file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", four) << "trailing bytes";
    QTest::addRow("metadata value") << file(R"({"__metadata__":{"k":1}})", "") << "__metadata__.k is not a string";
}

void TestSafetensors::rejectsBrokenFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    std::string error;
    QVERIFY(!parseBytes(bytes.toStdString(), &error));
    QVERIFY2(QString::fromStdString(error).contains(message), error.c_str());
    QVERIFY2(QString::fromStdString(error).contains("sample.safetensors"), error.c_str()); // names the file
}

void TestSafetensors::writerRejectsBadInput()
{
    SafetensorsWriter writer;
    const float v[2] = {1, 2};
    std::string error;
    QVERIFY(writer.add("w", DType::F32, {2}, v, sizeof(v), &error));
    QVERIFY(!writer.add("w", DType::F32, {2}, v, sizeof(v), &error));
    QVERIFY(QString::fromStdString(error).contains("added twice"));
    QVERIFY(!writer.add("x", DType::F32, {3}, v, sizeof(v), &error));
    QVERIFY(QString::fromStdString(error).contains("do not match"));
    QVERIFY(!writer.add("__metadata__", DType::F32, {2}, v, sizeof(v), &error));
    QCOMPARE(writer.tensorCount(), std::size_t(1));
    QTemporaryDir dir;
    QVERIFY(!writer.write(dir.filePath("no/such/folder/x.safetensors").toStdString(), &error));
    QVERIFY(QString::fromStdString(error).contains("no/such/folder"));
}

void TestSafetensors::hashIsChunkingIndependent()
{
    std::string data;
    for (int i = 0; i < 1000; ++i)
        data.push_back(static_cast<char>((i * 7919) & 0xFF));
    const std::uint64_t whole = hashBytes(data.data(), data.size());
    for (const std::size_t chunk : {1u, 3u, 7u, 8u, 13u, 64u, 999u}) {
        Hasher h;
        for (std::size_t at = 0; at < data.size(); at += chunk)
            h.update(data.data() + at, std::min(chunk, data.size() - at));
        QCOMPARE(h.digest(), whole);
    }
    std::string changed = data;
    changed[500] ^= 1;
    QVERIFY(hashBytes(changed.data(), changed.size()) != whole);
    // A trailing zero byte changes the hash (the length is mixed in).
    QVERIFY(hashBytes(data.data(), data.size() - 1) != hashBytes((data.substr(0, data.size() - 1) + '\0').data(), data.size()));
    Hasher a;
    a.updateField("ab");
    a.updateField("c");
    Hasher b;
    b.updateField("a");
    b.updateField("bc");
    QVERIFY(a.digest() != b.digest());
}

void TestSafetensors::hashHexRoundTrip()
{
    std::uint64_t back = 0;
    QCOMPARE(hashToHex(0x0123456789abcdefULL), std::string("0123456789abcdef"));
    QVERIFY(hashFromHex("0123456789abcdef", back));
    QCOMPARE(back, 0x0123456789abcdefULL);
    QVERIFY(!hashFromHex("0123456789ABCDEF", back)); // lowercase only, as written
    QVERIFY(!hashFromHex("12", back));
}

// Model weights, LoRA checkpoints and resume states are opened with
// SafetensorsFile::open. Another process truncating the file meanwhile (a copy being
// replaced, a full disk) made reading a mapped tensor a SIGBUS that ended the
// process; the bytes are read when the file is opened, so they stay readable.
void TestSafetensors::fileTruncatedAfterOpeningIsNotMapped()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("w.safetensors").toStdString();
    std::vector<float> values(1 << 16);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i) * 0.5f;
    SafetensorsWriter writer;
    QVERIFY(writer.add("w", DType::F32, {std::int64_t(values.size())}, values.data(), values.size() * sizeof(float)));
    QVERIFY(writer.write(path));
    SafetensorsFile file;
    std::string error;
    QVERIFY2(file.open(path, &error), error.c_str());
    QVERIFY(::truncate(path.c_str(), static_cast<off_t>(file.headerSize())) == 0);
    const TensorInfo *w = file.find("w");
    QVERIFY(w);
    QCOMPARE(std::memcmp(file.data(*w), values.data(), values.size() * sizeof(float)), 0);
    // Opened again, the truncated file is refused, naming it.
    SafetensorsFile again;
    QVERIFY(!again.open(path, &error));
    QVERIFY2(error.find("w.safetensors") != std::string::npos, error.c_str());
}

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
