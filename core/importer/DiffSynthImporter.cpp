// SPDX-License-Identifier: MIT
#include "DiffSynthImporter.h"

#include "ImportContext.h"
#include "TrainingScript.h"
#include "core/NameSuggestion.h"
#include "PipelineReader.h"
#include "UnitReader.h"

#include "core/AtomicFile.h"
#include "core/Explain.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

namespace splitscope::importer {

namespace {

void addError(Diagnostics &diagnostics, const char *code, const std::string &file, std::string message, int line = 0,
    int column = 0)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.file = file;
    d.line = line;
    d.column = column;
    d.message = std::move(message);
    diagnostics.push_back(std::move(d));
}

// "QwenImagePipeline" -> "qwen_image"
std::string snakeCaseName(const std::string &className)
{
    std::string base = className;
    const std::string suffix = "Pipeline";
    if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
        base.resize(base.size() - suffix.size());
    std::string out;
    for (std::size_t i = 0; i < base.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(base[i]);
        if (std::isupper(c) && i > 0) {
            const unsigned char previous = static_cast<unsigned char>(base[i - 1]);
            const bool nextLower = i + 1 < base.size() && std::islower(static_cast<unsigned char>(base[i + 1]));
            if (std::islower(previous) || std::isdigit(previous) || (std::isupper(previous) && nextLower))
                out += '_';
        }
        out += static_cast<char>(std::tolower(c));
    }
    return out;
}

struct Candidate {
    const PythonModule *module;
    const ClassDef *cls;
};

// What the bodies do beyond the declarations, said where it is written (info: the
// split says which of it matters for the training chosen).
void reportFindings(ImportContext &context, const Pipeline &pipeline)
{
    const PipelineGraph graph(pipeline);
    for (const DeclarationFinding &f : graph.declarationFindings()) {
        const PythonModule *at = context.modules().modules().front().get();
        for (const auto &m : context.modules().modules()) {
            if (m->fileName().size() >= f.file.size() && !f.file.empty()
                && m->fileName().compare(m->fileName().size() - f.file.size(), f.file.size(), f.file) == 0)
                at = m.get();
        }
        context.report(Severity::Info, declarationFindingName(f.kind), *at, f.line, 0, graph.unitName(f.unit),
            declarationFindingText(graph, f));
    }
}

// A train.py's one pipeline, as its flags set it up.
void importTrainingScript(ImportContext &context, const PythonModule &script, const ImportOptions &options,
    ImportResult &result)
{
    const std::optional<TrainingScript> ts = readTrainingScript(context, script);
    if (!ts) {
        addError(result.diagnostics, "no-pipeline", script.fileName(), "the training module has no __init__ to read");
        return;
    }
    if (!ts->pipeline) {
        addError(result.diagnostics, "unknown-pipeline-class", script.fileName(),
            ts->pipelineName.empty()
                ? ts->moduleClass + " never sets self.pipe = SomePipeline.from_pretrained(...)"
                : ts->moduleClass + " trains " + ts->pipelineName + ", which the checkout's diffsynth/pipelines/ does not define",
            ts->line);
        return;
    }
    const auto flag = options.flags.find("task");
    const std::string task = flag == options.flags.end() ? std::string("sft") : flag->second;
    std::string loss = options.lossName.empty() ? lossForTask(*ts, task) : options.lossName;
    if (loss.empty())
        loss = kDefaultLoss;
    context.report(Severity::Info, "training-loss", script, ts->line, 0, ts->moduleClass,
        "the task '" + task + "' trains with " + loss + (options.lossName.empty() ? " (task_to_loss)" : " (--loss)"));
    std::vector<TrainingScript::AddedUnits> added;
    for (const TrainingScript::AddedUnits &a : ts->added) {
        const bool given = a.flag.empty() || options.flags.count(a.flag);
        context.report(Severity::Info, "training-units", script, a.line, 0, ts->moduleClass,
            std::to_string(a.module->tree().children(a.list, "elts").size()) + " units are added "
                + (a.prepend ? "before" : "after") + " the pipeline's own"
                + (a.flag.empty() ? std::string() : " when --" + a.flag + " is given") + (given ? "" : "; it is not"));
        if (given)
            added.push_back(a);
    }
    if (ts->removesUnneededParams)
        context.report(Severity::Info, "training-units", script, ts->line, 0, ts->moduleClass,
            "stage one appends GeneralUnit_RemoveCache, which drops from the cache what stage two does not read");
    PipelineReader reader(context, loss);
    std::optional<Pipeline> p = reader.read(*ts->pipeline.module, *ts->pipeline.item, added);
    if (!p)
        return;
    TrainingConfig training;
    for (const char *name : {"lora_base_model", "trainable_models"}) {
        const auto it = options.flags.find(name);
        if (it != options.flags.end())
            (std::string(name) == "lora_base_model" ? training.loraBaseModel : training.trainableModels) = it->second;
    }
    if (training.loraBaseModel || training.trainableModels)
        p->training = training;
    reportFindings(context, *p);
    p->name = ts->pipeline.module->stem();
    p->source = "imported from " + script.fileName() + " (" + ts->moduleClass + ", task " + task + ") and "
        + ts->pipeline.module->fileName() + ", class " + ts->pipeline.item->name + ", by Splitscope's DiffSynth importer";
    ImportedPipeline imported;
    imported.className = ts->pipeline.item->name;
    imported.sourceFile = ts->pipeline.module->fileName();
    imported.pipeline = std::move(*p);
    imported.modelBindings = reader.modelBindings(*ts->pipeline.module, *ts->pipeline.item);
    result.pipelines.push_back(std::move(imported));
}

std::unique_ptr<PythonModule> readModule(const std::filesystem::path &file, Diagnostics &diagnostics, bool compile = true)
{
    const std::string name = file.string();
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    std::string text, error;
    if (!ec && size > kMaxSourceBytes) {
        addError(diagnostics, "input-too-large", name, "the file has " + std::to_string(size)
            + " bytes; Python sources above " + std::to_string(kMaxSourceBytes) + " bytes are refused");
    } else if (!readWholeFile(name, text, &error)) {
        addError(diagnostics, "io", name, error);
    } else if (text.size() > kMaxSourceBytes) {
        addError(diagnostics, "input-too-large", name, "the file grew past the size limit while being read");
    } else {
        return PythonModule::read(text, name, compile);
    }
    return nullptr;
}

// A checkout's diffsynth/models/ files, read when a model attribute's class is looked
// up (`from ..models.flux_dit import FluxDiT`): about a tenth of them for one pipeline.
class ModelFiles {
public:
    explicit ModelFiles(std::string folder) : m_folder(std::move(folder)) {}

