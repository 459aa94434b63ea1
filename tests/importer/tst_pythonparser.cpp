// SPDX-License-Identifier: MIT
// The expression parser, the statement structure of a module, and the evaluation
// of literal values: what they read, what they refuse, and their limits.
#include "core/importer/PythonModule.h"
#include "core/importer/PythonTokenizer.h"
#include "core/importer/PythonValue.h"

#include <QFile>
#include <QTest>

#include <functional>

using namespace splitscope::importer;

namespace {

// An S-expression of the tree: (call (name f) (num 1) x=(str "a")).
QString dump(const ExprArena &arena, int index)
{
    if (index < 0)
        return "_";
    const Expr &e = arena.at(index);
    const QString text = QString::fromStdString(e.text);
    QStringList parts;
    for (const int item : e.items)
        parts << dump(arena, item);
    for (const auto &[name, value] : e.keywords)
        parts << QString::fromStdString(name) + "=" + dump(arena, value);
    const QString inner = parts.isEmpty() ? QString() : " " + parts.join(' ');
    QString out;
    switch (e.kind) {
    case ExprKind::Name: out = "(name " + text + ")"; break;
    case ExprKind::Attribute: out = "(attr" + inner + " " + text + ")"; break;
    case ExprKind::String: out = QString(e.fString ? "(fstr \"" : e.bytes ? "(bytes \"" : "(str \"") + text + "\")"; break;
    case ExprKind::Number: out = "(num " + text + ")"; break;
    case ExprKind::Constant: out = "(" + text + ")"; break;
    case ExprKind::Tuple: out = "(tuple" + inner + ")"; break;
    case ExprKind::List: out = "(list" + inner + ")"; break;
    case ExprKind::Set: out = "(set" + inner + ")"; break;
    case ExprKind::Dict: out = "(dict" + inner + ")"; break;
    case ExprKind::Call: out = "(call" + inner + ")"; break;
    case ExprKind::Subscript: out = "(sub" + inner + ")"; break;
    case ExprKind::Starred: out = "(" + text + inner + ")"; break;
    case ExprKind::Comprehension: out = "(" + text + "-comp" + inner + ")"; break;
    case ExprKind::Operation: out = "(" + text + inner + ")"; break;
    case ExprKind::Slice: out = "(slice" + inner + ")"; break;
    }
    return e.parenthesized ? "[" + out + "]" : out;
}

struct Parsed {
    QString tree;
    QString error;
};

// Without `withTree` only the error is filled (dumping a 20,000-deep chain would itself recurse).
Parsed parse(const std::string &source, bool withTree = true)
{
    const TokenizeResult tokens = tokenizePython(source);
    if (!tokens.ok())
        return {QString(), "tokenizer: " + QString::fromStdString(tokens.error)};
    ExprArena arena;
    // The expression is the first logical line.
    std::size_t last = 0;
    while (tokens.tokens[last].kind != TokenKind::Newline && tokens.tokens[last].kind != TokenKind::EndOfInput)
        ++last;
    ExpressionParser parser(tokens.tokens, 0, last, arena);
    const int e = parser.parseAll();
    if (e < 0)
        return {QString(), QString::fromStdString(parser.error())};
    return {withTree ? dump(arena, e) : QString(), QString()};
}

std::unique_ptr<PythonModule> module(const std::string &source, const std::string &name = "m.py")
{
    return PythonModule::read(source, name);
}

} // namespace

class TestPythonParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void expressions_data();
    void expressions();
    void syntaxErrors_data();
    void syntaxErrors();
    void nestingLimit();
    void validModules_data();
    void validModules();
    void moduleSyntaxErrors_data();
    void moduleSyntaxErrors();
    void fStringCorpus();
    void statements();
    void classesFunctionsImports();
    void assignments();
    void values_data();
    void values();
    void valueLimits();
};

void TestPythonParser::expressions_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("tree");
    const auto row = [](const char *source, const char *tree) { QTest::newRow(source) << QString(source) << QString(tree); };
    row("x", "(name x)");
    row("None, True, False, ...", "(tuple (None) (True) (False) (...))");
    row("'a' \"b\"", "(str \"ab\")");
    row("f'{x}' 'y'", "(fstr \"{x}y\")");
    row("b'x'", "(bytes \"x\")");
    row("(\"noise\")", "[(str \"noise\")]");
    row("(\"noise\",)", "(tuple (str \"noise\"))");
    row("()", "(tuple)");
    row("[]", "(list)");
    row("{}", "(dict)");
    row("[1, 2,]", "(list (num 1) (num 2))");
    row("{1, 2}", "(set (num 1) (num 2))");
    row("{'a': 1, **b}", "(dict (str \"a\") (num 1) _ (name b))");
    row("a, b", "(tuple (name a) (name b))");
    row("a,", "(tuple (name a))");
    row("a.b.c", "(attr (attr (name a) b) c)");
    row("super().__init__(x, *y, k=1, **z)", "(call (attr (call (name super)) __init__) (name x) (* (name y)) k=(num 1) **=(name z))");
    row("f(x for x in y)", "(call (name f) (generator-comp (name x)))");
    row("a[1:2, ::3]", "(sub (name a) (tuple (slice (num 1) (num 2)) (slice (num 3))))");
    row("a[b]", "(sub (name a) (name b))");
    row("1 + 2 * 3", "(+ (num 1) (* (num 2) (num 3)))");
    row("(1 + 2) * 3", "(* [(+ (num 1) (num 2))] (num 3))");
    row("-2 ** 2", "(unary - (** (num 2) (num 2)))");
    row("2 ** -1", "(** (num 2) (unary - (num 1)))");
    row("a | b ^ c & d << e", "(| (name a) (^ (name b) (& (name c) (<< (name d) (name e)))))");
    row("not a and b or c", "(or (and (not (name a)) (name b)) (name c))");
    row("a < b <= c", "(<= (< (name a) (name b)) (name c))");
    row("a not in b", "(not in (name a) (name b))");
    row("a is not None", "(is not (name a) (None))");
    row("x if c else y", "(if (name x) (name c) (name y))");
    row("lambda a, *b, c=1, **d: a", "(lambda (name a) a=_ b=_ c=(num 1) d=_)");
    row("lambda a, /, b, *, c: a", "(lambda (name a) a=_ b=_ c=_)");
    row("lambda *a, **k: a", "(lambda (name a) a=_ k=_)");
    row("lambda a, /: a", "(lambda (name a) a=_)");
    row("[x for x in y if x if z for w in v]", "(list-comp (name x))");
    row("{k: v for k, v in d}", "(dict-comp (name k) (name v))");
    row("{x async for x in y}", "(set-comp (name x))");
    row("(y := 1)", "[(:= (name y) (num 1))]");
    row("await f()", "(await (call (name f)))"); // an await expression, not the call
    row("(yield x)", "(yield (name x))");
    row("[*a, *b]", "(list (* (name a)) (* (name b)))");
    row("~a @ b // c % d", "(% (// (@ (unary ~ (name a)) (name b)) (name c)) (name d))");
}

void TestPythonParser::expressions()
{
    QFETCH(QString, source);
    QFETCH(QString, tree);
    const Parsed p = parse(source.toStdString());
    QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    QCOMPARE(p.tree, tree);
}

void TestPythonParser::syntaxErrors_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("message");
    QTest::newRow("dangling operator") << "a +" << "expected an expression at the end";
    QTest::newRow("two names") << "f(a b)" << "expected ')' before 'b'";
    QTest::newRow("keyword") << "a = class" << "unexpected token before '='";
    QTest::newRow("conditional without else") << "a if b" << "expected 'else'";
    QTest::newRow("empty subscript") << "a[]" << "empty subscript";
    QTest::newRow("attribute of nothing") << "a.(b)" << "expected an attribute name";
    QTest::newRow("lambda without colon") << "lambda x" << "expected ':'";
    QTest::newRow("lambda with a bare * only") << "lambda *: 0" << "named arguments must follow bare *";
    QTest::newRow("lambda with a bare * then **") << "lambda *, **k: 0" << "named arguments must follow bare *";
    QTest::newRow("walrus onto an attribute") << "(a.b := 1)" << "the target of ':=' must be a name";
    QTest::newRow("keyword as attribute") << "self.class" << "'class' is a keyword and cannot be an attribute name";
    QTest::newRow("constant as attribute") << "a.None" << "'None' is a keyword and cannot be an attribute name";
    QTest::newRow("keyword as argument name") << "f(class=1)" << "'class' is a keyword and cannot be an argument name";
    QTest::newRow("keyword as lambda parameter") << "lambda class: 1" << "expected a parameter name in a lambda";
    QTest::newRow("async as a name") << "async + 1" << "expected an expression";
    QTest::newRow("positional after keyword") << "f(a=1, b)" << "positional argument follows keyword argument";
    QTest::newRow("positional after **") << "f(**k, a)" << "positional argument follows keyword argument unpacking";
    QTest::newRow("* after **") << "f(**k, *a)" << "iterable argument unpacking follows keyword argument unpacking";
    QTest::newRow("generator and more") << "f(x for x in y, z)" << "a generator expression must be parenthesized";
    QTest::newRow("generator after one") << "f(z, x for x in y)" << "a generator expression must be parenthesized";
    QTest::newRow("generator, trailing comma") << "f(x for x in y,)" << "a generator expression must be parenthesized";
    QTest::newRow("bytes after str") << "'a' b'b'" << "cannot mix bytes and nonbytes literals";
    QTest::newRow("str after bytes") << "b'a' f'{b}'" << "cannot mix bytes and nonbytes literals";
    // Two expressions where a bracket should close: a missing comma, which Python refuses.
    QTest::newRow("missing comma in a call") << "f(input_params=('a', 'b')\n  output_params=('c',))"
                                             << "expected ')' before 'output_params' (perhaps a comma is missing)";
    QTest::newRow("missing comma in a tuple") << "('a' 'b', c d)" << "expected ')' before 'd' (perhaps a comma is missing)";
}

