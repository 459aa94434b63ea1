// SPDX-License-Identifier: MIT
// The Python tokenizer: every kind of token, Python's implicit and explicit line
// joining, INDENT/DEDENT, and its errors with their line and column.
#include "core/importer/PythonTokenizer.h"

#include <QTest>

#include <vector>

using namespace splitscope::importer;

namespace {

// One token per word: NAME:x NUM:1 STR:"v" (f/b flags as fSTR/bSTR) OP:( NL IN DE END
QString dump(const std::vector<Token> &tokens)
{
    QStringList out;
    for (const Token &t : tokens) {
        const QString text = QString::fromStdString(t.text);
        switch (t.kind) {
        case TokenKind::Name: out << "NAME:" + text; break;
        case TokenKind::Number: out << "NUM:" + text; break;
        case TokenKind::String:
            out << QString(t.fString ? "f" : "") + (t.bytes ? "b" : "") + "STR:\"" + text + "\"";
            break;
        case TokenKind::Operator: out << "OP:" + text; break;
        case TokenKind::Newline: out << "NL"; break;
        case TokenKind::Indent: out << "IN"; break;
        case TokenKind::Dedent: out << "DE"; break;
        case TokenKind::EndOfInput: out << "END"; break;
        }
    }
    return out.join(' ');
}

} // namespace

class TestPythonTokenizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tokens_data();
    void tokens();
    void positions();
    void errors_data();
    void errors();
    void limits();
    void utf8Helpers();
};

