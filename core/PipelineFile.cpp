// SPDX-License-Identifier: MIT
#include "PipelineFile.h"

#include "AtomicFile.h"
#include "JsonReader.h"
#include "NameIndex.h"
#include "NameSuggestion.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
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

// Control characters (a newline, NUL, ...): legal JSON, but no DiffSynth name has one.
bool hasControlCharacter(std::string_view name)
{
    return std::any_of(
        name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// The path step for an object member: `.key`, or JSONPath's bracket form `["key"]` for a
// key that would be unreadable after a dot (empty: `a..b`; a newline would break the line).
std::string memberStep(std::string_view key)
{
    if (key.empty() || hasControlCharacter(key))
        return '[' + jsonQuote(key) + ']';
    return '.' + std::string(key);
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
        const std::string step = memberStep(m_key);
        return out.empty() && step.front() == '.' ? step.substr(1) : out + step;
    }

private:
    const Path *m_parent = nullptr;
    std::string_view m_key;
    int m_index = -1;
};

// A set of names that tells the first occurrence of each. Objects and lists here have
// a handful of names, where a linear scan beats hashing; past kLinearScanLimit names
// they are indexed (NameIndex), so that 10^5 keys in one object still take linear time.
class SeenNames {
public:
    // True when `name` was not seen before (it is then remembered).
    bool insert(std::string_view name)
    {
        if (!m_indexed) {
            if (std::find(m_names.begin(), m_names.end(), name) != m_names.end())
                return false;
            if (m_names.size() < kLinearScanLimit) {
                m_names.emplace_back(name);
                return true;
            }
            m_index.reserve(4 * kLinearScanLimit);
            for (std::size_t i = 0; i < m_names.size(); ++i)
                m_index.insertExisting(static_cast<std::int32_t>(i), m_names);
            m_indexed = true;
        }
        const std::size_t count = m_names.size();
        return static_cast<std::size_t>(m_index.intern(name, m_names)) == count;
    }

private:
    static constexpr std::size_t kLinearScanLimit = 16; // names before switching to the index
    std::vector<std::string> m_names;
    NameIndex m_index;
    bool m_indexed = false;
};

// Reads one document into a Pipeline, collecting diagnostics. Type errors skip the
// offending value and go on, so one pass reports every problem it can; a syntax
// error stops the pass (nothing after it can be trusted).
class DescriptorReader {
public:
    DescriptorReader(std::string_view text, std::string fileName)
        : m_text(text), m_reader(text), m_file(std::move(fileName))
    {
    }

    LoadResult read()
    {
        Pipeline pipeline;
        readDocument(pipeline);
        if (m_reader.failed()) {
            // The syntax error alone: what was reported before it (a list where the
            // string belongs, whose depth was the error) would only mislead.
            m_diagnostics.clear();
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
        // In file order, by line:column (stable: the order of reporting for one place);
        // those without a place (no-loss) last. The indexes are sorted, so that each
        // diagnostic moves once.
        std::vector<std::uint32_t> order(m_diagnostics.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = static_cast<std::uint32_t>(i);
        const auto place = [this](std::uint32_t i) {
            const Diagnostic &d = m_diagnostics[i];
            return d.line > 0 ? std::make_pair(d.line, d.column) : std::make_pair(INT_MAX, INT_MAX);
        };
        std::stable_sort(order.begin(), order.end(),
            [&place](std::uint32_t a, std::uint32_t b) { return place(a) < place(b); });
        result.diagnostics.reserve(m_diagnostics.size());
        for (const std::uint32_t i : order)
            result.diagnostics.push_back(std::move(m_diagnostics[i]));
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
        if (severity == Severity::Error)
            ++m_errorCount;
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
        SeenNames seen;
        while (m_reader.nextMember(key)) {
            const Path memberPath(path, key);
            if (!seen.insert(key)) {
                report(Severity::Error, "duplicate-key",
                    Where{memberPath.str(), m_reader.memberLine(), m_reader.memberColumn()},
                    "the key " + jsonQuote(key) + " appears twice in the same object");
                m_reader.skipValue();
                continue;
            }
            handle(key, memberPath);
            if (m_reader.failed())
                return;
        }
    }

    void unknownKey(const std::string &key, const Path &path, ExtraMembers &extra, const char *known)
    {
        const Where where{path.str(), m_reader.memberLine(), m_reader.memberColumn()};
        if (m_reader.peekKind() == Kind::Invalid)
            return;
        const std::size_t start = m_reader.offset();
        const std::size_t errorsBefore = m_errorCount;
        Pos outOfRange;
        checkKeptValue(path, outOfRange);
        if (m_reader.failed())
            return;
        if (outOfRange.line > 0) {
            // Kept values are saved through a JSON library that cannot hold such a number.
            report(Severity::Error, "out-of-range", Where{where.path, outOfRange.line, outOfRange.column},
                "unknown key " + jsonQuote(key) + " holds a number that " + kTooLarge + "; it cannot be kept");
            return;
        }
        if (m_errorCount != errorsBefore) // a repeated key inside: the error says it
            return;
        report(Severity::Warning, "unknown-key", where,
            "unknown key " + jsonQuote(key) + " (kept as is; known keys: " + known + ")");
        extra.emplace_back(key, std::string(m_text.substr(start, m_reader.offset() - start)));
    }

    // Reads a value kept verbatim (an unknown key's) for what saving it could not keep:
    // a repeated key in one of its objects (an error at the repeat, as everywhere else;
    // the JSON library that saves it would keep one of the two), and the first number too
    // large for a double (its position goes to `outOfRange`). Nesting is bounded by the
    // reader (JsonReader::kMaxDepth), and so is this recursion.
    void checkKeptValue(const Path &path, Pos &outOfRange)
    {
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::Object) {
            readObject(path,
                [&](const std::string &, const Path &memberPath) { checkKeptValue(memberPath, outOfRange); });
        } else if (kind == Kind::Array) {
            m_reader.beginArray();
            int index = 0;
            while (m_reader.nextItem()) {
                checkKeptValue(Path(path, index++), outOfRange);
                if (m_reader.failed())
                    return;
            }
        } else if (kind == Kind::Number) {
            const Pos where = pos();
            double value = 0;
            bool tooLarge = false;
            if (m_reader.readNumber(value, nullptr, &tooLarge) && tooLarge && outOfRange.line == 0)
                outOfRange = where;
        } else if (kind != Kind::Invalid) {
            m_reader.skipValue();
        }
    }

    // The end of the out-of-range message, shared so that both places read the same.
    static constexpr const char *kTooLarge = "is out of range (larger than a double can hold, about 1.8e308)";

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

    // A list of names; a lone string is read as a one-element list with a warning. An
    // empty name is an error at the element (`one` names one element: "param name").
    // Returns false when the value was null (and `allowNull`) or invalid.
    // `substring`: DiffSynth tests membership in the value (`model in onload_model_names`),
    // which on a string is a substring test; the warning says so.
    bool readStringList(const Path &path, std::vector<std::string> &out, bool allowNull, bool *wasString,
        const char *what, const char *one, bool substring = false)
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
            if (wasString)
                *wasString = true;
            if (value.empty()) {
                // The warning about the form would only repeat this error.
                report(Severity::Error, "empty-name", at(path, where), std::string("empty ") + one);
                return true;
            }
            if (substring)
                report(Severity::Warning, "string-as-list", at(path, where),
                    "a string where a list of " + std::string(what) + " belongs. In DiffSynth this is the trailing-comma "
                    "pitfall: (" + jsonQuote(value) + ") without a comma is a plain string in Python, and DiffSynth's "
                    "split tests `model in onload_model_names`, a substring test on a string: every model whose name is "
                    "part of " + jsonQuote(value) + " counts as called. Read with that rule; write (" + jsonQuote(value)
                        + ",) there and a list here");
            else
                report(Severity::Warning, "string-as-list", at(path, where),
                    "a string where a list of " + std::string(what) + " belongs; read as the one-element list ["
                        + jsonQuote(value) + "]. In DiffSynth this is the trailing-comma pitfall: (" + jsonQuote(value)
                        + ") without a comma is a plain string in Python, and iterating it yields its characters one by "
                          "one; write ("
                        + jsonQuote(value) + ",) there and a list here");
            out.push_back(std::move(value));
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
            const Pos itemWhere = pos();
            std::string value;
            if (readString(itemPath, value)) {
                if (value.empty())
                    report(Severity::Error, "empty-name", at(itemPath, itemWhere), std::string("empty ") + one);
                out.push_back(std::move(value));
            }
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
            if (key.empty())
                report(Severity::Error, "empty-name", Where{memberPath.str(), m_reader.memberLine(), m_reader.memberColumn()},
                    "empty key: the key names an argument of the unit's process()");
            const Pos where = pos();
            std::string value;
            if (readString(memberPath, value)) {
                if (value.empty())
                    report(Severity::Error, "empty-name", at(memberPath, where), "empty param name");
                map.emplace_back(key, std::move(value));
            }
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
            // Text that is not JSON gets the syntax error alone (`[1,` is no list).
            if (m_reader.skipValue() && m_reader.expectEnd())
                report(Severity::Error, "wrong-type", top,
                    std::string("the document must be a JSON object, found ") + kindName(kind));
            return;
        }
        bool hasFormat = false, hasName = false, nameRead = false, hasUnits = false, unitsRead = false;
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
                nameRead = readString(path, p.name);
            } else if (key == "source") {
                readOptionalString(path, p.source);
            } else if (key == "models") {
                readModels(path, p);
            } else if (key == "units") {
                hasUnits = true;
                m_unitsWhere = here(path);
                unitsRead = readUnits(path, p.units);
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
        else if (nameRead && p.name.empty()) // after a wrong type, "empty" would repeat that error
            report(Severity::Error, "empty-name", m_nameWhere, "the pipeline name is empty");
        if (!hasUnits)
            report(Severity::Error, "missing-key", top, "missing \"units\": the list of pipeline units");
        else if (unitsRead && m_unitCount == 0)
            report(Severity::Error, "empty-pipeline", m_unitsWhere, "the pipeline has no units");
    }

    // `models`: a list of names or {"name", "params", "dtype"} objects; a lone name is
    // read as a one-element list with a warning, as for the units' lists.
    void readModels(const Path &path, Pipeline &p)
    {
        std::vector<ModelSpec> &models = p.models;
        const Kind kind = m_reader.peekKind();
        if (kind == Kind::String) {
            const Where where = here(path);
            ModelSpec spec;
            m_reader.readString(spec.name);
            p.modelsWasString = true;
            if (spec.name.empty()) {
                report(Severity::Error, "empty-name", where, "empty model name");
                m_modelsIncomplete = true;
                return;
            }
            report(Severity::Warning, "string-as-list", where,
                "a string where the list of model names belongs; read as the one-element list [" + jsonQuote(spec.name)
                    + "] (write [" + jsonQuote(spec.name) + "])");
            m_modelWhere.push_back(where);
            models.push_back(std::move(spec));
            return;
        }
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid) {
                wrongType(path, kind, "a list of model names");
                m_modelsIncomplete = true;
            }
            return;
        }
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const Path itemPath(path, index++);
            const Kind itemKind = m_reader.peekKind();
            ModelSpec spec;
            const Where where = here(itemPath);
            bool valid = true; // false once an error names this entry
            if (itemKind == Kind::String) {
                m_reader.readString(spec.name);
                if (spec.name.empty()) {
                    report(Severity::Error, "empty-name", where, "empty model name");
                    valid = false;
                }
            } else if (itemKind == Kind::Object) {
                spec.writtenAsObject = true;
                bool hasName = false;
                readObject(itemPath, [&](const std::string &key, const Path &memberPath) {
                    if (key == "name") {
                        hasName = true; // a wrong type is reported as such, not as a missing name
                        const Where nameWhere = here(memberPath);
                        if (!readString(memberPath, spec.name)) {
                            valid = false;
                        } else if (spec.name.empty()) {
                            report(Severity::Error, "empty-name", nameWhere, "empty model name");
                            valid = false;
                        }
                    } else if (key == "params") {
                        readParamCount(memberPath, spec.params);
                    } else if (key == "dtype") {
                        readOptionalString(memberPath, spec.dtype);
                    } else {
                        unknownKey(key, memberPath, spec.extra, "name, params, dtype");
                    }
                });
                if (!hasName && !m_reader.failed()) {
                    report(Severity::Error, "missing-name", where, "the model has no \"name\"");
                    valid = false;
                }
            } else {
                if (itemKind != Kind::Invalid)
                    wrongType(itemPath, itemKind, "a model name or {\"name\": ..., \"params\": ..., \"dtype\": ...}");
                m_modelsIncomplete = true;
                if (m_reader.failed())
                    return;
                continue;
            }
            if (m_reader.failed())
                return;
            if (!valid) {
                // Left out of the list: "not listed (te, , vae)" would mislead.
                m_modelsIncomplete = true;
                continue;
            }
            m_modelWhere.push_back(where);
            models.push_back(std::move(spec));
        }
    }

    // A model's parameter count: a non-negative number or null.
    void readParamCount(const Path &path, std::optional<double> &out)
    {
        const Kind kind = m_reader.peekKind();
        const Where where = here(path);
        if (kind == Kind::Null) {
            m_reader.readNull();
            return;
        }
        if (kind != Kind::Number) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a number (parameter count)");
            return;
        }
        double value = 0;
        bool outOfRange = false;
        std::string_view raw;
        if (!m_reader.readNumber(value, &raw, &outOfRange))
            return;
        if (outOfRange)
            report(Severity::Error, "out-of-range", where, "the number " + std::string(raw) + " " + kTooLarge);
        else if (value < 0)
            report(Severity::Error, "wrong-type", where, "the parameter count must not be negative");
        else
            out = value;
    }

    // "uses_models", "reads", "returns": what the importer read from a unit's process(),
    // a list of {NAME_KEY: name, "file", "line"} (returns also "from" and "random").
    void readBodyFacts(const Path &path, const char *nameKey, bool returns, std::optional<std::vector<BodyFact>> &out)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, std::string("a list of {\"") + nameKey + "\": ..., \"file\": ..., \"line\": ...}");
            return;
        }
        std::vector<BodyFact> facts;
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const Path itemPath(path, index++);
            const Kind itemKind = m_reader.peekKind();
            if (itemKind != Kind::Object) {
                if (itemKind != Kind::Invalid)
                    wrongType(itemPath, itemKind, std::string("an object {\"") + nameKey + "\": ...}");
                if (m_reader.failed())
                    return;
                continue;
            }
            BodyFact fact;
            const Pos start = pos();
            bool named = false;
            readObject(itemPath, [&](const std::string &key, const Path &memberPath) {
                if (key == nameKey) {
                    named = readString(memberPath, fact.name);
                } else if (key == "file") {
                    readString(memberPath, fact.file);
                } else if (key == "line") {
                    readLineNumber(memberPath, fact.line);
                } else if (returns && key == "from") {
                    bool wasString = false;
                    readStringList(memberPath, fact.from, false, &wasString, "param names", "param name");
                } else if (returns && key == "random") {
                    std::optional<bool> random;
                    readOptionalBool(memberPath, random);
                    fact.random = random.value_or(false);
                } else {
                    unknownKey(key, memberPath, fact.extra,
                        returns ? "param, file, line, from, random" : (std::string(nameKey) == "model" ? "model, file, line" : "param, file, line"));
                }
            });
            if (m_reader.failed())
                return;
            if (!named)
                report(Severity::Error, "missing-name", at(itemPath, start), std::string("no \"") + nameKey + "\" here");
            else if (fact.name.empty())
                report(Severity::Error, "empty-name", at(Path(itemPath, nameKey), start), std::string("an empty ") + nameKey + " name");
            facts.push_back(std::move(fact));
        }
        out = std::move(facts);
    }

    // A source line: a whole number from 1 (0 for none).
    void readLineNumber(const Path &path, int &out)
    {
        const Kind kind = m_reader.peekKind();
        const Where where = here(path);
        if (kind != Kind::Number) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a line number");
            return;
        }
        double value = 0;
        if (!m_reader.readNumber(value))
            return;
        if (value < 0 || value > 1e9 || value != static_cast<double>(static_cast<long long>(value)))
            report(Severity::Error, "wrong-type", where, "a line number is a whole number from 0 to 10^9");
        else
            out = static_cast<int>(value);
    }

    // False when `units` is not a list (the type error says so).
    bool readUnits(const Path &path, std::vector<Unit> &units)
    {
        const Kind kind = m_reader.peekKind();
        if (kind != Kind::Array) {
            if (kind != Kind::Invalid)
                wrongType(path, kind, "a list of units");
            return false;
        }
        m_reader.beginArray();
        int index = 0;
        while (m_reader.nextItem()) {
            const int jsonIndex = index++;
            const Path unitPath(path, jsonIndex);
            ++m_unitCount;
            const Kind unitKind = m_reader.peekKind();
            if (unitKind != Kind::Object) {
                if (unitKind != Kind::Invalid)
                    wrongType(unitPath, unitKind, "a unit object");
                if (m_reader.failed())
                    return false;
                continue;
            }
            Unit unit;
            unit.location = SourceLocation{m_reader.line(), m_reader.column()};
            UnitWhere where;
            where.jsonIndex = jsonIndex;
            where.start = ObjectStart{m_reader.offset(), Pos{unit.location.line, unit.location.column}};
            bool hasName = false, nameRead = false;
            readObject(unitPath, [&](const std::string &key, const Path &memberPath) {
                if (key == "name") {
                    hasName = true;
                    where.name = pos();
                    nameRead = readString(memberPath, unit.name);
                } else if (key == "input_params") {
                    bool wasString = false;
                    if (m_reader.peekKind() == Kind::Null)
                        unit.scalarListFields |= kInputParamsWasNull;
                    readStringList(memberPath, unit.inputParams, true, &wasString, "param names", "param name");
                    if (wasString)
                        unit.scalarListFields |= kInputParamsWasString;
                } else if (key == "input_params_posi") {
                    readParamMap(memberPath, unit.inputParamsPosi);
                } else if (key == "input_params_nega") {
                    readParamMap(memberPath, unit.inputParamsNega);
                } else if (key == "output_params") {
                    bool wasString = false;
                    if (m_reader.peekKind() == Kind::Null)
                        unit.scalarListFields |= kOutputParamsWasNull;
                    readStringList(memberPath, unit.outputParams, true, &wasString, "param names", "param name");
                    if (wasString)
                        unit.scalarListFields |= kOutputParamsWasString;
                } else if (key == "onload_model_names") {
                    bool wasString = false;
                    std::vector<std::string> names;
                    if (readStringList(memberPath, names, true, &wasString, "model names", "model name", true))
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
                } else if (key == "uses_models") {
                    readBodyFacts(memberPath, "model", false, unit.usesModels);
                } else if (key == "reads") {
                    readBodyFacts(memberPath, "param", false, unit.reads);
                } else if (key == "returns") {
                    readBodyFacts(memberPath, "param", true, unit.returns);
                } else {
                    unknownKey(key, memberPath, unit.extra,
                        "name, input_params, input_params_posi, input_params_nega, output_params, "
                        "onload_model_names, seperate_cfg, take_over, stochastic, doc, uses_models, reads, returns");
                }
            });
            if (m_reader.failed())
                return false;
            if (!hasName)
                report(Severity::Error, "missing-name", at(unitPath, where.start.pos), "the unit has no \"name\"");
            else if (nameRead && unit.name.empty()) // after a wrong type, "empty" would repeat that error
                report(Severity::Error, "empty-name", at(Path(unitPath, "name"), where.name), "the unit name is empty");
            m_unitWhere.push_back(where);
            units.push_back(std::move(unit));
        }
        return !m_reader.failed();
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
        m_lossStart = ObjectStart{m_reader.offset(), pos()};
        readObject(path, [&](const std::string &key, const Path &memberPath) {
            if (key == "name") {
                m_lossNameWhere = here(memberPath);
                readString(memberPath, spec.name);
            } else if (key == "input_params") {
                std::vector<std::string> params;
                if (readStringList(memberPath, params, true, &spec.inputParamsWasString, "param names", "param name"))
                    spec.inputParams = std::move(params);
            } else if (key == "output_params") {
                std::vector<std::string> params;
                bool wasString = false;
                if (readStringList(memberPath, params, false, &wasString, "param names", "param name"))
                    spec.outputParams = std::move(params);
            } else if (key == "models") {
                std::vector<std::string> models;
                bool wasString = false;
                if (readStringList(memberPath, models, false, &wasString, "model names", "model name"))
                    spec.models = std::move(models);
            } else {
                unknownKey(key, memberPath, spec.extra, "name, input_params, output_params, models");
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
            // An empty string means "none", as on DiffSynth's command line: no model to check.
            if (key == "lora_base_model") {
                const Where where = here(memberPath);
                readOptionalString(memberPath, config.loraBaseModel);
                if (config.loraBaseModel && !config.loraBaseModel->empty())
                    m_trainingRefs.push_back(TrainingRef{where, {*config.loraBaseModel}});
            } else if (key == "trainable_models") {
                const Where where = here(memberPath);
                if (m_reader.peekKind() == Kind::Array) {
                    // train.py takes --trainable_models as one string; a JSON list is a likely slip.
                    wrongType(memberPath, Kind::Array,
                        "a comma-separated string of model names such as \"dit,vae\" (or null)");
                    return;
                }
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
    // The checks of a document that reads: names used twice, models that are not
    // listed, control characters, and the notes on params that no unit produces.
    void checkSemantics(const Pipeline &p)
    {
        checkUnitNames(p);
        checkModelNames(p);
        checkControlCharacters(p);
        // Notes describe a pipeline that loads; after an error they could mislead (a
        // param "produced by no unit" whose producer's list had a wrong type).
        if (m_errorCount == 0)
            noteExternalInputs(p);
    }

    void checkUnitNames(const Pipeline &p)
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
                    "duplicate unit name " + jsonQuote(u.name) + " (first used by units["
                        + std::to_string(m_unitWhere[first].jsonIndex) + "] at line "
                        + std::to_string(m_unitWhere[first].name.line)
                        + "); the split and the cache refer to units by name");
            }
        }

    }

    void checkModelNames(const Pipeline &p)
    {
        std::unordered_set<std::string> modelNames;
        for (std::size_t i = 0; i < p.models.size(); ++i) {
            if (!modelNames.insert(p.models[i].name).second)
                report(Severity::Warning, "duplicate-model", m_modelWhere[i],
                    "model " + jsonQuote(p.models[i].name) + " is listed twice");
        }
        // Unknown-model warnings need the whole list: after an error in `models` they
        // would name models that the broken entry was meant to list.
        const bool haveModels = !p.models.empty() && !m_modelsIncomplete;
        std::string known;
        for (const auto &m : p.models)
            known += (known.empty() ? "" : ", ") + m.name;
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            const Unit &u = p.units[i];
            if (u.onloadModelNames && haveModels) {
                const std::vector<std::string> &names = *u.onloadModelNames;
                for (std::size_t k = 0; k < names.size(); ++k) {
                    if (!names[k].empty() && !modelNames.count(names[k])) // an empty name is an error already
                        report(Severity::Warning, "unknown-model", unitElementWhere(i, "onload_model_names", k),
                            "unit " + jsonQuote(u.name) + " calls model " + jsonQuote(names[k])
                                + ", which \"models\" does not list (" + known + ")");
                }
            }
            if (u.onloadModelNamesIsString() && u.onloadModelNames && u.onloadModelNames->size() == 1) {
                // DiffSynth's `model in "video_vae_encoder"` is a substring test: name the
                // other models it also takes as called.
                const std::string &text = u.onloadModelNames->front();
                std::string also;
                for (const auto &m : p.models) {
                    if (!m.name.empty() && m.name != text && text.find(m.name) != std::string::npos)
                        also += (also.empty() ? "" : ", ") + jsonQuote(m.name);
                }
                if (!also.empty())
                    report(Severity::Warning, "substring-model", unitElementWhere(i, "onload_model_names", 0),
                        "onload_model_names is the string " + jsonQuote(text) + ", and DiffSynth's split tests `model in "
                            "onload_model_names`, a substring test: training " + also + " also puts unit "
                            + jsonQuote(u.name) + " in stage two");
            }
            SeenNames outputs;
            for (std::size_t k = 0; k < u.outputParams.size(); ++k) {
                if (!outputs.insert(u.outputParams[k]))
                    report(Severity::Warning, "duplicate-output", unitElementWhere(i, "output_params", k),
                        "unit " + jsonQuote(u.name) + " lists output " + jsonQuote(u.outputParams[k]) + " twice");
            }
        }
        if (haveModels) {
            for (const TrainingRef &ref : m_trainingRefs) {
                for (const auto &m : ref.models) {
                    if (!modelNames.count(m))
                        report(Severity::Warning, "unknown-model", ref.where,
                            "model " + jsonQuote(m) + " is not listed in \"models\" (" + known + ")");
                }
            }
        } else if (p.models.empty() && !m_modelsIncomplete) {
            // No list to check against: the models the units call are all the file
            // names. A training block naming another one is a slip, or the denoiser that
            // only the loss calls, which then belongs in "models" (`split` warns the same).
            std::unordered_set<std::string> called;
            std::string calledList;
            for (const Unit &u : p.units) {
                if (!u.onloadModelNames)
                    continue;
                for (const std::string &m : *u.onloadModelNames) {
                    if (!m.empty() && called.insert(m).second)
                        calledList += (calledList.empty() ? "" : ", ") + m;
                }
            }
            for (const TrainingRef &ref : m_trainingRefs) {
                for (const auto &m : ref.models) {
                    if (!called.count(m))
                        report(Severity::Warning, "unknown-model", ref.where,
                            (calledList.empty() ? "model " + jsonQuote(m) + " is named, but no unit calls a model"
                                                : "no unit calls model " + jsonQuote(m) + " (units call " + calledList + ")")
                                + ", and the file has no \"models\" list to name it; if only the loss calls it "
                                  "(a denoiser), list it in \"models\"");
                }
            }
        }

    }

    void checkControlCharacters(const Pipeline &p)
    {
        // Names with control characters (a newline, NUL, ...): legal JSON, but no DiffSynth
        // name has one, so most likely a mistake. Reports and the app show such names
        // escaped (printableName), as this message does.
        auto controlWarning = [&](const Where &where, const char *what, const std::string &name) {
            report(Severity::Warning, "control-character", where,
                std::string(what) + " " + jsonQuote(name)
                    + " contains a control character, which no DiffSynth name has; reports and the app show it escaped, as here");
        };
        if (hasControlCharacter(p.name))
            controlWarning(m_nameWhere, "the pipeline name", p.name);
        for (std::size_t i = 0; i < p.models.size(); ++i) {
            if (hasControlCharacter(p.models[i].name))
                controlWarning(m_modelWhere[i], "the model name", p.models[i].name);
        }
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            const Unit &u = p.units[i];
            if (hasControlCharacter(u.name))
                controlWarning(unitWhere(i, "name", m_unitWhere[i].name), "the unit name", u.name);
            for (std::size_t k = 0; k < u.inputParams.size(); ++k) {
                if (hasControlCharacter(u.inputParams[k]))
                    controlWarning(unitElementWhere(i, "input_params", k), "the param name", u.inputParams[k]);
            }
            for (std::size_t k = 0; k < u.outputParams.size(); ++k) {
                if (hasControlCharacter(u.outputParams[k]))
                    controlWarning(unitElementWhere(i, "output_params", k), "the param name", u.outputParams[k]);
            }
            const std::pair<const std::optional<ParamMap> *, const char *> maps[] = {
                {&u.inputParamsPosi, "input_params_posi"}, {&u.inputParamsNega, "input_params_nega"}};
            for (const auto &[map, field] : maps) {
                if (!*map)
                    continue;
                for (std::size_t k = 0; k < (*map)->size(); ++k) {
                    const auto &[arg, param] = (**map)[k];
                    if (hasControlCharacter(arg))
                        controlWarning(unitElementWhere(i, field, k, true), "the argument name", arg);
                    if (hasControlCharacter(param))
                        controlWarning(unitElementWhere(i, field, k), "the param name", param);
                }
            }
            if (u.onloadModelNames) {
                for (std::size_t k = 0; k < u.onloadModelNames->size(); ++k) {
                    if (hasControlCharacter((*u.onloadModelNames)[k]))
                        controlWarning(unitElementWhere(i, "onload_model_names", k), "the model name",
                            (*u.onloadModelNames)[k]);
                }
            }
        }
        if (p.loss) {
            if (hasControlCharacter(p.loss->name))
                controlWarning(m_lossNameWhere, "the loss name", p.loss->name);
            if (p.loss->inputParams) {
                for (std::size_t k = 0; k < p.loss->inputParams->size(); ++k) {
                    if (hasControlCharacter((*p.loss->inputParams)[k]))
                        controlWarning(lossElementWhere(k), "the param name", (*p.loss->inputParams)[k]);
                }
            }
        }
    }

    void noteExternalInputs(const Pipeline &p)
    {
        // Params read but produced by no unit: they come from the dataset or defaults.
        // `names` holds every produced param, then each external param once, as met.
        std::vector<std::string_view> names;
        std::vector<std::size_t> producer; // of each produced param: the first unit that writes it
        NameIndex index;
        index.reserve(p.units.size() * 2);
        for (std::size_t i = 0; i < p.units.size(); ++i) {
            for (const auto &o : p.units[i].outputParams) {
                names.push_back(o);
                if (index.insertExisting(static_cast<std::int32_t>(names.size() - 1), names)
                    != static_cast<std::int32_t>(names.size() - 1))
                    names.pop_back();
                else
                    producer.push_back(i);
            }
        }
        // A read param that no unit produces but that is a small edit away from one that
        // a unit does ("edit_imag" for "edit_image") is most likely a typo, which makes
        // the split treat the param as an external input without a word: a warning, not
        // a note, because the split it changes is shown without notes. Built when first
        // needed, over the produced params only (`names` grows past them).
        const std::size_t producedCount = names.size();
        std::optional<TypoFinder> typos;
        auto likelyTypo = [&](const std::string &param) -> std::string {
            if (!typos)
                typos.emplace(std::vector<std::string_view>(names.begin(), names.begin() + producedCount));
            const std::ptrdiff_t k = typos->find(param);
            if (k < 0)
                return {};
            const std::size_t unit = producer[static_cast<std::size_t>(k)];
            return "did you mean " + jsonQuote(names[static_cast<std::size_t>(k)]) + " (produced by "
                + jsonQuote(p.units[unit].name) + ")? As written it is an external input, and the split takes it as one";
        };
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
                if (!param.empty() && firstExternalRead(param)) // an empty name is an error already
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
            if (external.empty())
                continue;
            // In the file's order (input_params, then the posi and nega maps), as a reader
            // of the file goes through it; `external` was filled in that order.
            // Where the unit reads each param first: input_params, then its posi and nega maps.
            std::unordered_map<std::string_view, std::pair<const char *, std::size_t>> firstRead;
            for (std::size_t k = 0; k < u.inputParams.size(); ++k)
                firstRead.emplace(u.inputParams[k], std::make_pair("input_params", k));
            const std::pair<const std::optional<ParamMap> *, const char *> maps[] = {
                {&u.inputParamsPosi, "input_params_posi"}, {&u.inputParamsNega, "input_params_nega"}};
            for (const auto &[map, field] : maps) {
                for (std::size_t k = 0; *map && k < (*map)->size(); ++k)
                    firstRead.emplace((**map)[k].second, std::make_pair(field, k));
            }
            for (const auto &param : external) {
                const auto &[field, k] = firstRead.at(param);
                const std::string read = jsonQuote(param) + " is read (first by " + jsonQuote(p.units[i].name)
                    + ") but no unit produces it";
                if (const std::string hint = likelyTypo(param); !hint.empty())
                    report(Severity::Warning, "possible-typo", unitElementWhere(i, field, k), read + "; " + hint);
                else
                    report(Severity::Info, "external-input", unitElementWhere(i, field, k),
                        read + ": an external input from the dataset or the call");
            }
        }
        if (!p.loss) {
            report(Severity::Info, "no-loss", Where{"", 0, 0},
                "no \"loss\" is declared: the verifier takes the loss to read every param");
        } else if (p.loss->inputParams) {
            for (std::size_t k = 0; k < p.loss->inputParams->size(); ++k) {
                const std::string &param = (*p.loss->inputParams)[k];
                if (param.empty() || !firstExternalRead(param))
                    continue;
                const std::string read = jsonQuote(param) + " is read by the loss but no unit produces it";
                if (const std::string hint = likelyTypo(param); !hint.empty())
                    report(Severity::Warning, "possible-typo", lossElementWhere(k), read + "; " + hint);
                else
                    report(Severity::Info, "external-input", lossElementWhere(k), read + ": an external input");
            }
        }
    }

    // Where a unit or the loss starts in the text: its fields' elements are found again
    // from there when a diagnostic names one (elements()).
    struct ObjectStart {
        std::size_t offset = 0;
        Pos pos;
    };
    // Positions of a unit's fields; paths are rebuilt only for diagnostics.
    struct UnitWhere {
        int jsonIndex = 0; // in the document's `units`, which may hold entries that are not units
        ObjectStart start;
        Pos name;
    };
    // The place of a field of the i-th unit read (not the i-th entry of `units`).
    Where unitWhere(std::size_t i, const char *field, Pos p) const
    {
        return Where{unitPath(i) + (*field ? std::string(".") + field : std::string()), p.line, p.column};
    }
    std::string unitPath(std::size_t i) const { return "units[" + std::to_string(m_unitWhere[i].jsonIndex) + "]"; }

    // One name of a list field, or one entry of a posi/nega map, as the reader took it.
    struct Element {
        std::string step; // after the field's path: "[2]", ".prompt", or "" for a lone string read as a list
        Pos pos;          // of the name (for a map entry: of its value, the param)
        Pos keyPos;       // a map entry's key (the argument)
    };
    // The elements of `field` in the object at `start`, in the order the reader took them:
    // the strings of a list (other values were errors and left out), a lone string, or
    // the entries of a map with a string value (a repeated key's entry was left out). The
    // text is read again here, only when a diagnostic names an element, so that loading
    // keeps no position per name. The fields of the last object asked for are kept, as the
    // diagnostics about one unit come together: each field is read again once per pass.
    const std::vector<Element> &elements(const ObjectStart &start, std::string_view field)
    {
        if (m_elementsOffset != start.offset) {
            m_elementsOffset = start.offset;
            m_elementsByField.clear();
        }
        for (const auto &[name, found] : m_elementsByField) {
            if (name == field)
                return found;
        }
        m_elementsByField.emplace_back(std::string(field), std::vector<Element>());
        std::vector<Element> &found = m_elementsByField.back().second;
        // A reader of the text from the object on: its line 1 is the object's line, shifted.
        JsonReader r(m_text.substr(start.offset));
        const auto at = [&start](int line, int column) {
            return line == 1 ? Pos{start.pos.line, start.pos.column + column - 1}
                             : Pos{start.pos.line + line - 1, column};
        };
        std::string key;
        if (!r.beginObject())
            return found;
        while (r.nextMember(key)) {
            if (key != field) {
                r.skipValue();
                continue;
            }
            const Kind kind = r.peekKind();
            if (kind == Kind::String) {
                found.push_back(Element{std::string(), at(r.line(), r.column()), Pos{}});
            } else if (kind == Kind::Array) {
                r.beginArray();
                for (int index = 0; r.nextItem(); ++index) {
                    if (r.peekKind() == Kind::String)
                        found.push_back(
                            Element{'[' + std::to_string(index) + ']', at(r.line(), r.column()), Pos{}});
                    r.skipValue();
                }
            } else if (kind == Kind::Object) {
                r.beginObject();
                SeenNames seen;
                std::string entry;
                while (r.nextMember(entry)) {
                    const Pos keyPos = at(r.memberLine(), r.memberColumn());
                    if (seen.insert(entry) && r.peekKind() == Kind::String)
                        found.push_back(Element{memberStep(entry), at(r.line(), r.column()), keyPos});
                    r.skipValue();
                }
            }
            break; // the first of repeated keys is the one read
        }
        return found;
    }
    Where elementWhere(const std::string &fieldPath, const ObjectStart &start, const char *field, std::size_t k,
        bool key = false)
    {
        const std::vector<Element> &found = elements(start, field);
        if (k >= found.size()) // cannot happen: the same text gave the names
            return Where{fieldPath, start.pos.line, start.pos.column};
        const Pos p = key ? found[k].keyPos : found[k].pos;
        return Where{fieldPath + found[k].step, p.line, p.column};
    }
    // The k-th name the reader took from the i-th unit's `field` (with `key`, the k-th
    // map entry's key).
    Where unitElementWhere(std::size_t i, const char *field, std::size_t k, bool key = false)
    {
        return elementWhere(unitPath(i) + '.' + field, m_unitWhere[i].start, field, k, key);
    }
    Where lossElementWhere(std::size_t k) { return elementWhere("loss.input_params", m_lossStart, "input_params", k); }

    std::string_view m_text;
    JsonReader m_reader;
    std::string m_file;
    Diagnostics m_diagnostics;
    std::size_t m_errorCount = 0;
    Where m_nameWhere, m_unitsWhere, m_lossNameWhere;
    ObjectStart m_lossStart;
    std::vector<UnitWhere> m_unitWhere;
    std::vector<Where> m_modelWhere;
    struct TrainingRef {
        Where where;
        std::vector<std::string> models;
    };
    std::vector<TrainingRef> m_trainingRefs;
    int m_unitCount = 0;
    bool m_modelsIncomplete = false; // an entry of `models` had an error and was left out
    // elements(): the object last asked about, and the elements of its fields asked for.
    std::size_t m_elementsOffset = std::string_view::npos;
    std::deque<std::pair<std::string, std::vector<Element>>> m_elementsByField; // references stay valid

};

