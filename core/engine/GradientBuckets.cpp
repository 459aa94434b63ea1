// SPDX-License-Identifier: MIT
#include "GradientBuckets.h"

#include "UnitRuntime.h"

namespace splitscope::engine {

GradientBuckets::GradientBuckets(ProcessGroup &group, std::vector<torch::Tensor> parameters, std::vector<std::string> names,
    const std::vector<char> &used)
    : m_group(group)
    , m_parameters(std::move(parameters))
    , m_names(std::move(names))
    , m_bucketOf(m_parameters.size(), kNone)
    , m_seen(m_parameters.size(), 0)
{
    std::int64_t bytes = 0;
    for (std::size_t i = m_parameters.size(); i-- > 0;) {
        if (!used[i])
            continue;
        const torch::Tensor &p = m_parameters[i];
        if (m_buckets.empty() || bytes >= static_cast<std::int64_t>(kBucketBytes)) {
            m_buckets.emplace_back();
            bytes = 0;
        }
        Bucket &bucket = m_buckets.back();
        bucket.offsets.push_back(bytes / static_cast<std::int64_t>(sizeof(float)));
        bucket.parameters.push_back(i);
        m_bucketOf[i] = m_buckets.size() - 1;
        bytes += p.numel() * static_cast<std::int64_t>(sizeof(float));
    }
    for (Bucket &bucket : m_buckets) {
        std::int64_t numel = 0;
        for (std::size_t i : bucket.parameters)
            numel += m_parameters[i].numel();
        bucket.flat = torch::zeros({numel}, torch::kFloat32);
    }
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        m_hooks.push_back(m_parameters[i].register_hook([this, i](const torch::Tensor &grad) {
            if (m_armed)
                gradientReady(i, grad);
        }));
    }
}

GradientBuckets::~GradientBuckets()
{
    for (std::size_t i = 0; i < m_hooks.size(); ++i)
        m_parameters[i].remove_hook(m_hooks[i]);
}

void GradientBuckets::begin(const std::vector<double> &scalars, const std::string &what)
{
    m_what = what;
    m_scalars = torch::tensor(scalars, torch::kFloat64);
    m_scalarSum = m_group.startAllReduceSum(m_scalars, what);
    std::fill(m_seen.begin(), m_seen.end(), 0);
    for (Bucket &bucket : m_buckets)
        bucket.ready = 0;
    m_nextBucket = 0;
    m_armed = true;
}

void GradientBuckets::gradientReady(std::size_t parameter, const torch::Tensor &grad)
{
    if (m_bucketOf[parameter] == kNone) {
        throw EngineError(m_names[parameter] + " got a gradient in step " + m_what.substr(m_what.rfind(' ') + 1)
            + " but none in the first: the ranks average the gradients of the parameters the first step reached");
    }
    if (m_seen[parameter])
        throw EngineError("internal: " + m_names[parameter] + " got two gradients in one backward pass");
    m_seen[parameter] = 1;
    Bucket &bucket = m_buckets[m_bucketOf[parameter]];
    const auto at = std::find(bucket.parameters.begin(), bucket.parameters.end(), parameter) - bucket.parameters.begin();
    const torch::Tensor &p = m_parameters[parameter];
    torch::Tensor slot = bucket.flat.narrow(0, bucket.offsets[static_cast<std::size_t>(at)], p.numel());
    // What autograd will leave in .grad: this sample's gradient added to the group's
    // earlier samples' (accumulation), in the order it adds them.
    if (p.grad().defined())
        torch::add_out(slot, p.grad().reshape({-1}), grad.reshape({-1}));
    else
        slot.copy_(grad.reshape({-1}));
    ++bucket.ready;
    // In bucket order on every rank, each as soon as it and those before it are full.
    while (m_nextBucket < m_buckets.size() && m_buckets[m_nextBucket].ready == m_buckets[m_nextBucket].parameters.size()) {
        Bucket &next = m_buckets[m_nextBucket++];
        next.pending = m_group.startAllReduceSum(next.flat, m_what);
    }
}

std::vector<double> GradientBuckets::finish()
{
    m_armed = false;
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        if (m_bucketOf[i] != kNone && !m_seen[i]) {
            throw EngineError(m_names[i] + " got no gradient in step " + m_what.substr(m_what.rfind(' ') + 1)
                + " but one in the first: the ranks average the gradients of the parameters the first step reached");
        }
    }
    return collect();
}

std::vector<double> GradientBuckets::reduceAfterBackward(const std::vector<double> &scalars, const std::string &what)
{
    m_what = what;
    m_scalars = torch::tensor(scalars, torch::kFloat64);
    m_scalarSum = m_group.startAllReduceSum(m_scalars, what);
    for (Bucket &bucket : m_buckets) {
        for (std::size_t k = 0; k < bucket.parameters.size(); ++k) {
            const torch::Tensor &p = m_parameters[bucket.parameters[k]];
            torch::Tensor slot = bucket.flat.narrow(0, bucket.offsets[k], p.numel());
            if (p.grad().defined())
                slot.copy_(p.grad().reshape({-1}));
            else
                slot.zero_();
        }
        bucket.pending = m_group.startAllReduceSum(bucket.flat, what);
    }
    return collect();
}

std::vector<double> GradientBuckets::collect()
{
    m_group.wait(m_scalarSum);
    const double ranks = m_group.size();
    for (Bucket &bucket : m_buckets) {
        m_group.wait(bucket.pending);
        bucket.flat.div_(ranks);
        for (std::size_t k = 0; k < bucket.parameters.size(); ++k) {
            torch::Tensor &p = m_parameters[bucket.parameters[k]];
            const torch::Tensor mean = bucket.flat.narrow(0, bucket.offsets[k], p.numel()).view(p.sizes());
            if (p.grad().defined())
                p.mutable_grad().copy_(mean);
            else
                p.mutable_grad() = mean.clone();
        }
    }
    const auto sums = m_scalars.accessor<double, 1>();
    std::vector<double> out;
    for (std::int64_t i = 0; i < m_scalars.numel(); ++i)
        out.push_back(sums[i]);
    return out;
}

} // namespace splitscope::engine
