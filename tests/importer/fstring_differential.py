#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes fstring_corpus.txt: f-string snippets with what CPython 3.11 (and 3.12) make of them.

tst_pythonparser's fStringCorpus test reads the corpus and checks that the importer accepts a
snippet exactly when CPython 3.11's compile() does. The snippets come from a fixed seed:
replacement fields built from valid and invalid expressions, conversions, '=', format specs
nested up to three deep, every prefix and quote, adjacent literals, multi-line fields; then
random one-character edits of them (delete, insert, swap) for the corners no list names.

Each record is a line "V311 V312 LENGTH", LENGTH bytes of source, and a newline. V is "ok",
"error" (a syntax error from the parser) or "compiler" (parsed, but compile() refuses it:
'yield' outside a function and the like, which the importer refuses too). Where 3.11
refuses what 3.12 takes (a string in the same quotes inside a field), the importer may do
either, as its README says.

Run with Python 3.11 from the repository root (the 3.12 verdicts need a python3.12):
    python3.11 tests/importer/fstring_differential.py [--python312 PATH] [--count N] > tests/importer/fstring_corpus.txt
"""

import argparse
import ast
import random
import subprocess
import sys
import warnings

SEED = 3110

# Expressions a field may hold; Q is a quote other than the f-string's own.
VALID = [
    "a", "a.b", "a[0]", "a[1:2]", "a[::2]", "a[b:c, d]", "f(x)", "f(x, y=1)", "f(*a, **k)", "1", "1.5",
    "0x1F", "1e3", "2j", "1_000", "QsQ", "QaQ QbQ", "(a, b)", "[a, b]", "{a, b}", "{a: b}", "{**a}",
    "(lambda x: x)", "[i for i in a]", "(i for i in a)", "a if b else c", "not a", "-a",
    "a + b", "a != b", "a == b", "a <= b", "a >= b", "a < b", "a > b", "a and b or c", "(a := 1)", "*a,",
    "a, b", "a,", "...", "None", "a @ b", "a ** -b", "~a", "a.b(c).d[e]", "fQ{a}Q", "fQ{a!r:>{w}}Q",
    "a[Q}Q]", "Q{Q", "bQxQ", "a is not b", "a not in b", "*a, *b", "f(a)(b)", "a[...]",
    "(yield)", "{a}", "[a][0]", "a.b.c", " a ", "\ta", "a\x0c",
]
INVALID = [
    "a b", "1 +", "def", "lambda: 1", "lambda x: x", "*a", "**a", "a if b", "a.", "a)", "(a", "a]",
    "a #", "$", "a?", "a;b", "a,,b", ",", "return", "import a", "a = 1", "not", "0777", "1_", "a b c",
    "f(a for a in b, c)", "[*a for a in b]", "a not b", "(*a)", "QaQ bQbQ", "print a", "a.class",
    "async", "a[", "{a", "(a]", "[a)", "a!b", "a !x", "1a", "if", "a:=", "a = = b", "a +* b", "f(**a, *b)",
    "f(a=1, b)", "a.1", "\x0b", "Q", "rQ\\dQ", "fQ{a b}Q", "fQ{}Q", "fQ{a!x}Q", "bQéQ", "a€", "-", "()()",
]
# In a function, or an async function: what compile() allows only there.
IN_FUNCTION = ["yield", "yield a", "yield from a", "(yield a)"]
IN_ASYNC = ["await a", "await f(x)", "[await a for a in b]"]

# Field forms CPython 3.11 takes around valid expressions, and ones it refuses.
GOOD_FORMS = [
    "{E}", "{E}", "{E}", "{E=}", "{E = }", "{E=!r}", "{E=:>5}", "{E!r}", "{E!s}", "{E!a}", "{E:>10}",
    "{E:{E2}}", "{E:{E2}.{E3}f}", "{E!r:^{E2}}", "{E:}", "{E::}", "{E:{{}}}", "{E:=1}", "{\nE\n}",
    "{E:{E2!r}}", "{E:{E2=}}", "{ E }",
]
BAD_FORMS = [
    "{E!x}", "{E!}", "{E! r}", "{E!r }", "{E!rr}", "{E:{E2:{E3}}}", "{E!r=}", "{E=x}", "{E:{E2 E3}}",
    "{E:{E2!}}", "{}", "{E}}", "{E", "{!r}", "{E:{}}",
]
TEXT = ["", "", "abc ", "{{", "}}", " x=", "\\n", "%d", ":", "!", "#", "é", "\\N{BULLET}", "\\x41", " "]
PREFIXES = ["f", "f", "f", "F", "rf", "fR", "Rf"]
QUOTES = ['"', "'", '"""', "'''"]


def other_quote(quote):
    return "'" if quote[0] == '"' else '"'