// A load that failed before reading a document: one error naming `file`.
LoadResult failedLoad(const std::string &file, const char *code, std::string message)
{
    LoadResult result;
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.file = file;
    d.message = std::move(message);
    result.diagnostics.push_back(std::move(d));
    return result;
}

// "SIZE; pipeline descriptions above ... are refused (...)".
std::string tooLargeMessage(const std::string &size, std::size_t maxBytes)
{
    constexpr std::size_t kGiB = std::size_t(1) << 30;
    return size + "; pipeline descriptions above " + std::to_string(maxBytes) + " bytes"
        + (maxBytes % kGiB == 0 ? " (" + std::to_string(maxBytes / kGiB) + " GiB)" : std::string())
        + " are refused (a 10^6-unit pipeline takes 308 MB)";
}

} // namespace

LoadResult parsePipeline(std::string_view text, const std::string &fileName)
{
    if (text.size() > kMaxPipelineBytes)
        return failedLoad(fileName, "input-too-large",
            tooLargeMessage("the text has " + std::to_string(text.size()) + " bytes", kMaxPipelineBytes));
    try {
        DescriptorReader reader(text, fileName);
        return reader.read();
    } catch (const std::bad_alloc &) {
        // The reader's memory is freed by now; a message needs little.
        return failedLoad(fileName, "out-of-memory",
            "not enough memory to load the document (" + std::to_string(text.size()) + " bytes)");
    }
}

