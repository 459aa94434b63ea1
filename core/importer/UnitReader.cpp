// SPDX-License-Identifier: MIT
#include "UnitReader.h"

#include "core/NameSuggestion.h"

namespace splitscope::importer {

namespace {

// A chain of unit base classes longer than this is not followed (it also ends cycles).
constexpr int kMaxClassDepth = 16;
constexpr const char *kRootClass = "PipelineUnit";
// Messages quote at most this many bytes of a value, and this many of a str's adjacent literals.
constexpr std::size_t kMaxQuotedBytes = 80;
constexpr std::size_t kMaxQuotedLiterals = 8;

bool isBoolField(const std::string &field)
{
    return field == "seperate_cfg" || field == "take_over";
}

std::string clipped(const std::string &text)
{
    return shortened(text, kMaxQuotedBytes);
}

// The literals of a str written as adjacent ones, quoted and joined by `separator`: as written ("height" "width"),
// or with the commas likely meant ("height", "width").
std::string literalsJoinedBy(const Value &value, const char *separator)
{
    std::string out;
    for (std::size_t i = 0; i < value.literals.size(); ++i) {
        if (i == kMaxQuotedLiterals)
            return out + separator + "...";
        out += (i == 0 ? "\"" : separator + std::string("\"")) + clipped(value.literals[i]) + "\"";
    }
    return out;
}

// Unresolved values name their own position; say where when it is elsewhere.
std::string why(const Value &v, const PythonModule &here)
{
    const bool elsewhere = v.module && v.module != &here;
    return elsewhere ? v.text + " (" + v.module->fileName() + ":" + std::to_string(v.line) + ")" : v.text;
}

} // namespace

const std::vector<std::string> &UnitReader::fieldNames()
{
    static const std::vector<std::string> kFields = {"seperate_cfg", "take_over", "input_params", "output_params",
        "input_params_posi", "input_params_nega", "onload_model_names"};
    return kFields;
}

void UnitReader::setDefaults(Unit &unit)
{
    unit.seperateCfg = false;
    unit.takeOver = false;
    unit.inputParams.clear();
    unit.outputParams.clear();
    unit.inputParamsPosi.reset();
    unit.inputParamsNega.reset();
    unit.onloadModelNames.reset();
    unit.scalarListFields = kInputParamsWasNull | kOutputParamsWasNull;
}

std::string UnitReader::missingCommaMessage(const std::string &field, const Value &value)
{
    const std::string written = literalsJoinedBy(value, " ");
    return field + " is " + (value.parenthesized ? "(" + written + ")" : written)
        + ", adjacent str literals that Python joins into the one str \"" + clipped(value.text)
        + "\": most likely a comma is missing, as in (" + literalsJoinedBy(value, ", ") + ")";
}

bool UnitReader::isUnitClass(const PythonModule &module, const ClassDef &cls, int depth) const
{
    if (depth > kMaxClassDepth)
        return false;
    for (const BaseClass &base : baseClasses(m_context.modules(), module, cls)) {
        if (base.name == kRootClass
            || (base.definition && isUnitClass(*base.definition.module, *base.definition.item, depth + 1)))
            return true;
    }
    return false;
}

Unit UnitReader::read(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments)
{
    Unit unit;
    unit.name = cls.name;
    setDefaults(unit);
    if (cls.docstring && !cls.docstring->empty())
        unit.doc = cls.docstring;
    unit.location.line = module.tree().node(cls.node).line;
    unit.location.column = module.tree().node(cls.node).column;
    m_unitName = cls.name;
    readInit(module, cls, arguments, unit, 0);
    inferStochastic(module, cls, unit);
    return unit;
}

void UnitReader::readInit(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments, Unit &unit,
    int depth)
{
    if (depth > kMaxClassDepth) {
        m_context.report(Severity::Warning, "unknown-base-class", module, cls.node, m_unitName,
            "the chain of base classes is too long to follow; the declaration may be incomplete");
        return;
    }
    const std::vector<BaseClass> bases = baseClasses(m_context.modules(), module, cls);
    const FunctionDef *init = cls.method("__init__");
    if (!init && bases.empty()) {
        m_context.report(Severity::Warning, "unknown-base-class", module, cls.node, m_unitName,
            "class " + cls.name + " has no base class and no __init__; it declares nothing");
        return;
    }
    if (!init) {
        passToBase(module, bases.front(), arguments, unit, depth); // the first base's __init__ runs
        return;
    }
    const AstTree &t = module.tree();
    const std::string where = m_unitName + ".__init__";
    Locals locals = bindParameters(m_context, module, *init, arguments, true, where);
    bool called = false;
    for (const BodyStatement &b : flattenBody(t, init->node)) {
        const NodeId s = b.statement;
        const int line = t.node(s).line;
        const bool conditional = b.conditional || b.loop;
        if (const std::optional<Assignment> a = readAssignment(t, s)) {
            if (a->value == kNoNode || a->targets.size() != 1)
                continue;
            const NodeId target = a->targets.front();
            const std::string field = attributeOf(t, target);
            if (t.is(target, "Name") && a->augmented.empty()) {
                // A local used later in the call; under a condition its value is not known.
                const std::string &name = t.text(target, "id");
                Value v = m_context.evaluator().evaluate(module, a->value, &locals);
                if (conditional)
                    v = unresolved(module, s, "the local '" + name + "', assigned under a condition at line "
                            + std::to_string(line));
                locals[name] = std::move(v);
            } else if (contains(fieldNames(), field) && !a->augmented.empty()) {
                m_context.report(Severity::Warning, "computed-argument", module, s, m_unitName + "." + field,
                    "self." + field + " " + a->augmented + " ... changes the field at run time; ignored");
            } else if (contains(fieldNames(), field)) {
                if (conditional)
                    m_context.report(Severity::Warning, "conditional-init", module, s, m_unitName + "." + field,
                        "self." + field + " is set under a condition; read as if it always is");
                applyField(module, field, m_context.evaluator().evaluate(module, a->value, &locals), unit);
            }
            continue;
        }
        const auto super = t.is(s, "Expr") ? superInitCall(t, t.child(s, "value")) : std::nullopt;
        if (!super)
            continue;
        if (conditional)
            m_context.report(Severity::Warning, "conditional-init", module, s, where,
                "the base __init__ is called under a condition or in a loop (line " + std::to_string(line)
                    + "); read as if it runs once");
        if (called)
            m_context.report(Severity::Warning, "conditional-init", module, s, where,
                "the base __init__ is called again; the later call's arguments win");
        called = true;
        const CallArguments callArguments = evaluateCallArguments(m_context, module, super->call, &locals, super->skip);
        BaseClass target = bases.empty() ? BaseClass() : bases.front();
        if (target.node == kNoNode)
            target.node = s; // a class without bases: its findings go to the super() call
        if (!super->explicitBase.empty()) {
            target.name = m_context.modules().originalName(module, super->explicitBase);
            target.definition = m_context.modules().findClass(module, super->explicitBase);
            target.node = s;
        }
        passToBase(module, target, callArguments, unit, depth);
    }
    if (!called)
        m_context.report(Severity::Warning, "no-super-init", module, init->node, where,
            cls.name + ".__init__ never calls super().__init__(...), so PipelineUnit never stores a declaration "
                       "(DiffSynth would fail on this unit); read as declaring nothing");
}

void UnitReader::passToBase(const PythonModule &module, const BaseClass &base, const CallArguments &arguments,
    Unit &unit, int depth)
{
    if (base.name == kRootClass) {
        applyPipelineUnitArguments(module, arguments, unit);
    } else if (base.definition) {
        readInit(*base.definition.module, *base.definition.item, arguments, unit, depth + 1);
    } else {
        m_context.report(Severity::Warning, "unknown-base-class", module, base.node, m_unitName,
            (base.name.empty() ? std::string("a base class") : "the base class '" + base.name + "'")
                + " is not PipelineUnit and is not defined in the imported files; its __init__ is assumed to be "
                  "PipelineUnit's");
        applyPipelineUnitArguments(module, arguments, unit);
    }
}

void UnitReader::applyPipelineUnitArguments(const PythonModule &module, const CallArguments &arguments, Unit &unit)
{
    // PipelineUnit.__init__ assigns every field: what is not passed gets its default, whatever `self.<field> = ...`
    // said before the call.
    setDefaults(unit);
    const std::vector<std::string> &fields = fieldNames();
    for (std::size_t i = 0; i < arguments.positional.size(); ++i) {
        const Value &v = arguments.positional[i];
        if (i >= fields.size()) {
            m_context.report(Severity::Warning, "positional-argument", v, module, m_unitName,
                "PipelineUnit.__init__ takes " + std::to_string(fields.size()) + " arguments; this one is ignored");
            continue;
        }
        m_context.report(Severity::Warning, "positional-argument", v, module, m_unitName + "." + fields[i],
            "positional argument " + std::to_string(i + 1) + " read as " + fields[i]
                + " by DiffSynth's PipelineUnit.__init__ signature (seperate_cfg, take_over, input_params, "
                  "output_params, input_params_posi, input_params_nega, onload_model_names); pass it by keyword");
        applyField(module, fields[i], v, unit);
    }
    for (const auto &[name, value] : arguments.keywords) {
        if (contains(fields, name)) {
            applyField(module, name, value, unit);
            continue;
        }
        const std::string hint = closestName(name, fields);
        m_context.report(Severity::Warning, "unknown-keyword", value, module, m_unitName + "." + name,
            "PipelineUnit.__init__ has no parameter '" + name + "'"
                + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; ignored (Python would raise TypeError)");
    }
    for (const Value &spread : arguments.unknownSpreads)
        m_context.report(Severity::Warning, "computed-argument", spread, module, m_unitName,
            "the base __init__ gets " + why(spread, module) + "; the fields it sets are not known");
}

void UnitReader::applyField(const PythonModule &module, const std::string &field, const Value &value, Unit &unit)
{
    const std::string where = m_unitName + "." + field;
    if (value.isUnresolved()) {
        m_context.report(Severity::Warning, "computed-argument", value, module, where,
            field + " is " + why(value, module) + ", which cannot be read without running Python; left "
                + (isBoolField(field) ? "False" : "None"));
        return;
    }
    if (isBoolField(field)) {
        if (value.kind != Value::Kind::Bool && value.kind != Value::Kind::None)
            m_context.report(Severity::Warning, "wrong-type", value, module, where,
                field + " is " + value.typeName() + ", not a bool; read by its truth value");
        (field == "seperate_cfg" ? unit.seperateCfg : unit.takeOver) = truthValue(value);
        return;
    }
    if (field != "input_params_posi" && field != "input_params_nega") {
        applyNames(module, field, value, unit);
        return;
    }
    std::optional<ParamMap> &map = field == "input_params_posi" ? unit.inputParamsPosi : unit.inputParamsNega;
    map.reset();
    if (value.kind == Value::Kind::None)
        return;
    if (value.kind != Value::Kind::Dict) {
        m_context.report(Severity::Warning, "wrong-type", value, module, where,
            field + " is " + value.typeName() + ", not a dict {process-arg: param}; left null");
        return;
    }
    map.emplace();
    for (const auto &[key, param] : value.entries) {
        const std::string entryWhere = where + "." + clipped(key);
        const std::string entry = "the param for '" + clipped(key) + "' is ";
        if (param.kind == Value::Kind::String && !param.text.empty())
            map->emplace_back(key, param.text);
        else if (param.kind == Value::Kind::String)
            m_context.report(Severity::Warning, "empty-name", param, module, entryWhere,
                entry + "the empty str, which names no param; the entry is left out");
        else if (param.isUnresolved())
            m_context.report(Severity::Warning, "computed-argument", param, module, entryWhere,
                entry + why(param, module) + "; the entry is left out");
        else
            m_context.report(Severity::Warning, "wrong-type", param, module, entryWhere,
                entry + param.typeName() + ", not a param name; the entry is left out");
    }
}

void UnitReader::applyNames(const PythonModule &module, const std::string &field, const Value &value, Unit &unit)
{
    const std::string where = m_unitName + "." + field;
    const bool models = field == "onload_model_names"; // else input_params or output_params
    const bool input = field == "input_params";
    const bool output = field == "output_params";
    const unsigned stringBit = input ? kInputParamsWasString
        : output                     ? kOutputParamsWasString
                                     : kOnloadModelNamesWasString;
    // None stays null in the description, as DiffSynth stores it (only the core's input/output bits exist).
    const unsigned nullBit = input ? kInputParamsWasNull : output ? kOutputParamsWasNull : 0u;
    unit.scalarListFields &= ~(stringBit | nullBit);
    std::vector<std::string> names;
    bool isNull = false;
    if (value.kind == Value::Kind::None) {
        isNull = true;
    } else if (value.kind == Value::Kind::String && value.text.empty()) {
        m_context.report(Severity::Warning, "string-as-list", value, module, where,
            field + " is the empty str \"\", not a tuple; DiffSynth iterates it and finds nothing: read as an empty "
                    "list");
    } else if (looksLikeMissingComma(value)) {
        // ("height" "width"): a str to Python, read as DiffSynth reads it, but the likely fix is the comma between
        // the names, not a trailing one after their join.
        m_context.report(Severity::Warning, "missing-comma", value, module, where,
            missingCommaMessage(field, value) + ". As written DiffSynth iterates the str character by character; "
                "read as the one-element list [\"" + clipped(value.text) + "\"]");
        names.push_back(value.text);
        unit.scalarListFields |= stringBit;
    } else if (value.kind == Value::Kind::String) {
        // DESIGN.md §2: ("noise") without a trailing comma is a str. DiffSynth iterates the characters of
        // input_params and output_params, and tests `model in onload_model_names`, a substring test on a str.
        const std::string text = clipped(value.text);
        const std::string written = value.parenthesized ? "(\"" + text + "\")" : "\"" + text + "\"";
        const std::string what = models
            ? "DiffSynth's split tests `model in onload_model_names`, which on a str is a substring test: every "
              "model whose name is part of \"" + text + "\" counts as called (\"vae\" in \"video_vae_encoder\" is "
              "True). Read as the one name \"" + text + "\" with that substring rule"
            : "DiffSynth iterates it character by character. Read as the one-element list [\"" + text + "\"]";
        m_context.report(Severity::Warning, "string-as-list", value, module, where,
            field + " is the str " + written + ", not a tuple: "
                + (value.parenthesized ? "parentheses without a trailing comma do not make a tuple in Python, and "
                                       : "")
                + what + "; write (\"" + text + "\",)");
        names.push_back(value.text);
        unit.scalarListFields |= stringBit;
    } else if (value.kind != Value::Kind::Sequence && value.kind != Value::Kind::Dict) {
        m_context.report(Severity::Warning, "wrong-type", value, module, where,
            field + " is " + value.typeName() + ", which is not iterable (Python would raise TypeError); left None");
        isNull = true;
    } else {
        std::vector<Value> items = value.items;
        if (value.kind == Value::Kind::Dict) {
            m_context.report(Severity::Warning, "wrong-type", value, module, where,
                field + " is a dict; Python iterates its keys, which are read as the names");
            for (const auto &entry : value.entries)
                items.push_back(stringValue(value, entry.first));
        }
        const char *noun = models ? "model" : "param";
        for (std::size_t i = 0; i < items.size(); ++i) {
            const Value &item = items[i];
            const std::string itemWhere = where + "[" + std::to_string(i) + "]";
            const std::string element = "element " + std::to_string(i) + " of " + field + " is ";
            if (item.kind == Value::Kind::String && item.text.empty()) {
                m_context.report(Severity::Warning, "empty-name", item, module, itemWhere,
                    element + "the empty str, which names no " + noun + "; left out");
            } else if (item.kind == Value::Kind::String) {
                if (looksLikeMissingComma(item))
                    m_context.report(Severity::Warning, "missing-comma", item, module, itemWhere,
                        element + literalsJoinedBy(item, " ") + ", adjacent str literals that Python joins into the "
                            "one name \"" + clipped(item.text) + "\": most likely a comma is missing, as in "
                            + literalsJoinedBy(item, ", ") + "; read as \"" + clipped(item.text)
                            + "\", as Python reads it");
                names.push_back(item.text);
            } else if (item.isUnresolved()) {
                m_context.report(Severity::Warning, "computed-argument", item, module, itemWhere,
                    element + why(item, module) + "; left out");
            } else {
                m_context.report(Severity::Warning, "wrong-type", item, module, itemWhere,
                    element + item.typeName() + ", not a " + noun + " name; left out");
            }
        }
    }
    if (isNull)
        unit.scalarListFields |= nullBit;
    if (input)
        unit.inputParams = std::move(names);
    else if (output)
        unit.outputParams = std::move(names);
    else if (isNull)
        unit.onloadModelNames.reset();
    else
        unit.onloadModelNames = std::move(names);
}

bool UnitReader::callsRandom(const PythonModule &module, const ClassDef &cls, std::string &reason, int depth) const
{
    if (depth > kMaxClassDepth)
        return false;
    if (const std::optional<RandomCall> call = randomCall(module.tree(), cls.node)) {
        reason = "calls " + call->name + "() at " + module.fileName() + ":" + std::to_string(call->line);
        return true;
    }
    for (const BaseClass &base : baseClasses(m_context.modules(), module, cls)) {
        if (base.definition && base.name != kRootClass
            && callsRandom(*base.definition.module, *base.definition.item, reason, depth + 1))
            return true;
    }
    return false;
}

void UnitReader::inferStochastic(const PythonModule &module, const ClassDef &cls, Unit &unit)
{
    std::string reason;
    if (contains(unit.outputParams, "noise"))
        reason = "outputs 'noise'";
    else if (!callsRandom(module, cls, reason, 0))
        return;
    unit.stochastic = true;
    m_context.report(Severity::Info, "stochastic-inferred", module, cls.node, m_unitName,
        "marked stochastic (heuristic): it " + reason + "; in stage one its randomness would be frozen into the cache");
}

} // namespace splitscope::importer
