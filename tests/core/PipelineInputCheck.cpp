// SPDX-License-Identifier: MIT
#include "PipelineInputCheck.h"

#include "core/PipelineFile.h"
#include "core/SplitReport.h"

using namespace splitscope;

std::string checkPipelineInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const LoadResult first = parsePipeline(text, "fuzz.json");
    for (const Diagnostic &d : first.diagnostics) {
        if (d.message.empty() || d.code.empty())
            return "a diagnostic without code or message";
    }
    if (!first.ok()) {
        if (!hasErrors(first.diagnostics))
            return "rejected without an error";
        return {};
    }
    const std::string saved = serializePipeline(*first.pipeline);
    const LoadResult second = parsePipeline(saved, "saved.json");
    if (!second.ok())
        return "a saved document does not load again: " + second.diagnostics.front().toString();
    if (serializePipeline(*second.pipeline) != saved)
        return "load -> save -> load -> save changed the text";

    const PipelineGraph graph(*first.pipeline);
    const auto models = first.pipeline->trainingOrDefault().modelsRequiringBackward();
    for (const SplitMode mode : {SplitMode::Seed, SplitMode::Safe}) {
        const SplitAnalysis a = analyzeSplit(graph, models, mode);
        if (mode == SplitMode::Safe && !a.verification.hazardFree())
            return "the safe split has a hazard";
        if (!a.verification.satisfiesConditions())
            return std::string(splitModeName(mode)) + " split breaks C1 or C2";
        splitToJson(graph, a);
        splitToDot(graph, a);
        for (UnitId u = 0; u < graph.unitCount(); ++u)
            explainUnit(graph, a.split, u);
    }
    return {};
}
