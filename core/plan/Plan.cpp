// SPDX-License-Identifier: MIT
#include "Plan.h"

#include "ModelFiles.h"

#include "core/CountText.h"
#include "core/Explain.h"
#include "core/SplitReport.h"
#include "core/importer/DiffSynthImporter.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

namespace splitscope::plan {

namespace {

namespace fs = std::filesystem;

void addError(Diagnostics &out, const std::string &file, int line, int column, const char *code, std::string message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.file = file;
    d.line = line;
    d.column = column;
    d.message = std::move(message);
    out.push_back(std::move(d));
}

std::vector<std::string> split(const std::string &text, char separator)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = text.find(separator, start);
        out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            return out;
        start = at + 1;
    }
}

std::string join(const std::vector<std::string> &items, const std::string &separator)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? separator : "") + items[i];
    return out;
}

bool contains(const std::vector<std::string> &items, const std::string &item)
{
    return std::find(items.begin(), items.end(), item) != items.end();
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The words of a path component: "Wan2.1_VAE.pth" -> {"wan2", "1", "vae", "pth"}.
std::vector<std::string> wordsOf(const std::string &text)
{
    std::vector<std::string> words(1);
    for (const char c : lower(text)) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            words.back() += c;
        } else if (!words.back().empty()) {
            words.emplace_back();
        }
    }
    if (words.back().empty())
        words.pop_back();
    return words;
}

// Whether `needle`'s words appear in a row in `hay`'s.
bool containsWords(const std::vector<std::string> &hay, const std::vector<std::string> &needle)
{
    if (needle.empty() || needle.size() > hay.size())
        return false;
    for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        if (std::equal(needle.begin(), needle.end(), hay.begin() + static_cast<std::ptrdiff_t>(i)))
            return true;
    }
    return false;
}

// One model entry of the command, as DiffSynth's parse_model_configs reads it.
struct Entry {
    std::string flag;
    std::string text;
    bool isPath = false;
    std::string modelId;
    std::string pattern;
    std::vector<std::string> paths; // --model_paths: one entry may be a list of files
};

// DiffSynth's list of models requiring backward: trainable_models split at commas, as
// written, then lora_base_model.
std::vector<std::string> modelsRequiringBackward(const TrainCommand &c)
{
    std::vector<std::string> w;
    if (const auto t = c.value("trainable_models"))
        w = split(*t, ',');
    if (const auto l = c.value("lora_base_model"))
        w.push_back(*l);
    return w;
}

std::string trainingText(const TrainCommand &c)
{
    std::string out;
    for (const char *name : {"trainable_models", "lora_base_model"}) {
        if (const auto v = c.value(name))
            out += (out.empty() ? "" : " ") + std::string("--") + name + " " + shellQuote(*v);
    }
    return out.empty() ? std::string("no --trainable_models and no --lora_base_model") : out;
}

std::set<std::string> calledModels(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    std::set<std::string> out;
    for (const UnitId u : units) {
        for (const ModelId m : graph.unitModels(u))
            out.insert(graph.modelName(m));
        for (const ModelId m : graph.undeclaredModels(u)) // called in process() though not declared
            out.insert(graph.modelName(m));
    }
    return out;
}

std::vector<std::string> unitNames(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    std::vector<std::string> out;
    for (const UnitId u : units)
        out.push_back(graph.unitName(u));
    return out;
}

std::string bytesText(std::uint64_t bytes)
{
    char text[32];
    if (bytes >= (1ull << 30))
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
    else
        std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    return text;
}

class Planner {
public:
    Planner(const PlanInput &input, PlanResult &result) : m_in(input), m_result(result) {}

    void run()
    {
        const ShellScript script = parseShellScript(m_in.script);
        if (!script.error.empty())
            return fail(script.errorLine, script.errorColumn, "shell-syntax", script.error);
        const FoundCommand found = findTrainCommand(script, m_in.line);
        if (!found.command)
            return fail(found.line, found.column, "no-train-command", found.error);
        m_command = *found.command;
        if (m_in.training) {
            m_command.setFlag("trainable_models", m_in.training->trainableModels);
            m_command.setFlag("lora_base_model", m_in.training->loraBaseModel);
        }
        if (!checkTask() || !readPipeline() || !readEntries() || !checkModels())
            return;
        const PipelineGraph graph(m_pipeline);
        resolveEntries(graph);
        if (hasErrors(m_result.diagnostics))
            return;
        planStages(graph);
    }

private:
    void fail(int line, int column, const char *code, std::string message)
    {
        addError(m_result.diagnostics, m_in.scriptName, line, column, code, std::move(message));
    }

