// SPDX-License-Identifier: MIT
#include "ImportContext.h"

#include <algorithm>
#include <set>

namespace splitscope::importer {

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
        value.module = &module;
        value.line = t.node(argument).line;
        value.column = t.node(argument).column;
        out.unknownSpreads.push_back(std::move(value));
    };
    for (std::size_t i = skip; i < args.size(); ++i) {
        if (!t.is(args[i], "Starred")) {
            out.positional.push_back(context.evaluator().evaluate(module, args[i], locals));
            continue;
        }
        // f(*ARGS): spliced in when ARGS is a known sequence.
        Value spread = context.evaluator().evaluate(module, t.child(args[i], "value"), locals);
        if (spread.kind == Value::Kind::Sequence) {
            for (Value &v : spread.items)
                out.positional.push_back(std::move(v));
        } else {
            unknownSpread(std::move(spread), args[i], "*");
        }
    }
    for (const NodeId k : t.children(call, "keywords")) {
        Value value = context.evaluator().evaluate(module, t.child(k, "value"), locals);
        const std::string &name = t.text(k, "arg");
        if (!name.empty()) {
            out.keywords.emplace_back(name, std::move(value));
        } else if (value.kind == Value::Kind::Dict) {
            for (auto &entry : value.entries)
                out.keywords.push_back(std::move(entry));
        } else {
            unknownSpread(std::move(value), k, "**");
        }
    }
    return out;
}

Locals bindParameters(ImportContext &context, const PythonModule &module, const FunctionDef &function,
    const CallArguments &arguments, bool isMethod, const std::string &where)
{
    Locals locals;
    std::vector<const Parameter *> positional;
    const Parameter *varPositional = nullptr;
    const Parameter *varKeyword = nullptr;
    for (std::size_t i = isMethod ? 1 : 0; i < function.parameters.size(); ++i) {
        const Parameter &p = function.parameters[i];
        if (p.kind == Parameter::Kind::Positional)
            positional.push_back(&p);
        else if (p.kind == Parameter::Kind::VarPositional)
            varPositional = &p;
        else if (p.kind == Parameter::Kind::VarKeyword)
            varKeyword = &p;
    }
    const std::string callee = function.name + "()";
    for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
        if (i < positional.size()) {
            locals[positional[i]->name] = arguments.positional[i];
        } else if (!varPositional) {
            context.report(Severity::Warning, "unexpected-argument", arguments.positional[i], module, where,
                callee + " takes " + std::to_string(positional.size())
                    + (positional.size() == 1 ? " positional argument" : " positional arguments")
                    + "; this one is ignored");
        }
    }
    for (const auto &[name, value] : arguments.keywords) {
        bool bound = false;
        for (const Parameter &p : function.parameters) {
            if (p.name == name && (p.kind == Parameter::Kind::Positional || p.kind == Parameter::Kind::KeywordOnly)) {
                locals[name] = value;
                bound = true;
            }
        }
        if (!bound && !varKeyword) {
            context.report(Severity::Warning, "unexpected-argument", value, module, where,
                callee + " has no parameter '" + name + "'; the argument is ignored");
        }
    }
    for (const Parameter &p : function.parameters) {
        if (&p == &function.parameters.front() && isMethod)
            continue;
        if (p.kind == Parameter::Kind::VarPositional || p.kind == Parameter::Kind::VarKeyword) {
            Value unknown;
            unknown.text = "the parameter '" + std::string(p.kind == Parameter::Kind::VarKeyword ? "**" : "*") + p.name
                + "' (its contents come from the caller)";
            unknown.module = &module;
            unknown.line = p.line;
            unknown.column = p.column;
            locals[p.name] = std::move(unknown);
            continue;
        }
        if (locals.count(p.name))
            continue;
        if (!arguments.unknownSpreads.empty()) {
            // The *args/**kwargs of the call may set it; which value it gets is not known.
            Value unknown = arguments.unknownSpreads.front();
            unknown.text = "the parameter '" + p.name + "', which " + unknown.text + " may set";
            locals[p.name] = std::move(unknown);
            continue;
        }
        if (p.defaultValue == kNoNode) {
            context.report(Severity::Warning, "missing-argument", module, p.line, p.column, where,
                callee + " needs the argument '" + p.name + "', which the call does not pass");
            Value unknown;
            unknown.text = "the parameter '" + p.name + "', which the call does not set";
            unknown.module = &module;
            unknown.line = p.line;
            unknown.column = p.column;
            locals[p.name] = std::move(unknown);
            continue;
        }
        locals[p.name] = context.evaluator().evaluate(module, p.defaultValue);
    }
    return locals;
}

