// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace splitscope {

// Writes `bytes` to `path` so that readers see either the old file or the whole new
// one, never a part: the data goes to a temporary file in the same directory, is
// flushed to disk, then renamed over `path`. On failure `path` is untouched and
// `error` (when given) says what failed, naming the path.
bool writeFileAtomically(const std::string &path, std::string_view bytes, std::string *error = nullptr);

// Reads a whole file; false with `error` naming the path and the reason on failure.
bool readWholeFile(const std::string &path, std::string &bytes, std::string *error = nullptr);

} // namespace splitscope
