// SPDX-License-Identifier: MIT
// The Python tokenizer: every kind of token, Python's implicit and explicit line
// joining, INDENT/DEDENT, and its errors with their line and column; f-string fields;
// the character names of "\N{name}".
#include "core/importer/PythonIdentifier.h"
#include "core/importer/PythonIdentifierTables.h"
#include "core/importer/PythonSourceEncoding.h"
#include "core/importer/PythonTokenizer.h"
#include "core/importer/PythonUnicodeNameTables.h"
#include "core/importer/PythonUnicodeNames.h"

#include <QFile>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_set>
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
    void literalErrors_data();
    void literalErrors();
    void fieldExpressionErrors_data();
    void fieldExpressionErrors();
    void unicodeNames();
    void limits();
    void utf8Helpers();
    void identifiers_data();
    void identifiers();
    void identifierTables();
    void nfkcDifferential();
    void sourceEncodings_data();
    void sourceEncodings();
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
    // In a raw f-string a backslash escapes nothing: a brace after it is still a brace
    // ("\{{" is a backslash and a '{'); it only keeps a quote or a backslash from ending the
    // string or pairing with another.
    row("raw f-string backslashes", "rf'(\\{{%)' Rf\"\\\\{x}\" fr'\\}}' rf'\\{x}\\'' rF'\\\\'",
        "fSTR:\"(\\{{%)\" fSTR:\"\\\\{x}\" fSTR:\"\\}}\" fSTR:\"\\{x}\\'\" fSTR:\"\\\\\" NL END");
    // "\N{...}" in an f-string is a named character, not a replacement field.
    row("named escape in an f-string", "f'\\N{EM DASH} {x}'", "fSTR:\"\\N{EM DASH} {x}\" NL END");
    row("escapes", "'\\n\\t\\\\\\'\\\"\\x41\\101\\u00e9\\U0001F600\\q\\N{EM DASH}'",
        "STR:\"\n\t\\'\"AAé\xF0\x9F\x98\x80\\q\xE2\x80\x94\" NL END");
    // "\N{name}": the character Python's unicodedata names (Unicode 14.0), aliases too, in any
    // case; the computed names of CJK ideographs and Hangul syllables in upper case only.
    row("named characters", "'\\N{BULLET}\\N{bullet}\\N{Byte Order Mark}\\N{CJK UNIFIED IDEOGRAPH-4E00}"
        "\\N{CJK UNIFIED IDEOGRAPH-2A6DF}\\N{HANGUL SYLLABLE GAG}\\N{KHITAN SMALL SCRIPT CHARACTER-18b00}'",
        "STR:\"\xE2\x80\xA2\xE2\x80\xA2\xEF\xBB\xBF\xE4\xB8\x80\xF0\xAA\x9B\x9F\xEA\xB0\x81\xF0\x98\xAC\x80\" NL END");
    row("bytes and raw strings keep \\N", "b'\\N{BULLET}' r'\\N{NOPE}'", "bSTR:\"\\N{BULLET}\" STR:\"\\N{NOPE}\" NL END");
    row("backslash newline in a string", "'ab\\\ncd'", "STR:\"abcd\" NL END");
    row("bytes escapes stay bytes", "b'\\x41\\u0041'", "bSTR:\"A\\u0041\" NL END");
    row("surrogate escape", "'\\ud800'", "STR:\"\xEF\xBF\xBD\" NL END");
    row("unicode names", "caf\xC3\xA9 = 1", "NAME:caf\xC3\xA9 OP:= NUM:1 NL END");
    // PEP 3131: XID_Start then XID_Continue, in any script ("ελληνικά", "漢字", a middle
    // dot and a combining accent after the first character, U+2118 by Other_ID_Start).
    // Names are what Python reads (NFKC): "e" and a combining acute accent is "é".
    row("names in other scripts", "\xCE\xB5\xCE\xBB = \xE6\xBC\xA2\xE5\xAD\x97 + a\xC2\xB7" "b + e\xCC\x81 + \xE2\x84\x98",
        "NAME:\xCE\xB5\xCE\xBB OP:= NAME:\xE6\xBC\xA2\xE5\xAD\x97 OP:+ NAME:a\xC2\xB7" "b OP:+ NAME:\xC3\xA9 OP:+ NAME:\xE2\x84\x98 NL END");
    row("non-ASCII inside strings and comments", "x = '\xE2\x82\xAC \xC2\xA0'  # \xE2\x82\xAC\n", "NAME:x OP:= STR:\"\xE2\x82\xAC \xC2\xA0\" NL END");
    // CPython's compile(), which `import` uses, never decodes a comment.
    row("invalid utf-8 in comments", "# caf\xE9\nx = 1  # \xFF\xFE\n# \xC3", "NAME:x OP:= NUM:1 NL END");
    row("invalid utf-8 in comments after a utf-8 cookie", "# -*- coding: utf-8 -*-\n# \xFF\nx = 1\n", "NAME:x OP:= NUM:1 NL END");
    // A coding cookie (PEP 263) declaring Latin-1: é (byte 0xE9) is read as U+00E9.
    row("latin-1 cookie", "# -*- coding: latin-1 -*-\ncaf\xE9 = '\xE9t\xE9'\n",
        "NAME:caf\xC3\xA9 OP:= STR:\"\xC3\xA9t\xC3\xA9\" NL END");
    row("latin-1 cookie on line 2", "#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-1 :\nx = '\xFF'\n",
        "NAME:x OP:= STR:\"\xC3\xBF\" NL END");
    row("ascii cookie, ASCII text", "# coding: ascii\nx = 1\n", "NAME:x OP:= NUM:1 NL END");
    row("utf-8 cookie", "\xEF\xBB\xBF# coding: utf-8\nx = '\xC3\xA9'\n", "NAME:x OP:= STR:\"\xC3\xA9\" NL END");
    row("a cookie on line 3 is a comment", "#\n#\n# coding: latin-1\nx = '\xC3\xA9'\n", "NAME:x OP:= STR:\"\xC3\xA9\" NL END");
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
    // Characters that cannot be in a name, named as CPython names them, where they are.
    row("euro sign in a name", "a\xE2\x82\xAC" "b = 1\n", "invalid character '\xE2\x82\xAC' (U+20AC)", 1, 2);
    row("euro sign alone", "x = 1 \xE2\x82\xAC\n", "invalid character '\xE2\x82\xAC' (U+20AC)", 1, 7);
    row("emoji", "x = \xF0\x9F\x98\x80\n", "invalid character '\xF0\x9F\x98\x80' (U+1F600)", 1, 5);
    row("no-break space", "x = \xC2\xA0" "1\n", "invalid non-printable character U+00A0", 1, 5);
    row("digit of another script first", "\xD9\xA3 = 1\n", "invalid character '\xD9\xA3' (U+0663)", 1, 1);
    row("combining accent first", "\xCC\x81" "a = 1\n", "invalid character '\xCC\x81' (U+0301)", 1, 1);
    row("after a wide character", "\xE6\xBC\xA2\xC2\xAB = 1\n", "invalid character '\xC2\xAB' (U+00AB)", 1, 2);
    row("after a number", "1\xE2\x82\xAC\n", "invalid character '\xE2\x82\xAC' (U+20AC)", 1, 2);
    // Source encodings: columns in a Latin-1 file count characters (é is one); a byte
    // that is not ASCII under an ascii cookie; encodings the importer does not read.
    row("after latin-1 text", "# coding: latin-1\n\xE9\xE9 = '\xE9' $\n", "invalid character '$'", 2, 10);
    row("latin-1 no-break space", "# coding: latin1\nx = \xA0\n", "invalid non-printable character U+00A0", 2, 5);
    row("not ascii", "# coding: ascii\nx = 1\ny = '\xC3\xA9'\n", "byte 0xC3 is not ASCII, but line 1 declares the source encoding 'ascii'", 3, 6);
    row("other encoding", "# -*- coding: cp1252 -*-\nx = 1\n",
        "the file declares the source encoding 'cp1252'; the importer reads only UTF-8, Latin-1 and ASCII", 1, 15);
    row("unknown encoding", "#!python\n# coding=klingon\n", "the file declares the source encoding 'klingon'", 2, 10);
    row("latin-1 after a byte order mark", "\xEF\xBB\xBF# coding: latin-1\nx = 1\n",
        "encoding problem: the file starts with a UTF-8 byte order mark but declares the encoding 'latin-1'", 1, 11);
    row("a cookie after code does not count", "x = 0\n# coding: latin-1\ny = \xE9\n",
        "(unicode error) 'utf-8' codec can't decode byte 0xe9 in position 0: unexpected end of data", 3, 5);
    // A UTF-8 cookie CPython's tokenizer does not spell "utf-8" makes it decode the whole
    // file first: a comment's invalid UTF-8 is an error too, its position counted with
    // "\r\n" as one character and a newline added at the end.
    row("utf8 cookie: comments too", "# coding: utf8\n# \xFF\nx = 1\n",
        "'utf-8' codec can't decode byte 0xff in position 17: invalid start byte (the coding cookie 'utf8'", 2, 3);
    row("u8 cookie, crlf, no final newline", "# coding: u8\r\nx = 1  # \xC3",
        "'utf-8' codec can't decode byte 0xc3 in position 22: invalid continuation byte", 2, 10);
    row("byte order mark between tokens", "x = \xEF\xBB\xBF" "1\n", "invalid non-printable character U+FEFF", 1, 5);
    row("inconsistent dedent", "if a:\n    b\n  c\n", "unindent does not match any outer indentation level", 3, 3);
    row("invalid character", "a = $b\n", "invalid character '$'", 1, 5);
    row("question mark", "a ? b", "invalid character '?'", 1, 3);
    row("lone exclamation", "a ! b", "invalid character '!'", 1, 3);
    row("stray backslash", "a = \\ b\n", "unexpected character after the line continuation character", 1, 6);
    row("backslash at end", "a = \\", "unexpected EOF while parsing", 1, 6);
    // Invalid UTF-8 outside strings and comments is in a name's run of characters:
    // CPython's decoder error, at the run's last character.
    row("invalid utf-8 in a name", "ab\xFF" "cd = 1\n", "(unicode error) 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte", 1, 5);
    row("invalid utf-8 between tokens", "x = 1 \xFF\n", "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0", 1, 7);
    row("invalid utf-8 before an invalid character", "\xE2\x82\xAC\xFF = 1\n", "can't decode byte 0xff in position 3", 1, 2);
    row("truncated at the end of a name", "x = a\xC3", "can't decode byte 0xc3 in position 1: unexpected end of data", 1, 6);
    row("overlong utf-8", "\xC0\xAF", "can't decode byte 0xc0 in position 0: invalid start byte", 1, 2); // two characters
    row("invalid utf-8 after a wide character", "x = 1\r\n\xC3\xA9\xFF = 1\n", "can't decode byte 0xff in position 2", 2, 2);
    row("invalid utf-8 after a byte order mark", "\xEF\xBB\xBF\xFF", "can't decode byte 0xff in position 0", 1, 1);
    // Each sequence Python's decoder rejects is one column, as U+FFFD once it decodes the line.
    row("columns after invalid utf-8", "x = '\xA0\xE2\x82' $\n", "invalid character '$'", 1, 10);
    // An f-string Python 3.12 does not end (a quote in a field starts a nested string) ends
    // at that quote for Python 3.11, whose parser reports it after the string.
    row("f-string field never closed", "x = f\"{\"\n", "f-string: expecting '}'", 1, 9);
    row("brace after a backslash", "x = F\" \\{\"  # c\n", "f-string: expecting '}'", 1, 13); // CPython: at the comment
    row("triple-quoted field never closed", "x = f\"\"\"{\"\"\"\n", "f-string: expecting '}'", 1, 13);
    row("an earlier problem in it", "x = f\"}{\"\n", "f-string: single '}' is not allowed", 1, 10);
    row("invalid utf-8 in an earlier field", "x = f\"{'\xFF'}{\"\n", "f-string: (unicode error)", 1, 5);
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

