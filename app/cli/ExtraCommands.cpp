// SPDX-License-Identifier: MIT
// Optional parts add their subcommands here. The build defines SPLITSCOPE_HAVE_ENGINE
// and SPLITSCOPE_HAVE_IMPORTER when those parts are built (app/CMakeLists.txt).
#include "ExtraCommands.h"

#ifdef SPLITSCOPE_HAVE_ENGINE
#include "EngineCommands.h"
#endif
#ifdef SPLITSCOPE_HAVE_IMPORTER
#include "ImportCommands.h"
#endif

namespace splitscope::cli {

void addExtraCommands(std::vector<Command> &commands)
{
#ifdef SPLITSCOPE_HAVE_ENGINE
    addEngineCommands(commands);
#endif
#ifdef SPLITSCOPE_HAVE_IMPORTER
    addImportCommands(commands);
#endif
    (void)commands;
}

std::string extraBuiltinPipelineJson(const std::string &name)
{
#ifdef SPLITSCOPE_HAVE_ENGINE
    return engineBuiltinPipelineJson(name);
#else
    (void)name;
    return {};
#endif
}

std::vector<std::string> extraBuiltinPipelineNames()
{
#ifdef SPLITSCOPE_HAVE_ENGINE
    return engineBuiltinPipelineNames();
#else
    return {};
#endif
}

} // namespace splitscope::cli
