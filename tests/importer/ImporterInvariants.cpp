// SPDX-License-Identifier: MIT
#include "ImporterInvariants.h"

#include "core/PipelineFile.h"
#include "core/importer/DiffSynthImporter.h"

#include <set>
#include <vector>

namespace splitscope::importer::testing {

std::string checkImporterInvariants(std::string_view source)
{
    const std::string fileName = "input.py";
    // An exact-size copy: no terminating NUL behind the text hides a read past its end
    // (AddressSanitizer reports it in the fuzzing build).
    const std::vector<char> exact(source.begin(), source.end());
    const ImportResult result = importDiffSynthSource(std::string_view(exact.data(), exact.size()), fileName);
    if (result.ok() != (!result.pipelines.empty() && !hasErrors(result.diagnostics)))
        return "ok() disagrees with the pipelines and the errors";
    for (const Diagnostic &d : result.diagnostics) {
        if (d.code.empty() || d.message.empty())
            return "a diagnostic without a code or a message: " + d.toString();
        if (d.file != fileName && d.code != "too-many-diagnostics")
            return "a diagnostic that does not name the file: " + d.toString();
        if (d.line < 0 || d.column < 0)
            return "a diagnostic with a negative position: " + d.toString();
    }
    for (const ImportedPipeline &imported : result.pipelines) {
        const Pipeline &p = imported.pipeline;
        if (p.units.empty())
            return "a pipeline without units: " + imported.className;
        std::set<std::string> names;
        for (const Unit &u : p.units) {
            if (u.name.empty() || !names.insert(u.name).second)
                return "an empty or repeated unit name in " + imported.className + ": '" + u.name + "'";
        }
        std::string text;
        try {
            text = serializePipeline(p);
        } catch (const std::exception &e) {
            return "serializing " + imported.className + " threw: " + e.what();
        }
        const LoadResult loaded = parsePipeline(text, p.name + ".json");
        if (!loaded.ok() || hasErrors(loaded.diagnostics)) {
            std::string why;
            for (const Diagnostic &d : loaded.diagnostics)
                why += "\n  " + d.toString();
            return "the description of " + imported.className + " does not load back:" + why + "\n" + text;
        }
        if (serializePipeline(*loaded.pipeline) != text)
            return "the description of " + imported.className + " does not save back to the same bytes";
    }
    return {};
}

} // namespace splitscope::importer::testing