    const TrainFlag *flag(const char *name) const { return m_command.flag(name); }

    bool readPipeline()
    {
        if (m_in.pipeline) {
            m_pipeline = *m_in.pipeline;
            return true;
        }
        if (m_in.checkout.empty()) {
            fail(m_command.line, 0, "no-pipeline",
                "no pipeline to plan against: give the DiffSynth-Studio checkout the command runs in (--diffsynth DIR) "
                "or a description (--pipeline FILE.json)");
            return false;
        }
        std::error_code ec;
        if (!fs::is_directory(fs::path(m_in.checkout) / "diffsynth" / "pipelines", ec)) {
            addError(m_result.diagnostics, m_in.checkout, 0, 0, "no-checkout",
                "not a DiffSynth-Studio checkout: it has no diffsynth/pipelines/ folder");
            return false;
        }
        // The command's train.py, where it runs, else inside the checkout.
        fs::path script = fs::path(m_in.workdir) / m_command.script;
        if (fs::path(m_command.script).is_absolute())
            script = m_command.script;
        else if (!fs::is_regular_file(script, ec))
            script = fs::path(m_in.checkout) / m_command.script;
        if (!fs::is_regular_file(script, ec)) {
            fail(m_command.line, 0, "no-train-script",
                "the command runs " + m_command.script + ", which is neither in " + m_in.workdir + " nor in the checkout "
                    + m_in.checkout);
            return false;
        }
        importer::ImportOptions options;
        options.flags = m_command.flagMap();
        importer::ImportResult imported = importer::importDiffSynthPath(script.string(), options);
        for (Diagnostic &d : imported.diagnostics) {
            if (d.severity == Severity::Error)
                m_result.diagnostics.push_back(std::move(d));
        }
        if (imported.pipelines.size() != 1) {
            if (!hasErrors(m_result.diagnostics))
                fail(m_command.line, 0, "unknown-pipeline", script.string() + " trains no pipeline this importer can read");
            return false;
        }
        m_pipeline = std::move(imported.pipelines.front().pipeline);
        m_bindings = std::move(imported.pipelines.front().modelBindings);
        m_pipelineFile = fs::path(imported.pipelines.front().sourceFile).filename().string();
        m_configs = readModelConfigs(m_in.checkout);
        for (Diagnostic &d : m_configs.diagnostics)
            m_result.diagnostics.push_back(std::move(d));
        m_plan.trainScript = m_command.script;
        return true;
    }

    bool readEntries()
    {
        for (const TrainFlag &f : m_command.flags) {
            if (f.expands && (f.name == "model_id_with_origin_paths" || f.name == "model_paths" || f.name == "task"
                                 || f.name == "trainable_models" || f.name == "lora_base_model")) {
                fail(f.line, f.column, "shell-expansion",
                    "--" + f.name + " holds a shell expansion ($ or `): its value is only known when the shell runs the "
                                    "command; write it out to plan with it");
                return false;
            }
        }
        if (const auto list = m_command.value("model_id_with_origin_paths")) {
            for (const std::string &text : split(*list, ',')) {
                Entry e;
                e.flag = "model_id_with_origin_paths";
                e.text = text;
                std::error_code ec;
                e.isPath = fs::exists(fs::path(m_in.workdir) / text, ec);
                if (e.isPath) {
                    e.paths = {(fs::path(m_in.workdir) / text).string()};
                } else if (text.find(':') == std::string::npos) {
                    const TrainFlag *f = flag("model_id_with_origin_paths");
                    fail(f->line, f->column, "bad-model-entry",
                        "--model_id_with_origin_paths: '" + text + "' is neither a file nor MODEL_ID:FILE_PATTERN "
                                                                  "(DiffSynth would stop here)");
                    return false;
                } else {
                    e.modelId = text.substr(0, text.rfind(':'));
                    e.pattern = text.substr(text.rfind(':') + 1);
                }
                m_entries.push_back(std::move(e));
            }
        }
        if (const auto list = m_command.value("model_paths")) {
            const TrainFlag *f = flag("model_paths");
            const nlohmann::json paths = nlohmann::json::parse(*list, nullptr, false);
            if (!paths.is_array()) {
                fail(f->line, f->column, "bad-model-entry", "--model_paths: not a JSON list of paths");
                return false;
            }
            for (const nlohmann::json &p : paths) {
                Entry e;
                e.flag = "model_paths";
                e.isPath = true;
                e.text = p.is_string() ? p.get<std::string>() : p.dump();
                for (const nlohmann::json &file : p.is_array() ? p : nlohmann::json::array({p})) {
                    if (!file.is_string()) {
                        fail(f->line, f->column, "bad-model-entry", "--model_paths: " + file.dump() + " is not a path");
                        return false;
                    }
                    e.paths.push_back((fs::path(m_in.workdir) / file.get<std::string>()).string());
                }
                m_entries.push_back(std::move(e));
            }
        }
        if (m_entries.empty()) {
            fail(m_command.line, 0, "no-models",
                "the command loads no model (no --model_id_with_origin_paths, no --model_paths): nothing to plan");
            return false;
        }
        return true;
    }

