// SPDX-License-Identifier: MIT
#include "ModelFiles.h"

#include "core/AtomicFile.h"
#include "core/importer/ModuleSet.h"
#include "core/importer/PythonValue.h"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <glob.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>

namespace splitscope::plan {

namespace {

// A safetensors header above this is not a model file DiffSynth reads.
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

std::string md5Hex(const std::string &text)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(text.data(), text.size(), digest, &length, EVP_md5(), nullptr);
    static const char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out += kHex[digest[i] >> 4];
        out += kHex[digest[i] & 15];
    }
    return out;
}

void addError(Diagnostics &diagnostics, const std::string &file, std::string message, int line = 0)
{
    Diagnostic d;
    d.severity = Severity::Warning;
    d.code = "model-configs";
    d.file = file;
    d.line = line;
    d.message = std::move(message);
    diagnostics.push_back(std::move(d));
}

// The environment variable and the default of ModelConfig.reset_local_model_path:
// `os.environ.get("NAME")`, and the str it assigns to self.local_model_path.
void readBasePath(const std::string &file, ModelConfigs &out)
{
    std::string text, error;
    if (!readWholeFile(file, text, &error))
        return;
    const std::unique_ptr<importer::PythonModule> module = importer::PythonModule::read(text, file, false);
    const importer::ClassDef *cls = module->ok() ? module->findClass("ModelConfig") : nullptr;
    const importer::FunctionDef *method = cls ? cls->method("reset_local_model_path") : nullptr;
    if (!method)
        return;
    const python::AstTree &t = module->tree();
    for (python::NodeId id = method->node; id < t.node(method->node).end; ++id) {
        const Span<python::NodeId> args = t.children(id, "args");
        if (t.is(id, "Call") && t.dottedName(t.child(id, "func")) == "os.environ.get" && !args.empty()
            && t.is(t.child(args[0], "value"), "str"))
            out.baseVariable = t.text(args[0], "value");
        if (t.is(id, "Assign") && importer::attributeOf(t, t.children(id, "targets")[0]) == "local_model_path"
            && t.is(t.child(t.child(id, "value"), "value"), "str"))
            out.defaultBase = t.text(t.child(id, "value"), "value");
    }
}

// The example comments belong to the config whose dict they are in: the last one that
// starts on or before the comment's line. A comment is not in CPython's tree: it is read
// from the text, and only in the one shape the file writes it.
void readExamples(const std::string &text, std::vector<ModelConfigs::Name> named, ModelConfigs &out)
{
    std::sort(named.begin(), named.end(), [](const auto &a, const auto &b) { return a.line < b.line; });
    static const std::regex example(
        R"re(^\s*#\s*Example:\s*ModelConfig\(\s*model_id\s*=\s*"([^"]+)"\s*,\s*origin_file_pattern\s*=\s*"([^"]+)"\s*\))re");
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        std::smatch m;
        if (line.find("Example") == std::string::npos || !std::regex_search(line, m, example))
            continue;
        const auto after = std::upper_bound(named.begin(), named.end(), number,
            [](int n, const ModelConfigs::Name &c) { return n < c.line; });
        if (after == named.begin())
            continue;
        out.byExample[m[1].str() + ":" + m[2].str()].push_back({std::prev(after)->model, number});
    }
}

} // namespace

SafetensorsHeader readSafetensorsHeader(const std::string &path)
{
    SafetensorsHeader out;
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    unsigned char size[8];
    if (!file || std::fread(size, 1, 8, file.get()) != 8) {
        out.error = file ? "shorter than a safetensors header" : "cannot be read";
        return out;
    }
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | size[i];
    if (length == 0 || length > kMaxHeaderBytes) {
        out.error = "not a safetensors file (its header would be " + std::to_string(length) + " bytes)";
        return out;
    }
    std::string header(static_cast<std::size_t>(length), '\0');
    if (std::fread(header.data(), 1, header.size(), file.get()) != header.size()) {
        out.error = "its safetensors header is cut short";
        return out;
    }
    const nlohmann::json doc = nlohmann::json::parse(header, nullptr, false);
    if (!doc.is_object()) {
        out.error = "its safetensors header is not a JSON object";
        return out;
    }
    for (const auto &[name, tensor] : doc.items()) {
        if (name == "__metadata__")
            continue;
        const auto shape = tensor.is_object() ? tensor.find("shape") : tensor.end();
        const auto offsets = tensor.is_object() ? tensor.find("data_offsets") : tensor.end();
        if (shape == tensor.end() || !shape->is_array() || offsets == tensor.end() || !offsets->is_array()
            || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
            out.error = "tensor '" + name + "' in its header has no shape or data_offsets";
            return out;
        }
        std::vector<std::int64_t> &dims = out.shapes[name];
        for (const auto &d : *shape)
            dims.push_back(d.is_number_integer() ? d.get<std::int64_t>() : -1);
        const auto begin = (*offsets)[0].get<std::uint64_t>();
        const auto end = (*offsets)[1].get<std::uint64_t>();
        out.bytes += end > begin ? end - begin : 0;
    }
    return out;
}

