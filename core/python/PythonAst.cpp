// SPDX-License-Identifier: MIT
#include "PythonAst.h"

#include <algorithm>

namespace splitscope::python {

namespace {

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\';
}

} // namespace

NodeId AstTree::child(NodeId id, std::string_view field) const
{
    const Span<NodeId> c = children(id, field);
    return c.empty() ? kNoNode : c.front();
}

Span<NodeId> AstTree::children(NodeId id, std::string_view field) const
{
    if (id < 0)
        return {};
    const AstNode &n = node(id);
    for (std::uint32_t i = n.firstField; i < n.firstField + n.fieldCount; ++i) {
        if (m_fields[i].name == field)
            return Span<NodeId>(m_children.data() + m_fields[i].first, m_fields[i].count);
    }
    return {};
}

const std::string &AstTree::text(NodeId id, std::string_view field) const
{
    static const std::string kEmpty;
    const NodeId c = child(id, field);
    return is(c, "str") ? node(c).text : kEmpty;
}

std::string AstTree::dottedName(NodeId id) const
{
    std::string out;
    for (; is(id, "Attribute"); id = child(id, "value"))
        out.insert(0, "." + text(id, "attr"));
    return is(id, "Name") ? text(id, "id") + out : std::string();
}

std::string_view AstTree::lineText(int line) const
{
    const std::size_t index = static_cast<std::size_t>(line);
    if (line < 1 || index > m_lineStarts.size())
        return {};
    const std::size_t end = index < m_lineStarts.size() ? m_lineStarts[index] : m_source.size();
    return std::string_view(m_source).substr(m_lineStarts[index - 1], end - m_lineStarts[index - 1]);
}

std::size_t AstTree::offsetOf(int line, int column) const
{
    const std::string_view text = lineText(line);
    if (text.data() == nullptr || column < 1)
        return std::string::npos;
    std::size_t at = 0;
    for (int c = 1; c < column && at < text.size(); ++c) {
        ++at;
        while (at < text.size() && isContinuationByte(text[at]))
            ++at;
    }
    return static_cast<std::size_t>(text.data() - m_source.data()) + at;
}

int AstTree::characterColumn(int line, int byteOffset) const
{
    const std::string_view text = lineText(line);
    int column = 1;
    for (int i = 0; i < byteOffset && static_cast<std::size_t>(i) < text.size(); ++i)
        column += isContinuationByte(text[static_cast<std::size_t>(i)]) ? 0 : 1;
    return column;
}

std::string AstTree::sourceText(NodeId id) const
{
    if (id < 0)
        return {};
    const AstNode &n = node(id);
    const std::size_t begin = offsetOf(n.line, n.column);
    const std::size_t end = offsetOf(n.endLine, n.endColumn);
    if (begin == std::string::npos || end == std::string::npos || end < begin)
        return n.text;
    std::string out;
    for (std::size_t i = begin; i < end; ++i) {
        const char c = m_source[i];
        if (c == '\n' || c == '\r' || c == '\t') {
            if (!out.empty() && out.back() != ' ')
                out += ' ';
            continue;
        }
        if (c == ' ' && !out.empty() && out.back() == ' ')
            continue;
        out += c;
    }
    return shortened(out, kMaxDescribedCharacters);
}

bool AstTree::parenthesized(NodeId id) const
{
    if (id < 0)
        return false;
    const AstNode &n = node(id);
    std::size_t begin = offsetOf(n.line, n.column);
    std::size_t end = offsetOf(n.endLine, n.endColumn);
    if (begin == std::string::npos || end == std::string::npos)
        return false;
    while (begin > 0 && isBlank(m_source[begin - 1]))
        --begin;
    while (end < m_source.size() && isBlank(m_source[end]))
        ++end;
    return begin > 0 && m_source[begin - 1] == '(' && end < m_source.size() && m_source[end] == ')';
}

std::vector<std::string> AstTree::adjacentLiterals(NodeId id) const
{
    if (!is(id, "Constant"))
        return {};
    const AstNode &n = node(id);
    const std::size_t begin = offsetOf(n.line, n.column);
    const std::size_t end = offsetOf(n.endLine, n.endColumn);
    if (begin == std::string::npos || end == std::string::npos)
        return {};
    // CPython accepted the text, so it is string literals separated by blanks, comments and line continuations:
    // find each one's quotes.
    std::vector<std::string> literals;
    std::size_t i = begin;
    while (i < end) {
        if (isBlank(m_source[i])) {
            ++i;
            continue;
        }
        if (m_source[i] == '#') {
            i = std::min(end, m_source.find_first_of("\r\n", i));
            continue;
        }
        i = std::min(end, m_source.find_first_of("\"'", i)); // past the prefix (r, b, u, f and their combinations)
        if (i >= end)
            break;
        const char quote = m_source[i];
        const std::string tripleQuote(3, quote);
        const bool triple = m_source.compare(i, 3, tripleQuote) == 0;
        const std::size_t width = triple ? 3 : 1;
        const std::size_t bodyStart = i + width;
        std::size_t j = bodyStart;
        while (j < end && !(triple ? m_source.compare(j, 3, tripleQuote) == 0 : m_source[j] == quote))
            j += m_source[j] == '\\' ? 2 : 1; // a backslash escapes the quote, in raw literals too
        literals.emplace_back(m_source.substr(bodyStart, std::min(j, end) - bodyStart));
        i = std::min(end, j + width);
    }
    return literals.size() < 2 ? std::vector<std::string>() : literals;
}

NodeId AstTree::addNode(std::string_view type, NodeId parent)
{
    AstNode n;
    n.type = type;
    n.parent = parent;
    n.firstField = static_cast<std::uint32_t>(m_fields.size());
    m_nodes.push_back(std::move(n));
    const NodeId id = static_cast<NodeId>(m_nodes.size() - 1);
    m_nodes.back().end = id + 1;
    return id;
}

std::string_view AstTree::intern(std::string_view name)
{
    return *m_names.emplace(name).first;
}

std::uint32_t AstTree::addField(std::string_view name, std::uint32_t count)
{
    const std::uint32_t first = static_cast<std::uint32_t>(m_children.size());
    m_fields.push_back({name, first, count});
    m_children.resize(m_children.size() + count, kNoNode);
    ++m_nodes.back().fieldCount;
    return first;
}

void AstTree::setSource(std::string source)
{
    m_source = std::move(source);
    m_lineStarts.assign(1, 0);
    for (std::size_t i = 0; i < m_source.size(); ++i) {
        if (m_source[i] == '\r' && i + 1 < m_source.size() && m_source[i + 1] == '\n')
            ++i;
        if (m_source[i] == '\n' || m_source[i] == '\r')
            m_lineStarts.push_back(i + 1);
    }
}

std::string shortened(const std::string &text, std::size_t maxBytes)
{
    if (text.size() <= maxBytes)
        return text;
    std::size_t cut = maxBytes;
    while (cut > 0 && isContinuationByte(text[cut]))
        --cut;
    return text.substr(0, cut) + "...";
}

} // namespace splitscope::python
