// SPDX-License-Identifier: MIT
// The precompiled header of splitscope_engine's Torch sources (CMakeLists.txt). Only
// Torch sources get it; public headers never include it.
#pragma once

#include <torch/torch.h>
