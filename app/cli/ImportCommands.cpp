// SPDX-License-Identifier: MIT
// splitscope-cli import-diffsynth FILE.py|DIR [--pipeline CLASS] [-o OUT.json | --output-dir DIR]
#include "ImportCommands.h"

#include "ArgParser.h"
#include "Commands.h"
#include "PipelineArgument.h"
#include "StandardStreams.h"

#include "core/AtomicFile.h"
#include "core/NameSuggestion.h"
#include "core/PipelineFile.h"
#include "core/importer/DiffSynthImporter.h"
#include "core/importer/PipelineReader.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <filesystem>
#include <sys/stat.h>

namespace splitscope::cli {

namespace {

// The README and the issue spell the output flag `-o`; ArgParser takes long flags only.
Args expandShortFlags(const Args &args)
{
    Args out;
    for (const std::string &a : args) {
        if (a == "-o")
            out.push_back("--output");
        else if (a.rfind("-o=", 0) == 0)
            out.push_back("--output=" + a.substr(3));
        else
            out.push_back(a);
    }
    return out;
}

// The text to write, checked to load back without errors (an importer bug otherwise).
bool serializeChecked(const importer::ImportedPipeline &imported, std::string &text)
{
    text = serializePipeline(imported.pipeline);
    if (text.empty() || text.back() != '\n')
        text += '\n';
    const LoadResult reloaded = parsePipeline(text, imported.pipeline.name + ".json");
    if (reloaded.ok())
        return true;
    std::fprintf(stderr, "splitscope-cli import-diffsynth: internal error: the description of %s does not load back:\n",
        imported.className.c_str());
    printDiagnostics(reloaded.diagnostics, false);
    return false;
}

void printSummary(const importer::ImportedPipeline &imported, const std::string &to)
{
    const Pipeline &p = imported.pipeline;
    const std::size_t stochastic = static_cast<std::size_t>(
        std::count_if(p.units.begin(), p.units.end(), [](const Unit &u) { return u.isStochastic(); }));
    std::fprintf(stderr, "%s: class %s -> %s (%s, %s, %zu stochastic)\n", imported.sourceFile.c_str(),
        imported.className.c_str(), to.c_str(), countText(p.units.size(), "unit").c_str(),
        countText(p.models.size(), "model").c_str(), stochastic);
}

// The .py files an import of the folder SOURCE reads, as the importer finds them
// (DiffSynthImporter.h): those of the folder, or of its diffsynth/pipelines/ in a
// DiffSynth-Studio checkout. Empty when SOURCE is not a folder.
std::vector<std::string> folderSources(const std::string &source)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::is_directory(source, ec))
        return files;
    fs::path folder(source);
    if (fs::is_directory(folder / "diffsynth" / "pipelines", ec))
        folder /= fs::path("diffsynth") / "pipelines";
    fs::directory_iterator it(folder, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        std::error_code entryError;
        if (it->path().extension() == ".py" && it->is_regular_file(entryError))
            files.push_back(it->path().string());
    }
    return files;
}

