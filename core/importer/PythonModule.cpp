// SPDX-License-Identifier: MIT
#include "PythonModule.h"

#include "core/python/PythonParser.h"

#include <algorithm>

namespace splitscope::importer {

namespace {

// inspect.cleandoc: the first line stripped, the common indentation of the others removed, blank lines at both
// ends dropped.
std::string cleanDocstring(const std::string &raw)
{
    std::vector<std::string> lines;
    std::size_t indent = std::string::npos;
    for (std::size_t start = 0; start <= raw.size(); start += lines.back().size() + 1) {
        lines.push_back(raw.substr(start, raw.find('\n', start) - start));
        const std::size_t first = lines.back().find_first_not_of(" \t");
        if (lines.size() > 1 && first != std::string::npos)
            indent = std::min(indent, first);
    }
    const auto trimEnd = [](std::string s) {
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
            s.pop_back();
        return s;
    };
    const std::size_t lead = lines.front().find_first_not_of(" \t");
    lines.front() = trimEnd(lead == std::string::npos ? std::string() : lines.front().substr(lead));
    for (std::size_t i = 1; i < lines.size(); ++i)
        lines[i] = trimEnd(indent != std::string::npos && lines[i].size() >= indent ? lines[i].substr(indent) : "");
    while (!lines.empty() && lines.front().empty())
        lines.erase(lines.begin());
    while (!lines.empty() && lines.back().empty())
        lines.pop_back();
    std::string out;
    for (const std::string &l : lines)
        out += (out.empty() ? "" : "\n") + l;
    return out;
}

const char *operatorSymbol(std::string_view type)
{
    static const std::pair<const char *, const char *> kOperators[] = {{"Add", "+"}, {"Sub", "-"}, {"Mult", "*"},
        {"MatMult", "@"}, {"Div", "/"}, {"Mod", "%"}, {"Pow", "**"}, {"LShift", "<<"}, {"RShift", ">>"},
        {"BitOr", "|"}, {"BitXor", "^"}, {"BitAnd", "&"}, {"FloorDiv", "//"}};
    for (const auto &[name, symbol] : kOperators) {
        if (type == name)
            return symbol;
    }
    return "?";
}

// A function's parameters as its `arguments` node lists them.
FunctionDef readFunction(const AstTree &tree, NodeId def)
{
    FunctionDef f{tree.text(def, "name"), {}, def};
    const NodeId args = tree.child(def, "args");
    const auto add = [&](NodeId arg, Parameter::Kind kind, NodeId defaultValue) {
        f.parameters.push_back({tree.text(arg, "arg"), kind, defaultValue, arg});
    };
    // Defaults belong to the last positional parameters (posonlyargs, then args).
    std::vector<NodeId> positional = tree.children(args, "posonlyargs").toVector();
    for (const NodeId a : tree.children(args, "args"))
        positional.push_back(a);
    const Span<NodeId> defaults = tree.children(args, "defaults");
    const std::size_t firstDefault = positional.size() - std::min(positional.size(), defaults.size());
    for (std::size_t i = 0; i < positional.size(); ++i)
        add(positional[i], Parameter::Kind::Positional, i >= firstDefault ? defaults[i - firstDefault] : kNoNode);
    if (const NodeId vararg = tree.child(args, "vararg"); vararg != kNoNode)
        add(vararg, Parameter::Kind::VarPositional, kNoNode);
    const Span<NodeId> keywordOnly = tree.children(args, "kwonlyargs");
    const Span<NodeId> keywordDefaults = tree.children(args, "kw_defaults");
    for (std::size_t i = 0; i < keywordOnly.size(); ++i)
        add(keywordOnly[i], Parameter::Kind::KeywordOnly, i < keywordDefaults.size() ? keywordDefaults[i] : kNoNode);
    if (const NodeId kwarg = tree.child(args, "kwarg"); kwarg != kNoNode)
        add(kwarg, Parameter::Kind::VarKeyword, kNoNode);
    return f;
}

} // namespace

int FunctionDef::parameterIndex(const std::string &parameterName) const
{
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        if (parameters[i].name == parameterName)
            return static_cast<int>(i);
    }
    return -1;
}

const FunctionDef *ClassDef::method(const std::string &methodName) const
{
    for (auto it = methods.rbegin(); it != methods.rend(); ++it) {
        if (it->name == methodName)
            return &*it;
    }
    return nullptr;
}

std::optional<Assignment> readAssignment(const AstTree &tree, NodeId statement)
{
    Assignment a;
    if (tree.is(statement, "Assign")) {
        a.targets = tree.children(statement, "targets").toVector();
    } else if (tree.is(statement, "AnnAssign")) {
        a.targets.push_back(tree.child(statement, "target"));
        a.annotation = tree.child(statement, "annotation");
    } else if (tree.is(statement, "AugAssign")) {
        a.targets.push_back(tree.child(statement, "target"));
        a.augmented = std::string(operatorSymbol(tree.node(tree.child(statement, "op")).type)) + "=";
    } else {
        return std::nullopt;
    }
    a.value = tree.child(statement, "value");
    return a;
}

