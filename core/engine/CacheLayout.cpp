// SPDX-License-Identifier: MIT
#include "CacheLayout.h"

#include "CacheWriter.h"
#include "TensorIO.h"
#include "Values.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <utility>

namespace splitscope::engine {

namespace {

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::string tensorText(const TensorInfo &tensor)
{
    return std::string(dtypeName(tensor.dtype)) + " " + shapeText(tensor.shape);
}

bool isNumber(const std::string &text)
{
    return !text.empty() && text.size() < 19
        && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

bool splitTensorName(const std::string &name, std::size_t &sample, std::string &param)
{
    const std::size_t slash = name.find('/');
    if (slash == 0 || slash == std::string::npos || slash + 1 == name.size())
        return false;
    if (slash > 1 && name[0] == '0')
        return false;
    std::size_t value = 0;
    for (std::size_t i = 0; i < slash; ++i) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        const auto digit = static_cast<std::size_t>(name[i] - '0');
        if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10)
            return false;
        value = value * 10 + digit;
    }
    sample = value;
    param = name.substr(slash + 1);
    return true;
}

CacheLayout::CacheLayout(const CacheManifest &manifest, const std::vector<std::string> &read,
    const std::map<std::string, ParamSpec> &specs, const std::map<std::string, std::int64_t> &modelDims)
    : m_storesAll(manifest.cacheAllParams)
    , m_stored(manifest.cacheSet)
{
    std::sort(m_stored.begin(), m_stored.end());
    for (const auto &param : read) {
        const auto spec = specs.find(param);
        if (spec != specs.end() && !spec->second.optional)
            m_required.push_back(param);
    }
    for (const auto &[param, spec] : specs) {
        Expected expected;
        expected.spec = spec;
        std::string dims;
        for (const std::string &entry : spec.shape) {
            Dim dim;
            dim.name = entry;
            const auto configured = modelDims.find(entry);
            if (isNumber(entry)) {
                dim.fixed = true;
                dim.size = std::stoll(entry);
                dims += (dims.empty() ? "" : ", ") + entry;
            } else if (configured != modelDims.end()) {
                dim.fixed = true;
                dim.size = configured->second;
                dims += (dims.empty() ? "" : ", ") + std::to_string(dim.size) + " (" + entry + ")";
            } else {
                dims += (dims.empty() ? "" : ", ") + entry;
            }
            expected.dims.push_back(dim);
        }
        if (spec.kind != valueKindName(Value::Kind::Tensor))
            expected.text = "a value of kind " + spec.kind;
        else
            expected.text =
                (spec.dtype.empty() ? std::string("a tensor") : spec.dtype) + (spec.shape.empty() ? "" : " [" + dims + "]");
        m_expected.emplace(param, std::move(expected));
    }
}

bool CacheLayout::checkShard(
    const SafetensorsFile &file, const CacheShard &shard, std::map<std::string, std::string> &kinds, std::string *error) const
{
    auto fail = [&](const std::string &what) {
        if (error)
            *error = "cache shard '" + file.path() + "': " + what;
        return false;
    };
    const auto &meta = file.metadata();
    const auto format = meta.find("splitscope.format");
    if (format == meta.end() || format->second != CacheWriter::kShardFormat)
        return fail(std::string("not a Splitscope cache shard (its metadata lacks \"splitscope.format\": \"")
            + CacheWriter::kShardFormat + "\")");
    const std::string samples = std::to_string(shard.first) + ":" + std::to_string(shard.count);
    const auto held = meta.find("splitscope.samples");
    if (held == meta.end() || held->second != samples) {
        return fail("its metadata says it holds samples "
            + (held == meta.end() ? std::string("(none)") : "'" + held->second + "'") + ", the manifest '" + samples
            + "' (first:count)");
    }

    std::map<std::string, std::string> recorded;
    const auto kindsMeta = meta.find("splitscope.kinds");
    if (kindsMeta == meta.end())
        return fail("its metadata lacks \"splitscope.kinds\"");
    try {
        const nlohmann::json parsed = nlohmann::json::parse(kindsMeta->second);
        if (!parsed.is_object())
            return fail("\"splitscope.kinds\" is not a JSON object");
        for (const auto &[key, value] : parsed.items()) {
            Value::Kind kind;
            if (!value.is_string() || !parseValueKind(value.get<std::string>(), kind))
                return fail("unknown kind " + value.dump() + " for '" + key + "' in \"splitscope.kinds\"");
            if (!file.find(key))
                return fail("\"splitscope.kinds\" names '" + key + "', which the shard does not hold");
            recorded[key] = value.get<std::string>();
        }
    } catch (const nlohmann::json::exception &e) {
        return fail(std::string("bad \"splitscope.kinds\" metadata (") + e.what() + ")");
    }

    // Sizes that a sample's tensors share: (sample, name) -> (size, the tensor that set it).
    std::map<std::pair<std::size_t, std::string>, std::pair<std::int64_t, std::string>> shared;
    for (const TensorInfo &t : file.tensors()) {
        const std::string at = "tensor '" + t.name + "'";
        std::size_t sample = 0;
        std::string param;
        if (!splitTensorName(t.name, sample, param))
            return fail(at + " is not named <sample>/<param>");
        if (sample < shard.first || sample - shard.first >= shard.count) {
            return fail(at + " is of sample " + std::to_string(sample) + "; the manifest gives this shard samples "
                + std::to_string(shard.first) + " to " + std::to_string(shard.first + shard.count - 1));
        }
        if (!m_storesAll && !std::binary_search(m_stored.begin(), m_stored.end(), param))
            return fail(at + ": the manifest's cache_set does not list '" + param + "'");
        const auto kind = recorded.find(t.name);
        if (kind == recorded.end())
            return fail("no kind recorded for " + at + " (in \"splitscope.kinds\")");
        Value::Kind parsedKind = Value::Kind::Tensor;
        parseValueKind(kind->second, parsedKind);
        std::string stored;
        if (!storedAsKind(parsedKind, t.dtype, t.shape, &stored))
            return fail(
                at + " is " + tensorText(t) + ", not how a value of kind " + kind->second + " is stored (" + stored + ")");

        const auto expected = m_expected.find(param);
        if (expected == m_expected.end())
            continue;
        const ParamSpec &spec = expected->second.spec;
        const std::string reads = "stage two reads " + param + " as " + expected->second.text;
        if (kind->second != spec.kind)
            return fail(at + " is of kind " + kind->second + "; " + reads);
        if (!spec.dtype.empty() && spec.dtype != dtypeName(t.dtype))
            return fail(at + " is " + tensorText(t) + "; " + reads);
        const std::vector<Dim> &dims = expected->second.dims;
        if (dims.empty())
            continue;
        if (dims.size() != t.shape.size())
            return fail(at + " is " + tensorText(t) + "; " + reads);
        for (std::size_t i = 0; i < dims.size(); ++i) {
            if (dims[i].fixed) {
                if (t.shape[i] != dims[i].size)
                    return fail(at + " is " + tensorText(t) + "; " + reads);
                continue;
            }
            const auto [it, inserted] = shared.emplace(std::pair(sample, dims[i].name), std::pair(t.shape[i], t.name));
            if (!inserted && it->second.first != t.shape[i]) {
                return fail(at + " is " + tensorText(t) + ", its " + dims[i].name + " " + std::to_string(t.shape[i])
                    + " is not the " + std::to_string(it->second.first) + " of '" + it->second.second + "'; " + reads);
            }
        }
    }
    // (Each sample lacking nothing needs a tensor of its own, so this ends within the
    // file's tensors even when a hand-edited manifest gives a huge count.)
    for (std::size_t sample = shard.first; !m_required.empty() && sample - shard.first < shard.count; ++sample) {
        for (const std::string &param : m_required) {
            if (!file.find(std::to_string(sample) + "/" + param))
                return fail("sample " + std::to_string(sample) + " has no '" + param + "', which stage two reads");
        }
    }
    kinds = std::move(recorded);
    return true;
}

} // namespace splitscope::engine