void TestPythonTokenizer::literalErrors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("message"); // empty when CPython's parser takes the literal
    QTest::addColumn<bool>("atLiteral");  // reported at the literal, not after the literals
    const auto row = [](const char *name, const QByteArray &source, const char *message = "", bool atLiteral = false) {
        QTest::newRow(name) << source << QString::fromUtf8(message) << atLiteral;
    };
    // Invalid UTF-8 in a string: CPython's decoder error, positions counted from where it
    // starts decoding (the literal's text, or each run of non-ASCII bytes when there are
    // escapes to decode and always in an f-string).
    row("invalid utf-8", "'\xFF'", "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte");
    row("position in the text", "'abc\xFF'", "(unicode error) 'utf-8' codec can't decode byte 0xff in position 3: invalid start byte");
    row("position in the run, with escapes", "'ab\\n\xC3\xA9\xFF'", "can't decode byte 0xff in position 2: invalid start byte");
    row("raw: no escapes", "r'ab\\n\xFF'", "can't decode byte 0xff in position 4: invalid start byte");
    row("truncated at the end", "'\xE2\x82'", "can't decode bytes in position 0-1: unexpected end of data");
    row("truncated before ASCII", "'\xC3" "a'", "can't decode byte 0xc3 in position 0: invalid continuation byte");
    row("truncated at a run's end", "'\\n\xC3" "a'", "can't decode byte 0xc3 in position 0: unexpected end of data");
    row("encoded surrogate", "'\xED\xA0\x80'", "can't decode byte 0xed in position 0: invalid continuation byte");
    row("past U+10FFFF", "u'\xF4\x90\x80\x80'", "can't decode byte 0xf4 in position 0: invalid continuation byte");
    row("valid non-ASCII", "'caf\xC3\xA9 \xF0\x9F\x98\x80'");
    // Bytes literals hold ASCII characters only, whatever their escapes make.
    row("non-ASCII in bytes", "b'caf\xC3\xA9'", "bytes can only contain ASCII literal characters", true);
    row("non-ASCII in raw bytes", "rb'\\\xC3\xA9'", "bytes can only contain ASCII literal characters", true);
    row("invalid utf-8 in bytes", "B'\xFF'", "bytes can only contain ASCII literal characters", true);
    row("bytes escapes", "b'\\xff\\303'");
    // F-strings: a '}' is doubled or ends a field, a field has an expression, and (Python
    // 3.11) its expression holds no backslash outside a nested string (Python 3.12 allows one there).
    row("single '}'", "f'a}b'", "f-string: single '}' is not allowed");
    row("doubled braces", "f'a}}b{{c'");
    row("'}}' after a format spec", "f'{x:}}'", "f-string: single '}' is not allowed");
    row("escaped '}'", "f'\\}'", "f-string: single '}' is not allowed");
    row("raw: escaped '}'", "rf'\\}'", "f-string: single '}' is not allowed");
    row("raw: doubled brace after a backslash", "rf'(\\{{%)'");
    row("empty expression", "f'{ }'", "f-string: empty expression not allowed");
    row("empty expression in a format spec", "f'{x:{}}'", "f-string: empty expression not allowed");
    row("no expression before a conversion", "f'{!r}'", "f-string: expression required before '!'");
    row("no expression before a format spec", "f'{ :x}'", "f-string: expression required before ':'");
    row("fields", "f'{a != b} {x=} {x!r:>{w}} {d[\"k\"]:{\"w\"}}'");
    row("named escapes", "f'\\N{LEFT CURLY BRACKET}{x}\\N{RIGHT CURLY BRACKET}'");
    row("a named escape's braces", "f'\\N{EM DASH}}'", "f-string: single '}' is not allowed");
    row("backslash in an expression", "f'{x\\n}'", "f-string expression part cannot include a backslash");
    row("raw: backslash in an expression", "rf'{x\\n}'", "f-string expression part cannot include a backslash");
    row("backslash in a nested string (Python 3.12)", "f'{\"\\n\".join(x)}'");
    row("a quote in a format spec ends it", "f'{x:'", "f-string: expecting '}'");
    row("the first problem", "f'}{}'", "f-string: single '}' is not allowed");
    row("invalid utf-8 in f-string text", "f'{a}b\xFF'", "can't decode byte 0xff in position 0: invalid start byte");
    // "\N{name}" names a character Python's unicodedata knows; CPython's decoder counts
    // positions in its own copy of the text, where a character past ASCII takes ten.
    row("unknown character name", "'ab\\N{bullet}\\N{NOPE}'",
        "(unicode error) 'unicodeescape' codec can't decode bytes in position 12-19: unknown Unicode character name");
    row("unknown name after non-ASCII", "u'\xC3\xA9\\N{NOPE}'", "can't decode bytes in position 10-17: unknown Unicode character name");
    row("name in lower case, computed", "'\\N{hangul syllable ga}'", "unknown Unicode character name");
    row("named sequence", "'\\N{LATIN SMALL LETTER A WITH MACRON AND GRAVE}'", "unknown Unicode character name");
    row("no name", "'\\N{}'", "can't decode bytes in position 0-2: malformed \\N character escape");
    row("no brace", "'\\Nx'", "can't decode bytes in position 0-1: malformed \\N character escape");
    row("no closing brace", "'\\N{BULLET'", "can't decode bytes in position 0-8: malformed \\N character escape");
    row("invalid utf-8 first", "'\\N{NOPE}\xFF'", "(unicode error) 'utf-8' codec can't decode byte 0xff");
    row("unknown name in an f-string", "f'{{\\N{NOPE}'", "can't decode bytes in position 0-7: unknown Unicode character name");
    row("unknown name in a format spec", "f'{a:x\\N{NOPE}}'", "can't decode bytes in position 1-8: unknown Unicode character name");
    row("malformed in an f-string", "f'\\N{BULLET'", "can't decode bytes in position 0-8: malformed \\N character escape");
    row("bytes: not an escape", "b'\\N{NOPE}'");
    row("raw: not an escape", "r'\\N{NOPE}' rf'\\N{x}'");
    // A field as Python 3.11 reads it to find its expression: to '!', ':', '=' or '}' outside
    // brackets ("!=", "==", "<=", ">=" are operators), then '=' and spaces, a conversion
    // (one of s, r, a, right after the '!'), a format spec; fields nest two deep at most.
    row("operators and field parts", "f'{a!=b} {a==b} {a<=b} {a>=b} {a<b} {x=!r:>10} {x = } {x = !r:^{w}} {x:{{}}} "
        "{(lambda: 1)()} {a:=1} {d[\"#\"]:{w}.{p}f}'");
    row("'#' in an expression", "f'{a #}'", "f-string expression part cannot include '#'");
    row("invalid conversion", "f'{a!x}'", "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    row("no conversion", "f'{a!}'", "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    row("space before a conversion", "f'{a! r}'", "f-string: invalid conversion character");
    row("space after a conversion", "f'{a!r }'", "f-string: expecting '}'");
    row("two conversions", "f'{a!r!s}'", "f-string: expecting '}'");
    row("'=' after a conversion", "f'{a!r=}'", "f-string: expecting '}'");
    row("text after '='", "f'{a=x}'", "f-string: expecting '}'");
    row("conversion in a nested field", "f'{a:{b!x}}'", "f-string: invalid conversion character");
    row("fields nested too deeply", "f'{a:{b:{c}}}'", "f-string: expressions nested too deeply");
    row("unmatched ')'", "f'{a)}'", "f-string: unmatched ')'");
    row("mismatched brackets", "f'{a[)]}'", "f-string: closing parenthesis ')' does not match opening parenthesis '['");
    row("the scan before the expression", "f'{a b)}'", "f-string: unmatched ')'");
    // CPython compiles a field's expression on its own: the error names the f-string, at it.
    row("invalid utf-8 in a field", "f'{\"\xFF\"}'",
        "f-string: (unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", true);
    row("invalid utf-8 in a field's name", "f'{ab\xFF}'", "f-string: (unicode error)", true);
}

