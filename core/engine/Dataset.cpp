// SPDX-License-Identifier: MIT
#include "Dataset.h"

#include "Hash.h"
#include "core/AtomicFile.h"

#include <algorithm>
#include <filesystem>
#include <sys/stat.h>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

// At most this many bad rows are listed in one error; the count says how many more.
constexpr std::size_t kMaxListedRows = 10;

} // namespace

bool parseCsv(const std::string &text, std::vector<std::vector<std::string>> &rows, std::vector<int> &lines,
    std::string *error, std::vector<std::vector<int>> *columns)
{
    rows.clear();
    lines.clear();
    if (columns)
        columns->clear();
    std::vector<std::string> row;
    std::vector<int> rowColumns;
    std::string cell;
    bool quoted = false;
    bool rowHasContent = false;
    int line = 1;
    int rowLine = 1;
    int quoteLine = 0;
    int quoteColumn = 0;
    // The first quoted field that ran across a line end: in a file that ends inside
    // quotes, the quote most likely missing is its closing one (the quotes after it then
    // pair up the wrong way round, and the last one opened is far from the mistake).
    int spanLine = 0;
    int spanColumn = 0;
    // The column (1-based, in code points) of text[i], and of the current cell's start.
    int column = 1;
    int cellColumn = 1;
    std::size_t i = 0;
    // A UTF-8 byte order mark is not part of the first column's name.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        i = 3;
    auto endCell = [&]() {
        row.push_back(cell);
        rowColumns.push_back(cellColumn);
        cell.clear();
    };
    auto endRow = [&]() {
        if (rowHasContent || !cell.empty() || !row.empty()) {
            endCell();
            rows.push_back(row);
            lines.push_back(rowLine);
            if (columns)
                columns->push_back(rowColumns);
        }
        row.clear();
        rowColumns.clear();
        cell.clear();
        rowHasContent = false;
    };
    for (; i < text.size(); ++i) {
        const char c = text[i];
        // Continuation bytes of a UTF-8 sequence do not start a character.
        const int width = (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    cell.push_back('"');
                    ++i;
                    ++column;
                } else {
                    quoted = false;
                }
            } else if (c == '\n') {
                if (spanLine == 0) {
                    spanLine = quoteLine;
                    spanColumn = quoteColumn;
                }
                ++line;
                column = 0;
                cell.push_back(c);
            } else {
                cell.push_back(c);
            }
            column += c == '\n' ? 1 : width;
            continue;
        }
        if (c == '"') {
            quoted = true;
            quoteLine = line;
            quoteColumn = column;
            rowHasContent = true;
        } else if (c == ',') {
            endCell();
            cellColumn = column + 1;
            rowHasContent = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            endRow();
            ++line;
            rowLine = line;
            column = 0;
            cellColumn = 1;
        } else {
            if (!rowHasContent && cell.empty())
                rowLine = line;
            cell.push_back(c);
        }
        column += c == '\n' || c == '\r' ? 1 : width;
    }
    if (quoted) {
        if (error) {
            const std::string last = std::to_string(quoteLine) + ":" + std::to_string(quoteColumn);
            const std::string opened = spanLine > 0 ? std::to_string(spanLine) + ":" + std::to_string(spanColumn) : last;
            *error = opened + ": unclosed quote opened at " + opened + ": a quoted field is never closed";
            if (opened != last)
                *error += " (the quotes after it pair up the wrong way round, up to the last one opened, at " + last + ")";
        }
        return false;
    }
    endRow();
    return true;
}

int ImageDataset::column(const std::string &name) const
{
    const auto it = std::find(m_header.begin(), m_header.end(), name);
    return it == m_header.end() ? -1 : static_cast<int>(it - m_header.begin());
}

std::string ImageDataset::resolvePath(const std::string &cell) const
{
    const fs::path p(cell);
    return p.is_absolute() ? cell : (fs::path(m_options.basePath) / p).string();
}

