// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace splitscope::engine {

// An 8-bit RGB image, rows top to bottom, pixels interleaved (as PIL holds it).
struct Image {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb; // height * width * 3

    bool empty() const { return width == 0 || height == 0; }
    std::uint8_t *pixel(int x, int y) { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
    const std::uint8_t *pixel(int x, int y) const { return rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3; }
};

// PNG through libpng. Grayscale, palette, 16-bit and alpha inputs are converted to
// 8-bit RGB (alpha composited on black, as converting to RGB does in PIL). False with
// `error` naming the file and libpng's reason on failure; never throws.
bool readPngFile(const std::string &path, Image &image, std::string *error = nullptr);
bool decodePng(const std::string &bytes, Image &image, const std::string &label, std::string *error = nullptr);
bool encodePng(const Image &image, std::string &bytes, std::string *error = nullptr);
// Checks a PNG file's structure without decoding it, so that a dataset's bad files
// are found before any work: the signature; IHDR first, with its CRC, a size in
// 1..16384 and a bit depth and color type that go together; then each chunk's length
// and type, up to an IEND the file must reach (a truncated file does not), with the
// image data (IDAT), and a palette where the color type needs one, before it. Reads
// 8 bytes a chunk, not the pixel data: a file damaged inside its compressed data
// passes, and readPngFile() reports it when the image is used. False with `error`
// saying what is wrong (without the path); never throws. `size` (optional) receives
// the header's width and height.
bool checkPngFile(const std::string &path, std::string *error = nullptr, std::pair<int, int> *size = nullptr);
// Atomic.
bool writePngFile(const std::string &path, const Image &image, std::string *error = nullptr);

// Resampling with a triangle filter widened by the downscale factor (bilinear with
// antialiasing, as torchvision's resize of a PIL image does).
Image resizeBilinear(const Image &image, int width, int height);
// DiffSynth's ImageCropAndResize: scale to cover the target, then center-crop.
Image cropAndResize(const Image &image, int width, int height);
// The size DiffSynth picks without --height/--width: scale down to at most
// `maxPixels`, then round each side down to a multiple of `division` (at least one).
std::pair<int, int> fitMaxPixels(int width, int height, long long maxPixels, int division);

} // namespace splitscope::engine
