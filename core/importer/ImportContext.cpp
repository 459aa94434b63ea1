// SPDX-License-Identifier: MIT
#include "ImportContext.h"

#include <algorithm>
#include <set>

namespace splitscope::importer {

void ImportContext::report(Severity severity, const char *code, const PythonModule &module, int line, int column,
    std::string where, std::string message)
{
    if (m_diagnostics.size() > kMaxDiagnostics)
        return;
    const std::string key = std::string(code) + '\n' + module.fileName() + '\n' + std::to_string(line) + ':'
        + std::to_string(column) + '\n' + where + '\n' + message;
    if (!m_seen.insert(key).second)
        return;
    if (m_diagnostics.size() == kMaxDiagnostics) {
        // A warning, visible without --verbose: the list is incomplete.
        m_diagnostics.push_back({Severity::Warning, "too-many-diagnostics", module.fileName(), {}, line, column,
            "more than " + std::to_string(kMaxDiagnostics) + " diagnostics; the rest are not listed"});
        return;
    }
    m_diagnostics.push_back({severity, code, module.fileName(), std::move(where), line, column, std::move(message)});
}

bool contains(const std::vector<std::string> &list, std::string_view item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::string joined(const std::vector<std::string> &items, const char *separator)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

CallArguments evaluateCallArguments(ImportContext &context, const PythonModule &module, NodeId call,
    const Locals *locals, std::size_t skip)
{
    const AstTree &t = module.tree();
    CallArguments out;
    const Span<NodeId> args = t.children(call, "args");
    // A spread's unknown contents are reported where the call spreads it.
    const auto unknownSpread = [&](Value value, NodeId argument, const char *stars) {
        if (!value.isUnresolved())
            value = unresolved(module, argument, std::string("a ") + stars + "-argument that is " + value.typeName());
        out.unknownSpreads.push_back(located(std::move(value), module, argument));
    };
    for (std::size_t i = skip; i < args.size(); ++i) {
        // f(*ARGS): spliced in when ARGS is a known sequence.
        const bool starred = t.is(args[i], "Starred");
        Value value = context.evaluator().evaluate(module, starred ? t.child(args[i], "value") : args[i], locals);
        if (!starred)
            out.positional.push_back(std::move(value));
        else if (value.kind == Value::Kind::Sequence)
            out.positional.insert(out.positional.end(), value.items.begin(), value.items.end());
        else
            unknownSpread(std::move(value), args[i], "*");
    }
    for (const NodeId k : t.children(call, "keywords")) {
        Value value = context.evaluator().evaluate(module, t.child(k, "value"), locals);
        const std::string &name = t.text(k, "arg");
        if (!name.empty()) {
            out.keywords.emplace_back(name, std::move(value));
        } else if (value.kind == Value::Kind::Dict) {
            out.keywords.insert(out.keywords.end(), value.entries.begin(), value.entries.end());
        } else {
            unknownSpread(std::move(value), k, "**");
        }
    }
    return out;
}

Locals bindParameters(ImportContext &context, const PythonModule &module, const FunctionDef &function,
    const CallArguments &arguments, bool isMethod, const std::string &where)
{
    const std::vector<Parameter> &parameters = function.parameters;
    const std::size_t first = isMethod && !parameters.empty() ? 1 : 0;
    std::vector<const Parameter *> positional;
    for (std::size_t i = first; i < parameters.size(); ++i) {
        if (parameters[i].kind == Parameter::Kind::Positional)
            positional.push_back(&parameters[i]);
    }
    const auto has = [&](Parameter::Kind kind) {
        const auto ofKind = [&](const Parameter &p) { return p.kind == kind; };
        return std::any_of(parameters.begin() + static_cast<std::ptrdiff_t>(first), parameters.end(), ofKind);
    };
    Locals locals;
    const std::string callee = function.name + "()";
    for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
        if (i < positional.size()) {
            locals[positional[i]->name] = arguments.positional[i];
        } else if (!has(Parameter::Kind::VarPositional)) {
            context.report(Severity::Warning, "unexpected-argument", arguments.positional[i], module, where,
                callee + " takes " + std::to_string(positional.size())
                    + (positional.size() == 1 ? " positional argument" : " positional arguments")
                    + "; this one is ignored");
        }
    }
    for (const auto &[name, value] : arguments.keywords) {
        bool bound = false;
        for (const Parameter &p : parameters) {
            if (p.name == name && (p.kind == Parameter::Kind::Positional || p.kind == Parameter::Kind::KeywordOnly)) {
                locals[name] = value;
                bound = true;
            }
        }
        if (!bound && !has(Parameter::Kind::VarKeyword))
            context.report(Severity::Warning, "unexpected-argument", value, module, where,
                callee + " has no parameter '" + name + "'; the argument is ignored");
    }
    const auto unknown = [&](const Parameter &p, std::string why) {
        Value v; // Unresolved
        v.text = std::move(why);
        return located(std::move(v), module, p.node);
    };
    for (std::size_t i = first; i < parameters.size(); ++i) {
        const Parameter &p = parameters[i];
        if (p.kind == Parameter::Kind::VarPositional || p.kind == Parameter::Kind::VarKeyword) {
            const char *stars = p.kind == Parameter::Kind::VarKeyword ? "**" : "*";
            locals[p.name] = unknown(p, "the parameter '" + (stars + p.name) + "' (its contents come from the caller)");
        } else if (locals.count(p.name)) {
            continue;
        } else if (!arguments.unknownSpreads.empty()) {
            // The *args/**kwargs of the call may set it; which value it gets is not known.
            Value v = arguments.unknownSpreads.front();
            v.text = "the parameter '" + p.name + "', which " + v.text + " may set";
            locals[p.name] = std::move(v);
        } else if (p.defaultValue == kNoNode) {
            context.report(Severity::Warning, "missing-argument", module, p.node, where,
                callee + " needs the argument '" + p.name + "', which the call does not pass");
            locals[p.name] = unknown(p, "the parameter '" + p.name + "', which the call does not set");
        } else {
            locals[p.name] = context.evaluator().evaluate(module, p.defaultValue);
        }
    }
    return locals;
}

std::vector<BaseClass> baseClasses(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls)
{
    const AstTree &t = module.tree();
    std::vector<BaseClass> out;
    for (const NodeId base : cls.bases) {
        BaseClass b{std::string(), {}, base};
        const std::string dotted = t.dottedName(base);
        if (!dotted.empty()) { // not Generic[T], a call, ...
            b.name = modules.originalName(module, dotted);
            b.definition = modules.findClass(module, dotted);
            if (b.definition.item == &cls)
                b.definition = {}; // `class A(A)` names an earlier A, which this reader does not keep
        }
        out.push_back(std::move(b));
    }
    return out;
}

ModuleSet::Found<FunctionDef> findMethod(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls,
    const std::string &name, int depth)
{
    if (const FunctionDef *f = cls.method(name))
        return {&module, f};
    constexpr int kMaxClassDepth = 16; // also ends cycles
    for (const BaseClass &base : baseClasses(modules, module, cls)) {
        if (depth < kMaxClassDepth && base.definition && base.name != "PipelineUnit") {
            if (auto found = findMethod(modules, *base.definition.module, *base.definition.item, name, depth + 1))
                return found;
        }
    }
    return {};
}

bool isTorchModule(const ImportContext &context, const PythonModule &module, const ClassDef &cls)
{
    std::vector<std::pair<const PythonModule *, const ClassDef *>> pending{{&module, &cls}};
    for (int visited = 0; !pending.empty(); ++visited) {
        if (visited > 64)
            return true; // a chain this long is not a plain helper class
        const auto [m, c] = pending.back();
        pending.pop_back();
        for (const NodeId base : c->bases) {
            const std::string name = m->tree().dottedName(base);
            const std::string last = lastComponent(name);
            if (last == "object" || last == "ABC" || last == "Protocol")
                continue;
            if (last == "Module")
                return true;
            const auto found = name.empty() ? ModuleSet::Found<ClassDef>() : context.findClass(*m, name);
            if (!found || found.item == c)
                return true; // not known to be anything else
            pending.emplace_back(found.module, found.item);
        }
    }
    return false;
}

std::optional<SuperInitCall> superInitCall(const AstTree &t, NodeId expression)
{
    const NodeId callee = t.is(expression, "Call") ? t.child(expression, "func") : kNoNode;
    if (!t.is(callee, "Attribute") || t.text(callee, "attr") != "__init__")
        return std::nullopt;
    const NodeId object = t.child(callee, "value");
    if (t.is(object, "Call") && t.dottedName(t.child(object, "func")) == "super")
        return SuperInitCall{expression, 0, std::string()};
    const std::string base = t.dottedName(object);
    if (base.empty() || base == "self")
        return std::nullopt;
    return SuperInitCall{expression, 1, base};
}

std::string randomCallName(const std::vector<std::string> &chain)
{
    static const std::set<std::string> kRandomFunctions = {"generate_noise", "randn", "randn_like", "rand",
        "rand_like", "randint", "randint_like", "randperm", "normal", "normal_", "uniform_", "bernoulli", "bernoulli_",
        "multinomial", "poisson", "exponential_", "geometric_", "cauchy_", "log_normal_", "random_", "sample", "rsample"};
    const bool random = !chain.empty() && (kRandomFunctions.count(chain.back()) || contains(chain, "random"));
    return random ? joined(chain, ".") : std::string();
}

std::optional<RandomCall> randomCall(const AstTree &tree, NodeId node)
{
    for (NodeId id = node; id >= 0 && id < tree.node(node).end; ++id) {
        std::string name = tree.is(id, "Call") ? randomCallName(attributeChain(tree, tree.child(id, "func"))) : "";
        if (!name.empty())
            return RandomCall{std::move(name), tree.node(id).line};
    }
    return std::nullopt;
}

namespace {

void flattenInto(const AstTree &t, Span<NodeId> body, bool conditional, bool loop, std::vector<BodyStatement> &out)
{
    for (const NodeId s : body) {
        const std::string_view type = t.node(s).type;
        if (type == "FunctionDef" || type == "AsyncFunctionDef" || type == "ClassDef")
            continue; // nested definitions do not run here
        if (type == "If") {
            flattenInto(t, t.children(s, "body"), true, loop, out);
            flattenInto(t, t.children(s, "orelse"), true, loop, out);
        } else if (type == "For" || type == "AsyncFor" || type == "While") {
            flattenInto(t, t.children(s, "body"), true, true, out);
            flattenInto(t, t.children(s, "orelse"), true, loop, out);
        } else if (type == "Try" || type == "TryStar") {
            flattenInto(t, t.children(s, "body"), conditional, loop, out);
            for (const NodeId handler : t.children(s, "handlers"))
                flattenInto(t, t.children(handler, "body"), true, loop, out);
            flattenInto(t, t.children(s, "orelse"), true, loop, out);
            flattenInto(t, t.children(s, "finalbody"), conditional, loop, out);
        } else if (type == "With" || type == "AsyncWith") {
            flattenInto(t, t.children(s, "body"), conditional, loop, out);
        } else if (type == "Match") {
            for (const NodeId c : t.children(s, "cases"))
                flattenInto(t, t.children(c, "body"), true, loop, out);
        } else {
            out.push_back({s, conditional, loop});
        }
    }
}

} // namespace

std::vector<BodyStatement> flattenBody(const AstTree &tree, NodeId function)
{
    std::vector<BodyStatement> out;
    flattenInto(tree, tree.children(function, "body"), false, false, out);
    return out;
}

} // namespace splitscope::importer
