// SPDX-License-Identifier: MIT
#include "PipelineFile.h"

#include "AtomicFile.h"
#include "JsonReader.h"
#include "NameIndex.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_set>

namespace splitscope {

namespace {

using Kind = JsonReader::Kind;

const char *kindName(Kind kind)
{
    switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return "a boolean";
    case Kind::Number: return "a number";
    case Kind::String: return "a string";
    case Kind::Array: return "a list";
    case Kind::Object: return "an object";
    case Kind::Invalid: return "invalid";
    }
    return "invalid";
}

// A JSON path such as `units[3].output_params`, built as a chain of links on the
// stack so that reading a member costs no allocation; str() runs only when a
// diagnostic needs the text.
class Path {
public:
    Path() = default; // the document root
    Path(const Path &parent, std::string_view key) : m_parent(&parent), m_key(key) {}
    Path(const Path &parent, int index) : m_parent(&parent), m_index(index) {}

    std::string str() const
    {
        if (!m_parent)
            return {};
        std::string out = m_parent->str();
        if (m_index >= 0)
            return out + '[' + std::to_string(m_index) + ']';
        return out.empty() ? std::string(m_key) : out + '.' + std::string(m_key);
    }

private:
    const Path *m_parent = nullptr;
    std::string_view m_key;
    int m_index = -1;
};

// Reads one document into a Pipeline, collecting diagnostics. Type errors skip the
// offending value and go on, so one pass reports every problem it can; a syntax
// error stops the pass (nothing after it can be trusted).
class PipelineReader {
public:
    PipelineReader(std::string_view text, std::string fileName) : m_reader(text), m_file(std::move(fileName)) {}

    LoadResult read()
    {
        Pipeline pipeline;
        readDocument(pipeline);
        if (m_reader.failed()) {
            Diagnostic d;
            d.severity = Severity::Error;
            d.code = "json-syntax";
            d.file = m_file;
            d.line = m_reader.errorLine();
            d.column = m_reader.errorColumn();
            d.message = "malformed JSON: " + m_reader.errorMessage();
            m_diagnostics.push_back(std::move(d));
        } else {
            checkSemantics(pipeline);
        }
        LoadResult result;
        std::stable_sort(m_diagnostics.begin(), m_diagnostics.end(), [](const Diagnostic &a, const Diagnostic &b) {
            return static_cast<int>(a.severity) < static_cast<int>(b.severity);
        });
        result.diagnostics = std::move(m_diagnostics);
        if (!hasErrors(result.diagnostics))
            result.pipeline = std::move(pipeline);
        return result;
    }

private:
    struct Where {
        std::string path;
        int line = 0;
        int column = 0;
    };

    struct Pos {
        int line = 0;
        int column = 0;
    };
    Pos pos() const { return Pos{m_reader.line(), m_reader.column()}; }
    Where here(const Path &path) const { return Where{path.str(), m_reader.line(), m_reader.column()}; }
    static Where at(const Path &path, Pos p) { return Where{path.str(), p.line, p.column}; }

    void report(Severity severity, const char *code, const Where &where, std::string message)
    {
        Diagnostic d;
        d.severity = severity;
        d.code = code;
        d.file = m_file;
        d.jsonPath = where.path;
        d.line = where.line;
        d.column = where.column;
        d.message = std::move(message);
        m_diagnostics.push_back(std::move(d));
    }

    // Reports a wrong type at the current value and skips it.
    void wrongType(const Path &path, Kind found, const std::string &expected)
    {
        report(Severity::Error, "wrong-type", here(path), expected + " expected, found " + kindName(found));
        m_reader.skipValue();
    }

    // Iterates an object's members; `handle(key, memberPath)` must consume the value.
    template <typename Handler>
    void readObject(const Path &path, Handler handle)
    {
        if (!m_reader.beginObject())
            return;
        std::string key;
        // Objects here have a handful of keys: a linear scan beats a set.
        std::vector<std::string> seen;
        while (m_reader.nextMember(key)) {
            const Path memberPath(path, key);
            if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
                report(Severity::Error, "duplicate-key",
                    Where{memberPath.str(), m_reader.memberLine(), m_reader.memberColumn()},
                    "the key \"" + key + "\" appears twice in the same object");
                m_reader.skipValue();
                continue;
            }
            seen.push_back(key);
            handle(key, memberPath);
            if (m_reader.failed())
                return;
        }
    }

