// SPDX-License-Identifier: MIT
#include "BodyReader.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace splitscope::importer {

namespace {

// nn.Module methods that move, switch or list a model without computing with it.
bool isBookkeeping(const std::string &method)
{
    static const std::set<std::string> kMethods = {"to", "cpu", "cuda", "eval", "train", "requires_grad_", "parameters",
        "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children", "named_children",
        "state_dict", "load_state_dict", "half", "float", "double", "bfloat16", "type", "zero_grad", "apply", "onload",
        "offload", "register_buffer", "register_forward_hook", "register_forward_pre_hook"};
    return kMethods.count(method) > 0;
}

bool isScope(const AstTree &t, NodeId id)
{
    return t.is(id, "FunctionDef") || t.is(id, "AsyncFunctionDef") || t.is(id, "Lambda") || t.is(id, "ClassDef");
}

// The nodes of `fn`'s own body in pre-order, nested scopes left out.
std::vector<NodeId> ownNodes(const AstTree &t, NodeId fn)
{
    std::vector<NodeId> out;
    for (NodeId id = fn + 1; id < t.node(fn).end; id = isScope(t, id) ? t.node(id).end : id + 1) {
        if (!isScope(t, id))
            out.push_back(id);
    }
    return out;
}

std::string baseName(const std::string &path)
{
    return path.substr(path.find_last_of('/') + 1); // npos + 1 is 0
}

std::optional<std::string> stringConstant(const AstTree &t, NodeId id)
{
    if (t.is(id, "Constant") && t.is(t.child(id, "value"), "str"))
        return t.text(id, "value");
    return std::nullopt;
}

// The Name `id` used as a dict with a str key: d["k"] (read, written or deleted), d.get("k"), d.pop("k"), "k" in d,
// or "k" compared with it otherwise.
struct KeyUse {
    enum Kind { Read, Write, Delete, Get, Pop, In, Compared };
    Kind kind = Read;
    std::string key;
};
std::optional<KeyUse> keyUse(const AstTree &t, NodeId id)
{
    const NodeId parent = t.node(id).parent;
    std::optional<std::string> key;
    KeyUse::Kind kind = KeyUse::Read;
    if (t.is(parent, "Subscript") && t.child(parent, "value") == id) {
        key = stringConstant(t, t.child(parent, "slice"));
        const NodeId context = t.child(parent, "ctx");
        kind = t.is(context, "Store") ? KeyUse::Write : t.is(context, "Del") ? KeyUse::Delete : KeyUse::Read;
    } else if (t.is(parent, "Attribute") && (t.text(parent, "attr") == "get" || t.text(parent, "attr") == "pop")) {
        const Span<NodeId> args = t.children(t.node(parent).parent, "args");
        key = args.empty() ? std::nullopt : stringConstant(t, args[0]);
        kind = t.text(parent, "attr") == "get" ? KeyUse::Get : KeyUse::Pop;
    } else if (t.is(parent, "Compare")) {
        key = stringConstant(t, t.child(parent, "left"));
        const Span<NodeId> ops = t.children(parent, "ops");
        kind = ops.size() == 1 && t.is(ops[0], "In") ? KeyUse::In : KeyUse::Compared;
    }
    if (!key)
        return std::nullopt;
    return KeyUse{kind, *key};
}

// Adds `fact` unless `facts` names it already.
void addOnce(std::vector<BodyFact> &facts, BodyFact fact)
{
    if (std::none_of(facts.begin(), facts.end(), [&](const BodyFact &f) { return f.name == fact.name; }))
        facts.push_back(std::move(fact));
}

} // namespace

struct BodyReader::Taint {
    std::set<std::string> params;
    bool random = false;
    std::string model; // the value is the model attribute `pipe.model` (or part of it)

    bool merge(const Taint &other)
    {
        const std::size_t before = params.size();
        const bool wasRandom = random;
        params.insert(other.params.begin(), other.params.end());
        random = random || other.random;
        return params.size() != before || random != wasRandom;
    }
};

