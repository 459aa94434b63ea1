// SPDX-License-Identifier: MIT
#include "TrainingScript.h"

namespace splitscope::importer {

namespace {

// The units a method of the training module's bases adds to `pipe.units`, and the
// parameter whose None makes it return before: `call` passes the arguments.
void readAddedUnits(const PythonModule &module, const FunctionDef &method, const AstTree &callTree, NodeId call,
    const std::map<std::string, std::string> &flagOf, int line, TrainingScript &out)
{
    const AstTree &t = module.tree();
    std::map<std::string, NodeId> argumentOf; // the method's parameter -> the argument in train.py
    const Span<NodeId> args = callTree.children(call, "args");
    for (std::size_t i = 0; i < args.size() && i + 1 < method.parameters.size(); ++i)
        argumentOf[method.parameters[i + 1].name] = args[i];
    for (const NodeId k : callTree.children(call, "keywords"))
        argumentOf[callTree.text(k, "arg")] = callTree.child(k, "value");
    std::string pipe;
    for (const auto &[parameter, argument] : argumentOf) {
        if (attributeOf(callTree, argument) == "pipe")
            pipe = parameter;
    }
    TrainingScript::AddedUnits added;
    added.module = &module;
    added.line = line;
    std::map<std::string, NodeId> lists; // locals assigned a list display
    for (const NodeId s : t.children(method.node, "body")) {
        const NodeId test = t.child(s, "test");
        // `if PARAM is None: return ...`: nothing is added unless PARAM is given.
        if (t.is(s, "If") && t.is(test, "Compare") && t.is(t.child(test, "left"), "Name")
            && t.is(t.children(test, "ops")[0], "Is") && t.is(t.children(test, "comparators")[0], "Constant")
            && t.child(t.children(test, "comparators")[0], "value") == kNoNode
            && t.is(t.children(s, "body")[0], "Return")) {
            const auto argument = argumentOf.find(t.text(t.child(test, "left"), "id"));
            if (argument != argumentOf.end() && callTree.is(argument->second, "Name")) {
                const std::string &name = callTree.text(argument->second, "id");
                added.flag = flagOf.count(name) ? flagOf.at(name) : name;
            }
        }
        const std::optional<Assignment> a = readAssignment(t, s);
        if (!a || a->targets.size() != 1 || a->value == kNoNode)
            continue;
        if (t.is(a->targets[0], "Name") && t.is(a->value, "List"))
            lists[t.text(a->targets[0], "id")] = a->value;
        const NodeId units = a->targets[0];
        if (pipe.empty() || attributeOf(t, units, pipe) != "units" || !t.is(a->value, "BinOp"))
            continue;
        const NodeId left = t.child(a->value, "left");
        const NodeId right = t.child(a->value, "right");
        added.prepend = attributeOf(t, right, pipe) == "units";
        const NodeId other = added.prepend ? left : right;
        added.list = t.is(other, "Name") && lists.count(t.text(other, "id")) ? lists[t.text(other, "id")] : other;
        if (t.is(added.list, "List"))
            out.added.push_back(added);
    }
}

} // namespace

std::optional<TrainingScript> readTrainingScript(ImportContext &context, const PythonModule &script)
{
    const AstTree &t = script.tree();
    TrainingScript out;
    const ClassDef *cls = nullptr;
    for (const ClassDef &c : script.classes()) {
        for (const BaseClass &base : baseClasses(context.modules(), script, c)) {
            if (base.name == "DiffusionTrainingModule")
                cls = &c;
        }
    }
    const FunctionDef *init = cls ? cls->method("__init__") : nullptr;
    if (!init)
        return std::nullopt;
    out.moduleClass = cls->name;
    out.line = t.node(cls->node).line;
    // The flags `__main__` passes: QwenImageTrainingModule(task=args.task, ...).
    std::map<std::string, std::string> flagOf;
    for (NodeId id = 0; id < static_cast<NodeId>(t.size()); ++id) {
        if (!t.is(id, "Call") || t.dottedName(t.child(id, "func")) != cls->name)
            continue;
        for (const NodeId k : t.children(id, "keywords")) {
            const std::string flag = attributeOf(t, t.child(k, "value"), "args");
            if (!flag.empty())
                flagOf[t.text(k, "arg")] = flag;
        }
    }
    for (const BodyStatement &b : flattenBody(t, init->node)) {
        const std::optional<Assignment> a = readAssignment(t, b.statement);
        if (!a || a->targets.size() != 1 || a->value == kNoNode)
            continue;
        const std::string target = attributeOf(t, a->targets[0]);
        if (target == "task_to_loss" && t.is(a->value, "Dict")) {
            const Span<NodeId> keys = t.children(a->value, "keys");
            for (std::size_t i = 0; i < keys.size(); ++i) {
                const NodeId body = t.child(t.children(a->value, "values")[i], "body");
                if (t.is(keys[i], "Constant") && t.is(body, "Call"))
                    out.losses[t.text(keys[i], "value")] = t.dottedName(t.child(body, "func"));
            }
        }
        if (target != "pipe" || !t.is(a->value, "Call"))
            continue;
        const std::string callee = t.dottedName(t.child(a->value, "func"));
        const std::size_t dot = callee.rfind('.');
        if (dot != std::string::npos && callee.substr(dot) == ".from_pretrained") {
            out.pipelineName = callee.substr(0, dot);
            out.pipeline = context.modules().findClass(script, out.pipelineName);
        } else if (callee.rfind("self.", 0) == 0) {
            for (const NodeId k : t.children(a->value, "keywords")) {
                const NodeId v = t.child(k, "value");
                if (t.text(k, "arg") == "remove_unnecessary_params" && t.is(t.child(v, "value"), "bool")
                    && t.node(t.child(v, "value")).text == "True")
                    out.removesUnneededParams = true;
            }
            if (const auto method = findMethod(context.modules(), script, *cls, callee.substr(5)))
                readAddedUnits(*method.module, *method.item, t, a->value, flagOf, t.node(b.statement).line, out);
        }
    }
    return out;
}

std::string lossForTask(const TrainingScript &script, const std::string &task)
{
    for (const std::string &key : {task, task.substr(0, task.find(':')), task.substr(0, task.find(':')) + ":train"}) {
        const auto it = script.losses.find(key);
        if (it != script.losses.end() && !it->second.empty())
            return it->second;
    }
    return {};
}

} // namespace splitscope::importer
