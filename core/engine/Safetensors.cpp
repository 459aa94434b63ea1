// SPDX-License-Identifier: MIT
#include "Safetensors.h"

#include "core/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace splitscope::engine {

namespace {

struct DTypeName {
    DType dtype;
    const char *name;
    std::size_t size;
};

constexpr DTypeName kDTypes[] = {
    {DType::Bool, "BOOL", 1}, {DType::U8, "U8", 1}, {DType::I8, "I8", 1}, {DType::I16, "I16", 2},
    {DType::I32, "I32", 4}, {DType::I64, "I64", 8}, {DType::F16, "F16", 2}, {DType::BF16, "BF16", 2},
    {DType::F32, "F32", 4}, {DType::F64, "F64", 8},
};

bool fail(std::string *error, const std::string &message)
{
    if (error)
        *error = message;
    return false;
}

// numel x itemsize without overflow; false when it does not fit.
bool checkedByteCount(const std::vector<std::int64_t> &shape, std::size_t itemSize, std::size_t &bytes)
{
    std::size_t count = 1;
    for (const std::int64_t dim : shape) {
        const auto d = static_cast<std::size_t>(dim);
        if (d != 0 && count > std::numeric_limits<std::size_t>::max() / d)
            return false;
        count *= d;
    }
    if (itemSize != 0 && count > std::numeric_limits<std::size_t>::max() / itemSize)
        return false;
    bytes = count * itemSize;
    return true;
}

} // namespace

const char *dtypeName(DType dtype)
{
    for (const auto &d : kDTypes) {
        if (d.dtype == dtype)
            return d.name;
    }
    return "?";
}

std::optional<DType> parseDType(std::string_view name)
{
    for (const auto &d : kDTypes) {
        if (name == d.name)
            return d.dtype;
    }
    return std::nullopt;
}

std::size_t dtypeSize(DType dtype)
{
    for (const auto &d : kDTypes) {
        if (d.dtype == dtype)
            return d.size;
    }
    return 0;
}

std::int64_t TensorInfo::numel() const
{
    std::int64_t count = 1;
    for (const std::int64_t dim : shape)
        count *= dim;
    return count;
}

bool SafetensorsFile::open(const std::string &path, std::string *error)
{
    // No size limit beyond the memory there is (readWholeFile reports running out as
    // an error): model files are as large as their models.
    auto bytes = std::make_unique<std::string>();
    if (!readWholeFile(path, *bytes, error, std::numeric_limits<std::size_t>::max() / 2))
        return false;
    m_owned = std::move(bytes);
    return parse(reinterpret_cast<const unsigned char *>(m_owned->data()), m_owned->size(), path, error);
}

bool SafetensorsFile::parse(const unsigned char *bytes, std::size_t size, const std::string &label, std::string *error)
{
    if (!parseHeader(bytes, size, size, label, error))
        return false;
    m_bytes = bytes;
    return true;
}

