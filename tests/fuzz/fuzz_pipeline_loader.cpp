// SPDX-License-Identifier: MIT
// libFuzzer target for the pipeline loader: see core/PipelineInputCheck.h for the
// property. Any violation aborts, so the fuzzer records the input.
#include "PipelineInputCheck.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string problem = checkPipelineInput(data, size);
    if (!problem.empty()) {
        std::fprintf(stderr, "property violated: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
