// SPDX-License-Identifier: MIT
// Writing `splitscope.pipeline/1` documents in their canonical form (PipelineFile.h).
#include "PipelineFile.h"

#include "AtomicFile.h"
#include "NameIndex.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string_view>

namespace splitscope {

namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson stringList(const std::vector<std::string> &list, bool asString, bool asNull = false)
{
    if (asNull && list.empty())
        return nullptr;
    if (asString && list.size() == 1)
        return list.front();
    OrderedJson array = OrderedJson::array();
    for (const auto &s : list)
        array.push_back(s);
    return array;
}

// Sets `key: toJson(value)` for each pair, as OrderedJson's operator[] does (a key
// already there keeps its place and takes the new value). ordered_map is a vector that
// operator[] searches linearly, so past a few keys this indexes them instead: saving
// 10^5 keys in one object took 20 s.
template <typename Pairs, typename ToJson>
void setMembers(OrderedJson &object, const Pairs &pairs, ToJson toJson)
{
    constexpr std::size_t kLinearLimit = 16; // members up to which operator[] is the faster
    if (object.size() + pairs.size() <= kLinearLimit) {
        for (const auto &[key, value] : pairs)
            object[key] = toJson(value);
        return;
    }
    auto &members = static_cast<OrderedJson::object_t::Container &>(object.get_ref<OrderedJson::object_t &>());
    struct Keys {
        const OrderedJson::object_t::Container &members;
        std::string_view operator[](std::int32_t i) const { return members[static_cast<std::size_t>(i)].first; }
    } keys{members};
    NameIndex index;
    index.reserve(members.size() + pairs.size());
    for (std::size_t i = 0; i < members.size(); ++i)
        index.insertExisting(static_cast<std::int32_t>(i), keys);
    for (const auto &[key, value] : pairs) {
        const auto id = static_cast<std::int32_t>(members.size());
        members.emplace_back(key, toJson(value));
        const std::int32_t first = index.insertExisting(id, keys);
        if (first != id) { // a repeated key: the first place takes the value
            members[static_cast<std::size_t>(first)].second = std::move(members.back().second);
            members.pop_back();
        }
    }
}

OrderedJson paramMap(const std::optional<ParamMap> &map)
{
    if (!map)
        return nullptr;
    OrderedJson object = OrderedJson::object();
    setMembers(object, *map, [](const std::string &value) { return OrderedJson(value); });
    return object;
}

void addExtra(OrderedJson &object, const ExtraMembers &extra)
{
    setMembers(object, extra, [](const std::string &raw) { return OrderedJson::parse(raw); });
}

OrderedJson trainingJson(const TrainingConfig &config, bool full)
{
    OrderedJson t = OrderedJson::object();
    if (full || config.loraBaseModel)
        t["lora_base_model"] = config.loraBaseModel ? OrderedJson(*config.loraBaseModel) : OrderedJson(nullptr);
    if (full || config.trainableModels)
        t["trainable_models"] = config.trainableModels ? OrderedJson(*config.trainableModels) : OrderedJson(nullptr);
    addExtra(t, config.extra);
    return t;
}

} // namespace

std::string serializePipeline(const Pipeline &p)
{
    OrderedJson doc = OrderedJson::object();
    doc["format"] = p.format;
    doc["name"] = p.name;
    if (p.source)
        doc["source"] = *p.source;
    OrderedJson models = OrderedJson::array();
    for (const ModelSpec &m : p.models) {
        if (!m.writtenAsObject) {
            models.push_back(m.name);
            continue;
        }
        OrderedJson object = OrderedJson::object();
        object["name"] = m.name;
        if (m.params)
            object["params"] = *m.params;
        if (m.dtype)
            object["dtype"] = *m.dtype;
        addExtra(object, m.extra);
        models.push_back(std::move(object));
    }
    if (p.modelsWasString && models.size() == 1 && models.front().is_string())
        doc["models"] = std::move(models.front()); // as written: a lone name, read with a warning
    else
        doc["models"] = std::move(models);
    OrderedJson units = OrderedJson::array();
    for (const Unit &u : p.units) {
        OrderedJson object = OrderedJson::object();
        object["name"] = u.name;
        object["input_params"] = stringList(u.inputParams, u.scalarListFields & kInputParamsWasString,
            u.scalarListFields & kInputParamsWasNull);
        object["input_params_posi"] = paramMap(u.inputParamsPosi);
        object["input_params_nega"] = paramMap(u.inputParamsNega);
        object["output_params"] = stringList(u.outputParams, u.scalarListFields & kOutputParamsWasString,
            u.scalarListFields & kOutputParamsWasNull);
        object["onload_model_names"] = u.onloadModelNames
            ? stringList(*u.onloadModelNames, u.scalarListFields & kOnloadModelNamesWasString)
            : OrderedJson(nullptr);
        if (u.seperateCfg)
            object["seperate_cfg"] = *u.seperateCfg;
        if (u.takeOver)
            object["take_over"] = *u.takeOver;
        if (u.stochastic)
            object["stochastic"] = *u.stochastic;
        if (u.doc)
            object["doc"] = *u.doc;
        const auto facts = [](const std::vector<BodyFact> &list, const char *nameKey, bool returns) {
            OrderedJson out = OrderedJson::array();
            for (const BodyFact &f : list) {
                OrderedJson fact = OrderedJson::object();
                fact[nameKey] = f.name;
                fact["file"] = f.file;
                fact["line"] = f.line;
                if (returns) {
                    fact["from"] = f.from;
                    if (f.random)
                        fact["random"] = true;
                }
                addExtra(fact, f.extra);
                out.push_back(std::move(fact));
            }
            return out;
        };
        if (u.usesModels)
            object["uses_models"] = facts(*u.usesModels, "model", false);
        if (u.reads)
            object["reads"] = facts(*u.reads, "param", false);
        if (u.returns)
            object["returns"] = facts(*u.returns, "param", true);
        addExtra(object, u.extra);
        units.push_back(std::move(object));
    }
    doc["units"] = std::move(units);
    if (p.loss) {
        OrderedJson loss = OrderedJson::object();
        loss["name"] = p.loss->name;
        if (p.loss->inputParams)
            loss["input_params"] = stringList(*p.loss->inputParams, p.loss->inputParamsWasString);
        if (p.loss->outputParams)
            loss["output_params"] = *p.loss->outputParams;
        if (p.loss->models)
            loss["models"] = *p.loss->models;
        addExtra(loss, p.loss->extra);
        doc["loss"] = std::move(loss);
    }
    if (p.training)
        doc["training"] = trainingJson(*p.training, true);
    if (p.alternativeTraining) {
        OrderedJson list = OrderedJson::array();
        for (const auto &config : *p.alternativeTraining)
            list.push_back(trainingJson(config, false));
        doc["alternative_training"] = std::move(list);
    }
    addExtra(doc, p.extra);
    return doc.dump(1);
}

bool savePipelineFile(const Pipeline &pipeline, const std::string &path, std::string *error)
{
    return writeFileAtomically(path, serializePipeline(pipeline), error);
}

} // namespace splitscope
