// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::importer {

// What a DiffSynth example's train.py does to its pipeline, read from its DiffusionTrainingModule subclass: the
// pipeline class (`self.pipe = X.from_pretrained(...)`), the loss of each task (`self.task_to_loss`), and the units
// a base-class method adds (`pipe.units = NEW + pipe.units`) under the flag whose None makes it return early, as
// load_training_template_model does for --template_model_id_or_path.
struct TrainingScript {
    struct AddedUnits {
        std::string flag; // "template_model_id_or_path": added when --flag is given
        bool prepend = true;
        const PythonModule *module = nullptr;
        NodeId list = kNoNode; // the list display of unit constructor calls
        int line = 0;          // where train.py calls the method
    };
    std::string moduleClass;
    ModuleSet::Found<ClassDef> pipeline;
    std::string pipelineName; // as written, also when it is not found
    std::map<std::string, std::string> losses;
    std::vector<AddedUnits> added;
    bool removesUnneededParams = false;
    int line = 0; // of the training module class
};

std::optional<TrainingScript> readTrainingScript(ImportContext &context, const PythonModule &script);

// The loss `task` trains with: its own entry, else its base task's ("sft" for "sft:train"), else "".
std::string lossForTask(const TrainingScript &script, const std::string &task);

} // namespace splitscope::importer