struct BodyReader::Function {
    struct Key {
        std::string name;
        int line = 0;
        Taint taint;
    };
    std::vector<BodyFact> models;   // first call of each model, in source order
    std::vector<BodyFact> reads;    // keys read from the input dicts or **kwargs
    std::optional<std::vector<Key>> returns;
    std::string unknownReturn;      // why the returns are not known
    int unknownLine = 0;
};

// One reading of a function body: the taint of its locals to a fixed point, then the
// models it calls, the keys it reads from its input dicts and the keys it returns.
// A helper it calls (a unit method on self, a pipeline method on pipe) is read by
// another Analysis, one level deep.
class BodyReader::Analysis {
public:
    Analysis(BodyReader &reader, const PythonModule &module, const FunctionDef &fn, const std::string &pipe,
        const std::vector<std::pair<std::string, Taint>> &bound, int depth);
    Function run();

private:
    bool isModel(const std::string &name) const { return contains(m_reader.m_pipeline->models, name); }
    // The names of `func`'s chain from its root name: {pipe, dit, blocks} for pipe.dit.blocks[0].
    std::vector<std::string> chainOf(NodeId id) const;
    // Whether `model`'s class defines `method` without ever using self (no weights).
    bool weightless(const std::string &model, const std::string &method) const;
    // The model a call computes with, or "".
    std::string calledModel(const std::vector<std::string> &chain) const;
    // A helper this call runs (one level deep): a unit method on self, a pipeline method on pipe.
    ModuleSet::Found<FunctionDef> helperOf(const std::vector<std::string> &chain) const;
    // What a helper does, its parameters bound to the call's arguments (and its pipe to whatever receives ours).
    Function analyzeHelper(NodeId call, const ModuleSet::Found<FunctionDef> &found, bool onPipe);
    Taint taintOf(NodeId expr);
    // Assignments and mutations: (target, value) pairs, read to a fixed point.
    void propagateTaint();
    bool assign(NodeId target, const Taint &taint);
    // Models called, and helpers followed, anywhere in the body (nested functions included).
    void findModelCalls();
    // Keys read from the input dicts or **kwargs.
    void findReads();
    void addKey(const std::string &name, int line, const Taint &taint);
    void unknown(NodeId at, const std::string &why);
    // Adds the str keys of the dict display `dict`, at their own lines (`line` 0) or at `line`; the first other key
    // (kNoNode for a `**`), if any.
    std::optional<NodeId> addDisplay(NodeId dict, int line);
    void addKeywords(NodeId call);
    // Keys put into the dict `name` (a local, or a take-over input dict) by d[k] = v and d.update(...).
    void keysPutInto(const std::string &name, bool mustBeDisplay);
    void keysAssigned(NodeId assignment, const std::string &name, bool mustBeDisplay);
    void returned(NodeId value);

    BodyReader &m_reader;
    const PythonModule &m_module;
    const AstTree &m_tree;
    const FunctionDef &m_fn;
    const std::string m_pipe;
    const int m_depth;
    const std::string m_file;
    const std::vector<NodeId> m_nodes;
    const bool m_takeOver;
    std::set<std::string> m_dicts; // parameters whose keys are params: take-over input dicts, **kwargs
    std::map<std::string, Taint> m_locals;
    Function m_out;
    std::vector<Function::Key> m_keys; // returned
};

BodyReader::Analysis::Analysis(BodyReader &reader, const PythonModule &module, const FunctionDef &fn,
    const std::string &pipe, const std::vector<std::pair<std::string, Taint>> &bound, int depth)
    : m_reader(reader)
    , m_module(module)
    , m_tree(module.tree())
    , m_fn(fn)
    , m_pipe(pipe)
    , m_depth(depth)
    , m_file(baseName(module.fileName()))
    , m_nodes(ownNodes(module.tree(), fn.node))
    , m_takeOver(depth == 0 && reader.m_unit->takeOver.value_or(false))
    , m_locals(bound.begin(), bound.end())
{
    for (const Parameter &p : fn.parameters) {
        if ((m_takeOver && p.name.rfind("inputs_", 0) == 0) || (depth == 0 && p.kind == Parameter::Kind::VarKeyword))
            m_dicts.insert(p.name);
    }
}