    ModuleSet::Found<ClassDef> find(const PythonModule &from, const std::string &name)
    {
        const auto imported = from.imports().find(name.substr(0, name.find('.')));
        if (m_folder.empty() || imported == from.imports().end() || imported->second.name.empty())
            return {};
        const std::string &path = imported->second.module;
        const std::string file = path.substr(path.find_last_of('.') == std::string::npos ? 0 : path.find_last_of('.') + 1);
        auto it = m_loaded.find(file);
        if (it == m_loaded.end()) {
            Diagnostics ignored; // a model file that does not read is a model of unknown class
            it = m_loaded.emplace(file, readModule(std::filesystem::path(m_folder) / (file + ".py"), ignored, false)).first;
        }
        const ClassDef *cls = it->second && it->second->ok() ? it->second->findClass(imported->second.name) : nullptr;
        return {it->second.get(), cls};
    }

private:
    std::string m_folder;
    std::map<std::string, std::unique_ptr<PythonModule>> m_loaded;
};

ImportResult importModules(const ModuleSet &modules, const ImportOptions &options, Diagnostics diagnostics,
    const PythonModule *script = nullptr, const std::string &checkout = {})
{
    ImportResult result;
    result.diagnostics = std::move(diagnostics);
    for (const auto &m : modules.modules()) {
        if (!m->ok())
            addError(result.diagnostics, "python-syntax", m->fileName(), "Python syntax error: " + m->syntaxError(),
                m->syntaxErrorLine(), m->syntaxErrorColumn());
    }
    ImportContext context(modules, result.diagnostics);
    ModelFiles modelFiles(checkout.empty() ? std::string() : checkout + "/diffsynth/models");
    context.setClassLoader([&](const PythonModule &from, const std::string &name) { return modelFiles.find(from, name); });
    if (script) {
        importTrainingScript(context, *script, options, result);
        return result;
    }
    PipelineReader reader(context, options.lossName.empty() ? std::string(kDefaultLoss) : options.lossName);
    UnitReader units(context);

    std::vector<Candidate> candidates;
    std::map<const PythonModule *, int> perModule;
    for (const auto &m : modules.modules()) {
        for (const ClassDef &cls : m->classes()) {
            if (units.isUnitClass(*m, cls) || !reader.isPipelineClass(*m, cls))
                continue;
            candidates.push_back({m.get(), &cls});
            ++perModule[m.get()];
        }
    }
    if (!options.pipelineClass.empty()) {
        std::vector<Candidate> chosen;
        for (const Candidate &c : candidates) {
            if (c.cls->name == options.pipelineClass)
                chosen.push_back(c);
        }
        if (chosen.empty()) {
            std::string found;
            std::vector<std::string> classNames;
            for (const Candidate &c : candidates) {
                found += (found.empty() ? "" : ", ") + c.cls->name;
                classNames.push_back(c.cls->name);
            }
            const std::string hint = closestName(options.pipelineClass, classNames);
            const std::string where = modules.modules().size() == 1 ? modules.modules().front()->fileName() : std::string();
            addError(result.diagnostics, "unknown-pipeline-class", where,
                "no pipeline class named '" + options.pipelineClass + "'"
                    + (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
                    + (found.empty() ? std::string("; no pipeline class was found") : "; found: " + found));
            return result;
        }
        candidates = std::move(chosen);
    }

    std::set<std::string> names;
    for (const Candidate &c : candidates) {
        std::optional<Pipeline> p = reader.read(*c.module, *c.cls);
        if (!p)
            continue;
        // The file's name; with several pipelines in a file, the class's name, prefixed
        // with the file's unless it already starts with it (beta_video.py: beta_video, beta_video_edit).
        const std::string &stem = c.module->stem();
        const std::string snake = snakeCaseName(c.cls->name);
        std::string name = stem.empty() ? snake : stem;
        if (perModule[c.module] > 1 && !stem.empty())
            name = snake.rfind(stem, 0) == 0 ? snake : stem + "_" + snake;
        if (names.count(name)) {
            int n = 2;
            while (names.count(name + "_" + std::to_string(n)))
                ++n;
            name += "_" + std::to_string(n);
        }
        names.insert(name);
        reportFindings(context, *p);
        p->name = name;
        p->source = "imported from " + (c.module->fileName().empty() ? std::string("Python source") : c.module->fileName())
            + ", class " + c.cls->name + ", by Splitscope's DiffSynth importer";
        ImportedPipeline imported;
        imported.className = c.cls->name;
        imported.sourceFile = c.module->fileName();
        imported.pipeline = std::move(*p);
        imported.modelBindings = reader.modelBindings(*c.module, *c.cls);
        result.pipelines.push_back(std::move(imported));
    }
    if (result.pipelines.empty() && options.pipelineClass.empty()) {
        std::string files;
        for (const auto &m : modules.modules()) {
            if (files.size() < 200)
                files += (files.empty() ? "" : ", ") + m->fileName();
        }
        addError(result.diagnostics, "no-pipeline", modules.modules().size() == 1 ? files : std::string(),
            "no DiffSynth pipeline with units was found (a class deriving from BasePipeline that sets self.units)"
                + (modules.modules().size() == 1 ? std::string() : " in " + files));
    }
    return result;
}

} // namespace

bool ImportResult::ok() const
{
    return !pipelines.empty() && !hasErrors(diagnostics);
}

ImportResult importDiffSynthSource(std::string_view pythonSource, const std::string &fileName,
    const ImportOptions &options)
{
    if (pythonSource.size() > kMaxSourceBytes) {
        ImportResult result;
        addError(result.diagnostics, "input-too-large", fileName,
            "the file has " + std::to_string(pythonSource.size()) + " bytes; Python sources above "
                + std::to_string(kMaxSourceBytes) + " bytes are refused");
        return result;
    }
    ModuleSet modules;
    modules.add(PythonModule::read(pythonSource, fileName));
    return importModules(modules, options, {});
}

std::string findCheckout(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    // As given first (diagnostics keep the user's relative paths), then from the root.
    for (fs::path at : {fs::path(path), fs::absolute(path, ec)}) {
        if (!fs::is_directory(at, ec))
            at = at.parent_path();
        for (; !at.empty(); at = at.parent_path()) {
            if (fs::is_directory(at / "diffsynth" / "pipelines", ec))
                return at.string();
            if (at == at.parent_path())
                break;
        }
    }
    return {};
}

namespace {

// The .py files of `folder`, sorted; an error when it cannot be listed.
bool listPythonFiles(const std::filesystem::path &folder, std::vector<std::filesystem::path> &files, Diagnostics &diagnostics)
{
    std::error_code ec;
    std::vector<std::filesystem::path> found;
    std::filesystem::directory_iterator it(folder, ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        std::error_code entryError;
        if (it->path().extension() == ".py" && it->is_regular_file(entryError))
            found.push_back(it->path());
    }
    if (ec) {
        addError(diagnostics, "io", folder.string(), "cannot list the folder: " + ec.message());
        return false;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
    return true;
}

bool isTrainingScript(const PythonModule &module)
{
    for (const ClassDef &c : module.classes()) {
        for (const NodeId base : c.bases) {
            const std::string name = module.tree().dottedName(base);
            if (name == "DiffusionTrainingModule"
                || (name.size() > 24 && name.compare(name.size() - 24, 24, ".DiffusionTrainingModule") == 0))
                return true;
        }
    }
    return false;
}

} // namespace

ImportResult importDiffSynthPath(const std::string &fileOrDirectory, const ImportOptions &options)
{
    namespace fs = std::filesystem;
    ImportResult failed;
    std::error_code ec;
    const fs::path path(fileOrDirectory);
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        addError(failed.diagnostics, "io", fileOrDirectory, "no such file or folder");
        return failed;
    }
    Diagnostics diagnostics;
    ModuleSet modules;
    std::vector<fs::path> files;
    std::unique_ptr<PythonModule> script;
    std::string checkoutRoot;
    if (fs::is_regular_file(status)) {
        script = readModule(path, diagnostics);
        if (!script || !script->ok() || !isTrainingScript(*script)) {
            if (script)
                modules.add(std::move(script));
            if (modules.modules().empty()) {
                failed.diagnostics = std::move(diagnostics);
                return failed;
            }
            return importModules(modules, options, std::move(diagnostics));
        }
        const std::string checkout = findCheckout(fileOrDirectory);
        if (checkout.empty()) {
            addError(failed.diagnostics, "io", fileOrDirectory, "a train.py outside a DiffSynth-Studio checkout: no "
                "folder above it holds diffsynth/pipelines/, where the pipeline it trains is defined");
            return failed;
        }
        files.push_back(fs::path(checkout) / "diffsynth" / "pipelines");
        files.push_back(fs::path(checkout) / "diffsynth" / "diffusion");
        checkoutRoot = checkout;
    } else if (!fs::is_directory(status)) {
        addError(failed.diagnostics, "io", fileOrDirectory, "not a regular file or a folder");
        return failed;
    } else if (fs::is_directory(path / "diffsynth" / "pipelines", ec)) {
        // A DiffSynth-Studio checkout: its pipelines, and what they build on.
        files = {path / "diffsynth" / "pipelines", path / "diffsynth" / "diffusion"};
        checkoutRoot = path.string();
    } else {
        files = {path};
    }
    std::vector<fs::path> sources;
    for (const fs::path &folder : files) {
        if (folder != files.front() && !fs::is_directory(folder, ec))
            continue; // an older checkout without diffsynth/diffusion/
        if (!listPythonFiles(folder, sources, diagnostics) && folder == files.front()) {
            failed.diagnostics = std::move(diagnostics);
            return failed;
        }
    }
    if (sources.empty()) {
        addError(failed.diagnostics, "io", files.front().string(), "the folder has no .py files");
        return failed;
    }
    if (sources.size() > kMaxFolderFiles) {
        Diagnostic d;
        d.severity = Severity::Warning;
        d.code = "too-many-files";
        d.file = files.front().string();
        d.message = "the folder has " + std::to_string(sources.size()) + " .py files; only the first "
            + std::to_string(kMaxFolderFiles) + " (by name) are read";
        diagnostics.push_back(std::move(d));
        sources.resize(kMaxFolderFiles);
    }
    for (const fs::path &file : sources) {
        if (std::unique_ptr<PythonModule> m = readModule(file, diagnostics))
            modules.add(std::move(m));
    }
    const PythonModule *scriptModule = script.get();
    if (script)
        modules.add(std::move(script));
    if (modules.modules().empty()) {
        failed.diagnostics = std::move(diagnostics);
        return failed;
    }
    return importModules(modules, options, std::move(diagnostics), scriptModule, checkoutRoot);
}

} // namespace splitscope::importer
