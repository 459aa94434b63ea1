// SPDX-License-Identifier: MIT
#include "UnitRuntime.h"

#include "ModelSet.h"

#include <algorithm>

namespace splitscope::engine {

namespace {

bool contains(const std::vector<std::string> &list, const std::string &item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

UnitIO::UnitIO(const std::string &owner, std::vector<std::string> readable, std::vector<std::string> writable,
    std::vector<std::string> models, ValueMap &values, ModelSet *modelSet)
    : m_owner(owner)
    , m_readable(std::move(readable))
    , m_writable(std::move(writable))
    , m_allowedModels(std::move(models))
    , m_values(values)
    , m_models(modelSet)
{
}

void UnitIO::checkRead(const std::string &param) const
{
    if (!contains(m_readable, param))
        throw std::logic_error(m_owner + " reads '" + param + "', which it does not declare");
}

void UnitIO::checkModel(const std::string &model) const
{
    if (!contains(m_allowedModels, model))
        throw std::logic_error(m_owner + " calls " + model + ", which its onload_model_names do not list");
}

const Value *UnitIO::find(const std::string &param) const
{
    checkRead(param);
    const auto it = m_values.find(param);
    return it == m_values.end() ? nullptr : &it->second;
}

torch::Tensor UnitIO::tensor(const std::string &param) const
{
    const Value *v = find(param);
    if (!v || v->kind != Value::Kind::Tensor)
        throw EngineError(m_owner + ": input '" + param + "' is " + (v ? std::string("a ") + valueKindName(v->kind) : "missing (None)")
            + ", a tensor is needed");
    return v->tensor;
}

torch::Tensor UnitIO::optionalTensor(const std::string &param) const
{
    const Value *v = find(param);
    if (!v)
        return {};
    if (v->kind != Value::Kind::Tensor)
        throw EngineError(m_owner + ": input '" + param + "' is a " + valueKindName(v->kind) + ", a tensor is needed");
    return v->tensor;
}

std::int64_t UnitIO::integer(const std::string &param) const
{
    const Value *v = find(param);
    if (!v || v->kind != Value::Kind::Int)
        throw EngineError(m_owner + ": input '" + param + "' is " + (v ? std::string("a ") + valueKindName(v->kind) : "missing (None)")
            + ", an int is needed");
    return v->integer;
}

bool UnitIO::flag(const std::string &param, bool fallback) const
{
    const Value *v = find(param);
    if (!v)
        return fallback;
    if (v->kind != Value::Kind::Bool)
        throw EngineError(m_owner + ": input '" + param + "' is a " + valueKindName(v->kind) + ", a bool is needed");
    return v->flag;
}

std::string UnitIO::text(const std::string &param, const std::string &fallback) const
{
    const Value *v = find(param);
    if (!v)
        return fallback;
    if (v->kind != Value::Kind::Text)
        throw EngineError(m_owner + ": input '" + param + "' is a " + valueKindName(v->kind) + ", a string is needed");
    return v->text;
}

const Value *UnitIO::image(const std::string &param) const
{
    const Value *v = find(param);
    if (v && v->kind != Value::Kind::Image)
        throw EngineError(m_owner + ": input '" + param + "' is a " + valueKindName(v->kind) + ", an image is needed");
    return v;
}

void UnitIO::set(const std::string &param, Value value)
{
    if (!contains(m_writable, param))
        throw std::logic_error(m_owner + " writes '" + param + "', which is not among its output_params");
    m_values[param] = std::move(value);
}

TextEncoderImpl &UnitIO::textEncoder()
{
    checkModel("text_encoder");
    return m_models->textEncoder(m_owner);
}

VaeImpl &UnitIO::vae()
{
    checkModel("vae");
    return m_models->vae(m_owner);
}

QwenImageDiTImpl &UnitIO::dit()
{
    checkModel("dit");
    return m_models->dit(m_owner);
}

const Tokenizer &UnitIO::tokenizer()
{
    checkModel("text_encoder");
    return m_models->tokenizer(m_owner);
}

torch::Tensor imageToTensor(const Value &image)
{
    return (image.tensor.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat32) / 255.0 * 2.0 - 1.0).contiguous();
}

} // namespace splitscope::engine
