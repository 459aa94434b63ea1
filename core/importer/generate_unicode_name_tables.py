# SPDX-License-Identifier: MIT
"""Writes PythonUnicodeNameTables.h: the character names Python's "\\N{name}" escape knows,
from this Python's own unicodedata, so that the importer takes exactly the names it takes.

    python3 core/importer/generate_unicode_name_tables.py NAME_ALIASES > core/importer/PythonUnicodeNameTables.h

NAME_ALIASES is the Unicode Character Database's NameAliases.txt for this Python's Unicode
version, or Perl's unicore/Name.pl of the same version (/usr/share/perl/5.36.0/unicore/Name.pl
is Unicode 14.0, Python 3.11's), whose aliases are the same; an alias is kept only when this
Python's "\\N{alias}" gives its character (unicodedata has no list of them). The build never
runs this script: the output is committed.

What "\\N{name}" accepts (CPython's unicodedata lookup without named sequences):
  - the name of a character (unicodedata.name), in any case;
  - a name alias (NameAliases.txt), in any case;
  - "CJK UNIFIED IDEOGRAPH-" and four or five upper-case hex digits of a unified ideograph,
    and "HANGUL SYLLABLE " and the syllable's jamo short names, in upper case only. These two
    are computed (PythonUnicodeNames.cpp): kCjkUnified gives the ideographs' ranges.

The header holds the other names whole (34,527 for Unicode 14.0), compactly:
  kNameWords   the words of the names, most used first: pieces of words separated by spaces.
               A name is its words joined by spaces, or by nothing before a word that starts
               with '-' ("TIBETAN LETTER -A" is TIBETAN, LETTER, an empty word and -A).
  kNameData    the names in code point order, in pieces of whole names (a string literal
               stays under the 65,536 characters C++ compilers must take), in printable
               ASCII symbols (kSymbols, values
               0-90). Each name is one header symbol: 4 * (words it shares with the name
               before it) + 2 * (it ends in '-' and its own code point in hex, as
               "CJK COMPATIBILITY IDEOGRAPH-F900", not written out) + 1 * (its code point
               is not the previous one + 1: three symbols follow, base 91, the code points
               skipped); then its other words, one, two or three symbols each (kOneSymbolWords,
               kTwoSymbolLeads), then symbol 0.
  kNameAliases "HEX NAME" lines.
and, for tests, the count of every name and a digest of them all (kAllNamesDigest: 64-bit
FNV-1a of "%04X name\\n" for each code point with a name, in order) to check the names
the importer computes against this Python's.
"""

import re
import sys
import unicodedata

SYMBOLS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"\\?')
BASE = len(SYMBOLS)  # 91
MAX_SHARED = (BASE - 1) // 4  # 22: header values 0..90
PIECE = 60000
CJK = "CJK UNIFIED IDEOGRAPH-"
HANGUL = "HANGUL SYLLABLE "


def all_names():
    out = []
    for cp in range(0x110000):
        name = unicodedata.name(chr(cp), None)
        if name is not None:
            out.append((cp, name))
    return out


def split_words(name):
    """The words of `name`: split at spaces, a word after a hyphen keeping it ("-A")."""
    words = []
    for part in name.split(" "):
        pieces = part.split("-")
        words.append(pieces[0])
        words.extend("-" + p for p in pieces[1:])
    return words


def join_words(words):
    out = ""
    for i, w in enumerate(words):
        out += w if i == 0 or w.startswith("-") else " " + w
    return out


def own_hex(cp):
    return "-%04X" % cp


def read_aliases(path):
    text = open(path, encoding="utf-8").read()
    pairs = []
    if "<<'END';" in text:  # Perl's Name.pl: "HEX\nNAME\n\n" entries, names and aliases
        body = text.split("<<'END';\n", 1)[1].split("\nEND\n", 1)[0]
        for entry in body.strip().split("\n\n"):
            code, name = entry.split("\n")
            if " " not in code:  # several code points: a named sequence
                pairs.append((int(code, 16), name))
    else:  # NameAliases.txt: "HEX;ALIAS;TYPE"
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                code, name, _ = line.split(";")
                pairs.append((int(code, 16), name))
    aliases = []
    for cp, name in pairs:
        if unicodedata.name(chr(cp), None) == name:
            continue
        try:
            ok = eval('"\\N{' + name + '}"') == chr(cp)
        except SyntaxError:
            ok = False
        if ok:
            aliases.append((cp, name))
    return sorted(set(aliases))


