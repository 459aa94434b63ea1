// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// One token of Python source, as Python's own tokenizer would produce it, less
// comments and the non-logical NL tokens (the importer never needs them).
enum class TokenKind {
    Name,       // identifiers and keywords alike (`class`, `None`, `self`)
    Number,     // 12, 0x1F, 1_000, 3.5e-2, 2j
    String,     // one string literal; adjacent literals stay separate tokens
    Operator,   // operators and delimiters: `(`, `**=`, `->`, `...`
    Newline,    // end of a logical line
    Indent,     // the next logical line is indented deeper
    Dedent,     // one indentation level ends
    EndOfInput, // always the last token
};

// A string literal CPython's parser refuses, and where it reports it (Token::literalError).
enum class LiteralError : unsigned char {
    None,
    AtLiteral,     // at the literal: "bytes can only contain ASCII literal characters"
    AfterLiterals, // where its parser stands then: at the token after the adjacent literals
    // Inside it, at Token::problemLine and problemColumn: a syntax error in an f-string's
    // replacement field ("f-string: invalid syntax", where the field's expression has it).
    // CPython 3.11 reads the field's expression on its own and puts the error at a position
    // counted from the field; the importer gives the position in the file.
    Inside,
};

// Python's keywords (keyword.kwlist), and with `soft` its soft keywords too (match,
// case, _ and type; names elsewhere).
bool isKeywordSpelling(std::string_view word, bool soft = true);

// The expression of one replacement field of an f-string, as the tokenizer read it: its text
// in parentheses, as CPython 3.11 parses it, and where the opening parenthesis would stand
// in the file (the field's first line and the column before its expression), so that a
// position in `source` (line 1, column c) is (line, column + c - 1) in the file, and one on a
// later line n of `source` is (line + n - 1, its own column).
struct FieldExpression {
    std::string source;
    int line = 0;
    int column = 0;
};

struct Token {
    TokenKind kind = TokenKind::EndOfInput;
    // Name, Number, Operator: the source text. String: the value with escapes decoded
    // (raw strings keep their backslashes; f-strings keep their replacement fields and
    // "\N{...}" as written).
    std::string text;
    int line = 0;   // 1-based, where the token starts
    int column = 0; // 1-based, in code points (0 for NEWLINE)
    // Just past the token's last character (a triple-quoted string can end on a later
    // line); equal to line and column for NEWLINE, INDENT, DEDENT and the end of input.
    int endLine = 0;
    int endColumn = 0;
    bool fString = false; // f"..." (its value depends on run time)
    bool bytes = false;   // b"..." (not a str)
    // String: CPython's parser refuses it (invalid UTF-8, a non-ASCII character in bytes, a
    // single '}' in an f-string, ...), and `text` is then its message instead of the value.
    LiteralError literalError = LiteralError::None;
    int problemLine = 0;   // LiteralError::Inside: where the problem is
    int problemColumn = 0;
    // Name: written otherwise than `text`, which is the name Python reads, its NFKC
    // normalization (PEP 3131: "ﬁle" is "file", "ｌatents" is "latents"; PythonIdentifier.h).
    // Such a name is never a keyword, even one it reads as: CPython matches keywords as
    // written (`ｉf = 1` binds the name "if", `Ｎone = 1` the name "None").
    bool normalized = false;
    // f-string: the expressions of its replacement fields in source order (those in format
    // specs too), for CPython's compiler checks (PythonCompileCheck.h); empty when it has
    // none or when literalError is set.
    std::vector<FieldExpression> fields;

    bool isOperator(std::string_view op) const { return kind == TokenKind::Operator && text == op; }
    // The name `name`, or the keyword `name` as written.
    bool isName(std::string_view name) const
    {
        return kind == TokenKind::Name && text == name && !(normalized && isKeywordSpelling(name));
    }
    // A hard keyword (`class`, `None`) as written; a name that reads as one is not.
    bool isKeyword() const { return kind == TokenKind::Name && !normalized && isKeywordSpelling(text, false); }
};

} // namespace splitscope::importer
