// SPDX-License-Identifier: MIT
#include "TrainingChoice.h"
#include "widgets/common/WidgetHelpers.h"

#include <algorithm>

namespace splitscope {

TrainingChoice TrainingChoice::fromConfig(const TrainingConfig &config, SplitMode mode)
{
    TrainingChoice choice;
    if (config.trainableModels)
        choice.trainable = splitCommaList(*config.trainableModels);
    if (config.loraBaseModel && !config.loraBaseModel->empty())
        choice.loraBase = config.loraBaseModel;
    choice.mode = mode;
    return choice;
}

TrainingConfig TrainingChoice::toConfig() const
{
    TrainingConfig config;
    if (!trainable.empty()) {
        std::string list;
        for (const auto &m : trainable)
            list += (list.empty() ? "" : ",") + m;
        config.trainableModels = list;
    }
    config.loraBaseModel = loraBase;
    return config;
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
    auto rank = [&](const std::string &m) {
        return std::find(order.begin(), order.end(), m) - order.begin();
    };
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

QString TrainingChoice::label() const
{
    return QStringLiteral("%1, %2 split")
        .arg(nameText(toConfig().label()), QString::fromLatin1(splitModeName(mode)));
}

} // namespace splitscope