BodyReader::Function BodyReader::Analysis::run()
{
    const AstTree &t = m_tree;
    propagateTaint();
    findModelCalls();
    findReads();
    if (m_takeOver) {
        for (const std::string &name : m_dicts)
            keysPutInto(name, false);
    } else {
        for (const NodeId id : m_nodes) {
            if (t.is(id, "Return"))
                returned(t.child(id, "value"));
        }
    }
    if (m_out.unknownReturn.empty())
        m_out.returns = std::move(m_keys);
    return std::move(m_out);
}

std::vector<std::string> BodyReader::Analysis::chainOf(NodeId id) const
{
    const AstTree &t = m_tree;
    std::vector<std::string> chain;
    while (t.is(id, "Attribute") || t.is(id, "Subscript") || t.is(id, "Call")) {
        if (t.is(id, "Attribute"))
            chain.insert(chain.begin(), t.text(id, "attr"));
        id = t.child(id, t.is(id, "Call") ? "func" : "value");
    }
    if (!t.is(id, "Name"))
        return {};
    chain.insert(chain.begin(), t.text(id, "id"));
    return chain;
}

bool BodyReader::Analysis::weightless(const std::string &model, const std::string &method) const
{
    const PipelineInfo &pipeline = *m_reader.m_pipeline;
    const auto cls = pipeline.modelClasses.find(model);
    const auto f = cls == pipeline.modelClasses.end()
        ? ModuleSet::Found<FunctionDef>()
        : findMethod(m_reader.m_context.modules(), *cls->second.module, *cls->second.item, method);
    if (!f || f.item->parameters.empty())
        return false;
    const AstTree &mt = f.module->tree();
    for (NodeId id = f.item->node + 1; id < mt.node(f.item->node).end; ++id) {
        if (mt.is(id, "Name") && mt.text(id, "id") == f.item->parameters.front().name)
            return false;
    }
    return true;
}

std::string BodyReader::Analysis::calledModel(const std::vector<std::string> &chain) const
{
    if (chain.empty() || (chain.size() > 2 && isBookkeeping(chain.back())))
        return {};
    if (chain.size() == 3 && chain[0] == m_pipe && weightless(chain[1], chain[2]))
        return {};
    if (chain.size() >= 2 && chain[0] == m_pipe && isModel(chain[1]))
        return chain[1];
    const auto alias = m_locals.find(chain[0]);
    if (alias != m_locals.end() && !alias->second.model.empty() && (chain.size() == 1 || !isBookkeeping(chain.back())))
        return alias->second.model;
    return {};
}

ModuleSet::Found<FunctionDef> BodyReader::Analysis::helperOf(const std::vector<std::string> &chain) const
{
    if (m_depth > 0 || chain.size() != 2)
        return {};
    const BodyReader &r = m_reader;
    if (chain[0] == "self" && r.m_unitClass)
        return findMethod(r.m_context.modules(), *r.m_unitModule, *r.m_unitClass, chain[1]);
    if (chain[0] == m_pipe && !isModel(chain[1]) && r.m_pipeline->cls)
        return findMethod(r.m_context.modules(), *r.m_pipeline->module, *r.m_pipeline->cls, chain[1]);
    return {};
}

BodyReader::Function BodyReader::Analysis::analyzeHelper(NodeId call, const ModuleSet::Found<FunctionDef> &found,
    bool onPipe)
{
    const AstTree &t = m_tree;
    const FunctionDef &helper = *found.item;
    std::vector<std::pair<std::string, Taint>> binding;
    std::string helperPipe = onPipe ? "self" : std::string();
    const Span<NodeId> args = t.children(call, "args");
    for (std::size_t i = 0; i < args.size() && i + 1 < helper.parameters.size(); ++i) {
        const Parameter &p = helper.parameters[i + 1];
        if (p.kind != Parameter::Kind::Positional || t.is(args[i], "Starred"))
            break;
        if (t.is(args[i], "Name") && t.text(args[i], "id") == m_pipe)
            helperPipe = p.name;
        binding.emplace_back(p.name, taintOf(args[i]));
    }
    for (const NodeId k : t.children(call, "keywords")) {
        const NodeId value = t.child(k, "value");
        if (t.is(value, "Name") && t.text(value, "id") == m_pipe)
            helperPipe = t.text(k, "arg");
        if (!t.text(k, "arg").empty())
            binding.emplace_back(t.text(k, "arg"), taintOf(value));
    }
    return Analysis(m_reader, *found.module, helper, helperPipe, binding, m_depth + 1).run();
}