void TestPythonTokenizer::literalErrors()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, message);
    QFETCH(bool, atLiteral);
    // The tokenizer reads the literal; only the parser refuses it (tst_pythonparser: where).
    const TokenizeResult r = tokenizePython(std::string_view(source.constData(), static_cast<std::size_t>(source.size())));
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.tokens.front().kind, TokenKind::String);
    const Token &literal = r.tokens.front();
    if (message.isEmpty()) {
        QCOMPARE(literal.literalError, LiteralError::None);
        return;
    }
    QCOMPARE(literal.literalError, atLiteral ? LiteralError::AtLiteral : LiteralError::AfterLiterals);
    QVERIFY2(QString::fromStdString(literal.text).contains(message), literal.text.c_str());
}

void TestPythonTokenizer::fieldExpressionErrors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    const auto row = [](const char *name, const QByteArray &source, const char *message, int line, int column) {
        QTest::newRow(name) << source << QString::fromUtf8(message) << line << column;
    };
    // A field's expression is read on its own, as in parentheses: what is wrong in it is
    // put where it is in the source (CPython 3.11 counts from the field).
    row("two names", "f'{a b}'", "f-string: invalid syntax: expected '}' before 'b' (perhaps a comma is missing)", 1, 6);
    row("lambda", "f'{lambda: 1}'", "f-string: invalid syntax: expected a parameter name in a lambda at the end of the field", 1, 10);
    row("lambda with a parameter", "f'{lambda x: x}'", "f-string: invalid syntax: expected ','", 1, 12);
    row("operator without an operand", "f'{1 + }'", "f-string: invalid syntax: expected an expression at the end of the field", 1, 8);
    row("keyword", "f'{def}'", "f-string: invalid syntax: expected an expression before 'def'", 1, 4);
    row("starred", "f'{*a}'", "f-string: cannot use starred expression here", 1, 4);
    row("in a format spec", "f'{a:{b c}}'", "f-string: invalid syntax: expected '}' before 'c'", 1, 9);
    row("in a later field", "f'{a}{x}{b.}'", "f-string: invalid syntax: expected an attribute name after '.'", 1, 12);
    row("before '='", "f'{a b=}'", "f-string: invalid syntax: expected '}' before 'b'", 1, 6);
    row("before a conversion", "f'{a b!r}'", "f-string: invalid syntax: expected '}' before 'b'", 1, 6);
    row("a later line", "f'''{a\n  b}'''", "f-string: invalid syntax: expected '}' before 'b'", 2, 3);
    row("after non-ASCII text", "f'\xC3\xA9\xC3\xA9{a b}'", "f-string: invalid syntax", 1, 8);
    row("in a nested f-string", "f'{f\"{a b}\"}'", "f-string: invalid syntax: expected '}' before 'b'", 1, 9);
    row("a nested literal's own error", "f'{f\"{a!x}\"}'", "f-string: invalid conversion character", 1, 12);
    row("a character no token starts", "f'{a$}'", "invalid character '$'", 1, 5);
    row("a number", "f'{1_}'", "invalid number literal '1_'", 1, 4);
    row("mixed bytes", "f'{\"a\" b\"b\"}'", "f-string: cannot mix bytes and nonbytes literals", 1, 12);
}

