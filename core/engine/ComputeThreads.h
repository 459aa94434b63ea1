// SPDX-License-Identifier: MIT
#pragma once

namespace splitscope::engine {

// Sets the number of compute threads for LibTorch's own kernels and for OpenBLAS,
// which Debian's LibTorch calls for matrix products and which keeps a thread pool
// of its own (sized to the machine unless told otherwise). `requested` <= 0 means
// one per core. Returns the count used. Process-wide.
int applyComputeThreads(int requested);

} // namespace splitscope::engine
