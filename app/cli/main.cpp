// SPDX-License-Identifier: MIT
// splitscope-cli: the headless face of Splitscope. Each subcommand lives in its own
// file; this one only dispatches, and makes sure that the result reaches standard
// output whole (StandardStreams.h) and that no failure ends in an abort.
#include "Commands.h"
#include "ExtraCommands.h"
#include "StandardStreams.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using splitscope::cli::Command;

// When the heap runs out, a std::bad_alloc cannot always reach main(): some destructors
// allocate (nlohmann::json's flattens a large tree onto a heap-allocated stack, as the
// JSON of a 10^5-unit split is freed), and an exception out of a destructor ends the
// program in std::terminate, an abort. So operator new does not throw here: its first
// failure frees this reserve (untouched, so never resident) and tries again, which lets
// the work, or the destructors, go on; a failure after that ends the program at once
// with exit status 1 and a message.
constexpr std::size_t kEmergencyReserveBytes = std::size_t(64) << 20;
void *g_emergencyReserve = nullptr;
char g_outOfMemoryMessage[160] = "splitscope-cli: not enough memory to finish\n";

void onOutOfMemory()
{
    if (g_emergencyReserve) {
        std::free(g_emergencyReserve);
        g_emergencyReserve = nullptr;
        return; // operator new tries again
    }
    // Nothing here may allocate: no stdio, no std::string.
    const std::size_t length = std::strlen(g_outOfMemoryMessage);
    if (::write(STDERR_FILENO, g_outOfMemoryMessage, length) < 0) {
        // Nowhere left to say it; the exit status still does.
    }
    ::_exit(splitscope::cli::kExitFailure);
}

std::vector<Command> commands()
{
    std::vector<Command> list = {
        {"split", "show, explain and verify the split of a pipeline", splitscope::cli::runSplit},
        {"diff", "compare two splits (seed vs safe, or two training configurations)", splitscope::cli::runDiff},
        {"validate", "check a pipeline description and list its diagnostics", splitscope::cli::runValidate},
        {"examples", "list the built-in example pipelines, or print one", splitscope::cli::runExamples},
    };
    splitscope::cli::addExtraCommands(list);
    return list;
}

std::string usage()
{
    std::string text = "usage: splitscope-cli COMMAND [ARGS]\n\ncommands:\n";
    for (const Command &c : commands()) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-18s %s\n", c.name, c.summary);
        text += line;
    }
    return text + "\n'splitscope-cli COMMAND --help' (or 'splitscope-cli help COMMAND') describes a command's flags;\n"
                  "'splitscope-cli --version' prints the version.\n"
                  "Exit status: 0 done, 1 failed, 2 bad input or usage, 3 the split has hazards (split --check,\n"
                  "or train without --allow_hazards), 4 train was cancelled (its state is saved: --resume).\n";
}

const Command *findCommand(const std::string &name)
{
    static const std::vector<Command> list = commands();
    for (const Command &c : list) {
        if (name == c.name)
            return &c;
    }
    return nullptr;
}

int unknownCommand(const std::string &name)
{
    std::vector<std::string> names;
    for (const Command &c : commands())
        names.push_back(c.name);
    const std::string hint = splitscope::cli::suggestName(name, names);
    std::fprintf(stderr, "splitscope-cli: unknown command '%s'%s%s%s\n", name.c_str(),
        hint.empty() ? "" : " (did you mean '", hint.c_str(), hint.empty() ? "" : "'?)");
    std::fprintf(stderr, "%s", usage().c_str());
    return splitscope::cli::kExitUsage;
}

// Runs the command line; `command` gets the name of the command it runs, for messages.
int run(int argc, char **argv, std::string &command)
{
    using namespace splitscope::cli;
    if (argc < 2) {
        std::fprintf(stderr, "%s", usage().c_str());
        return kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "--version" || name == "-v") { // as the GUI's `splitscope --version`
        printOut("splitscope-cli %s\n", SPLITSCOPE_VERSION);
        return kExitOk;
    }
    if (name == "--help" || name == "-h" || name == "help") {
        if (argc == 2) {
            writeOut(usage());
            return kExitOk;
        }
        // `help split`: the command's own help; `help help` (or `help --help`) this one.
        const std::string topic = argv[2];
        if (topic == "help" || topic == "--help" || topic == "-h") {
            writeOut(usage());
            return kExitOk;
        }
        const Command *c = findCommand(topic);
        if (!c)
            return unknownCommand(argv[2]);
        command = c->name;
        return c->run({"--help"});
    }
    const Command *c = findCommand(name);
    if (!c)
        return unknownCommand(name);
    command = c->name;
    std::snprintf(g_outOfMemoryMessage, sizeof g_outOfMemoryMessage, "splitscope-cli %s: not enough memory to finish\n",
        c->name);
    return c->run(std::vector<std::string>(argv + 2, argv + argc));
}

} // namespace

int main(int argc, char **argv)
{
    using namespace splitscope::cli;
    // `train` hands over to splitscope-engine, which takes the stop signals held back
    // meanwhile (blockStopSignals); held from here, not only from the hand-over.
    if (argc > 1 && std::strcmp(argv[1], "train") == 0)
        blockStopSignals();
    guardStandardStreams();
    g_emergencyReserve = std::malloc(kEmergencyReserveBytes); // none under a tight ulimit -v: then none
    std::set_new_handler(onOutOfMemory);
    std::string command;
    int status = kExitFailure;
    // Library code and allocations may throw; the boundary catches, so that a failure is
    // an exit status with a message, never an abort.
    try {
        status = run(argc, argv, command);
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "splitscope-cli%s%s: not enough memory to finish (std::bad_alloc)\n",
            command.empty() ? "" : " ", command.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "splitscope-cli%s%s: internal error: %s\n", command.empty() ? "" : " ", command.c_str(),
            e.what());
    } catch (...) {
        std::fprintf(stderr, "splitscope-cli%s%s: internal error: an unknown exception\n", command.empty() ? "" : " ",
            command.c_str());
    }
    return finishStandardOutput(command, status);
}