bool SafetensorsFile::parseHeader(
    const unsigned char *bytes, std::size_t available, std::size_t size, const std::string &label, std::string *error)
{
    m_bytes = nullptr;
    m_size = size;
    m_label = label;
    m_tensors.clear();
    m_index.clear();
    m_metadata.clear();
    const std::string where = "'" + label + "'";
    if (size < 8)
        return fail(error, where + ": not a safetensors file (" + std::to_string(size) + " bytes, less than the 8-byte header length)");
    std::uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
        headerSize = (headerSize << 8) | bytes[i];
    if (headerSize > kMaxSafetensorsHeaderBytes || headerSize > size - 8) {
        return fail(error, where + ": header length " + std::to_string(headerSize) + " exceeds the file ("
            + std::to_string(size) + " bytes) or the 100 MiB limit; the file is truncated or not safetensors");
    }
    m_dataStart = 8 + static_cast<std::size_t>(headerSize);
    const std::size_t dataSize = size - m_dataStart;
    if (available < m_dataStart) {
        return fail(error, where + ": only " + std::to_string(available) + " of the header's " + std::to_string(m_dataStart)
            + " bytes were read");
    }

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes + 8, bytes + m_dataStart);
    } catch (const nlohmann::json::exception &e) {
        return fail(error, where + ": the header is not valid JSON (" + e.what() + ")");
    }
    if (!header.is_object())
        return fail(error, where + ": the header is not a JSON object");

    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string &name = it.key();
        const nlohmann::json &entry = it.value();
        if (name == "__metadata__") {
            if (!entry.is_object())
                return fail(error, where + ": __metadata__ is not an object");
            for (auto m = entry.begin(); m != entry.end(); ++m) {
                if (!m.value().is_string())
                    return fail(error, where + ": __metadata__." + m.key() + " is not a string");
                m_metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string at = where + ": tensor '" + name + "'";
        if (!entry.is_object())
            return fail(error, at + " is not an object");
        const auto dtypeIt = entry.find("dtype");
        const auto shapeIt = entry.find("shape");
        const auto offsetsIt = entry.find("data_offsets");
        if (dtypeIt == entry.end() || !dtypeIt->is_string())
            return fail(error, at + ": missing or non-string dtype");
        const auto dtype = parseDType(dtypeIt->get<std::string>());
        if (!dtype)
            return fail(error, at + ": unknown dtype '" + dtypeIt->get<std::string>() + "'");
        if (shapeIt == entry.end() || !shapeIt->is_array())
            return fail(error, at + ": missing or non-array shape");
        TensorInfo info;
        info.name = name;
        info.dtype = *dtype;
        for (const auto &dim : *shapeIt) {
            if (!dim.is_number_unsigned())
                return fail(error, at + ": shape holds " + dim.dump() + ", not a non-negative integer");
            info.shape.push_back(dim.get<std::int64_t>());
        }
        if (offsetsIt == entry.end() || !offsetsIt->is_array() || offsetsIt->size() != 2
            || !(*offsetsIt)[0].is_number_unsigned() || !(*offsetsIt)[1].is_number_unsigned()) {
            return fail(error, at + ": data_offsets must be two non-negative integers");
        }
        const auto begin = (*offsetsIt)[0].get<std::uint64_t>();
        const auto end = (*offsetsIt)[1].get<std::uint64_t>();
        if (begin > end || end > dataSize) {
            return fail(error, at + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end)
                + "] do not fit the " + std::to_string(dataSize) + " data bytes (truncated file?)");
        }
        std::size_t expected = 0;
        if (!checkedByteCount(info.shape, dtypeSize(info.dtype), expected) || expected != end - begin) {
            return fail(error, at + ": " + std::to_string(end - begin) + " bytes do not match dtype "
                + dtypeName(info.dtype) + " and shape " + shapeIt->dump());
        }
        info.begin = static_cast<std::size_t>(begin);
        info.end = static_cast<std::size_t>(end);
        m_tensors.push_back(std::move(info));
    }

    // The data must be covered exactly: no two tensors share bytes, no byte is unowned.
    std::vector<const TensorInfo *> byOffset;
    for (const auto &t : m_tensors)
        byOffset.push_back(&t);
    std::sort(byOffset.begin(), byOffset.end(), [](const TensorInfo *a, const TensorInfo *b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::size_t covered = 0;
    for (const TensorInfo *t : byOffset) {
        if (t->begin < covered)
            return fail(error, where + ": tensor '" + t->name + "' overlaps the tensor before it");
        if (t->begin > covered)
            return fail(error, where + ": bytes " + std::to_string(covered) + ".." + std::to_string(t->begin)
                + " before tensor '" + t->name + "' belong to no tensor");
        covered = t->end;
    }
    if (covered != dataSize)
        return fail(error, where + ": " + std::to_string(dataSize - covered) + " trailing bytes belong to no tensor");

    // Keep file order (by offset) for listing; the index serves lookups.
    std::stable_sort(m_tensors.begin(), m_tensors.end(),
        [](const TensorInfo &a, const TensorInfo &b) { return a.begin < b.begin; });
    for (std::size_t i = 0; i < m_tensors.size(); ++i)
        m_index.emplace(m_tensors[i].name, i);
    return true;
}

const TensorInfo *SafetensorsFile::find(std::string_view name) const
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

bool SafetensorsWriter::add(const std::string &name, DType dtype, const std::vector<std::int64_t> &shape,
    const void *bytes, std::size_t size, std::string *error)
{
    if (name.empty() || name == "__metadata__")
        return fail(error, "safetensors: '" + name + "' cannot name a tensor");
    if (m_names.count(name))
        return fail(error, "safetensors: tensor '" + name + "' added twice");
    std::size_t expected = 0;
    for (const std::int64_t dim : shape) {
        if (dim < 0)
            return fail(error, "safetensors: tensor '" + name + "' has a negative dimension");
    }
    if (!checkedByteCount(shape, dtypeSize(dtype), expected) || expected != size)
        return fail(error, "safetensors: tensor '" + name + "': " + std::to_string(size) + " bytes do not match its dtype and shape");
    Entry entry{name, dtype, shape, m_data.size(), m_data.size() + size};
    if (size > 0)
        m_data.append(static_cast<const char *>(bytes), size);
    m_names.emplace(name, m_entries.size());
    m_entries.push_back(std::move(entry));
    return true;
}

std::string SafetensorsWriter::serialize() const
{
    // ordered_json keeps the tensors in data order, which makes files easy to read.
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!m_metadata.empty()) {
        nlohmann::ordered_json meta = nlohmann::ordered_json::object();
        for (const auto &[key, value] : m_metadata)
            meta[key] = value;
        header["__metadata__"] = meta;
    }
    for (const Entry &e : m_entries) {
        header[e.name] = {{"dtype", dtypeName(e.dtype)}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
    }
    std::string text = header.dump();
    // Pad with spaces so the data starts on an 8-byte boundary (as the reference writer does).
    while ((8 + text.size()) % 8 != 0)
        text.push_back(' ');
    std::string out;
    out.reserve(8 + text.size() + m_data.size());
    std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
    out += text;
    out += m_data;
    return out;
}

bool SafetensorsWriter::write(const std::string &path, std::string *error) const
{
    return writeFileAtomically(path, serialize(), error);
}

} // namespace splitscope::engine
