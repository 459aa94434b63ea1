// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

// The property every input to the pipeline loader must satisfy, shared by the
// libFuzzer target (tests/fuzz) and the corpus-replay test (tests/core): loading
// never crashes or hangs; a document that loads saves to text that loads again to
// the same text; and the split, verifier and reports run on it without failing.
// Returns an empty string when the property holds, else what broke.
std::string checkPipelineInput(const std::uint8_t *data, std::size_t size);
