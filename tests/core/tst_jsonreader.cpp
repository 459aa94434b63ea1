// SPDX-License-Identifier: MIT
// The positioned JSON pull parser: every JSON value form, escapes and surrogates,
// positions, and rejection of every malformed form with line:column.
#include "core/JsonReader.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace splitscope;

namespace {

// Reads any value and renders it back compactly, so tests can compare structure.
bool render(JsonReader &r, std::string &out)
{
    switch (r.peekKind()) {
    case JsonReader::Kind::Null:
        out += "null";
        return r.readNull();
    case JsonReader::Kind::Bool: {
        bool b = false;
        if (!r.readBool(b))
            return false;
        out += b ? "true" : "false";
        return true;
    }
    case JsonReader::Kind::Number: {
        double d = 0;
        std::string_view raw;
        if (!r.readNumber(d, &raw))
            return false;
        out += std::string(raw);
        return true;
    }
    case JsonReader::Kind::String: {
        std::string s;
        if (!r.readString(s))
            return false;
        out += jsonQuote(s);
        return true;
    }
    case JsonReader::Kind::Array: {
        r.beginArray();
        out += '[';
        bool first = true;
        while (r.nextItem()) {
            out += first ? "" : ",";
            first = false;
            if (!render(r, out))
                return false;
        }
        out += ']';
        return !r.failed();
    }
    case JsonReader::Kind::Object: {
        r.beginObject();
        out += '{';
        bool first = true;
        std::string key;
        while (r.nextMember(key)) {
            out += (first ? "" : ",") + jsonQuote(key) + ":";
            first = false;
            if (!render(r, out))
                return false;
        }
        out += '}';
        return !r.failed();
    }
    case JsonReader::Kind::Invalid: return false;
    }
    return false;
}

} // namespace

class TestJsonReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void valid_data();
    void valid();
    void invalid_data();
    void invalid();
    void positionsOfValues();
    void skipValueGivesRawText();
    void numbersIgnoreTheLocale();
    void numbersBeyondADouble_data();
    void numbersBeyondADouble();
    void skipValueFindsNumbersBeyondADouble();
    void columnsCountCodePoints();
};

void TestJsonReader::valid_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("rendered");
    QTest::newRow("scalars") << QByteArray("[null, true, false, 0, -1.5e3, \"s\"]")
                             << QByteArray("[null,true,false,0,-1.5e3,\"s\"]");
    QTest::newRow("nested") << QByteArray(" {\"a\": [ {}, [] , {\"b\": [1]} ]}\n")
                            << QByteArray("{\"a\":[{},[],{\"b\":[1]}]}");
    QTest::newRow("escapes") << QByteArray(R"(["\"\\\/\b\f\n\r\t"])") << QByteArray(R"(["\"\\/\b\f\n\r\t"])");
    QTest::newRow("unicode escape") << QByteArray(R"(["\u00e9\u4e2d"])") << QByteArray("[\"\xc3\xa9\xe4\xb8\xad\"]");
    QTest::newRow("surrogate pair") << QByteArray(R"(["\ud83d\ude00"])") << QByteArray("[\"\xf0\x9f\x98\x80\"]");
    QTest::newRow("raw utf-8") << QByteArray("[\"\xe6\x8b\x86\xe5\x88\x86\"]") << QByteArray("[\"\xe6\x8b\x86\xe5\x88\x86\"]");
    QTest::newRow("bom") << QByteArray("\xEF\xBB\xBF[1]") << QByteArray("[1]");
}

void TestJsonReader::valid()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, rendered);
    JsonReader r(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    std::string out;
    QVERIFY2(render(r, out) && r.expectEnd(), r.errorMessage().c_str());
    QCOMPARE(QByteArray::fromStdString(out), rendered);
}