void TestPythonParser::syntaxErrors()
{
    QFETCH(QString, source);
    QFETCH(QString, message);
    const Parsed p = parse(source.toStdString());
    QVERIFY2(p.error.contains(message), qPrintable(p.error));
}

void TestPythonParser::nestingLimit()
{
    // Within the tokenizer's 200 brackets, the parser's own depth limit stops recursion.
    const std::string deep = std::string(190, '(') + "1" + std::string(190, ')');
    QVERIFY(parse(deep).error.contains("nested too deeply"));
    const std::string shallow = std::string(30, '(') + "1" + std::string(30, ')');
    QCOMPARE(parse(shallow).tree, QString("[(num 1)]"));
    // Unary operators recurse too.
    QVERIFY(parse(std::string(5000, '-') + "1").error.contains("nested too deeply"));
    QVERIFY(parse(std::string(5000, '~') + "1").error.contains("nested too deeply"));
    std::string nots;
    for (int i = 0; i < 3000; ++i)
        nots += "not ";
    QVERIFY(parse(nots + "a").error.contains("nested too deeply"));
    // Long flat chains are loops, not recursion.
    std::string chain = "a";
    for (int i = 0; i < 20000; ++i)
        chain += ".b";
    QVERIFY(parse(chain, false).error.isEmpty());
    std::string sum = "1";
    for (int i = 0; i < 20000; ++i)
        sum += " + 1";
    QVERIFY(parse(sum, false).error.isEmpty());
}

void TestPythonParser::validModules_data()
{
    QTest::addColumn<QByteArray>("source");
    const auto row = [](const char *source) { QTest::newRow(source) << QByteArray(source); };
    // Valid Python 3 that the importer does not need to understand is accepted.
    row("x = 1; y = 2;\nif x: a = 1; b = 2\n");
    row("try:\n    pass\nexcept* A:\n    pass\nexcept* B:\n    pass\ntry:\n    pass\nexcept C:\n    pass\n");
    row("*a, = b\na, *b = c\n(a, b), [c, *d] = e\na = b = *c,\nx[1:2, ::3] = y\nf().x = f()[0] = 1\n() = []\n");
    row("a: int\n(a): int = 1\na.b: 'T' = (lambda: 0)\nx += 1, 2\n(x) += 1\na[b] @= c\n");
    row("def o():\n    c = 1\n    def f():\n        nonlocal c\n        global a, b\n        del a, (b, c), [d], e[0], f.g\n"
        "        assert x, 'm'\n        raise\n        raise X from Y\n        return\n        return *a, b\n");
    // What CPython's compiler takes: return, yield and await where they belong.
    row("class A:\n    def f(self):\n        return 1\n    x = lambda: (yield)\n");
    row("def f():\n    def g():\n        yield 1\n    return g\nasync def h():\n    await x\n    [await y for y in z]\n"
        "    return [a async for a in b]\n");
    row("f(a=1, **{'a': 2})\nf(a=1, **k, b=2)\nx.m(a=1, b=2)\nlambda a, b, *c, d, **e: 0\n");
    row("(x async for x in y)\n(await x for x in y)\ndef f():\n    (await x for x in y)\n");
    row("for x in y:\n    try:\n        pass\n    finally:\n        break\nwhile x:\n    if y:\n        continue\n");
    row("x = 1\ndef f():\n    global x\n    x = 2\ndef g(a):\n    def h():\n        nonlocal a\n        a = 1\n");
    row("def f():\n    x: f(a=1, a=1)\nfrom m import *\nasync def g():\n    f\"{await x}\"\n");
    row("def f():\n    class A:\n        def g(self):\n            nonlocal y\n    y = 1\n");
    row("def f():\n    try:\n        pass\n    except E as x:\n        pass\n    else:\n        global x\n"
        "def g():\n    x = 1\n    class A:\n        global x\n        def h(self): nonlocal x\n");
    row("from __future__ import annotations\ndef f(a: f(b=1, b=1)): pass\n");
    row("from __future__ import annotations\nimport a.b as c, d\nfrom . import (a, b,)\nfrom ...a import *\nfrom .. import x\n");
    row("def f(a, /, b=1, *args: int, c, d=2, **kw) -> None: pass\ndef g(*, a): ...\ndef h(a=lambda x, y: x,): pass\n");
    row("def f(*args: *Ts): pass\nasync def g():\n    async with a as b, c: pass\n    async for x in y: pass\n"
        "    return [await z async for z in w]\n");
    row("@a.b(c)\n@x[0]\n@(lambda f: f)\nclass A(B, metaclass=M, **kw):\n    '''doc'''\n    x: int = 1\n"
        "    def f(self): return super().f()\n");
    row("class A[T]: pass\ndef f[T: int, *Ts, **P](x: T) -> T: pass\ntype X[T] = list[T]\ntype = 1\ntype(x)\n");
    row("match = 1\nmatch(x)\nmatch x, y:\n    case [1, *rest] if rest: pass\n    case {'k': v, **kw}: pass\n"
        "    case P(a, b=c) | Q() as q:\n        pass\n    case _:\n        pass\ncase = 2\n");
    row("if (n := 10) > 5: pass\nwhile chunk := f(): pass\n[y := 1, y ** 2]\nf(a := 1)\nx[a := 1]\nx = (a, b := 1)\n");
    // Every kind of case pattern (PEP 634), complex literals being real +/- imaginary.
    row("match x:\n    case -1 + 2j | 1.5 - 2J | 0 + 1j | -0.5e3 - 1_0j: pass\n    case 1 | -1 | 1j | -1j | 'a' 'b' | b'c' | None: pass\n"
        "    case {1 + 2j: a, -1: b, 'k': c, a.b.C: d, None: e, _.k: f, **rest}: pass\n    case {}: pass\n    case {'k': _,}: pass\n"
        "    case [] | () | [_] | (_,) | [*_] | [a, *b, c,] | (a, *b) | [*_, (c, d), [e, [f]]]: pass\n"
        "    case Point() | Point(1, y=2) | a.b.Point(x=0, y=0,) | P(Q(r), s=[t, u]) | P(1,): pass\n"
        "    case ((1 | 2) as n) | ((3) as n) if n > 0: pass\n    case a.b | _ as c: pass\n"
        "    case *first, last: pass\n    case a, (b, c), *_: pass\n    case 1 + 2j,: pass\n    case f'x' | match | case | type: pass\n");
    row("class A((x for x in y)): pass\nclass B([x for x in y], *(z for z in w), k=(v for v in u)): pass\n"
        "class C(f(x for x in y)): pass\n");
    row("with (open(f) as a,\n      open(g) as b,\n):\n    pass\nwith (a, b): pass\nwith a as (b, c), d as e.f: pass\n");
    row("try:\n    pass\nexcept (A, B) as e:\n    pass\nexcept C:\n    pass\nelse:\n    pass\nfinally:\n    pass\n"
        "try: pass\nexcept* E: pass\nfor x in *a, *b: pass\nelse: pass\nwhile 1: break\nelse: pass\n");
    row("x = f'{a!r:>{w}}' r'\\d' \"s\"\nx = rb'\\d' b\"s\"\nx = lambda: (yield)\ndef g(): x = yield from y\nprint >>f, x\nprint(*a, sep='')\n"
        "f(*b, **{'a': 1}, c=2)\nf(x for x in y)\nx = a if b else lambda: c\nx = not a in b is not c\n");
    // Starred expressions where CPython takes them.
    row("x = *a, b\n*a, = b\n[*a] = b\ndef g(): return *a, b\nfor x in *a, b: pass\nf(*a, *b)\na[*b] = c\nx: T = *a,\n"
        "with a as (*b, c): pass\nclass A(*a): pass\n");
    // Raw f-strings: a backslash escapes nothing, "\{{" is a backslash and a brace (pygments has them).
    row("x = rf'(\\{{%)'\nx = Rf\"\\\\{x}\"\nx = fr'\\}}'\nx = f'\\{{'\nx = f'\\N{EM DASH}'\nx = f'{x!r:>{w}}'\n");
    // F-string fields CPython 3.11 takes: conversions, '=', nested format specs, operators
    // that hold '!', '=', '<' or '>', yield in a function, lambdas and walruses in parentheses.
    row("x = f'{a!r:>{w}} {x=} {x = !r:^9} {a!=b} {a<=b} {d[\"k\"]:{w}.{p}f} {(lambda: 1)()} {a:=1} {(b := 2)}'\n"
        "def g():\n    return f'{yield}' f'{yield x}' f'{(yield)}'\n"
        "x = f'''{\n  a +\n  b\n}''' f'{\"a\" \"b\"!r}' f'{f\"{a}\"}' f'{x:{{}}}' f'{*a, b}' f'{a for a in b}' f'{ {1: 2}[1]}'\n");
    // Named characters: names, aliases, any case; computed names in upper case; bytes keep "\N".
    row("x = '\\N{EM DASH}\\N{em dash}\\N{BYTE ORDER MARK}\\N{CJK UNIFIED IDEOGRAPH-9FFF}\\N{HANGUL SYLLABLE HIH}'\n"
        "x = b'\\N{NOPE}' + rb'\\N{NOPE}' + r'\\N{NOPE}' + rf'\\N{x}' + '\\\\N{NOPE}'\n");
    // CPython's compile() (what `import` uses) never decodes a comment.
    // Names written otherwise than keywords are names (`ｉf`, `Ｎone`, `ｍatch`); comprehension
    // targets that can be assigned to; a line continuation the file does not end on.
    row("\xEF\xBD\x89" "f = 1\n\xEF\xBC\xAE" "one = \xEF\xBC\xAE" "one\n\xEF\xBD\x8D" "atch = 1\nx.\xEF\xBD\x89" "f = 2\n"
        "print(\xEF\xBD\x8C" "ambda)\n");
    row("x = [a for a.b[c], *d in e for (f, [g]) in h if i]\ny = {k: v for k, in a}\nz = (a for a, in b)\n"
        "w = [x for a in b in c]\n[x for *a, in c]\n");
    row("x = 1 \\\r\n");
    row("x = 1 \\\n\n");
    row("x = 1 \\\n   ");
    QTest::newRow("invalid utf-8 in comments") << QByteArray("# caf\xE9\nx = 1  # \xFF\n# -*- coding: utf-8 -*-\n");
    QTest::newRow("invalid utf-8 in comments after a utf-8 cookie")
        << QByteArray("\xEF\xBB\xBF# coding: utf-8\n# \xFF\nx = '\xC3\xA9'  # \xC3\n");
}

