// SPDX-License-Identifier: MIT
#include "ImportContext.h"

namespace splitscope::importer {

CallArguments evaluateCallArguments(ImportContext &context, const PythonModule &module, int call,
    const Locals *locals, std::size_t skip)
{
    CallArguments out;
    const Expr &e = module.arena().at(call);
    for (std::size_t i = 1 + skip; i < e.items.size(); ++i) {
        const Expr &argument = module.arena().at(e.items[i]);
        if (argument.kind != ExprKind::Starred) {
            out.positional.push_back(context.evaluator().evaluate(module, e.items[i], locals));
            continue;
        }
        // f(*ARGS): spliced in when ARGS is a known sequence.
        Value spread = context.evaluator().evaluate(module, argument.items.at(0), locals);
        if (spread.kind == Value::Kind::Sequence) {
            for (Value &v : spread.items)
                out.positional.push_back(std::move(v));
        } else {
            if (!spread.isUnresolved())
                spread = unresolved(module, argument, "a *-argument that is " + spread.typeName());
            // Reported where the call spreads it, not where the value was defined.
            spread.module = &module;
            spread.line = argument.line;
            spread.column = argument.column;
            out.unknownSpreads.push_back(std::move(spread));
        }
    }
    for (const auto &[name, valueExpr] : e.keywords) {
        Value value = context.evaluator().evaluate(module, valueExpr, locals);
        if (name != "**") {
            out.keywords.emplace_back(name, std::move(value));
        } else if (value.kind == Value::Kind::Dict) {
            for (auto &entry : value.entries)
                out.keywords.push_back(std::move(entry));
        } else {
            const Expr &argument = module.arena().at(valueExpr);
            if (!value.isUnresolved())
                value = unresolved(module, argument, "a **-argument that is " + value.typeName());
            value.module = &module;
            value.line = argument.line;
            value.column = argument.column;
            out.unknownSpreads.push_back(std::move(value));
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
        if (p.defaultValue.empty()) {
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
    std::vector<BaseClass> out;
    for (const int base : cls.bases) {
        BaseClass b;
        b.line = cls.line;
        b.column = cls.column;
        if (base < 0) {
            out.push_back(std::move(b));
            continue;
        }
        const Expr &e = module.arena().at(base);
        b.line = e.line;
        b.column = e.column;
        const std::string dotted = module.arena().dottedName(base);
        if (dotted.empty()) {
            // Generic[T], a call, ...: not a plain class name.
            out.push_back(std::move(b));
            continue;
        }
        b.name = modules.originalName(module, dotted);
        b.definition = modules.findClass(module, dotted);
        if (b.definition.item == &cls)
            b.definition = {}; // `class A(A)` names an earlier A, which this reader does not keep
        out.push_back(std::move(b));
    }
    return out;
}

std::optional<SuperInitCall> superInitCall(const PythonModule &module, int expression)
{
    if (expression < 0)
        return std::nullopt;
    const ExprArena &arena = module.arena();
    const Expr &call = arena.at(expression);
    if (call.kind != ExprKind::Call)
        return std::nullopt;
    const Expr &callee = arena.at(call.items.at(0));
    if (callee.kind != ExprKind::Attribute || callee.text != "__init__")
        return std::nullopt;
    const Expr &object = arena.at(callee.items.at(0));
    SuperInitCall out;
    out.call = expression;
    if (object.kind == ExprKind::Call && arena.at(object.items.at(0)).kind == ExprKind::Name
        && arena.at(object.items.at(0)).text == "super")
        return out;
    const std::string base = arena.dottedName(callee.items.at(0));
    if (base.empty() || base == "self")
        return std::nullopt;
    out.explicitBase = base;
    out.skip = 1;
    return out;
}

namespace {

void flattenInto(const PythonModule &module, const std::vector<Statement> &body, bool conditional, bool loop,
    std::vector<BodyStatement> &out)
{
    for (const Statement &s : body) {
        const std::string &keyword = s.keyword(module.tokens());
        if (keyword == "def" || keyword == "class" || (keyword == "async" && s.tokens.last - s.tokens.first > 1
                && module.tokens()[s.tokens.first + 1].isName("def")))
            continue; // nested definitions do not run here
        if (s.body.empty()) {
            out.push_back({&s, conditional, loop});
            continue;
        }
        const bool isLoop = keyword == "for" || keyword == "while" || keyword == "async";
        const bool isConditional = keyword == "if" || keyword == "elif" || keyword == "else" || keyword == "except"
            || keyword == "match" || keyword == "case" || isLoop;
        flattenInto(module, s.body, conditional || isConditional, loop || isLoop, out);
    }
}

} // namespace

std::vector<BodyStatement> flattenBody(const PythonModule &module, const std::vector<Statement> &body)
{
    std::vector<BodyStatement> out;
    flattenInto(module, body, false, false, out);
    return out;
}

} // namespace splitscope::importer
