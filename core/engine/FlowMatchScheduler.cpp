// SPDX-License-Identifier: MIT
#include "FlowMatchScheduler.h"

#include <algorithm>
#include <cmath>

namespace splitscope::engine {

namespace {

// Qwen-Image's exp-shift mu for training (no dynamic shift) and its terminal value.
constexpr double kShiftMu = 0.8;
constexpr double kShiftTerminal = 0.02;

} // namespace

FlowMatchScheduler::FlowMatchScheduler(int steps)
{
    const int n = std::max(1, steps);
    // linspace(1, 0, n + 1)[:-1]
    std::vector<double> sigmas(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        sigmas[static_cast<std::size_t>(i)] = 1.0 - static_cast<double>(i) / n;
    const double e = std::exp(kShiftMu);
    for (double &s : sigmas)
        s = e / (e + (1.0 / s - 1.0));
    // Stretch so that the last sigma lands on the terminal value.
    const double scale = (1.0 - sigmas.back()) / (1.0 - kShiftTerminal);
    if (scale > 0) { // a single step (sigma 1) has nothing to stretch
        for (double &s : sigmas)
            s = 1.0 - (1.0 - s) / scale;
    }
    m_sigmas = sigmas;

    // Training weights: a Gaussian bump over timesteps, shifted to start at 0 and
    // normalized to sum to the number of train timesteps; rescaled for other counts.
    std::vector<double> y(m_sigmas.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double x = m_sigmas[i] * kTrainTimesteps;
        const double d = (x - kTrainTimesteps / 2.0) / kTrainTimesteps;
        y[i] = std::exp(-2.0 * d * d);
    }
    const double minimum = *std::min_element(y.begin(), y.end());
    double sum = 0;
    for (double &v : y) {
        v -= minimum;
        sum += v;
    }
    m_weights.resize(y.size());
    for (std::size_t i = 0; i < y.size(); ++i)
        m_weights[i] = sum > 0 ? y[i] * (kTrainTimesteps / sum) : 1.0;
    if (n != kTrainTimesteps) {
        const double second = m_weights.size() > 1 ? m_weights[1] * n / kTrainTimesteps : 0.0;
        for (double &w : m_weights)
            w = w * n / kTrainTimesteps + second;
    }
}

double FlowMatchScheduler::nextSigma(int index) const
{
    return index + 1 < steps() ? m_sigmas[static_cast<std::size_t>(index + 1)] : 0.0;
}

} // namespace splitscope::engine
