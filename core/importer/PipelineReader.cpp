// SPDX-License-Identifier: MIT
#include "PipelineReader.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace splitscope::importer {

namespace {

// A chain of pipeline base classes longer than this is not followed (it also ends cycles).
constexpr int kMaxClassDepth = 16;
// Lists of units named through locals or `+` are followed this deep.
constexpr int kMaxUnitListDepth = 32;
constexpr const char *kRootClass = "BasePipeline";

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Why an annotated attribute is not a model, or empty when it is one (heuristic).
std::string notAModelReason(const std::string &name, const std::string &type)
{
    const std::string lowerName = lower(name);
    const std::string lowerType = lower(type);
    for (const char *word : {"tokenizer", "processor", "scheduler", "prompter"}) {
        if (lowerName.find(word) != std::string::npos || lowerType.find(word) != std::string::npos)
            return std::string("its name or type says it is a ") + word;
    }
    for (const char *builtin : {"bool", "int", "float", "str", "list", "dict", "tuple", "set"}) {
        if (lowerType == builtin || lowerType.rfind(std::string(builtin) + "[", 0) == 0)
            return std::string("its type is the builtin ") + builtin;
    }
    return {};
}

} // namespace

const std::vector<KnownLoss> &knownLosses()
{
    static const std::vector<KnownLoss> kLosses = {
        {"FlowMatchSFTLoss", {"input_latents", "max_timestep_boundary", "min_timestep_boundary"}, {"timestep"}},
        {"DirectDistillLoss", {"input_latents", "num_inference_steps"}, {"timestep", "progress_id"}},
    };
    return kLosses;
}

bool PipelineReader::isPipelineClass(const PythonModule &module, const ClassDef &cls, int depth) const
{
    if (depth > kMaxClassDepth)
        return false;
    if (const FunctionDef *init = cls.method("__init__")) {
        for (NodeId id = init->node; id < module.tree().node(init->node).end; ++id) {
            if (attributeOf(module.tree(), id) == "units")
                return true;
        }
    }
    for (const BaseClass &base : baseClasses(m_context.modules(), module, cls)) {
        if (base.name == kRootClass)
            return true;
        if (base.definition && !m_units.isUnitClass(*base.definition.module, *base.definition.item)
            && isPipelineClass(*base.definition.module, *base.definition.item, depth + 1))
            return true;
    }
    return false;
}

void PipelineReader::readState(const PythonModule &module, const ClassDef &cls, State &state, int depth)
{
    if (depth > kMaxClassDepth)
        return;
    const std::vector<BaseClass> bases = baseClasses(m_context.modules(), module, cls);
    const auto readBase = [&](const ModuleSet::Found<ClassDef> &base) {
        if (base && isPipelineClass(*base.module, *base.item, depth + 1))
            readState(*base.module, *base.item, state, depth + 1);
    };
    const auto firstBase = bases.empty() ? ModuleSet::Found<ClassDef>() : bases.front().definition;
    const FunctionDef *init = cls.method("__init__");
    if (!init) {
        readBase(firstBase);
        return;
    }
    const AstTree &t = module.tree();
    Scope scope;
    for (std::size_t i = 1; i < init->parameters.size(); ++i) {
        const Parameter &p = init->parameters[i];
        scope.values[p.name] = p.defaultValue != kNoNode
            ? m_context.evaluator().evaluate(module, p.defaultValue)
            : unresolved(module, init->node, "the constructor parameter '" + p.name + "'");
    }
    for (const BodyStatement &b : flattenBody(t, init->node)) {
        const NodeId s = b.statement;
        scope.conditional = b.conditional;
        scope.loop = b.loop;
        const NodeId call = t.is(s, "Expr") ? t.child(s, "value") : kNoNode;
        const std::optional<SuperInitCall> super = superInitCall(t, call);
        if (const std::optional<Assignment> a = readAssignment(t, s)) {
            if (a->targets.size() == 1)
                readAssignmentInInit(module, s, *a, scope, state);
        } else if (super) {
            readBase(super->explicitBase.empty() ? firstBase
                                                 : m_context.modules().findClass(module, super->explicitBase));
        } else if (t.is(call, "Call")) {
            readUnitsCall(module, call, scope, state);
        }
    }
}