std::string diffSynthModelHash(const std::vector<SafetensorsHeader> &files)
{
    std::map<std::string, std::vector<std::int64_t>> tensors;
    for (const SafetensorsHeader &f : files) {
        for (const auto &[name, shape] : f.shapes)
            tensors[name] = shape; // as dict.update: a name in two files counts once
    }
    std::vector<std::string> keys;
    for (const auto &[name, shape] : tensors) {
        std::string dims;
        for (std::size_t i = 0; i < shape.size(); ++i)
            dims += (i ? "_" : "") + std::to_string(shape[i]);
        keys.push_back(name + ":" + dims);
        keys.push_back(name);
    }
    std::sort(keys.begin(), keys.end()); // Python sorts str by code point: UTF-8 bytes sort alike
    std::string joined;
    for (std::size_t i = 0; i < keys.size(); ++i)
        joined += (i ? "," : "") + keys[i];
    return md5Hex(joined);
}

std::vector<std::string> entryFiles(const std::string &base, const std::string &modelId, const std::string &pattern)
{
    std::string effective = pattern;
    if (effective.empty() || effective == "./")
        effective = "*";
    else if (effective.back() == '/')
        effective += "*";
    const std::string full = (std::filesystem::path(base) / modelId / effective).string();
    glob_t found{};
    std::vector<std::string> out;
    if (glob(full.c_str(), 0, nullptr, &found) == 0) {
        for (std::size_t i = 0; i < found.gl_pathc; ++i) {
            std::error_code ec;
            if (std::filesystem::is_regular_file(found.gl_pathv[i], ec))
                out.emplace_back(found.gl_pathv[i]);
        }
    }
    globfree(&found);
    std::sort(out.begin(), out.end());
    return out;
}

ModelConfigs readModelConfigs(const std::string &checkout)
{
    ModelConfigs out;
    readBasePath((std::filesystem::path(checkout) / "diffsynth" / "core" / "loader" / "config.py").string(), out);
    out.file = (std::filesystem::path(checkout) / "diffsynth" / "configs" / "model_configs.py").string();
    std::string text, error;
    if (!readWholeFile(out.file, text, &error)) {
        addError(out.diagnostics, out.file, "cannot read the model configurations: " + error);
        return out;
    }
    importer::ModuleSet modules;
    modules.add(importer::PythonModule::read(text, out.file, false));
    const importer::PythonModule &module = *modules.modules().front();
    const auto list = module.constants().find("MODEL_CONFIGS");
    if (!module.ok() || list == module.constants().end()) {
        addError(out.diagnostics, out.file, module.ok() ? "no MODEL_CONFIGS list" : "Python syntax error: " + module.syntaxError(),
            module.syntaxErrorLine());
        return out;
    }
    importer::ValueEvaluator evaluator(modules);
    const importer::Value configs = evaluator.evaluate(module, list->second.value);
    if (configs.kind != importer::Value::Kind::Sequence) {
        addError(out.diagnostics, out.file, "MODEL_CONFIGS is not a list this reader can read: " + configs.text, configs.line);
        return out;
    }
    std::vector<ModelConfigs::Name> named; // each config's model and the line its dict starts on
    for (const importer::Value &config : configs.items) {
        std::string hash, name;
        for (const auto &[key, value] : config.entries) {
            if (key == "model_hash" && value.kind == importer::Value::Kind::String)
                hash = value.text;
            if (key == "model_name" && value.kind == importer::Value::Kind::String)
                name = value.text;
        }
        if (!hash.empty() && !name.empty()) {
            out.byHash[hash].push_back({name, config.line});
            named.push_back({name, config.line});
        }
    }
    readExamples(text, named, out);
    return out;
}

} // namespace splitscope::plan
