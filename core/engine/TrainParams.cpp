// SPDX-License-Identifier: MIT
#include "TrainParams.h"

namespace splitscope::engine {

const char *stageName(Stage stage)
{
    switch (stage) {
    case Stage::OneStage:
        return "one_stage";
    case Stage::DataProcess:
        return "data_process";
    case Stage::Train:
        return "train";
    }
    return "?";
}

std::vector<std::string> taskNames()
{
    return {"sft", "sft:data_process", "sft:train", "direct_distill", "direct_distill:data_process",
        "direct_distill:train"};
}

bool parseTask(const std::string &task, TaskSpec &spec, std::string *error)
{
    const auto colon = task.find(':');
    const std::string loss = task.substr(0, colon);
    const std::string suffix = colon == std::string::npos ? std::string() : task.substr(colon + 1);
    Stage stage = Stage::OneStage;
    bool ok = loss == "sft" || loss == "direct_distill";
    if (suffix == "data_process")
        stage = Stage::DataProcess;
    else if (suffix == "train")
        stage = Stage::Train;
    else if (colon != std::string::npos)
        ok = false;
    if (!ok) {
        if (error) {
            std::string names;
            for (const auto &n : taskNames())
                names += (names.empty() ? "" : ", ") + n;
            *error = "--task: unknown task '" + task + "' (tasks: " + names + ")";
        }
        return false;
    }
    spec.loss = loss;
    spec.stage = stage;
    return true;
}

} // namespace splitscope::engine
