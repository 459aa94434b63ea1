// SPDX-License-Identifier: MIT
#include "ModelConfig.h"

#include "JsonDocument.h"

#include <cmath>

namespace splitscope::engine {

namespace {

// Reads `key` as a positive integer (or a number for doubles); a missing key keeps
// the default, a wrong one is an error naming the file, the key's line and column,
// what it must hold and what it holds.
class ConfigReader {
public:
    ConfigReader(const std::string &json, const std::string &label, std::string *error)
        : m_text(json)
        , m_label(label)
        , m_error(error)
    {
        m_ok = parseJsonObject(json, label, m_doc, error);
    }
    bool ok() const { return m_ok; }
    void integer(const char *key, int &value, int minimum = 1)
    {
        if (!m_ok || !m_doc.contains(key))
            return;
        try {
            value = static_cast<int>(jsonInteger(m_doc[key], JsonPath().key(key), minimum, 1000000));
        } catch (const JsonFieldError &e) {
            fail(e);
        }
    }
    void number(const char *key, double &value)
    {
        if (!m_ok || !m_doc.contains(key))
            return;
        const auto &v = m_doc[key];
        if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
            fail(JsonFieldError(JsonPath().key(key), "expected a positive number, found " + jsonValueDescription(v)));
            return;
        }
        value = v.get<double>();
    }
    void integers(const char *key, std::vector<int> &value)
    {
        if (!m_ok || !m_doc.contains(key))
            return;
        const auto &v = m_doc[key];
        const JsonPath path = JsonPath().key(key);
        if (!v.is_array() || v.empty()) {
            fail(JsonFieldError(path, "expected a non-empty list of whole numbers from 1 to 64, found " + jsonValueDescription(v)));
            return;
        }
        std::vector<int> out;
        try {
            for (std::size_t i = 0; i < v.size(); ++i)
                out.push_back(static_cast<int>(jsonInteger(v[i], path.index(i), 1, 64)));
        } catch (const JsonFieldError &e) {
            fail(e);
            return;
        }
        value = out;
    }
    // A value that is wrong together with others (a size two keys must agree on).
    void fail(const std::string &key, const std::string &message)
    {
        fail(JsonFieldError(JsonPath().key(key), message));
    }
    void fail(const JsonFieldError &e)
    {
        if (!m_ok)
            return;
        m_ok = false;
        if (m_error)
            *m_error = jsonFieldMessage(m_text, m_label, e);
    }
    const nlohmann::json &doc() const { return m_doc; }

private:
    const std::string &m_text;
    nlohmann::json m_doc;
    std::string m_label;
    std::string *m_error;
    bool m_ok = true;
};

} // namespace

const char *modelKindName(ModelKind kind)
{
    switch (kind) {
    case ModelKind::TextEncoder:
        return "text_encoder";
    case ModelKind::Vae:
        return "vae";
    case ModelKind::Dit:
        return "dit";
    }
    return "?";
}

bool parseModelKind(const std::string &name, ModelKind &kind)
{
    for (const ModelKind k : {ModelKind::TextEncoder, ModelKind::Vae, ModelKind::Dit}) {
        if (name == modelKindName(k)) {
            kind = k;
            return true;
        }
    }
    return false;
}

bool modelPreset(const std::string &name, ModelPreset &preset)
{
    ModelPreset p;
    p.name = name;
    if (name == "default") {
        preset = p;
        return true;
    }
    if (name == "small") {
        // Tests: the same architecture, a few times cheaper.
        p.textEncoder.hiddenSize = 64;
        p.textEncoder.numLayers = 2;
        p.textEncoder.numHeads = 2;
        p.textEncoder.intermediateSize = 128;
        p.textEncoder.maxLength = 16;
        p.vae.baseChannels = 8;
        p.vae.channelMultipliers = {1, 2, 2};
        p.vae.groups = 4;
        p.vae.latentChannels = 4;
        p.dit.numLayers = 2;
        p.dit.numHeads = 2;
        p.dit.headDim = 16;
        p.dit.latentChannels = 4;
        p.dit.jointAttentionDim = 64;
        preset = p;
        return true;
    }
    return false;
}

std::vector<std::string> modelPresetNames()
{
    return {"default", "small"};
}

std::string textEncoderConfigJson(const TextEncoderConfig &c)
{
    nlohmann::ordered_json doc;
    doc["splitscope_model"] = "text_encoder";
    doc["_class_name"] = "TinyQwen2VLTextEncoder";
    doc["vocab_size"] = c.vocabSize;
    doc["hidden_size"] = c.hiddenSize;
    doc["num_hidden_layers"] = c.numLayers;
    doc["num_attention_heads"] = c.numHeads;
    doc["intermediate_size"] = c.intermediateSize;
    doc["max_length"] = c.maxLength;
    doc["vision_patch_size"] = c.visionPatchSize;
    doc["rope_theta"] = c.ropeTheta;
    doc["rms_norm_eps"] = c.rmsNormEps;
    return doc.dump(2) + "\n";
}