    bool checkTask()
    {
        const std::string task = m_command.value("task").value_or("sft");
        if (task.find(':') != std::string::npos) {
            const TrainFlag *f = flag("task");
            fail(f->line, f->column, "not-one-stage",
                "--task " + task + " is already one stage of a split; plan from the one-stage command (--task "
                    + task.substr(0, task.find(':')) + ")");
            return false;
        }
        m_task = task;
        return true;
    }

    // The user's --model mappings name entries of the command and models of the pipeline.
    bool checkModels()
    {
        for (const auto &[entry, models] : m_in.models) {
            if (std::none_of(m_entries.begin(), m_entries.end(), [&](const Entry &e) { return e.text == entry; })) {
                std::vector<std::string> texts;
                for (const Entry &e : m_entries)
                    texts.push_back(e.text);
                addError(m_result.diagnostics, "--model", 0, 0, "unknown-entry",
                    "'" + entry + "' is no model entry of the command (its entries: " + join(texts, ", ") + ")");
                return false;
            }
            for (const std::string &m : models) {
                if (!contains(m_pipeline.modelNames(), m)) {
                    addError(m_result.diagnostics, "--model", 0, 0, "unknown-model",
                        "'" + m + "' is no model of " + m_pipeline.name + " (" + join(m_pipeline.modelNames(), ", ") + ")");
                    return false;
                }
            }
        }
        return true;
    }

    std::string modelBase() const
    {
        if (!m_in.modelBase.empty())
            return m_in.modelBase;
        const auto set = m_in.environment.find(m_configs.baseVariable);
        const std::string base = set != m_in.environment.end() ? set->second : m_configs.defaultBase;
        return fs::path(base).is_absolute() ? base : (fs::path(m_in.workdir) / base).string();
    }

    // The attributes a model name loads into, as from_pretrained fetches them.
    std::vector<std::string> attributesOf(const std::string &modelName, std::string &where) const
    {
        std::vector<std::string> out;
        for (const importer::ModelBinding &b : m_bindings) {
            if (b.model == modelName && !contains(out, b.attribute)) {
                out.push_back(b.attribute);
                where += (where.empty() ? "" : ", ") + ("pipe." + b.attribute + " = fetch_model(\"" + modelName + "\") at ")
                    + m_pipelineFile + ":" + std::to_string(b.line);
            }
        }
        return out;
    }

