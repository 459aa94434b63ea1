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
};

// Writes DIR/images/NNNNN.png (and DIR/edit/NNNNN.png) and DIR/metadata.csv, each
// file atomically, metadata.csv last. False with `error` naming the path on failure.
bool makeSyntheticDataset(const SyntheticDatasetOptions &options, std::string *error = nullptr);

// The words captions use, for the tokenizer's vocabulary.
std::vector<std::string> syntheticCaptionWords();

} // namespace splitscope::engine
