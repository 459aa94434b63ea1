// SPDX-License-Identifier: MIT
#include "PythonValue.h"

#include <algorithm>

namespace splitscope::importer {

namespace {

// tuple("ab") == ("a", "b"): a str iterates by code point.
std::vector<Value> characters(const Value &s)
{
    std::vector<Value> out;
    for (std::size_t i = 0, n = 1; i < s.text.size(); i += n, n = 1) {
        while (i + n < s.text.size() && isContinuationByte(s.text[i + n]))
            ++n;
        out.push_back(stringValue(s, s.text.substr(i, n)));
        out.back().parenthesized = false;
    }
    return out;
}

std::string description(const AstTree &t, NodeId e)
{
    static const std::pair<const char *, const char *> kDescriptions[] = {{"Attribute", "an attribute"},
        {"Call", "a call"}, {"ListComp", "a comprehension (built in a loop)"},
        {"SetComp", "a comprehension (built in a loop)"}, {"DictComp", "a comprehension (built in a loop)"},
        {"GeneratorExp", "a generator expression (built in a loop)"}, {"Starred", "a starred expression"},
        {"Slice", "a slice"}, {"IfExp", "a conditional expression"}, {"BoolOp", "a boolean expression"},
        {"Lambda", "a lambda"}, {"BinOp", "an operator expression"}, {"UnaryOp", "an operator expression"},
        {"Compare", "a comparison"}, {"JoinedStr", "an f-string (its text is built at run time)"},
        {"NamedExpr", "an assignment expression"}, {"Await", "an await expression"}};
    for (const auto &[type, text] : kDescriptions) {
        if (t.is(e, type))
            return text;
    }
    return "an expression";
}

} // namespace

bool truthValue(const Value &v)
{
    switch (v.kind) {
    case Value::Kind::Bool: return v.boolean;
    case Value::Kind::Number: // CPython's repr: 0, 0.0, -0.0, 0j are false
        return v.text.find_first_of("123456789") != std::string::npos || v.text.find_first_of("ni") != std::string::npos;
    case Value::Kind::String: return !v.text.empty();
    case Value::Kind::Sequence: return !v.items.empty();
    case Value::Kind::Dict: return !v.entries.empty();
    default: return false;
    }
}

bool looksLikeMissingComma(const Value &value)
{
    if (value.kind != Value::Kind::String || value.literals.size() < 2)
        return false;
    for (std::size_t i = 0; i < value.literals.size(); ++i) {
        const std::string &literal = value.literals[i];
        if (literal.empty() || (i > 0 && (value.literals[i - 1].back() == '_' || literal.front() == '_')))
            return false;
    }
    return true;
}

std::string Value::typeName() const
{
    switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Number: return "a number";
    case Kind::String: return "a str";
    case Kind::Sequence: return tuple ? "a tuple" : "a list";
    case Kind::Dict: return "a dict";
    case Kind::Unresolved: return "a value computed at run time";
    }
    return "a value";
}

Value located(Value v, const PythonModule &module, NodeId e)
{
    v.module = &module;
    v.line = module.tree().node(e).line;
    v.column = module.tree().node(e).column;
    return v;
}

Value stringValue(Value base, std::string text)
{
    base.kind = Value::Kind::String;
    base.text = std::move(text);
    base.items.clear();
    base.entries.clear();
    base.literals.clear();
    return base;
}

Value unresolved(const PythonModule &module, NodeId e, std::string why)
{
    Value v; // Unresolved
    v.text = std::move(why);
    return located(std::move(v), module, e);
}