void PipelineReader::readAssignmentInInit(const PythonModule &module, NodeId s, const Assignment &a, Scope &scope,
    State &state)
{
    const AstTree &t = module.tree();
    const NodeId target = a.targets.front();
    const std::string attribute = attributeOf(t, target);
    const std::string where = m_class->name + "." + attribute;
    if (attribute.empty()) {
        if (t.is(target, "Name") && a.value != kNoNode && a.augmented.empty()) {
            const std::string &name = t.text(target, "id");
            if ((t.is(a.value, "List") || t.is(a.value, "Tuple")) && !scope.conditional && !scope.loop)
                scope.lists[name] = a.value;
            else
                scope.lists.erase(name);
            scope.values[name] = m_context.evaluator().evaluate(module, a.value, &scope.values);
        }
        return;
    }
    if (a.annotation != kNoNode && attribute != "units" && attribute != "in_iteration_models"
        && attribute != "model_fn") {
        const bool known = std::any_of(state.attributes.begin(), state.attributes.end(),
            [&](const ModelAttribute &m) { return m.name == attribute; });
        if (!known)
            state.attributes.push_back({attribute, module.describe(a.annotation), a.annotation, &module,
                t.node(s).line, t.node(target).column});
        return;
    }
    if (a.value == kNoNode)
        return;
    if (attribute == "units") {
        if (a.augmented.empty()) {
            if (state.unitsSet && !state.units.empty() && (scope.conditional || scope.loop))
                m_context.report(Severity::Warning, "conditional-unit", module, s, where,
                    "self.units is replaced under a condition; read as if it is");
            state.units.clear();
        } else if (a.augmented != "+=") {
            m_context.report(Severity::Warning, "computed-argument", module, s, where,
                "self.units " + a.augmented + " ... cannot be read; ignored");
            return;
        }
        state.unitsSet = true;
        addUnits(module, a.value, scope, state.units, 0);
    } else if (attribute == "in_iteration_models") {
        readInIterationModels(module, m_context.evaluator().evaluate(module, a.value, &scope.values), state);
    } else if (attribute == "model_fn") {
        state.modelFn = t.dottedName(a.value);
        state.modelFnReported = state.modelFn.empty();
        if (state.modelFn.empty()) {
            m_context.report(Severity::Warning, "no-model-fn", module, s, where,
                "self.model_fn is set to " + module.describe(a.value)
                    + ", not a function name; the loss is declared without input_params (it may read every param)");
            return;
        }
        state.modelFnModule = &module;
        state.modelFnStatement = s;
    }
}

void PipelineReader::readInIterationModels(const PythonModule &module, const Value &v, State &state)
{
    const std::string where = m_class->name + ".in_iteration_models";
    std::vector<std::string> names;
    if (v.kind == Value::Kind::Sequence) {
        for (const Value &item : v.items) {
            if (item.kind == Value::Kind::String && item.text.empty())
                m_context.report(Severity::Warning, "empty-name", item, module, where,
                    "an empty str names no model; left out");
            else if (item.kind == Value::Kind::String)
                names.push_back(item.text);
            else
                m_context.report(Severity::Warning, "computed-argument", item, module, where,
                    "an element that is " + item.typeName() + "; left out");
        }
    } else if (looksLikeMissingComma(v)) {
        m_context.report(Severity::Warning, "missing-comma", v, module, where,
            UnitReader::missingCommaMessage("in_iteration_models", v) + "; read as one model name");
        names.push_back(v.text);
    } else if (v.kind == Value::Kind::String && !v.text.empty()) {
        m_context.report(Severity::Warning, "string-as-list", v, module, where,
            "in_iteration_models is the str \"" + v.text + "\", not a tuple (write (\"" + v.text
                + "\",)); read as one model name");
        names.push_back(v.text);
    } else {
        m_context.report(Severity::Warning, "computed-argument", v, module, where,
            "in_iteration_models is " + (v.isUnresolved() ? v.text : v.typeName()) + "; not read");
        return;
    }
    state.inIterationModels = std::move(names);
}