void TestPythonTokenizer::tokens_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("expected");
    const auto row = [](const char *name, const QByteArray &source, const char *expected) {
        QTest::newRow(name) << source << QString::fromUtf8(expected);
    };
    row("empty", "", "END");
    row("only comments and blanks", "# a comment\n\n   \n# another\n", "END");
    row("assignment", "x = 1\n", "NAME:x OP:= NUM:1 NL END");
    row("a continuation line's indentation counts", "def f():\n    \\\n    return 1\n",
        "NAME:def NAME:f OP:( OP:) OP:: NL IN NAME:return NUM:1 NL DE END");
    row("a continuation onto a blank line is blank", "x = 1\n    \\\n\ny = 2\n", "NAME:x OP:= NUM:1 NL NAME:y OP:= NUM:2 NL END");
    row("every kind of number", "1_000 0 00 0_0 0x_ff 0o17 0b1_0 1.5 .5 5. 09.5 1e-3 1.e5 1_0.0_1E+1_0 2j 1.5J 1e3j\n",
        "NUM:1_000 NUM:0 NUM:00 NUM:0_0 NUM:0x_ff NUM:0o17 NUM:0b1_0 NUM:1.5 NUM:.5 NUM:5. NUM:09.5 NUM:1e-3 NUM:1.e5 "
        "NUM:1_0.0_1E+1_0 NUM:2j NUM:1.5J NUM:1e3j NL END");
    row("no final newline", "x = 1", "NAME:x OP:= NUM:1 NL END");
    row("comment after code", "x = 1  # one\n", "NAME:x OP:= NUM:1 NL END");
    row("implicit joining", "f(a,\n  # inside\n\n  b)\n", "NAME:f OP:( NAME:a OP:, NAME:b OP:) NL END");
    row("explicit joining", "x = 1 + \\\n    2\n", "NAME:x OP:= NUM:1 OP:+ NUM:2 NL END");
    row("joined line keeps indentation", "if a:\n    x = \\\n2\n    y\n",
        "NAME:if NAME:a OP:: NL IN NAME:x OP:= NUM:2 NL NAME:y NL DE END");
    row("indent and dedent", "class A:\n    def f(self):\n        pass\nx\n",
        "NAME:class NAME:A OP:: NL IN NAME:def NAME:f OP:( NAME:self OP:) OP:: NL IN NAME:pass NL DE DE NAME:x NL END");
    row("dedents at end of input", "if a:\n  if b:\n    c", "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:c NL DE DE END");
    row("tabs in one block, spaces in another", "if a:\n\tb\nif c:\n        d\n",
        "NAME:if NAME:a OP:: NL IN NAME:b NL DE NAME:if NAME:c OP:: NL IN NAME:d NL DE END");
    row("tab after spaces, consistently", "if a:\n  \tb\n  \tc\n", "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:c NL DE END");
    row("comment lines do not indent", "if a:\n        # deep comment\n    b\n", "NAME:if NAME:a OP:: NL IN NAME:b NL DE END");
    row("crlf", "a = 1\r\nb = 2\r\n", "NAME:a OP:= NUM:1 NL NAME:b OP:= NUM:2 NL END");
    row("bom", "\xEF\xBB\xBF" "a\n", "NAME:a NL END");
    row("numbers", "0x1F 0o17 0b101 1_000 3.14 .5 1e-3 2j 1.5E+10J 0 7.",
        "NUM:0x1F NUM:0o17 NUM:0b101 NUM:1_000 NUM:3.14 NUM:.5 NUM:1e-3 NUM:2j NUM:1.5E+10J NUM:0 NUM:7. NL END");
    row("operators longest first", "a **= b //= c -> d := e ... != <<= >>= @ ~",
        "NAME:a OP:**= NAME:b OP://= NAME:c OP:-> NAME:d OP::= NAME:e OP:... OP:!= OP:<<= OP:>>= OP:@ OP:~ NL END");
    row("attribute call", "super().__init__(x=1)", "NAME:super OP:( OP:) OP:. NAME:__init__ OP:( NAME:x OP:= NUM:1 OP:) NL END");
    row("quotes", "'a' \"b\" '''c\"d''' \"\"\"e'f\"\"\"", "STR:\"a\" STR:\"b\" STR:\"c\"d\" STR:\"e'f\" NL END");
    row("triple quoted over lines", "x = \"\"\"one\n  two\n\"\"\"\ny\n", "NAME:x OP:= STR:\"one\n  two\n\" NL NAME:y NL END");
    row("prefixes", "r'\\d' R'\\n' u'u' b'b' B'B' f'{x}' F'F' rb'\\x' Br'\\y' fR'\\z' Rf'w'",
        "STR:\"\\d\" STR:\"\\n\" STR:\"u\" bSTR:\"b\" bSTR:\"B\" fSTR:\"{x}\" fSTR:\"F\" bSTR:\"\\x\" bSTR:\"\\y\" "
        "fSTR:\"\\z\" fSTR:\"w\" NL END");
    row("not a prefix", "ub'x'", "NAME:ub STR:\"x\" NL END");
    // Quotes inside an f-string's replacement field start nested strings (Python 3.12
    // allows the enclosing quote there); '{{' and format specs are text.
    row("f-string fields", "f\"{d[\"k\"]} {a:{w}.2f} {{x}} {'q' + \"r\"!r}\" f'''{\n x}'''",
        "fSTR:\"{d[\"k\"]} {a:{w}.2f} {{x}} {'q' + \"r\"!r}\" fSTR:\"{\n x}\" NL END");
    row("raw keeps escaped quote", "r\"a\\\"b\"", "STR:\"a\\\"b\" NL END");
    row("escapes", "'\\n\\t\\\\\\'\\\"\\x41\\101\\u00e9\\U0001F600\\q\\N{DASH}'",
        "STR:\"\n\t\\'\"AAé\xF0\x9F\x98\x80\\q\\N{DASH}\" NL END");
    row("backslash newline in a string", "'ab\\\ncd'", "STR:\"abcd\" NL END");
    row("bytes escapes stay bytes", "b'\\x41\\u0041'", "bSTR:\"A\\u0041\" NL END");
    row("surrogate escape", "'\\ud800'", "STR:\"\xEF\xBF\xBD\" NL END");
    row("unicode names", "caf\xC3\xA9 = 1", "NAME:caf\xC3\xA9 OP:= NUM:1 NL END");
    row("semicolons", "a = 1; b = 2", "NAME:a OP:= NUM:1 OP:; NAME:b OP:= NUM:2 NL END");
    row("form feed", "\x0c\nx\n", "NAME:x NL END");
    row("indentation at the end of input", "if a:\n    b\n   ", "NAME:if NAME:a OP:: NL IN NAME:b NL DE END");
}

void TestPythonTokenizer::tokens()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, expected);
    // A copy without a terminating NUL behind it, so that reading past the end cannot go unnoticed under ASan.
    const std::vector<char> exact(source.begin(), source.end());
    const TokenizeResult r = tokenizePython(std::string_view(exact.data(), exact.size()));
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(dump(r.tokens), expected);
}