void TestPythonParser::validModules()
{
    QFETCH(QByteArray, source);
    const auto m = module(source.toStdString());
    QVERIFY2(m->ok(), qPrintable(QString("%1:%2: %3").arg(m->syntaxErrorLine()).arg(m->syntaxErrorColumn())
                                     .arg(QString::fromStdString(m->syntaxError()))));
}

void TestPythonParser::moduleSyntaxErrors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    const auto row = [](const char *name, const QByteArray &source, const char *message, int line, int column) {
        QTest::newRow(name) << source << QString::fromUtf8(message) << line << column;
    };
    // Indentation.
    row("unexpected indent", "a = [\n    1]\n    b = 2\n", "unexpected indent", 3, 5);
    row("indent after an inline body", "if a: b = 1\n    c = 2\n", "unexpected indent", 2, 5);
    row("no block", "class A:\nx = 1\n", "expected an indented block after 'class' statement on line 1", 2, 1);
    row("no block at the end", "def f():\n", "expected an indented block after 'def' statement on line 1", 1, 9);
    row("no async block", "async def f():\n\nx = 1\n", "expected an indented block after 'async def' statement on line 1", 3, 1);
    // A compound statement's header: ':' at its end, nothing else on the line but simple statements.
    row("class without ':'", "class A(B)\n    pass\n", "expected ':'", 1, 11);
    row("def without ':'", "def f(a, b=1)\n    pass\n", "expected ':'", 1, 14);
    row("if without ':'", "if a == 1\n    pass\n", "expected ':'", 1, 10);
    row("else without ':'", "if a:\n    pass\nelse\n    pass\n", "expected ':'", 3, 5);
    row("compound after ':'", "if a: for b in c: pass\n", "a compound statement ('for') must start its own line", 1, 7);
    row("compound after ';'", "a = 1; if a: pass\n", "a compound statement ('if') must start its own line", 1, 8);
    row("empty statement", "a = 1;;\n", "a statement is missing before ';'", 1, 7);
    row("header junk", "class A(B) x:\n    pass\n", "unexpected 'x'", 1, 12);
    row("except then except*", "try:\n    pass\nexcept A:\n    pass\nexcept* B:\n    pass\n",
        "cannot have both 'except' and 'except*' on the same 'try'", 5, 1);
    row("except* then except", "try:\n    pass\nexcept* A:\n    pass\nexcept B:\n    pass\n",
        "cannot have both 'except' and 'except*' on the same 'try'", 5, 1);
    row("python 2 except", "try:\n    pass\nexcept ValueError, e:\n    pass\n", "multiple exception types must be parenthesized", 3, 8);
    row("for without in", "for x y:\n    pass\n", "expected 'in'", 1, 5);
    row("bad parameter", "def f(a, 1): pass\n", "expected a parameter name", 1, 10);
    row("default before plain", "def f(a=1, b): pass\n", "non-default argument follows default argument", 1, 12);
    row("bare star", "def f(a, *): pass\n", "named arguments must follow bare *", 1, 11);
    row("async alone", "async x = 1\n", "'async' must be followed by def, for or with", 1, 7);
    // Clauses follow what they belong to; decorators precede a definition.
    row("stray else", "x = 1\nelse:\n    pass\n", "'else' does not follow", 2, 1);
    row("stray except", "if a:\n    pass\nexcept E:\n    pass\n", "'except' does not follow", 3, 1);
    row("try alone", "try:\n    pass\nx = 1\n", "expected 'except' or 'finally' block", 3, 1);
    row("try at the end", "try:\n    pass\n", "expected 'except' or 'finally' block", 2, 9);
    row("decorated assignment", "@dec\nx = 1\n", "a decorator must be followed by def or class", 2, 1);
    row("case outside", "match x:\n    y = 1\n", "a match statement's block holds only 'case' blocks", 2, 5);
    // Case patterns: in a complex literal '+' or '-' joins a real and an imaginary number
    // (CPython's messages and positions).
    row("real + real in a case", "match x:\n    case 1 + 1:\n        pass\n", "imaginary number required in complex literal", 2, 14);
    row("imaginary + real in a case", "match x:\n    case 1j + 1:\n        pass\n", "real number required in complex literal", 2, 10);
    row("real - real in a mapping key", "match x:\n    case {1 - 2: a}:\n        pass\n",
        "imaginary number required in complex literal", 2, 15);
    row("complex in a sequence", "match x:\n    case [0, 0x1 + 1]:\n        pass\n", "imaginary number required", 2, 20);
    row("complex in a class pattern", "match x:\n    case P(y=1j - 2j):\n        pass\n", "real number required", 2, 14);
    row("complex on a later case", "match x:\n    case 1 + 1j:\n        pass\n    case 2 + 2:\n        pass\n",
        "imaginary number required in complex literal", 4, 14);
    row("signed imaginary part", "match x:\n    case 1 + -2j:\n        pass\n", "expected an imaginary number", 2, 14);
    row("three terms", "match x:\n    case 1 + 2j + 3j:\n        pass\n", "unexpected '+'", 2, 17);
    row("name + imaginary", "match x:\n    case x + 1j:\n        pass\n", "unexpected '+'", 2, 12);
    row("parenthesized negation", "match x:\n    case -(1):\n        pass\n", "expected a number after '-'", 2, 11);
    // The rest of the pattern grammar.
    row("keyword then positional", "match x:\n    case P(x=1, 2):\n        pass\n", "positional patterns follow keyword patterns", 2, 17);
    row("as _", "match x:\n    case x as _:\n        pass\n", "cannot use '_' as a target", 2, 15);
    row("as a dotted name", "match x:\n    case x as a.b:\n        pass\n", "invalid pattern target", 2, 16);
    row("star alone", "match x:\n    case *a:\n        pass\n", "a star pattern must be in a sequence pattern", 2, 12);
    row("star in a group", "match x:\n    case (*a):\n        pass\n", "a star pattern must be in a sequence pattern", 2, 13);
    row("double star not last", "match x:\n    case {**rest, 'a': 1}:\n        pass\n", "'**rest' must be the last item", 2, 19);
    row("double star wildcard", "match x:\n    case {**_}:\n        pass\n", "expected a name after '**'", 2, 13);
    row("bare name as a key", "match x:\n    case {a: 1}:\n        pass\n", "a mapping pattern's key is a literal or a dotted name", 2, 12);
    row("wildcard as a class", "match x:\n    case _():\n        pass\n", "unexpected '('", 2, 11);
    row("call result attribute", "match x:\n    case a.b(c).d:\n        pass\n", "unexpected '.'", 2, 16);
    row("expression in a pattern", "match x:\n    case f(x) + 1:\n        pass\n", "unexpected '+'", 2, 15);
    row("mixed bytes in a pattern", "match x:\n    case 'a' b'b':\n        pass\n", "cannot mix bytes and nonbytes literals", 2, 18);
    // A class's bases are a call's arguments, less a lone generator expression.
    row("generator as bases", "class A(x for x in y): pass\n", "a generator expression cannot be a class's base", 1, 11);
    row("starred generator as bases", "class A(*a for a in b):\n    pass\n", "invalid syntax", 1, 12);
    // A generator among other arguments: CPython puts the error at its element.
    row("generator then an argument", "f(x for x in y, 1)\n", "a generator expression must be parenthesized", 1, 3);
    row("generator after an argument", "f(1, x for x in y)\n", "a generator expression must be parenthesized", 1, 6);
    row("generator, trailing comma on its line", "f(\n    x for x in y,\n)\n", "a generator expression must be parenthesized", 2, 5);
    row("generator base, trailing comma", "class A(\n    x for x in y,\n):\n    pass\n",
        "a generator expression must be parenthesized", 2, 5);
    row("parenthesized generator element", "f((x) for x in y, 1)\n", "a generator expression must be parenthesized", 1, 4);
    row("generator after a keyword argument", "f(k=1, x for x in y)\n", "a generator expression must be parenthesized", 1, 8);
    row("starred generator after an argument", "f(a, *b for b in c)\n", "a generator expression must be parenthesized", 1, 6);
    row("generator as a keyword value", "f(k=x for x in y)\n", "maybe you meant '==' or ':=' instead of '='", 1, 3);
    row("async generator as bases", "class A(x async for x in y): pass\n", "a generator expression cannot be a class's base", 1, 11);
    row("mixed bytes", "x = ('a'\n     b'b')\n", "cannot mix bytes and nonbytes literals", 2, 10);
    row("mixed bytes before a space", "x = (\"a\" b\"b\" )\n", "cannot mix bytes and nonbytes literals", 1, 15);
    // String literals CPython's parser refuses: reported where its parser stands after the
    // literals (bytes: at the literal), in order with the file's other syntax errors, after
    // the tokenizer's.
    row("invalid utf-8 in a string", "x = \"caf\xE9\"\n",
        "(unicode error) 'utf-8' codec can't decode byte 0xe9 in position 3: unexpected end of data", 1, 11);
    row("invalid utf-8 in a docstring", "def f():\n    \"\"\"\n    \xFF\"\"\"\n",
        "(unicode error) 'utf-8' codec can't decode byte 0xff in position 5: invalid start byte", 3, 9);
    row("invalid utf-8 then a syntax error", "x = \"\xFF\" 1 2\n", "(unicode error) 'utf-8' codec can't decode byte 0xff", 1, 9);
    row("a syntax error then invalid utf-8", "x = 1 2; y = \"\xFF\"\n", "unexpected '2'", 1, 7);
    row("invalid utf-8 then a tokenizer error", "x = \"\xFF\"\n)\n", "unmatched ')'", 2, 1);
    row("invalid utf-8 in a pattern", "match x:\n    case \"\xFF\":\n        pass\n", "(unicode error) 'utf-8' codec", 2, 13);
    row("invalid utf-8 deeper than the checker reads", "x = " + QByteArray(160, '(') + "'\xFF'" + QByteArray(160, ')') + "\n",
        "(unicode error) 'utf-8' codec can't decode byte 0xff", 1, 168);
    row("invalid utf-8 in an f-string field", "x = f\"{'\xFF'}\"\n", "f-string: (unicode error) 'utf-8' codec", 1, 5);
    row("non-ASCII in bytes", "x = b\"caf\xC3\xA9\"\n", "bytes can only contain ASCII literal characters", 1, 5);
    row("non-ASCII in bytes, second literal", "x = (\"a\"\n     b\"\xC3\xA9\")\n", "bytes can only contain ASCII literal characters", 2, 6);
    row("single brace in an f-string", "x = f\"a}\"\n", "f-string: single '}' is not allowed", 1, 10);
    row("f-string brace after a raw backslash", "x = rf\"\\{\"\n", "f-string: expecting '}'", 1, 11);
    // "\N{name}": a name Python's unicodedata does not know, where CPython reports it (after the
    // literals), in order with the file's other syntax errors.
    row("unknown character name", "x = \"\\N{EM DASH}\\N{NOPE}\"\n",
        "(unicode error) 'unicodeescape' codec can't decode bytes in position 11-18: unknown Unicode character name", 1, 26);
    row("unknown character name, then a syntax error", "x = '\\N{NOPE}'; y = 1 2\n", "unknown Unicode character name", 1, 15);
    row("a syntax error, then an unknown character name", "x = 1 2; y = '\\N{NOPE}'\n", "unexpected '2'", 1, 7);
    row("unknown character name in a second literal", "x = ('\\N{BULLET}'\n     '\\N{bullet x}')\n", "unknown Unicode character name", 2, 20);
    row("malformed named character", "x = u'\\N'\n", "malformed \\N character escape", 1, 10);
    row("unknown character name in an f-string", "x = f'{a}\\N{NOPE}'\n", "position 0-7: unknown Unicode character name", 1, 19);
    // A replacement field's expression (Python 3.11 parses it on its own): the error where it
    // is in the file, in order with the file's other syntax errors.
    row("f-string field: two names", "x = f'{a b}'\n", "f-string: invalid syntax: expected '}' before 'b'", 1, 10);
    row("f-string field: lambda", "x = f'{lambda: 1}'\n", "f-string: invalid syntax: expected a parameter name", 1, 14);
    row("f-string field: starred", "x = f'{*a}'\n", "f-string: cannot use starred expression here", 1, 8);
    row("f-string field: in a format spec", "x = f'{a:{b c}}'\n", "f-string: invalid syntax", 1, 13);
    row("f-string field: on a later line", "x = 1\ny = (1,\n  f'''\n{a b}''')\n", "f-string: invalid syntax", 4, 4);
    row("f-string field: after non-ASCII", "x = '\xC3\xA9' + f'{\xC3\xA9 b}'\n", "f-string: invalid syntax", 1, 16);
    row("f-string field: in a nested f-string", "x = f'{f\"{a b}\"}'\n", "f-string: invalid syntax", 1, 13);
    row("f-string field: in the second literal", "x = f'{a}' f'{b c}'\n", "f-string: invalid syntax", 1, 17);
    row("f-string field: a character", "x = f'{a$}'\n", "invalid character '$'", 1, 9);
    row("f-string field: before a later error", "x = f'{a b}'; y = 1 2\n", "f-string: invalid syntax", 1, 10);
    row("f-string field: after an earlier error", "x = 1 2; y = f'{a b}'\n", "unexpected '2'", 1, 7);
    row("f-string field: an earlier field's conversion", "x = f'{a!x}{b c}'\n", "f-string: invalid conversion character", 1, 18);
    row("f-string field: '#'", "x = f'{a #}'\n", "f-string expression part cannot include '#'", 1, 13);
    row("f-string field: nested too deeply", "x = f'{a:{b:{c}}}'\n", "f-string: expressions nested too deeply", 1, 19);
    row("f-string field: unmatched bracket", "x = f'{a)}'\n", "f-string: unmatched ')'", 1, 12);
    row("f-string field: bracket that does not match", "x = f'{a(}'\n", "f-string: closing parenthesis '}' does not match", 1, 12);
    // Starred expressions. The parser refuses one alone in parentheses, in a comprehension's
    // element and as a dict value...
    row("starred alone in parentheses", "x = (*a)\n", "cannot use starred expression here", 1, 6);
    row("starred in parentheses as an argument", "print((*a))\n", "cannot use starred expression here", 1, 8);
    row("delete starred in parentheses", "del (*a)\n", "cannot use starred expression here", 1, 6);
    row("starred in a subscript's parentheses", "a[(*b)]\n", "cannot use starred expression here", 1, 4);
    row("double starred in parentheses", "x = (**a)\n", "cannot use double starred expression here", 1, 6);
    row("augmented starred", "*a += 1\n", "'starred' is an illegal expression for augmented assignment", 1, 1);
    row("starred list element", "x = [*a for a in b]\n", "iterable unpacking cannot be used in comprehension", 1, 6);
    row("starred generator argument", "f(*a for a in b)\n", "iterable unpacking cannot be used in comprehension", 1, 3);
    row("starred set element", "x = {*a for a in b}\n", "iterable unpacking cannot be used in comprehension", 1, 6);
    row("double starred dict element", "x = {**a for a in b}\n", "dict unpacking cannot be used in dict comprehension", 1, 6);
    row("starred dict value", "x = {1: *a}\n", "cannot use a starred expression in a dictionary value", 1, 9);
    row("tuple as a comprehension element", "x = [a, b for b in c]\n", "did you forget parentheses around the comprehension target?", 1, 6);
    // ...and its compiler one outside a tuple, list, set or call arguments: reported when
    // the grammar found nothing in the whole file, as CPython compiles only what parsed.
    row("starred statement", "*a\n", "can't use starred expression here", 1, 1);
    row("starred value", "x = *a\n", "can't use starred expression here", 1, 5);
    row("starred value after targets", "x = y = *a\n", "can't use starred expression here", 1, 9);
    row("starred target", "*a = b\n", "starred assignment target must be in a list or tuple", 1, 1);
    row("starred return", "def f():\n    return *a\n", "can't use starred expression here", 2, 12);
    row("starred yield", "def f():\n    x = yield *a\n", "can't use starred expression here", 2, 15);
    row("starred annotated value", "x: int = *a\n", "can't use starred expression here", 1, 10);
    row("starred augmented value", "x += *a\n", "can't use starred expression here", 1, 6);
    row("starred for target", "for *a in b:\n    pass\n", "starred assignment target must be in a list or tuple", 1, 5);
    row("starred iterable", "for a in *b:\n    pass\n", "can't use starred expression here", 1, 10);
    row("starred with target", "with a as *b:\n    pass\n", "starred assignment target must be in a list or tuple", 1, 11);
    row("grammar before compiler", "x = *a\ny = 1 2\n", "unexpected '2'", 2, 7);
    // The rest of what CPython 3.11's compiler refuses (PythonCompileCheck.h), where it says.
    row("return outside function", "x = 1\nreturn x\n", "'return' outside function", 2, 1);
    row("return in a class", "class A:\n    return\n", "'return' outside function", 2, 5);
    row("yield outside function", "yield 1\n", "'yield' outside function", 1, 1);
    row("yield from outside function", "x = yield from y\n", "'yield' outside function", 1, 5);
    row("yield in a class", "class A:\n    x = (yield)\n", "'yield' outside function", 2, 10);
    row("yield in an f-string", "x = 1\nf\"ab{  yield  }\"\n", "'yield' outside function", 2, 8);
    row("yield in a format spec", "f\"{x:{(yield)}}\"\n", "'yield' outside function", 1, 8);
    row("yield in a nested f-string", "f\"{f'{(yield)}'}\"\n", "'yield' outside function", 1, 8);
    row("yield in a multi-line f-string", "f\"\"\"\n{\n yield}\"\"\"\n", "'yield' outside function", 3, 2);
    row("yield after non-ASCII", "x = \"\u00e9\u00e9\" ; f\"{yield}\"\n", "'yield' outside function", 1, 17);
    row("yield in a list comprehension", "def f():\n    return [(yield) for x in y]\n", "'yield' inside list comprehension", 2, 14);
    row("yield in a set comprehension", "{(yield) for x in y}\n", "'yield' inside set comprehension", 1, 3);
    row("yield in a dict comprehension", "{x: (yield) for x in y}\n", "'yield' inside dict comprehension", 1, 6);
    row("yield in a generator expression", "g = ((yield) for x in y)\n", "'yield' inside generator expression", 1, 7);
    row("yield in an f-string comprehension", "f\"{[ (yield) for x in y]}\"\n", "'yield' inside list comprehension", 1, 7);
    row("yield from in async def", "async def f():\n    yield from x\n", "'yield from' inside async function", 2, 5);
    row("return value in async generator", "async def f():\n    yield 1\n    return 2\n",
        "'return' with value in async generator", 3, 5);
    row("await outside function", "await x\n", "'await' outside function", 1, 1);
    row("await in a class", "class A:\n    await x\n", "'await' outside function", 2, 5);
    row("await outside async function", "def f():\n    await x\n", "'await' outside async function", 2, 5);
    row("await in a lambda", "async def f():\n    g = lambda: await x\n", "'await' outside async function", 2, 17);
    row("await in an f-string", "def f(): f\"{await x}\"\n", "'await' outside async function", 1, 13);
    row("async comprehension at module level", "x = [y async for y in z]\n",
        "asynchronous comprehension outside of an asynchronous function", 1, 5);
    row("await in a comprehension", "def f():\n    return {x: await x for x in y}\n",
        "asynchronous comprehension outside of an asynchronous function", 2, 12);
    row("async comprehension in a comprehension", "def f(): [[z async for z in y] for x in w]\n",
        "asynchronous comprehension outside of an asynchronous function", 1, 10);
    row("async comprehension as an iterable", "def f(): [x for x in [z async for z in y]]\n",
        "asynchronous comprehension outside of an asynchronous function", 1, 22);
    row("async for outside async function", "def f():\n    async for x in y:\n        pass\n",
        "'async for' outside async function", 2, 5);
    row("async with at module level", "async with x:\n    pass\n", "'async with' outside async function", 1, 1);
    row("repeated keyword", "f(a=1, b=2, a=3)\n", "keyword argument repeated: a", 1, 13);
    row("repeated keyword in a method call", "x.m((yield), a=1, a=1)\n", "keyword argument repeated: a", 1, 19);
    row("repeated keyword in class bases", "class A(metaclass=M, metaclass=N):\n    pass\n",
        "keyword argument repeated: metaclass", 1, 22);
    row("repeated keyword in an f-string", "f\"{f(a=1, a=2)}\"\n", "keyword argument repeated: a", 1, 11);
    row("duplicate parameter", "def f(a, b, a):\n    pass\n", "duplicate argument 'a' in function definition", 1, 13);
    row("duplicate star parameter", "def f(a, *, b, **b):\n    pass\n", "duplicate argument 'b' in function definition", 1, 18);
    row("duplicate lambda parameter", "g = lambda a, a: 0\n", "duplicate argument 'a' in function definition", 1, 15);
    row("duplicate parameter in a default", "def f(a, b=(lambda c, c: 0)):\n    pass\n",
        "duplicate argument 'c' in function definition", 1, 23);
    row("break outside loop", "break\n", "'break' outside loop", 1, 1);
    row("break in a loop's else", "for x in y:\n    pass\nelse:\n    break\n", "'break' outside loop", 4, 5);
    row("continue in a def in a loop", "while 1:\n    def f(): continue\n", "'continue' not properly in loop", 2, 14);
    row("nonlocal at module level", "nonlocal x\n", "nonlocal declaration not allowed at module level", 1, 1);
    row("nonlocal without binding", "def f():\n    nonlocal x\n    x = 1\n", "no binding for nonlocal 'x' found", 2, 5);
    row("nonlocal and global", "def f():\n    global x\n    nonlocal x\n", "name 'x' is nonlocal and global", 2, 5);
    row("global after assignment", "x = 1\nglobal x\n", "name 'x' is assigned to before global declaration", 2, 1);
    row("global after use", "def f():\n    print(x)\n    global x\n", "name 'x' is used prior to global declaration", 3, 5);
    row("global parameter", "def f(x):\n    global x\n", "name 'x' is parameter and global", 2, 5);
    row("nonlocal parameter", "def f(a):\n    nonlocal a\n", "name 'a' is parameter and nonlocal", 2, 5);
    row("annotated global", "def f():\n    global x\n    x: int\n", "annotated name 'x' can't be global", 3, 5);
    row("import star in a function", "def f():\n    from m import *\n", "import * only allowed at module level", 2, 19);
    row("starred target in an f-string comprehension", "f\"{[a for *a in b]}\"\n",
        "starred assignment target must be in a list or tuple", 1, 11);
    row("walrus in a class comprehension", "class A:\n    [(y := 1) for i in x]\n",
        "assignment expression within a comprehension cannot be used in a class body", 2, 7);
    row("walrus rebinding an iteration variable", "def f():\n    [(i := 1) for i in x]\n",
        "assignment expression cannot rebind comprehension iteration variable 'i'", 2, 7);
    row("walrus in a comprehension iterable", "x = [a for a in (y := [1])]\n",
        "assignment expression cannot be used in a comprehension iterable expression", 1, 18);
    row("inner loop rebinding a walrus target", "[i for i in y if (j := 0) for j in z]\n",
        "comprehension inner loop cannot rebind assignment expression target 'j'", 1, 31);
    row("yield in a future annotation", "from __future__ import annotations\ndef f(a: (yield)): pass\n",
        "'yield expression' can not be used within an annotation", 2, 11);
    row("await in a future annotation", "from __future__ import annotations\nx: (await y)\n",
        "'await expression' can not be used within an annotation", 2, 5);
    row("nonlocal at module level and global in a def", "def f():\n    global g\nnonlocal g\n",
        "name 'g' is nonlocal and global", 3, 1);
    row("async comprehension makes an async generator", "def f():\n    return [await x for x in y]\n    yield\n",
        "'return' with value in async generator", 2, 5);
    // What future.c refuses before all that, and the code generator after it.
    row("unknown future feature", "\"doc\"\nfrom __future__ import division, rested_snopes\n",
        "future feature rested_snopes is not defined", 2, 1);
    row("future braces", "from __future__ import braces\n", "not a chance", 1, 1);
    row("future import after an import on its line", "import x; from __future__ import division\n",
        "from __future__ imports must occur at the beginning of the file", 1, 10);
    row("future import in a def", "from __future__ import annotations\ndef f():\n    from __future__ import division\n",
        "from __future__ imports must occur at the beginning of the file", 3, 5);
    row("future feature before the symbol table", "from __future__ import braces\ndef f(a, a): pass\n", "not a chance", 1, 1);
    row("late future import after the symbol table", "def f(a, a): pass\nfrom __future__ import braces\n",
        "duplicate argument 'a' in function definition", 1, 10);
    // The compiler reads a try's else before its handlers, and a break the finally it leaves first.
    row("try else before handlers", "try: pass\nexcept E: return\nelse: f(a=1,a=1)\n", "keyword argument repeated: a", 3, 13);
    row("finally before break", "try: pass\nexcept E: break\nfinally: f(a=1,a=1)\n", "keyword argument repeated: a", 3, 16);
    // The symbol table's errors come before the code generator's, the parser's before both.
    row("symbol table first", "return\ndef f(a, a): pass\n", "duplicate argument 'a' in function definition", 2, 10);
    row("class body before bases", "class A(f(a=1, a=1)):\n    return\n", "'return' outside function", 2, 5);
    row("grammar before the symbol table", "def f(a, a): pass\nx = 1 2\n", "unexpected '2'", 2, 7);
    row("grammar before return", "return\nx = (\n", "was never closed", 2, 5);
    // Simple statements: one statement, targets that can be assigned, keywords never names.
    row("python 2 print", "x = 1\nprint \"hello\"\n", "Missing parentheses in call to 'print'. Did you mean print(...)?", 2, 1);
    row("two expressions", "x = 1 2\n", "unexpected '2'", 1, 7);
    row("keyword attribute", "class P:\n    def f(self):\n        self.class = None\n",
        "'class' is a keyword and cannot be an attribute name", 3, 14);
    row("keyword target", "None = 1\n", "cannot assign to None", 1, 1);
    row("call target", "f() = 1\n", "cannot assign to function call", 1, 1);
    row("literal in a tuple target", "a, 1 = x\n", "cannot assign to literal", 1, 4);
    row("for target", "for f() in x: pass\n", "cannot assign to function call", 1, 5);
    row("augmented tuple", "a, b += 1\n", "'tuple' is an illegal expression for augmented assignment", 1, 1);
    row("annotated tuple", "[a]: int\n", "only a single target (not a list) can be annotated", 1, 1);
    row("delete a call", "del f()\n", "cannot delete function call", 1, 5);
    row("delete starred", "del *a\n", "cannot delete starred", 1, 5);
    row("bare walrus", "a := 1\n", "':=') needs parentheses here", 1, 3);
    row("keyword value", "x = class\n", "expected an expression", 1, 5);
    row("pass with more", "pass x\n", "unexpected 'x'", 1, 6);
    row("import junk", "import a as b.c\n", "unexpected '.'", 1, 14);
    row("from without import", "from a b\n", "expected 'import'", 1, 8);
    row("unparenthesized trailing comma", "from a import b,\n", "trailing comma not allowed", 1, 17);
    row("global keyword", "global class\n", "expected a name after 'global'", 1, 8);
    // In a unit: a missing comma between arguments is an error, not a declaration of nothing.
    row("missing comma", "class U(PipelineUnit):\n    def __init__(self):\n        super().__init__(\n"
                         "            input_params=(\"height\", \"width\")\n            output_params=(\"noise\",),\n        )\n",
        "expected ')' before 'output_params' (perhaps a comma is missing)", 5, 13);
    // The first problem in the file is the one reported.
    row("first of two", "if a\n    pass\nx = 1 2\n", "expected ':'", 1, 5);
    // A comprehension's targets are checked as a for statement's, with CPython's messages and
    // positions: it reads what follows `for` as an expression list (running past `in`) and
    // names the first part that cannot be assigned to.
    row("comprehension literal target", "[i for 1 in a]\n", "cannot assign to literal", 1, 8);
    row("comprehension call target", "{k: v for f() in a}\n", "cannot assign to function call", 1, 11);
    row("generator target in a tuple", "(x for (a, 1) in b)\n", "cannot assign to literal", 1, 12);
    row("set comprehension target", "{x for x.y() in b}\n", "cannot assign to function call", 1, 8);
    row("second for's target", "[x for a in b if c for f() in d]\n", "cannot assign to function call", 1, 24);
    row("async comprehension target", "async def f():\n    [x async for 1 in c]\n", "cannot assign to literal", 2, 18);
    row("comprehension target None", "[x for None in c]\n", "cannot assign to None", 1, 8);
    row("comprehension operator target", "[x for (a, b + 1) in c]\n", "cannot assign to expression", 1, 12);
    row("comprehension conditional target", "[x for a if b else c in d]\n", "cannot assign to conditional expression", 1, 8);
    row("comprehension lambda target", "[x for lambda: 1 in c]\n", "cannot assign to lambda", 1, 8);
    row("comprehension f-string target", "[x for f'{a}' in c]\n", "cannot assign to f-string expression", 1, 8);
    row("comprehension generator target", "[x for (y for y in z) in c]\n", "cannot assign to generator expression", 1, 8);
    row("comprehension await target", "async def f():\n    [x for await a in c]\n", "cannot assign to await expression", 2, 12);
    row("comprehension walrus target", "[x for (a := 1) in c]\n", "cannot assign to named expression", 1, 9);
    row("comprehension target with in", "[x for (1 in b) in c]\n", "cannot assign to literal", 1, 9);
    row("comprehension target on the next line", "[x for a,\n 1 in c]\n", "cannot assign to literal", 2, 2);
    row("comprehension target, a later error", "[x for 1 in c]\n1 2\n", "cannot assign to literal", 1, 8);
    row("comprehension target, an earlier error", "1 2\n[x for 1 in c]\n", "unexpected '2'", 1, 3);
    row("comprehension target, broken iterable", "[x for 1 in c +]\n", "cannot assign to literal", 1, 8);
    row("comprehension target, then if", "[x for 1 in c if d]\n", "expected 'else' after 'if' expression", 1, 8);
    row("comprehension target before unpacking", "[*a for 1 in c]\n", "cannot assign to literal", 1, 9);
    row("comprehension comparison target", "[x for (a < b) in c]\n", "cannot assign to comparison", 1, 16);
    row("comprehension target starred alone", "[x for *a in c]\n", "starred assignment target must be in a list or tuple",
        1, 8);
    row("comprehension starred target in a call", "f(x for *a in c)\n", "starred assignment target must be in a list or tuple",
        1, 9);
    row("class base comprehension target", "class A(B, *[x for 1 in c]): pass\n", "cannot assign to literal", 1, 20);
    row("conditional without else", "x = a if b\n", "expected 'else' after 'if' expression", 1, 5);
    // A line continuation at the end of the file: CPython's column counts bytes (é is two)
    // unless the file declares its encoding, and a final "\r\n" is taken.
    row("continuation at the end", "x = 1 \\\n", "unexpected EOF while parsing", 1, 8);
    row("continuation without a newline", "x = 1 \\", "unexpected EOF while parsing", 1, 8);
    row("continuation, carriage return", "x = 1 \\\r", "unexpected EOF while parsing", 1, 8);
    row("continuation alone", "x = 1\n\\\n", "unexpected EOF while parsing", 2, 2);
    row("continuation in a block", "def f():\n    x = 1 \\\n", "unexpected EOF while parsing", 2, 12);
    row("continuation after non-ASCII", "\xC3\xA9 = 1 \\\n", "unexpected EOF while parsing", 1, 9);
    row("continuation after non-ASCII, declared", "# coding: utf-8\n\xC3\xA9 = 1 \\\n", "unexpected EOF while parsing", 2, 8);
    row("continuation after a string", "x = \"\"\"\na\"\"\" \\\n", "unexpected EOF while parsing", 2, 7);
    row("continuation in brackets", "x = (1,\\\n", "'(' was never closed", 1, 5);
    // Names are NFKC-normalized as CPython does, and one written otherwise than a keyword is a name.
    row("keyword written otherwise is a name", "\xEF\xBD\x8E" "ot = 1\nnot = 1\n", "invalid syntax", 2, 5);
}