void TestJsonReader::invalid_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    QTest::newRow("leading zero") << QByteArray("[01]") << 1 << 3 << "',' or ']' expected";
    QTest::newRow("bare minus") << QByteArray("[-]") << 1 << 2 << "a digit must follow '-'";
    QTest::newRow("dot without digits") << QByteArray("[1.]") << 1 << 4 << "a digit must follow '.'";
    QTest::newRow("exponent without digits") << QByteArray("[1e+]") << 1 << 5 << "the exponent has no digits";
    QTest::newRow("single quotes") << QByteArray("['a']") << 1 << 2 << "unexpected ''', a value was expected";
    QTest::newRow("unquoted key") << QByteArray("{a: 1}") << 1 << 2 << "a member name in double quotes";
    QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << 1 << 6 << "':' expected after member name \"a\"";
    QTest::newRow("trailing comma in object") << QByteArray("{\"a\": 1,\n}") << 2 << 1 << "trailing comma before '}'";
    QTest::newRow("missing comma") << QByteArray("[1\n 2]") << 2 << 2 << "',' or ']' expected";
    // Line breaks as editors count them: a lone CR (classic Mac OS) is one, CR LF is one.
    QTest::newRow("missing comma after CR") << QByteArray("[1\r 2]") << 2 << 2 << "',' or ']' expected";
    QTest::newRow("missing comma after CR LF") << QByteArray("[1\r\n 2]") << 2 << 2 << "',' or ']' expected";
    QTest::newRow("mixed line breaks") << QByteArray("[1,\r\r\n\n\r  2 3]") << 5 << 5 << "',' or ']' expected";
    QTest::newRow("CR at the end") << QByteArray("[1,\r") << 2 << 1 << "unexpected end of input";
    QTest::newRow("unclosed array") << QByteArray("[1, 2") << 1 << 6 << "unexpected end of input, ']' expected";
    QTest::newRow("raw newline in string") << QByteArray("[\"a\nb\"]") << 1 << 4 << "line break inside a string";
    QTest::newRow("tab in string") << QByteArray("[\"a\tb\"]") << 1 << 4 << "control character";
    QTest::newRow("lone high surrogate") << QByteArray(R"(["\ud800x"])") << 1 << 3 << "unpaired high surrogate";
    QTest::newRow("lone low surrogate") << QByteArray(R"(["\udc00"])") << 1 << 3 << "unpaired low surrogate";
    QTest::newRow("short unicode escape") << QByteArray(R"(["\u12"])") << 1 << 3 << "four hex digits expected";
    QTest::newRow("overlong utf-8") << QByteArray("[\"\xc0\xaf\"]") << 1 << 3 << "invalid UTF-8";
    QTest::newRow("truncated literal") << QByteArray("[tru]") << 1 << 2 << "invalid literal, expected 'true'";
    QTest::newRow("NaN") << QByteArray("[NaN]") << 1 << 2 << "unexpected 'N'";
    QTest::newRow("two documents") << QByteArray("{}{}") << 1 << 3 << "after the end of the document";
    QTest::newRow("too deep") << QByteArray(std::string(600, '[').c_str()) << 1 << 513 << "nesting deeper than 512 levels";
    QTest::newRow("utf-16 le bom") << QByteArray("\xff\xfe[\x00]\x00", 6) << 1 << 1
                                   << "the text looks like UTF-16 (it starts with the byte order mark FF FE); save the file as UTF-8";
    QTest::newRow("utf-16 be bom") << QByteArray("\xfe\xff\x00[\x00]", 6) << 1 << 1
                                   << "the text looks like UTF-16 (it starts with the byte order mark FE FF); save the file as UTF-8";
    QTest::newRow("utf-16 without bom") << QByteArray("\x00[\x00]", 4) << 1 << 1
                                        << "the text looks like UTF-16 (every character takes two bytes, one of them zero here)";
    QTest::newRow("utf-32 le bom") << QByteArray("\xff\xfe\x00\x00[\x00\x00\x00", 8) << 1 << 1
                                   << "the text looks like UTF-32 (it starts with the byte order mark FF FE 00 00)";
    QTest::newRow("error column after non-ASCII") << QByteArray("[\"\xc3\xb1\xe6\x8b\x86\xf0\x9f\x98\x80\" x]") << 1 << 8
                                                  << "',' or ']' expected";
    QTest::newRow("bad UTF-8 column after non-ASCII") << QByteArray("[\"\xc3\xb1\xc3\xb1\xff\"]") << 1 << 5
                                                      << "invalid UTF-8";
}

