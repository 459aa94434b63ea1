// SPDX-License-Identifier: MIT
#include "PseudocodeOracle.h"

#include <algorithm>
#include <map>
#include <set>

namespace oracle {

namespace {

using splitscope::Unit;
using Edge = std::pair<int, int>;

// build_edges(units)
std::vector<Edge> buildEdges(const std::vector<Unit> &units)
{
    std::map<std::string, int> lastProducer;
    std::vector<Edge> edges;
    for (int id = 0; id < static_cast<int>(units.size()); ++id) {
        for (const auto &param : units[id].fetchInputParams()) {
            if (lastProducer.count(param))
                edges.emplace_back(lastProducer[param], id);
        }
        for (const auto &param : units[id].fetchOutputParams())
            lastProducer[param] = id;
    }
    return edges;
}

// build_chains(units)
std::map<std::string, std::vector<int>> buildChains(const std::vector<Unit> &units)
{
    std::set<std::string> params;
    for (const Unit &unit : units) {
        for (const auto &p : unit.fetchInputParams())
            params.insert(p);
        for (const auto &p : unit.fetchOutputParams())
            params.insert(p);
    }
    std::map<std::string, std::vector<int>> chains;
    for (const auto &p : params)
        chains[p] = {};
    for (int id = 0; id < static_cast<int>(units.size()); ++id) {
        for (const auto &param : units[id].fetchOutputParams())
            chains[param].push_back(id);
    }
    return chains;
}

// forward_reachable(edges, related)
std::set<int> forwardReachable(const std::vector<Edge> &edges, std::set<int> related)
{
    while (true) {
        std::set<int> neighbors;
        for (const auto &[source, target] : edges) {
            if (related.count(source) && !related.count(target))
                neighbors.insert(target);
        }
        if (neighbors.empty())
            break;
        related.insert(neighbors.begin(), neighbors.end());
    }
    return related;
}

// updating_units(units, chains, related)
std::set<int> updatingUnits(const std::vector<Unit> &units, const std::map<std::string, std::vector<int>> &chains,
    std::set<int> related)
{
    std::map<std::string, int> firstConsumer;
    for (const int unitId : related) { // std::set iterates in sorted order
        for (const auto &param : units[unitId].fetchInputParams()) {
            if (!firstConsumer.count(param))
                firstConsumer[param] = unitId;
        }
    }
    for (const auto &[param, first] : firstConsumer) {
        const std::vector<int> &chain = chains.at(param);
        const auto it = std::find(chain.begin(), chain.end(), first);
        if (it != chain.end() && (it - chain.begin()) != static_cast<long>(chain.size()) - 1) {
            for (auto later = it + 1; later != chain.end(); ++later)
                related.insert(*later);
        }
    }
    return related;
}

std::vector<int> difference(const std::set<int> &after, const std::set<int> &before)
{
    std::vector<int> out;
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(out));
    return out;
}

} // namespace

Result splitPipelineUnits(const splitscope::Pipeline &pipeline, const std::vector<std::string> &modelNames)
{
    const std::vector<Unit> &units = pipeline.units;
    Result result;
    // Step 1: X0
    std::set<int> related;
    for (int id = 0; id < static_cast<int>(units.size()); ++id) {
        const auto &names = units[id].onloadModelNames;
        if (names && std::any_of(modelNames.begin(), modelNames.end(), [&](const std::string &m) {
                return std::find(names->begin(), names->end(), m) != names->end();
            }))
            related.insert(id);
    }
    result.x0.assign(related.begin(), related.end());
    // Step 2
    const auto edges = buildEdges(units);
    const auto chains = buildChains(units);
    // Step 3
    while (true) {
        const std::size_t before = related.size();
        const std::set<int> start = related;
        related = forwardReachable(edges, related);
        const std::set<int> afterForward = related;
        related = updatingUnits(units, chains, related);
        result.iterations.emplace_back(difference(afterForward, start), difference(related, afterForward));
        if (related.size() == before)
            break;
    }
    // Step 4
    result.v1.assign(related.begin(), related.end());
    for (int id = 0; id < static_cast<int>(units.size()); ++id) {
        if (!related.count(id))
            result.v2.push_back(id);
    }
    return result;
}

} // namespace oracle