std::string vaeConfigJson(const VaeConfig &c)
{
    nlohmann::ordered_json doc;
    doc["splitscope_model"] = "vae";
    doc["_class_name"] = "TinyAutoencoderKLQwenImage";
    doc["base_channels"] = c.baseChannels;
    doc["channel_multipliers"] = c.channelMultipliers;
    doc["num_res_blocks"] = c.numResBlocks;
    doc["latent_channels"] = c.latentChannels;
    doc["norm_num_groups"] = c.groups;
    doc["scaling_factor"] = c.scalingFactor;
    return doc.dump(2) + "\n";
}

std::string ditConfigJson(const DitConfig &c)
{
    nlohmann::ordered_json doc;
    doc["splitscope_model"] = "dit";
    doc["_class_name"] = "TinyQwenImageTransformer2DModel";
    doc["num_layers"] = c.numLayers;
    doc["num_attention_heads"] = c.numHeads;
    doc["attention_head_dim"] = c.headDim;
    doc["patch_size"] = c.patchSize;
    doc["latent_channels"] = c.latentChannels;
    doc["joint_attention_dim"] = c.jointAttentionDim;
    doc["mlp_ratio"] = c.mlpRatio;
    return doc.dump(2) + "\n";
}

bool parseModelKindOf(const std::string &json, const std::string &label, ModelKind &kind, std::string *error)
{
    ConfigReader reader(json, label, error);
    if (!reader.ok())
        return false;
    const auto it = reader.doc().find("splitscope_model");
    if (it == reader.doc().end() || !it->is_string() || !parseModelKind(it->get<std::string>(), kind)) {
        reader.fail("splitscope_model", "must be \"text_encoder\", \"vae\" or \"dit\" (it says which model the weights beside it are)");
        return false;
    }
    return true;
}

bool parseTextEncoderConfig(const std::string &json, const std::string &label, TextEncoderConfig &config, std::string *error)
{
    ConfigReader r(json, label, error);
    r.integer("vocab_size", config.vocabSize);
    r.integer("hidden_size", config.hiddenSize);
    r.integer("num_hidden_layers", config.numLayers);
    r.integer("num_attention_heads", config.numHeads);
    r.integer("intermediate_size", config.intermediateSize);
    r.integer("max_length", config.maxLength);
    r.integer("vision_patch_size", config.visionPatchSize);
    r.number("rope_theta", config.ropeTheta);
    r.number("rms_norm_eps", config.rmsNormEps);
    if (r.ok() && (config.hiddenSize % config.numHeads != 0 || (config.hiddenSize / config.numHeads) % 2 != 0))
        r.fail("hidden_size", "must be a multiple of num_attention_heads with an even head size");
    return r.ok();
}

bool parseVaeConfig(const std::string &json, const std::string &label, VaeConfig &config, std::string *error)
{
    ConfigReader r(json, label, error);
    r.integer("base_channels", config.baseChannels);
    r.integers("channel_multipliers", config.channelMultipliers);
    r.integer("num_res_blocks", config.numResBlocks);
    r.integer("latent_channels", config.latentChannels);
    r.integer("norm_num_groups", config.groups);
    r.number("scaling_factor", config.scalingFactor);
    if (r.ok()) {
        for (const int m : config.channelMultipliers) {
            if ((config.baseChannels * m) % config.groups != 0) {
                r.fail("norm_num_groups", "must divide every level's channel count (base_channels x multiplier)");
                break;
            }
        }
    }
    return r.ok();
}

bool parseDitConfig(const std::string &json, const std::string &label, DitConfig &config, std::string *error)
{
    ConfigReader r(json, label, error);
    r.integer("num_layers", config.numLayers);
    r.integer("num_attention_heads", config.numHeads);
    r.integer("attention_head_dim", config.headDim);
    r.integer("patch_size", config.patchSize);
    r.integer("latent_channels", config.latentChannels);
    r.integer("joint_attention_dim", config.jointAttentionDim);
    r.integer("mlp_ratio", config.mlpRatio);
    if (r.ok() && config.innerDim() % 4 != 0)
        r.fail("attention_head_dim", "num_attention_heads x attention_head_dim must be a multiple of 4 (positions)");
    return r.ok();
}

} // namespace splitscope::engine