void TestJsonReader::invalid()
{
    QFETCH(QByteArray, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    JsonReader r(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    std::string out;
    const bool ok = render(r, out) && r.expectEnd();
    QVERIFY(!ok);
    QVERIFY(r.failed());
    QVERIFY2(QString::fromStdString(r.errorMessage()).contains(message), r.errorMessage().c_str());
    QCOMPARE(r.errorLine(), line);
    QCOMPARE(r.errorColumn(), column);
}

void TestJsonReader::positionsOfValues()
{
    JsonReader r("{\n  \"a\": [\n    1,\n    \"x\"\n  ]\n}");
    QVERIFY(r.beginObject());
    std::string key;
    QVERIFY(r.nextMember(key));
    QCOMPARE(key, std::string("a"));
    QCOMPARE(r.memberLine(), 2);
    QCOMPARE(r.memberColumn(), 3);
    QVERIFY(r.beginArray());
    QVERIFY(r.nextItem());
    QCOMPARE(r.line(), 3);
    QCOMPARE(r.column(), 5);
    double d = 0;
    QVERIFY(r.readNumber(d));
    QVERIFY(r.nextItem());
    QCOMPARE(r.line(), 4);
    QCOMPARE(r.column(), 5);
}

void TestJsonReader::skipValueGivesRawText()
{
    JsonReader r("[ {\"k\": [1, {\"z\": null}]} , 2]");
    QVERIFY(r.beginArray());
    QVERIFY(r.nextItem());
    std::string_view raw;
    QVERIFY(r.skipValue(&raw));
    QCOMPARE(std::string(raw), std::string("{\"k\": [1, {\"z\": null}]}"));
    QVERIFY(r.nextItem());
    QVERIFY(r.skipValue(&raw));
    QCOMPARE(std::string(raw), std::string("2"));
    QVERIFY(!r.nextItem());
    QVERIFY(r.expectEnd());
}

void TestJsonReader::numbersIgnoreTheLocale()
{
    // Qt applications set LC_NUMERIC from the environment; a German locale must not
    // turn 2.5 into 2.
    const char *previous = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = previous ? previous : "C";
    std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
    JsonReader r("2.5");
    double d = 0;
    QVERIFY(r.readNumber(d));
    std::setlocale(LC_NUMERIC, saved.c_str());
    QCOMPARE(d, 2.5);
}

void TestJsonReader::numbersBeyondADouble_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<double>("value");
    QTest::addColumn<bool>("outOfRange");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("underflow") << QByteArray("1e-400") << 0.0 << false;
    QTest::newRow("negative underflow") << QByteArray("-1e-400") << -0.0 << false;
    QTest::newRow("smallest subnormal") << QByteArray("5e-324") << 5e-324 << false;
    QTest::newRow("underflow without exponent") << QByteArray(("0." + std::string(400, '0') + "1").c_str()) << 0.0 << false;
    QTest::newRow("large mantissa, larger negative exponent") << QByteArray(("1" + std::string(400, '0') + "e-500").c_str())
                                                               << 0.0 << false;
    QTest::newRow("largest double") << QByteArray("1.7976931348623157e308") << 1.7976931348623157e308 << false;
    QTest::newRow("overflow") << QByteArray("1e999") << inf << true;
    QTest::newRow("negative overflow") << QByteArray("-2.5E+400") << -inf << true;
    QTest::newRow("overflow without exponent") << QByteArray(("1" + std::string(400, '0')).c_str()) << inf << true;
    QTest::newRow("small mantissa, larger exponent") << QByteArray(("0." + std::string(400, '0') + "1e800").c_str()) << inf
                                                      << true;
    QTest::newRow("huge exponent") << QByteArray("1e99999999999999999999") << inf << true;
    QTest::newRow("zero with a huge exponent") << QByteArray("0e99999999999999999999") << 0.0 << false;
}

// JSON puts no limit on numbers: beyond a double is no syntax error, the caller decides.
void TestJsonReader::numbersBeyondADouble()
{
    QFETCH(QByteArray, text);
    QFETCH(double, value);
    QFETCH(bool, outOfRange);
    JsonReader r(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    double d = 42;
    bool over = !outOfRange;
    std::string_view raw;
    QVERIFY2(r.readNumber(d, &raw, &over), r.errorMessage().c_str());
    QVERIFY(r.expectEnd());
    QCOMPARE(d, value);
    QCOMPARE(std::signbit(d), std::signbit(value));
    QCOMPARE(over, outOfRange);
    QCOMPARE(QByteArray::fromStdString(std::string(raw)), text);
}

void TestJsonReader::skipValueFindsNumbersBeyondADouble()
{
    JsonReader r("[{\"a\": [1e-400, 2]},\n {\"b\": [3, 1e999, 4e999]}, 5]");
    QVERIFY(r.beginArray());
    QVERIFY(r.nextItem());
    JsonReader::Position outOfRange{7, 7};
    QVERIFY(r.skipValue(nullptr, &outOfRange));
    QCOMPARE(outOfRange.line, 0); // underflow is fine
    QVERIFY(r.nextItem());
    std::string_view raw;
    QVERIFY(r.skipValue(&raw, &outOfRange));
    QCOMPARE(std::string(raw), std::string("{\"b\": [3, 1e999, 4e999]}"));
    QCOMPARE(outOfRange.line, 2); // the first one
    QCOMPARE(outOfRange.column, 12);
    QVERIFY(r.nextItem());
    QVERIFY(r.skipValue(nullptr, &outOfRange));
    QCOMPARE(outOfRange.line, 0);
    QVERIFY(!r.nextItem());
    QVERIFY(r.expectEnd());
}

void TestJsonReader::columnsCountCodePoints()
{
    // 1-, 2-, 3- and 4-byte UTF-8 sequences each count as one column; a new line restarts.
    JsonReader r("\xEF\xBB\xBF{\"a\xc3\xb1\xe6\x8b\x86\xf0\x9f\x98\x80\": [\"\xc3\xb1\xc3\xb1\", 1],\n \"\xc3\xb1\": 2}");
    QVERIFY(r.beginObject());
    std::string key;
    QVERIFY(r.nextMember(key));
    QCOMPARE(r.memberColumn(), 2); // the byte order mark is not counted
    QCOMPARE(r.column(), 10);
    QVERIFY(r.beginArray());
    QVERIFY(r.nextItem());
    QVERIFY(r.skipValue());
    QVERIFY(r.nextItem());
    QCOMPARE(r.column(), 17);
    QVERIFY(r.skipValue());
    QVERIFY(!r.nextItem());
    QVERIFY(r.nextMember(key));
    QCOMPARE(r.memberLine(), 2);
    QCOMPARE(r.memberColumn(), 2);
    QCOMPARE(r.column(), 7);
}

QTEST_GUILESS_MAIN(TestJsonReader)
#include "tst_jsonreader.moc"