    void unknownKey(const std::string &key, const Path &path, ExtraMembers &extra, const char *known)
    {
        report(Severity::Warning, "unknown-key", Where{path.str(), m_reader.memberLine(), m_reader.memberColumn()},
            "unknown key \"" + key + "\" (kept as is; known keys: " + known + ")");
        std::string_view raw;
        if (m_reader.skipValue(&raw))
            extra.emplace_back(key, std::string(raw));
    }

    bool readString(const Path &path, std::string &out)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::String) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a string");
            return false;
        }
        return m_reader.readString(out);
    }

    void readOptionalString(const Path &path, std::optional<std::string> &out)
    {
        if (m_reader.peekKind() == Kind::Null) {
            m_reader.readNull();
            out.reset();
            return;
        }
        std::string value;
        if (readString(path, value))
            out = std::move(value);
    }

    void readOptionalBool(const Path &path, std::optional<bool> &out)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Bool) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "true or false");
            return;
        }
        bool value = false;
        if (m_reader.readBool(value))
            out = value;
    }

    // A list of strings; a lone string is read as a one-element list with a warning.
    // Returns false when the value was null (and `allowNull`) or invalid.
    bool readStringList(const Path &path, std::vector<std::string> &out, bool allowNull, bool *wasString,
        const char *what)
    {
        out.clear();
        const Kind kind = m_reader.peekKind();
        const Pos where = pos();
        if (kind == Kind::Null && allowNull) {
            m_reader.readNull();
            return false;
        }
        if (kind == Kind::String) {
            std::string value;
            m_reader.readString(value);
            report(Severity::Warning, "string-as-list", at(path, where),
                "a string where a list of " + std::string(what) + " belongs; read as the one-element list [\"" + value
                    + "\"]. In DiffSynth this is the trailing-comma pitfall: (\"" + value
                    + "\") without a comma is a plain string in Python, and iterating it yields its characters one by "
                      "one; write (\""
                    + value + "\",) there and a list here");
            out.push_back(std::move(value));
            if (wasString)
                *wasString = true;
            return true;
        }
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, std::string("a list of ") + what + (allowNull ? " or null" : ""));
            return false;
        }
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const Path itemPath(path, index++);
            std::string value;
            if (readString(itemPath, value))
                out.push_back(std::move(value));
            if (m_reader.failed())
                return false;
        }
        return !m_reader.failed();
    }

    void readParamMap(const Path &path, std::optional<ParamMap> &out)
    {
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::Null) {
            m_reader.readNull();
            out.reset();
            return;
        }
        if (kind != Kind::Object) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "an object {process-arg: param} or null");
            return;
        }
        ParamMap map;
        readObject(path, [&](const std::string &key, const Path &memberPath) {
            std::string value;
            if (readString(memberPath, value))
                map.emplace_back(key, std::move(value));
        });
        out = std::move(map);
    }

    void readDocument(Pipeline &p)
    {
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::Invalid)
            return;
        const Where top = here(Path());
        if (kind != Kind::Object) {
            report(Severity::Error, "wrong-type", top,
                std::string("the document must be a JSON object, found ") + kindName(kind));
            m_reader.skipValue();
            m_reader.expectEnd();
            return;
        }
        bool hasFormat = false, hasName = false, hasUnits = false;
        readObject(Path(), [&](const std::string &key, const Path &path) {
            if (key == "format") {
                hasFormat = true;
                const Where where = here(path);
                std::string value;
                if (readString(path, value)) {
                    p.format = value;
                    if (value != kPipelineFormat)
                        report(Severity::Error, "wrong-format", where,
                            "unsupported format \"" + value + "\"; this version reads \"" + kPipelineFormat + "\"");
                }
            } else if (key == "name") {
                hasName = true;
                m_nameWhere = here(path);
                readString(path, p.name);
            } else if (key == "source") {
                readOptionalString(path, p.source);
            } else if (key == "models") {
                readModels(path, p.models);
            } else if (key == "units") {
                hasUnits = true;
                m_unitsWhere = here(path);
                readUnits(path, p.units);
            } else if (key == "loss") {
                readLoss(path, p.loss);
            } else if (key == "training") {
                if (m_reader.peekKind() == Kind::Null) {
                    m_reader.readNull();
                } else {
                    TrainingConfig config;
                    if (readTraining(path, config))
                        p.training = std::move(config);
                }
            } else if (key == "alternative_training") {
                readAlternatives(path, p.alternativeTraining);
            } else {
                unknownKey(key, path, p.extra,
                    "format, name, source, models, units, loss, training, alternative_training");
            }
        });
        if (m_reader.failed())
            return;
        m_reader.expectEnd();
        if (m_reader.failed())
            return;
        if (!hasFormat)
            report(Severity::Error, "missing-key", top,
                std::string("missing \"format\": \"") + kPipelineFormat + "\" (is this a Splitscope pipeline file?)");
        if (!hasName)
            report(Severity::Error, "missing-name", top, "the pipeline has no \"name\"");
        else if (p.name.empty() && !m_nameTypeError())
            report(Severity::Error, "empty-name", m_nameWhere, "the pipeline name is empty");
        if (!hasUnits)
            report(Severity::Error, "missing-key", top, "missing \"units\": the list of pipeline units");
        else if (p.units.empty() && m_unitCount == 0)
            report(Severity::Error, "empty-pipeline", m_unitsWhere, "the pipeline has no units");
    }

    bool m_nameTypeError() const
    {
        return std::any_of(m_diagnostics.begin(), m_diagnostics.end(),
            [](const Diagnostic &d) { return d.jsonPath == "name" && d.code == "wrong-type"; });
    }

    void readModels(const Path &path, std::vector<ModelSpec> &models)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a list of model names");
            return;
        }
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const Path itemPath(path, index++);
            const Kind itemKind = m_reader.peekKind();
            ModelSpec spec;
            const Where where = here(itemPath);
            if (itemKind == Kind::String) {
                m_reader.readString(spec.name);
            } else if (itemKind == Kind::Object) {
                spec.writtenAsObject = true;
                bool hasName = false;
                readObject(itemPath, [&](const std::string &key, const Path &memberPath) {
                    if (key == "name") {
                        hasName = readString(memberPath, spec.name);
                    } else if (key == "params") {
                        const Kind k = m_reader.peekKind();
                        double value = 0;
                        if (k == Kind::Number && m_reader.readNumber(value)) {
                            if (value < 0)
                                report(Severity::Error, "wrong-type", here(memberPath),
                                    "the parameter count must not be negative");
                            spec.params = value;
                        } else if (k == Kind::Null) {
                            m_reader.readNull();
                        } else if (k != Kind::Invalid) {
                            wrongType(memberPath, k, "a number (parameter count)");
                        }
                    } else if (key == "dtype") {
                        readOptionalString(memberPath, spec.dtype);
                    } else {
                        unknownKey(key, memberPath, spec.extra, "name, params, dtype");
                    }
                });
                if (!hasName && !m_reader.failed())
                    report(Severity::Error, "missing-name", where, "the model has no \"name\"");
            } else {
                if (itemKind != Kind::Invalid)
                    wrongType(itemPath, itemKind, "a model name or {\"name\": ..., \"params\": ..., \"dtype\": ...}");
                if (m_reader.failed())
                    return;
                continue;
            }
            if (m_reader.failed())
                return;
            if (spec.name.empty() && !spec.writtenAsObject)
                report(Severity::Error, "empty-name", where, "empty model name");
            m_modelWhere.push_back(where);
            models.push_back(std::move(spec));
        }
    }

    void readUnits(const Path &path, std::vector<Unit> &units)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a list of units");
            return;
        }
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const Path unitPath(path, index++);
            ++m_unitCount;
            const Kind unitKind = m_reader.peekKind();
            if (unitKind != Kind::Object) {
                if (unitKind != Kind::Invalid)
                    wrongType(unitPath, unitKind, "a unit object");
                if (m_reader.failed())
                    return;
                continue;
            }
            Unit unit;
            unit.location = SourceLocation{m_reader.line(), m_reader.column()};
            UnitWhere where;
            where.unit = Pos{unit.location.line, unit.location.column};
            bool hasName = false;
            readObject(unitPath, [&](const std::string &key, const Path &memberPath) {
                const Pos w = pos();
                if (key == "name") {
                    hasName = true;
                    where.name = w;
                    readString(memberPath, unit.name);
                } else if (key == "input_params") {
                    bool wasString = false;
                    where.inputs = w;
                    if (m_reader.peekKind() == Kind::Null)
                        unit.scalarListFields |= kInputParamsWasNull;
                    readStringList(memberPath, unit.inputParams, true, &wasString, "param names");
                    if (wasString)
                        unit.scalarListFields |= kInputParamsWasString;
                } else if (key == "input_params_posi") {
                    where.posi = w;
                    readParamMap(memberPath, unit.inputParamsPosi);
                } else if (key == "input_params_nega") {
                    where.nega = w;
                    readParamMap(memberPath, unit.inputParamsNega);
                } else if (key == "output_params") {
                    bool wasString = false;
                    where.outputs = w;
                    if (m_reader.peekKind() == Kind::Null)
                        unit.scalarListFields |= kOutputParamsWasNull;
                    readStringList(memberPath, unit.outputParams, true, &wasString, "param names");
                    if (wasString)
                        unit.scalarListFields |= kOutputParamsWasString;
                } else if (key == "onload_model_names") {
                    bool wasString = false;
                    where.models = w;
                    std::vector<std::string> names;
                    if (readStringList(memberPath, names, true, &wasString, "model names"))
                        unit.onloadModelNames = std::move(names);
                    if (wasString)
                        unit.scalarListFields |= kOnloadModelNamesWasString;
                } else if (key == "seperate_cfg") {
                    readOptionalBool(memberPath, unit.seperateCfg);
                } else if (key == "take_over") {
                    readOptionalBool(memberPath, unit.takeOver);
                } else if (key == "stochastic") {
                    readOptionalBool(memberPath, unit.stochastic);
                } else if (key == "doc") {
                    readOptionalString(memberPath, unit.doc);
                } else {
                    unknownKey(key, memberPath, unit.extra,
                        "name, input_params, input_params_posi, input_params_nega, output_params, "
                        "onload_model_names, seperate_cfg, take_over, stochastic, doc");
                }
            });
            if (m_reader.failed())
                return;
            if (!hasName)
                report(Severity::Error, "missing-name", at(unitPath, where.unit), "the unit has no \"name\"");
            else if (unit.name.empty())
                report(Severity::Error, "empty-name", at(Path(unitPath, "name"), where.name), "the unit name is empty");
            m_unitWhere.push_back(where);
            units.push_back(std::move(unit));
        }
    }

    void readLoss(const Path &path, std::optional<LossSpec> &loss)
    {
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::Null) {
            m_reader.readNull();
            return;
        }
        if (kind != Kind::Object) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a loss object {\"name\": ..., \"input_params\": [...]}");
            return;
        }
        LossSpec spec;
        m_lossWhere = here(path);
        readObject(path, [&](const std::string &key, const Path &memberPath) {
            if (key == "name") {
                readString(memberPath, spec.name);
            } else if (key == "input_params") {
                m_lossInputsWhere = here(memberPath);
                std::vector<std::string> params;
                if (readStringList(memberPath, params, true, &spec.inputParamsWasString, "param names"))
                    spec.inputParams = std::move(params);
            } else {
                unknownKey(key, memberPath, spec.extra, "name, input_params");
            }
        });
        loss = std::move(spec);
    }

    bool readTraining(const Path &path, TrainingConfig &config)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Object) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a training object {\"lora_base_model\": ..., \"trainable_models\": ...}");
            return false;
        }
        readObject(path, [&](const std::string &key, const Path &memberPath) {
            if (key == "lora_base_model") {
                const Where where = here(memberPath);
                readOptionalString(memberPath, config.loraBaseModel);
                if (config.loraBaseModel)
                    m_trainingRefs.push_back(TrainingRef{where, {*config.loraBaseModel}});
            } else if (key == "trainable_models") {
                const Where where = here(memberPath);
                readOptionalString(memberPath, config.trainableModels);
                if (config.trainableModels)
                    m_trainingRefs.push_back(TrainingRef{where, splitCommaList(*config.trainableModels)});
            } else {
                unknownKey(key, memberPath, config.extra, "lora_base_model, trainable_models");
            }
        });
        return !m_reader.failed();
    }

    void readAlternatives(const Path &path, std::optional<std::vector<TrainingConfig>> &out)
    {
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::Null) {
            m_reader.readNull();
            return;
        }
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a list of training objects");
            return;
        }
        std::vector<TrainingConfig> configs;
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            TrainingConfig config;
            if (readTraining(Path(path, index++), config))
                configs.push_back(std::move(config));
            if (m_reader.failed())
                return;
        }
        out = std::move(configs);
    }

    // Checks that need the whole document: duplicate names, model references, params.
    void checkSemantics(const Pipeline &p)
    {
        // Name indexes over views into `p` (which does not change meanwhile): no copies.
        struct UnitNames {
            const Pipeline &p;
            std::string_view operator[](std::int32_t i) const { return p.units[i].name; }
        } unitNames{p};
        NameIndex unitByName;
        unitByName.reserve(p.units.size());
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            const Unit &u = p.units[i];
            if (u.name.empty())
                continue;
            const std::int32_t first = unitByName.insertExisting(static_cast<std::int32_t>(i), unitNames);
            if (first != static_cast<std::int32_t>(i)) {
                report(Severity::Error, "duplicate-unit", unitWhere(i, "name", m_unitWhere[i].name),
                    "duplicate unit name \"" + u.name + "\" (first used by units[" + std::to_string(first)
                        + "] at line " + std::to_string(m_unitWhere[first].name.line)
                        + "); the split and the cache refer to units by name");
            }
        }

        std::unordered_set<std::string> modelNames;
        for (std::size_t i = 0; i < p.models.size(); ++i) {
            if (!modelNames.insert(p.models[i].name).second)
                report(Severity::Warning, "duplicate-model", m_modelWhere[i],
                    "model \"" + p.models[i].name + "\" is listed twice");
        }
        const bool haveModels = !p.models.empty();
        std::string known;
        for (const auto &m : p.models)
            known += (known.empty() ? "" : ", ") + m.name;
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            const Unit &u = p.units[i];
            if (u.onloadModelNames && haveModels) {
                for (const auto &m : *u.onloadModelNames) {
                    if (!modelNames.count(m))
                        report(Severity::Warning, "unknown-model", unitWhere(i, "onload_model_names", m_unitWhere[i].models),
                            "unit \"" + u.name + "\" calls model \"" + m + "\", which \"models\" does not list ("
                                + known + ")");
                }
            }
            for (std::size_t k = 0; k < u.outputParams.size(); ++k) {
                const std::string &o = u.outputParams[k];
                if (std::find(u.outputParams.begin(), u.outputParams.begin() + static_cast<long>(k), o)
                    != u.outputParams.begin() + static_cast<long>(k))
                    report(Severity::Warning, "duplicate-output", unitWhere(i, "output_params", m_unitWhere[i].outputs),
                        "unit \"" + u.name + "\" lists output \"" + o + "\" twice");
            }
            for (const auto &param : u.inputParams)
                checkParamName(param, i, "input_params", m_unitWhere[i].inputs);
            for (const auto &param : u.outputParams)
                checkParamName(param, i, "output_params", m_unitWhere[i].outputs);
        }
        if (haveModels) {
            for (const TrainingRef &ref : m_trainingRefs) {
                for (const auto &m : ref.models) {
                    if (!modelNames.count(m))
                        report(Severity::Warning, "unknown-model", ref.where,
                            "model \"" + m + "\" is not listed in \"models\" (" + known + ")");
                }
            }
        }

        // Params read but produced by no unit: they come from the dataset or defaults.
        // `names` holds every produced param, then each external param once, as met.
        std::vector<std::string_view> names;
        NameIndex index;
        index.reserve(p.units.size() * 2);
        for (const Unit &u : p.units) {
            for (const auto &o : u.outputParams) {
                names.push_back(o);
                if (index.insertExisting(static_cast<std::int32_t>(names.size() - 1), names)
                    != static_cast<std::int32_t>(names.size() - 1))
                    names.pop_back();
            }
        }
        // True the first time an external param is seen.
        auto firstExternalRead = [&](const std::string &param) {
            names.push_back(param);
            const auto id = static_cast<std::int32_t>(names.size() - 1);
            if (index.insertExisting(id, names) == id)
                return true;
            names.pop_back();
            return false;
        };
        std::vector<std::string> external;
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            external.clear();
            const Unit &u = p.units[i];
            auto consider = [&](const std::string &param) {
                if (firstExternalRead(param))
                    external.push_back(param);
            };
            for (const auto &param : u.inputParams)
                consider(param);
            for (const auto *map : {&u.inputParamsPosi, &u.inputParamsNega}) {
                if (*map) {
                    for (const auto &entry : **map)
                        consider(entry.second);
                }
            }
            std::sort(external.begin(), external.end()); // fetch_input_params order
            for (const auto &param : external) {
                    report(Severity::Info, "external-input",
                        m_unitWhere[i].inputs.line == 0 ? unitWhere(i, "", m_unitWhere[i].unit)
                                                        : unitWhere(i, "input_params", m_unitWhere[i].inputs),
                        "\"" + param + "\" is read (first by \"" + p.units[i].name
                            + "\") but no unit produces it: an external input from the dataset or the call");
            }
        }
        if (!p.loss) {
            report(Severity::Info, "no-loss", Where{"", 0, 0},
                "no \"loss\" is declared: the verifier takes the loss to read every param");
        } else if (p.loss->inputParams) {
            for (const auto &param : *p.loss->inputParams) {
                if (firstExternalRead(param))
                    report(Severity::Info, "external-input", m_lossInputsWhere,
                        "\"" + param + "\" is read by the loss but no unit produces it: an external input");
            }
        }
    }

    void checkParamName(const std::string &param, std::size_t unit, const char *field, Pos p)
    {
        if (param.empty())
            report(Severity::Error, "empty-name", unitWhere(unit, field, p), "empty param name");
    }

    // Positions of a unit's fields; paths are rebuilt only for diagnostics.
    struct UnitWhere {
        Pos unit, name, inputs, posi, nega, outputs, models;
    };
    Where unitWhere(std::size_t i, const char *field, Pos p) const
    {
        return Where{"units[" + std::to_string(i) + "]" + (*field ? std::string(".") + field : std::string()), p.line,
            p.column};
    }

    JsonReader m_reader;
    std::string m_file;
    Diagnostics m_diagnostics;
    Where m_nameWhere, m_unitsWhere, m_lossWhere, m_lossInputsWhere;
    std::vector<UnitWhere> m_unitWhere;
    std::vector<Where> m_modelWhere;
    struct TrainingRef {
        Where where;
        std::vector<std::string> models;
    };
    std::vector<TrainingRef> m_trainingRefs;
    int m_unitCount = 0;
};