std::vector<BaseClass> baseClasses(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls)
{
    const AstTree &t = module.tree();
    std::vector<BaseClass> out;
    for (const NodeId base : cls.bases) {
        BaseClass b;
        b.line = t.node(base).line;
        b.column = t.node(base).column;
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

namespace {

ModuleSet::Found<FunctionDef> findMethodFrom(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls,
    const std::string &name, int depth)
{
    if (const FunctionDef *f = cls.method(name))
        return {&module, f};
    constexpr int kMaxClassDepth = 16; // also ends cycles
    for (const BaseClass &base : baseClasses(modules, module, cls)) {
        if (depth < kMaxClassDepth && base.definition && base.name != "PipelineUnit") {
            if (auto found = findMethodFrom(modules, *base.definition.module, *base.definition.item, name, depth + 1))
                return found;
        }
    }
    return {};
}

} // namespace

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
            const std::string last = name.substr(name.find_last_of('.') == std::string::npos ? 0 : name.find_last_of('.') + 1);
            if (last == "object" || last == "ABC" || last == "Protocol")
                continue;
            if (last == "Module")
                return true;
            const ModuleSet::Found<ClassDef> found = name.empty() ? ModuleSet::Found<ClassDef>{} : context.findClass(*m, name);
            if (!found || found.item == c)
                return true; // not known to be anything else
            pending.emplace_back(found.module, found.item);
        }
    }
    return false;
}

ModuleSet::Found<FunctionDef> findMethod(const ModuleSet &modules, const PythonModule &module, const ClassDef &cls,
    const std::string &name)
{
    return findMethodFrom(modules, module, cls, name, 0);
}

std::optional<SuperInitCall> superInitCall(const AstTree &t, NodeId expression)
{
    if (!t.is(expression, "Call"))
        return std::nullopt;
    const NodeId callee = t.child(expression, "func");
    if (!t.is(callee, "Attribute") || t.text(callee, "attr") != "__init__")
        return std::nullopt;
    const NodeId object = t.child(callee, "value");
    SuperInitCall out;
    out.call = expression;
    if (t.is(object, "Call") && t.dottedName(t.child(object, "func")) == "super")
        return out;
    const std::string base = t.dottedName(object);
    if (base.empty() || base == "self")
        return std::nullopt;
    out.explicitBase = base;
    out.skip = 1;
    return out;
}

std::string randomCallName(const std::vector<std::string> &chain)
{
    static const std::set<std::string> kRandomFunctions = {"generate_noise", "randn", "randn_like", "rand",
        "rand_like", "randint", "randint_like", "randperm", "normal", "normal_", "uniform_", "bernoulli", "bernoulli_",
        "multinomial", "poisson", "exponential_", "geometric_", "cauchy_", "log_normal_", "random_", "sample", "rsample"};
    if (chain.empty()
        || (!kRandomFunctions.count(chain.back()) && std::find(chain.begin(), chain.end(), "random") == chain.end()))
        return {};
    std::string name;
    for (const std::string &part : chain)
        name += (name.empty() ? "" : ".") + part;
    return name;
}

std::optional<RandomCall> randomCall(const AstTree &tree, NodeId node)
{
    for (NodeId id = node; id >= 0 && id < tree.node(node).end; ++id) {
        if (!tree.is(id, "Call"))
            continue;
        std::string name = randomCallName(attributeChain(tree, tree.child(id, "func")));
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