Value ValueEvaluator::eval(const PythonModule &module, NodeId e, const Locals *locals, int depth)
{
    const AstTree &t = module.tree();
    if (depth > kMaxDepth)
        return unresolved(module, e, "an expression nested too deeply");
    Value v;
    const std::string_view type = t.node(e).type;
    if (type == "Constant") {
        const NodeId c = t.child(e, "value");
        const std::string_view leaf = c == kNoNode ? std::string_view("None") : t.node(c).type;
        if (leaf == "None") {
            v.kind = Value::Kind::None;
        } else if (leaf == "bool") {
            v.kind = Value::Kind::Bool;
            v.boolean = t.node(c).text == "True";
        } else if (leaf == "int" || leaf == "float" || leaf == "complex") {
            v.kind = Value::Kind::Number;
            v.text = t.node(c).text;
        } else if (leaf == "str") {
            v.kind = Value::Kind::String;
            v.text = t.node(c).text;
            v.parenthesized = t.parenthesized(e);
            v.literals = t.adjacentLiterals(e);
        } else if (leaf == "bytes") {
            return unresolved(module, e, "a bytes literal, not a str");
        } else {
            return unresolved(module, e, "the Ellipsis constant");
        }
    } else if (type == "Tuple" || type == "List" || type == "Set") {
        v.kind = Value::Kind::Sequence;
        v.tuple = type == "Tuple";
        for (const NodeId item : t.children(e, "elts")) {
            if (t.is(item, "Starred")) {
                // (*A, "x"): splice a known sequence in.
                Value inner = eval(module, t.child(item, "value"), locals, depth + 1);
                if (inner.kind != Value::Kind::Sequence)
                    return inner.isUnresolved() ? inner : unresolved(module, item, "a starred " + inner.typeName());
                v.items.insert(v.items.end(), inner.items.begin(), inner.items.end());
            } else {
                v.items.push_back(eval(module, item, locals, depth + 1));
            }
            if (v.items.size() > kMaxItems)
                return unresolved(module, e, "a sequence too long to read");
        }
    } else if (type == "Dict") {
        v.kind = Value::Kind::Dict;
        const Span<NodeId> keys = t.children(e, "keys");
        const Span<NodeId> values = t.children(e, "values");
        for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i) {
            if (keys[i] == kNoNode) { // {**mapping}
                Value spread = eval(module, values[i], locals, depth + 1);
                if (spread.kind != Value::Kind::Dict)
                    return spread.isUnresolved() ? spread : unresolved(module, e, "a ** of " + spread.typeName());
                v.entries.insert(v.entries.end(), spread.entries.begin(), spread.entries.end());
                continue;
            }
            const Value key = eval(module, keys[i], locals, depth + 1);
            if (key.kind != Value::Kind::String)
                return key.isUnresolved() ? key
                                          : unresolved(module, keys[i], "a dict key that is " + key.typeName() + ", not a str");
            Value value = eval(module, values[i], locals, depth + 1);
            const auto same = std::find_if(v.entries.begin(), v.entries.end(), [&](const auto &entry) { return entry.first == key.text; });
            if (same != v.entries.end())
                same->second = std::move(value); // a repeated key keeps its first position and its last value
            else
                v.entries.emplace_back(key.text, std::move(value));
            if (v.entries.size() > kMaxItems)
                return unresolved(module, e, "a dict too large to read");
        }
    } else if (type == "Name") {
        return name(module, e, locals, depth);
    } else if (type == "Call") {
        return call(module, e, locals, depth);
    } else if (type == "Subscript") {
        return subscript(module, e, locals, depth);
    } else if (type == "BinOp" && t.is(t.child(e, "op"), "Add")) {
        const Value left = eval(module, t.child(e, "left"), locals, depth + 1);
        if (left.isUnresolved())
            return left;
        const Value right = eval(module, t.child(e, "right"), locals, depth + 1);
        if (right.isUnresolved())
            return right;
        return add(left, right, module, e);
    } else if (type == "IfExp") {
        // BODY if CONDITION else OTHER: known when the condition is.
        const Value condition = eval(module, t.child(e, "test"), locals, depth + 1);
        if (condition.isUnresolved())
            return condition;
        return eval(module, t.child(e, truthValue(condition) ? "body" : "orelse"), locals, depth + 1);
    } else if (type == "UnaryOp" && t.is(t.child(e, "op"), "Not")) {
        const Value operand = eval(module, t.child(e, "operand"), locals, depth + 1);
        if (operand.isUnresolved())
            return operand;
        v.kind = Value::Kind::Bool;
        v.boolean = !truthValue(operand);
    } else {
        return unresolved(module, e, description(t, e));
    }
    return located(std::move(v), module, e);
}

Value ValueEvaluator::name(const PythonModule &module, NodeId e, const Locals *locals, int depth)
{
    const std::string &id = module.tree().text(e, "id");
    if (locals) {
        const auto it = locals->find(id);
        if (it != locals->end())
            return it->second;
    }
    const ModuleSet::Found<Constant> found = m_modules.findConstant(module, id);
    if (!found)
        return unresolved(module, e, "the name '" + id + "', which is not a constant this reader can see");
    if (found.item->assignments > 1)
        return unresolved(module, e, "the name '" + id + "', assigned more than once at module level");
    Memo &memo = m_constants[found.item];
    if (memo.inProgress)
        return unresolved(module, e, "the name '" + id + "', whose value refers to itself");
    if (memo.value.module == nullptr) {
        memo.inProgress = true;
        memo.value = eval(*found.module, found.item->value, nullptr, depth + 1); // std::map: `memo` stays valid
        memo.inProgress = false;
        if (memo.value.module == nullptr)
            memo.value.module = found.module;
    }
    return memo.value;
}

