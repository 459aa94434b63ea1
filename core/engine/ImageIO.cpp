// SPDX-License-Identifier: MIT
#include "ImageIO.h"

#include "core/AtomicFile.h"

#include <png.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace splitscope::engine {

namespace {

// libpng reports errors through a longjmp; the message is kept here for the caller.
// Also owns the row pointers, so that nothing the longjmp could leave indeterminate
// lives in the decoding function's own frame.
struct PngErrorState {
    std::string message;
    std::vector<png_bytep> rows;
};

void pngError(png_structp png, png_const_charp message)
{
    if (auto *state = static_cast<PngErrorState *>(png_get_error_ptr(png)))
        state->message = message;
    png_longjmp(png, 1);
}

void pngWarning(png_structp, png_const_charp)
{
    // Warnings (e.g. an unknown chunk) do not make an image unreadable.
}

struct MemoryReader {
    const std::string *bytes;
    std::size_t position;
};

void readFromMemory(png_structp png, png_bytep out, png_size_t count)
{
    auto *reader = static_cast<MemoryReader *>(png_get_io_ptr(png));
    if (reader->position + count > reader->bytes->size())
        png_error(png, "unexpected end of file");
    std::memcpy(out, reader->bytes->data() + reader->position, count);
    reader->position += count;
}

void writeToMemory(png_structp png, png_bytep data, png_size_t count)
{
    auto *out = static_cast<std::string *>(png_get_io_ptr(png));
    out->append(reinterpret_cast<const char *>(data), count);
}

void flushMemory(png_structp)
{
}

// Decoding without any C++ object that needs destruction between setjmp and longjmp.
bool decodeInto(const std::string &bytes, Image &image, PngErrorState &state)
{
    if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0) {
        state.message = "not a PNG file (bad signature)";
        return false;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, pngError, pngWarning);
    if (!png) {
        state.message = "out of memory";
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        state.message = "out of memory";
        return false;
    }
    MemoryReader reader{&bytes, 0};
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        return false;
    }
    png_set_read_fn(png, &reader, readFromMemory);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info);
    const png_uint_32 height = png_get_image_height(png, info);
    const int colorType = png_get_color_type(png, info);
    const int bitDepth = png_get_bit_depth(png, info);
    if (width == 0 || height == 0 || width > 16384 || height > 16384)
        png_error(png, "image size out of range (1..16384 per side)");
    if (bitDepth == 16)
        png_set_strip_16(png);
    if (colorType == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (colorType == PNG_COLOR_TYPE_GRAY && bitDepth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (colorType == PNG_COLOR_TYPE_GRAY || colorType == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (colorType & PNG_COLOR_MASK_ALPHA || png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_color_16 black{};
        png_set_background(png, &black, PNG_BACKGROUND_GAMMA_SCREEN, 0, 1.0);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != static_cast<png_size_t>(width) * 3)
        png_error(png, "unsupported pixel layout after conversion to RGB");
    image.width = static_cast<int>(width);
    image.height = static_cast<int>(height);
    image.rgb.assign(static_cast<std::size_t>(width) * height * 3, 0);
    state.rows.resize(height);
    for (png_uint_32 y = 0; y < height; ++y)
        state.rows[y] = image.rgb.data() + static_cast<std::size_t>(y) * width * 3;
    png_read_image(png, state.rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

bool encodeInto(const Image &image, std::string &out, PngErrorState &state)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, pngError, pngWarning);
    if (!png) {
        state.message = "out of memory";
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        state.message = "out of memory";
        return false;
    }
    state.rows.assign(static_cast<std::size_t>(image.height), nullptr);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_set_write_fn(png, &out, writeToMemory, flushMemory);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
        PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y)
        state.rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3);
    png_write_image(png, state.rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

// The largest side the decoder accepts (decodeInto).
constexpr png_uint_32 kMaxSide = 16384;
constexpr unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

std::uint32_t bigEndian32(const unsigned char *bytes)
{
    return (std::uint32_t(bytes[0]) << 24) | (std::uint32_t(bytes[1]) << 16) | (std::uint32_t(bytes[2]) << 8) | bytes[3];
}

// The CRC-32 of PNG chunks (ISO 3309), bit by bit: it is only computed for IHDR.
std::uint32_t crc32(const unsigned char *bytes, std::size_t size)
{
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

bool validBitDepth(int colorType, int bitDepth)
{
    switch (colorType) {
    case 0: // gray
        return bitDepth == 1 || bitDepth == 2 || bitDepth == 4 || bitDepth == 8 || bitDepth == 16;
    case 3: // palette
        return bitDepth == 1 || bitDepth == 2 || bitDepth == 4 || bitDepth == 8;
    case 2: // RGB
    case 4: // gray + alpha
    case 6: // RGBA
        return bitDepth == 8 || bitDepth == 16;
    default:
        return false;
    }
}

// Reads `size` bytes at `offset`; false at the end of the file or on an error.
bool readAt(int fd, std::uint64_t offset, unsigned char *out, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

std::string chunkName(const unsigned char *type)
{
    return std::string(reinterpret_cast<const char *>(type), 4);
}

// One pass of a separable triangle-filter resampler along one axis.
struct FilterTap {
    int first = 0;
    std::vector<float> weights;
};

std::vector<FilterTap> filterTaps(int inSize, int outSize)
{
    std::vector<FilterTap> taps(static_cast<std::size_t>(outSize));
    const double scale = static_cast<double>(inSize) / outSize;
    // Widen the kernel when shrinking, so every input pixel contributes (antialiasing).
    const double support = std::max(1.0, scale);
    for (int o = 0; o < outSize; ++o) {
        const double center = (o + 0.5) * scale;
        const int first = std::max(0, static_cast<int>(std::floor(center - support)));
        const int last = std::min(inSize - 1, static_cast<int>(std::ceil(center + support)));
        FilterTap &tap = taps[static_cast<std::size_t>(o)];
        tap.first = first;
        double total = 0;
        for (int i = first; i <= last; ++i) {
            const double w = std::max(0.0, 1.0 - std::abs((i + 0.5 - center) / support));
            tap.weights.push_back(static_cast<float>(w));
            total += w;
        }
        if (total > 0) {
            for (float &w : tap.weights)
                w = static_cast<float>(w / total);
        }
    }
    return taps;
}

} // namespace

bool decodePng(const std::string &bytes, Image &image, const std::string &label, std::string *error)
{
    PngErrorState state;
    Image decoded;
    if (!decodeInto(bytes, decoded, state)) {
        if (error)
            *error = "cannot decode '" + label + "' as PNG: " + state.message;
        return false;
    }
    image = std::move(decoded);
    return true;
}

bool readPngFile(const std::string &path, Image &image, std::string *error)
{
    std::string bytes;
    if (!readWholeFile(path, bytes, error))
        return false;
    return decodePng(bytes, image, path, error);
}

bool checkPngFile(const std::string &path, std::string *error, std::pair<int, int> *imageSize)
{
    auto fail = [&](const std::string &message) {
        if (error)
            *error = message;
        return false;
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(std::string("cannot open it: ") + std::strerror(errno));
    struct FileCloser {
        int fd;
        ~FileCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(std::string("cannot read it: ") + std::strerror(errno));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size == 0)
        return fail("empty file (0 bytes)");
    // The signature, then IHDR: length, type, 13 bytes of data, CRC.
    unsigned char head[8 + 8 + 13 + 4];
    const auto headSize = static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof(head)));
    if (!readAt(fd, 0, head, headSize))
        return fail(std::string("cannot read it: ") + std::strerror(errno));
    if (std::memcmp(head, kPngSignature, std::min<std::size_t>(headSize, 8)) != 0)
        return fail("not a PNG file (bad signature)");
    if (headSize < sizeof(head))
        return fail("truncated: " + std::to_string(size) + " bytes, too short for a PNG header");
    if (bigEndian32(head + 8) != 13 || std::memcmp(head + 12, "IHDR", 4) != 0)
        return fail("not a valid PNG file (it does not start with an IHDR chunk)");
    if (crc32(head + 12, 4 + 13) != bigEndian32(head + 29))
        return fail("corrupt PNG header (IHDR CRC mismatch)");
    const std::uint32_t width = bigEndian32(head + 16);
    const std::uint32_t height = bigEndian32(head + 20);
    const int bitDepth = head[24];
    const int colorType = head[25];
    if (width == 0 || height == 0 || width > kMaxSide || height > kMaxSide) {
        return fail("image size " + std::to_string(width) + "x" + std::to_string(height) + " out of range (1.."
            + std::to_string(kMaxSide) + " per side)");
    }
    if (!validBitDepth(colorType, bitDepth)) {
        return fail("invalid PNG header (color type " + std::to_string(colorType) + " with bit depth "
            + std::to_string(bitDepth) + ")");
    }
    if (head[26] != 0 || head[27] != 0 || head[28] > 1)
        return fail("invalid PNG header (unknown compression, filter or interlace method)");
    if (imageSize)
        *imageSize = {static_cast<int>(width), static_cast<int>(height)};

    bool palette = false;
    bool imageData = false;
    std::uint64_t offset = sizeof(head);
    for (;;) {
        unsigned char chunk[8];
        if (offset + 8 > size || !readAt(fd, offset, chunk, 8)) {
            return fail("truncated: the file ends after " + std::to_string(size) + " bytes, before the PNG's end (IEND"
                + (imageData ? "" : " and image data") + ")");
        }
        const std::uint32_t length = bigEndian32(chunk);
        const unsigned char *type = chunk + 4;
        for (int i = 0; i < 4; ++i) {
            if (!std::isalpha(type[i]))
                return fail("corrupt PNG: no valid chunk at byte " + std::to_string(offset));
        }
        if (length > 0x7FFFFFFFu)
            return fail("corrupt PNG: chunk '" + chunkName(type) + "' at byte " + std::to_string(offset) + " has an invalid length");
        if (offset + 12 + length > size) {
            return fail("truncated: chunk '" + chunkName(type) + "' at byte " + std::to_string(offset) + " needs "
                + std::to_string(12 + std::uint64_t(length)) + " bytes, the file has " + std::to_string(size - offset)
                + " left (" + std::to_string(size) + " in all)");
        }
        if (std::memcmp(type, "IEND", 4) == 0) {
            if (!imageData)
                return fail("corrupt PNG: no image data (IDAT) before IEND");
            return true;
        }
        if (std::memcmp(type, "PLTE", 4) == 0)
            palette = true;
        if (std::memcmp(type, "IDAT", 4) == 0) {
            if (colorType == 3 && !palette)
                return fail("corrupt PNG: a palette image without a palette (PLTE) before its image data");
            imageData = true;
        }
        offset += 12 + std::uint64_t(length);
    }
}

bool encodePng(const Image &image, std::string &bytes, std::string *error)
{
    if (image.empty() || image.rgb.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
        if (error)
            *error = "cannot encode an empty or inconsistent image as PNG";
        return false;
    }
    PngErrorState state;
    std::string out;
    if (!encodeInto(image, out, state)) {
        if (error)
            *error = "cannot encode PNG: " + state.message;
        return false;
    }
    bytes = std::move(out);
    return true;
}

bool writePngFile(const std::string &path, const Image &image, std::string *error)
{
    std::string bytes;
    if (!encodePng(image, bytes, error))
        return false;
    return writeFileAtomically(path, bytes, error);
}

Image resizeBilinear(const Image &image, int width, int height)
{
    if (image.width == width && image.height == height)
        return image;
    const auto horizontal = filterTaps(image.width, width);
    const auto vertical = filterTaps(image.height, height);
    // Horizontal pass into floats, then vertical pass with rounding.
    std::vector<float> temp(static_cast<std::size_t>(image.height) * width * 3);
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < width; ++x) {
            const FilterTap &tap = horizontal[static_cast<std::size_t>(x)];
            float sum[3] = {0, 0, 0};
            for (std::size_t k = 0; k < tap.weights.size(); ++k) {
                const std::uint8_t *p = image.pixel(tap.first + static_cast<int>(k), y);
                for (int c = 0; c < 3; ++c)
                    sum[c] += tap.weights[k] * p[c];
            }
            float *out = temp.data() + (static_cast<std::size_t>(y) * width + x) * 3;
            std::copy(sum, sum + 3, out);
        }
    }
    Image result;
    result.width = width;
    result.height = height;
    result.rgb.resize(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y) {
        const FilterTap &tap = vertical[static_cast<std::size_t>(y)];
        for (int x = 0; x < width; ++x) {
            float sum[3] = {0, 0, 0};
            for (std::size_t k = 0; k < tap.weights.size(); ++k) {
                const float *p = temp.data() + ((tap.first + k) * static_cast<std::size_t>(width) + x) * 3;
                for (int c = 0; c < 3; ++c)
                    sum[c] += tap.weights[k] * p[c];
            }
            std::uint8_t *out = result.pixel(x, y);
            for (int c = 0; c < 3; ++c)
                out[c] = static_cast<std::uint8_t>(std::clamp(std::lround(sum[c]), 0L, 255L));
        }
    }
    return result;
}