    void resolveEntries(const PipelineGraph &graph)
    {
        const std::string base = modelBase();
        for (const Entry &e : m_entries) {
            PlannedModel m;
            m.flag = e.flag;
            m.entry = e.text;
            std::vector<std::string> tried;
            // The user's word first.
            for (const auto &[entry, models] : m_in.models) {
                if (entry == e.text) {
                    m.models = models;
                    m.resolvedBy = "user";
                    m.how = "--model " + entry + "=" + join(models, ",");
                }
            }
            // The files, where DiffSynth finds them.
            if (e.isPath) {
                for (const std::string &p : e.paths) {
                    std::error_code ec;
                    if (fs::is_regular_file(p, ec))
                        m.files.push_back(p);
                }
            } else {
                m.files = entryFiles(base, e.modelId, e.pattern);
            }
            std::vector<SafetensorsHeader> headers;
            for (const std::string &file : m.files) {
                SafetensorsHeader h = readSafetensorsHeader(file);
                if (!h.error.empty()) {
                    tried.push_back("its file " + file + ", which is " + h.error);
                    headers.clear();
                    break;
                }
                headers.push_back(std::move(h));
            }
            if (!headers.empty()) {
                std::uint64_t bytes = 0;
                for (const SafetensorsHeader &h : headers)
                    bytes += h.bytes;
                m.bytes = bytes;
            }
            if (m.resolvedBy.empty() && !headers.empty()) {
                const std::string hash = diffSynthModelHash(headers);
                const auto named = m_configs.byHash.find(hash);
                if (m_configs.file.empty()) {
                    tried.push_back("the files' hash " + hash + " (no checkout, so no model_configs.py to look it up in)");
                } else if (named == m_configs.byHash.end()) {
                    tried.push_back("the files' hash " + hash + ", which " + m_configs.file
                        + " does not list (DiffSynth would stop: \"Cannot detect the model type\")");
                } else {
                    std::string where;
                    std::vector<std::string> names;
                    for (const ModelConfigs::Name &n : named->second) {
                        names.push_back(n.model + " (line " + std::to_string(n.line) + ")");
                        for (const std::string &a : attributesOf(n.model, where))
                            m.models.push_back(a);
                    }
                    if (m.models.empty()) {
                        tried.push_back("the files' hash " + hash + " = " + join(names, ", ") + " in " + m_configs.file
                            + ", which the pipeline's from_pretrained fetches into no attribute");
                    } else {
                        m.resolvedBy = "files";
                        m.how = "hash " + hash + " of " + countText(m.files.size(), "file") + " = " + join(names, ", ")
                            + " in model_configs.py; " + where;
                    }
                }
            } else if (m.resolvedBy.empty() && m.files.empty()) {
                tried.push_back(e.isPath ? "its file (not found)"
                                         : "its files (none match " + (fs::path(base) / e.modelId / e.pattern).string()
                                               + "; set " + m_configs.baseVariable + " or --model_base_path)");
            }
            if (m.resolvedBy.empty())
                resolveByNameOrExample(e, m, tried);
            if (m.resolvedBy.empty()) {
                const TrainFlag *f = flag(e.flag.c_str());
                fail(f->line, f->column, "unresolved-entry",
                    "--" + e.flag + ": which model of " + m_pipeline.name + " '" + e.text + "' holds is not known: tried "
                        + join(tried, "; ") + "; give --model '" + e.text + "=ATTRIBUTE' (one of "
                        + join(m_pipeline.modelNames(), ", ") + ")");
            }
            // Files where the command runs are named as the command names them.
            const std::string prefix = (fs::path(m_in.workdir) / "").string();
            for (std::string &file : m.files) {
                if (file.rfind(prefix, 0) == 0)
                    file = file.substr(prefix.size());
            }
            m_plan.models.push_back(std::move(m));
        }
        (void)graph;
        // Two entries for one attribute: from_pretrained fetches one of them, and which is
        // DiffSynth's business (an entry that holds several models, as Wan's dit and dit2 of
        // one architecture, is not such a conflict).
        std::map<std::string, std::string> sole;
        for (const PlannedModel &m : m_plan.models) {
            if (m.models.size() != 1)
                continue;
            const auto [it, inserted] = sole.emplace(m.models.front(), m.entry);
            if (!inserted)
                m_plan.warnings.push_back("'" + it->second + "' and '" + m.entry + "' both hold " + m.models.front()
                    + ": the pipeline keeps one of them; check the entries (or say which with --model ENTRY=ATTR)");
        }
    }

