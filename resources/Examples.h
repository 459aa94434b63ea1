// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace splitscope {

// The example pipelines compiled into the programs (resources/examples/*.json), so
// that the GUI and the command line work without installed data files.
struct BuiltinExample {
    std::string name; // file name without .json, e.g. "qwen_image"
    std::string json; // the document text
};

const std::vector<BuiltinExample> &builtinExamples();
// nullptr when there is no example of that name.
const BuiltinExample *findBuiltinExample(const std::string &name);

} // namespace splitscope