Value ValueEvaluator::call(const PythonModule &module, NodeId e, const Locals *locals, int depth)
{
    const AstTree &t = module.tree();
    const std::string callee = t.dottedName(t.child(e, "func"));
    const Span<NodeId> args = t.children(e, "args");
    const Span<NodeId> keywords = t.children(e, "keywords");
    const bool starred = std::any_of(args.begin(), args.end(), [&](NodeId a) { return t.is(a, "Starred"); });
    if ((callee == "tuple" || callee == "list" || callee == "set") && args.size() <= 1 && keywords.empty() && !starred) {
        Value v;
        v.kind = Value::Kind::Sequence;
        v.tuple = callee == "tuple";
        if (args.size() == 1) {
            Value source = eval(module, args[0], locals, depth + 1);
            if (source.kind == Value::Kind::String) {
                v.items = characters(source);
            } else if (source.kind == Value::Kind::Sequence) {
                v.items = std::move(source.items);
            } else if (source.kind == Value::Kind::Dict) {
                for (auto &entry : source.entries)
                    v.items.push_back(stringValue(entry.second, entry.first));
            } else {
                return source.isUnresolved() ? source : unresolved(module, e, callee + "() of " + source.typeName());
            }
        }
        return located(std::move(v), module, e);
    }
    if (callee == "dict" && args.size() <= 1 && !starred) {
        Value v;
        v.kind = Value::Kind::Dict;
        if (args.size() == 1) {
            Value source = eval(module, args[0], locals, depth + 1);
            if (source.kind != Value::Kind::Dict)
                return source.isUnresolved() ? source : unresolved(module, e, "dict() of " + source.typeName());
            v.entries = std::move(source.entries);
        }
        for (const NodeId k : keywords) {
            if (t.text(k, "arg").empty())
                return unresolved(module, e, "dict(**...)");
            v.entries.emplace_back(t.text(k, "arg"), eval(module, t.child(k, "value"), locals, depth + 1));
        }
        return located(std::move(v), module, e);
    }
    return unresolved(module, e, "the call " + (callee.empty() ? std::string("of an expression") : callee + "()"));
}

Value ValueEvaluator::add(const Value &left, const Value &right, const PythonModule &module, NodeId e)
{
    if (left.kind == Value::Kind::String && right.kind == Value::Kind::String) {
        if (left.text.size() + right.text.size() > kMaxStringBytes)
            return unresolved(module, e, "a str too long to read");
        Value v = left;
        v.text += right.text;
        v.parenthesized = module.tree().parenthesized(e);
        v.literals.clear(); // joined on purpose, with +
        return located(std::move(v), module, e);
    }
    if (left.kind == Value::Kind::Sequence && right.kind == Value::Kind::Sequence && left.tuple == right.tuple) {
        if (left.items.size() + right.items.size() > kMaxItems)
            return unresolved(module, e, "a sequence too long to read");
        Value v = left;
        v.items.insert(v.items.end(), right.items.begin(), right.items.end());
        return located(std::move(v), module, e);
    }
    return unresolved(module, e, left.typeName() + " + " + right.typeName() + " (Python raises TypeError)");
}

Value ValueEvaluator::subscript(const PythonModule &module, NodeId e, const Locals *locals, int depth)
{
    const AstTree &t = module.tree();
    const Value object = eval(module, t.child(e, "value"), locals, depth + 1);
    if (object.isUnresolved())
        return object;
    const NodeId slice = t.child(e, "slice");
    if (t.is(slice, "Slice"))
        return unresolved(module, e, "a slice");
    const Value index = eval(module, slice, locals, depth + 1);
    if (index.isUnresolved())
        return index;
    if (object.kind == Value::Kind::Dict && index.kind == Value::Kind::String) {
        for (const auto &entry : object.entries) {
            if (entry.first == index.text)
                return entry.second;
        }
        return unresolved(module, e, "the key '" + index.text + "', which the dict does not have");
    }
    if (object.kind == Value::Kind::Sequence && index.kind == Value::Kind::Number && !index.text.empty()
        && index.text.size() < 10 && index.text.find_first_not_of("0123456789") == std::string::npos) {
        const std::size_t i = std::stoul(index.text);
        if (i < object.items.size())
            return object.items[i];
    }
    return unresolved(module, e, "a subscript of " + object.typeName());
}

} // namespace splitscope::importer
