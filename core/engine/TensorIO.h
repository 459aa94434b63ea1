// SPDX-License-Identifier: MIT
#pragma once

#include "Safetensors.h"
#include "TorchPch.h"
#include "Values.h"

#include <string>
#include <vector>

namespace splitscope::engine {

// Tensors and pipeline values to and from safetensors (Safetensors.h is Torch-free).

torch::ScalarType scalarTypeOf(DType dtype);
// false for dtypes safetensors has no name for
bool dtypeOf(torch::ScalarType type, DType &dtype);

// A copy of the tensor's bytes (the file may be unmapped afterwards).
torch::Tensor readTensor(const SafetensorsFile &file, const TensorInfo &info);
// Adds a contiguous copy; throws EngineError on failure.
void addTensor(SafetensorsWriter &writer, const std::string &name, const torch::Tensor &tensor);

// Loads every parameter of `module` (LoRA factors excepted) from the tensors of
// `files`, converting F16/BF16 to the parameter's dtype. Strict, like
// load_state_dict(strict=True): a missing or surplus key or a wrong shape is an
// EngineError naming the key and the files. The files are unmapped afterwards.
void loadModuleWeights(torch::nn::Module &module, const std::vector<std::string> &files, const std::string &modelName);

// The parameters (LoRA factors excepted) written as one or more files, split
// into `parts` of about equal size, in named_parameters() order.
void saveModuleWeights(torch::nn::Module &module, const std::vector<std::string> &paths);

// A pipeline value as one tensor: Tensor as is; Int as I64 [], Float as F64 [],
// Bool as BOOL [], Text as U8 [bytes], Image as U8 [H, W, 3].
torch::Tensor valueToTensor(const Value &value);
Value valueFromTensor(Value::Kind kind, const torch::Tensor &tensor);
// Whether a tensor of `dtype` and `shape` is what valueToTensor makes of a value of
// `kind` (a Tensor may be anything), which valueFromTensor relies on. False with
// `expected` saying what it should be ("I64 []").
bool storedAsKind(Value::Kind kind, DType dtype, const std::vector<std::int64_t> &shape, std::string *expected = nullptr);

} // namespace splitscope::engine
