// SPDX-License-Identifier: MIT
#pragma once

#include "core/Span.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::importer {

// A Python module's syntax tree exactly as CPython's `ast` module builds it
// (https://docs.python.org/3.11/library/ast.html), copied out of the interpreter
// (PythonParser.h) so that the readers walk plain C++ values and never touch a
// PyObject. Every node keeps CPython's class name as its type ("ClassDef", "Call",
// "Name", ...) and its fields by CPython's names ("body", "func", "args", ...).
// Values that are not nodes become leaves: "str" (UTF-8 text; lone surrogates
// written as \uXXXX escapes), "int", "float", "complex" (their repr), "bool" ("True"
// or "False"), "bytes" (no text) and "Ellipsis". None is no node: a field holding
// None has no child, and a None inside a list (a dict display's `**` key) is -1.
//
// Nodes are stored in pre-order, so a node's subtree is the contiguous range
// [id, node(id).end): walking it needs no recursion.
using NodeId = int;
constexpr NodeId kNoNode = -1;

struct AstNode {
    std::string_view type;
    std::string text;       // leaves only
    int line = 0;           // 1-based; 0 for nodes without a position (operators, arguments, ...)
    int column = 0;         // 1-based, in characters (code points) of the line
    int endLine = 0;
    int endColumn = 0;      // one past the last character
    NodeId parent = kNoNode;
    NodeId end = 0;         // one past the last node of the subtree
    std::uint32_t firstField = 0;
    std::uint32_t fieldCount = 0;
};

class AstTree {
public:
    bool empty() const { return m_nodes.empty(); }
    std::size_t size() const { return m_nodes.size(); }
    NodeId root() const { return m_nodes.empty() ? kNoNode : 0; }
    const AstNode &node(NodeId id) const { return m_nodes[static_cast<std::size_t>(id)]; }

    // Whether `id` is a node of `type` (false for kNoNode).
    bool is(NodeId id, std::string_view type) const { return id >= 0 && node(id).type == type; }
    // The single child in `field`, or kNoNode (None, or no such field).
    NodeId child(NodeId id, std::string_view field) const;
    // The children of a list field, in order (empty when there is no such field).
    Span<NodeId> children(NodeId id, std::string_view field) const;
    // The text of the str leaf in `field` ("id" of a Name, "attr" of an Attribute, ...); empty when none.
    const std::string &text(NodeId id, std::string_view field) const;

    // `a.b.c` for a chain of Attribute nodes ending in a Name, empty for anything else.
    std::string dottedName(NodeId id) const;
    // The source text of a node with a position ("make_params()"), as written; at most
    // kMaxDescribedCharacters, then "...".
    std::string sourceText(NodeId id) const;
    static constexpr std::size_t kMaxDescribedCharacters = 120;

    // Whether the str Constant `id` is written inside its own parentheses, `("noise")`:
    // the character before it (past blanks) is '(' and the one after it is ')'.
    bool parenthesized(NodeId id) const;
    // The literals a str Constant was written as, when more than one (`"height" "width"`,
    // which CPython joins into one value): each one's text between its quotes, escapes
    // as written. Empty for a single literal.
    std::vector<std::string> adjacentLiterals(NodeId id) const;

    // Building (PythonParser.cpp).
    NodeId addNode(std::string_view type, NodeId parent);
    std::string_view intern(std::string_view name);
    // Reserves `count` child slots of a new field of the last added node.
    std::uint32_t addField(std::string_view name, std::uint32_t count);
    void setChild(std::uint32_t slot, NodeId child) { m_children[slot] = child; }
    AstNode &mutableNode(NodeId id) { return m_nodes[static_cast<std::size_t>(id)]; }
    // The UTF-8 source the positions refer to, split into lines (LF, CR LF or CR).
    void setSource(std::string source);
    // The 1-based character column of a 0-based UTF-8 byte offset in `line`.
    int characterColumn(int line, int byteOffset) const;

private:
    struct Field {
        std::string_view name;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
    };
    std::string_view lineText(int line) const;
    // Byte offset in m_source of (line, 1-based character column); npos when out of range.
    std::size_t offsetOf(int line, int column) const;

    std::vector<AstNode> m_nodes;
    std::vector<Field> m_fields;
    std::vector<NodeId> m_children;
    std::deque<std::string> m_names; // interned type and field names (a deque: views stay valid)
    std::string m_source;
    std::vector<std::size_t> m_lineStarts;
};

} // namespace splitscope::importer