    // Without files to hash: by the entry's names, or by the example comment in
    // model_configs.py that names this very entry. The names win when both answer and
    // disagree (the comments are written by hand; the folders are the model's layout),
    // with a warning that says so.
    void resolveByNameOrExample(const Entry &e, PlannedModel &m, std::vector<std::string> &tried)
    {
        PlannedModel byExample = m;
        if (!e.isPath)
            resolveByExample(e, byExample, tried);
        resolveByName(e, m, tried);
        if (byExample.resolvedBy.empty())
            return;
        if (m.resolvedBy.empty()) {
            m = std::move(byExample);
            return;
        }
        std::vector<std::string> a = m.models, b = byExample.models;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a == b) {
            m.resolvedBy = "configs";
            m.how = byExample.how + "; " + m.how;
            return;
        }
        m_plan.warnings.push_back("'" + e.text + "': " + byExample.how + ", but " + m.how + "; planned as "
            + join(m.models, ", ") + " (with the files present the plan goes by their hash; or say which with --model)");
    }

    // The comment for this model id and pattern; else the comments for this pattern under
    // other model ids (FLUX.1-Fill-dev's text_encoder/ is written as FLUX.1-dev's), when
    // they all come to the same attributes.
    void resolveByExample(const Entry &e, PlannedModel &m, std::vector<std::string> &tried)
    {
        if (m_configs.file.empty())
            return;
        std::vector<ModelConfigs::Name> examples;
        std::string said;
        const auto exact = m_configs.byExample.find(e.modelId + ":" + e.pattern);
        if (exact != m_configs.byExample.end()) {
            examples = exact->second;
            said = "the example comment at model_configs.py:" + std::to_string(examples.front().line);
        } else {
            std::vector<std::string> lines;
            for (const auto &[key, names] : m_configs.byExample) {
                const std::size_t colon = key.find(':');
                if (key.compare(colon + 1, std::string::npos, e.pattern) != 0)
                    continue;
                for (const ModelConfigs::Name &n : names) {
                    examples.push_back(n);
                    lines.push_back(std::to_string(n.line));
                }
            }
            if (examples.empty())
                return;
            said = "the example comments for this pattern under other model ids (model_configs.py:" + join(lines, ", ") + ")";
        }
        std::string where;
        std::vector<std::string> names;
        std::vector<std::string> models;
        for (const ModelConfigs::Name &n : examples) {
            if (contains(names, n.model))
                continue;
            std::string at;
            const std::vector<std::string> attributes = attributesOf(n.model, at);
            if (exact == m_configs.byExample.end() && attributes.empty())
                continue; // another pipeline's model, under another id
            names.push_back(n.model);
            if (exact == m_configs.byExample.end() && !models.empty() && attributes != models) {
                tried.push_back(said + ", which disagree");
                return;
            }
            for (const std::string &a : attributes)
                if (!contains(models, a))
                    models.push_back(a);
            if (!at.empty() && where.find(at) == std::string::npos)
                where += (where.empty() ? "" : ", ") + at;
        }
        if (names.empty())
            return;
        said += (exact != m_configs.byExample.end() ? " says it is " : " say it is ") + join(names, ", ");
        if (models.empty()) {
            tried.push_back(said + ", which the pipeline's from_pretrained fetches into no attribute");
            return;
        }
        m.models = models;
        m.resolvedBy = "configs";
        m.how = said + " (" + where + ")";
    }

    // The entry's path names the attribute: a folder or file called text_encoder, vae, or
    // transformer (diffusers' name for the denoiser, `dit` in DiffSynth).
    void resolveByName(const Entry &e, PlannedModel &m, std::vector<std::string> &tried)
    {
        std::vector<std::vector<std::string>> components;
        for (const std::string &c : split(e.isPath ? e.text : e.pattern, '/')) {
            std::string stem = c.substr(0, c.find('.'));
            stem.erase(std::remove(stem.begin(), stem.end(), '*'), stem.end());
            if (!stem.empty())
                components.push_back(wordsOf(stem == "transformer" ? std::string("dit") : stem));
        }
        std::vector<std::string> matches;
        for (const std::string &attribute : m_pipeline.modelNames()) {
            const std::vector<std::string> words = wordsOf(attribute);
            for (const auto &c : components) {
                if (c == words && !contains(matches, attribute))
                    matches.push_back(attribute);
            }
        }
        if (matches.empty()) { // then a word run inside a name: Wan2.1_VAE.pth for vae
            for (const std::string &attribute : m_pipeline.modelNames()) {
                for (const auto &c : components) {
                    if (containsWords(c, wordsOf(attribute)) && !contains(matches, attribute))
                        matches.push_back(attribute);
                }
            }
        }
        if (matches.size() == 1) {
            m.models = matches;
            m.resolvedBy = "names";
            m.how = "its path names " + matches.front() + (e.pattern.find("transformer") != std::string::npos
                    && matches.front() == "dit" ? " (transformer/ is diffusers' name for the denoiser)" : "");
        } else {
            tried.push_back(matches.empty() ? "its path's names, which match no model attribute"
                                            : "its path's names, which match several (" + join(matches, ", ") + ")");
        }
    }

    void planStages(const PipelineGraph &graph)
    {
        const std::vector<std::string> w = modelsRequiringBackward(m_command);
        m_plan.modelsRequiringBackward = w;
        m_plan.training = trainingText(m_command);
        m_plan.pipeline = m_pipeline.name;
        m_plan.description = m_pipeline;
        m_plan.trainingConfig.trainableModels = m_command.value("trainable_models");
        m_plan.trainingConfig.loraBaseModel = m_command.value("lora_base_model");
        m_plan.workdir = m_in.workdir;
        m_plan.prune = m_in.prune;
        m_plan.source = m_in.scriptName + ":" + std::to_string(m_command.line);
        const Split seed = computeSeedSplit(graph, w);
        const Verification verification = verifySplit(graph, seed);
        const std::vector<UnitId> v1 = seed.v1(), v2 = seed.v2();
        m_plan.stageOne.units = unitNames(graph, v2);
        m_plan.stageTwo.units = unitNames(graph, v1);
        // What each stage must load: the models its units call; in stage two also those
        // the loss runs and the trained ones.
        const std::set<std::string> one = calledModels(graph, v2);
        std::set<std::string> two = calledModels(graph, v1);
        const std::vector<std::string> lossModels = m_pipeline.loss && m_pipeline.loss->models
            ? *m_pipeline.loss->models
            : std::vector<std::string>{};
        if (!m_pipeline.loss || !m_pipeline.loss->models)
            m_plan.warnings.push_back("the description does not say which models the loss runs (loss.models): stage "
                                      "two keeps the trained models and those its units call");
        for (const std::string &m : lossModels)
            two.insert(m);
        for (const std::string &m : w) {
            if (contains(m_pipeline.modelNames(), m))
                two.insert(m);
        }
        // A stage loads what it needs of what the command loads (its entries, and the trained
        // models, which another flag may load: --template_model_id_or_path). The rest (Qwen-Image's
        // blockwise_controlnet, in in_iteration_models but in no entry) is None in both trainings.
        std::set<std::string> loaded(w.begin(), w.end());
        for (const PlannedModel &m : m_plan.models)
            loaded.insert(m.models.begin(), m.models.end());
        for (const std::string &a : one) {
            if (loaded.count(a))
                m_plan.stageOne.models.push_back(a);
        }
        for (const std::string &a : two) {
            if (loaded.count(a))
                m_plan.stageTwo.models.push_back(a);
        }
        for (PlannedModel &m : m_plan.models) {
            m.stageOne = std::any_of(m.models.begin(), m.models.end(), [&](const std::string &a) { return one.count(a); });
            m.stageTwo = std::any_of(m.models.begin(), m.models.end(), [&](const std::string &a) { return two.count(a); });
            // DiffSynth offloads a --model_paths entry when `path in offload_models`: a list of
            // files never is, so only --prune can leave one out.
            const bool listed = m.flag == "model_paths" && m.entry.rfind('[', 0) == 0;
            if (listed && !m_in.prune && (!m.stageOne || !m.stageTwo))
                m_plan.warnings.push_back("the --model_paths entry " + m.entry + " (" + join(m.models, ", ") + ") is a "
                    "list of files, which DiffSynth's --offload_models cannot name: " + (m.stageOne ? "stage two" : "stage one")
                    + " loads it anyway (--prune leaves it out of that stage's --model_paths instead)");
            if (!m.stageOne && (!listed || m_in.prune))
                m_plan.stageOne.offload.push_back(m.entry);
            if (!m.stageTwo && (!listed || m_in.prune))
                m_plan.stageTwo.offload.push_back(m.entry);
            if (!m.stageOne && !m.stageTwo)
                m_plan.warnings.push_back("'" + m.entry + "' (" + join(m.models, ", ") + ") is needed by neither stage: no "
                    "unit calls it, the loss does not run it and it is not trained; both commands offload it");
        }
        warn(graph, verification, w);
        m_plan.stageOne.task = m_task + ":data_process";
        m_plan.stageTwo.task = m_task + ":train";
        const std::string output = m_command.value("output_path").value_or("./models");
        const std::string cache = m_in.cachePath.empty() ? output + "-cache" : m_in.cachePath;
        std::vector<FlagEdit> first = {{"dataset_repeat", "1", false}, {"output_path", cache, false},
            {"task", m_plan.stageOne.task, false}};
        std::vector<FlagEdit> second = {{"dataset_base_path", cache, false}, {"dataset_metadata_path", {}, true},
            {"task", m_plan.stageTwo.task, false}};
        if (!m_in.outputPath.empty())
            second.push_back({"output_path", m_in.outputPath, false});
        modelEdits(m_plan.stageOne.offload, first);
        modelEdits(m_plan.stageTwo.offload, second);
        m_plan.stageOne.command = renderCommand(m_command, first);
        m_plan.stageTwo.command = renderCommand(m_command, second);
        checkRoundTrip(graph, seed);
        m_result.plan = std::move(m_plan);
    }

    // --offload_models, or with prune the model flags without the entries.
    void modelEdits(const std::vector<std::string> &unneeded, std::vector<FlagEdit> &edits) const
    {
        if (!m_in.prune) {
            if (unneeded.empty())
                edits.push_back({"offload_models", {}, true});
            else
                edits.push_back({"offload_models", join(unneeded, ","), false});
            return;
        }
        edits.push_back({"offload_models", {}, true});
        for (const char *name : {"model_id_with_origin_paths", "model_paths"}) {
            const auto value = m_command.value(name);
            if (!value)
                continue;
            std::vector<std::string> kept;
            nlohmann::json keptPaths = nlohmann::json::array();
            for (const Entry &e : m_entries) {
                if (e.flag != name || contains(unneeded, e.text))
                    continue;
                kept.push_back(e.text);
                keptPaths.push_back(nlohmann::json::parse(e.text, nullptr, false).is_array()
                        ? nlohmann::json::parse(e.text)
                        : nlohmann::json(e.text));
            }
            if (kept.empty())
                edits.push_back({name, {}, true});
            else
                edits.push_back({name, std::string(name) == "model_paths" ? keptPaths.dump() : join(kept, ","), false});
        }
    }

    void warn(const PipelineGraph &graph, const Verification &v, const std::vector<std::string> &w)
    {
        for (const std::string &line : verificationFindings(graph, v))
            m_plan.hazards.push_back(line);
        if (!m_plan.hazards.empty())
            m_plan.hazards.push_back(
                "DiffSynth computes its own split (the seed split) in each stage from the stage's flags; it cannot run "
                "Splitscope's safe split. To train exactly: train in one stage (the command as it is), or change the "
                "pipeline's declarations so that DiffSynth's split has no hazard (splitscope-cli split --mode safe shows "
                "which units must run in stage two), or choose other --trainable_models");
        for (const std::string &name : w) {
            if (name.find('.') != std::string::npos)
                m_plan.warnings.push_back("--trainable_models names the submodule '" + name + "': DiffSynth trains it, "
                    "but its split looks for units whose onload_model_names contains '" + name + "', and none does, so "
                    "the units that call " + name.substr(0, name.find('.')) + " are cached in stage one with the untrained "
                    "submodule");
            if (name.empty() || name.front() == ' ' || name.back() == ' ')
                m_plan.warnings.push_back("--trainable_models has the entry '" + name + "': DiffSynth splits the list at "
                    "commas without trimming blanks, so it names no model");
        }
        for (const Unit &u : m_pipeline.units) {
            if (u.onloadModelNamesIsString() && u.onloadModelNames && !u.onloadModelNames->empty())
                m_plan.warnings.push_back(u.name + "'s onload_model_names is the string \"" + u.onloadModelNames->front()
                    + "\": DiffSynth's split tests `model in onload_model_names`, a substring test, so any model whose "
                      "name is part of it counts as called");
        }
    }

    // Both commands read back give the training flags, and so the split, of the one-stage command.
    void checkRoundTrip(const PipelineGraph &graph, const Split &seed)
    {
        for (const PlannedStage *stage : {&m_plan.stageOne, &m_plan.stageTwo}) {
            const FoundCommand back = findTrainCommand(parseShellScript(stage->command));
            const std::vector<std::string> w = back.command ? modelsRequiringBackward(*back.command) : std::vector<std::string>{};
            if (!back.command || w != m_plan.modelsRequiringBackward
                || computeSeedSplit(graph, w).trained != seed.trained) {
                fail(m_command.line, 0, "partition-differs",
                    "the " + stage->task + " command would split the pipeline differently from the one-stage command "
                        "(an internal error of the planner)");
            }
        }
    }

    const PlanInput &m_in;
    PlanResult &m_result;
    TrainCommand m_command;
    Pipeline m_pipeline;
    std::vector<importer::ModelBinding> m_bindings;
    std::string m_pipelineFile; // where from_pretrained is
    ModelConfigs m_configs;
    std::vector<Entry> m_entries;
    std::string m_task;
    Plan m_plan;
};

} // namespace

