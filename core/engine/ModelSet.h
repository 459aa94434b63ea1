// SPDX-License-Identifier: MIT
#pragma once

#include "Events.h"
#include "ModelFiles.h"
#include "QwenImageDiT.h"
#include "TextEncoder.h"
#include "Tokenizer.h"
#include "TorchPch.h"
#include "Vae.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace splitscope::engine {

// The models of one run, materialized on first use: a model no unit of the stage
// calls is never read from disk, which is what makes stage one and stage two
// light. A model listed in --offload_models is a promise that the stage does not
// need it; if a unit calls it anyway it is loaded then (as DiffSynth's disk offload
// would), with a warning.
//
// Also applies the training setup when a model loads: LoRA adapters on
// --lora_base_model, gradients on for --trainable_models, off for the rest.
// Not thread-safe: use from the computing thread.
class ModelSet {
public:
    struct TrainingSetup {
        std::set<std::string> trainable;  // --trainable_models
        std::string loraBaseModel;        // empty: none
        std::vector<std::string> loraTargets;
        int loraRank = 32;
        std::uint64_t seed = 0;
        std::string loraCheckpoint;       // LoRA weights to load after injection
        std::string loraCheckpointFlag = "--lora_checkpoint"; // the flag that named it, for messages
        // A tensor of the checkpoint that no adapter takes (a module --lora_target_modules
        // leaves out) is an error (sample: the LoRA would be drawn in part), rather than
        // a warning (training from it, which DiffSynth allows: the rest starts fresh).
        bool loraCheckpointComplete = false;
    };

    ModelSet(std::vector<ResolvedModel> resolved, std::set<std::string> offloaded, std::string tokenizerPath,
        EventSink *events);

    // Call before the first use of a model (stage one leaves it unset: no LoRA there).
    void setTrainingSetup(TrainingSetup setup) { m_setup = std::move(setup); }

    bool isLoaded(const std::string &name) const;
    const ResolvedModel *resolved(const std::string &name) const;
    // `caller` names the unit (or loss) for error messages.
    TextEncoderImpl &textEncoder(const std::string &caller);
    VaeImpl &vae(const std::string &caller);
    QwenImageDiTImpl &dit(const std::string &caller);
    const Tokenizer &tokenizer(const std::string &caller);
    torch::nn::Module &module(const std::string &name, const std::string &caller);
    // Config of a resolved model without loading it (a unit that shapes noise to the
    // latents needs the VAE's factor, not the VAE).
    VaeConfig vaeConfig(const std::string &caller) const;

    // Bytes of loaded parameters per model (LoRA included), in load order.
    std::vector<std::pair<std::string, std::uint64_t>> loadedBytes() const;
    // Trainable parameters as DiffSynth names them: "pipe.<model>.<parameter>".
    std::vector<std::pair<std::string, torch::Tensor>> trainableParameters() const;

private:
    void load(const std::string &name, const std::string &caller);
    void applyTrainingSetup(const std::string &name, torch::nn::Module &module);
    // Copies the setup's LoRA checkpoint into the adapters just injected into `module`.
    void loadLoraCheckpoint(const std::string &name, torch::nn::Module &module);

    std::vector<ResolvedModel> m_resolved;
    std::set<std::string> m_offloaded;
    std::string m_tokenizerPath;
    EventSink *m_events;
    TrainingSetup m_setup;
    std::map<std::string, std::shared_ptr<torch::nn::Module>> m_loaded;
    std::vector<std::string> m_loadOrder;
    TextEncoder m_textEncoder{nullptr};
    Vae m_vae{nullptr};
    QwenImageDiT m_dit{nullptr};
    std::unique_ptr<Tokenizer> m_tokenizer;
};

// Whether a module's full name matches a PEFT target: equal, or ending in "." + target.
bool matchesLoraTarget(const std::string &moduleName, const std::string &target);

// Injects LoRA into every LoraLinear of `module` whose name matches one of
// `targets`; returns how many. Seeds derive from (seed, module index).
int injectLora(torch::nn::Module &module, const std::vector<std::string> &targets, int rank, std::uint64_t seed);

} // namespace splitscope::engine
