// SPDX-License-Identifier: MIT
// sampleImages (Engine.h): text-to-image with the tiny DiT (optionally with a
// trained LoRA), Euler steps of the Qwen-Image flow-matching schedule, decoded by
// the VAE: a look at what training did.
#include "ComputeThreads.h"
#include "Engine.h"
#include "FlowMatchScheduler.h"
#include "ModelSet.h"
#include "SeedSequence.h"
#include "UnitRuntime.h"

#include <cstdio>
#include <filesystem>

namespace splitscope::engine {

namespace fs = std::filesystem;

bool sampleImages(const SampleParams &params, std::vector<std::string> *written, std::string *error, bool *badInput)
{
    if (badInput)
        *badInput = false;
    // The work failed (writing a PNG, LibTorch).
    auto fail = [&](const std::string &message) {
        if (error)
            *error = message;
        return false;
    };
    // The flags or input files are wrong.
    auto bad = [&](const std::string &message) {
        if (badInput)
            *badInput = true;
        return fail(message);
    };
    if (params.prompts.empty())
        return bad("no prompt to sample (--prompt)");
    for (std::size_t i = 0; i < params.prompts.size(); ++i) {
        if (params.prompts[i].find_first_not_of(" \t") == std::string::npos)
            return bad("--prompt: prompt " + std::to_string(i + 1) + " of " + std::to_string(params.prompts.size())
                + " is empty (prompts are separated by '|')");
    }
    if (params.width % 16 != 0 || params.height % 16 != 0 || params.width < 16 || params.height < 16)
        return bad("--width and --height must be multiples of 16 (got " + std::to_string(params.width) + "x"
            + std::to_string(params.height) + ")");
    if (params.steps < 1 || params.steps > 1000)
        return bad("--steps must be in 1..1000");
    std::vector<ModelPathSpec> specs;
    std::vector<ResolvedModel> resolved;
    std::string e;
    if (!parseModelPathSpecs(params.modelIdWithOriginPaths, "model_id_with_origin_paths", specs, &e)
        || !resolveModels(resolveModelRoot(params.modelRoot), specs, resolved, &e))
        return bad(e);
    applyComputeThreads(params.numThreads);
    std::vector<std::string> files;
    try {
        ModelSet models(resolved, {}, params.tokenizerPath, nullptr);
        if (!params.loraPath.empty()) {
            ModelSet::TrainingSetup setup;
            setup.loraBaseModel = "dit";
            setup.loraTargets = splitCommaList(params.loraTargetModules);
            setup.loraRank = params.loraRank;
            setup.loraCheckpoint = params.loraPath;
            setup.loraCheckpointFlag = "--lora";
            setup.loraCheckpointComplete = true;
            if (setup.loraTargets.empty())
                return bad("--lora_target_modules is required with --lora");
            models.setTrainingSetup(setup);
        }
        torch::NoGradGuard noGrad;
        const std::string caller = "sample";
        const Tokenizer &tokenizer = models.tokenizer(caller);
        TextEncoderImpl &encoder = models.textEncoder(caller);
        VaeImpl &vae = models.vae(caller);
        QwenImageDiTImpl &dit = models.dit(caller);
        const FlowMatchScheduler scheduler(params.steps);
        std::error_code ec;
        fs::create_directories(params.outputDirectory, ec);
        for (std::size_t i = 0; i < params.prompts.size(); ++i) {
            std::vector<std::int64_t> ids;
            std::vector<std::int64_t> mask;
            tokenizer.encodePadded(params.prompts[i], encoder.config().maxLength, ids, mask);
            const auto text = encoder.forward(torch::tensor(ids).unsqueeze(0), torch::tensor(mask).unsqueeze(0), {});
            const int factor = vae.config().downsampleFactor();
            auto generator = at::make_generator<at::CPUGeneratorImpl>(deriveSeed(params.seed, 0, i, RandomPurpose::UnitNoise));
            torch::Tensor latents = torch::randn({1, vae.config().latentChannels, params.height / factor, params.width / factor}, generator);
            for (int s = 0; s < scheduler.steps(); ++s) {
                const torch::Tensor velocity = dit.forward(latents, torch::tensor({static_cast<float>(scheduler.timestep(s))}),
                    text.hidden, text.mask, {}, false);
                latents = latents + velocity * (scheduler.nextSigma(s) - scheduler.sigma(s));
            }
            const torch::Tensor pixels = ((vae.decode(latents)[0] + 1.0) * 127.5).round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
            Image image;
            image.height = static_cast<int>(pixels.size(0));
            image.width = static_cast<int>(pixels.size(1));
            image.rgb.assign(pixels.data_ptr<std::uint8_t>(), pixels.data_ptr<std::uint8_t>() + pixels.numel());
            char name[32];
            std::snprintf(name, sizeof(name), "sample-%03zu.png", i);
            const std::string path = (fs::path(params.outputDirectory) / name).string();
            if (!writePngFile(path, image, &e))
                return fail(e);
            files.push_back(path);
        }
    } catch (const EngineInputError &ex) {
        return bad(ex.what());
    } catch (const c10::Error &ex) {
        // LibTorch's messages carry a backtrace after the first line.
        const std::string what = ex.what_without_backtrace();
        return fail("LibTorch: " + what.substr(0, what.find('\n')));
    } catch (const std::exception &ex) {
        return fail(ex.what());
    }
    if (written)
        *written = files;
    return true;
}

} // namespace splitscope::engine