PlanResult makePlan(const PlanInput &input)
{
    PlanResult result;
    Planner(input, result).run();
    if (hasErrors(result.diagnostics))
        result.plan.reset();
    return result;
}

std::string planToText(const Plan &plan)
{
    std::ostringstream out;
    out << "Plan for " << plan.pipeline << " (" << plan.source << "), " << plan.training << "\n";
    out << "Models requiring backward: " << (plan.modelsRequiringBackward.empty() ? "none" : join(plan.modelsRequiringBackward, ", "))
        << "\n\nModels:\n";
    for (const PlannedModel &m : plan.models) {
        out << "  " << m.entry << "\n    -> " << join(m.models, ", ") << " (by " << m.resolvedBy << ": " << m.how << ")"
            << (m.bytes ? ", " + bytesText(*m.bytes) : std::string()) << "\n    stage one: "
            << (m.stageOne ? "loaded" : plan.prune ? "removed" : "offloaded") << ", stage two: "
            << (m.stageTwo ? "loaded" : plan.prune ? "removed" : "offloaded") << "\n";
    }
    for (const PlannedStage *stage : {&plan.stageOne, &plan.stageTwo}) {
        out << "\n" << (stage == &plan.stageOne ? "Stage one" : "Stage two") << " (" << stage->task << "): "
            << countText(stage->units.size(), "unit") << (stage->units.empty() ? "" : ": " + join(stage->units, ", "))
            << "\n  loads " << (stage->models.empty() ? std::string("no model") : join(stage->models, ", ")) << "\n\n"
            << stage->command;
    }
    if (!plan.hazards.empty()) {
        out << "\nHazards of DiffSynth's split:\n";
        for (const std::string &h : plan.hazards)
            out << "  " << h << "\n";
    }
    if (!plan.warnings.empty()) {
        out << "\nWarnings:\n";
        for (const std::string &w : plan.warnings)
            out << "  " << w << "\n";
    }
    return out.str();
}

