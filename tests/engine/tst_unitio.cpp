// SPDX-License-Identifier: MIT
// UnitIO, the window through which a unit touches the param dict, holds every unit
// of the engine to its declaration: reading an undeclared param, writing an
// undeclared output or calling an unlisted model throws std::logic_error naming the
// unit. That is what keeps the description the split is computed from (describe)
// equal to what the C++ code does. This file includes LibTorch, so it is a plain
// program rather than a Qt Test (Qt and Torch headers never share a TU).
#include "core/engine/UnitRuntime.h"

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

using namespace splitscope::engine;

namespace {

int g_failures = 0;

void check(bool condition, const char *what)
{
    if (!condition) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        ++g_failures;
    }
}

// True when `action` throws std::logic_error whose message contains `fragment`.
bool throwsLogicError(const std::function<void()> &action, const std::string &fragment)
{
    try {
        action();
    } catch (const std::logic_error &e) {
        if (std::string(e.what()).find(fragment) != std::string::npos)
            return true;
        std::fprintf(stderr, "  message was: %s\n", e.what());
        return false;
    } catch (...) {
        return false;
    }
    return false;
}

} // namespace

int main()
{
    ValueMap values;
    values["height"] = Value::ofInt(64);
    values["secret"] = Value::ofInt(7);
    UnitIO io("ShapeChecker", {"height"}, {"height"}, {}, values, nullptr);

    check(io.integer("height") == 64, "a declared input is readable");
    check(throwsLogicError([&] { io.find("secret"); }, "ShapeChecker reads 'secret', which it does not declare"),
        "an undeclared read throws and names the unit and the param");
    check(throwsLogicError([&] { io.set("width", Value::ofInt(1)); },
              "ShapeChecker writes 'width', which is not among its output_params"),
        "an undeclared write throws");
    check(values.count("width") == 0, "the refused write left the dict as it was");
    io.set("height", Value::ofInt(32));
    check(values.at("height").integer == 32, "a declared output is written");
    check(throwsLogicError([&] { io.vae(); }, "ShapeChecker calls vae, which its onload_model_names do not list"),
        "calling an unlisted model throws");

    if (g_failures == 0)
        std::printf("PASS: tst_unitio\n");
    return g_failures == 0 ? 0 : 1;
}