void TestPythonParser::moduleSyntaxErrors()
{
    QFETCH(QByteArray, source);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);
    const auto m = module(source.toStdString());
    QVERIFY(!m->ok());
    QVERIFY2(QString::fromStdString(m->syntaxError()).contains(message), m->syntaxError().c_str());
    QCOMPARE(m->syntaxErrorLine(), line);
    QCOMPARE(m->syntaxErrorColumn(), column);
    // Nothing of a module that is not Python is read.
    QVERIFY(m->statements().empty());
    QVERIFY(m->classes().empty());
}

void TestPythonParser::fStringCorpus()
{
    // fstring_corpus.txt, written by fstring_differential.py: f-string snippets (valid and
    // invalid fields, and random edits of them) with what CPython 3.11's and 3.12's compile()
    // made of each. The importer takes a snippet exactly when 3.11 does, except where 3.11
    // refuses what 3.12 takes (a string in the same quotes in a field: either is right). What
    // only CPython's compiler refuses ('yield' outside a function) is refused too.
    QFile file(QStringLiteral(SPLITSCOPE_IMPORTER_FSTRING_CORPUS));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray data = file.readAll();
    int records = 0, valid = 0, either = 0, compiler = 0;
    QStringList wrong;
    qsizetype pos = 0;
    while (pos < data.size()) {
        const qsizetype newline = data.indexOf('\n', pos);
        QVERIFY(newline > pos);
        const QList<QByteArray> header = data.mid(pos, newline - pos).split(' ');
        QCOMPARE(header.size(), 3);
        bool numeric = false;
        const qsizetype length = header[2].toLongLong(&numeric);
        QVERIFY(numeric && newline + 1 + length < data.size());
        const QByteArray source = data.mid(newline + 1, length);
        pos = newline + 1 + length + 1;
        ++records;
        const QByteArray &v311 = header[0];
        const QByteArray &v312 = header[1];
        if (v311 == "error" && v312 != "error") {
            ++either;
            continue;
        }
        valid += v311 == "ok";
        compiler += v311 == "compiler";
        const auto m = module(source.toStdString());
        if (m->ok() != (v311 == "ok")) {
            wrong << QString("%1 (CPython 3.11: %2, the importer: %3:%4: %5)")
                         .arg(QString::fromUtf8(source).trimmed(), QString::fromLatin1(v311))
                         .arg(m->syntaxErrorLine())
                         .arg(m->syntaxErrorColumn())
                         .arg(m->ok() ? QString("accepted") : QString::fromStdString(m->syntaxError()));
        }
    }
    qInfo("%d snippets: %d valid, %d invalid (%d refused by the compiler), %d where either answer is right", records,
        valid, records - valid - either, compiler, either);
    QVERIFY(records >= 2000);
    QVERIFY2(wrong.isEmpty(), qPrintable(QString::number(wrong.size()) + " disagree:\n" + wrong.mid(0, 20).join('\n')));
}

