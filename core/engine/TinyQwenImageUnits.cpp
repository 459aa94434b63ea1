// SPDX-License-Identifier: MIT
// The built-in pipeline `tiny-qwen-image`: each unit's declaration next to its code
// (the single source of truth for `splitscope-cli describe` and for the split).
#include "Losses.h"
#include "ModelSet.h"
#include "SeedSequence.h"
#include "TinyQwenImage.h"
#include "UnitRuntime.h"

namespace splitscope::engine {

namespace {

// Qwen-Image keeps sides at multiples of 16 (VAE factor 8 x DiT patch 2).
constexpr std::int64_t kSizeDivision = 16;

// QwenImageUnit_ShapeChecker: height and width rounded down to a multiple of 16.
void shapeChecker(RunContext &, UnitIO &io)
{
    const std::int64_t height = io.integer("height");
    const std::int64_t width = io.integer("width");
    if (height < kSizeDivision || width < kSizeDivision)
        throw EngineError(io.owner() + ": the image is " + std::to_string(width) + "x" + std::to_string(height)
            + ", smaller than 16x16");
    io.set("height", Value::ofInt(height / kSizeDivision * kSizeDivision));
    io.set("width", Value::ofInt(width / kSizeDivision * kSizeDivision));
}

// QwenImageUnit_NoiseInitializer: Gaussian noise of the latents' shape, drawn from
// the `seed` input (the loader derives one per sample from --seed, as DiffSynth
// passes `seed` to generate_noise).
void noiseInitializer(RunContext &, UnitIO &io)
{
    const VaeConfig vae = io.modelSet().vaeConfig(io.owner());
    const std::int64_t factor = vae.downsampleFactor();
    const std::int64_t height = io.integer("height");
    const std::int64_t width = io.integer("width");
    const auto seed = static_cast<std::uint64_t>(io.integer("seed"));
    auto generator = at::make_generator<at::CPUGeneratorImpl>(deriveSeed(seed, 0, 0, RandomPurpose::UnitNoise));
    io.set("noise", Value::ofTensor(torch::randn({1, vae.latentChannels, height / factor, width / factor}, generator)));
}

// QwenImageUnit_InputImageEmbedder: VAE-encodes the target image; in training the
// start latents are the noise (DiffSynth returns {"latents": noise, "input_latents": ...}).
void inputImageEmbedder(RunContext &, UnitIO &io)
{
    const torch::Tensor noise = io.tensor("noise");
    const Value *image = io.image("input_image");
    if (!image) {
        io.set("latents", Value::ofTensor(noise));
        return;
    }
    io.set("latents", Value::ofTensor(noise));
    io.set("input_latents", Value::ofTensor(io.vae().encode(imageToTensor(*image))));
}

// QwenImageUnit_PromptEmbedder: tokenizes the prompt (padded to the encoder's
// length) and encodes it, with the edit image's patches in front when there is
// one; the mask marks real tokens. It reads `edit_image` as Z-Image's prompt
// embedder does, which is what makes training the text encoder hazardous below.
void promptEmbedder(RunContext &, UnitIO &io)
{
    const std::string prompt = io.text("prompt", "");
    const Value *edit = io.image("edit_image");
    const Tokenizer &tokenizer = io.tokenizer();
    TextEncoderImpl &encoder = io.textEncoder();
    std::vector<std::int64_t> ids;
    std::vector<std::int64_t> mask;
    tokenizer.encodePadded(prompt, encoder.config().maxLength, ids, mask);
    const torch::Tensor idTensor = torch::tensor(ids, torch::kInt64).unsqueeze(0);
    const torch::Tensor maskTensor = torch::tensor(mask, torch::kInt64).unsqueeze(0);
    const auto out = encoder.forward(idTensor, maskTensor, edit ? imageToTensor(*edit) : torch::Tensor());
    io.set("prompt_emb", Value::ofTensor(out.hidden));
    io.set("prompt_emb_mask", Value::ofTensor(out.mask));
}

// ZImageUnit_EditImageAutoResize: crops and resizes the edit image to the output
// size when `edit_image_auto_resize` is on (DiffSynth's ImageCropAndResize).
void editImageAutoResize(RunContext &, UnitIO &io)
{
    const Value *edit = io.image("edit_image");
    if (!edit || !io.flag("edit_image_auto_resize", false))
        return;
    const Image resized = cropAndResize(edit->toImage(), static_cast<int>(io.integer("width")), static_cast<int>(io.integer("height")));
    io.set("edit_image", Value::ofImage(resized));
}

// QwenImageUnit_EditImageEmbedder: VAE-encodes the (resized) edit image.
void editImageEmbedder(RunContext &, UnitIO &io)
{
    const Value *edit = io.image("edit_image");
    if (!edit)
        return;
    io.set("edit_latents", Value::ofTensor(io.vae().encode(imageToTensor(*edit))));
}

PipelineDeclaration makeDeclaration()
{
    PipelineDeclaration p;
    p.name = "tiny-qwen-image";
    p.source = "splitscope built-in (core/engine/TinyQwenImageUnits.cpp): executable units modeled on DiffSynth-Studio's "
               "Qwen-Image training units, with Z-Image's edit_image arrangement (the prompt embedder reads edit_image, "
               "a later EditImageAutoResize rewrites it)";
    p.models = {"text_encoder", "dit", "vae"};

    UnitDeclaration shape;
    shape.name = "QwenImageUnit_ShapeChecker";
    shape.inputParams = {"height", "width"};
    shape.outputParams = {"height", "width"};
    shape.doc = "Rounds height and width down to multiples of 16.";
    shape.process = shapeChecker;

    UnitDeclaration noise;
    noise.name = "QwenImageUnit_NoiseInitializer";
    noise.inputParams = {"height", "width", "seed"};
    noise.outputParams = {"noise"};
    noise.stochastic = true;
    noise.doc = "Draws the start noise from the per-sample seed.";
    noise.process = noiseInitializer;

    UnitDeclaration input;
    input.name = "QwenImageUnit_InputImageEmbedder";
    input.inputParams = {"input_image", "noise"};
    input.outputParams = {"latents", "input_latents"};
    input.models = {"vae"};
    input.doc = "VAE-encodes the target image (input_latents); the start latents are the noise.";
    input.process = inputImageEmbedder;

    UnitDeclaration prompt;
    prompt.name = "QwenImageUnit_PromptEmbedder";
    prompt.inputParams = {"edit_image"};
    prompt.inputParamsPosi = ParamMap{{"prompt", "prompt"}};
    prompt.inputParamsNega = ParamMap{{"prompt", "negative_prompt"}};
    prompt.outputParams = {"prompt_emb", "prompt_emb_mask"};
    prompt.models = {"text_encoder"};
    prompt.seperateCfg = true;
    prompt.doc = "Encodes the prompt with the text encoder, the edit image's patches in front (as Z-Image does).";
    prompt.process = promptEmbedder;

    UnitDeclaration resize;
    resize.name = "ZImageUnit_EditImageAutoResize";
    resize.inputParams = {"edit_image", "edit_image_auto_resize", "height", "width"};
    resize.outputParams = {"edit_image"};
    resize.doc = "Crops and resizes the edit image to the output size; runs after the prompt embedder has read it.";
    resize.process = editImageAutoResize;

    UnitDeclaration edit;
    edit.name = "QwenImageUnit_EditImageEmbedder";
    edit.inputParams = {"edit_image"};
    edit.outputParams = {"edit_latents"};
    edit.models = {"vae"};
    edit.doc = "VAE-encodes the resized edit image.";
    edit.process = editImageEmbedder;

    p.units = {shape, noise, input, prompt, resize, edit};

    LossDeclaration sft;
    sft.task = "sft";
    sft.name = "FlowMatchSFTLoss";
    sft.inputParams = {"input_latents", "prompt_emb", "prompt_emb_mask", "edit_latents", "height", "width"};
    sft.models = {"dit"};
    sft.doc = "Fresh timestep and noise each step; the DiT predicts the velocity noise - x0.";
    sft.process = flowMatchSftLoss;

    LossDeclaration distill;
    distill.task = "direct_distill";
    distill.name = "DirectDistillLoss";
    distill.inputParams = {"latents", "input_latents", "prompt_emb", "prompt_emb_mask", "edit_latents", "height", "width",
        "num_inference_steps"};
    distill.models = {"dit"};
    distill.doc = "A few-step sampling loop from the cached start latents, backpropagated; MSE to the image latents.";
    distill.process = directDistillLoss;

    p.losses = {sft, distill};

    // The values above, as the units and losses read them. Latents are what the DiT
    // takes (its latent channels); the prompt embedding is what it attends to (its
    // joint attention width). Within one sample, latents share h and w, and the
    // embedding and its mask share L. Trainer::pipelineInputs makes the inputs.
    auto tensor = [](const char *dtype, std::vector<std::string> shape, bool optional = false) {
        return ParamSpec{"tensor", dtype, std::move(shape), optional};
    };
    auto other = [](const char *kind, bool optional = false) { return ParamSpec{kind, "", {}, optional}; };
    p.params = {
        {"height", other("int")},
        {"width", other("int")},
        {"seed", other("int")},
        {"num_inference_steps", other("int")},
        {"edit_image_auto_resize", other("bool")},
        {"prompt", other("text")},
        {"negative_prompt", other("text", true)},
        {"input_image", other("image")},
        {"edit_image", other("image", true)},
        {"noise", tensor("F32", {"1", "dit.latent_channels", "h", "w"})},
        {"latents", tensor("F32", {"1", "dit.latent_channels", "h", "w"})},
        {"input_latents", tensor("F32", {"1", "dit.latent_channels", "h", "w"})},
        {"edit_latents", tensor("F32", {"1", "dit.latent_channels", "edit_h", "edit_w"}, true)},
        {"prompt_emb", tensor("F32", {"1", "L", "dit.joint_attention_dim"})},
        {"prompt_emb_mask", tensor("I64", {"1", "L"})},
    };

    p.training.loraBaseModel = "dit";
    TrainingConfig textEncoder;
    textEncoder.loraBaseModel = "dit";
    textEncoder.trainableModels = "text_encoder";
    TrainingConfig vae;
    vae.trainableModels = "vae";
    p.alternativeTraining = {textEncoder, vae};
    return p;
}

} // namespace

const PipelineDeclaration &tinyQwenImageDeclaration()
{
    static const PipelineDeclaration declaration = makeDeclaration();
    return declaration;
}

} // namespace splitscope::engine
