// SPDX-License-Identifier: MIT
#pragma once

#include "Diagnostic.h"
#include "Pipeline.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace splitscope {

// Reading and writing `splitscope.pipeline/1` documents (DESIGN.md §2).
//
// Loading never throws and never crashes on bad input: every problem becomes a
// Diagnostic naming the file, the JSON path (of the element itself: `units[1].input_params[1]`,
// indexes counted in the document) and the line:column, the column counted in Unicode code
// points (JsonReader.h). A diagnostic about one name of a list or map points at that
// name (`units[0].output_params[3]`), not at the list. Codes:
//   errors   io (cannot read, or not a file that can be read: a folder, a device),
//            input-too-large (above kMaxPipelineBytes), out-of-memory, json-syntax,
//            wrong-type, wrong-format, missing-key, missing-name, empty-name,
//            duplicate-unit, duplicate-key (anywhere, also inside unknown keys' values),
//            empty-pipeline, out-of-range (a number larger than a double can hold)
//   warnings string-as-list (the DiffSynth trailing-comma pitfall; for
//            onload_model_names, DiffSynth's substring test), substring-model (a string
//            onload_model_names that contains other listed models' names), unknown-key,
//            unknown-model, duplicate-model, duplicate-output, control-character (the
//            pipeline's, a unit's, a param's, an argument's, a model's or the loss's
//            name holding one), possible-typo (a param read, by a unit or the loss, that
//            no unit produces but that is a small edit away from one a unit does:
//            TypoFinder in NameSuggestion.h; given instead of external-input)
//   info     external-input (a param read but produced by no unit), no-loss; these
//            and possible-typo are not given when the document has errors
// With any error, `pipeline` is empty. A value with a wrong type gets that one error,
// not others about the same value ("empty", "missing"); malformed JSON (nesting deeper
// than JsonReader::kMaxDepth included, wherever it is) gets only the syntax error.
// Diagnostics come in the file's order, by line and column, whatever their severity
// (for one place, in the order found); those without a place (no-loss) last.
//
// Optional facts the DiffSynth importer read from a unit's process() (`uses_models`,
// `reads`, `returns`: lists of {"model"|"param", "file", "line"}, returns also "from" and
// "random") and `loss.output_params` (params the loss writes before anything reads them)
// are read and written back; Verifier.h checks them.
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

// Documents larger than this are refused (input-too-large), from files before they are
// read and from pipes once this much has come: loading takes about three times the
// document's size in memory. It is far above any real pipeline: the ten DiffSynth
// examples take 2 to 14 KB, and a random 10^6-unit pipeline (3 reads and 2 writes per
// unit, as saved) takes 308 MB, and about 1 GB of memory to load.
constexpr std::size_t kMaxPipelineBytes = std::size_t(1) << 30; // 1 GiB

LoadResult parsePipeline(std::string_view text, const std::string &fileName = {});
// Reads a regular file, a pipe (a FIFO, /dev/stdin, <(...)), a socket or a terminal;
// a folder, another kind of device (/dev/zero) or a file above kMaxPipelineBytes is
// an error naming `path`, with nothing read.
LoadResult loadPipelineFile(const std::string &path);
// The same from a descriptor that is already open (0 for standard input), read to its
// end; `name` names it in diagnostics. The descriptor stays open. `maxBytes` is the size
// limit (tests pass a small one to reach it through a pipe).
LoadResult loadPipelineDescriptor(int fd, const std::string &name, std::size_t maxBytes = kMaxPipelineBytes);

std::string serializePipeline(const Pipeline &pipeline);
// Atomic (AtomicFile.h); false with `error` naming the path on failure.
bool savePipelineFile(const Pipeline &pipeline, const std::string &path, std::string *error = nullptr);

} // namespace splitscope