void TestPythonTokenizer::positions()
{
    const std::string source = "class A(B):\n    x = (\"s\",\n         2)\n";
    const TokenizeResult r = tokenizePython(source);
    QVERIFY(r.ok());
    const auto at = [&](std::size_t i) { return std::make_pair(r.tokens[i].line, r.tokens[i].column); };
    QCOMPARE(at(0), std::make_pair(1, 1)); // class
    QCOMPARE(at(1), std::make_pair(1, 7)); // A
    QCOMPARE(at(3), std::make_pair(1, 9)); // B
    QCOMPARE(r.tokens[7].kind, TokenKind::Indent);
    QCOMPARE(at(8), std::make_pair(2, 5));  // x
    QCOMPARE(at(11), std::make_pair(2, 10)); // "s"
    QCOMPARE(at(13), std::make_pair(3, 10)); // 2
    // Where tokens end (for "expected ':'" after a header): just past their last character.
    const auto end = [&](std::size_t i) { return std::make_pair(r.tokens[i].endLine, r.tokens[i].endColumn); };
    QCOMPARE(end(0), std::make_pair(1, 6));   // class
    QCOMPARE(end(4), std::make_pair(1, 11));  // )
    QCOMPARE(end(11), std::make_pair(2, 13)); // "s"
    const TokenizeResult triple = tokenizePython("x = '''a\n\xC3\xA9" "b''' + 1\n"); // é is one column
    QCOMPARE(std::make_pair(triple.tokens[2].endLine, triple.tokens[2].endColumn), std::make_pair(2, 6));

    // Columns count code points, as the JSON loader's do: "é" and "漢" are one column
    // each, and a byte order mark none.
    const TokenizeResult u = tokenizePython("\xEF\xBB\xBF" "caf\xC3\xA9 = '\xE6\xBC\xA2h' + b\n");
    QVERIFY(u.ok());
    QCOMPARE(u.tokens[0].text, std::string("caf\xC3\xA9"));
    QCOMPARE(std::make_pair(u.tokens[0].line, u.tokens[0].column), std::make_pair(1, 1)); // café
    QCOMPARE(std::make_pair(u.tokens[1].line, u.tokens[1].column), std::make_pair(1, 6)); // =
    QCOMPARE(std::make_pair(u.tokens[2].line, u.tokens[2].column), std::make_pair(1, 8)); // '漢h'
    QCOMPARE(std::make_pair(u.tokens[3].line, u.tokens[3].column), std::make_pair(1, 13)); // +
    QCOMPARE(std::make_pair(u.tokens[4].line, u.tokens[4].column), std::make_pair(1, 15)); // b
}

void TestPythonTokenizer::errors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    const auto row = [](const char *name, const QByteArray &source, const char *message, int line, int column) {
        QTest::newRow(name) << source << QString(message) << line << column;
    };
    row("unterminated string", "x = 1\ny = \"abc\n", "unterminated string literal", 2, 5);
    row("unterminated at end", "y = 'abc", "unterminated string literal", 1, 5);
    row("unterminated triple", "a\nb = '''x\n\ny", "unterminated triple-quoted string literal", 2, 5);
    row("unmatched close", "a)\n", "unmatched ')'", 1, 2);
    row("mismatched close", "f(a]\n", "closing ']' does not match '(' opened at line 1", 1, 4);
    row("never closed", "x = [1,\n  2\n", "'[' was never closed", 1, 5);
    // A tab is eight columns to Python, but indentation that means something else with
    // another tab size is refused (TabError), as CPython does.
    row("tab and eight spaces in one block", "if a:\n\tb\n        c\n", "inconsistent use of tabs and spaces in indentation", 3, 1);
    row("spaces then tab against a tab", "if a:\n  \tb\n\tc\n", "inconsistent use of tabs and spaces in indentation", 3, 1);
    row("deeper by tabs, shallower by spaces", "if a:\n        b\n        if c:\n\t\td\n",
        "inconsistent use of tabs and spaces in indentation", 4, 1);
    row("double underscore in a number", "x = 1__0\n", "invalid number literal '1__0'", 1, 5);
    row("trailing underscore", "x = 1.0_\n", "invalid number literal '1.0_'", 1, 5);
    row("leading zero", "x = 012\n", "invalid number literal '012'", 1, 5);
    row("binary digit 2", "x = 0b12\n", "invalid number literal '0b12'", 1, 5);
    row("hex prefix alone", "x = 0x\n", "invalid number literal '0x'", 1, 5);
    row("byte order mark inside a name", "ab\xEF\xBB\xBF" "c = 1\n", "invalid non-printable character U+FEFF", 1, 3);
    row("byte order mark between tokens", "x = \xEF\xBB\xBF" "1\n", "invalid non-printable character U+FEFF", 1, 5);
    row("inconsistent dedent", "if a:\n    b\n  c\n", "unindent does not match any outer indentation level", 3, 3);
    row("invalid character", "a = $b\n", "invalid character '$'", 1, 5);
    row("question mark", "a ? b", "invalid character '?'", 1, 3);
    row("lone exclamation", "a ! b", "invalid character '!'", 1, 3);
    row("stray backslash", "a = \\ b\n", "unexpected character after the line continuation character", 1, 6);
    row("backslash at end", "a = \\", "unexpected end of file after the line continuation character", 1, 6);
    row("invalid utf-8", "a = 1\nb = '\xff'\n", "not valid UTF-8", 2, 6);
    row("overlong utf-8", "\xC0\xAF", "not valid UTF-8", 1, 1);
    row("invalid utf-8 after a wide character", "x = 1\r\n\xC3\xA9 = '\xff'\n", "not valid UTF-8", 2, 6);
    row("invalid utf-8 after a byte order mark", "\xEF\xBB\xBF\xff", "not valid UTF-8", 1, 1);
    row("invalid character after a wide character", "x = '\xC3\xA9' $\n", "invalid character '$'", 1, 9);
    row("unterminated after a wide character", "\xE6\xBC\xA2 = 'x", "unterminated string literal", 1, 5);
    row("nul byte", QByteArray("a\0b", 3), "NUL byte", 1, 2);
    row("truncated hex escape", "'\\x4'", "truncated \\xXX escape", 1, 2);
    row("truncated unicode escape", "'\\u12'", "truncated \\uXXXX escape", 1, 2);
    row("escape out of range", "'\\U00110000'", "illegal Unicode character", 1, 2);
}