void TestPythonParser::statements()
{
    const auto m = module("import os\n"
                          "class A(B):\n"
                          "    x = 1; y = 2\n"
                          "    def f(self): return 1\n"
                          "    if x:\n"
                          "        pass\n"
                          "    else: y = 3\n"
                          "@decorator\n"
                          "def g(): pass\n"
                          "  # odd comment\n"
                          "z = [1,\n"
                          "     2]\n");
    QVERIFY(m->ok());
    const auto &top = m->statements();
    QCOMPARE(top.size(), std::size_t(5));
    QCOMPARE(top[0].keyword(m->tokens()), std::string("import"));
    QCOMPARE(top[1].keyword(m->tokens()), std::string("class"));
    QCOMPARE(top[1].line, 2);
    const auto &body = top[1].body;
    QCOMPARE(body.size(), std::size_t(5)); // x = 1; y = 2 | def | if | else
    QCOMPARE(body[0].line, 3);
    QCOMPARE(body[1].line, 3);
    QCOMPARE(body[2].keyword(m->tokens()), std::string("def"));
    QCOMPARE(body[2].body.size(), std::size_t(1)); // inline `return 1`
    QCOMPARE(body[3].keyword(m->tokens()), std::string("if"));
    QCOMPARE(body[3].body.size(), std::size_t(1));
    QCOMPARE(body[4].keyword(m->tokens()), std::string("else"));
    QCOMPARE(body[4].body.size(), std::size_t(1));
    QCOMPARE(top[2].keyword(m->tokens()), std::string());    // @decorator
    QCOMPARE(top[3].keyword(m->tokens()), std::string("def"));
    QCOMPARE(top[4].line, 11);
    QCOMPARE(top[4].end, top[4].tokens.last); // a simple statement ends with its line

    // Python's "unexpected indent" is a syntax error (it used to give the line before a
    // block, so `self.units = [...]` followed by an over-indented line was not read).
    const auto odd = module("a = 1\n    b = 2\nc = 3\n");
    QVERIFY(!odd->ok());
    QCOMPARE(odd->syntaxError(), std::string("unexpected indent"));
    QCOMPARE(odd->syntaxErrorLine(), 2);
    QCOMPARE(odd->syntaxErrorColumn(), 5);
    QVERIFY(odd->statements().empty());
    const auto leading = module("    a = 1\nb = 2\n");
    QVERIFY(!leading->ok());
    QCOMPARE(leading->syntaxErrorLine(), 1);
    QCOMPARE(leading->syntaxErrorColumn(), 5);

    // A syntax error leaves an empty module that says where.
    const auto bad = module("x = (\n", "bad.py");
    QVERIFY(!bad->ok());
    QCOMPARE(bad->syntaxErrorLine(), 1);
    QCOMPARE(bad->syntaxErrorColumn(), 5);
    QVERIFY(bad->statements().empty());
    QCOMPARE(bad->stem(), std::string("bad"));
}

