// SPDX-License-Identifier: MIT
#include "ComputeThreads.h"

#include "TorchPch.h"

#include <algorithm>
#include <dlfcn.h>
#include <thread>

namespace splitscope::engine {

int applyComputeThreads(int requested)
{
    const int threads = requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Debian's LibTorch starts with one thread.
    torch::set_num_threads(threads);
    // Looked up at run time: the BLAS is whatever libblas.so.3 points to, and only
    // OpenBLAS has this function.
    using SetThreads = void (*)(int);
    if (auto *setBlasThreads = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        setBlasThreads(threads);
    return threads;
}

} // namespace splitscope::engine
