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

bool contains(const std::vector<std::string> &list, const std::string &item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

// `self.NAME` as the whole token range.
std::string selfAttribute(const std::vector<Token> &tokens, TokenRange range)
{
    if (range.last - range.first == 3 && tokens[range.first].isName("self") && tokens[range.first + 1].isOperator(".")
        && tokens[range.first + 2].kind == TokenKind::Name)
        return tokens[range.first + 2].text;
    return {};
}

// Why an annotated attribute is not a model, or empty when it is one (heuristic).
std::string notAModelReason(const std::string &name, const std::string &type)
{
    static const char *const kNonModelWords[] = {"tokenizer", "processor", "scheduler", "prompter"};
    const std::string lowerName = lower(name);
    const std::string lowerType = lower(type);
    for (const char *word : kNonModelWords) {
        if (lowerName.find(word) != std::string::npos || lowerType.find(word) != std::string::npos)
            return std::string("its name or type says it is a ") + word;
    }
    static const char *const kBuiltins[] = {"bool", "int", "float", "str", "list", "dict", "tuple", "set"};
    for (const char *builtin : kBuiltins) {
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

PipelineReader::PipelineReader(ImportContext &context, std::string lossName)
    : m_context(context), m_units(context), m_lossName(std::move(lossName))
{
}

bool PipelineReader::isPipelineClass(const PythonModule &module, const ClassDef &cls) const
{
    return isPipelineClass(module, cls, 0);
}

bool PipelineReader::isPipelineClass(const PythonModule &module, const ClassDef &cls, int depth) const
{
    if (depth > kMaxClassDepth)
        return false;
    if (const FunctionDef *init = cls.method("__init__")) {
        const std::vector<Token> &tokens = module.tokens();
        const std::size_t end = std::min(init->statement->end, tokens.size());
        for (std::size_t i = init->statement->tokens.first; i + 2 < end; ++i) {
            if (tokens[i].isName("self") && tokens[i + 1].isOperator(".") && tokens[i + 2].isName("units"))
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
    const auto readBase = [&](const BaseClass &base) {
        if (base.definition && isPipelineClass(*base.definition.module, *base.definition.item, depth + 1))
            readState(*base.definition.module, *base.definition.item, state, depth + 1);
    };
    const FunctionDef *init = cls.method("__init__");
    if (!init) {
        if (!bases.empty())
            readBase(bases.front());
        return;
    }
    const std::vector<Token> &tokens = module.tokens();
    Scope scope;
    for (std::size_t i = 1; i < init->parameters.size(); ++i) {
        const Parameter &p = init->parameters[i];
        Value v;
        if (!p.defaultValue.empty() && p.kind != Parameter::Kind::VarKeyword && p.kind != Parameter::Kind::VarPositional) {
            v = m_context.evaluator().evaluate(module, p.defaultValue);
        } else {
            v.text = "the constructor parameter '" + p.name + "'";
            v.module = &module;
            v.line = p.line;
            v.column = p.column;
        }
        scope.values[p.name] = std::move(v);
    }
    const std::string where = m_className + ".__init__";
    for (const BodyStatement &b : flattenBody(module, init->statement->body)) {
        const Statement &s = *b.statement;
        scope.conditional = b.conditional;
        scope.loop = b.loop;
        if (const std::optional<Assignment> a = readAssignment(tokens, s)) {
            if (a->targets.size() != 1)
                continue;
            const TokenRange target = a->targets.front();
            const std::string attribute = selfAttribute(tokens, target);
            if (attribute.empty()) {
                if (target.last - target.first == 1 && tokens[target.first].kind == TokenKind::Name && !a->value.empty()
                    && a->augmented.empty()) {
                    const std::string &name = tokens[target.first].text;
                    const int expr = module.parseExpression(a->value);
                    const bool display = expr >= 0
                        && (module.arena().at(expr).kind == ExprKind::List || module.arena().at(expr).kind == ExprKind::Tuple);
                    if (display && !b.conditional && !b.loop)
                        scope.lists[name] = expr;
                    else
                        scope.lists.erase(name);
                    scope.values[name] = m_context.evaluator().evaluate(module, a->value, &scope.values);
                }
                continue;
            }
            if (!a->annotation.empty() && attribute != "units" && attribute != "in_iteration_models"
                && attribute != "model_fn") {
                const bool known = std::any_of(state.attributes.begin(), state.attributes.end(),
                    [&](const ModelAttribute &m) { return m.name == attribute; });
                if (!known)
                    state.attributes.push_back(
                        {attribute, module.describe(a->annotation), &module, s.line, tokens[target.first + 2].column});
                continue;
            }
            if (a->value.empty())
                continue;
            if (attribute == "units") {
                PythonModule::ParseError error;
                const int expr = module.parseExpression(a->value, &error);
                if (expr < 0) {
                    m_context.report(Severity::Warning, "computed-argument", module, error.line, error.column,
                        m_className + ".units", "self.units could not be read: " + error.message);
                    continue;
                }
                if (a->augmented.empty()) {
                    if (state.unitsSet && !state.units.empty() && (b.conditional || b.loop))
                        m_context.report(Severity::Warning, "conditional-unit", module, s.line, s.column,
                            m_className + ".units", "self.units is replaced under a condition; read as if it is");
                    state.units.clear();
                } else if (a->augmented != "+=") {
                    m_context.report(Severity::Warning, "computed-argument", module, s.line, s.column,
                        m_className + ".units", "self.units " + a->augmented + " ... cannot be read; ignored");
                    continue;
                }
                state.unitsSet = true;
                addUnits(module, expr, scope, state.units, 0);
            } else if (attribute == "in_iteration_models") {
                const Value v = m_context.evaluator().evaluate(module, a->value, &scope.values);
                std::vector<std::string> names;
                if (v.kind == Value::Kind::Sequence) {
                    for (const Value &item : v.items) {
                        if (item.kind == Value::Kind::String && item.text.empty())
                            m_context.report(Severity::Warning, "empty-name", item, module,
                                m_className + ".in_iteration_models", "an empty str names no model; left out");
                        else if (item.kind == Value::Kind::String)
                            names.push_back(item.text);
                        else
                            m_context.report(Severity::Warning, "computed-argument", item, module,
                                m_className + ".in_iteration_models", "an element that is " + item.typeName() + "; left out");
                    }
                } else if (looksLikeMissingComma(v)) {
                    std::string written, meant;
                    constexpr std::size_t kMaxQuoted = 8; // literals quoted, then "..."
                    for (std::size_t i = 0; i < v.literals.size() && i < kMaxQuoted; ++i) {
                        written += (i == 0 ? "\"" : " \"") + v.literals[i] + "\"";
                        meant += (i == 0 ? "\"" : ", \"") + v.literals[i] + "\"";
                    }
                    if (v.literals.size() > kMaxQuoted) {
                        written += " ...";
                        meant += ", ...";
                    }
                    m_context.report(Severity::Warning, "missing-comma", v, module, m_className + ".in_iteration_models",
                        "in_iteration_models is " + (v.parenthesized ? "(" + written + ")" : written)
                            + ", adjacent str literals that Python joins into the one str \"" + v.text
                            + "\": most likely a comma is missing, as in (" + meant + "); read as one model name");
                    names.push_back(v.text);
                } else if (v.kind == Value::Kind::String && !v.text.empty()) {
                    m_context.report(Severity::Warning, "string-as-list", v, module, m_className + ".in_iteration_models",
                        "in_iteration_models is the str \"" + v.text + "\", not a tuple (write (\"" + v.text
                            + "\",)); read as one model name");
                    names.push_back(v.text);
                } else {
                    m_context.report(Severity::Warning, "computed-argument", v, module, m_className + ".in_iteration_models",
                        "in_iteration_models is " + (v.isUnresolved() ? v.text : v.typeName()) + "; not read");
                    continue;
                }
                state.inIterationModels = std::move(names);
            } else if (attribute == "model_fn") {
                const int expr = module.parseExpression(a->value);
                const std::string name = expr >= 0 ? module.arena().dottedName(expr) : std::string();
                if (name.empty()) {
                    m_context.report(Severity::Warning, "no-model-fn", module, s.line, s.column, m_className + ".model_fn",
                        "self.model_fn is set to " + module.describe(a->value)
                            + ", not a function name; the loss is declared without input_params (it may read every param)");
                    state.modelFn.clear();
                    state.modelFnReported = true;
                    continue;
                }
                state.modelFnReported = false;
                state.modelFn = name;
                state.modelFnModule = &module;
                state.modelFnLine = s.line;
                state.modelFnColumn = s.column;
            }
            continue;
        }
        // Expression statements: super().__init__(...) and self.units.append/extend/insert(...).
        bool relevant = false;
        for (std::size_t i = s.tokens.first; i < s.tokens.last; ++i)
            relevant = relevant || tokens[i].isName("__init__") || tokens[i].isName("units");
        if (!relevant)
            continue;
        PythonModule::ParseError error;
        const int expr = module.parseExpression(s.tokens, &error);
        if (expr < 0) {
            // Valid Python past the parser's nesting limit: what it does to the units is unknown.
            m_context.report(Severity::Error, "unreadable-statement", module, error.line, error.column, m_className,
                "a statement that calls __init__ or uses self.units could not be read (" + error.message
                    + "); the pipeline's units may be incomplete");
            continue;
        }
        if (const std::optional<SuperInitCall> super = superInitCall(module, expr)) {
            if (super->explicitBase.empty()) {
                if (!bases.empty())
                    readBase(bases.front());
            } else {
                BaseClass base;
                base.definition = m_context.modules().findClass(module, super->explicitBase);
                readBase(base);
            }
            continue;
        }
        const Expr &call = module.arena().at(expr);
        if (call.kind != ExprKind::Call)
            continue;
        const std::string callee = module.arena().dottedName(call.items.at(0));
        if (callee == "self.units.append" && call.items.size() == 2) {
            state.unitsSet = true;
            addUnit(module, call.items[1], scope, state.units, 0);
        } else if (callee == "self.units.extend" && call.items.size() == 2) {
            state.unitsSet = true;
            addUnits(module, call.items[1], scope, state.units, 0);
        } else if (callee == "self.units.insert" && call.items.size() == 3) {
            const Value index = m_context.evaluator().evaluate(module, call.items[1], &scope.values);
            std::vector<UnitEntry> inserted;
            addUnit(module, call.items[2], scope, inserted, 0);
            std::size_t at = state.units.size();
            if (index.kind == Value::Kind::Number && !index.text.empty()
                && index.text.find_first_not_of("0123456789") == std::string::npos && index.text.size() < 9)
                at = std::min(at, static_cast<std::size_t>(std::stoul(index.text)));
            else
                m_context.report(Severity::Warning, "computed-argument", index, module, m_className + ".units",
                    "self.units.insert at a position this reader cannot read; appended at the end");
            state.units.insert(state.units.begin() + static_cast<std::ptrdiff_t>(at), inserted.begin(), inserted.end());
            state.unitsSet = true;
        } else if (callee.rfind("self.units.", 0) == 0) {
            m_context.report(Severity::Warning, "computed-argument", module, s.line, s.column, m_className + ".units",
                callee + "(...) changes the units in a way this reader does not follow; ignored");
        }
    }
}

void PipelineReader::addUnits(const PythonModule &module, int expr, const Scope &scope, std::vector<UnitEntry> &out,
    int depth)
{
    const Expr &e = module.arena().at(expr);
    const std::string where = m_className + ".units";
    if (depth > kMaxUnitListDepth) {
        m_context.report(Severity::Warning, "computed-argument", module, e.line, e.column, where,
            "the list of units is built too indirectly to follow");
        return;
    }
    switch (e.kind) {
    case ExprKind::List:
    case ExprKind::Tuple:
        for (const int item : e.items)
            addUnit(module, item, scope, out, depth + 1);
        return;
    case ExprKind::Comprehension:
        m_context.report(Severity::Warning, "unit-in-loop", module, e.line, e.column, where,
            "units built by a comprehension are not imported: how many there are, and which, is decided at run time");
        return;
    case ExprKind::Operation:
        if (e.text == "+" && e.items.size() == 2) {
            addUnits(module, e.items[0], scope, out, depth + 1);
            addUnits(module, e.items[1], scope, out, depth + 1);
            return;
        }
        break;
    case ExprKind::Name: {
        const auto it = scope.lists.find(e.text);
        if (it != scope.lists.end()) {
            addUnits(module, it->second, scope, out, depth + 1);
            return;
        }
        m_context.report(Severity::Warning, "computed-argument", module, e.line, e.column, where,
            "'" + e.text + "' is not a list of units written in __init__ (a parameter, or built at run time); "
                "none of its units is imported");
        return;
    }
    default:
        break;
    }
    m_context.report(Severity::Warning, "computed-argument", module, e.line, e.column, where,
        "the units are given by an expression this reader cannot list; none of them is imported");
}

void PipelineReader::addUnit(const PythonModule &module, int expr, const Scope &scope, std::vector<UnitEntry> &out,
    int depth)
{
    const Expr &e = module.arena().at(expr);
    const std::string where = m_className + ".units[" + std::to_string(out.size()) + "]";
    if (scope.loop) {
        m_context.report(Severity::Warning, "unit-in-loop", module, e.line, e.column, where,
            "a unit added in a loop is not imported: how many times it is added is decided at run time");
        return;
    }
    if (e.kind == ExprKind::Starred) {
        addUnits(module, e.items.at(0), scope, out, depth + 1);
        return;
    }
    if (e.kind == ExprKind::Operation && e.text == "if") {
        m_context.report(Severity::Warning, "conditional-unit", module, e.line, e.column, where,
            "which unit this is (A() if ... else B()) is decided at run time; not imported");
        return;
    }
    const std::string callee = e.kind == ExprKind::Call ? module.arena().dottedName(e.items.at(0)) : std::string();
    if (callee.empty()) {
        m_context.report(Severity::Warning, "computed-argument", module, e.line, e.column, where,
            "an element of self.units that is not a unit constructor call (UnitClass(...)); not imported");
        return;
    }
    UnitEntry entry;
    entry.className = callee.substr(callee.find_last_of('.') == std::string::npos ? 0 : callee.find_last_of('.') + 1);
    entry.definition = m_context.modules().findClass(module, callee);
    entry.arguments = evaluateCallArguments(m_context, module, expr, &scope.values);
    entry.module = &module;
    entry.line = e.line;
    entry.column = e.column;
    entry.conditional = scope.conditional;
    out.push_back(std::move(entry));
}

std::optional<Pipeline> PipelineReader::read(const PythonModule &module, const ClassDef &cls)
{
    m_className = cls.name;
    m_module = &module;
    m_class = &cls;
    State state;
    readState(module, cls, state, 0);
    if (state.units.empty()) {
        m_context.report(Severity::Warning, "no-units", module, cls.line, cls.column, cls.name,
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
            m_context.report(Severity::Warning, "unknown-unit-class", *entry.module, entry.line, entry.column, where,
                "the unit class '" + entry.className
                    + "' is not defined in the imported files; kept as a unit that declares nothing (import the "
                      "folder that defines it to read it)");
            unit.name = entry.className;
            unit.seperateCfg = false;
            unit.takeOver = false;
            unit.scalarListFields = kInputParamsWasNull | kOutputParamsWasNull;
            unit.doc = "declaration not found by the DiffSynth importer";
        } else {
            if (!m_units.isUnitClass(*entry.definition.module, *entry.definition.item))
                m_context.report(Severity::Warning, "unknown-base-class", *entry.module, entry.line, entry.column, where,
                    "'" + entry.className + "' does not derive from PipelineUnit as far as this reader can see; "
                                            "read as a unit anyway");
            unit = m_units.read(*entry.definition.module, *entry.definition.item, entry.arguments);
        }
        if (entry.conditional)
            m_context.report(Severity::Warning, "conditional-unit", *entry.module, entry.line, entry.column, where,
                "'" + entry.className + "' is added under a condition; included as if it always is");
        if (!names.insert(unit.name).second) {
            int &n = nextSuffix.emplace(unit.name, 2).first->second;
            std::string renamed = unit.name + "_" + std::to_string(n++);
            while (names.count(renamed))
                renamed = unit.name + "_" + std::to_string(n++);
            m_context.report(Severity::Warning, "duplicate-unit", *entry.module, entry.line, entry.column, where,
                "'" + unit.name + "' appears more than once in self.units; this one is named '" + renamed + "'");
            unit.name = renamed;
            names.insert(renamed);
        }
        p.units.push_back(std::move(unit));
    }
    p.models = models(state, p.units);
    p.loss = loss(state, p.models);
    if (state.inIterationModels && !state.inIterationModels->empty()) {
        TrainingConfig training;
        training.loraBaseModel = state.inIterationModels->front();
        p.training = training;
        std::vector<TrainingConfig> alternatives;
        for (const std::string &m : *state.inIterationModels) {
            TrainingConfig full;
            full.trainableModels = m;
            alternatives.push_back(std::move(full));
        }
        p.alternativeTraining = std::move(alternatives);
    } else {
        m_context.report(Severity::Warning, "no-in-iteration-models", module, cls.line, cls.column, cls.name,
            "the pipeline sets no in_iteration_models, so the description has no training block "
            "(give --lora_base_model or --trainable_models to split it)");
    }
    return p;
}

std::vector<ModelSpec> PipelineReader::models(const State &state, const std::vector<Unit> &units)
{
    std::vector<std::string> used;
    if (state.inIterationModels)
        used = *state.inIterationModels;
    for (const Unit &u : units) {
        if (!u.onloadModelNames)
            continue;
        for (const std::string &m : *u.onloadModelNames) {
            if (!contains(used, m))
                used.push_back(m);
        }
    }
    std::vector<ModelSpec> out;
    std::vector<std::string> declared;
    for (const ModelAttribute &a : state.attributes) {
        if (!contains(used, a.name)) {
            const std::string reason = notAModelReason(a.name, a.type);
            if (!reason.empty()) {
                m_context.report(Severity::Info, "not-a-model", *a.module, a.line, a.column, m_className + "." + a.name,
                    "self." + a.name + ": " + a.type + " is not counted as a model (heuristic: " + reason + ")");
                continue;
            }
        }
        ModelSpec m;
        m.name = a.name;
        out.push_back(std::move(m));
        declared.push_back(a.name);
    }
    for (const std::string &name : used) {
        if (contains(declared, name))
            continue;
        m_context.report(Severity::Info, "undeclared-model", *m_module, m_class->line, m_class->column,
            m_className + "." + name,
            "the model '" + name + "' is used (in_iteration_models or onload_model_names) but not declared as "
                "an annotated attribute of __init__; added to the models");
        ModelSpec m;
        m.name = name;
        out.push_back(std::move(m));
        declared.push_back(name);
    }
    return out;
}

LossSpec PipelineReader::loss(const State &state, const std::vector<ModelSpec> &models)
{
    LossSpec spec;
    spec.name = m_lossName;
    const KnownLoss *known = nullptr;
    for (const KnownLoss &l : knownLosses()) {
        if (l.name == m_lossName)
            known = &l;
    }
    const PythonModule &anchor = state.modelFnModule ? *state.modelFnModule : *m_module;
    const int anchorLine = state.modelFnModule ? state.modelFnLine : m_class->line;
    const int anchorColumn = state.modelFnModule ? state.modelFnColumn : m_class->column;
    std::vector<std::string> supplies = {"timestep"};
    if (known) {
        supplies = known->supplies;
    } else {
        std::string names;
        for (const KnownLoss &l : knownLosses())
            names += (names.empty() ? "" : ", ") + l.name;
        m_context.report(Severity::Warning, "unknown-loss", anchor, anchorLine, anchorColumn,
            m_className + ".loss", "the loss '" + m_lossName + "' is not one this importer knows (" + names
                + "); its input_params are model_fn's parameters only, without what the loss reads itself");
    }
    if (state.modelFn.empty()) {
        if (state.modelFnReported)
            return spec;
        m_context.report(Severity::Warning, "no-model-fn", anchor, anchorLine, anchorColumn,
            m_className + ".model_fn",
            "the pipeline sets no self.model_fn this reader can follow; the loss is declared without input_params "
            "(it may read every param)");
        return spec;
    }
    const ModuleSet::Found<FunctionDef> fn = m_context.modules().findFunction(*state.modelFnModule, state.modelFn);
    if (!fn) {
        m_context.report(Severity::Warning, "no-model-fn", *state.modelFnModule, state.modelFnLine, state.modelFnColumn,
            m_className + ".model_fn",
            "self.model_fn = " + state.modelFn + ", a function not defined in the imported files; the loss is "
                "declared without input_params (it may read every param)");
        return spec;
    }
    std::vector<std::string> params;
    for (const Parameter &p : fn.item->parameters) {
        if (p.kind == Parameter::Kind::VarPositional || p.kind == Parameter::Kind::VarKeyword || p.name == "self")
            continue;
        const bool isModel = std::any_of(models.begin(), models.end(), [&](const ModelSpec &m) { return m.name == p.name; });
        if (isModel || contains(supplies, p.name) || contains(params, p.name))
            continue;
        params.push_back(p.name);
    }
    if (known) {
        for (const std::string &r : known->reads) {
            if (!contains(params, r))
                params.push_back(r);
        }
    }
    std::sort(params.begin(), params.end());
    spec.inputParams = std::move(params);
    return spec;
}

} // namespace splitscope::importer
