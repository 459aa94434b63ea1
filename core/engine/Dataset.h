// SPDX-License-Identifier: MIT
#pragma once

#include "ImageIO.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::engine {

// DiffSynth's image dataset layout: a base folder and a metadata.csv whose header
// names the columns (`image,prompt`, plus e.g. `edit_image`). Columns listed in
// `dataFileKeys` are image paths relative to the base folder; `extraInputs` are the
// columns passed to the pipeline besides `image` and `prompt`.
struct DatasetOptions {
    std::string basePath;
    std::string metadataPath; // empty: basePath/metadata.csv
    long long maxPixels = 1024 * 1024;
    int height = 0; // 0: from the image and maxPixels
    int width = 0;
    int divisionFactor = 16; // sides are rounded down to a multiple of this
    std::vector<std::string> dataFileKeys = {"image"};
    std::vector<std::string> extraInputs;
};

// One row, loaded: the target image already cropped and resized to its training size.
struct DatasetSample {
    std::size_t row = 0; // 0-based data row
    int line = 0;        // line in metadata.csv (1 = the header)
    Image image;
    std::string prompt;
    std::map<std::string, Image> images;       // extra inputs that are image files (as stored)
    std::map<std::string, std::string> texts;  // extra inputs that are text
};

// Opening reads metadata.csv and checks every row up front (columns present, image
// files present, each a PNG whose structure checkPngFile() accepts), reporting bad
// rows by their line. Loading decodes a row's images (an image damaged inside its
// compressed data is an error naming the line and the file).
//
// Immutable once open; load() is thread-safe.
class Hasher;

class ImageDataset {
public:
    bool open(const DatasetOptions &options, std::string *error = nullptr);
    std::size_t size() const { return m_rows.size(); }
    // The largest size (width, height) a row's image trains at, from the PNG headers.
    std::pair<int, int> largestTrainingSize() const { return m_largest; }
    // The largest (by pixels) image of another image column (`edit_image`) as stored,
    // from the PNG headers; {0, 0} for a column without images.
    std::pair<int, int> largestStoredSize(const std::string &key) const;
    bool load(std::size_t row, DatasetSample &sample, std::string *error = nullptr) const;
    // A hash of metadata.csv and, per image file, its name there, size and
    // modification time (not the base path: another spelling of the folder, or the
    // folder moved, is the same dataset).
    std::uint64_t fingerprint() const { return m_fingerprint; }
    const std::string &metadataPath() const { return m_metadataPath; }
    const DatasetOptions &options() const { return m_options; }

private:
    struct Row {
        int line = 0;
        std::vector<std::string> cells;
        std::vector<int> columns; // where each cell starts on its line (1-based, in code points)
    };
    std::string resolvePath(const std::string &cell) const;
    int column(const std::string &name) const;
    std::string checkFileCell(const std::string &key, const std::string &cell, Hasher &fingerprint);

    DatasetOptions m_options;
    std::string m_metadataPath;
    std::vector<std::string> m_header;
    std::vector<Row> m_rows;
    std::uint64_t m_fingerprint = 0;
    std::pair<int, int> m_largest{0, 0};
    std::map<std::string, std::pair<int, int>> m_largestStored; // by column, "image" aside
};

// RFC 4180 CSV (quotes, doubled quotes, CRLF); rows keep their first line number,
// and `columns` (when given) the column where each cell starts (1-based, counting
// code points). False with `error` = "LINE:COLUMN: a quoted field is never closed"
// (the opening quote's) on an unterminated quote.
bool parseCsv(const std::string &text, std::vector<std::vector<std::string>> &rows, std::vector<int> &lines,
    std::string *error, std::vector<std::vector<int>> *columns = nullptr);

} // namespace splitscope::engine