void PipelineReader::readUnitsCall(const PythonModule &module, NodeId call, const Scope &scope, State &state)
{
    const AstTree &t = module.tree();
    const std::string callee = t.dottedName(t.child(call, "func"));
    const Span<NodeId> args = t.children(call, "args");
    const bool plain = t.children(call, "keywords").empty();
    const std::string where = m_class->name + ".units";
    if (callee == "self.units.append" && args.size() == 1 && plain) {
        state.unitsSet = true;
        addUnit(module, args[0], scope, state.units, 0);
    } else if (callee == "self.units.extend" && args.size() == 1 && plain) {
        state.unitsSet = true;
        addUnits(module, args[0], scope, state.units, 0);
    } else if (callee == "self.units.insert" && args.size() == 2 && plain) {
        const Value index = m_context.evaluator().evaluate(module, args[0], &scope.values);
        std::vector<UnitEntry> inserted;
        addUnit(module, args[1], scope, inserted, 0);
        std::size_t at = state.units.size();
        if (index.kind == Value::Kind::Number && !index.text.empty()
            && index.text.find_first_not_of("0123456789") == std::string::npos && index.text.size() < 9)
            at = std::min(at, static_cast<std::size_t>(std::stoul(index.text)));
        else
            m_context.report(Severity::Warning, "computed-argument", index, module, where,
                "self.units.insert at a position this reader cannot read; appended at the end");
        state.units.insert(state.units.begin() + static_cast<std::ptrdiff_t>(at), inserted.begin(), inserted.end());
        state.unitsSet = true;
    } else if (callee.rfind("self.units.", 0) == 0) {
        m_context.report(Severity::Warning, "computed-argument", module, call, where,
            callee + "(...) changes the units in a way this reader does not follow; ignored");
    }
}

void PipelineReader::addUnits(const PythonModule &module, NodeId e, const Scope &scope, std::vector<UnitEntry> &out,
    int depth)
{
    const AstTree &t = module.tree();
    const std::string where = m_class->name + ".units";
    if (depth > kMaxUnitListDepth) {
        m_context.report(Severity::Warning, "computed-argument", module, e, where,
            "the list of units is built too indirectly to follow");
    } else if (t.is(e, "List") || t.is(e, "Tuple")) {
        for (const NodeId item : t.children(e, "elts"))
            addUnit(module, item, scope, out, depth + 1);
    } else if (t.is(e, "ListComp") || t.is(e, "GeneratorExp")) {
        m_context.report(Severity::Warning, "unit-in-loop", module, e, where,
            "units built by a comprehension are not imported: how many there are, and which, is decided at run time");
    } else if (t.is(e, "BinOp") && t.is(t.child(e, "op"), "Add")) {
        addUnits(module, t.child(e, "left"), scope, out, depth + 1);
        addUnits(module, t.child(e, "right"), scope, out, depth + 1);
    } else if (t.is(e, "Name") && scope.lists.count(t.text(e, "id"))) {
        addUnits(module, scope.lists.at(t.text(e, "id")), scope, out, depth + 1);
    } else if (t.is(e, "Name")) {
        m_context.report(Severity::Warning, "computed-argument", module, e, where,
            "'" + t.text(e, "id") + "' is not a list of units written in __init__ (a parameter, or built at run time); "
                "none of its units is imported");
    } else {
        m_context.report(Severity::Warning, "computed-argument", module, e, where,
            "the units are given by an expression this reader cannot list; none of them is imported");
    }
}