void TestPythonTokenizer::errors()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);
    const TokenizeResult r = tokenizePython(std::string_view(source.constData(), static_cast<std::size_t>(source.size())));
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error).contains(message), r.error.c_str());
    QCOMPARE(r.errorLine, line);
    QCOMPARE(r.errorColumn, column);
    QVERIFY(!r.tokens.empty());
    QCOMPARE(r.tokens.back().kind, TokenKind::EndOfInput);
}

void TestPythonTokenizer::limits()
{
    // CPython's limits: 200 nested brackets, 100 indentation levels.
    std::string brackets(kMaxBracketDepth, '(');
    brackets += std::string(kMaxBracketDepth, ')');
    QVERIFY(tokenizePython(brackets).ok());
    const TokenizeResult deep = tokenizePython(std::string(100000, '['));
    QVERIFY(!deep.ok());
    QVERIFY(QString::fromStdString(deep.error).contains("too many nested parentheses"));
    QCOMPARE(deep.errorColumn, kMaxBracketDepth + 1);

    std::string indented;
    for (int level = 0; level < kMaxIndentDepth + 5; ++level)
        indented += std::string(static_cast<std::size_t>(level), ' ') + "if a:\n";
    const TokenizeResult tooDeep = tokenizePython(indented);
    QVERIFY(!tooDeep.ok());
    QVERIFY(QString::fromStdString(tooDeep.error).contains("too many levels of indentation"));
    QCOMPARE(tooDeep.errorLine, kMaxIndentDepth + 2);

    // Long inputs are linear: a million-character string and a long line of names.
    const std::string longString = "x = '" + std::string(1000000, 'a') + "'\n";
    const TokenizeResult s = tokenizePython(longString);
    QVERIFY(s.ok());
    QCOMPARE(s.tokens[2].text.size(), std::size_t(1000000));
}

void TestPythonTokenizer::utf8Helpers()
{
    std::string out;
    appendUtf8(out, 0x41);
    appendUtf8(out, 0xE9);
    appendUtf8(out, 0x20AC);
    appendUtf8(out, 0x1F600);
    appendUtf8(out, 0xDC00);
    appendUtf8(out, 0x110000);
    QCOMPARE(out, std::string("A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD\xEF\xBF\xBD"));
    QCOMPARE(findInvalidUtf8(out), std::string_view::npos);
    QCOMPARE(findInvalidUtf8("ab\xED\xA0\x80"), std::size_t(2)); // an encoded surrogate
    QCOMPARE(findInvalidUtf8("a\xF4\x90\x80\x80"), std::size_t(1)); // past U+10FFFF
    QCOMPARE(findInvalidUtf8("\xE2\x82"), std::size_t(0));           // truncated
}

QTEST_GUILESS_MAIN(TestPythonTokenizer)
#include "tst_pythontokenizer.moc"
