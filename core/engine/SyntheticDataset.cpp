// SPDX-License-Identifier: MIT
#include "SyntheticDataset.h"

#include "ImageIO.h"
#include "SeedSequence.h"
#include "core/AtomicFile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

namespace {

struct NamedColor {
    const char *name;
    std::uint8_t r, g, b;
};

constexpr NamedColor kColors[] = {
    {"red", 220, 40, 40}, {"green", 40, 180, 60}, {"blue", 40, 80, 220}, {"yellow", 235, 210, 40},
    {"purple", 140, 60, 180}, {"orange", 245, 140, 30}, {"white", 245, 245, 245}, {"black", 20, 20, 20},
    {"gray", 128, 128, 128}, {"pink", 240, 130, 180},
};
constexpr int kColorCount = sizeof(kColors) / sizeof(kColors[0]);

constexpr const char *kShapes[] = {"circle", "square", "triangle", "diamond", "cross", "ring"};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);

// A 3x3 grid of positions, named as people would say them.
constexpr const char *kPositions[] = {"at the top left", "at the top", "at the top right", "on the left",
    "in the center", "on the right", "at the bottom left", "at the bottom", "at the bottom right"};

// Sub-samples per pixel side when rendering (4x4 = 16 samples): smooth edges.
constexpr int kSupersampling = 4;

struct Scene {
    int shape;
    int color;
    int background;
    int position;
    bool large;
};

Scene drawScene(std::uint64_t seed)
{
    SplitMix64 random(seed);
    Scene s{};
    s.shape = static_cast<int>(random.below(kShapeCount));
    s.color = static_cast<int>(random.below(kColorCount));
    s.background = static_cast<int>(random.below(kColorCount - 1));
    if (s.background >= s.color)
        ++s.background; // never the shape's own color
    s.position = static_cast<int>(random.below(9));
    s.large = random.below(2) == 1;
    return s;
}

std::string caption(const Scene &s)
{
    return std::string("a ") + (s.large ? "large " : "small ") + kColors[s.color].name + " " + kShapes[s.shape] + " "
        + kPositions[s.position] + " on a " + kColors[s.background].name + " background";
}

// Whether the point (u, v) in unit coordinates centered on the shape lies inside it.
bool inside(int shape, double u, double v)
{
    const double au = std::abs(u);
    const double av = std::abs(v);
    switch (shape) {
    case 0: // circle
        return u * u + v * v <= 1.0;
    case 1: // square
        return au <= 0.85 && av <= 0.85;
    case 2: // triangle, apex up
        return v >= -0.9 && v <= 0.9 && au <= (v + 0.9) / 1.8 * 0.95;
    case 3: // diamond
        return au + av <= 1.0;
    case 4: // cross
        return (au <= 0.3 && av <= 0.95) || (av <= 0.3 && au <= 0.95);
    case 5: // ring
        return u * u + v * v <= 1.0 && u * u + v * v >= 0.4;
    }
    return false;
}

Image render(const Scene &s, int color, int width, int height)
{
    Image image;
    image.width = width;
    image.height = height;
    image.rgb.resize(static_cast<std::size_t>(width) * height * 3);
    const double cx = (0.22 + 0.28 * (s.position % 3)) * width;
    const double cy = (0.22 + 0.28 * (s.position / 3)) * height;
    const double radius = (s.large ? 0.2 : 0.12) * std::min(width, height);
    const NamedColor &fg = kColors[color];
    const NamedColor &bg = kColors[s.background];
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int hits = 0;
            for (int sy = 0; sy < kSupersampling; ++sy) {
                for (int sx = 0; sx < kSupersampling; ++sx) {
                    const double px = x + (sx + 0.5) / kSupersampling;
                    const double py = y + (sy + 0.5) / kSupersampling;
                    hits += inside(s.shape, (px - cx) / radius, (py - cy) / radius) ? 1 : 0;
                }
            }
            const double a = static_cast<double>(hits) / (kSupersampling * kSupersampling);
            std::uint8_t *p = image.pixel(x, y);
            p[0] = static_cast<std::uint8_t>(std::lround(a * fg.r + (1 - a) * bg.r));
            p[1] = static_cast<std::uint8_t>(std::lround(a * fg.g + (1 - a) * bg.g));
            p[2] = static_cast<std::uint8_t>(std::lround(a * fg.b + (1 - a) * bg.b));
        }
    }
    return image;
}

std::string csvQuote(const std::string &text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"')
            out += "\"\"";
        else
            out.push_back(c);
    }
    return out + "\"";
}