std::string planToJson(const Plan &plan)
{
    using Json = nlohmann::ordered_json;
    Json doc = Json::object();
    doc["format"] = "splitscope.plan/1";
    doc["pipeline"] = plan.pipeline;
    doc["training"] = Json{{"models_require_backward", plan.modelsRequiringBackward}, {"flags", plan.training}};
    Json models = Json::array();
    for (const PlannedModel &m : plan.models) {
        models.push_back(Json{{"entry", m.entry}, {"flag", m.flag}, {"model", m.models.empty() ? Json(nullptr) : Json(m.models.front())},
            {"models", m.models}, {"resolved_by", m.resolvedBy}, {"how", m.how}, {"files", m.files},
            {"bytes", m.bytes ? Json(*m.bytes) : Json(nullptr)}, {"stage_one", m.stageOne}, {"stage_two", m.stageTwo}});
    }
    doc["models"] = std::move(models);
    for (const auto &[key, stage] : {std::pair<const char *, const PlannedStage *>{"stage_one", &plan.stageOne},
             {"stage_two", &plan.stageTwo}}) {
        doc[key] = Json{{"task", stage->task}, {"units", stage->units}, {"models", stage->models},
            {plan.prune ? "removed" : "offloaded", stage->offload}, {"command", stage->command}};
    }
    doc["hazards"] = plan.hazards;
    doc["warnings"] = plan.warnings;
    return doc.dump(1) + "\n";
}