BodyReader::Taint BodyReader::Analysis::taintOf(NodeId expr)
{
    const AstTree &t = m_tree;
    Taint taint;
    if (expr == kNoNode)
        return taint;
    const std::vector<std::string> whole = chainOf(expr);
    if (!t.is(expr, "Call") && whole.size() >= 2 && whole[0] == m_pipe && isModel(whole[1]))
        taint.model = whole[1];
    for (NodeId id = expr; id < t.node(expr).end; ++id) {
        if (isScope(t, id) && !t.is(id, "Lambda")) {
            id = t.node(id).end - 1;
            continue;
        }
        if (t.is(id, "Name")) {
            const auto it = m_locals.find(t.text(id, "id"));
            if (it != m_locals.end())
                taint.merge(it->second);
            // d["k"], d.get("k"), d.pop("k"): the param k.
            const std::optional<KeyUse> use = m_dicts.count(t.text(id, "id")) ? keyUse(t, id) : std::nullopt;
            if (use && use->kind != KeyUse::In && use->kind != KeyUse::Compared)
                taint.params.insert(use->key);
        } else if (t.is(id, "Call")) {
            const std::vector<std::string> chain = chainOf(t.child(id, "func"));
            if (!chain.empty() && !randomCallName(chain).empty())
                taint.random = true;
            else if (const auto helper = helperOf(chain))
                taint.random = taint.random || randomCall(helper.module->tree(), helper.item->node).has_value();
        }
    }
    return taint;
}

void BodyReader::Analysis::propagateTaint()
{
    const AstTree &t = m_tree;
    std::vector<std::pair<NodeId, NodeId>> flows;
    for (const NodeId id : m_nodes) {
        if (t.is(id, "Assign")) {
            for (const NodeId target : t.children(id, "targets"))
                flows.emplace_back(target, t.child(id, "value"));
        } else if (t.is(id, "AnnAssign") || t.is(id, "AugAssign") || t.is(id, "NamedExpr")) {
            flows.emplace_back(t.child(id, "target"), t.child(id, "value"));
        } else if (t.is(id, "For") || t.is(id, "AsyncFor") || t.is(id, "comprehension")) {
            flows.emplace_back(t.child(id, "target"), t.child(id, "iter"));
        } else if (t.is(id, "withitem")) {
            flows.emplace_back(t.child(id, "optional_vars"), t.child(id, "context_expr"));
        } else if (t.is(id, "Expr") && t.is(t.child(id, "value"), "Call")) {
            const NodeId func = t.child(t.child(id, "value"), "func"); // x.append(v): x takes v in
            if (t.is(func, "Attribute") && t.is(t.child(func, "value"), "Name"))
                flows.emplace_back(t.child(func, "value"), t.child(id, "value"));
        }
    }
    for (int round = 0; round < kMaxRounds; ++round) {
        bool changed = false;
        for (const auto &[target, value] : flows)
            changed = assign(target, taintOf(value)) || changed;
        if (!changed)
            break;
    }
}

bool BodyReader::Analysis::assign(NodeId target, const Taint &taint)
{
    const AstTree &t = m_tree;
    if (t.is(target, "Name")) {
        Taint &local = m_locals[t.text(target, "id")];
        if (local.model.empty() && !taint.model.empty())
            local.model = taint.model;
        return local.merge(taint);
    }
    Taint part = taint; // unpacked, or d[k] = v and x.y = v: what d and x hold changes
    part.model.clear();
    bool changed = false;
    if (t.is(target, "Tuple") || t.is(target, "List")) {
        for (const NodeId element : t.children(target, "elts"))
            changed = assign(element, part) || changed;
    } else if (t.is(target, "Starred") || t.is(target, "Subscript") || t.is(target, "Attribute")) {
        changed = assign(t.child(target, "value"), part);
    }
    return changed;
}

