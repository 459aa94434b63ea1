// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace splitscope::plan::testing {

// A safetensors file with these tensors (float32, zeros): only the names and shapes
// matter to DiffSynth's hash.
inline void writeSafetensors(const std::filesystem::path &path, const std::map<std::string, std::vector<std::int64_t>> &tensors)
{
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto &[name, shape] : tensors) {
        std::uint64_t count = 1;
        for (const std::int64_t d : shape)
            count *= static_cast<std::uint64_t>(d);
        header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {offset, offset + 4 * count}}};
        offset += 4 * count;
    }
    std::string text = header.dump();
    text.resize((text.size() + 7) / 8 * 8, ' ');
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i)
        out.put(static_cast<char>((length >> (8 * i)) & 0xff));
    out << text << std::string(static_cast<std::size_t>(offset), '\0');
}

// The model files of the miniature checkout's tiny_image pipeline, under `root`/models,
// with the tensor names and shapes whose hashes its model_configs.py lists.
inline void writeTinyModels(const std::filesystem::path &root)
{
    const std::filesystem::path models = root / "models" / "Tiny";
    writeSafetensors(models / "Tiny-Image/transformer/diffusion_pytorch_model-00001-of-00002.safetensors",
        {{"blocks.0.attn.to_q.weight", {8, 8}}, {"blocks.0.attn.to_q.bias", {8}}, {"blocks.0.proj.weight", {8, 8}}});
    writeSafetensors(models / "Tiny-Image/transformer/diffusion_pytorch_model-00002-of-00002.safetensors",
        {{"proj_out.weight", {4, 8}}});
    writeSafetensors(models / "Tiny-Image/text_encoder/model.safetensors",
        {{"embedding.weight", {256, 8}}, {"norm.weight", {8}}});
    writeSafetensors(models / "Tiny-Image/vae/diffusion_pytorch_model.safetensors",
        {{"encoder.conv_in.weight", {8, 3, 3, 3}}, {"encoder.conv_in.bias", {8}}, {"decoder.conv_out.weight", {3, 8, 3, 3}}});
    writeSafetensors(models / "Tiny-Combo/model.safetensors",
        {{"embedding.weight", {256, 8}}, {"norm.weight", {8}}, {"encoder.conv_in.weight", {8, 3, 3, 3}},
            {"encoder.conv_in.bias", {8}}, {"decoder.conv_out.weight", {3, 8, 3, 3}}});
}

} // namespace splitscope::plan::testing
