// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

namespace splitscope::engine {

// DiffSynth's FlowMatchScheduler with the "Qwen-Image" template: sigmas from 1
// down, shifted with mu = 0.8 (exp-shift) and a 0.02 shift terminal; timestep =
// sigma x 1000; x_t = (1 - sigma) x0 + sigma noise; the training target is the
// velocity noise - x0; training weights are its Gaussian bump around t = 500.
// Immutable after construction; thread-safe.
class FlowMatchScheduler {
public:
    explicit FlowMatchScheduler(int steps);

    int steps() const { return static_cast<int>(m_sigmas.size()); }
    double sigma(int index) const { return m_sigmas[static_cast<std::size_t>(index)]; }
    double timestep(int index) const { return m_sigmas[static_cast<std::size_t>(index)] * kTrainTimesteps; }
    // The sigma after step `index` (0 after the last).
    double nextSigma(int index) const;
    double trainingWeight(int index) const { return m_weights[static_cast<std::size_t>(index)]; }

    // Number of timesteps the model was trained with.
    static constexpr int kTrainTimesteps = 1000;

private:
    std::vector<double> m_sigmas;
    std::vector<double> m_weights;
};

} // namespace splitscope::engine