void BodyReader::Analysis::findModelCalls()
{
    const AstTree &t = m_tree;
    // f(pipe.image_proj_model, ...): the callee runs the model (not getattr(pipe.dit, ...)).
    static const std::set<std::string> kInspecting = {"getattr", "hasattr", "setattr", "isinstance", "type", "id",
        "print", "repr", "str", "callable", "vars", "dir", "len"};
    for (NodeId id = m_fn.node + 1; id < t.node(m_fn.node).end; ++id) {
        if (!t.is(id, "Call"))
            continue;
        const std::vector<std::string> chain = chainOf(t.child(id, "func"));
        const std::string model = calledModel(chain);
        if (!model.empty())
            addOnce(m_out.models, BodyFact{model, m_file, t.node(id).line, {}, false, {}});
        for (const NodeId argument : t.children(id, "args")) {
            const auto passed = t.is(argument, "Attribute") ? chainOf(argument) : std::vector<std::string>();
            if (passed.size() == 2 && passed[0] == m_pipe && isModel(passed[1])
                && !(chain.size() == 1 && kInspecting.count(chain[0])))
                addOnce(m_out.models, BodyFact{passed[1], m_file, t.node(id).line, {}, false, {}});
        }
        if (const auto helper = helperOf(chain)) {
            for (const BodyFact &use : analyzeHelper(id, helper, chain[0] == m_pipe).models)
                addOnce(m_out.models, use);
        }
    }
}

void BodyReader::Analysis::findReads()
{
    const AstTree &t = m_tree;
    for (const NodeId id : m_nodes) {
        const auto use = t.is(id, "Name") && m_dicts.count(t.text(id, "id")) ? keyUse(t, id) : std::nullopt;
        if (use && use->kind != KeyUse::Write && use->kind != KeyUse::Delete && use->kind != KeyUse::Compared)
            addOnce(m_out.reads, BodyFact{use->key, m_file, t.node(id).line, {}, false, {}});
    }
}

void BodyReader::Analysis::addKey(const std::string &name, int line, const Taint &taint)
{
    const auto same = std::find_if(m_keys.begin(), m_keys.end(), [&](const auto &k) { return k.name == name; });
    if (same != m_keys.end())
        same->taint.merge(taint);
    else
        m_keys.push_back({name, line, taint});
}

void BodyReader::Analysis::unknown(NodeId at, const std::string &why)
{
    if (m_out.unknownReturn.empty()) {
        m_out.unknownReturn = why;
        m_out.unknownLine = m_tree.node(at).line;
    }
}

std::optional<NodeId> BodyReader::Analysis::addDisplay(NodeId dict, int line)
{
    const AstTree &t = m_tree;
    const Span<NodeId> dictKeys = t.children(dict, "keys");
    std::optional<NodeId> computed;
    for (std::size_t i = 0; i < dictKeys.size(); ++i) {
        if (const auto key = stringConstant(t, dictKeys[i]))
            addKey(*key, line ? line : t.node(dictKeys[i]).line, taintOf(t.children(dict, "values")[i]));
        else if (!computed)
            computed = dictKeys[i];
    }
    return computed;
}

void BodyReader::Analysis::addKeywords(NodeId call)
{
    const AstTree &t = m_tree;
    for (const NodeId k : t.children(call, "keywords"))
        addKey(t.text(k, "arg"), t.node(k).line, taintOf(t.child(k, "value")));
}

void BodyReader::Analysis::keysPutInto(const std::string &name, bool mustBeDisplay)
{
    const AstTree &t = m_tree;
    for (const NodeId id : m_nodes) {
        if (t.is(id, "Assign") || t.is(id, "AnnAssign")) {
            keysAssigned(id, name, mustBeDisplay);
        } else if (t.is(id, "Call") && chainOf(t.child(id, "func")) == std::vector<std::string>{name, "update"}) {
            const Span<NodeId> args = t.children(id, "args");
            if (!args.empty() && !t.is(args[0], "Dict"))
                unknown(id, name + ".update(" + m_module.describe(args[0]) + ")");
            for (const NodeId a : args) {
                if (t.is(a, "Dict"))
                    addDisplay(a, t.node(a).line);
            }
            addKeywords(id);
        }
    }
}

