// SPDX-License-Identifier: MIT
#include "ExecutableCatalog.h"

namespace splitscope::engine {

namespace {

// The patterns are those of DiffSynth's Qwen-Image LoRA command; the transformer's
// ends in "*" because the real one (and init-models' tiny one) comes in shards.
ExecutablePipelineFacts tinyQwenImage()
{
    ExecutablePipelineFacts p;
    p.name = "tiny-qwen-image";
    p.example = "tiny-qwen-image";
    p.modelId = "Qwen/Qwen-Image";
    p.modelFiles = {{"dit", "transformer/diffusion_pytorch_model*.safetensors"},
        {"text_encoder", "text_encoder/model*.safetensors"}, {"vae", "vae/diffusion_pytorch_model.safetensors"}};
    p.losses = {{"FlowMatchSFTLoss", "sft"}, {"DirectDistillLoss", "direct_distill"}};
    p.loraTargets = "to_q,to_k,to_v,add_q_proj,add_k_proj,add_v_proj,to_out.0,to_add_out,img_mlp.net.2,img_mod.1,"
                    "txt_mlp.net.2,txt_mod.1";
    p.removePrefix = "pipe.dit.";
    return p;
}

} // namespace

const ExecutableModelFile *ExecutablePipelineFacts::modelFile(const std::string &model) const
{
    for (const ExecutableModelFile &f : modelFiles) {
        if (f.model == model)
            return &f;
    }
    return nullptr;
}

std::string ExecutablePipelineFacts::taskOfLoss(const std::string &loss) const
{
    for (const ExecutableLoss &l : losses) {
        if (l.name == loss)
            return l.task;
    }
    return {};
}

const std::vector<ExecutablePipelineFacts> &executableCatalog()
{
    static const std::vector<ExecutablePipelineFacts> catalog = {tinyQwenImage()};
    return catalog;
}

const ExecutablePipelineFacts *findExecutableFacts(const std::string &name)
{
    for (const ExecutablePipelineFacts &p : executableCatalog()) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

} // namespace splitscope::engine
