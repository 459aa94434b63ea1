// SPDX-License-Identifier: MIT
#include "DiffSynthImporter.h"

#include "ImportContext.h"
#include "core/NameSuggestion.h"
#include "PipelineReader.h"
#include "UnitReader.h"

#include "core/AtomicFile.h"

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

ImportResult importModules(const ModuleSet &modules, const ImportOptions &options, Diagnostics diagnostics)
{
    ImportResult result;
    result.diagnostics = std::move(diagnostics);
    for (const auto &m : modules.modules()) {
        if (!m->ok())
            addError(result.diagnostics, "python-syntax", m->fileName(), "Python syntax error: " + m->syntaxError(),
                m->syntaxErrorLine(), m->syntaxErrorColumn());
    }
    ImportContext context(modules, result.diagnostics);
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
        p->name = name;
        p->source = "imported from " + (c.module->fileName().empty() ? std::string("Python source") : c.module->fileName())
            + ", class " + c.cls->name + ", by Splitscope's DiffSynth importer";
        ImportedPipeline imported;
        imported.className = c.cls->name;
        imported.sourceFile = c.module->fileName();
        imported.pipeline = std::move(*p);
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

ImportResult importDiffSynthPath(const std::string &fileOrDirectory, const ImportOptions &options)
{
    namespace fs = std::filesystem;
    Diagnostics diagnostics;
    std::error_code ec;
    fs::path path(fileOrDirectory);
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        ImportResult result;
        addError(result.diagnostics, "io", fileOrDirectory, "no such file or folder");
        return result;
    }
    std::vector<fs::path> files;
    if (fs::is_directory(status)) {
        // A DiffSynth-Studio checkout: its pipelines live in diffsynth/pipelines/.
        const fs::path nested = path / "diffsynth" / "pipelines";
        if (fs::is_directory(nested, ec))
            path = nested;
        fs::directory_iterator it(path, ec);
        for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
            std::error_code entryError;
            if (it->path().extension() == ".py" && it->is_regular_file(entryError))
                files.push_back(it->path());
        }
        if (ec) {
            ImportResult result;
            addError(result.diagnostics, "io", path.string(), "cannot list the folder: " + ec.message());
            return result;
        }
        std::sort(files.begin(), files.end());
        if (files.empty()) {
            ImportResult result;
            addError(result.diagnostics, "io", path.string(), "the folder has no .py files");
            return result;
        }
        if (files.size() > kMaxFolderFiles) {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.code = "too-many-files";
            d.file = path.string();
            d.message = "the folder has " + std::to_string(files.size()) + " .py files; only the first "
                + std::to_string(kMaxFolderFiles) + " (by name) are read";
            diagnostics.push_back(std::move(d));
            files.resize(kMaxFolderFiles);
        }
    } else if (fs::is_regular_file(status)) {
        files.push_back(path);
    } else {
        ImportResult result;
        addError(result.diagnostics, "io", fileOrDirectory, "not a regular file or a folder");
        return result;
    }

    ModuleSet modules;
    for (const fs::path &file : files) {
        const std::string name = file.string();
        const std::uintmax_t size = fs::file_size(file, ec);
        if (!ec && size > kMaxSourceBytes) {
            addError(diagnostics, "input-too-large", name,
                "the file has " + std::to_string(size) + " bytes; Python sources above " + std::to_string(kMaxSourceBytes)
                    + " bytes are refused");
            continue;
        }
        std::string text;
        std::string error;
        if (!readWholeFile(name, text, &error)) {
            addError(diagnostics, "io", name, error);
            continue;
        }
        if (text.size() > kMaxSourceBytes) {
            addError(diagnostics, "input-too-large", name, "the file grew past the size limit while being read");
            continue;
        }
        modules.add(PythonModule::read(text, name));
    }
    if (modules.modules().empty()) {
        ImportResult result;
        result.diagnostics = std::move(diagnostics);
        return result;
    }
    return importModules(modules, options, std::move(diagnostics));
}

} // namespace splitscope::importer
