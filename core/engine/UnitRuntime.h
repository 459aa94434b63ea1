// SPDX-License-Identifier: MIT
#pragma once

#include "TinyQwenImage.h"
#include "Values.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace splitscope::engine {

class ModelSet;
class Tokenizer;
class FlowMatchScheduler;
class TextEncoderImpl;
class VaeImpl;
class QwenImageDiTImpl;

// A failure of the work itself (a missing input, a model that is not available, a
// corrupt cache). Thrown inside the Torch code, caught at train()'s boundary and
// reported as an error event.
class EngineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A failure caused by the user's input that shows only when the work reaches it: a
// model a unit calls that the flags do not name, a LoRA target that matches
// nothing, weights that do not fit their config.json. Reported as bad input.
class EngineInputError : public EngineError {
public:
    using EngineError::EngineError;
};

// What a unit or the loss may know about the step it runs in.
struct RunContext {
    ModelSet *models = nullptr;
    const FlowMatchScheduler *trainingScheduler = nullptr; // 1000 training steps, with weights
    std::uint64_t seed = 0;        // --seed
    std::uint64_t epoch = 0;
    std::uint64_t sampleIndex = 0; // index in the epoch's (repeated) dataset
    bool checkpointing = false;    // --use_gradient_checkpointing
    torch::Tensor loss;            // the loss's result
};

// A unit's window on the param dict: it may read only the params it declares and
// write only its declared outputs, and call only its declared models. Breaking that
// is a programming error (std::logic_error naming the unit), so the description the
// split is computed from cannot disagree with what the code does.
class UnitIO {
public:
    UnitIO(const std::string &owner, std::vector<std::string> readable, std::vector<std::string> writable,
        std::vector<std::string> models, ValueMap &values, ModelSet *modelSet);

    const Value *find(const std::string &param) const; // nullptr: None
    torch::Tensor tensor(const std::string &param) const; // required (EngineError when None)
    torch::Tensor optionalTensor(const std::string &param) const;
    std::int64_t integer(const std::string &param) const; // required
    bool flag(const std::string &param, bool fallback) const;
    std::string text(const std::string &param, const std::string &fallback) const;
    const Value *image(const std::string &param) const; // Kind::Image or nullptr
    void set(const std::string &param, Value value);

    TextEncoderImpl &textEncoder();
    VaeImpl &vae();
    QwenImageDiTImpl &dit();
    const Tokenizer &tokenizer();
    ModelSet &modelSet() { return *m_models; }
    const std::string &owner() const { return m_owner; }

private:
    void checkRead(const std::string &param) const;
    void checkModel(const std::string &model) const;

    std::string m_owner;
    std::vector<std::string> m_readable;
    std::vector<std::string> m_writable;
    std::vector<std::string> m_allowedModels;
    ValueMap &m_values;
    ModelSet *m_models;
};

// Pixel preprocessing as DiffSynth's preprocess_image: uint8 [H, W, 3] -> float
// [1, 3, H, W] in [-1, 1].
torch::Tensor imageToTensor(const Value &image);

} // namespace splitscope::engine
