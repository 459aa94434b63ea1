// SPDX-License-Identifier: MIT
#include "Pipeline.h"

#include "TrainingChoice.h"

#include <algorithm>
#include <unordered_set>

namespace splitscope {

std::vector<std::string> Unit::fetchInputParams() const
{
    std::vector<std::string> params = inputParams;
    for (const auto *map : {&inputParamsPosi, &inputParamsNega}) {
        if (*map) {
            for (const auto &entry : **map)
                params.push_back(entry.second);
        }
    }
    std::sort(params.begin(), params.end());
    params.erase(std::unique(params.begin(), params.end()), params.end());
    return params;
}

bool Unit::callsModel(const std::string &model) const
{
    if (!onloadModelNames)
        return false;
    if (onloadModelNamesIsString() && onloadModelNames->size() == 1)
        return onloadModelNames->front().find(model) != std::string::npos;
    return std::find(onloadModelNames->begin(), onloadModelNames->end(), model) != onloadModelNames->end();
}

std::vector<std::string> splitCommaList(const std::string &list)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(',', start);
        if (end == std::string::npos)
            end = list.size();
        std::string item = list.substr(start, end - start);
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(item.substr(first, last - first + 1));
        start = end + 1;
    }
    return out;
}

bool commaListHasEmptyEntry(const std::string &list)
{
    const std::size_t pieces = static_cast<std::size_t>(std::count(list.begin(), list.end(), ',')) + 1;
    return !list.empty() && splitCommaList(list).size() < pieces;
}

std::vector<std::string> TrainingConfig::modelsRequiringBackward() const
{
    return TrainingChoice::fromConfig(*this).modelsRequiringBackward();
}

std::string TrainingConfig::label() const
{
    return TrainingChoice::fromConfig(*this).modelsLabel();
}

int Pipeline::findUnit(const std::string &unitName) const
{
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units[i].name == unitName)
            return static_cast<int>(i);
    }
    return -1;
}

std::vector<std::string> Pipeline::modelNames() const
{
    std::vector<std::string> names;
    names.reserve(models.size());
    for (const auto &m : models)
        names.push_back(m.name);
    return names;
}

} // namespace splitscope
