// SPDX-License-Identifier: MIT
#include "Values.h"

#include <cstring>

namespace splitscope::engine {

Value Value::ofTensor(torch::Tensor t)
{
    Value v;
    v.kind = Kind::Tensor;
    v.tensor = std::move(t);
    return v;
}

Value Value::ofInt(std::int64_t value)
{
    Value v;
    v.kind = Kind::Int;
    v.integer = value;
    return v;
}

Value Value::ofFloat(double value)
{
    Value v;
    v.kind = Kind::Float;
    v.number = value;
    return v;
}

Value Value::ofBool(bool value)
{
    Value v;
    v.kind = Kind::Bool;
    v.flag = value;
    return v;
}

Value Value::ofText(std::string value)
{
    Value v;
    v.kind = Kind::Text;
    v.text = std::move(value);
    return v;
}

Value Value::ofImage(const Image &image)
{
    Value v;
    v.kind = Kind::Image;
    v.tensor = torch::empty({image.height, image.width, 3}, torch::kUInt8);
    std::memcpy(v.tensor.data_ptr<std::uint8_t>(), image.rgb.data(), image.rgb.size());
    return v;
}

Image Value::toImage() const
{
    Image image;
    const torch::Tensor t = tensor.contiguous();
    image.height = static_cast<int>(t.size(0));
    image.width = static_cast<int>(t.size(1));
    image.rgb.resize(static_cast<std::size_t>(t.numel()));
    std::memcpy(image.rgb.data(), t.data_ptr<std::uint8_t>(), image.rgb.size());
    return image;
}

const char *valueKindName(Value::Kind kind)
{
    switch (kind) {
    case Value::Kind::Tensor:
        return "tensor";
    case Value::Kind::Int:
        return "int";
    case Value::Kind::Float:
        return "float";
    case Value::Kind::Bool:
        return "bool";
    case Value::Kind::Text:
        return "text";
    case Value::Kind::Image:
        return "image";
    }
    return "?";
}

bool parseValueKind(const std::string &name, Value::Kind &kind)
{
    for (const auto k : {Value::Kind::Tensor, Value::Kind::Int, Value::Kind::Float, Value::Kind::Bool, Value::Kind::Text,
             Value::Kind::Image}) {
        if (name == valueKindName(k)) {
            kind = k;
            return true;
        }
    }
    return false;
}

} // namespace splitscope::engine
