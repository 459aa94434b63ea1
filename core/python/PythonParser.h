// SPDX-License-Identifier: MIT
#pragma once

#include "PythonAst.h"

#include <string>
#include <string_view>

namespace splitscope::python {

// Parses Python source with CPython's own parser (libpython3.11, embedded, started once in its isolated
// configuration), so a reader accepts exactly what `python3.11 FILE` accepts; the source is never run. Any
// thread may call parsePython; calls take CPython's global interpreter lock in turn.
struct ParsedSource {
    AstTree tree;
    std::string error; // CPython's message ("invalid syntax", "expected ':'"), empty when parsed
    int line = 0;      // of the error, 1-based; 0 when CPython gave none
    int column = 0;    // 1-based, in characters

    bool ok() const { return error.empty(); }
};

// `compile`: also run CPython's compiler, for the checks it makes after parsing (a `return` outside a function, a
// repeated keyword argument, ...); a file only looked into, such as a model's source, does not need them.
ParsedSource parsePython(std::string_view source, const std::string &fileName, bool compile = true);

// The version of the CPython library in use ("3.11.2").
std::string pythonVersion();

} // namespace splitscope::python
