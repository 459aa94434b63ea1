// SPDX-License-Identifier: MIT
#pragma once

#include "ImportContext.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace splitscope::importer {

// What a DiffSynth example's train.py does to its pipeline, read from its training
// module (the class deriving from DiffusionTrainingModule):
//
// * the pipeline class, from `self.pipe = QwenImagePipeline.from_pretrained(...)`;
// * the loss of each task, from the `self.task_to_loss = {"sft": lambda ...:
//   FlowMatchSFTLoss(...), ...}` table;
// * units added to the pipeline and under which flag: a method of the module's bases
//   called as `self.pipe = self.METHOD(self.pipe, PARAM, ...)` that sets
//   `pipe.units = NEW + pipe.units` (or `pipe.units + NEW`) after returning early when
//   PARAM is None, as DiffSynth's load_training_template_model adds the template units
//   when --template_model_id_or_path is given. PARAM is the train.py flag the `__main__`
//   block passes (`template_model_id_or_path=args.template_model_id_or_path`);
// * whether stage one appends GeneralUnit_RemoveCache (`remove_unnecessary_params=True`).
struct TrainingScript {
    struct AddedUnits {
        std::string flag;                    // "template_model_id_or_path": added when --flag is given
        bool prepend = true;
        const PythonModule *module = nullptr;
        NodeId list = kNoNode;               // the list display of unit constructor calls
        int line = 0;                        // where train.py calls the method
    };
    const PythonModule *script = nullptr;
    std::string moduleClass;
    ModuleSet::Found<ClassDef> pipeline;
    std::string pipelineName; // as written, also when it is not found
    std::map<std::string, std::string> losses;
    std::vector<AddedUnits> added;
    bool removesUnneededParams = false;
    int line = 0; // of the training module class
};

// nullopt when `script` has no training module class.
std::optional<TrainingScript> readTrainingScript(ImportContext &context, const PythonModule &script);

// The loss `task` trains with: its own entry, else its base task's ("sft" for
// "sft:train"), else "".
std::string lossForTask(const TrainingScript &script, const std::string &task);

} // namespace splitscope::importer