void BodyReader::Analysis::keysAssigned(NodeId assignment, const std::string &name, bool mustBeDisplay)
{
    const AstTree &t = m_tree;
    const NodeId id = assignment;
    // Targets, with those inside `a, d["k"] = ...` unpacked.
    std::vector<NodeId> targets;
    for (const NodeId top : t.is(id, "Assign") ? t.children(id, "targets") : t.children(id, "target")) {
        for (NodeId n = top; n < t.node(top).end; ++n) {
            const NodeId parent = t.node(n).parent;
            if (n == top || t.is(parent, "Tuple") || t.is(parent, "List") || t.is(parent, "Starred"))
                targets.push_back(n);
        }
    }
    const NodeId value = t.child(id, "value");
    for (const NodeId target : targets) {
        if (t.is(target, "Name") && t.text(target, "id") == name) {
            if (!mustBeDisplay)
                unknown(id, "the input dict '" + name + "' is replaced (line " + std::to_string(t.node(id).line) + ")");
            else if (!t.is(value, "Dict"))
                unknown(value, "'" + name + "' is " + m_module.describe(value) + ", not a dict display");
            else if (addDisplay(value, 0))
                unknown(value, "a key of the dict '" + name + "' is computed at run time");
        } else if (t.is(target, "Subscript") && t.dottedName(t.child(target, "value")) == name) {
            if (const auto key = stringConstant(t, t.child(target, "slice")))
                addKey(*key, t.node(target).line, taintOf(value));
            else
                unknown(target, "a key of '" + name + "' is computed at run time (" + m_module.describe(target) + ")");
        }
    }
}

void BodyReader::Analysis::returned(NodeId value)
{
    const AstTree &t = m_tree;
    if (value == kNoNode || (t.is(value, "Constant") && t.child(value, "value") == kNoNode))
        return; // return / return None: nothing
    if (t.is(value, "Dict")) {
        if (const std::optional<NodeId> computed = addDisplay(value, 0))
            unknown(value, *computed == kNoNode ? "a returned dict spreads another (**)"
                                                : "a returned key is computed at run time");
    } else if (t.dottedName(t.child(value, "func")) == "dict" && t.children(value, "args").empty()) {
        addKeywords(value);
    } else if (t.is(value, "IfExp")) {
        returned(t.child(value, "body"));
        returned(t.child(value, "orelse"));
    } else if (t.is(value, "Name") && m_fn.parameterIndex(t.text(value, "id")) < 0) {
        keysPutInto(t.text(value, "id"), true);
    } else if (const auto helper = t.is(value, "Call") ? helperOf(chainOf(t.child(value, "func")))
                                                       : ModuleSet::Found<FunctionDef>()) {
        const Function inner = analyzeHelper(value, helper, false);
        if (!inner.returns)
            unknown(value, "the helper " + helper.item->name + "() returns what this reader cannot list ("
                + inner.unknownReturn + ")");
        for (const Function::Key &k : inner.returns.value_or(std::vector<Function::Key>{}))
            addKey(k.name, t.node(value).line, k.taint);
    } else {
        unknown(value, "it returns " + m_module.describe(value));
    }
}

BodyReader::Function BodyReader::analyze(const PythonModule &module, const FunctionDef &fn, const std::string &pipe,
    const std::vector<std::pair<std::string, Taint>> &bound, int depth)
{
    return Analysis(*this, module, fn, pipe, bound, depth).run();
}

