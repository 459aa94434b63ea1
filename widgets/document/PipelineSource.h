// SPDX-License-Identifier: MIT
#pragma once

#include "core/PipelineFile.h"

#include <QString>

namespace splitscope {

// Where a pipeline came from, as the window shows it.
struct PipelineSource {
    QString path;        // the file (absolute), empty for a built-in example
    QString exampleName; // the built-in example's name, empty for a file
    QString importedFrom; // the Python source of an imported pipeline not saved yet
    // "qwen_image (example)", the file name, or "qwen_image (imported from qwen_image.py)".
    QString displayName() const;
};

struct SourcedLoad {
    LoadResult result;
    PipelineSource source;
};

// Loads a PIPELINE argument as the command line does: an existing file, else a
// built-in example of that name (`qwen_image`). Never throws; a miss names the
// argument and lists the built-in examples in the first diagnostic.
SourcedLoad loadPipelineSource(const QString &argument);
SourcedLoad loadPipelineFromFile(const QString &path);
SourcedLoad loadBuiltinExample(const QString &name);

} // namespace splitscope
