// SPDX-License-Identifier: MIT
#include "TensorIO.h"

#include "UnitRuntime.h"

#include <cstring>
#include <map>
#include <set>

namespace splitscope::engine {

namespace {

bool isLoraName(const std::string &name)
{
    return name.find(".lora_A.") != std::string::npos || name.find(".lora_B.") != std::string::npos;
}

std::string joinFiles(const std::vector<std::string> &files)
{
    std::string out;
    for (const auto &f : files)
        out += (out.empty() ? "'" : ", '") + f + "'";
    return out;
}

} // namespace

torch::ScalarType scalarTypeOf(DType dtype)
{
    switch (dtype) {
    case DType::Bool:
        return torch::kBool;
    case DType::U8:
        return torch::kUInt8;
    case DType::I8:
        return torch::kInt8;
    case DType::I16:
        return torch::kInt16;
    case DType::I32:
        return torch::kInt32;
    case DType::I64:
        return torch::kInt64;
    case DType::F16:
        return torch::kFloat16;
    case DType::BF16:
        return torch::kBFloat16;
    case DType::F32:
        return torch::kFloat32;
    case DType::F64:
        return torch::kFloat64;
    }
    return torch::kFloat32;
}

bool dtypeOf(torch::ScalarType type, DType &dtype)
{
    for (const DType d : {DType::Bool, DType::U8, DType::I8, DType::I16, DType::I32, DType::I64, DType::F16, DType::BF16,
             DType::F32, DType::F64}) {
        if (scalarTypeOf(d) == type) {
            dtype = d;
            return true;
        }
    }
    return false;
}

torch::Tensor readTensor(const SafetensorsFile &file, const TensorInfo &info)
{
    torch::Tensor out = torch::empty(info.shape, torch::TensorOptions().dtype(scalarTypeOf(info.dtype)));
    if (info.byteSize() > 0)
        std::memcpy(out.data_ptr(), file.data(info), info.byteSize());
    return out;
}

void addTensor(SafetensorsWriter &writer, const std::string &name, const torch::Tensor &tensor)
{
    DType dtype;
    if (!dtypeOf(tensor.scalar_type(), dtype))
        throw EngineError("cannot store tensor '" + name + "' of type " + std::string(c10::toString(tensor.scalar_type())));
    const torch::Tensor t = tensor.detach().contiguous();
    std::string error;
    if (!writer.add(name, dtype, t.sizes().vec(), t.data_ptr(), static_cast<std::size_t>(t.numel()) * t.element_size(), &error))
        throw EngineError(error);
}

void loadModuleWeights(torch::nn::Module &module, const std::vector<std::string> &files, const std::string &modelName)
{
    std::vector<SafetensorsFile> opened(files.size());
    std::map<std::string, std::pair<const SafetensorsFile *, const TensorInfo *>> available;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::string error;
        // An unreadable, truncated or malformed model file is the input's fault.
        if (!opened[i].open(files[i], &error))
            throw EngineInputError(modelName + ": " + error);
        for (const TensorInfo &t : opened[i].tensors())
            available[t.name] = {&opened[i], &t};
    }
    torch::NoGradGuard noGrad;
    std::set<std::string> used;
    for (auto &item : module.named_parameters()) {
        const std::string &name = item.key();
        if (isLoraName(name))
            continue;
        const auto it = available.find(name);
        if (it == available.end())
            throw EngineInputError(modelName + ": " + joinFiles(files) + " lack '" + name + "' (wrong files for this model, or a config.json that does not match them)");
        const TensorInfo &info = *it->second.second;
        torch::Tensor &param = item.value();
        if (info.shape != param.sizes().vec()) {
            throw EngineInputError(modelName + ": '" + name + "' in '" + it->second.first->path() + "' has shape "
                + c10::str(c10::IntArrayRef(info.shape)) + ", the model (config.json) expects " + c10::str(param.sizes()));
        }
        param.copy_(readTensor(*it->second.first, info).to(param.scalar_type()));
        used.insert(name);
    }
    for (const auto &[name, where] : available) {
        if (!used.count(name) && !isLoraName(name))
            throw EngineInputError(modelName + ": '" + where.first->path() + "' holds '" + name + "', which the model does not have (wrong files or config.json)");
    }
}