LoadResult loadPipelineFile(const std::string &path)
{
    // O_NOCTTY: a terminal named here must not become the controlling one.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return failedLoad(path, "io", "cannot open '" + path + "': " + std::strerror(errno));
    LoadResult result = loadPipelineDescriptor(fd, path);
    ::close(fd);
    return result;
}

LoadResult loadPipelineDescriptor(int fd, const std::string &name, std::size_t maxBytes)
{
    using Status = BoundedRead::Status;
    std::string bytes;
    const BoundedRead read = readDescriptor(fd, maxBytes, bytes);
    switch (read.status) {
    case Status::Ok:
        break;
    case Status::Folder:
        return failedLoad(name, "io", "cannot read '" + name + "': it is a folder, not a pipeline file");
    case Status::Device:
        return failedLoad(name, "io",
            "cannot read '" + name + "': it is " + (read.blockDevice ? "a block device" : "a character device")
                + ", not a regular file or a pipe");
    case Status::ReadError:
        return failedLoad(name, "io", "cannot read '" + name + "': " + std::strerror(read.error));
    case Status::TooLarge:
        return failedLoad(name, "input-too-large",
            tooLargeMessage(read.regularFile ? "the file has " + std::to_string(read.size) + " bytes"
                                             : "it holds more than " + std::to_string(maxBytes) + " bytes",
                maxBytes));
    case Status::OutOfMemory:
        return failedLoad(name, "out-of-memory",
            "not enough memory to read '" + name + "' (" + std::to_string(read.size) + " bytes read)");
    }
    return parsePipeline(bytes, name);
}

} // namespace splitscope
