// SPDX-License-Identifier: MIT
#include "UnitReader.h"

#include "core/NameSuggestion.h"

#include <algorithm>
#include <array>

namespace splitscope::importer {

namespace {

// A chain of unit base classes longer than this is not followed (it also ends cycles).
constexpr int kMaxClassDepth = 16;

constexpr const char *kRootClass = "PipelineUnit";

bool isBoolField(const std::string &field)
{
    return field == "seperate_cfg" || field == "take_over";
}

// Messages quote at most this many bytes of a value.
constexpr std::size_t kMaxQuotedBytes = 80;

std::string shortened(const std::string &text)
{
    if (text.size() <= kMaxQuotedBytes)
        return text;
    std::size_t cut = kMaxQuotedBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // keep the message valid UTF-8
    return text.substr(0, cut) + "...";
}

// The literals of a str written as adjacent ones, quoted and joined by `separator`: as
// written ("height" "width"), or with the commas likely meant ("height", "width"). At
// most kMaxQuotedLiterals of them, then "...".
constexpr std::size_t kMaxQuotedLiterals = 8;
std::string literalsJoinedBy(const Value &value, const char *separator)
{
    std::string out;
    for (std::size_t i = 0; i < value.literals.size(); ++i) {
        if (i == kMaxQuotedLiterals)
            return out + separator + "...";
        out += (i == 0 ? "\"" : separator + std::string("\"")) + shortened(value.literals[i]) + "\"";
    }
    return out;
}

// Unresolved values name their own position; say where when it is elsewhere.
std::string why(const Value &v, const PythonModule &here)
{
    std::string out = v.text;
    if (v.module && v.module != &here)
        out += " (" + v.module->fileName() + ":" + std::to_string(v.line) + ")";
    return out;
}

} // namespace

const std::vector<std::string> &UnitReader::fieldNames()
{
    static const std::vector<std::string> kFields = {"seperate_cfg", "take_over", "input_params", "output_params",
        "input_params_posi", "input_params_nega", "onload_model_names"};
    return kFields;
}

bool UnitReader::isUnitClass(const PythonModule &module, const ClassDef &cls) const
{
    return isUnitClass(module, cls, 0);
}

bool UnitReader::isUnitClass(const PythonModule &module, const ClassDef &cls, int depth) const
{
    if (depth > kMaxClassDepth)
        return false;
    for (const BaseClass &base : baseClasses(m_context.modules(), module, cls)) {
        if (base.name == kRootClass)
            return true;
        if (base.definition && isUnitClass(*base.definition.module, *base.definition.item, depth + 1))
            return true;
    }
    return false;
}

Unit UnitReader::read(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments)
{
    Unit unit;
    unit.name = cls.name;
    // PipelineUnit's defaults: False, False and None for every list and dict.
    unit.seperateCfg = false;
    unit.takeOver = false;
    unit.scalarListFields = kInputParamsWasNull | kOutputParamsWasNull;
    unit.doc = cls.docstring;
    if (unit.doc && unit.doc->empty())
        unit.doc.reset();
    unit.location.line = cls.line;
    unit.location.column = cls.column;
    m_unitName = cls.name;
    readInit(module, cls, arguments, unit, 0);
    inferStochastic(module, cls, unit);
    return unit;
}

void UnitReader::readInit(const PythonModule &module, const ClassDef &cls, const CallArguments &arguments, Unit &unit,
    int depth)
{
    if (depth > kMaxClassDepth) {
        m_context.report(Severity::Warning, "unknown-base-class", module, cls.line, cls.column, m_unitName,
            "the chain of base classes is too long to follow; the declaration may be incomplete");
        return;
    }
    const std::vector<BaseClass> bases = baseClasses(m_context.modules(), module, cls);
    const FunctionDef *init = cls.method("__init__");
    if (!init) {
        // No __init__: the constructor's arguments go to the first base's.
        if (bases.empty()) {
            m_context.report(Severity::Warning, "unknown-base-class", module, cls.line, cls.column, m_unitName,
                "class " + cls.name + " has no base class and no __init__; it declares nothing");
            return;
        }
        passToBase(module, bases.front(), arguments, unit, depth);
        return;
    }
    const AstTree &t = module.tree();
    const std::string where = m_unitName + ".__init__";
    Locals locals = bindParameters(m_context, module, *init, arguments, true, where);
    bool called = false;
    for (const BodyStatement &b : flattenBody(t, init->node)) {
        const NodeId s = b.statement;
        const int line = t.node(s).line;
        const int column = t.node(s).column;
        if (const std::optional<Assignment> a = readAssignment(t, s)) {
            if (a->value == kNoNode || a->targets.size() != 1)
                continue;
            const NodeId target = a->targets.front();
            const std::string field = attributeOf(t, target);
            if (t.is(target, "Name") && a->augmented.empty()) {
                // A local used later in the call; under a condition its value is not known.
                const std::string &name = t.text(target, "id");
                Value v = m_context.evaluator().evaluate(module, a->value, &locals);
                if (b.conditional || b.loop) {
                    v = unresolved(module, s, "the local '" + name + "', assigned under a condition at line "
                        + std::to_string(line));
                }
                locals[name] = std::move(v);
            } else if (!field.empty()) {
                const auto &fields = fieldNames();
                if (std::find(fields.begin(), fields.end(), field) == fields.end())
                    continue;
                if (!a->augmented.empty()) {
                    m_context.report(Severity::Warning, "computed-argument", module, line, column,
                        m_unitName + "." + field, "self." + field + " " + a->augmented + " ... changes the field at run time; ignored");
                    continue;
                }
                if (b.conditional || b.loop)
                    m_context.report(Severity::Warning, "conditional-init", module, line, column,
                        m_unitName + "." + field, "self." + field + " is set under a condition; read as if it always is");
                applyField(module, field, m_context.evaluator().evaluate(module, a->value, &locals), unit);
            }
            continue;
        }
        // An expression statement: is it the call to the base's __init__?
        const std::optional<SuperInitCall> super = t.is(s, "Expr") ? superInitCall(t, t.child(s, "value")) : std::nullopt;
        if (!super)
            continue;
        if (b.conditional || b.loop)
            m_context.report(Severity::Warning, "conditional-init", module, line, column, where,
                "the base __init__ is called under a condition or in a loop (line " + std::to_string(line)
                    + "); read as if it runs once");
        if (called)
            m_context.report(Severity::Warning, "conditional-init", module, line, column, where,
                "the base __init__ is called again; the later call's arguments win");
        called = true;
        const CallArguments callArguments = evaluateCallArguments(m_context, module, super->call, &locals, super->skip);
        BaseClass target;
        if (super->explicitBase.empty()) {
            if (!bases.empty())
                target = bases.front();
        } else {
            target.name = m_context.modules().originalName(module, super->explicitBase);
            target.definition = m_context.modules().findClass(module, super->explicitBase);
            target.line = line;
            target.column = column;
        }
        passToBase(module, target, callArguments, unit, depth);
    }
    if (!called) {
        m_context.report(Severity::Warning, "no-super-init", module, init->line, init->column, where,
            cls.name + ".__init__ never calls super().__init__(...), so PipelineUnit never stores a declaration "
                       "(DiffSynth would fail on this unit); read as declaring nothing");
    }
}

void UnitReader::passToBase(const PythonModule &module, const BaseClass &base, const CallArguments &arguments,
    Unit &unit, int depth)
{
    if (base.name == kRootClass) {
        applyPipelineUnitArguments(module, arguments, unit);
        return;
    }
    if (base.definition) {
        readInit(*base.definition.module, *base.definition.item, arguments, unit, depth + 1);
        return;
    }
    m_context.report(Severity::Warning, "unknown-base-class", module, base.line, base.column, m_unitName,
        (base.name.empty() ? std::string("a base class") : "the base class '" + base.name + "'")
            + " is not PipelineUnit and is not defined in the imported files; its __init__ is assumed to be "
              "PipelineUnit's");
    applyPipelineUnitArguments(module, arguments, unit);
}

void UnitReader::applyPipelineUnitArguments(const PythonModule &module, const CallArguments &arguments, Unit &unit)
{
    // PipelineUnit.__init__ assigns every field: what is not passed gets its default,
    // whatever `self.<field> = ...` said before the call.
    unit.seperateCfg = false;
    unit.takeOver = false;
    unit.inputParams.clear();
    unit.outputParams.clear();
    unit.inputParamsPosi.reset();
    unit.inputParamsNega.reset();
    unit.onloadModelNames.reset();
    unit.scalarListFields = kInputParamsWasNull | kOutputParamsWasNull;
    const auto &fields = fieldNames();
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
        if (std::find(fields.begin(), fields.end(), name) != fields.end()) {
            applyField(module, name, value, unit);
            continue;
        }
        const std::string hint = closestName(name, fields);
        m_context.report(Severity::Warning, "unknown-keyword", value, module, m_unitName + "." + name,
            "PipelineUnit.__init__ has no parameter '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
                + "; ignored (Python would raise TypeError)");
    }
    for (const Value &spread : arguments.unknownSpreads) {
        m_context.report(Severity::Warning, "computed-argument", spread, module, m_unitName,
            "the base __init__ gets " + why(spread, module) + "; the fields it sets are not known");
    }
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
    if (field == "input_params_posi" || field == "input_params_nega") {
        std::optional<ParamMap> &map = field == "input_params_posi" ? unit.inputParamsPosi : unit.inputParamsNega;
        if (value.kind == Value::Kind::None) {
            map.reset();
            return;
        }
        if (value.kind != Value::Kind::Dict) {
            m_context.report(Severity::Warning, "wrong-type", value, module, where,
                field + " is " + value.typeName() + ", not a dict {process-arg: param}; left null");
            map.reset();
            return;
        }
        ParamMap out;
        for (const auto &[key, param] : value.entries) {
            if (param.kind == Value::Kind::String && param.text.empty()) {
                m_context.report(Severity::Warning, "empty-name", param, module, where + "." + shortened(key),
                    "the param for '" + shortened(key) + "' is the empty str, which names no param; the entry is left out");
            } else if (param.kind == Value::Kind::String) {
                out.emplace_back(key, param.text);
            } else if (param.isUnresolved()) {
                m_context.report(Severity::Warning, "computed-argument", param, module, where + "." + shortened(key),
                    "the param for '" + shortened(key) + "' is " + why(param, module) + "; the entry is left out");
            } else {
                m_context.report(Severity::Warning, "wrong-type", param, module, where + "." + shortened(key),
                    "the param for '" + shortened(key) + "' is " + param.typeName()
                        + ", not a param name; the entry is left out");
            }
        }
        map = std::move(out);
        return;
    }
    // input_params, output_params, onload_model_names: tuples of names.
    const bool models = field == "onload_model_names";
    const unsigned stringBit = field == "input_params" ? kInputParamsWasString
        : field == "output_params"                     ? kOutputParamsWasString
                                                       : kOnloadModelNamesWasString;
    // None stays null in the description, as DiffSynth stores it (only the core's input/output bits exist).
    const unsigned nullBit = field == "input_params" ? kInputParamsWasNull
        : field == "output_params"                   ? kOutputParamsWasNull
                                                     : 0u;
    unit.scalarListFields &= ~(stringBit | nullBit);
    std::vector<std::string> names;
    bool isNull = false;
    if (value.kind == Value::Kind::None) {
        isNull = true;
    } else if (value.kind == Value::Kind::String && value.text.empty()) {
        m_context.report(Severity::Warning, "string-as-list", value, module, where,
            field + " is the empty str \"\", not a tuple; DiffSynth iterates it and finds nothing: read as an empty list");
    } else if (looksLikeMissingComma(value)) {
        // ("height" "width"): a str to Python, read as DiffSynth reads it, but the likely
        // fix is the comma between the names, not a trailing one after their join.
        const std::string written = value.parenthesized ? "(" + literalsJoinedBy(value, " ") + ")"
                                                        : literalsJoinedBy(value, " ");
        m_context.report(Severity::Warning, "missing-comma", value, module, where,
            field + " is " + written + ", adjacent str literals that Python joins into the one str \""
                + shortened(value.text) + "\": most likely a comma is missing, as in (" + literalsJoinedBy(value, ", ")
                + "). As written DiffSynth iterates the str character by character; read as the one-element list [\""
                + shortened(value.text) + "\"]");
        names.push_back(value.text);
        unit.scalarListFields |= stringBit;
    } else if (value.kind == Value::Kind::String) {
        // DESIGN.md §2: ("noise") without a trailing comma is a str. DiffSynth iterates the
        // characters of input_params and output_params, and tests `model in onload_model_names`,
        // a substring test on a str.
        const std::string text = shortened(value.text);
        const std::string written = value.parenthesized ? "(\"" + text + "\")" : "\"" + text + "\"";
        const std::string what = models
            ? "DiffSynth's split tests `model in onload_model_names`, which on a str is a substring test: every model "
              "whose name is part of \"" + text + "\" counts as called (\"vae\" in \"video_vae_encoder\" is True). Read "
              "as the one name \"" + text + "\" with that substring rule"
            : "DiffSynth iterates it character by character. Read as the one-element list [\"" + text + "\"]";
        m_context.report(Severity::Warning, "string-as-list", value, module, where,
            field + " is the str " + written + ", not a tuple: "
                + (value.parenthesized ? "parentheses without a trailing comma do not make a tuple in Python, and " : "")
                + what + "; write (\"" + text + "\",)");
        names.push_back(value.text);
        unit.scalarListFields |= stringBit;
    } else if (value.kind == Value::Kind::Sequence || value.kind == Value::Kind::Dict) {
        std::vector<const Value *> items;
        std::vector<Value> keys;
        if (value.kind == Value::Kind::Dict) {
            m_context.report(Severity::Warning, "wrong-type", value, module, where,
                field + " is a dict; Python iterates its keys, which are read as the names");
            for (const auto &entry : value.entries) {
                Value key = value;
                key.kind = Value::Kind::String;
                key.text = entry.first;
                key.entries.clear();
                keys.push_back(std::move(key));
            }
            for (const Value &k : keys)
                items.push_back(&k);
        } else {
            for (const Value &item : value.items)
                items.push_back(&item);
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            const Value &item = *items[i];
            const std::string itemWhere = where + "[" + std::to_string(i) + "]";
            if (item.kind == Value::Kind::String && item.text.empty()) {
                m_context.report(Severity::Warning, "empty-name", item, module, itemWhere,
                    "element " + std::to_string(i) + " of " + field + " is the empty str, which names no "
                        + (models ? "model" : "param") + "; left out");
            } else if (item.kind == Value::Kind::String) {
                if (looksLikeMissingComma(item))
                    m_context.report(Severity::Warning, "missing-comma", item, module, itemWhere,
                        "element " + std::to_string(i) + " of " + field + " is " + literalsJoinedBy(item, " ")
                            + ", adjacent str literals that Python joins into the one name \"" + shortened(item.text)
                            + "\": most likely a comma is missing, as in " + literalsJoinedBy(item, ", ")
                            + "; read as \"" + shortened(item.text) + "\", as Python reads it");
                names.push_back(item.text);
            } else if (item.isUnresolved()) {
                m_context.report(Severity::Warning, "computed-argument", item, module, itemWhere,
                    "element " + std::to_string(i) + " of " + field + " is " + why(item, module) + "; left out");
            } else {
                m_context.report(Severity::Warning, "wrong-type", item, module, itemWhere,
                    "element " + std::to_string(i) + " of " + field + " is " + item.typeName() + ", not a "
                        + (models ? "model" : "param") + " name; left out");
            }
        }
    } else {
        m_context.report(Severity::Warning, "wrong-type", value, module, where,
            field + " is " + value.typeName() + ", which is not iterable (Python would raise TypeError); left None");
        isNull = true;
    }
    if (isNull)
        unit.scalarListFields |= nullBit;
    if (field == "input_params")
        unit.inputParams = std::move(names);
    else if (field == "output_params")
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
    if (std::find(unit.outputParams.begin(), unit.outputParams.end(), "noise") != unit.outputParams.end())
        reason = "outputs 'noise'";
    else if (!callsRandom(module, cls, reason, 0))
        return;
    unit.stochastic = true;
    m_context.report(Severity::Info, "stochastic-inferred", module, cls.line, cls.column, m_unitName,
        "marked stochastic (heuristic): it " + reason + "; in stage one its randomness would be frozen into the cache");
}

} // namespace splitscope::importer