void TestPythonTokenizer::fieldExpressionErrors()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);
    const TokenizeResult r = tokenizePython(std::string_view(source.constData(), static_cast<std::size_t>(source.size())));
    QVERIFY2(r.ok(), r.error.c_str());
    const Token &literal = r.tokens.front();
    QCOMPARE(literal.kind, TokenKind::String);
    QCOMPARE(literal.literalError, LiteralError::Inside);
    QVERIFY2(QString::fromStdString(literal.text).startsWith(message), literal.text.c_str());
    QCOMPARE(literal.problemLine, line);
    QCOMPARE(literal.problemColumn, column);
}

void TestPythonTokenizer::unicodeNames()
{
    // Every name Python 3.11's unicodedata.name gives (Unicode 14.0, the computed CJK and
    // Hangul names too) is the importer's, character for character: their count and digest
    // are Python's (generate_unicode_name_tables.py), and each names its character again.
    namespace tables = unicode_name_tables;
    std::uint64_t digest = 0xCBF29CE484222325ULL;
    std::size_t count = 0;
    std::unordered_set<std::string> names;
    const auto lower = [](std::string s) {
        for (char &c : s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
        const std::string name = unicodeName(cp);
        if (name.empty())
            continue;
        ++count;
        char hex[16];
        std::snprintf(hex, sizeof hex, "%04X ", static_cast<unsigned>(cp));
        for (const char c : std::string(hex) + name + "\n") {
            digest ^= static_cast<unsigned char>(c);
            digest *= 0x100000001B3ULL;
        }
        QCOMPARE(lookupUnicodeName(name), static_cast<long>(cp));
        // In any case, but for the computed names (CPython compares them as written).
        const bool computed = name.rfind("CJK UNIFIED IDEOGRAPH-", 0) == 0 || name.rfind("HANGUL SYLLABLE ", 0) == 0;
        QCOMPARE(lookupUnicodeName(lower(name)), computed ? -1L : static_cast<long>(cp));
        names.insert(name);
    }
    QCOMPARE(count, tables::kAllNamesCount);
    QCOMPARE(digest, tables::kAllNamesDigest);
    int aliases = 0;
    forEachUnicodeNameAlias([&](std::string_view alias, char32_t cp) {
        ++aliases;
        QCOMPARE(lookupUnicodeName(alias), static_cast<long>(cp));
        QCOMPARE(lookupUnicodeName(lower(std::string(alias))), static_cast<long>(cp));
        names.insert(std::string(alias));
    });
    QCOMPARE(aliases, 470); // Unicode 14.0's NameAliases.txt
    // A name is found only when it is one: each name with a character more, or one less, is
    // unknown unless it too is a name.
    for (const std::string &name : names) {
        for (const std::string &other : {name + "S", name + " ", name.substr(0, name.size() - 1), "X" + name}) {
            if (names.count(other) == 0)
                QVERIFY2(lookupUnicodeName(other) < 0, other.c_str());
        }
    }
    for (const char *unknown : {"", "NOPE", " BULLET", "BULLET ", "BULL\xC3\x89T", "LATIN SMALL LETTER A WITH MACRON AND GRAVE",
             "CJK UNIFIED IDEOGRAPH-4e00", "CJK UNIFIED IDEOGRAPH-F900", "CJK UNIFIED IDEOGRAPH-2A6E0",
             "CJK UNIFIED IDEOGRAPH-4E0", "CJK UNIFIED IDEOGRAPH-004E00", "CJK UNIFIED IDEOGRAPH-", "HANGUL SYLLABLE ",
             "HANGUL SYLLABLE GAX", "HANGUL SYLLABLE G", "hangul syllable ga", "TANGUT IDEOGRAPH-17000", "LINE FEED (LF)"}) {
        QVERIFY2(lookupUnicodeName(unknown) < 0, unknown);
    }
    QCOMPARE(lookupUnicodeName("CJK UNIFIED IDEOGRAPH-04E00"), 0x4E00L); // five digits, as CPython reads them
    QCOMPARE(lookupUnicodeName("HANGUL SYLLABLE A"), 0xC544L);
    QCOMPARE(lookupUnicodeName("LATIN CAPITAL LETTER GHA"), 0x1A2L); // a correction alias
    QCOMPARE(lookupUnicodeName("tibetan letter -a"), 0xF60L);
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

void TestPythonTokenizer::identifiers_data()
{
    QTest::addColumn<QByteArray>("word");
    QTest::addColumn<int>("invalidAt");     // byte offset, -1 when valid
    QTest::addColumn<QByteArray>("name"); // the name Python reads (NFKC) when valid
    const auto row = [](const char *name, const QByteArray &word, int invalidAt, const QByteArray &normalized) {
        QTest::newRow(name) << word << invalidAt << normalized;
    };
    row("ascii", "snake_Case_9", -1, "snake_Case_9");
    row("leading underscore", "_x", -1, "_x");
    row("leading digit", "9x", 0, "");
    row("precomposed accent", "caf\xC3\xA9", -1, "caf\xC3\xA9");
    row("greek", "\xCE\xB5\xCE\xBB", -1, "\xCE\xB5\xCE\xBB");
    row("han", "\xE6\xBC\xA2\xE5\xAD\x97", -1, "\xE6\xBC\xA2\xE5\xAD\x97");
    row("euro sign", "a\xE2\x82\xAC", 1, "");
    row("byte order mark", "a\xEF\xBB\xBF", 1, ""); // (at the very start of a file it is skipped)
    row("malformed utf-8", "a\xC3", 1, "");
    // Python reads these as other names after NFKC (PEP 3131), and so does the importer.
    row("ligature", "\xEF\xAC\x81le", -1, "file");
    row("fullwidth letter", "\xEF\xBD\x98", -1, "x");
    row("combining accent that composes", "e\xCC\x81", -1, "\xC3\xA9");
    row("mathematical bold", "\xF0\x9D\x90\xA2\xF0\x9D\x90\x9F", -1, "if"); // the name "if", no keyword
    row("marks out of canonical order", "a\xCC\x81\xCC\xA3", -1, "\xE1\xBA\xA1\xCC\x81"); // dot below first, composed
    row("hangul jamo", "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", -1, "\xEA\xB0\x81");       // G + A + G: U+AC01
    row("hangul syllable and trailing jamo", "\xEA\xB0\x80\xE1\x86\xA8", -1, "\xEA\xB0\x81");
    row("compatibility jamo", "\xE3\x84\xB1", -1, "\xE1\x84\x80"); // U+3131 is U+1100
    row("roman numeral", "\xE2\x85\xA8", -1, "IX");
    row("feminine ordinal", "\xC2\xAA", -1, "a");
    row("excluded composition", "\xE0\xA4\x95\xE0\xA4\xBC", -1, "\xE0\xA4\x95\xE0\xA4\xBC"); // U+0958 stays apart
    row("composition exclusion decomposed", "\xE0\xA5\x98", -1, "\xE0\xA4\x95\xE0\xA4\xBC");
}

void TestPythonTokenizer::identifiers()
{
    QFETCH(QByteArray, word);
    QFETCH(int, invalidAt);
    QFETCH(QByteArray, name);
    const IdentifierCheck check = checkIdentifier(std::string_view(word.constData(), static_cast<std::size_t>(word.size())));
    QCOMPARE(check.valid(), invalidAt < 0);
    if (invalidAt >= 0)
        QCOMPARE(check.invalidAt, static_cast<std::size_t>(invalidAt));
    else
        QCOMPARE(QByteArray::fromStdString(normalizeName(word.toStdString())), name);

    // The tokenizer agrees, and keeps the name Python reads, marking it when it is written otherwise.
    const TokenizeResult r = tokenizePython(word.toStdString() + " = 1\n");
    QCOMPARE(r.ok(), invalidAt < 0 || word.front() == '9');
    if (invalidAt < 0) {
        QCOMPARE(QByteArray::fromStdString(r.tokens.front().text), name);
        QCOMPARE(r.tokens.front().normalized, name != word);
        QCOMPARE(r.tokens.front().endColumn, r.tokens.front().column + QString::fromUtf8(word).toUcs4().size());
        QVERIFY(!r.tokens.front().isKeyword());
    }
}

// tests/importer/nfkc_differential.py writes nfkc_expected.txt from Python 3.11's unicodedata:
// for every XID_Continue code point c, NFKC("a" + c) and, for XID_Start ones, NFKC(c), as
// one FNV-1a digest per block of 4,096 code points; then random names with their NFKC.
void TestPythonTokenizer::nfkcDifferential()
{
    QFile file(QStringLiteral(SPLITSCOPE_IMPORTER_NFKC_EXPECTED));
    QVERIFY2(file.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(file.fileName()));
    const auto hex = [](const std::u32string &s) {
        QStringList parts;
        for (const char32_t c : s)
            parts << QString::number(static_cast<unsigned>(c), 16).toUpper();
        return parts.join(' ');
    };
    const auto codePoints = [](const QString &text) {
        std::u32string out;
        for (const QString &part : text.split(' ', Qt::SkipEmptyParts))
            out += static_cast<char32_t>(part.toUInt(nullptr, 16));
        return out;
    };
    int blocks = 0, names = 0;
    QVERIFY(file.readLine().startsWith("# "));
    QCOMPARE(QString::fromUtf8(file.readLine()).trimmed(), QString("unicode ") + unicode_tables::kUnicodeVersion);
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.startsWith("block ")) {
            // "block B COUNT DIGEST": what this block's code points normalize to.
            const QStringList f = line.split(' ');
            QCOMPARE(f.size(), 4);
            const char32_t first = static_cast<char32_t>(f[1].toUInt(nullptr, 16)) * 0x1000;
            std::uint64_t digest = 0xcbf29ce484222325ULL;
            const auto add = [&digest](const std::u32string &s) {
                for (const char32_t c : s) {
                    for (int shift = 0; shift < 32; shift += 8) {
                        digest ^= (static_cast<std::uint32_t>(c) >> shift) & 0xFF;
                        digest *= 0x100000001b3ULL;
                    }
                }
                digest ^= 0xFF; // the end of one string
                digest *= 0x100000001b3ULL;
            };
            int count = 0;
            for (char32_t c = std::max<char32_t>(first, 0x80); c < first + 0x1000; ++c) {
                if (!isIdentifierContinue(c))
                    continue;
                ++count;
                add(normalizeNameNfkc(std::u32string{U'a', c}));
                if (isIdentifierStart(c))
                    add(normalizeNameNfkc(std::u32string(1, c)));
            }
            QCOMPARE(QString::number(count), f[2]);
            QVERIFY2(QString::number(digest, 16).rightJustified(16, '0') == f[3],
                qPrintable(QString("code points %1..%2 do not normalize as Python's").arg(static_cast<unsigned>(first), 0, 16)
                               .arg(static_cast<unsigned>(first + 0xFFF), 0, 16)));
            ++blocks;
        } else if (line.startsWith("name ")) {
            // "name CODE POINTS = NFKC": a random name and what Python reads for it.
            const int equals = line.indexOf(" = ");
            QVERIFY(equals > 0);
            const std::u32string name = codePoints(line.mid(5, equals - 5));
            QCOMPARE(hex(normalizeNameNfkc(name)), line.mid(equals + 3));
            // The UTF-8 entry point and the tokenizer agree.
            std::string utf8;
            for (const char32_t c : name)
                appendUtf8(utf8, c);
            std::string expected;
            for (const char32_t c : codePoints(line.mid(equals + 3)))
                appendUtf8(expected, c);
            QCOMPARE(normalizeName(utf8), expected);
            ++names;
        }
    }
    QCOMPARE(blocks, 0x110);
    QVERIFY(names >= 2000);
}

