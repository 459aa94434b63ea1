// SPDX-License-Identifier: MIT
#pragma once

#include "Diagnostic.h"
#include "Pipeline.h"

#include <optional>
#include <string>
#include <string_view>

namespace splitscope {

// Reading and writing `splitscope.pipeline/1` documents (DESIGN.md §2).
//
// Loading never throws and never crashes on bad input: every problem becomes a
// Diagnostic naming the file, the JSON path (of the element itself: `units[1].input_params[1]`,
// indexes counted in the document) and the line:column, the column counted in Unicode code
// points (JsonReader.h). Codes:
//   errors   io, json-syntax, wrong-type, wrong-format, missing-key, missing-name,
//            empty-name, duplicate-unit, duplicate-key, empty-pipeline,
//            out-of-range (a number larger than a double can hold)
//   warnings string-as-list (the DiffSynth trailing-comma pitfall), unknown-key,
//            unknown-model, duplicate-model, duplicate-output, control-character (a
//            unit's name, param, argument or model name holding one; at the field)
//   info     external-input (a param read but produced by no unit), no-loss
// With any error, `pipeline` is empty. A value with a wrong type gets that one error,
// not others about the same value ("empty", "missing").
//
// Names must not be empty: unit, model (both forms), param (list elements, posi/nega
// values, loss inputs), posi/nega argument keys and onload model names. The training
// fields may be "" (no model, as on DiffSynth's command line), and so may `loss.name`.
//
// Saving writes the canonical form (one-space indent, keys in the documented order,
// unknown keys kept verbatim), so loading a saved document and saving it again gives
// the same bytes, and every shipped example loads and saves to itself.

struct LoadResult {
    std::optional<Pipeline> pipeline;
    Diagnostics diagnostics;
    bool ok() const { return pipeline.has_value(); }
};

LoadResult parsePipeline(std::string_view text, const std::string &fileName = {});
LoadResult loadPipelineFile(const std::string &path);

std::string serializePipeline(const Pipeline &pipeline);
// Atomic (AtomicFile.h); false with `error` naming the path on failure.
bool savePipelineFile(const Pipeline &pipeline, const std::string &path, std::string *error = nullptr);

} // namespace splitscope
