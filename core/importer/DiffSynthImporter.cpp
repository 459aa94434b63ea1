// SPDX-License-Identifier: MIT
#include "DiffSynthImporter.h"

#include "ImportContext.h"
#include "PipelineReader.h"
#include "TrainingScript.h"
#include "UnitReader.h"

#include "core/AtomicFile.h"
#include "core/Explain.h"
#include "core/NameSuggestion.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

namespace splitscope::importer {

namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string &text, const std::string &suffix)
{
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void addError(Diagnostics &diagnostics, const char *code, const std::string &file, std::string message, int line = 0,
    int column = 0)
{
    diagnostics.push_back({Severity::Error, code, file, {}, line, column, std::move(message)});
}

ImportResult failure(const char *code, const std::string &file, std::string message)
{
    return ImportResult{{}, {Diagnostic{Severity::Error, code, file, {}, 0, 0, std::move(message)}}};
}

std::string tooLarge(std::uintmax_t size)
{
    return "the file has " + std::to_string(size) + " bytes; Python sources above " + std::to_string(kMaxSourceBytes)
        + " bytes are refused";
}

// "QwenImagePipeline" -> "qwen_image"
std::string snakeCaseName(std::string name)
{
    const std::string suffix = "Pipeline";
    if (name.size() > suffix.size() && endsWith(name, suffix))
        name.resize(name.size() - suffix.size());
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto at = [&](std::size_t j) { return static_cast<unsigned char>(name[j]); };
        const bool nextLower = i + 1 < name.size() && std::islower(at(i + 1));
        if (i > 0 && std::isupper(at(i))
            && (std::islower(at(i - 1)) || std::isdigit(at(i - 1)) || (std::isupper(at(i - 1)) && nextLower)))
            out += '_';
        out += static_cast<char>(std::tolower(at(i)));
    }
    return out;
}

// What the bodies do beyond the declarations, said where it is written (info: the split says which of it matters
// for the training chosen).
void reportFindings(ImportContext &context, const Pipeline &pipeline)
{
    const PipelineGraph graph(pipeline);
    for (const DeclarationFinding &f : graph.declarationFindings()) {
        const PythonModule *at = context.modules().modules().front().get();
        for (const auto &m : context.modules().modules()) {
            if (!f.file.empty() && endsWith(m->fileName(), f.file))
                at = m.get();
        }
        context.report(Severity::Info, declarationFindingName(f.kind), *at, f.line, 0, graph.unitName(f.unit),
            declarationFindingText(graph, f));
    }
}

void addPipeline(ImportContext &context, const PipelineReader &reader, const PythonModule &module, const ClassDef &cls,
    Pipeline pipeline, const std::string &name, const std::string &from, ImportResult &result)
{
    reportFindings(context, pipeline);
    pipeline.name = name;
    pipeline.source = "imported from " + from + ", class " + cls.name + ", by Splitscope's DiffSynth importer";
    result.pipelines.push_back({cls.name, module.fileName(), std::move(pipeline), reader.modelBindings(module, cls)});
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
            ts->moduleClass
                + (ts->pipelineName.empty() ? " never sets self.pipe = SomePipeline.from_pretrained(...)"
                                            : " trains " + ts->pipelineName
                                + ", which the checkout's diffsynth/pipelines/ does not define"),
            ts->line);
        return;
    }
    const auto flag = [&](const char *name) {
        const auto it = options.flags.find(name);
        return it == options.flags.end() ? std::optional<std::string>() : it->second;
    };
    const std::string task = flag("task").value_or("sft");
    const std::string taskLoss = options.lossName.empty() ? lossForTask(*ts, task) : options.lossName;
    const std::string loss = taskLoss.empty() ? kDefaultLoss : taskLoss;
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
    const PythonModule &module = *ts->pipeline.module;
    PipelineReader reader(context, loss);
    std::optional<Pipeline> p = reader.read(module, *ts->pipeline.item, added);
    if (!p)
        return;
    const TrainingConfig training{flag("lora_base_model"), flag("trainable_models"), {}};
    if (training.loraBaseModel || training.trainableModels)
        p->training = training;
    addPipeline(context, reader, module, *ts->pipeline.item, std::move(*p), module.stem(),
        script.fileName() + " (" + ts->moduleClass + ", task " + task + ") and " + module.fileName(), result);
}

