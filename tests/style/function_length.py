#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails when a function outside tests/ is longer than the limit (CONTRIBUTING.md, Style).

A function is a brace block whose enclosing blocks are all namespaces, classes or
structs, and whose head ends like a function's (a parameter list, const, noexcept,
override, a trailing return type, a constructor's initializer list). Comments, string
and character literals and raw strings are blanked first, so that braces in them do
not count. Lambdas count toward the function that holds them.

No packaged tool does this without a compilation database and the whole Torch and Qt
header set: clang-tidy's readability-function-size takes minutes a file here, this a
second for the tree.

Usage: function_length.py LIMIT ROOT [FOLDER...]
"""
import os
import re
import sys

RAW_STRING = re.compile(r'R"([^(\s]{0,16})\(')
FUNCTION_HEAD = re.compile(r'\)\s*(const|noexcept|override|final|mutable|\s|->[^{;]*|:[^;]*)*$', re.S)
# A member initialized with braces in a constructor's initializer list: `: m_a(1), m_b{`.
BRACE_INITIALIZER = re.compile(r'\)\s*:[^;]*[\w>]$', re.S)
TYPE_HEAD = re.compile(r'\b(class|struct|union|enum)\b[^;{}()]*$')
NAMESPACE_HEAD = re.compile(r'\bnamespace\b[^;{}]*$|extern\s+"C"\s*$')


def blank(text):
    """The text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            end = ')' + m.group(1) + '"'
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
        elif text[i] in '"\'' and not (text[i] == "'" and i > 0 and text[i - 1].isalnum()):
            # (a digit separator, 1'000, is not a character literal)
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j]))
        i = j
    return ''.join(out)


def functions(path):
    """(first line, line count, head) of each function defined in the file."""
    text = blank(open(path, encoding='utf-8', errors='replace').read())
    stack, found = [], []
    line, last = 1, 0
    for i, c in enumerate(text):
        if c == '\n':
            line += 1
        elif c == '{':
            head = text[last:i].strip()
            kind = 'block'
            if all(k in ('namespace', 'type') for k, _, _ in stack):
                if NAMESPACE_HEAD.search(head):
                    kind = 'namespace'
                elif TYPE_HEAD.search(head):
                    kind = 'type'
                elif BRACE_INITIALIZER.search(head):
                    kind = 'initializer'
                elif FUNCTION_HEAD.search(head):
                    kind = 'function'
            stack.append((kind, line, ' '.join(head.split())))
            if kind != 'initializer':  # the constructor's head goes on after it
                last = i + 1
        elif c == '}':
            if stack:
                kind, first, head = stack.pop()
                if kind == 'function':
                    found.append((first, line - first + 1, head))
                if kind == 'initializer':
                    continue
            last = i + 1
        elif c == ';':
            last = i + 1
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    limit, root, folders = int(sys.argv[1]), sys.argv[2], sys.argv[3:] or ['.']
    long_ones = []
    count = 0
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(('.cpp', '.h')):
                    continue
                path = os.path.join(directory, name)
                for first, length, head in functions(path):
                    count += 1
                    if length > limit:
                        long_ones.append((os.path.relpath(path, root), first, length, head))
    for path, first, length, head in sorted(long_ones):
        name = head[-80:]
        print(f'{path}:{first}: {length} lines, more than {limit}: {name}')
    if count == 0:
        sys.exit(f'no functions found under {folders} in {root}: is ROOT the source tree?')
    if long_ones:
        sys.exit(f'{len(long_ones)} of {count} functions are longer than {limit} lines: split them '
                 '(CONTRIBUTING.md, Style)')
    print(f'{count} functions, none longer than {limit} lines')


if __name__ == '__main__':
    main()