void BodyReader::read(const PythonModule &module, const ClassDef &cls, const PipelineInfo &pipeline, Unit &unit)
{
    const auto process = findMethod(m_context.modules(), module, cls, "process");
    if (!process || process.item->parameters.size() < 2)
        return; // PipelineUnit's own process() returns {}: nothing to read
    m_pipeline = &pipeline;
    m_unitClass = &cls;
    m_unitModule = &module;
    m_unit = &unit;
    const FunctionDef &fn = *process.item;
    const std::string file = baseName(process.module->fileName());
    // The params each argument reads, as DiffSynth's runner binds them.
    std::vector<std::pair<std::string, Taint>> bound;
    std::vector<BodyFact> reads;
    const bool separate = unit.seperateCfg.value_or(false);
    for (std::size_t i = 2; i < fn.parameters.size() && !unit.takeOver.value_or(false); ++i) {
        const Parameter &p = fn.parameters[i];
        if (p.kind == Parameter::Kind::VarPositional || p.kind == Parameter::Kind::VarKeyword)
            continue;
        Taint taint;
        for (const auto *map : {&unit.inputParamsPosi, &unit.inputParamsNega}) {
            for (const auto &[argument, param] : separate && *map ? **map : ParamMap{}) {
                if (argument == p.name)
                    taint.params.insert(param);
            }
        }
        if (taint.params.empty())
            taint.params.insert(p.name); // an input_params name, or one the unit does not declare
        for (const std::string &param : taint.params)
            reads.push_back(BodyFact{param, file, process.module->tree().node(p.node).line, {}, false, {}});
        bound.emplace_back(p.name, taint);
    }
    const Function facts = analyze(*process.module, fn, fn.parameters[1].name, bound, 0);
    reads.insert(reads.end(), facts.reads.begin(), facts.reads.end());
    unit.reads = std::move(reads);
    unit.usesModels = facts.models;
    if (!facts.returns) {
        m_context.report(Severity::Info, "returns-unknown", *process.module, facts.unknownLine, 0,
            unit.name + ".process",
            "the keys process() returns are not read (" + facts.unknownReturn + "), so they are not checked against "
            "output_params");
        return;
    }
    unit.returns.emplace();
    for (const Function::Key &k : *facts.returns) {
        const std::vector<std::string> from(k.taint.params.begin(), k.taint.params.end());
        unit.returns->push_back(BodyFact{k.name, file, k.line, from, k.taint.random, {}});
    }
}

std::optional<BodyReader::LossFacts> BodyReader::readLoss(const PythonModule &module, const FunctionDef &loss,
    const std::vector<std::string> &modelFnParameters, const std::vector<std::string> &models)
{
    const AstTree &t = module.tree();
    const auto inputs = std::find_if(loss.parameters.begin(), loss.parameters.end(),
        [](const Parameter &p) { return p.kind == Parameter::Kind::VarKeyword; });
    if (inputs == loss.parameters.end())
        return std::nullopt;
    LossFacts facts;
    std::set<std::string> seen;
    const auto event = [&](const std::string &key, bool write) {
        if (seen.insert(key).second)
            (write ? facts.writes : facts.reads).push_back(key);
    };
    // In execution order: an assignment's value before its targets.
    std::function<void(NodeId)> visit = [&](NodeId id) {
        if (t.is(id, "Assign") || t.is(id, "AugAssign") || t.is(id, "AnnAssign")) {
            visit(t.child(id, "value"));
            const Span<NodeId> targets = t.is(id, "Assign") ? t.children(id, "targets") : t.children(id, "target");
            for (const NodeId target : targets)
                visit(target);
            return;
        }
        if (id == kNoNode)
            return;
        const NodeId parent = t.node(id).parent;
        if (t.is(id, "Name") && t.text(id, "id") == inputs->name) {
            if (const std::optional<KeyUse> use = keyUse(t, id)) {
                if (use->kind != KeyUse::Pop)
                    event(use->key, use->kind == KeyUse::Write);
            } else if (t.is(parent, "keyword") && t.text(parent, "arg").empty()
                && t.dottedName(t.child(t.node(parent).parent, "func")).find("model_fn") != std::string::npos) {
                // pipe.model_fn(**models, **inputs, timestep=...): model_fn reads its parameters.
                std::set<std::string> passed(models.begin(), models.end());
                for (const NodeId k : t.children(t.node(parent).parent, "keywords"))
                    passed.insert(t.text(k, "arg"));
                for (const std::string &p : modelFnParameters) {
                    if (!passed.count(p))
                        event(p, false);
                }
            }
        }
        // The children in order: a subtree is contiguous, so each one's end is the next.
        for (NodeId child = id + 1; child < t.node(id).end; child = t.node(child).end)
            visit(child);
    };
    visit(loss.node);
    std::sort(facts.reads.begin(), facts.reads.end());
    std::sort(facts.writes.begin(), facts.writes.end());
    return facts;
}

} // namespace splitscope::importer