def ranges(cps):
    out = []
    for cp in cps:
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def encode(names):
    """kNameWords and kNameData (pieces of at most PIECE characters) and the word code split."""
    counts = {}
    entries = []
    previous = []
    for cp, name in names:
        hexed = name.endswith(own_hex(cp)) and len(name) > len(own_hex(cp))
        words = split_words(name[: -len(own_hex(cp))] if hexed else name)
        assert join_words(words) + (own_hex(cp) if hexed else "") == name
        shared = 0
        while shared < min(len(words), len(previous), MAX_SHARED) and words[shared] == previous[shared]:
            shared += 1
        entries.append((cp, shared, hexed, words[shared:]))
        for w in words[shared:]:
            counts[w] = counts.get(w, 0) + 1
        previous = words
    order = sorted(counts, key=lambda w: (-counts[w], w))
    assert all(" " not in w for w in order)
    # Symbol 0 ends a name; 1..one are one-symbol words; the next `two` symbols lead two-symbol
    # words, the rest three-symbol ones: the split that makes the data shortest.
    best = None
    for one in range(0, BASE - 1):
        for two in range(1, BASE - 1 - one):
            three = BASE - 1 - one - two
            if one + two * BASE + three * BASE * BASE < len(order):
                continue
            size = sum(counts[w] * (1 if i < one else 2 if i < one + two * BASE else 3) for i, w in enumerate(order))
            if best is None or size < best[0]:
                best = (size, one, two)
    _, one, two = best
    index = {w: i for i, w in enumerate(order)}
    data = []
    last = -1
    for cp, shared, hexed, words in entries:
        skipped = cp - last - 1
        data.append("")
        data[-1] += SYMBOLS[4 * shared + 2 * hexed + (skipped > 0)]
        if skipped > 0:
            assert skipped < BASE ** 3
            data[-1] += SYMBOLS[skipped // (BASE * BASE)] + SYMBOLS[skipped // BASE % BASE] + SYMBOLS[skipped % BASE]
        for w in words:
            i = index[w]
            if i < one:
                data[-1] += SYMBOLS[1 + i]
            elif i < one + two * BASE:
                i -= one
                data[-1] += SYMBOLS[1 + one + i // BASE] + SYMBOLS[i % BASE]
            else:
                i -= one + two * BASE
                data[-1] += SYMBOLS[1 + one + two + i // (BASE * BASE)] + SYMBOLS[i // BASE % BASE] + SYMBOLS[i % BASE]
        data[-1] += SYMBOLS[0]
        last = cp
    return pieces(order, " "), pieces(data, ""), one, two


def pieces(items, separator):
    """`items` joined by `separator` into pieces of at most PIECE characters, items whole."""
    out = [[]]
    size = 0
    for item in items:
        if out[-1] and size + len(separator) + len(item) > PIECE:
            out.append([])
            size = 0
        size += len(item) + (len(separator) if out[-1] else 0)
        out[-1].append(item)
    return [separator.join(piece) for piece in out]


def literal(text, indent="        ", width=106):
    """`text` (no '"', '\\' or '?') as adjacent C++ string literals, one per line."""
    lines = []
    for start in range(0, len(text), width):
        lines.append(indent + '"' + text[start:start + width] + '"')
    return "\n".join(lines) if lines else indent + '""'


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: generate_unicode_name_tables.py NAME_ALIASES > PythonUnicodeNameTables.h")
    names = all_names()
    table = [(cp, n) for cp, n in names if not n.startswith(CJK) and not n.startswith(HANGUL)]
    cjk = ranges([cp for cp, n in names if n.startswith(CJK)])
    assert all(n == CJK + "%04X" % cp for cp, n in names if n.startswith(CJK))
    aliases = read_aliases(sys.argv[1])
    words, data, one, two = encode(table)
    digest = fnv1a("".join("%04X %s\n" % (cp, n) for cp, n in names).encode("ascii"))
    version = "%d.%d.%d" % sys.version_info[:3]
    out = []
    out.append("// SPDX-License-Identifier: MIT")
    out.append("// Generated by generate_unicode_name_tables.py from Python %s's unicodedata," % version)
    out.append("// Unicode %s, and its name aliases. Do not edit: run the script again instead." % unicodedata.unidata_version)
    out.append("#pragma once")
    out.append("")
    out.append("#include <cstddef>")
    out.append("")
    out.append("namespace splitscope::importer::unicode_name_tables {")
    out.append("")
    out.append("// The Unicode version of these tables (CPython %s's)." % version)
    out.append('inline constexpr char kUnicodeVersion[] = "%s";' % unicodedata.unidata_version)
    out.append("")
    out.append("// The symbols of kNameData, values 0 to %d." % (BASE - 1))
    out.append('inline constexpr char kSymbols[] = "%s";' % SYMBOLS)
    out.append("inline constexpr int kOneSymbolWords = %d; // symbols 1..%d: the first words" % (one, one))
    out.append("inline constexpr int kTwoSymbolLeads = %d; // the next symbols start two-symbol words, the rest three" % two)
    out.append("inline constexpr std::size_t kTableNameCount = %d;" % len(table))
    out.append("")
    out.append("// Every name unicodedata.name gives (the computed ones too), and a digest of them all.")
    out.append("inline constexpr std::size_t kAllNamesCount = %d;" % len(names))
    out.append("inline constexpr unsigned long long kAllNamesDigest = 0x%016XULL;" % digest)
    out.append("")
    out.append("struct CodePointRange {")
    out.append("    char32_t first;")
    out.append("    char32_t last; // inclusive")
    out.append("};")
    out.append("")
    out.append("// The CJK unified ideographs (\"CJK UNIFIED IDEOGRAPH-4E00\").")
    out.append("inline constexpr CodePointRange kCjkUnified[] = {")
    out.append("    " + ", ".join("{0x%X, 0x%X}" % (a, b) for a, b in cjk) + ",")
    out.append("};")
    out.append("")
    out.append("// Name aliases (NameAliases.txt): \"HEX NAME\" lines.")
    out.append("inline constexpr char kNameAliases[] =")
    alias_lines = ["%04X %s\\n" % (cp, n) for cp, n in aliases]
    for i in range(0, len(alias_lines), 3):
        out.append('    "' + "".join(alias_lines[i:i + 3]) + '"')
    out[-1] += ";"
    out.append("")
    out.append("// The words of the names, most used first, in pieces.")
    out.append("inline constexpr const char *kNameWords[] = {")
    for piece in words:
        out.append(literal(piece) + ",")
    out.append("};")
    out.append("")
    out.append("// The names, in code point order, in pieces.")
    out.append("inline constexpr const char *kNameData[] = {")
    for piece in data:
        out.append(literal(piece) + ",")
    out.append("};")
    out.append("")
    out.append("} // namespace splitscope::importer::unicode_name_tables")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