Image cropAndResize(const Image &image, int width, int height)
{
    const double scale = std::max(static_cast<double>(width) / image.width, static_cast<double>(height) / image.height);
    const int scaledWidth = std::max(width, static_cast<int>(std::lround(image.width * scale)));
    const int scaledHeight = std::max(height, static_cast<int>(std::lround(image.height * scale)));
    const Image scaled = resizeBilinear(image, scaledWidth, scaledHeight);
    const int left = static_cast<int>(std::lround((scaledWidth - width) / 2.0));
    const int top = static_cast<int>(std::lround((scaledHeight - height) / 2.0));
    Image result;
    result.width = width;
    result.height = height;
    result.rgb.resize(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y)
        std::memcpy(result.pixel(0, y), scaled.pixel(left, top + y), static_cast<std::size_t>(width) * 3);
    return result;
}

std::pair<int, int> fitMaxPixels(int width, int height, long long maxPixels, int division)
{
    double w = width;
    double h = height;
    if (maxPixels > 0 && static_cast<double>(width) * height > static_cast<double>(maxPixels)) {
        const double scale = std::sqrt(static_cast<double>(width) * height / static_cast<double>(maxPixels));
        w = std::floor(width / scale);
        h = std::floor(height / scale);
    }
    const int outWidth = std::max(division, static_cast<int>(w) / division * division);
    const int outHeight = std::max(division, static_cast<int>(h) / division * division);
    return {outWidth, outHeight};
}

} // namespace splitscope::engine