// Why the file a cell of a file column names cannot be trained on; empty when it can,
// after adding it to the fingerprint and to the largest sizes.
std::string ImageDataset::checkFileCell(const std::string &key, const std::string &cell, Hasher &fingerprint)
{
    const std::string path = resolvePath(cell);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return "'" + key + "' file '" + cell + "' not found (looked for '" + path + "')";
    if (!S_ISREG(st.st_mode)) {
        return "'" + key + "' file '" + cell + "' is " + (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file")
            + ", not an image file ('" + path + "')";
    }
    // A damaged image is found now, before any work, not when a step first reads it
    // (or never, in a run that --max_steps ends first).
    std::string damage;
    std::pair<int, int> size;
    if (!checkPngFile(path, &damage, &size))
        return "'" + key + "' file '" + cell + "': " + damage;
    if (key == "image") {
        // The size it trains at: --height/--width, else fitted to --max_pixels.
        const auto trained = m_options.width > 0 && m_options.height > 0
            ? std::pair<int, int>(m_options.width, m_options.height)
            : fitMaxPixels(size.first, size.second, m_options.maxPixels, m_options.divisionFactor);
        if (static_cast<long long>(trained.first) * trained.second
            > static_cast<long long>(m_largest.first) * m_largest.second)
            m_largest = trained;
    } else {
        std::pair<int, int> &largest = m_largestStored[key];
        if (static_cast<long long>(size.first) * size.second > static_cast<long long>(largest.first) * largest.second)
            largest = size;
    }
    // The name as metadata.csv gives it, not as resolved: the same dataset named
    // through another spelling of its folder has the same fingerprint.
    fingerprint.updateField(cell);
    fingerprint.updateU64(static_cast<std::uint64_t>(st.st_size));
    fingerprint.updateU64(static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000ULL
        + static_cast<std::uint64_t>(st.st_mtim.tv_nsec));
    return {};
}

bool ImageDataset::open(const DatasetOptions &options, std::string *error)
{
    m_options = options;
    m_rows.clear();
    m_largest = {0, 0};
    m_largestStored.clear();
    auto fail = [&](const std::string &message) {
        if (error)
            *error = message;
        return false;
    };
    if (options.basePath.empty())
        return fail("--dataset_base_path is required");
    std::error_code ec;
    if (!fs::is_directory(options.basePath, ec))
        return fail("--dataset_base_path: '" + options.basePath + "' is not a folder");
    m_metadataPath = options.metadataPath.empty() ? (fs::path(options.basePath) / "metadata.csv").string()
                                                  : options.metadataPath;
    std::string text;
    std::string readError;
    if (!readWholeFile(m_metadataPath, text, &readError)) {
        return fail((options.metadataPath.empty() ? "no --dataset_metadata_path and " : "--dataset_metadata_path: ")
            + readError);
    }
    std::vector<std::vector<std::string>> cells;
    std::vector<int> lines;
    std::vector<std::vector<int>> columns;
    std::string csvError;
    // Every message about the file is "FILE:LINE:COLUMN: ...", as compilers write them.
    auto at = [&](int line, int column) { return m_metadataPath + ":" + std::to_string(line) + ":" + std::to_string(column) + ": "; };
    if (!parseCsv(text, cells, lines, &csvError, &columns))
        return fail(m_metadataPath + ":" + csvError);
    if (cells.empty())
        return fail(at(1, 1) + "empty file (expected a header line such as 'image,prompt')");
    m_header = cells.front();
    for (auto &h : m_header) {
        const auto first = h.find_first_not_of(" \t");
        const auto last = h.find_last_not_of(" \t");
        h = first == std::string::npos ? std::string() : h.substr(first, last - first + 1);
    }
    // A column named twice: a row's value under that name would be the first one's,
    // and the other silently unused.
    for (std::size_t c = 0; c < m_header.size(); ++c) {
        const auto earlier = std::find(m_header.begin(), m_header.begin() + static_cast<std::ptrdiff_t>(c), m_header[c]);
        if (earlier != m_header.begin() + static_cast<std::ptrdiff_t>(c)) {
            return fail(at(lines.front(), columns.front()[c]) + "the header names the column '" + m_header[c]
                + "' twice (fields " + std::to_string(earlier - m_header.begin() + 1) + " and " + std::to_string(c + 1)
                + "): rename or remove one");
        }
    }
    std::vector<std::string> required = {"image", "prompt"};
    for (const auto &k : options.dataFileKeys) {
        if (std::find(required.begin(), required.end(), k) == required.end() && std::find(options.extraInputs.begin(),
                options.extraInputs.end(), k) != options.extraInputs.end())
            required.push_back(k);
    }
    for (const auto &k : options.extraInputs) {
        if (std::find(required.begin(), required.end(), k) == required.end())
            required.push_back(k);
    }
    for (const auto &name : required) {
        if (column(name) < 0) {
            std::string header;
            for (const auto &h : m_header)
                header += (header.empty() ? "" : ",") + h;
            return fail(at(lines.front(), 1) + "no '" + name + "' column (header: '" + header + "')");
        }
    }

    Hasher fingerprint;
    fingerprint.updateField(text);
    std::vector<std::string> bad;
    std::size_t badCount = 0;
    for (std::size_t r = 1; r < cells.size(); ++r) {
        Row row{lines[r], cells[r], columns[r]};
        std::string problem;
        int problemColumn = 1;
        if (row.cells.size() != m_header.size()) {
            problem = std::to_string(row.cells.size()) + " fields, the header has " + std::to_string(m_header.size());
        } else {
            for (const auto &key : required) {
                const bool isFile = key == "image"
                    || std::find(options.dataFileKeys.begin(), options.dataFileKeys.end(), key) != options.dataFileKeys.end();
                const std::string &cell = row.cells[static_cast<std::size_t>(column(key))];
                if (!isFile)
                    continue;
                problemColumn = row.columns[static_cast<std::size_t>(column(key))];
                if (cell.empty()) {
                    problem = "empty '" + key + "'";
                    break;
                }
                problem = checkFileCell(key, cell, fingerprint);
                if (!problem.empty())
                    break;
            }
        }
        if (!problem.empty()) {
            ++badCount;
            if (bad.size() < kMaxListedRows)
                bad.push_back(at(row.line, problemColumn) + problem);
            continue;
        }
        m_rows.push_back(std::move(row));
    }
    if (badCount > 0) {
        std::string message = std::to_string(badCount) + " bad row" + (badCount == 1 ? "" : "s") + " in the dataset:";
        for (const auto &b : bad)
            message += "\n  " + b;
        if (badCount > bad.size())
            message += "\n  ... and " + std::to_string(badCount - bad.size()) + " more";
        return fail(message);
    }
    if (m_rows.empty())
        return fail(at(lines.back() + 1, 1) + "no data rows after the header");
    m_fingerprint = fingerprint.digest();
    return true;
}

std::pair<int, int> ImageDataset::largestStoredSize(const std::string &key) const
{
    const auto it = m_largestStored.find(key);
    return it == m_largestStored.end() ? std::pair<int, int>(0, 0) : it->second;
}

bool ImageDataset::load(std::size_t row, DatasetSample &sample, std::string *error) const
{
    const Row &r = m_rows.at(row);
    sample = DatasetSample{};
    sample.row = row;
    sample.line = r.line;
    auto where = [&](const std::string &key) {
        return m_metadataPath + ":" + std::to_string(r.line) + ":"
            + std::to_string(r.columns[static_cast<std::size_t>(column(key))]) + ": ";
    };
    std::string decodeError;
    Image original;
    if (!readPngFile(resolvePath(r.cells[static_cast<std::size_t>(column("image"))]), original, &decodeError)) {
        if (error)
            *error = where("image") + decodeError;
        return false;
    }
    int width = m_options.width;
    int height = m_options.height;
    if (width <= 0 || height <= 0) {
        const auto fitted = fitMaxPixels(original.width, original.height, m_options.maxPixels, m_options.divisionFactor);
        width = fitted.first;
        height = fitted.second;
    }
    sample.image = cropAndResize(original, width, height);
    sample.prompt = r.cells[static_cast<std::size_t>(column("prompt"))];
    for (const auto &key : m_options.extraInputs) {
        const std::string &cell = r.cells[static_cast<std::size_t>(column(key))];
        const bool isFile = std::find(m_options.dataFileKeys.begin(), m_options.dataFileKeys.end(), key)
            != m_options.dataFileKeys.end();
        if (!isFile) {
            sample.texts[key] = cell;
            continue;
        }
        Image extra;
        if (!readPngFile(resolvePath(cell), extra, &decodeError)) {
            if (error)
                *error = where(key) + decodeError;
            return false;
        }
        sample.images[key] = std::move(extra);
    }
    return true;
}

} // namespace splitscope::engine