bool parseModelMapping(const std::string &value, std::pair<std::string, std::vector<std::string>> &mapping,
    std::string &error)
{
    const std::size_t equals = value.rfind('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == value.size()) {
        error = "'" + value + "': write ENTRY=ATTRIBUTE, as 'Org/Model:file*.safetensors=dit'";
        return false;
    }
    mapping.first = value.substr(0, equals);
    mapping.second.clear();
    const std::string rest = value.substr(equals + 1);
    for (std::size_t start = 0; start <= rest.size();) {
        const std::size_t comma = std::min(rest.find(',', start), rest.size());
        if (comma == start) {
            error = "'" + value + "': an empty attribute name after '='";
            return false;
        }
        mapping.second.push_back(rest.substr(start, comma - start));
        start = comma + 1;
    }
    return true;
}

std::string planToShell(const Plan &plan)
{
    std::ostringstream out;
    out << "#!/bin/sh\n# Two-stage split training planned by Splitscope from " << plan.source << ",\n# for " << plan.pipeline
        << " with " << plan.training << ".\n#\n";
    for (const PlannedModel &m : plan.models)
        out << "# " << m.entry << " -> " << join(m.models, ", ") << " (" << m.resolvedBy << ")"
            << (m.bytes ? ", " + bytesText(*m.bytes) : std::string()) << "; stage one "
            << (m.stageOne ? "loads" : plan.prune ? "drops" : "offloads") << " it, stage two "
            << (m.stageTwo ? "loads" : plan.prune ? "drops" : "offloads") << " it\n";
    out << "#\n# Stage one runs " << countText(plan.stageOne.units.size(), "unit") << " once and caches what they compute;\n"
        << "# stage two runs " << countText(plan.stageTwo.units.size(), "unit")
        << (plan.stageTwo.units.empty() ? "" : " (" + join(plan.stageTwo.units, ", ") + ")") << " at every step.\n";
    for (const std::string &h : plan.hazards)
        out << "# HAZARD: " << h << "\n";
    for (const std::string &w : plan.warnings)
        out << "# Warning: " << w << "\n";
    out << "set -e\n\n# Stage one (" << plan.stageOne.task << ")\n" << plan.stageOne.command << "\n# Stage two ("
        << plan.stageTwo.task << ")\n" << plan.stageTwo.command;
    return out.str();
}

} // namespace splitscope::plan
