// SPDX-License-Identifier: MIT
// Optional parts add their subcommands here. The build defines SPLITSCOPE_HAVE_ENGINE
// and SPLITSCOPE_HAVE_IMPORTER when those parts are built (app/CMakeLists.txt).
#include "ExtraCommands.h"

#ifdef SPLITSCOPE_HAVE_ENGINE
#include "EngineProxy.h"
#endif
#ifdef SPLITSCOPE_HAVE_IMPORTER
#include "ImportCommands.h"
#include "PlanCommand.h"
#endif

namespace splitscope::cli {

void addExtraCommands(std::vector<Command> &commands)
{
#ifdef SPLITSCOPE_HAVE_ENGINE
    addEngineProxyCommands(commands);
#endif
#ifdef SPLITSCOPE_HAVE_IMPORTER
    addImportCommands(commands);
    addPlanCommands(commands);
#endif
    (void)commands;
}

std::vector<std::string> executablePipelineNames()
{
#ifdef SPLITSCOPE_HAVE_ENGINE
    return engineProxyPipelineNames();
#else
    return {};
#endif
}

} // namespace splitscope::cli