std::unique_ptr<PythonModule> readModule(const fs::path &file, Diagnostics &diagnostics, bool compile = true)
{
    const std::string name = file.string();
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    std::string text;
    std::string error;
    if (!ec && size > kMaxSourceBytes)
        addError(diagnostics, "input-too-large", name, tooLarge(size));
    else if (!readWholeFile(name, text, &error))
        addError(diagnostics, "io", name, error);
    else if (text.size() > kMaxSourceBytes)
        addError(diagnostics, "input-too-large", name, "the file grew past the size limit while being read");
    else
        return PythonModule::read(text, name, compile);
    return nullptr;
}

ImportResult importModules(const ModuleSet &modules, const ImportOptions &options, Diagnostics diagnostics,
    const PythonModule *script = nullptr, const std::string &checkout = {})
{
    ImportResult result{{}, std::move(diagnostics)};
    for (const auto &m : modules.modules()) {
        if (!m->ok())
            addError(result.diagnostics, "python-syntax", m->fileName(), "Python syntax error: " + m->syntaxError(),
                m->syntaxErrorLine(), m->syntaxErrorColumn());
    }
    // A checkout's diffsynth/models/ files are read when a model attribute's class is looked up (`from
    // ..models.flux_dit import FluxDiT`): about a tenth of them for one pipeline.
    std::map<std::string, std::unique_ptr<PythonModule>> modelFiles;
    ImportContext context(modules, result.diagnostics);
    context.setClassLoader([&](const PythonModule &from, const std::string &name) -> ModuleSet::Found<ClassDef> {
        const auto imported = from.imports().find(name.substr(0, name.find('.')));
        if (checkout.empty() || imported == from.imports().end() || imported->second.name.empty())
            return {};
        const std::string file = lastComponent(imported->second.module);
        auto it = modelFiles.find(file);
        if (it == modelFiles.end()) {
            Diagnostics ignored; // a model file that does not read is a model of unknown class
            const fs::path path = fs::path(checkout + "/diffsynth/models") / (file + ".py");
            it = modelFiles.emplace(file, readModule(path, ignored, false)).first;
        }
        const ClassDef *cls = it->second && it->second->ok() ? it->second->findClass(imported->second.name) : nullptr;
        return {it->second.get(), cls};
    });
    if (script) {
        importTrainingScript(context, *script, options, result);
        return result;
    }
    PipelineReader reader(context, options.lossName.empty() ? std::string(kDefaultLoss) : options.lossName);
    UnitReader units(context);
    std::vector<std::pair<const PythonModule *, const ClassDef *>> chosen;
    std::map<const PythonModule *, int> perModule;
    std::vector<std::string> classNames;
    for (const auto &m : modules.modules()) {
        for (const ClassDef &cls : m->classes()) {
            if (units.isUnitClass(*m, cls) || !reader.isPipelineClass(*m, cls))
                continue;
            classNames.push_back(cls.name);
            ++perModule[m.get()];
            if (options.pipelineClass.empty() || cls.name == options.pipelineClass)
                chosen.emplace_back(m.get(), &cls);
        }
    }
    if (chosen.empty() && !options.pipelineClass.empty()) {
        const std::string hint = closestName(options.pipelineClass, classNames);
        addError(result.diagnostics, "unknown-pipeline-class",
            modules.modules().size() == 1 ? modules.modules().front()->fileName() : std::string(),
            "no pipeline class named '" + options.pipelineClass + "'"
                + (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
                + (classNames.empty() ? std::string("; no pipeline class was found")
                                      : "; found: " + joined(classNames, ", ")));
        return result;
    }
    std::set<std::string> names;
    for (const auto &[module, cls] : chosen) {
        std::optional<Pipeline> p = reader.read(*module, *cls);
        if (!p)
            continue;
        // The file's name; with several pipelines in a file, the class's name, prefixed with the file's unless it
        // already starts with it (beta_video.py: beta_video, beta_video_edit).
        const std::string &stem = module->stem();
        const std::string snake = snakeCaseName(cls->name);
        std::string name = stem.empty() ? snake : stem;
        if (perModule[module] > 1 && !stem.empty())
            name = snake.rfind(stem, 0) == 0 ? snake : stem + "_" + snake;
        if (names.count(name)) {
            int n = 2;
            while (names.count(name + "_" + std::to_string(n)))
                ++n;
            name += "_" + std::to_string(n);
        }
        names.insert(name);
        addPipeline(context, reader, *module, *cls, std::move(*p), name,
            module->fileName().empty() ? std::string("Python source") : module->fileName(), result);
    }
    if (result.pipelines.empty() && options.pipelineClass.empty()) {
        std::string files;
        for (const auto &m : modules.modules()) {
            if (files.size() < 200)
                files += (files.empty() ? "" : ", ") + m->fileName();
        }
        const bool one = modules.modules().size() == 1;
        addError(result.diagnostics, "no-pipeline", one ? files : std::string(),
            "no DiffSynth pipeline with units was found (a class deriving from BasePipeline that sets self.units)"
                + (one ? std::string() : " in " + files));
    }
    return result;
}

// The .py files of `folder`, sorted; an error when it cannot be listed.
bool listPythonFiles(const fs::path &folder, std::vector<fs::path> &files, Diagnostics &diagnostics)
{
    std::error_code ec;
    std::vector<fs::path> found;
    for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
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
            if (name == "DiffusionTrainingModule" || endsWith(name, ".DiffusionTrainingModule"))
                return true;
        }
    }
    return false;
}

} // namespace

