// SPDX-License-Identifier: MIT
#pragma once

#include "ProcessGroup.h"

#include <torch/torch.h>

#include <cstddef>
#include <string>
#include <vector>

namespace splitscope::engine {

// Averages the gradients of a step over the ranks while the backward pass still
// runs, as DDP's reducer does: the parameters fall into buckets in reverse order
// (the order the backward pass reaches them), a hook on each parameter copies its
// gradient into its bucket as autograd computes it, and a full bucket starts its
// all-reduce at once, on Gloo's threads, while the backward pass goes on with the
// layers before. The step's loss and stop request travel in a small sum started
// before the backward pass.
//
// A gradient reaches the hook before autograd adds it to `.grad`; with gradient
// accumulation the bucket takes it plus what `.grad` holds from the group's earlier
// samples, the same sum in the same order, so the weights equal those of averaging
// after the backward pass bit for bit. Buckets start in their order on every rank
// (one waits for those before it), so the ranks' sums always pair up.
//
// Which parameters get a gradient is learnt from the first step: parameters no rank
// reached (the last DiT block's text-stream output is never used, as in Qwen-Image)
// keep no gradient, as in one process, and are left out of the buckets. A later step
// that reaches another set is an error naming the parameter: the graph is taken to be
// static, as DDP's static_graph takes it.
//
// Every step's gradients travel in the same buckets, whether the hooks fill them
// (begin, finish) or they are filled after the backward pass (reduceAfterBackward: the
// first step, and every step with gradient checkpointing, whose recomputation the hooks
// do not follow). Gloo's ring splits each sum into segments by the tensor's size and
// the rank count, and so the order in which the ranks' values are added: one layout for
// every step keeps the weights the same bit for bit across a resume and with or
// without gradient checkpointing, at any rank count.
class GradientBuckets {
public:
    // DDP's first bucket size (its later ones are 25 MB; these models' LoRA gradients
    // are a few MB in all).
    static constexpr std::size_t kBucketBytes = 1024 * 1024;

    // `used`, by parameter: whether it gets a gradient in every step.
    GradientBuckets(ProcessGroup &group, std::vector<torch::Tensor> parameters, std::vector<std::string> names,
        const std::vector<char> &used);
    ~GradientBuckets();
    GradientBuckets(const GradientBuckets &) = delete;
    GradientBuckets &operator=(const GradientBuckets &) = delete;

    // Before the backward pass of a step's last sample: starts summing `scalars` and
    // lets the hooks fill the buckets. `what` names the step in a failure's message.
    void begin(const std::vector<double> &scalars, const std::string &what);
    // After that backward pass: waits for every bucket, leaves each parameter's
    // `.grad` the mean over the ranks, and returns the summed scalars.
    std::vector<double> finish();
    // Without the hooks, after the backward pass: sums `scalars` and every bucket filled
    // from `.grad` (a used parameter without one counts zeros), leaves each `.grad` the
    // mean over the ranks, and returns the summed scalars.
    std::vector<double> reduceAfterBackward(const std::vector<double> &scalars, const std::string &what);
    std::size_t bucketCount() const { return m_buckets.size(); }

private:
    struct Bucket {
        torch::Tensor flat;
        std::vector<std::size_t> parameters; // indices, in the order laid out in `flat`
        std::vector<std::int64_t> offsets;
        std::size_t ready = 0;
        ProcessGroup::Pending pending;
    };
    void gradientReady(std::size_t parameter, const torch::Tensor &grad);
    // Waits for the scalars and every bucket, and writes the means into `.grad`.
    std::vector<double> collect();

    ProcessGroup &m_group;
    std::vector<torch::Tensor> m_parameters;
    std::vector<std::string> m_names;
    std::vector<Bucket> m_buckets;
    std::vector<std::size_t> m_bucketOf; // by parameter; kNone for one left out
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t m_nextBucket = 0; // the next to start
    std::vector<char> m_seen;            // by parameter, this step
    std::vector<unsigned> m_hooks;
    bool m_armed = false;
    std::string m_what;
    torch::Tensor m_scalars;
    ProcessGroup::Pending m_scalarSum;
};

} // namespace splitscope::engine