void TestPythonParser::classesFunctionsImports()
{
    const auto m = module("from ..a.b import C as D, E\n"
                          "from . import sibling\n"
                          "import x.y as z, w.v\n"
                          "try:\n"
                          "    from .opt import F\n"
                          "except ImportError:\n"
                          "    F = None\n"
                          "K = (1, 2)\n"
                          "K2 = K3 = 'k'\n"
                          "K4: int = 4\n"
                          "class Unit(base.PipelineUnit, metaclass=M):\n"
                          "    '''First line.\n"
                          "\n"
                          "        Indented detail.\n"
                          "    '''\n"
                          "    def __init__(self, a, b=(1, 2), *args, c, d=3, **kw): pass\n"
                          "    async def run(self, /, x): pass\n"
                          "    def __init__(self): pass\n"
                          "def model_fn(dit, latents=None, *, timestep=None, **kwargs):\n"
                          "    return dit\n",
        "pkg/unit_file.py");
    QVERIFY(m->ok());
    QCOMPARE(m->stem(), std::string("unit_file"));
    QCOMPARE(m->imports().at("D").module, std::string("..a.b"));
    QCOMPARE(m->imports().at("D").name, std::string("C"));
    QCOMPARE(m->imports().at("E").name, std::string("E"));
    QCOMPARE(m->imports().at("sibling").module, std::string("."));
    QCOMPARE(m->imports().at("z").module, std::string("x.y"));
    QCOMPARE(m->imports().at("w").module, std::string("w.v"));
    QCOMPARE(m->imports().at("F").module, std::string(".opt")); // inside try
    QCOMPARE(m->constants().at("K").line, 8);
    QCOMPARE(m->constants().at("K2").assignments, 1);
    QCOMPARE(m->constants().at("K3").assignments, 1);
    QVERIFY(m->constants().count("K4"));
    QVERIFY(!m->constants().count("F")); // constants count at the top level only

    const ClassDef *unit = m->findClass("Unit");
    QVERIFY(unit);
    QCOMPARE(unit->bases.size(), std::size_t(1));
    QCOMPARE(m->arena().dottedName(unit->bases[0]), std::string("base.PipelineUnit"));
    QCOMPARE(*unit->docstring, std::string("First line.\n\nIndented detail."));
    QCOMPARE(unit->methods.size(), std::size_t(3));
    const FunctionDef *init = unit->method("__init__");
    QVERIFY(init);
    QCOMPARE(init->line, 18); // the last definition wins
    const FunctionDef &first = unit->methods[0];
    QCOMPARE(first.parameters.size(), std::size_t(7));
    QCOMPARE(first.parameters[2].name, std::string("b"));
    QVERIFY(!first.parameters[2].defaultValue.empty());
    QCOMPARE(first.parameters[3].kind, Parameter::Kind::VarPositional);
    QCOMPARE(first.parameters[4].kind, Parameter::Kind::KeywordOnly);
    QCOMPARE(first.parameters[6].kind, Parameter::Kind::VarKeyword);
    QCOMPARE(unit->methods[1].name, std::string("run"));
    QCOMPARE(unit->methods[1].parameters.size(), std::size_t(2));

    const FunctionDef *fn = m->findFunction("model_fn");
    QVERIFY(fn);
    QStringList names;
    for (const Parameter &p : fn->parameters)
        names << QString::fromStdString(p.name);
    QCOMPARE(names, QStringList({"dit", "latents", "timestep", "kwargs"}));
    QCOMPARE(fn->parameters[2].kind, Parameter::Kind::KeywordOnly);
}