def field(rng, quote, good):
    """A replacement field; `good`: one CPython 3.11 takes, else one that has one defect."""
    defect = None if good else rng.choice(["form", "E", "E2"])
    form = rng.choice(BAD_FORMS if defect == "form" else GOOD_FORMS)
    if "\n" in form and len(quote) == 1:
        form = form.replace("\n", " ")
    q = other_quote(quote)
    out = form
    for key in ("E3", "E2", "E"):
        e = rng.choice(INVALID if defect == key else VALID)
        out = out.replace(key, e.replace("Q", q))
    # "{{" is a literal brace: an expression that starts with '{' needs a space before it.
    return out if "{{}}" in form else out.replace("{{", "{ {")


def fstring(rng, good, pool=None):
    """An f-string whose fields CPython 3.11 takes (`good`), or with one field it refuses;
    `pool`: the expressions of a function's fields."""
    prefix = rng.choice(PREFIXES)
    quote = rng.choice(QUOTES)
    body = []
    count = rng.randint(1, 2)
    bad = -1 if good else rng.randrange(count)
    for i in range(count):
        body.append(rng.choice(TEXT))
        if pool:
            body.append("{" + rng.choice(pool) + "}")
        else:
            body.append(field(rng, quote, i != bad))
    body.append(rng.choice(TEXT))
    text = "".join(body)
    if len(quote) == 3 and rng.random() < 0.2:
        text = text.replace(" ", "\n", 1)
    if text.endswith(quote[0]) or text.endswith("\\"):
        text += " "
    return prefix + quote + text + quote


def statement(rng):
    kind = rng.random()
    if kind < 0.04:
        return "def g():\n    return " + fstring(rng, True, IN_FUNCTION) + "\n"
    if kind < 0.07:
        return "async def g():\n    return " + fstring(rng, True, IN_ASYNC) + "\n"
    s = fstring(rng, rng.random() < 0.6)
    form = rng.random()
    if form < 0.7:
        return "x = " + s + "\n"
    if form < 0.8:
        return "print(" + s + ", " + fstring(rng, True) + ")\n"
    if form < 0.9:
        return "x = (" + s + "\n     " + fstring(rng, True) + ")\n"
    return "if a:\n    y = [" + s + "]\n"


def mutate(rng, source):
    chars = "{}()[]!:=#'\" ,\\\nabrs1."
    i = rng.randrange(len(source))
    edit = rng.random()
    if edit < 0.4:
        return source[:i] + source[i + 1:]
    if edit < 0.8:
        return source[:i] + rng.choice(chars) + source[i:]
    j = min(len(source) - 1, i + 1)
    return source[:i] + source[j] + source[i] + source[j + 1:]


def generate(count):
    rng = random.Random(SEED)
    seen = set()
    out = []
    base = []
    while len(base) < count // 2:
        s = statement(rng)
        if s not in seen:
            seen.add(s)
            base.append(s)
    out.extend(base)
    while len(out) < count:
        s = mutate(rng, rng.choice(base))
        # A backslash that joins the last line to the end of the file: not an f-string's matter.
        if s not in seen and not s.endswith("\\\n"):
            seen.add(s)
            out.append(s)
    return [s.encode("utf-8") for s in out]


# Run by each interpreter on the length-prefixed snippets on standard input.
VERDICT = r"""
import ast, sys, warnings
warnings.simplefilter("ignore")
data = sys.stdin.buffer.read()
pos = 0
while pos < len(data):
    nl = data.index(b"\n", pos)
    n = int(data[pos:nl])
    src = data[nl + 1:nl + 1 + n]
    pos = nl + 1 + n
    try:
        ast.parse(src)
    except (SyntaxError, ValueError):
        print("error")
        continue
    try:
        compile(src, "x.py", "exec", dont_inherit=True)
        print("ok")
    except (SyntaxError, ValueError):
        print("compiler")
"""


def verdicts(python, snippets):
    stream = b"".join(str(len(s)).encode() + b"\n" + s for s in snippets)
    out = subprocess.run([python, "-c", VERDICT], input=stream, capture_output=True, check=True).stdout
    result = out.decode().split()
    assert len(result) == len(snippets)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python312", default="python3.12")
    parser.add_argument("--count", type=int, default=2400)
    args = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        sys.exit("run this with Python 3.11: the corpus records what its compile() does")
    snippets = generate(args.count)
    v311 = verdicts(sys.executable, snippets)
    v312 = verdicts(args.python312, snippets)
    out = sys.stdout.buffer
    for s, a, b in zip(snippets, v311, v312):
        out.write(f"{a} {b} {len(s)}\n".encode() + s + b"\n")


if __name__ == "__main__":
    main()
