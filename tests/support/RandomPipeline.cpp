// SPDX-License-Identifier: MIT
#include "RandomPipeline.h"

#include <algorithm>
#include <random>

namespace splitscope {

namespace {

// Small deterministic helpers on top of mt19937_64 (the standard distributions may
// differ between library versions; these do not).
class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_engine(seed) {}
    std::uint64_t next() { return m_engine(); }
    int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
    bool chance(double p) { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0) < p; }

private:
    std::mt19937_64 m_engine;
};

std::string paramName(int i) { return "p" + std::to_string(i); }

} // namespace

Pipeline makeRandomPipeline(const RandomPipelineOptions &o)
{
    Rng rng(o.seed);
    Pipeline p;
    p.name = (o.layered ? "layered_" : "random_") + std::to_string(o.units) + "_" + std::to_string(o.seed);
    p.source = "splitscope random pipeline generator";
    for (int m = 0; m < o.models; ++m)
        p.models.push_back(ModelSpec{"m" + std::to_string(m), std::nullopt, std::nullopt, false, {}});
    p.units.reserve(o.units);

    std::vector<int> recent; // layered: recently written params
    int nextParam = 0;
    if (o.layered) {
        // A few external inputs to start from.
        for (int i = 0; i < 8; ++i)
            recent.push_back(nextParam++);
    }
    for (int i = 0; i < o.units; ++i) {
        Unit u;
        u.name = "unit" + std::to_string(i);
        u.seperateCfg = false;
        u.takeOver = false;
        const int reads = o.layered ? o.maxReads : rng.below(o.maxReads + 1);
        const int writes = o.layered ? o.maxWrites : rng.below(o.maxWrites + 1);
        for (int r = 0; r < reads; ++r) {
            int param;
            if (o.layered) {
                const int span = std::min<int>(o.window, static_cast<int>(recent.size()));
                param = recent[recent.size() - 1 - rng.below(span)];
            } else {
                param = rng.below(o.paramPool);
            }
            u.inputParams.push_back(paramName(param));
        }
        if (!o.layered && rng.chance(o.posiProbability)) {
            u.inputParamsPosi = ParamMap{{"prompt", paramName(rng.below(o.paramPool))}};
            if (rng.chance(0.5))
                u.inputParamsNega = ParamMap{{"prompt", paramName(rng.below(o.paramPool))}};
        }
        for (int w = 0; w < writes; ++w) {
            int param;
            if (o.layered) {
                if (rng.chance(o.rewriteProbability) && !recent.empty()) {
                    const int span = std::min<int>(o.window, static_cast<int>(recent.size()));
                    param = recent[recent.size() - 1 - rng.below(span)];
                } else {
                    param = nextParam++;
                    recent.push_back(param);
                }
            } else {
                param = rng.below(o.paramPool);
            }
            const std::string name = paramName(param);
            if (std::find(u.outputParams.begin(), u.outputParams.end(), name) == u.outputParams.end())
                u.outputParams.push_back(name);
        }
        if (o.layered && recent.size() > static_cast<std::size_t>(4 * o.window))
            recent.erase(recent.begin(), recent.end() - o.window);
        std::vector<std::string> models;
        for (int m = 0; m < o.models; ++m) {
            if (rng.chance(o.modelProbability / std::max(1, o.models) * (o.layered ? 1.0 : 2.0)))
                models.push_back("m" + std::to_string(m));
        }
        if (!models.empty())
            u.onloadModelNames = std::move(models);
        if (rng.chance(o.stochasticProbability))
            u.stochastic = true;
        p.units.push_back(std::move(u));
    }
    LossSpec loss;
    loss.name = "RandomLoss";
    if (!o.layered && rng.chance(o.lossDeclaredProbability)) {
        std::vector<std::string> inputs;
        for (int q = 0; q < o.paramPool; ++q) {
            if (rng.chance(0.4))
                inputs.push_back(paramName(q));
        }
        loss.inputParams = std::move(inputs);
    } else if (o.layered) {
        std::vector<std::string> inputs;
        for (std::size_t k = 0; k < recent.size() && k < 16; ++k)
            inputs.push_back(paramName(recent[recent.size() - 1 - k]));
        loss.inputParams = std::move(inputs);
    }
    p.loss = std::move(loss);
    TrainingConfig training;
    training.loraBaseModel = "m0";
    p.training = training;
    return p;
}

} // namespace splitscope
