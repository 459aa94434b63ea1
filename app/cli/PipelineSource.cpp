// SPDX-License-Identifier: MIT
#include "PipelineSource.h"

#include "ExtraCommands.h"
#include "resources/Examples.h"

#include <cstdio>
#include <sys/stat.h>

namespace splitscope::cli {

LoadResult loadPipelineArgument(const std::string &argument)
{
    struct stat st {};
    const bool exists = ::stat(argument.c_str(), &st) == 0;
    if (!exists && argument.find('/') == std::string::npos) {
        if (const BuiltinExample *example = findBuiltinExample(argument))
            return parsePipeline(example->json, "<built-in " + argument + ">");
        const std::string json = extraBuiltinPipelineJson(argument);
        if (!json.empty())
            return parsePipeline(json, "<built-in " + argument + ">");
    }
    LoadResult result = loadPipelineFile(argument);
    if (!exists && !result.diagnostics.empty()) {
        std::string names;
        for (const auto &e : builtinExamples())
            names += (names.empty() ? "" : ", ") + e.name;
        for (const auto &e : extraBuiltinPipelineNames())
            names += ", " + e;
        result.diagnostics.front().message += " (and no built-in pipeline has that name; built-in: " + names + ")";
    }
    return result;
}

void printDiagnostics(const Diagnostics &diagnostics, bool verbose)
{
    for (const Diagnostic &d : diagnostics) {
        if (d.severity == Severity::Info && !verbose)
            continue;
        std::fprintf(stderr, "%s\n", d.toString().c_str());
    }
}

} // namespace splitscope::cli
