// SPDX-License-Identifier: MIT
#pragma once

#include "ImageIO.h"
#include "TorchPch.h"

#include <cstdint>
#include <map>
#include <string>

namespace splitscope::engine {

// One pipeline param's value, as DiffSynth's input dict holds Python objects:
// a tensor, an int, a float, a bool, a string or an image (uint8 [H, W, 3], as a
// PIL image). A param that is absent from the map is None.
struct Value {
    enum class Kind { Tensor, Int, Float, Bool, Text, Image };
    Kind kind = Kind::Tensor;
    torch::Tensor tensor; // Tensor and Image
    std::int64_t integer = 0;
    double number = 0;
    bool flag = false;
    std::string text;

    static Value ofTensor(torch::Tensor t);
    static Value ofInt(std::int64_t v);
    static Value ofFloat(double v);
    static Value ofBool(bool v);
    static Value ofText(std::string v);
    static Value ofImage(const Image &image);

    Image toImage() const; // Kind::Image only
};

const char *valueKindName(Value::Kind kind); // "tensor", "int", "float", "bool", "text", "image"
bool parseValueKind(const std::string &name, Value::Kind &kind);

using ValueMap = std::map<std::string, Value>;

} // namespace splitscope::engine