using OrderedJson = nlohmann::ordered_json;

OrderedJson stringList(const std::vector<std::string> &list, bool asString, bool asNull = false)
{
    if (asNull && list.empty())
        return nullptr;
    if (asString && list.size() == 1)
        return list.front();
    OrderedJson array = OrderedJson::array();
    for (const auto &s : list)
        array.push_back(s);
    return array;
}

OrderedJson paramMap(const std::optional<ParamMap> &map)
{
    if (!map)
        return nullptr;
    OrderedJson object = OrderedJson::object();
    for (const auto &[key, value] : *map)
        object[key] = value;
    return object;
}

void addExtra(OrderedJson &object, const ExtraMembers &extra)
{
    for (const auto &[key, raw] : extra)
        object[key] = OrderedJson::parse(raw);
}

OrderedJson trainingJson(const TrainingConfig &config, bool full)
{
    OrderedJson t = OrderedJson::object();
    if (full || config.loraBaseModel)
        t["lora_base_model"] = config.loraBaseModel ? OrderedJson(*config.loraBaseModel) : OrderedJson(nullptr);
    if (full || config.trainableModels)
        t["trainable_models"] = config.trainableModels ? OrderedJson(*config.trainableModels) : OrderedJson(nullptr);
    addExtra(t, config.extra);
    return t;
}

} // namespace

