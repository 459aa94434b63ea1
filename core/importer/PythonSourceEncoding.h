// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace splitscope::importer {

// The source encoding a Python file declares (PEP 263) and its text in UTF-8, as
// CPython reads it: a coding cookie (`# -*- coding: latin-1 -*-`, `# vim: set
// fileencoding=ascii :`) in a comment on line 1, or on line 2 when line 1 is blank or
// a comment; names spelled as CPython's codec lookup accepts them ("latin-1", "L1",
// "iso_8859_1", "utf8", "US-ASCII", ...). Without a cookie the file is UTF-8.
//
//   UTF-8    the text is used as it is; with a byte order mark only the spelling
//            "utf-8" (or "utf_8", any case) is allowed, as in CPython. Invalid UTF-8 is
//            the tokenizer's to report where CPython does (in a name or a string, not in
//            a comment), or anywhere under another spelling (decodeWholeFile).
//   Latin-1  every byte is one character: the text is re-encoded as UTF-8, so columns
//            (counted in characters) stay those of the file.
//   ASCII    the text is used as it is when every byte is below 0x80; otherwise an
//            error names the first other byte, its line and column.
//   other    an error names the encoding and where it is declared: the importer does
//            not decode it (CPython would, with its codec).
//
// Usage:
//     const DecodedSource d = decodePythonSource(bytes);
//     if (!d.ok()) report(d.errorLine, d.errorColumn, d.error);
//     const std::string_view utf8 = d.converted ? std::string_view(d.text) : bytes;
struct DecodedSource {
    std::string encoding;   // the declared encoding as written; empty without a cookie
    std::string text;       // the source in UTF-8 when `converted`
    bool converted = false; // the source was re-encoded (Latin-1); otherwise use it as it is
    // UTF-8 declared by another name than CPython's tokenizer knows as "utf-8" ("utf8", "u8",
    // "cp65001"): CPython decodes the whole file with the codec before tokenizing, so invalid
    // UTF-8 anywhere, in a comment too, is an error.
    bool decodeWholeFile = false;
    std::string error;      // empty when the source can be read
    int errorLine = 0;      // 1-based
    int errorColumn = 0;    // 1-based, in characters
    bool ok() const { return error.empty(); }
};

DecodedSource decodePythonSource(std::string_view bytes);

} // namespace splitscope::importer