void PipelineReader::addUnit(const PythonModule &module, NodeId e, const Scope &scope, std::vector<UnitEntry> &out,
    int depth)
{
    const AstTree &t = module.tree();
    const std::string where = m_class->name + ".units[" + std::to_string(out.size()) + "]";
    const std::string callee = t.is(e, "Call") ? t.dottedName(t.child(e, "func")) : std::string();
    if (scope.loop) {
        m_context.report(Severity::Warning, "unit-in-loop", module, e, where,
            "a unit added in a loop is not imported: how many times it is added is decided at run time");
    } else if (t.is(e, "Starred")) {
        addUnits(module, t.child(e, "value"), scope, out, depth + 1);
    } else if (t.is(e, "IfExp")) {
        m_context.report(Severity::Warning, "conditional-unit", module, e, where,
            "which unit this is (A() if ... else B()) is decided at run time; not imported");
    } else if (callee.empty()) {
        m_context.report(Severity::Warning, "computed-argument", module, e, where,
            "an element of self.units that is not a unit constructor call (UnitClass(...)); not imported");
    } else {
        out.push_back({lastComponent(callee), m_context.modules().findClass(module, callee),
            evaluateCallArguments(m_context, module, e, &scope.values), &module, e, scope.conditional});
    }
}

std::optional<Pipeline> PipelineReader::read(const PythonModule &module, const ClassDef &cls,
    const std::vector<TrainingScript::AddedUnits> &added)
{
    m_module = &module;
    m_class = &cls;
    State state;
    readState(module, cls, state, 0);
    for (const TrainingScript::AddedUnits &a : added) {
        std::vector<UnitEntry> entries;
        addUnits(*a.module, a.list, Scope{}, entries, 0);
        state.units.insert(a.prepend ? state.units.begin() : state.units.end(), entries.begin(), entries.end());
    }
    if (state.units.empty()) {
        m_context.report(Severity::Warning, "no-units", module, cls.node, cls.name,
            state.unitsSet ? "the pipeline's self.units lists no unit this reader can import"
                           : "the pipeline never sets self.units (not a unit-based DiffSynth pipeline)");
        return std::nullopt;
    }

    Pipeline p;
    std::set<std::string> names;
    std::map<std::string, int> nextSuffix; // per repeated name, the next _N to try
    for (std::size_t i = 0; i < state.units.size(); ++i) {
        const UnitEntry &entry = state.units[i];
        const std::string where = cls.name + ".units[" + std::to_string(i) + "]";
        Unit unit;
        if (!entry.definition) {
            m_context.report(Severity::Warning, "unknown-unit-class", *entry.module, entry.node, where,
                "the unit class '" + entry.className
                    + "' is not defined in the imported files; kept as a unit that declares nothing (import the "
                      "folder that defines it to read it)");
            unit.name = entry.className;
            UnitReader::setDefaults(unit);
            unit.doc = "declaration not found by the DiffSynth importer";
        } else {
            if (!m_units.isUnitClass(*entry.definition.module, *entry.definition.item))
                m_context.report(Severity::Warning, "unknown-base-class", *entry.module, entry.node, where,
                    "'" + entry.className + "' does not derive from PipelineUnit as far as this reader can see; "
                                            "read as a unit anyway");
            unit = m_units.read(*entry.definition.module, *entry.definition.item, entry.arguments);
        }
        if (entry.conditional)
            m_context.report(Severity::Warning, "conditional-unit", *entry.module, entry.node, where,
                "'" + entry.className + "' is added under a condition; included as if it always is");
        if (!names.insert(unit.name).second) {
            int &n = nextSuffix.emplace(unit.name, 2).first->second;
            std::string renamed = unit.name + "_" + std::to_string(n++);
            while (names.count(renamed))
                renamed = unit.name + "_" + std::to_string(n++);
            m_context.report(Severity::Warning, "duplicate-unit", *entry.module, entry.node, where,
                "'" + unit.name + "' appears more than once in self.units; this one is named '" + renamed + "'");
            unit.name = renamed;
            names.insert(renamed);
        }
        p.units.push_back(std::move(unit));
    }
    BodyReader::PipelineInfo info{&module, &cls, {}, {}};
    p.models = models(state, p.units, info);
    p.loss = loss(state, p.models);
    for (std::size_t i = 0; i < p.units.size(); ++i) {
        const UnitEntry &entry = state.units[i];
        if (entry.definition)
            m_bodies.read(*entry.definition.module, *entry.definition.item, info, p.units[i]);
    }
    if (!state.inIterationModels || state.inIterationModels->empty()) {
        m_context.report(Severity::Warning, "no-in-iteration-models", module, cls.node, cls.name,
            "the pipeline sets no in_iteration_models, so the description has no training block "
            "(give --lora_base_model or --trainable_models to split it)");
        return p;
    }
    p.training = TrainingConfig();
    p.training->loraBaseModel = state.inIterationModels->front();
    p.alternativeTraining.emplace();
    for (const std::string &m : *state.inIterationModels) {
        p.alternativeTraining->emplace_back();
        p.alternativeTraining->back().trainableModels = m;
    }
    return p;
}