// Writing `output` would replace one of the .py files the folder SOURCE reads: the same
// file by any name (a symbolic link to it, a hard link). The usage error's message, or
// an empty string. (A file SOURCE is outputPathProblem's.)
std::string outputIsAFolderSource(const std::string &flag, const std::string &output, const std::string &source,
    const std::vector<std::string> &sources)
{
    struct stat out {};
    if (::stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode))
        return {}; // a new file, or a device: no source is replaced
    for (const std::string &file : sources) {
        struct stat in {};
        if (::stat(file.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return "--" + flag + ": '" + output + "' is one of the .py files read from '" + source + "' ('" + file
                + "'); writing would overwrite it";
    }
    return {};
}

// Takes the train.py flags after `--` (a training command's, SOURCE being its
// train.py) out of `args`: they decide the units it adds (--template_model_id_or_path),
// the loss (--task) and the training block (--lora_base_model, --trainable_models).
// An error message, or "".
std::string takeScriptFlags(Args &args, std::map<std::string, std::string> &flags)
{
    const auto dashes = std::find(args.begin(), args.end(), "--");
    if (dashes == args.end())
        return {};
    for (auto it = dashes + 1; it != args.end(); ++it) {
        if (it->rfind("--", 0) != 0 || it->size() == 2)
            return "after --: '" + *it + "' is not a train.py flag (--name [value])";
        std::string name = it->substr(2), value = "true";
        if (name.find('=') != std::string::npos) {
            value = name.substr(name.find('=') + 1);
            name.resize(name.find('='));
        } else if (it + 1 != args.end() && (it + 1)->rfind("--", 0) != 0) {
            value = *++it;
        }
        if (!flags.emplace(name, value).second)
            return "after --: --" + name + " is given more than once";
    }
    args.erase(dashes, args.end());
    return {};
}

// An --loss that names no loss found or known: a loss of one's own is allowed (its
// reads are then model_fn's parameters only), so a warning, said once for the flag
// rather than once per pipeline class.
void warnUnknownLoss(importer::ImportResult &result, const std::string &lossName, const std::string &losses)
{
    auto &ds = result.diagnostics;
    if (std::none_of(ds.begin(), ds.end(), [](const Diagnostic &d) { return d.code == "unknown-loss"; }))
        return;
    std::vector<std::string> lossNames;
    for (const importer::KnownLoss &l : importer::knownLosses())
        lossNames.push_back(l.name);
    const std::string hint = closestName(lossName, lossNames);
    std::fprintf(stderr,
        "splitscope-cli import-diffsynth: warning: --loss: '%s' is neither in the imported files nor a loss this "
        "importer knows (%s)%s; each description's loss then declares only model_fn's parameters as its reads\n",
        lossName.c_str(), losses.c_str(), hint.empty() ? "" : ("; did you mean '" + hint + "'?").c_str());
    ds.erase(std::remove_if(ds.begin(), ds.end(), [](const Diagnostic &d) { return d.code == "unknown-loss"; }),
        ds.end());
}

// --output-dir: each pipeline to DIR/NAME.json.
int writeEachPipeline(const ArgParser &p, const importer::ImportResult &result, const std::string &dir,
    const std::string &source, const std::vector<std::string> &sources, bool errors)
{
    // Every file's name is known before the first write: one that is a source by another
    // name (DIR/NAME.json -> SOURCE/NAME.py, DIR being SOURCE or not) refuses the whole import.
    std::vector<std::string> paths;
    for (const importer::ImportedPipeline &imported : result.pipelines) {
        paths.push_back((std::filesystem::path(dir) / (imported.pipeline.name + ".json")).string());
        std::string problem = outputPathProblem("output-dir", paths.back(), source);
        if (problem.empty())
            problem = outputIsAFolderSource("output-dir", paths.back(), source, sources);
        if (!problem.empty())
            return p.usageError("import-diffsynth", problem + "; nothing was written");
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        std::fprintf(stderr, "splitscope-cli import-diffsynth: --output-dir: cannot create '%s': %s\n", dir.c_str(),
            ec.message().c_str());
        return kExitFailure;
    }
    int status = errors ? kExitUsage : kExitOk;
    for (std::size_t i = 0; i < result.pipelines.size(); ++i) {
        const importer::ImportedPipeline &imported = result.pipelines[i];
        std::string text;
        if (!serializeChecked(imported, text))
            return kExitFailure;
        const std::string &path = paths[i];
        std::string error;
        if (!writeFileAtomically(path, text, &error)) {
            std::fprintf(stderr, "splitscope-cli import-diffsynth: --output-dir: %s\n", error.c_str());
            status = kExitFailure;
            continue;
        }
        printSummary(imported, path);
    }
    return status;
}

} // namespace