void TestPythonParser::assignments()
{
    const auto m = module("a = 1\n"
                          "a.b: T = f(x=1)\n"
                          "c = d = (1, 2)\n"
                          "e += [1]\n"
                          "f(x=1)\n"
                          "g: int\n"
                          "h = lambda x: x\n"
                          "(i := 3)\n");
    QVERIFY(m->ok());
    const auto &s = m->statements();
    const auto text = [&](TokenRange r) { return QString::fromStdString(m->describe(r)); };
    auto a = readAssignment(m->tokens(), s[0]);
    QVERIFY(a);
    QCOMPARE(text(a->targets[0]), QString("a"));
    QCOMPARE(text(a->value), QString("1"));
    a = readAssignment(m->tokens(), s[1]);
    QVERIFY(a);
    QCOMPARE(text(a->targets[0]), QString("a.b"));
    QCOMPARE(text(a->annotation), QString("T"));
    QCOMPARE(text(a->value), QString("f(x=1)"));
    a = readAssignment(m->tokens(), s[2]);
    QCOMPARE(a->targets.size(), std::size_t(2));
    QCOMPARE(text(a->value), QString("(1, 2)"));
    a = readAssignment(m->tokens(), s[3]);
    QCOMPARE(QString::fromStdString(a->augmented), QString("+="));
    QVERIFY(!readAssignment(m->tokens(), s[4]));
    a = readAssignment(m->tokens(), s[5]);
    QVERIFY(a->value.empty());
    a = readAssignment(m->tokens(), s[6]);
    QCOMPARE(text(a->targets[0]), QString("h"));
    QVERIFY(!readAssignment(m->tokens(), s[7]));
}