std::vector<ModelSpec> PipelineReader::models(const State &state, const std::vector<Unit> &units,
    BodyReader::PipelineInfo &info)
{
    std::vector<std::string> used = state.inIterationModels.value_or(std::vector<std::string>());
    for (const Unit &u : units) {
        for (const std::string &m : u.onloadModelNames.value_or(std::vector<std::string>())) {
            if (!contains(used, m))
                used.push_back(m);
        }
    }
    // What from_pretrained fetches from the model pool is a model, annotated or not.
    std::vector<std::string> fetched;
    for (const ModelBinding &b : modelBindings(*m_module, *m_class))
        fetched.push_back(b.attribute);
    for (const ModelAttribute &a : state.attributes) {
        const std::string typeName = a.module->tree().dottedName(a.annotation);
        const auto type = typeName.empty() ? ModuleSet::Found<ClassDef>() : m_context.findClass(*a.module, typeName);
        if (!contains(used, a.name) && !contains(fetched, a.name)) {
            std::string reason = notAModelReason(a.name, a.type);
            if (reason.empty() && type && !isTorchModule(m_context, *type.module, *type.item))
                reason = "its class " + typeName + " is not a torch.nn.Module";
            if (!reason.empty()) {
                m_context.report(Severity::Info, "not-a-model", *a.module, a.line, a.column,
                    m_class->name + "." + a.name,
                    "self." + a.name + ": " + a.type + " is not counted as a model (" + reason + ")");
                continue;
            }
        }
        if (type)
            info.modelClasses[a.name] = type;
        info.models.push_back(a.name);
    }
    const auto addUnannotated = [&](const std::string &name, const std::string &message) {
        if (contains(info.models, name))
            return;
        m_context.report(Severity::Info, "unannotated-model", *m_module, m_class->node, m_class->name + "." + name,
            message);
        info.models.push_back(name);
    };
    for (const std::string &name : used)
        addUnannotated(name, "the model '" + name + "' is used (in_iteration_models or onload_model_names) but not "
                "declared as an annotated attribute of __init__; added to the models");
    for (const std::string &name : fetched)
        addUnannotated(name, "from_pretrained fetches the model '" + name + "', which __init__ does not annotate; "
                "added to the models");
    std::vector<ModelSpec> out(info.models.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].name = info.models[i];
    return out;
}

std::vector<ModelBinding> PipelineReader::modelBindings(const PythonModule &module, const ClassDef &cls) const
{
    std::vector<ModelBinding> out;
    const auto method = findMethod(m_context.modules(), module, cls, "from_pretrained");
    if (!method)
        return out;
    const AstTree &t = method.module->tree();
    std::map<std::string, std::vector<std::string>> fetched; // locals holding fetched models
    for (const BodyStatement &b : flattenBody(t, method.item->node)) {
        const std::optional<Assignment> a = readAssignment(t, b.statement);
        if (!a || a->targets.size() != 1 || a->value == kNoNode)
            continue;
        std::vector<std::string> names;
        for (NodeId id = a->value; id < t.node(a->value).end; ++id) {
            const Span<NodeId> args = t.children(id, "args");
            const auto callee = t.is(id, "Call") ? attributeChain(t, t.child(id, "func")) : std::vector<std::string>();
            if (!callee.empty() && callee.back() == "fetch_model" && !args.empty() && t.is(args[0], "Constant")
                && t.is(t.child(args[0], "value"), "str"))
                names.push_back(t.text(args[0], "value"));
            const auto local = t.is(id, "Name") ? fetched.find(t.text(id, "id")) : fetched.end();
            if (local != fetched.end())
                names.insert(names.end(), local->second.begin(), local->second.end());
        }
        const NodeId target = a->targets.front();
        if (t.is(target, "Name"))
            fetched[t.text(target, "id")] = names;
        else if (t.is(target, "Attribute") && t.is(t.child(target, "value"), "Name")) {
            for (const std::string &name : names)
                out.push_back(ModelBinding{t.text(target, "attr"), name, t.node(b.statement).line});
        }
    }
    return out;
}