std::vector<std::string> attributeChain(const AstTree &tree, NodeId id)
{
    std::vector<std::string> chain;
    for (; tree.is(id, "Attribute"); id = tree.child(id, "value"))
        chain.insert(chain.begin(), tree.text(id, "attr"));
    if (tree.is(id, "Name"))
        chain.insert(chain.begin(), tree.text(id, "id"));
    return chain;
}

std::string attributeOf(const AstTree &tree, NodeId id, std::string_view object)
{
    const NodeId value = tree.is(id, "Attribute") ? tree.child(id, "value") : kNoNode;
    return tree.is(value, "Name") && tree.text(value, "id") == object ? tree.text(id, "attr") : std::string();
}

std::unique_ptr<PythonModule> PythonModule::read(std::string_view source, std::string fileName, bool compile)
{
    std::unique_ptr<PythonModule> m(new PythonModule());
    m->m_fileName = std::move(fileName);
    m->m_stem = m->m_fileName.substr(m->m_fileName.find_last_of('/') + 1); // npos + 1 is 0
    if (m->m_stem.size() > 3 && m->m_stem.compare(m->m_stem.size() - 3, 3, ".py") == 0)
        m->m_stem.resize(m->m_stem.size() - 3);
    python::ParsedSource parsed = python::parsePython(source, m->m_fileName, compile);
    if (!parsed.ok()) {
        m->m_syntaxError = parsed.error;
        m->m_syntaxErrorLine = parsed.line;
        m->m_syntaxErrorColumn = parsed.column;
        return m;
    }
    m->m_tree = std::move(parsed.tree);
    m->index();
    return m;
}

void PythonModule::index()
{
    const AstTree &t = m_tree;
    std::vector<NodeId> blocks; // top-level statements, and those of top-level if/try blocks (for imports)
    for (const NodeId s : t.children(t.root(), "body")) {
        blocks.push_back(s);
        if (t.is(s, "ClassDef")) {
            ClassDef c{t.text(s, "name"), t.children(s, "bases").toVector(), {}, std::nullopt, s};
            const Span<NodeId> body = t.children(s, "body");
            for (std::size_t i = 0; i < body.size(); ++i) {
                const NodeId member = body[i];
                const NodeId value = t.child(member, "value");
                if (i == 0 && t.is(member, "Expr") && t.is(value, "Constant") && t.is(t.child(value, "value"), "str"))
                    c.docstring = cleanDocstring(t.text(value, "value"));
                else if (t.is(member, "FunctionDef") || t.is(member, "AsyncFunctionDef"))
                    c.methods.push_back(readFunction(t, member));
            }
            m_classIndex[c.name] = m_classes.size();
            m_classes.push_back(std::move(c));
        } else if (t.is(s, "FunctionDef") || t.is(s, "AsyncFunctionDef")) {
            m_functionIndex[t.text(s, "name")] = m_functions.size();
            m_functions.push_back(readFunction(t, s));
        } else if (const auto a = readAssignment(t, s); a && a->augmented.empty() && a->value != kNoNode) {
            for (const NodeId target : a->targets) {
                if (!t.is(target, "Name"))
                    continue;
                Constant &c = m_constants[t.text(target, "id")];
                c.value = a->value;
                ++c.assignments;
            }
        }
    }
    while (!blocks.empty()) {
        const NodeId s = blocks.back();
        blocks.pop_back();
        if (t.is(s, "Import") || t.is(s, "ImportFrom")) {
            readImports(s);
            continue;
        }
        if (!t.is(s, "If") && !t.is(s, "Try") && !t.is(s, "TryStar") && !t.is(s, "ExceptHandler"))
            continue;
        for (const char *field : {"body", "orelse", "finalbody", "handlers"}) {
            for (const NodeId inner : t.children(s, field))
                blocks.push_back(inner);
        }
    }
}

void PythonModule::readImports(NodeId statement)
{
    const AstTree &t = m_tree;
    const bool from = t.is(statement, "ImportFrom");
    const NodeId level = t.child(statement, "level");
    const int dots = t.is(level, "int") ? std::max(std::atoi(t.node(level).text.c_str()), 0) : 0;
    const std::string module = std::string(static_cast<std::size_t>(dots), '.') + t.text(statement, "module");
    for (const NodeId alias : t.children(statement, "names")) {
        const std::string &name = t.text(alias, "name");
        const std::string &as = t.text(alias, "asname");
        if (!from)
            m_imports[as.empty() ? name.substr(0, name.find('.')) : as] = ImportedName{name, std::string()};
        else if (name != "*")
            m_imports[as.empty() ? name : as] = ImportedName{module, name};
    }
}

const ClassDef *PythonModule::findClass(const std::string &name) const
{
    const auto it = m_classIndex.find(name);
    return it == m_classIndex.end() ? nullptr : &m_classes[it->second];
}

const FunctionDef *PythonModule::findFunction(const std::string &name) const
{
    const auto it = m_functionIndex.find(name);
    return it == m_functionIndex.end() ? nullptr : &m_functions[it->second];
}

} // namespace splitscope::importer