int runImportDiffSynth(const Args &rawArgs)
{
    std::string losses;
    for (const importer::KnownLoss &l : importer::knownLosses())
        losses += (losses.empty() ? "" : ", ") + l.name;
    ArgParser p;
    p.positional("SOURCE", "a DiffSynth-Studio pipeline .py file, a folder of them, a checkout, or an example's "
                           "train.py in a checkout (then: -- TRAIN.PY FLAGS)");
    p.option("pipeline", "CLASS", "import only this pipeline class (default: every one found)");
    p.option("output", "OUT.json", "write the description to OUT.json, atomically (short: -o); default: standard output");
    p.option("output-dir", "DIR", "write each pipeline to DIR/NAME.json (DIR is created when missing)");
    p.option("loss", "NAME", "the loss whose reads the description declares (default: the loss a train.py's task "
                             "trains with, else FlowMatchSFTLoss; read from the checkout's loss.py, or known: " + losses + ")");
    p.flag("verbose", "also print informational diagnostics (what process() bodies do beyond their declarations, "
                      "inferred stochastic units, attributes not taken as models)");
    p.flag("help", "show this help");
    Args own = rawArgs;
    std::map<std::string, std::string> scriptFlags;
    if (const std::string problem = takeScriptFlags(own, scriptFlags); !problem.empty())
        return p.usageError("import-diffsynth", problem);
    const Args args = expandShortFlags(own);
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        writeOut(p.usage("splitscope-cli import-diffsynth"));
        writeOut("\nWarnings name what the reader could not resolve (file:line: computed arguments, unknown base\n"
                 "classes, units built in loops); nothing is left out without one. Exit status: 0 imported,\n"
                 "1 could not write, 2 bad input (nothing imported, or errors in some files).\n");
        return kExitOk;
    }
    if (!p.parse(args))
        return p.usageError("import-diffsynth", p.error());
    if (p.has("output") && p.has("output-dir"))
        return p.usageError("import-diffsynth", "--output writes one pipeline and --output-dir one file per pipeline; give only one");
    if (const auto v = p.value("output"); v && v->empty())
        return p.usageError("import-diffsynth", "--output needs a file name");
    const std::string &source = p.positionals().front();
    const std::vector<std::string> sources = folderSources(source);
    if (const auto v = p.value("output")) {
        if (const std::string problem = outputPathProblem("output", *v, source); !problem.empty())
            return p.usageError("import-diffsynth", problem);
        if (const std::string problem = outputIsAFolderSource("output", *v, source, sources); !problem.empty())
            return p.usageError("import-diffsynth", problem);
    }
    if (const auto v = p.value("output-dir"); v && v->empty())
        return p.usageError("import-diffsynth", "--output-dir needs a folder name");

    importer::ImportOptions options;
    options.pipelineClass = p.valueOr("pipeline", "");
    options.lossName = p.valueOr("loss", "");
    options.flags = scriptFlags;
    importer::ImportResult result = importer::importDiffSynthPath(source, options);
    warnUnknownLoss(result, options.lossName, losses);
    for (Diagnostic &d : result.diagnostics) {
        // A finding about the whole import names no file: it is about SOURCE, and a
        // class that --pipeline names and SOURCE lacks is the flag's.
        if (d.file.empty())
            d.file = source;
        if (d.code == "unknown-pipeline-class")
            d.message = "--pipeline: " + d.message;
    }
    printDiagnostics(result.diagnostics, p.has("verbose"));
    const bool errors = hasErrors(result.diagnostics);
    if (result.pipelines.empty())
        return kExitUsage;

    if (const auto dir = p.value("output-dir"))
        return writeEachPipeline(p, result, *dir, source, sources, errors);

    if (result.pipelines.size() > 1) {
        std::string classes;
        for (const importer::ImportedPipeline &imported : result.pipelines)
            classes += (classes.empty() ? "" : ", ") + imported.className;
        return p.usageError("import-diffsynth", std::to_string(result.pipelines.size()) + " pipelines were found (" + classes
                + "); choose one with --pipeline CLASS, or write them all with --output-dir DIR");
    }
    const importer::ImportedPipeline &imported = result.pipelines.front();
    std::string text;
    if (!serializeChecked(imported, text))
        return kExitFailure;
    if (const auto out = p.value("output")) {
        std::string error;
        if (!writeFileAtomically(*out, text, &error)) {
            std::fprintf(stderr, "splitscope-cli import-diffsynth: --output: %s\n", error.c_str());
            return kExitFailure;
        }
        printSummary(imported, *out);
    } else {
        writeOut(text);
        printSummary(imported, "standard output");
    }
    return errors ? kExitUsage : kExitOk;
}

void addImportCommands(std::vector<Command> &commands)
{
    commands.push_back({"import-diffsynth", "read DiffSynth-Studio pipeline sources (.py) into pipeline descriptions",
        runImportDiffSynth});
}

} // namespace splitscope::cli
