// SPDX-License-Identifier: MIT
#include "TrainingChoice.h"

#include <algorithm>
#include <unordered_set>

namespace splitscope {

TrainingChoice TrainingChoice::fromFlags(const std::string &trainableModels, const std::string &loraBaseModel,
    SplitMode mode)
{
    TrainingChoice choice;
    choice.trainable = splitCommaList(trainableModels);
    if (!loraBaseModel.empty())
        choice.loraBase = loraBaseModel;
    choice.mode = mode;
    return choice;
}

TrainingChoice TrainingChoice::fromConfig(const TrainingConfig &config, SplitMode mode)
{
    return fromFlags(config.trainableModels.value_or(std::string()), config.loraBaseModel.value_or(std::string()), mode);
}

TrainingConfig TrainingChoice::toConfig() const
{
    TrainingConfig config;
    if (!trainable.empty())
        config.trainableModels = trainableModelsFlag();
    config.loraBaseModel = loraBase;
    return config;
}

std::string TrainingChoice::trainableModelsFlag() const
{
    std::string list;
    for (const auto &m : trainable)
        list += (list.empty() ? "" : ",") + m;
    return list;
}

std::vector<std::string> TrainingChoice::modelsRequiringBackward() const
{
    std::vector<std::string> models;
    std::unordered_set<std::string> seen;
    for (const std::string &name : trainable) {
        if (seen.insert(name).second)
            models.push_back(name);
    }
    if (loraBase && seen.insert(*loraBase).second)
        models.push_back(*loraBase);
    return models;
}

bool TrainingChoice::isTrainable(const std::string &model) const
{
    return std::find(trainable.begin(), trainable.end(), model) != trainable.end();
}

void TrainingChoice::setTrainable(const std::string &model, bool on, const std::vector<std::string> &order)
{
    trainable.erase(std::remove(trainable.begin(), trainable.end(), model), trainable.end());
    if (!on)
        return;
    trainable.push_back(model);
    // Keep the pipeline's model order so that equal choices compare equal.
    auto rank = [&](const std::string &m) { return std::find(order.begin(), order.end(), m) - order.begin(); };
    std::stable_sort(trainable.begin(), trainable.end(),
        [&](const std::string &a, const std::string &b) { return rank(a) < rank(b); });
}

void TrainingChoice::restrictTo(const std::vector<std::string> &models)
{
    auto known = [&](const std::string &m) { return std::find(models.begin(), models.end(), m) != models.end(); };
    trainable.erase(std::remove_if(trainable.begin(), trainable.end(), [&](const auto &m) { return !known(m); }),
        trainable.end());
    if (loraBase && !known(*loraBase))
        loraBase.reset();
}

std::string TrainingChoice::modelsLabel() const
{
    std::string out;
    if (!trainable.empty())
        out += "trainable_models=" + trainableModelsFlag();
    if (loraBase) {
        if (!out.empty())
            out += ' ';
        out += "lora_base_model=" + *loraBase;
    }
    return out.empty() ? std::string("no trainable models") : out;
}

std::string TrainingChoice::label() const
{
    return modelsLabel() + ", " + splitModeName(mode) + " split";
}

} // namespace splitscope
