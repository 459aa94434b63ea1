// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace splitscope::importer::testing {

// Imports `source` as one Python file and checks what must hold for any input:
// it returns; ok() agrees with the result; every diagnostic has a code and names the
// file; every pipeline has uniquely named units, serializes, loads back through
// parsePipeline without errors, and saves again to the same bytes. Returns the
// first broken property, or an empty string. Used by the CTest robustness test and
// by the libFuzzer target, so both check the same things.
std::string checkImporterInvariants(std::string_view source);

} // namespace splitscope::importer::testing