void TestPythonTokenizer::identifierTables()
{
    // The generated tables (generate_identifier_tables.py) are sorted, disjoint ranges
    // from U+0080, and every XID_Start character is XID_Continue.
    const auto wellFormed = [](const auto &table) {
        char32_t next = 0x80;
        for (const auto &r : table) {
            if (r.first < next || r.last < r.first || r.last > 0x10FFFF)
                return false;
            next = r.last + 1;
        }
        return true;
    };
    QVERIFY(wellFormed(unicode_tables::kXidStart));
    QVERIFY(wellFormed(unicode_tables::kXidContinue));
    QVERIFY(wellFormed(unicode_tables::kNonPrintable));
    for (const auto &r : unicode_tables::kXidStart) {
        QVERIFY(isIdentifierContinue(r.first));
        QVERIFY(isIdentifierContinue(r.last));
    }
    QVERIFY(QByteArray(unicode_tables::kUnicodeVersion).contains('.'));
    // A few properties no Unicode version changes.
    QVERIFY(isIdentifierStart(U'_') && isIdentifierStart(U'\u00E9') && isIdentifierStart(U'\u4E00'));
    QVERIFY(!isIdentifierStart(U'7') && !isIdentifierStart(U'\u0301') && !isIdentifierStart(U'\u20AC'));
    QVERIFY(isIdentifierContinue(U'7') && isIdentifierContinue(U'\u0301') && !isIdentifierContinue(U'\u00A0'));
    QVERIFY(isPrintable(U'\u20AC') && !isPrintable(U'\u00A0') && !isPrintable(U'\uFEFF') && !isPrintable(U'\u0085'));
    QCOMPARE(invalidCharacterMessage(U'\u20AC'), std::string("invalid character '\xE2\x82\xAC' (U+20AC)"));
    QCOMPARE(invalidCharacterMessage(U'\U000E0001'), std::string("invalid non-printable character U+E0001"));

    std::size_t length = 0;
    QCOMPARE(decodeUtf8At("\xF0\x9F\x98\x80", 0, &length), U'\U0001F600');
    QCOMPARE(length, std::size_t(4));
    QCOMPARE(decodeUtf8At("\xF0\x9F\x98", 0, &length), U'\uFFFD'); // truncated
    QCOMPARE(length, std::size_t(1));
    QCOMPARE(decodeUtf8At("\xC0\xAF", 0, &length), U'\uFFFD'); // overlong
    QCOMPARE(decodeUtf8At("a", 5, &length), U'\uFFFD');       // past the end
}

