// SPDX-License-Identifier: MIT
#pragma once

#include "core/Span.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::python {

// A Python module's syntax tree as CPython's `ast` module builds it, copied out of the interpreter (PythonParser.h):
// node types and field names are CPython's ("Call", "func"). Non-node values are leaves: "str" (UTF-8), "int",
// "float", "complex" (their repr), "bool", "bytes" (no text), "Ellipsis". None is no node (kNoNode). Nodes are in
// pre-order, so a node's subtree is the contiguous range [id, node(id).end).
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
    std::size_t size() const { return m_nodes.size(); }
    NodeId root() const { return m_nodes.empty() ? kNoNode : 0; }
    const AstNode &node(NodeId id) const { return m_nodes[static_cast<std::size_t>(id)]; }

    bool is(NodeId id, std::string_view type) const { return id >= 0 && node(id).type == type; }
    // The child in `field`, the children of a list field, the text of a str leaf ("id" of a Name): kNoNode or
    // empty when there is none.
    NodeId child(NodeId id, std::string_view field) const;
    Span<NodeId> children(NodeId id, std::string_view field) const;
    const std::string &text(NodeId id, std::string_view field) const;

    // `a.b.c` for a chain of Attribute nodes ending in a Name, empty for anything else.
    std::string dottedName(NodeId id) const;
    // The source text of a node ("make_params()"), blanks folded, at most kMaxDescribedCharacters.
    std::string sourceText(NodeId id) const;
    static constexpr std::size_t kMaxDescribedCharacters = 120;

    // Whether the str Constant `id` is written inside its own parentheses, `("noise")`.
    bool parenthesized(NodeId id) const;
    // The literals a str Constant was written as (`"height" "width"`, which CPython joins), as written; empty for one.
    std::vector<std::string> adjacentLiterals(NodeId id) const;

    // Building (PythonParser.cpp).
    NodeId addNode(std::string_view type, NodeId parent);
    std::string_view intern(std::string_view name);
    std::uint32_t addField(std::string_view name, std::uint32_t count);
    void setChild(std::uint32_t slot, NodeId child) { m_children[slot] = child; }
    AstNode &mutableNode(NodeId id) { return m_nodes[static_cast<std::size_t>(id)]; }
    void setSource(std::string source); // UTF-8, lines ending in LF, CR LF or CR
    int characterColumn(int line, int byteOffset) const;

private:
    struct Field {
        std::string_view name;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
    };
    std::string_view lineText(int line) const;
    std::size_t offsetOf(int line, int column) const;

    std::vector<AstNode> m_nodes;
    std::vector<Field> m_fields;
    std::vector<NodeId> m_children;
    std::set<std::string> m_names; // interned type and field names (a set: views stay valid)
    std::string m_source;
    std::vector<std::size_t> m_lineStarts;
};

inline bool isContinuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// `text`, or its first `maxBytes` bytes (cut at a character) and "...".
std::string shortened(const std::string &text, std::size_t maxBytes);

} // namespace splitscope::python