LoadResult parsePipeline(std::string_view text, const std::string &fileName)
{
    PipelineReader reader(text, fileName);
    return reader.read();
}

LoadResult loadPipelineFile(const std::string &path)
{
    std::string bytes;
    std::string error;
    if (!readWholeFile(path, bytes, &error)) {
        LoadResult result;
        Diagnostic d;
        d.severity = Severity::Error;
        d.code = "io";
        d.file = path;
        d.message = error;
        result.diagnostics.push_back(std::move(d));
        return result;
    }
    return parsePipeline(bytes, path);
}

std::string serializePipeline(const Pipeline &p)
{
    OrderedJson doc = OrderedJson::object();
    doc["format"] = p.format;
    doc["name"] = p.name;
    if (p.source)
        doc["source"] = *p.source;
    OrderedJson models = OrderedJson::array();
    for (const ModelSpec &m : p.models) {
        if (!m.writtenAsObject) {
            models.push_back(m.name);
            continue;
        }
        OrderedJson object = OrderedJson::object();
        object["name"] = m.name;
        if (m.params)
            object["params"] = *m.params;
        if (m.dtype)
            object["dtype"] = *m.dtype;
        addExtra(object, m.extra);
        models.push_back(std::move(object));
    }
    doc["models"] = std::move(models);
    OrderedJson units = OrderedJson::array();
    for (const Unit &u : p.units) {
        OrderedJson object = OrderedJson::object();
        object["name"] = u.name;
        object["input_params"] = stringList(u.inputParams, u.scalarListFields & kInputParamsWasString,
            u.scalarListFields & kInputParamsWasNull);
        object["input_params_posi"] = paramMap(u.inputParamsPosi);
        object["input_params_nega"] = paramMap(u.inputParamsNega);
        object["output_params"] = stringList(u.outputParams, u.scalarListFields & kOutputParamsWasString,
            u.scalarListFields & kOutputParamsWasNull);
        object["onload_model_names"] = u.onloadModelNames
            ? stringList(*u.onloadModelNames, u.scalarListFields & kOnloadModelNamesWasString)
            : OrderedJson(nullptr);
        if (u.seperateCfg)
            object["seperate_cfg"] = *u.seperateCfg;
        if (u.takeOver)
            object["take_over"] = *u.takeOver;
        if (u.stochastic)
            object["stochastic"] = *u.stochastic;
        if (u.doc)
            object["doc"] = *u.doc;
        addExtra(object, u.extra);
        units.push_back(std::move(object));
    }
    doc["units"] = std::move(units);
    if (p.loss) {
        OrderedJson loss = OrderedJson::object();
        loss["name"] = p.loss->name;
        if (p.loss->inputParams)
            loss["input_params"] = stringList(*p.loss->inputParams, p.loss->inputParamsWasString);
        addExtra(loss, p.loss->extra);
        doc["loss"] = std::move(loss);
    }
    if (p.training)
        doc["training"] = trainingJson(*p.training, true);
    if (p.alternativeTraining) {
        OrderedJson list = OrderedJson::array();
        for (const auto &config : *p.alternativeTraining)
            list.push_back(trainingJson(config, false));
        doc["alternative_training"] = std::move(list);
    }
    addExtra(doc, p.extra);
    return doc.dump(1);
}

bool savePipelineFile(const Pipeline &pipeline, const std::string &path, std::string *error)
{
    return writeFileAtomically(path, serializePipeline(pipeline), error);
}

} // namespace splitscope