// After an overwrite: removes the NNNNN.png files of DIR/images and DIR/edit that
// the new metadata.csv does not list (what an earlier, larger set left); then
// DIR/edit itself if it is empty and unused. Other files are not this command's.
bool removeUnlisted(const fs::path &dir, const SyntheticDatasetOptions &options, std::string *error)
{
    for (const char *sub : {"images", "edit"}) {
        const int listed = std::string(sub) == "edit" && !options.edit ? 0 : options.count;
        std::error_code ec;
        std::vector<fs::path> stale;
        for (fs::directory_iterator it(dir / sub, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string stem = it->path().stem().string();
            const bool ours = it->path().extension() == ".png" && stem.size() >= 5
                && std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; });
            if (!ours || !it->is_regular_file(ec))
                continue;
            char name[32];
            const long long index = stem.size() > 9 ? -1 : std::stoll(stem);
            std::snprintf(name, sizeof(name), "%05lld.png", index);
            if (index < 0 || index >= listed || it->path().filename() != name)
                stale.push_back(it->path());
        }
        for (const fs::path &path : stale) {
            if (!fs::remove(path, ec) && ec) {
                if (error)
                    *error = "cannot remove '" + path.string() + "' (not in the new metadata.csv): " + ec.message();
                return false;
            }
        }
        if (listed == 0)
            fs::remove(dir / sub, ec); // only when empty
    }
    return true;
}

} // namespace

std::vector<std::string> syntheticCaptionWords()
{
    std::vector<std::string> words = {"a", "an", "the", "large", "small", "at", "on", "in", "top", "bottom", "left",
        "right", "center", "background", "of", "and", "with", "image", "picture", "shape", "make", "it", "turn",
        "into", "change", "color", "to"};
    for (const auto &c : kColors)
        words.push_back(c.name);
    for (const auto *s : kShapes)
        words.push_back(s);
    return words;
}

bool makeSyntheticDataset(const SyntheticDatasetOptions &options, std::string *error, bool *badInput)
{
    if (badInput)
        *badInput = false;
    auto fail = [&](const std::string &message) {
        if (error)
            *error = message;
        return false;
    };
    auto bad = [&](const std::string &message) {
        if (badInput)
            *badInput = true;
        return fail(message);
    };
    if (options.count < 1)
        return bad("--count must be at least 1");
    if (options.width < 8 || options.height < 8 || options.width > 4096 || options.height > 4096)
        return bad("--width/--height must be in 8..4096");
    std::error_code ec;
    const fs::path dir(options.directory);
    const fs::path metadataPath = dir / "metadata.csv";
    if (!options.overwrite && fs::symlink_status(metadataPath, ec).type() != fs::file_type::not_found)
        return bad("'" + metadataPath.string() + "' already exists (--overwrite replaces the dataset)");
    // Images of the user's own (no metadata.csv yet) are not overwritten either.
    for (int i = 0; !options.overwrite && i < options.count; ++i) {
        char name[32];
        std::snprintf(name, sizeof(name), "%05d.png", i);
        for (const char *folder : {"images", "edit"}) {
            if (std::string(folder) == "edit" && !options.edit)
                continue;
            const fs::path existing = dir / folder / name;
            if (fs::symlink_status(existing, ec).type() != fs::file_type::not_found)
                return bad("'" + existing.string() + "' already exists (--overwrite replaces it)");
        }
    }
    fs::create_directories(dir / "images", ec);
    if (ec)
        return fail("cannot create '" + (dir / "images").string() + "': " + ec.message());
    if (options.edit) {
        fs::create_directories(dir / "edit", ec);
        if (ec)
            return fail("cannot create '" + (dir / "edit").string() + "': " + ec.message());
    }
    std::string metadata = options.edit ? "image,prompt,edit_image\n" : "image,prompt\n";
    for (int i = 0; i < options.count; ++i) {
        const Scene scene = drawScene(deriveSeed(options.seed, 0, static_cast<std::uint64_t>(i), RandomPurpose::DatasetSynthesis));
        char name[32];
        std::snprintf(name, sizeof(name), "%05d.png", i);
        const std::string imagePath = std::string("images/") + name;
        std::string writeError;
        if (!writePngFile((dir / imagePath).string(), render(scene, scene.color, options.width, options.height), &writeError))
            return fail(writeError);
        metadata += imagePath + "," + csvQuote(caption(scene));
        if (options.edit) {
            // The source of the edit: the same scene with the shape in the next color
            // that is not the background.
            int source = (scene.color + 1) % kColorCount;
            if (source == scene.background)
                source = (source + 1) % kColorCount;
            const std::string editPath = std::string("edit/") + name;
            if (!writePngFile((dir / editPath).string(), render(scene, source, options.editWidth, options.editHeight), &writeError))
                return fail(writeError);
            metadata += "," + editPath;
        }
        metadata += "\n";
    }
    std::string writeError;
    if (!writeFileAtomically(metadataPath.string(), metadata, &writeError))
        return fail(writeError);
    if (options.overwrite)
        return removeUnlisted(dir, options, error);
    return true;
}

} // namespace splitscope::engine