LossSpec PipelineReader::loss(const State &state, const std::vector<ModelSpec> &models)
{
    LossSpec spec;
    spec.name = m_lossName;
    if (state.inIterationModels)
        spec.models = *state.inIterationModels; // what the loss hands to model_fn
    const KnownLoss *known = nullptr;
    std::vector<std::string> knownNames;
    for (const KnownLoss &l : knownLosses()) {
        known = l.name == m_lossName ? &l : known;
        knownNames.push_back(l.name);
    }
    // The loss's own code when the import has it (diffsynth/diffusion/loss.py), else what knownLosses() says.
    const ModuleSet::Found<FunctionDef> code = m_context.modules().findFunction(*m_module, m_lossName);
    const PythonModule &anchor = state.modelFnModule ? *state.modelFnModule : *m_module;
    const NodeId at = state.modelFnModule ? state.modelFnStatement : m_class->node;
    const std::string where = m_class->name + ".model_fn";
    if (!known && !code) {
        m_context.report(Severity::Warning, "unknown-loss", anchor, at, m_class->name + ".loss",
            "the loss '" + m_lossName + "' is neither in the imported files nor one this importer knows ("
                + joined(knownNames, ", ") + "); its input_params are model_fn's parameters only, without what the "
                "loss reads itself");
    }
    if (state.modelFn.empty()) {
        if (!state.modelFnReported)
            m_context.report(Severity::Warning, "no-model-fn", anchor, at, where,
                "the pipeline sets no self.model_fn this reader can follow; the loss is declared without "
                "input_params (it may read every param)");
        return spec;
    }
    const ModuleSet::Found<FunctionDef> fn = m_context.modules().findFunction(*state.modelFnModule, state.modelFn);
    if (!fn) {
        m_context.report(Severity::Warning, "no-model-fn", anchor, at, where,
            "self.model_fn = " + state.modelFn + ", a function not defined in the imported files; the loss is "
                "declared without input_params (it may read every param)");
        return spec;
    }
    std::vector<std::string> modelNames;
    std::vector<std::string> parameters;
    for (const ModelSpec &m : models)
        modelNames.push_back(m.name);
    for (const Parameter &p : fn.item->parameters) {
        if (p.kind != Parameter::Kind::VarPositional && p.kind != Parameter::Kind::VarKeyword && p.name != "self"
            && !contains(modelNames, p.name) && !contains(parameters, p.name))
            parameters.push_back(p.name);
    }
    const auto facts = code ? BodyReader::readLoss(*code.module, *code.item, parameters, modelNames) : std::nullopt;
    if (facts) {
        spec.inputParams = facts->reads;
        if (!facts->writes.empty())
            spec.outputParams = facts->writes;
        return spec;
    }
    const std::vector<std::string> supplies = known ? known->supplies : std::vector<std::string>{"timestep"};
    std::vector<std::string> params;
    for (const std::string &p : parameters) {
        if (!contains(supplies, p))
            params.push_back(p);
    }
    for (const std::string &r : known ? known->reads : std::vector<std::string>()) {
        if (!contains(params, r))
            params.push_back(r);
    }
    std::sort(params.begin(), params.end());
    spec.inputParams = std::move(params);
    return spec;
}

} // namespace splitscope::importer