void TestPythonTokenizer::sourceEncodings_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("encoding"); // as declared
    QTest::addColumn<bool>("converted");
    QTest::addColumn<QString>("error");
    const auto row = [](const char *name, const QByteArray &source, const char *encoding, bool converted,
                         const char *error = "") {
        QTest::newRow(name) << source << QString(encoding) << converted << QString(error);
    };
    row("no cookie", "x = 1\n", "", false);
    row("utf-8", "# -*- coding: utf-8 -*-\n", "utf-8", false);
    row("utf8", "# coding: utf8\n", "utf8", false);
    row("UTF_8 with a byte order mark", "\xEF\xBB\xBF# coding: UTF_8\n", "UTF_8", false);
    row("utf8 with a byte order mark", "\xEF\xBB\xBF# coding: utf8\n", "utf8", false, "encoding problem");
    // CPython's spellings of Latin-1: get_normal_name's, then its codec aliases.
    for (const char *latin1 : {"latin-1", "Latin-1", "LATIN_1", "latin1", "iso-8859-1", "ISO_8859_1", "iso-latin-1",
             "latin-1-unix", "iso8859-1", "l1", "L1", "latin", "cp819", "8859", "iso-ir-100", "ibm819"}) {
        QTest::newRow(latin1) << ("# coding: " + QByteArray(latin1) + "\nx = '\xE9'\n") << QString(latin1) << true
                              << QString();
    }
    for (const char *ascii : {"ascii", "US-ASCII", "us", "646", "ANSI_X3.4-1968", "cp367"})
        QTest::newRow(ascii) << ("# coding: " + QByteArray(ascii) + "\nx = 1\n") << QString(ascii) << false << QString();
    row("latin.1 is not a codec name", "# coding: latin.1\n", "latin.1", false, "source encoding 'latin.1'");
    row("cp1252", "# coding: cp1252\n", "cp1252", false, "source encoding 'cp1252'");
    row("utf-16", "# coding: utf-16\n", "utf-16", false, "source encoding 'utf-16'");
    // Where CPython looks: a comment on line 1, or on line 2 after a blank or comment line.
    row("vim modeline", "# vim: set fileencoding=latin-1 :\n", "latin-1", true);
    row("emacs, indented", "  \t# -*- coding: latin-1 -*-\n", "latin-1", true);
    row("line 2 after a blank line", "\r\n# coding: latin-1\n", "latin-1", true);
    row("line 2 after code", "x = 1\n# coding: latin-1\n", "", false);
    row("after code on line 1", "x = 1  # coding: latin-1\n", "", false);
    row("the first of two", "# coding: latin-1 coding: cp1252\n", "latin-1", true);
    row("an empty spec, then line 2", "# coding:\n# coding: latin-1\n", "latin-1", true);
    row("coding:: is no cookie", "# coding:: latin-1\n", "", false);
    // Messages quote at most 40 characters of a name (a hostile one can be a megabyte).
    QTest::newRow("a long name") << ("# coding: " + QByteArray(100000, 'x') + "\n") << QString(100000, 'x') << false
                                 << QString("source encoding '" + QString(40, 'x') + "...';");
}

void TestPythonTokenizer::sourceEncodings()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, encoding);
    QFETCH(bool, converted);
    QFETCH(QString, error);
    const std::string bytes = source.toStdString();
    const DecodedSource d = decodePythonSource(bytes);
    QCOMPARE(QString::fromStdString(d.encoding), encoding);
    QCOMPARE(d.converted, converted);
    QVERIFY2(QString::fromStdString(d.error).contains(error), d.error.c_str());
    QCOMPARE(d.ok(), error.isEmpty());
    if (converted) {
        // Latin-1 re-encoded: ASCII unchanged, each other byte two UTF-8 bytes.
        QCOMPARE(findInvalidUtf8(d.text), std::string_view::npos);
        QCOMPARE(d.text.size(), bytes.size() + static_cast<std::size_t>(std::count_if(bytes.begin(), bytes.end(),
                                                   [](char c) { return static_cast<unsigned char>(c) >= 0x80; })));
    }
}

QTEST_GUILESS_MAIN(TestPythonTokenizer)
#include "tst_pythontokenizer.moc"
