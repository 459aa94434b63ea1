# SPDX-License-Identifier: MIT
"""Writes PythonNfkcTables.h: what NFKC normalization of Python names (PEP 3131) needs,
from this Python's own unicodedata, so that the importer reads a name as this Python
does ("ﬁle" is the name "file", "ｌatents" is "latents").

    python3.11 core/importer/generate_nfkc_tables.py > core/importer/PythonNfkcTables.h

Run it again with a newer Python to follow a newer Unicode; the header records the
Unicode and Python versions it came from. The build never runs it: the output is
committed. tests/importer/nfkc_differential.py checks the result against this Python.

A name's characters are all XID_Continue (the tokenizer refuses the others before it
normalizes), so only their decompositions are kept; the combining classes and the
compositions are kept whole, since those apply to whatever the decompositions hold.
Hangul syllables decompose and compose by arithmetic, not by table.

The tables are strings of numbers, each written in base 32 with the least significant
digit first, a digit being one character of DIGITS: its position there, less 32 for the
digits that another digit follows (so "A" is 0, "g" is 32 + 0 followed by more).
  kDecompositions  records, by code point: the gap from the code point after the previous
                   record's last, then LENGTH + 32 * (COUNT - 1), then
                   - LENGTH 1: the mapping's offset from the code point (zigzag: 2n for
                     n >= 0, -2n - 1 below), the same for the COUNT code points of the
                     record (U+FF21..U+FF3A map to A..Z);
                   - LENGTH > 1 (COUNT is 1): the LENGTH code points of the full
                     compatibility decomposition (NFKD), in canonical order.
  kCombiningClasses  records of equal non-zero canonical combining class: the gap from
                   the code point after the previous record, COUNT - 1, the class.
  kCompositions    the canonical pairs that compose (Full_Composition_Exclusion left
                   out), by first then second character: the first's gap from the
                   previous pair's first, the second character, and the composite's
                   offset from the first (zigzag).
"""

import sys
import unicodedata

DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
LAST = 0x10FFFF
HANGUL_FIRST = 0xAC00
HANGUL_LAST = 0xD7A3


def number(n):
    assert n >= 0
    out = ""
    while True:
        digit = n & 31
        n >>= 5
        out += DIGITS[digit + (32 if n else 0)]
        if not n:
            return out


def zigzag(n):
    return 2 * n if n >= 0 else -2 * n - 1


def is_xid_continue(cp):
    return ("a" + chr(cp)).isidentifier()


def decompositions():
    """(first, count, mapping) records; mapping: a one-element list for runs."""
    records = []
    for cp in range(0x80, LAST + 1):
        if HANGUL_FIRST <= cp <= HANGUL_LAST or not is_xid_continue(cp):
            continue
        nfkd = [ord(c) for c in unicodedata.normalize("NFKD", chr(cp))]
        if nfkd == [cp]:
            continue
        if len(nfkd) == 1 and records:
            first, count, mapping = records[-1]
            if len(mapping) == 1 and first + count == cp and mapping[0] - first == nfkd[0] - cp:
                records[-1] = (first, count + 1, mapping)
                continue
        records.append((cp, 1, nfkd))
    return records


def encode_decompositions(records):
    out = []
    after = 0
    for first, count, mapping in records:
        out.append(number(first - after))
        out.append(number(len(mapping) + 32 * (count - 1)))
        if len(mapping) == 1:
            out.append(number(zigzag(mapping[0] - first)))
        else:
            out.extend(number(cp) for cp in mapping)
        after = first + count
    return "".join(out)


def encode_combining_classes():
    records = []
    for cp in range(LAST + 1):
        value = unicodedata.combining(chr(cp))
        if not value:
            continue
        if records and records[-1][0] + records[-1][1] == cp and records[-1][2] == value:
            records[-1][1] += 1
        else:
            records.append([cp, 1, value])
    out = []
    after = 0
    for first, count, value in records:
        out.append(number(first - after) + number(count - 1) + number(value))
        after = first + count
    return "".join(out), len(records)


def compositions():
    pairs = []
    for cp in range(LAST + 1):
        decomposition = unicodedata.decomposition(chr(cp))
        if not decomposition or decomposition.startswith("<"):
            continue
        parts = [int(p, 16) for p in decomposition.split()]
        # A primary composite is its own NFC; an excluded one is not.
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp):
            pairs.append((parts[0], parts[1], cp))
    pairs.sort()
    out = []
    previous = 0
    for first, second, composite in pairs:
        out.append(number(first - previous) + number(second) + number(zigzag(composite - first)))
        previous = first
    return "".join(out), len(pairs)


def emit(name, data, comment):
    print(f"// {comment}")
    print(f"inline constexpr char {name}[] =")
    width = 110
    for start in range(0, len(data), width):
        end = ";" if start + width >= len(data) else ""
        print(f'    "{data[start:start + width]}"{end}')
    if not data:
        print('    "";')
    print()


def main():
    records = decompositions()
    version = sys.version.split()[0]
    combining, combining_count = encode_combining_classes()
    composition, pair_count = compositions()
    print("// SPDX-License-Identifier: MIT")
    print(f"// Generated by generate_nfkc_tables.py from Python {version}'s unicodedata,")
    print(f"// Unicode {unicodedata.unidata_version}. Do not edit: run the script again instead.")
    print("// The script says how the strings encode the tables.")
    print("#pragma once")
    print()
    print("namespace splitscope::importer::nfkc_tables {")
    print()
    print(f'inline constexpr char kUnicodeVersion[] = "{unicodedata.unidata_version}";')
    print(f'inline constexpr char kDigits[] = "{DIGITS}";')
    print()
    emit("kDecompositions", encode_decompositions(records),
         f"NFKD of the XID_Continue characters it changes, from U+0080, Hangul syllables aside ({len(records)} records).")
    emit("kCombiningClasses", combining, f"Non-zero canonical combining classes ({combining_count} records).")
    emit("kCompositions", composition, f"Canonical compositions, exclusions left out ({pair_count} pairs).")
    print("} // namespace splitscope::importer::nfkc_tables")


if __name__ == "__main__":
    main()