ImportResult importDiffSynthSource(std::string_view pythonSource, const std::string &fileName,
    const ImportOptions &options)
{
    if (pythonSource.size() > kMaxSourceBytes)
        return failure("input-too-large", fileName, tooLarge(pythonSource.size()));
    ModuleSet modules;
    modules.add(PythonModule::read(pythonSource, fileName));
    return importModules(modules, options, {});
}

std::string findCheckout(const std::string &path)
{
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

ImportResult importDiffSynthPath(const std::string &fileOrDirectory, const ImportOptions &options)
{
    std::error_code ec;
    const fs::path path(fileOrDirectory);
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return failure("io", fileOrDirectory, "no such file or folder");
    Diagnostics diagnostics;
    ModuleSet modules;
    std::unique_ptr<PythonModule> script;
    std::string checkout;
    if (fs::is_regular_file(status)) {
        script = readModule(path, diagnostics);
        if (!script)
            return ImportResult{{}, std::move(diagnostics)};
        if (!script->ok() || !isTrainingScript(*script)) {
            modules.add(std::move(script));
            return importModules(modules, options, std::move(diagnostics));
        }
        checkout = findCheckout(fileOrDirectory);
        if (checkout.empty())
            return failure("io", fileOrDirectory, "a train.py outside a DiffSynth-Studio checkout: no folder above it "
                "holds diffsynth/pipelines/, where the pipeline it trains is defined");
    } else if (!fs::is_directory(status)) {
        return failure("io", fileOrDirectory, "not a regular file or a folder");
    } else if (fs::is_directory(path / "diffsynth" / "pipelines", ec)) {
        checkout = path.string();
    }
    // A DiffSynth-Studio checkout is read in its pipelines, and what they build on.
    std::vector<fs::path> folders = {path};
    if (!checkout.empty())
        folders = {fs::path(checkout) / "diffsynth" / "pipelines", fs::path(checkout) / "diffsynth" / "diffusion"};
    std::vector<fs::path> sources;
    for (const fs::path &folder : folders) {
        if (folder != folders.front() && !fs::is_directory(folder, ec))
            continue; // an older checkout without diffsynth/diffusion/
        if (!listPythonFiles(folder, sources, diagnostics) && folder == folders.front())
            return ImportResult{{}, std::move(diagnostics)};
    }
    if (sources.empty())
        return failure("io", folders.front().string(), "the folder has no .py files");
    if (sources.size() > kMaxFolderFiles) {
        diagnostics.push_back({Severity::Warning, "too-many-files", folders.front().string(), {}, 0, 0,
            "the folder has " + std::to_string(sources.size()) + " .py files; only the first "
                + std::to_string(kMaxFolderFiles) + " (by name) are read"});
        sources.resize(kMaxFolderFiles);
    }
    for (const fs::path &file : sources) {
        if (std::unique_ptr<PythonModule> m = readModule(file, diagnostics))
            modules.add(std::move(m));
    }
    const PythonModule *scriptModule = script.get();
    if (script)
        modules.add(std::move(script));
    if (modules.modules().empty())
        return ImportResult{{}, std::move(diagnostics)};
    return importModules(modules, options, std::move(diagnostics), scriptModule, checkout);
}

} // namespace splitscope::importer
