// SPDX-License-Identifier: MIT
#pragma once

#include "PythonAst.h"

#include <string>
#include <string_view>

namespace splitscope::importer {

// Parses Python source with CPython's own parser and compiler (libpython3.11,
// embedded), so that what the importer accepts is exactly what `python3.11 FILE`
// accepts, with CPython's messages:
//
//     ParsedSource parsed = parsePython(text, "qwen_image.py");
//     if (!parsed.ok()) report(parsed.error, parsed.line, parsed.column);
//     else walk(parsed.tree);
//
// Parse only: the source is compiled to check it (the checks `compile()` makes after
// parsing: a `return` outside a function, a repeated keyword argument, ...), never run,
// imported or evaluated, so a file from the internet cannot run code here. The
// interpreter is started once per process, on first use, in CPython's isolated
// configuration: no environment variables (PYTHONPATH, PYTHONHOME, ...), no user or
// site packages, no signal handlers, warnings ignored; it finds only its standard
// library, at the prefix it was built with. It is never finalized.
//
// Thread safety: any thread may call parsePython; calls take CPython's global
// interpreter lock in turn.
struct ParsedSource {
    AstTree tree;
    std::string error; // CPython's message ("invalid syntax", "expected ':'"), empty when parsed
    int line = 0;      // of the error, 1-based; 0 when CPython gave none
    int column = 0;    // 1-based, in characters

    bool ok() const { return error.empty(); }
};

// `compile`: also run CPython's compiler over it, for the checks it makes after parsing
// (what the importer reads needs them; a file only looked into, a model's source, not).
ParsedSource parsePython(std::string_view source, const std::string &fileName, bool compile = true);

// The version of the CPython library in use ("3.11.2").
std::string pythonVersion();

} // namespace splitscope::importer
