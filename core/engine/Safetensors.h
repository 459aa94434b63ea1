// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope::engine {

// The safetensors format (https://huggingface.co/docs/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "value"}}
// (padded with spaces), then the tensor bytes; offsets are relative to the first byte
// after the header. Torch-free: tensors are dtype + shape + bytes.

// Headers above this size are refused as corrupt (the reference reader's limit).
constexpr std::size_t kMaxSafetensorsHeaderBytes = 100 * 1024 * 1024;

enum class DType { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64 };

const char *dtypeName(DType dtype); // "F32"
std::optional<DType> parseDType(std::string_view name);
std::size_t dtypeSize(DType dtype);

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::size_t begin = 0; // offsets in the data section
    std::size_t end = 0;

    std::int64_t numel() const;
    std::size_t byteSize() const { return end - begin; }
};

// A validated safetensors file, read whole into memory when opened (with read(), not
// mmap: a file truncated by another process while it is used would end the process
// with SIGBUS; read, it is refused as truncated). Loading copies every tensor out of
// it anyway. Opening checks the whole header: its
// length, the JSON, each entry's dtype, shape and offsets (inside the data, matching
// the shape, no overlap, no hole), and the metadata's values being strings. Every
// error names the file and, where one is at fault, the tensor.
//
// Immutable once open; safe to read from several threads.
class SafetensorsFile {
public:
    bool open(const std::string &path, std::string *error = nullptr);
    // Validates bytes already in memory (they must outlive this object).
    bool parse(const unsigned char *bytes, std::size_t size, const std::string &label, std::string *error = nullptr);
    // Validates the header of a file of `size` bytes from its first `available` bytes
    // (which must hold the 8-byte length and the header it gives, and need not outlive
    // this object): the tensors' names, dtypes, shapes and offsets, checked against
    // `size`, without the data. data() is then unusable: the caller reads the data
    // itself at headerSize() + the tensor's offsets.
    bool parseHeader(const unsigned char *bytes, std::size_t available, std::size_t size, const std::string &label,
        std::string *error = nullptr);

    const std::string &path() const { return m_label; }
    const std::vector<TensorInfo> &tensors() const { return m_tensors; } // in file order
    const TensorInfo *find(std::string_view name) const;
    const std::map<std::string, std::string> &metadata() const { return m_metadata; }
    const unsigned char *data(const TensorInfo &tensor) const { return m_bytes + m_dataStart + tensor.begin; }
    std::size_t fileSize() const { return m_size; }
    std::size_t headerSize() const { return m_dataStart; }
    // The bytes after the header: every tensor's data (after open() or parse()).
    std::string_view dataSection() const
    {
        return {reinterpret_cast<const char *>(m_bytes) + m_dataStart, m_size - m_dataStart};
    }

private:
    std::unique_ptr<std::string> m_owned; // the bytes open() read (stable when the object moves)
    const unsigned char *m_bytes = nullptr;
    std::size_t m_size = 0;
    std::size_t m_dataStart = 0;
    std::string m_label;
    std::vector<TensorInfo> m_tensors;
    std::map<std::string_view, std::size_t> m_index;
    std::map<std::string, std::string> m_metadata;
};

// Builds a safetensors file in memory. Tensors are laid out in the order added;
// the header is padded to 8 bytes so every tensor starts aligned.
class SafetensorsWriter {
public:
    void setMetadata(const std::string &key, const std::string &value) { m_metadata[key] = value; }
    // Copies `bytes`; false with `error` when the name repeats or the byte count does
    // not match dtype x shape.
    bool add(const std::string &name, DType dtype, const std::vector<std::int64_t> &shape, const void *bytes,
        std::size_t size, std::string *error = nullptr);
    std::size_t tensorCount() const { return m_entries.size(); }
    // Room for `bytes` of tensor data, so that adding them copies each byte once.
    void reserve(std::size_t bytes) { m_data.reserve(bytes); }
    // The tensors' bytes as the file will hold them after its header.
    std::string_view dataSection() const { return m_data; }

    std::string serialize() const;
    // Atomic (core/AtomicFile.h): readers see the old file or the whole new one.
    bool write(const std::string &path, std::string *error = nullptr) const;

private:
    struct Entry {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::size_t begin;
        std::size_t end;
    };
    std::vector<Entry> m_entries;
    std::map<std::string, std::size_t> m_names;
    std::map<std::string, std::string> m_metadata;
    std::string m_data;
};

} // namespace splitscope::engine