void saveModuleWeights(torch::nn::Module &module, const std::vector<std::string> &paths)
{
    std::vector<std::pair<std::string, torch::Tensor>> params;
    std::int64_t total = 0;
    for (const auto &item : module.named_parameters()) {
        if (isLoraName(item.key()))
            continue;
        params.emplace_back(item.key(), item.value());
        total += item.value().numel();
    }
    const std::int64_t perPart = (total + static_cast<std::int64_t>(paths.size()) - 1) / static_cast<std::int64_t>(paths.size());
    std::size_t next = 0;
    for (std::size_t part = 0; part < paths.size(); ++part) {
        SafetensorsWriter writer;
        writer.setMetadata("format", "pt");
        std::int64_t written = 0;
        while (next < params.size() && (written < perPart || part + 1 == paths.size())) {
            addTensor(writer, params[next].first, params[next].second);
            written += params[next].second.numel();
            ++next;
        }
        std::string error;
        if (!writer.write(paths[part], &error))
            throw EngineError(error);
    }
}

torch::Tensor valueToTensor(const Value &value)
{
    switch (value.kind) {
    case Value::Kind::Tensor:
    case Value::Kind::Image:
        return value.tensor;
    case Value::Kind::Int:
        return torch::tensor(value.integer, torch::kInt64);
    case Value::Kind::Float:
        return torch::tensor(value.number, torch::kFloat64);
    case Value::Kind::Bool:
        return torch::tensor(value.flag, torch::kBool);
    case Value::Kind::Text: {
        torch::Tensor t = torch::empty({static_cast<std::int64_t>(value.text.size())}, torch::kUInt8);
        if (!value.text.empty())
            std::memcpy(t.data_ptr(), value.text.data(), value.text.size());
        return t;
    }
    }
    return {};
}

Value valueFromTensor(Value::Kind kind, const torch::Tensor &tensor)
{
    switch (kind) {
    case Value::Kind::Tensor:
        return Value::ofTensor(tensor);
    case Value::Kind::Image: {
        Value v;
        v.kind = Value::Kind::Image;
        v.tensor = tensor;
        return v;
    }
    case Value::Kind::Int:
        return Value::ofInt(tensor.item<std::int64_t>());
    case Value::Kind::Float:
        return Value::ofFloat(tensor.item<double>());
    case Value::Kind::Bool:
        return Value::ofBool(tensor.item<bool>());
    case Value::Kind::Text: {
        const torch::Tensor t = tensor.contiguous();
        return Value::ofText(std::string(static_cast<const char *>(t.data_ptr()), static_cast<std::size_t>(t.numel())));
    }
    }
    return {};
}

bool storedAsKind(Value::Kind kind, DType dtype, const std::vector<std::int64_t> &shape, std::string *expected)
{
    auto is = [&](DType wanted, std::size_t rank, const char *text) {
        const bool fits = dtype == wanted && shape.size() == rank && (kind != Value::Kind::Image || shape[2] == 3);
        if (!fits && expected)
            *expected = text;
        return fits;
    };
    switch (kind) {
    case Value::Kind::Tensor:
        return true;
    case Value::Kind::Int:
        return is(DType::I64, 0, "I64 []");
    case Value::Kind::Float:
        return is(DType::F64, 0, "F64 []");
    case Value::Kind::Bool:
        return is(DType::Bool, 0, "BOOL []");
    case Value::Kind::Text:
        return is(DType::U8, 1, "U8 [bytes]");
    case Value::Kind::Image:
        return is(DType::U8, 3, "U8 [H, W, 3]");
    }
    return false;
}

} // namespace splitscope::engine
