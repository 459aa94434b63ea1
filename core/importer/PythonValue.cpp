// SPDX-License-Identifier: MIT
#include "PythonValue.h"

#include <cctype>

namespace splitscope::importer {

namespace {

Value located(Value v, const PythonModule &module, const Expr &e)
{
    v.module = &module;
    v.line = e.line;
    v.column = e.column;
    return v;
}

std::size_t utf8Length(unsigned char lead)
{
    return lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : 4;
}

// tuple("ab") == ("a", "b"): a str iterates by code point.
std::vector<Value> characters(const Value &s)
{
    std::vector<Value> out;
    for (std::size_t i = 0; i < s.text.size();) {
        const std::size_t n = std::min(utf8Length(static_cast<unsigned char>(s.text[i])), s.text.size() - i);
        Value c = s;
        c.text = s.text.substr(i, n);
        c.parenthesized = false;
        c.literals.clear();
        out.push_back(std::move(c));
        i += n;
    }
    return out;
}

const char *exprDescription(const Expr &e)
{
    switch (e.kind) {
    case ExprKind::Attribute: return "an attribute";
    case ExprKind::Call: return "a call";
    case ExprKind::Comprehension: return "a comprehension (built in a loop)";
    case ExprKind::Starred: return "a starred expression";
    case ExprKind::Slice: return "a slice";
    case ExprKind::Operation:
        if (e.text == "if")
            return "a conditional expression";
        if (e.text == "and" || e.text == "or" || e.text == "not")
            return "a boolean expression";
        if (e.text == "lambda")
            return "a lambda";
        return "an operator expression";
    default: return "an expression";
    }
}

} // namespace

bool truthValue(const Value &v)
{
    switch (v.kind) {
    case Value::Kind::Bool: return v.boolean;
    case Value::Kind::Number: {
        // 0, 0.0, 0e5, 0x0, 0j are false; any other literal is true.
        const std::string &t = v.text;
        const bool prefixed = t.size() > 2 && t[0] == '0' && std::isalpha(static_cast<unsigned char>(t[1]));
        if (prefixed)
            return t.find_first_of("123456789abcdefABCDEF", 2) != std::string::npos;
        return t.substr(0, t.find_first_of("eEjJ")).find_first_of("123456789") != std::string::npos;
    }
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
        if (literal.empty())
            return false;
        if (i > 0 && (value.literals[i - 1].back() == '_' || literal.front() == '_'))
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

Value unresolved(const PythonModule &module, const Expr &e, std::string why)
{
    Value v;
    v.kind = Value::Kind::Unresolved;
    v.text = std::move(why);
    return located(std::move(v), module, e);
}

Value ValueEvaluator::evaluate(const PythonModule &module, int expr, const Locals *locals)
{
    return eval(module, expr, locals, 0);
}

Value ValueEvaluator::evaluate(const PythonModule &module, TokenRange range, const Locals *locals)
{
    PythonModule::ParseError error;
    const int expr = module.parseExpression(range, &error);
    if (expr < 0) {
        Value v;
        v.text = "an expression this reader cannot parse (" + error.message + ")";
        v.module = &module;
        v.line = error.line;
        v.column = error.column;
        return v;
    }
    return eval(module, expr, locals, 0);
}

Value ValueEvaluator::eval(const PythonModule &module, int expr, const Locals *locals, int depth)
{
    const Expr &e = module.arena().at(expr);
    if (depth > kMaxDepth)
        return unresolved(module, e, "an expression nested too deeply");
    Value v;
    switch (e.kind) {
    case ExprKind::Constant:
        if (e.text == "None") {
            v.kind = Value::Kind::None;
        } else if (e.text == "True" || e.text == "False") {
            v.kind = Value::Kind::Bool;
            v.boolean = e.text == "True";
        } else {
            return unresolved(module, e, "the Ellipsis constant");
        }
        break;
    case ExprKind::Number:
        v.kind = Value::Kind::Number;
        v.text = e.text;
        break;
    case ExprKind::String:
        if (e.fString)
            return unresolved(module, e, "an f-string (its text is built at run time)");
        if (e.bytes)
            return unresolved(module, e, "a bytes literal, not a str");
        v.kind = Value::Kind::String;
        v.text = e.text;
        v.parenthesized = e.parenthesized;
        v.literals = e.literals;
        break;
    case ExprKind::Tuple:
    case ExprKind::List:
    case ExprKind::Set:
        v.kind = Value::Kind::Sequence;
        v.tuple = e.kind == ExprKind::Tuple;
        for (const int item : e.items) {
            const Expr &element = module.arena().at(item);
            if (element.kind == ExprKind::Starred) {
                // (*A, "x"): splice a known sequence in.
                Value inner = eval(module, element.items.at(0), locals, depth + 1);
                if (inner.kind != Value::Kind::Sequence)
                    return inner.isUnresolved() ? inner : unresolved(module, element, "a starred " + inner.typeName());
                for (Value &x : inner.items)
                    v.items.push_back(std::move(x));
            } else {
                v.items.push_back(eval(module, item, locals, depth + 1));
            }
            if (v.items.size() > kMaxItems)
                return unresolved(module, e, "a sequence too long to read");
        }
        break;
    case ExprKind::Dict:
        v.kind = Value::Kind::Dict;
        for (std::size_t i = 0; i + 1 < e.items.size(); i += 2) {
            Value key;
            if (e.items[i] < 0) {
                Value spread = eval(module, e.items[i + 1], locals, depth + 1);
                if (spread.kind != Value::Kind::Dict)
                    return spread.isUnresolved() ? spread : unresolved(module, e, "a ** of " + spread.typeName());
                for (auto &entry : spread.entries)
                    v.entries.push_back(std::move(entry));
                continue;
            }
            key = eval(module, e.items[i], locals, depth + 1);
            if (key.kind != Value::Kind::String)
                return key.isUnresolved() ? key
                                          : unresolved(module, module.arena().at(e.items[i]), "a dict key that is " + key.typeName() + ", not a str");
            Value value = eval(module, e.items[i + 1], locals, depth + 1);
            bool replaced = false;
            for (auto &entry : v.entries) {
                if (entry.first == key.text) {
                    entry.second = value; // a repeated key keeps its first position and its last value, as in Python
                    replaced = true;
                }
            }
            if (!replaced)
                v.entries.emplace_back(key.text, std::move(value));
            if (v.entries.size() > kMaxItems)
                return unresolved(module, e, "a dict too large to read");
        }
        break;
    case ExprKind::Name:
        return name(module, e, locals, depth);
    case ExprKind::Call:
        return call(module, e, locals, depth);
    case ExprKind::Subscript:
        return subscript(module, e, locals, depth);
    case ExprKind::Operation:
        if (e.text == "+" && e.items.size() == 2) {
            const Value left = eval(module, e.items[0], locals, depth + 1);
            if (left.isUnresolved())
                return left;
            const Value right = eval(module, e.items[1], locals, depth + 1);
            if (right.isUnresolved())
                return right;
            return add(left, right, module, e);
        }
        if (e.text == "if" && e.items.size() == 3) {
            // BODY if CONDITION else OTHER: known when the condition is.
            const Value condition = eval(module, e.items[1], locals, depth + 1);
            if (condition.isUnresolved())
                return condition;
            return eval(module, truthValue(condition) ? e.items[0] : e.items[2], locals, depth + 1);
        }
        if (e.text == "not" && e.items.size() == 1) {
            const Value operand = eval(module, e.items[0], locals, depth + 1);
            if (operand.isUnresolved())
                return operand;
            v.kind = Value::Kind::Bool;
            v.boolean = !truthValue(operand);
            break;
        }
        return unresolved(module, e, std::string(exprDescription(e)) + " ('" + e.text + "')");
    default:
        return unresolved(module, e, exprDescription(e));
    }
    return located(std::move(v), module, e);
}

Value ValueEvaluator::name(const PythonModule &module, const Expr &e, const Locals *locals, int depth)
{
    if (locals) {
        const auto it = locals->find(e.text);
        if (it != locals->end())
            return it->second;
    }
    const ModuleSet::Found<Constant> found = m_modules.findConstant(module, e.text);
    if (!found)
        return unresolved(module, e, "the name '" + e.text + "', which is not a constant this reader can see");
    if (found.item->assignments > 1)
        return unresolved(module, e, "the name '" + e.text + "', assigned more than once at module level");
    Memo &memo = m_constants[found.item];
    if (memo.inProgress)
        return unresolved(module, e, "the name '" + e.text + "', whose value refers to itself");
    if (memo.value.module == nullptr) {
        memo.inProgress = true;
        Value computed;
        PythonModule::ParseError error;
        const int expr = found.module->parseExpression(found.item->value, &error);
        if (expr < 0) {
            computed.text = "the constant '" + e.text + "', whose value this reader cannot parse (" + error.message + ")";
            computed.module = found.module;
            computed.line = error.line;
            computed.column = error.column;
        } else {
            computed = eval(*found.module, expr, nullptr, depth + 1);
        }
        // m_constants may have grown while evaluating; look the entry up again.
        Memo &done = m_constants[found.item];
        done.value = std::move(computed);
        done.inProgress = false;
        if (done.value.module == nullptr)
            done.value.module = found.module;
        return done.value;
    }
    return memo.value;
}

Value ValueEvaluator::call(const PythonModule &module, const Expr &e, const Locals *locals, int depth)
{
    const std::string callee = module.arena().dottedName(e.items.at(0));
    const std::size_t positional = e.items.size() - 1;
    if ((callee == "tuple" || callee == "list" || callee == "set") && positional <= 1 && e.keywords.empty()) {
        Value v;
        v.kind = Value::Kind::Sequence;
        v.tuple = callee == "tuple";
        if (positional == 1) {
            Value source = eval(module, e.items[1], locals, depth + 1);
            if (source.kind == Value::Kind::String)
                v.items = characters(source);
            else if (source.kind == Value::Kind::Sequence)
                v.items = std::move(source.items);
            else if (source.kind == Value::Kind::Dict)
                for (auto &entry : source.entries) {
                    Value key = entry.second;
                    key.kind = Value::Kind::String;
                    key.text = entry.first;
                    key.items.clear();
                    key.entries.clear();
                    key.literals.clear();
                    v.items.push_back(std::move(key));
                }
            else
                return source.isUnresolved() ? source : unresolved(module, e, callee + "() of " + source.typeName());
        }
        return located(std::move(v), module, e);
    }
    if (callee == "dict" && positional <= 1) {
        Value v;
        v.kind = Value::Kind::Dict;
        if (positional == 1) {
            Value source = eval(module, e.items[1], locals, depth + 1);
            if (source.kind != Value::Kind::Dict)
                return source.isUnresolved() ? source : unresolved(module, e, "dict() of " + source.typeName());
            v.entries = std::move(source.entries);
        }
        for (const auto &[key, valueExpr] : e.keywords) {
            if (key == "**")
                return unresolved(module, e, "dict(**...)");
            v.entries.emplace_back(key, eval(module, valueExpr, locals, depth + 1));
        }
        return located(std::move(v), module, e);
    }
    return unresolved(module, e, "the call " + (callee.empty() ? std::string("of an expression") : callee + "()"));
}

Value ValueEvaluator::add(const Value &left, const Value &right, const PythonModule &module, const Expr &e)
{
    if (left.kind == Value::Kind::String && right.kind == Value::Kind::String) {
        if (left.text.size() + right.text.size() > kMaxStringBytes)
            return unresolved(module, e, "a str too long to read");
        Value v = left;
        v.text += right.text;
        v.parenthesized = e.parenthesized;
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

Value ValueEvaluator::subscript(const PythonModule &module, const Expr &e, const Locals *locals, int depth)
{
    const Value object = eval(module, e.items.at(0), locals, depth + 1);
    if (object.isUnresolved())
        return object;
    const Expr &indexExpr = module.arena().at(e.items.at(1));
    if (indexExpr.kind == ExprKind::Slice)
        return unresolved(module, e, "a slice");
    const Value index = eval(module, e.items.at(1), locals, depth + 1);
    if (index.isUnresolved())
        return index;
    if (object.kind == Value::Kind::Dict && index.kind == Value::Kind::String) {
        for (const auto &entry : object.entries) {
            if (entry.first == index.text)
                return entry.second;
        }
        return unresolved(module, e, "the key '" + index.text + "', which the dict does not have");
    }
    if (object.kind == Value::Kind::Sequence && index.kind == Value::Kind::Number) {
        long long i = 0;
        bool digits = !index.text.empty() && index.text.size() < 10;
        for (const char c : index.text) {
            digits = digits && c >= '0' && c <= '9';
            i = i * 10 + (c - '0');
        }
        if (digits && i < static_cast<long long>(object.items.size()))
            return object.items[static_cast<std::size_t>(i)];
    }
    return unresolved(module, e, "a subscript of " + object.typeName());
}

} // namespace splitscope::importer
