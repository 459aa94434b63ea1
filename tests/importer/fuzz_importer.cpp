// SPDX-License-Identifier: MIT
// libFuzzer target for the DiffSynth importer: any bytes as a Python file. Built only
// with SPLITSCOPE_FUZZ=ON and clang (tests/importer/CMakeLists.txt), with
// AddressSanitizer and UndefinedBehaviorSanitizer. `packaging/splitscope-dev fuzz 60`
// runs it (and CI does); by hand, for example:
//     CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSPLITSCOPE_FUZZ=ON \
//         -DSPLITSCOPE_BUILD_GUI=OFF -DSPLITSCOPE_BUILD_ENGINE=OFF && ninja -C build-fuzz fuzz_importer
//     mkdir -p corpus && cp tests/importer/fixtures/*.py tests/importer/fixtures/folder/*.py corpus/
//     build-fuzz/tests/importer/fuzz_importer corpus -dict=tests/importer/fuzz_python.dict \
//         -max_len=65536 -max_total_time=600
// A crash, a sanitizer report, a timeout (-timeout, default 1200 s per input) or a
// broken invariant (ImporterInvariants.h, reported and aborted) is a finding.
#include "ImporterInvariants.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

// CPython starts before the first input, so that its start-up allocations, which live as
// long as the process, are not taken for an input's leak.
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    splitscope::importer::testing::checkImporterInvariants("x = 1\n");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string problem = splitscope::importer::testing::checkImporterInvariants(
        std::string_view(reinterpret_cast<const char *>(data), size));
    if (!problem.empty()) {
        std::fprintf(stderr, "importer invariant broken: %s\n", problem.c_str());
        std::abort();
    }
    return 0;
}
