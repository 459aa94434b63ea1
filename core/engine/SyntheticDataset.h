// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace splitscope::engine {

// `splitscope-cli make-dataset`: a captioned synthetic image set in DiffSynth's
// layout. Each scene is one shape (circle, square, triangle, diamond, cross, ring)
// of a color, size and position on a plain background; the caption says exactly
// that ("a large red circle at the top left on a blue background"). With `edit`,
// each row also gets an `edit_image`: the same scene with the shape in another
// color, at another resolution (for edit training and the hazard demonstration).
struct SyntheticDatasetOptions {
    std::string directory;
    int count = 64;
    int width = 64;
    int height = 64;
    bool edit = false;
    int editWidth = 48;
    int editHeight = 48;
    std::uint64_t seed = 0;
    bool overwrite = false; // replace a dataset already in `directory` (see below)
};

// Writes DIR/images/NNNNN.png (and DIR/edit/NNNNN.png) and DIR/metadata.csv, each
// file atomically, metadata.csv last. A DIR that already has a metadata.csv is
// refused unless `overwrite`; then, once the new metadata.csv is written, the
// NNNNN.png files in DIR/images and DIR/edit that it does not list (an earlier,
// larger or --edit set's) are removed; other files are left alone. False with
// `error` naming the path on failure; `badInput` (optional) then says whether the
// options are at fault (a refused overwrite, a bad size) rather than the writing.
bool makeSyntheticDataset(const SyntheticDatasetOptions &options, std::string *error = nullptr, bool *badInput = nullptr);

// The words captions use, for the tokenizer's vocabulary.
std::vector<std::string> syntheticCaptionWords();

} // namespace splitscope::engine