void TestPythonParser::values_data()
{
    QTest::addColumn<QString>("source"); // defines X (and whatever it needs)
    QTest::addColumn<QString>("expected");
    const auto row = [](const char *name, const char *source, const char *expected) {
        QTest::newRow(name) << QString(source) << QString(expected);
    };
    row("tuple", "X = ('a', \"b\")", "tuple[a,b]");
    row("paren string", "X = ('a')", "str(a)");
    row("list of mixed", "X = ['a', None, True, 2]", "list[a,None,True,2]");
    row("dict", "X = {'k': 'v', 'k': 'w', 'j': 'x'}", "dict{k:w,j:x}");
    row("dict()", "X = dict(a='b', c='d')", "dict{a:b,c:d}");
    row("dict spread", "A = {'a': '1'}\nX = {**A, 'b': '2'}", "dict{a:1,b:2}");
    row("constant", "A = ('a',)\nX = A", "tuple[a]");
    row("concatenation", "A = ('a',)\nX = A + ('b',) + A", "tuple[a,b,a]");
    row("string concatenation", "X = 'a' + 'b'", "str(ab)");
    row("tuple of str", "X = tuple('ab')", "tuple[a,b]");
    row("list of tuple", "X = list(('a',))", "list[a]");
    row("starred", "A = ('a', 'b')\nX = (*A, 'c')", "tuple[a,b,c]");
    row("subscript", "A = {'k': ('v',)}\nX = A['k']", "tuple[v]");
    row("index", "A = ('a', 'b')\nX = A[1]", "str(b)");
    row("conditional known", "X = 'a' if 0 else 'b'", "str(b)");
    row("not", "X = not ()", "True");
    row("mixed plus", "X = ('a',) + ['b']", "?a tuple + a list (Python raises TypeError)");
    row("call", "X = f()", "?the call f()");
    row("fstring", "X = f'{a}'", "?an f-string (its text is built at run time)");
    row("bytes", "X = b'a'", "?a bytes literal, not a str");
    row("unknown name", "X = Y", "?the name 'Y', which is not a constant this reader can see");
    row("reassigned", "A = 1\nA = 2\nX = A", "?the name 'A', assigned more than once at module level");
    row("cycle", "A = B\nB = A\nX = A", "?the name 'A', whose value refers to itself");
    row("attribute", "X = self.x", "?an attribute");
    row("comprehension", "X = [a for a in b]", "?a comprehension (built in a loop)");
    row("slice", "A = ('a',)\nX = A[0:1]", "?a slice");
    row("missing key", "A = {'k': 'v'}\nX = A['j']", "?the key 'j', which the dict does not have");
}

void TestPythonParser::values()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    ModuleSet set;
    set.add(module(source.toStdString()));
    const PythonModule &inSet = *set.modules().front();
    QVERIFY(inSet.ok());
    ValueEvaluator evaluator(set);
    const Value v = evaluator.evaluate(inSet, inSet.constants().at("X").value);
    // tuple[a,b] / list[...] / dict{k:v} / str(x) / None / True / 2 / ?why
    std::function<QString(const Value &)> show = [&](const Value &x) -> QString {
        switch (x.kind) {
        case Value::Kind::None: return "None";
        case Value::Kind::Bool: return x.boolean ? "True" : "False";
        case Value::Kind::Number: return QString::fromStdString(x.text);
        case Value::Kind::String: return "str(" + QString::fromStdString(x.text) + ")";
        case Value::Kind::Sequence: {
            QStringList items;
            for (const Value &i : x.items)
                items << (i.kind == Value::Kind::String ? QString::fromStdString(i.text) : show(i));
            return QString(x.tuple ? "tuple" : "list") + "[" + items.join(',') + "]";
        }
        case Value::Kind::Dict: {
            QStringList items;
            for (const auto &[k, i] : x.entries)
                items << QString::fromStdString(k) + ":" + (i.kind == Value::Kind::String ? QString::fromStdString(i.text) : show(i));
            return "dict{" + items.join(',') + "}";
        }
        case Value::Kind::Unresolved: return "?" + QString::fromStdString(x.text);
        }
        return QString();
    };
    QCOMPARE(show(v), expected);
    QVERIFY(v.module != nullptr);
    QVERIFY(v.line > 0);
}

void TestPythonParser::valueLimits()
{
    // Doubling constants: memoized, so evaluation is linear, and size-capped.
    std::string source = "A0 = ('x',)\n";
    for (int i = 1; i <= 30; ++i)
        source += "A" + std::to_string(i) + " = A" + std::to_string(i - 1) + " + A" + std::to_string(i - 1) + "\n";
    ModuleSet set;
    set.add(module(source));
    const PythonModule &m = *set.modules().front();
    ValueEvaluator evaluator(set);
    const Value big = evaluator.evaluate(m, m.constants().at("A30").value);
    QVERIFY(big.isUnresolved());
    QVERIFY(QString::fromStdString(big.text).contains("too long"));
    const Value fine = evaluator.evaluate(m, m.constants().at("A10").value);
    QCOMPARE(fine.items.size(), std::size_t(1024));

    // A long chain of names ends at the depth limit, not in a stack overflow.
    std::string chain = "B0 = 'b'\n";
    for (int i = 1; i <= 5000; ++i)
        chain += "B" + std::to_string(i) + " = B" + std::to_string(i - 1) + "\n";
    ModuleSet chainSet;
    chainSet.add(module(chain));
    const PythonModule &c = *chainSet.modules().front();
    ValueEvaluator chainEvaluator(chainSet);
    const Value deep = chainEvaluator.evaluate(c, c.constants().at("B5000").value);
    QVERIFY(deep.isUnresolved());
    QVERIFY(QString::fromStdString(deep.text).contains("nested too deeply"));
    const Value shallow = chainEvaluator.evaluate(c, c.constants().at("B20").value);
    QCOMPARE(shallow.text, std::string("b"));
}

QTEST_GUILESS_MAIN(TestPythonParser)
#include "tst_pythonparser.moc"
