// SPDX-License-Identifier: MIT
// Properties of the split on 10,000 seeded random pipelines per run:
//  - the seed split equals the literal pseudocode (X0, every iteration's F and U, V1),
//    and F's reasons give the shortest chains (forwardReasonProblem());
//  - C1 and C2 hold for it;
//  - minimality by brute force (up to 10 units), see seedIsForced() for the exact statement;
//  - the safe split contains the seed split, is the least set closed under its rules,
//    and the verifier finds no hazard in it;
//  - the verifier and the cache set agree with a literal simulation of one-stage and
//    two-stage execution, on the seed split and on random partitions.
#include "PseudocodeOracle.h"

#include "support/RandomPipeline.h"
#include "core/Verifier.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

using namespace splitscope;

namespace {

constexpr int kPipelines = 10000;    // random pipelines per run (the floor)
constexpr int kBruteForceUnits = 10; // brute force over subsets up to this many units

using Mask = std::uint32_t;
Mask bit(int u) { return Mask(1) << u; }

// Precomputed closure rules of one small pipeline, as bit masks over units.
struct Rules {
    int n = 0;
    std::vector<Mask> succ;          // C1: data-edge successors of u
    std::vector<Mask> rewriteLater;  // C2': for p that u reads and rewrites, later producers of p
    std::vector<Mask> laterProducer; // R1: for p that u reads, producers of p after u
    struct Param {
        Mask readers = 0;
        std::vector<Mask> laterOf; // per unit: producers of p after its first occurrence in c(p), 0 if not in c(p)
        std::vector<bool> inChain;
    };
    std::vector<Param> params;
    struct ReachingRule { // R2 for reader c (or the loss) and param p
        bool readerIsLoss;
        int reader;
        Mask producersBefore;
        int lastBefore; // -1 when none
    };
    std::vector<ReachingRule> reaching;

    explicit Rules(const PipelineGraph &g) : n(g.unitCount())
    {
        succ.assign(n, 0);
        rewriteLater.assign(n, 0);
        laterProducer.assign(n, 0);
        params.resize(g.paramCount());
        for (ParamId p = 0; p < g.paramCount(); ++p) {
            Param &pr = params[p];
            pr.laterOf.assign(n, 0);
            pr.inChain.assign(n, false);
            for (const UnitId r : g.readers(p))
                pr.readers |= bit(r);
            const auto chain = g.chain(p).toVector();
            for (std::size_t k = 0; k < chain.size(); ++k) {
                if (pr.inChain[chain[k]])
                    continue;
                pr.inChain[chain[k]] = true;
                for (std::size_t j = k + 1; j < chain.size(); ++j)
                    pr.laterOf[chain[k]] |= bit(chain[j]);
            }
        }
        for (UnitId u = 0; u < n; ++u) {
            for (const auto &e : g.outEdges(u))
                succ[u] |= bit(e.target);
            for (const ParamId p : g.inputs(u)) {
                for (const UnitId w : g.chain(p)) {
                    if (w > u)
                        laterProducer[u] |= bit(w);
                }
                if (params[p].inChain[u])
                    rewriteLater[u] |= params[p].laterOf[u];
            }
        }
        for (UnitId c = 0; c <= n; ++c) {
            for (const ParamId p : g.inputs(c)) {
                Mask before = 0;
                for (const UnitId w : g.chain(p)) {
                    if (w < c)
                        before |= bit(w);
                }
                reaching.push_back(ReachingRule{c == n, c, before, g.producerBefore(p, c)});
            }
        }
    }

    bool allNeed(Mask y, const std::vector<Mask> &need) const
    {
        for (int u = 0; u < n; ++u) {
            if ((y & bit(u)) && (need[u] & ~y))
                return false;
        }
        return true;
    }
    bool c1(Mask y) const { return allNeed(y, succ); }
    // C2 exactly as stated: the FIRST consumer of p inside Y decides.
    bool c2(Mask y) const
    {
        for (const Param &p : params) {
            const Mask readersIn = p.readers & y;
            if (!readersIn)
                continue;
            const int first = __builtin_ctz(readersIn);
            if (p.inChain[first] && (p.laterOf[first] & ~y))
                return false;
        }
        return true;
    }
    // C2': every reader of p inside Y that rewrites p (not only the first) pulls in p's later rewriters.
    bool c2Every(Mask y) const { return allNeed(y, rewriteLater); }
    bool safeClosed(Mask y) const
    {
        if (!c1(y) || !allNeed(y, laterProducer))
            return false;
        for (const ReachingRule &r : reaching) {
            if (!r.readerIsLoss && !(y & bit(r.reader)))
                continue;
            if ((r.producersBefore & y) && !(y & bit(r.lastBefore)))
                return false;
        }
        return true;
    }
};

Mask maskOf(const std::vector<char> &trained)
{
    Mask m = 0;
    for (std::size_t u = 0; u < trained.size(); ++u) {
        if (trained[u])
            m |= bit(static_cast<int>(u));
    }
    return m;
}

std::vector<char> trainedOf(Mask m, int n)
{
    std::vector<char> t(n, 0);
    for (int u = 0; u < n; ++u)
        t[u] = (m & bit(u)) ? 1 : 0;
    return t;
}

// Literal execution of one-stage and two-stage training over producer ids (-1 =
// external input), independent of PipelineGraph and the verifier.
struct Simulation {
    // (reader, param, expected producer, actual producer); reader == n for the loss
    std::set<std::tuple<int, std::string, int, int>> hazards;
    std::set<std::pair<int, std::string>> stageOneMisreads; // V2 unit reads a different producer
    std::map<std::string, int> cacheReads;                  // param -> producer read from the cache
    std::set<int> frozen; // stochastic V2 units whose draws stage two reads from the cache, however indirectly
};

Simulation simulate(const Pipeline &p, const std::vector<char> &trained)
{
    const int n = static_cast<int>(p.units.size());
    std::vector<std::string> lossInputs;
    if (p.loss && p.loss->inputParams) {
        lossInputs = *p.loss->inputParams;
    } else {
        std::set<std::string> all;
        for (const Unit &u : p.units) {
            for (const auto &x : u.fetchInputParams())
                all.insert(x);
            for (const auto &x : u.fetchOutputParams())
                all.insert(x);
        }
        lossInputs.assign(all.begin(), all.end());
    }
    if (p.loss && p.loss->outputParams) { // what the loss writes before reading is no read
        const std::vector<std::string> &written = *p.loss->outputParams;
        lossInputs.erase(std::remove_if(lossInputs.begin(), lossInputs.end(),
                             [&](const std::string &x) {
                                 return std::find(written.begin(), written.end(), x) != written.end();
                             }),
            lossInputs.end());
    }
    auto get = [](const std::map<std::string, int> &s, const std::string &k) {
        const auto it = s.find(k);
        return it == s.end() ? -1 : it->second;
    };
    // One stage.
    std::map<std::pair<int, std::string>, int> expected;
    std::map<std::string, int> state;
    for (int u = 0; u < n; ++u) {
        for (const auto &x : p.units[u].fetchInputParams())
            expected[{u, x}] = get(state, x);
        for (const auto &x : p.units[u].fetchOutputParams())
            state[x] = u;
    }
    for (const auto &x : lossInputs)
        expected[{n, x}] = get(state, x);

    Simulation sim;
    // Stage one: V2 in order.
    std::map<std::string, int> cache;
    std::map<std::string, std::set<int>> drawsIn; // param -> the stochastic units its cached value depends on
    for (int u = 0; u < n; ++u) {
        if (trained[u])
            continue;
        const Unit &unit = p.units[u];
        for (const auto &x : unit.fetchInputParams()) {
            if (get(cache, x) != expected[{u, x}])
                sim.stageOneMisreads.insert({u, x});
        }
        // Each output's draws: the unit's own, and those of the inputs it is computed
        // from (every input, unless the unit's returns say which; an output it never
        // returns carries none).
        std::map<std::string, std::set<int>> written;
        const bool traced = unit.returns && std::any_of(unit.returns->begin(), unit.returns->end(),
            [](const BodyFact &f) { return f.random; });
        for (const auto &x : unit.fetchOutputParams()) {
            std::set<int> draws;
            std::vector<std::string> from = unit.fetchInputParams();
            bool random = unit.isStochastic();
            if (unit.returns) {
                const auto fact = std::find_if(unit.returns->begin(), unit.returns->end(),
                    [&](const BodyFact &f) { return f.name == x; });
                from = fact == unit.returns->end() ? std::vector<std::string>{} : fact->from;
                random = random && (fact == unit.returns->end() ? false : (fact->random || !traced));
            }
            if (random)
                draws.insert(u);
            const std::vector<std::string> inputs = unit.fetchInputParams();
            for (const auto &q : from) {
                const auto it = drawsIn.find(q);
                if (it != drawsIn.end() && std::find(inputs.begin(), inputs.end(), q) != inputs.end())
                    draws.insert(it->second.begin(), it->second.end());
            }
            written[x] = std::move(draws);
        }
        for (auto &[x, draws] : written) {
            cache[x] = u;
            drawsIn[x] = std::move(draws);
        }
    }
    // Stage two: from the cache, V1 in order, then the loss.
    std::map<std::string, int> live = cache;
    std::set<std::string> writtenInStageTwo;
    auto read = [&](int reader, const std::string &x) {
        const int actual = get(live, x);
        if (!writtenInStageTwo.count(x)) {
            sim.cacheReads[x] = actual;
            if (const auto it = drawsIn.find(x); it != drawsIn.end())
                sim.frozen.insert(it->second.begin(), it->second.end());
        }
        if (actual != expected[{reader, x}])
            sim.hazards.insert({reader, x, expected[{reader, x}], actual});
    };
    for (int u = 0; u < n; ++u) {
        if (!trained[u])
            continue;
        for (const auto &x : p.units[u].fetchInputParams())
            read(u, x);
        for (const auto &x : p.units[u].fetchOutputParams()) {
            live[x] = u;
            writtenInStageTwo.insert(x);
        }
    }
    for (const auto &x : lossInputs)
        read(n, x);
    return sim;
}

// The reasons F gives (explanations follow them back to X0): in each iteration, every
// unit F adds names an edge from a unit that is one step closer to that iteration's
// starting units (X0, or what the previous U added), so each chain of reasons takes the
// fewest steps; among such edges, the one from the first unit in pipeline order, and of
// its edges the first in the added unit's input order. Distances come from a plain
// breadth-first search here. Returns what is wrong, or an empty string.
QString forwardReasonProblem(const PipelineGraph &g, const Split &s)
{
    std::vector<UnitId> starts = s.x0;
    for (std::size_t i = 0; i < s.iterations.size(); ++i) {
        const int iteration = static_cast<int>(i) + 1;
        std::vector<int> distance(g.unitCount(), -1);
        std::vector<UnitId> queue;
        for (const UnitId u : starts) {
            distance[u] = 0;
            queue.push_back(u);
        }
        for (std::size_t head = 0; head < queue.size(); ++head) {
            for (const auto &e : g.outEdges(queue[head])) {
                if (distance[e.target] < 0) {
                    distance[e.target] = distance[queue[head]] + 1;
                    queue.push_back(e.target);
                }
            }
        }
        for (const UnitId t : s.iterations[i].forward) {
            const Reason &r = s.reasons[t];
            const PipelineGraph::Edge *expected = nullptr;
            for (const auto &e : g.inEdges(t)) {
                const bool closer = distance[e.source] >= 0 && distance[e.source] + 1 == distance[t];
                if (closer && (!expected || e.source < expected->source))
                    expected = &e;
            }
            if (r.rule != Reason::Rule::Forward || r.iteration != iteration || !expected || r.cause != expected->source
                || r.param != expected->param)
                return QString("iteration %1, unit %2: reason from unit %3 (param %4), expected from unit %5 (param %6)")
                    .arg(iteration)
                    .arg(t)
                    .arg(r.cause)
                    .arg(r.param)
                    .arg(expected ? expected->source : -1)
                    .arg(expected ? expected->param : -1);
        }
        starts = s.iterations[i].update;
    }
    return {};
}

void compareWithSimulation(const Pipeline &p, const PipelineGraph &g, const std::vector<char> &trained)
{
    const Simulation sim = simulate(p, trained);
    const Verification v = verifySplit(g, trained);
    std::set<std::tuple<int, std::string, int, int>> hazards;
    for (const Hazard &h : v.hazards) {
        hazards.insert({h.reader, g.paramName(h.param), h.expected, h.actual});
        // Kinds: the loss reads are loss-read; the mechanism is write-after-read exactly
        // when the value came from a V2 unit after the reader.
        QCOMPARE(h.kind == HazardKind::LossRead, h.reader == g.lossId());
        QCOMPARE(h.mechanism == HazardKind::WriteAfterRead, h.actual != kNoUnit && h.actual > h.reader);
    }
    QCOMPARE(hazards, sim.hazards);
    std::set<std::pair<int, std::string>> misreads;
    for (const auto &c : v.violations) {
        if (c.condition == ConditionViolation::Condition::C1)
            misreads.insert({c.to, g.paramName(c.param)});
    }
    QCOMPARE(misreads, sim.stageOneMisreads);
    std::map<std::string, int> cache;
    for (const CacheEntry &c : computeCacheSet(g, trained))
        cache[g.paramName(c.param)] = c.producer;
    QCOMPARE(cache, sim.cacheReads);
    // Frozen draws: the units, and each route a real path through stage one to a cached value.
    QCOMPARE(std::set<int>(v.frozenRandomness.begin(), v.frozenRandomness.end()), sim.frozen);
    QCOMPARE(v.frozenRoutes.size(), v.frozenRandomness.size());
    for (std::size_t i = 0; i < v.frozenRoutes.size(); ++i) {
        const FrozenDraws &d = v.frozenRoutes[i];
        QCOMPARE(d.unit, v.frozenRandomness[i]);
        UnitId at = d.unit;
        for (const PipelineGraph::Edge &e : d.route) {
            QCOMPARE(e.source, at);
            QVERIFY(!trained[e.target] && e.target > e.source);
            QVERIFY(std::find(g.outputs(at).begin(), g.outputs(at).end(), e.param) != g.outputs(at).end());
            QVERIFY(std::find(g.inputs(e.target).begin(), g.inputs(e.target).end(), e.param) != g.inputs(e.target).end());
            at = e.target;
        }
        QCOMPARE(cache.at(g.paramName(d.cached)), at);
    }
    std::set<int> unused;
    for (UnitId u = 0; u < g.unitCount(); ++u) {
        if (!trained[u] && g.isStochastic(u) && !sim.frozen.count(u))
            unused.insert(u);
    }
    QCOMPARE(std::set<int>(v.unusedRandomness.begin(), v.unusedRandomness.end()), unused);
}

std::vector<std::string> namesOf(const PipelineGraph &graph, Span<ParamId> params)
{
    std::vector<std::string> names;
    for (const ParamId p : params)
        names.push_back(graph.paramName(p));
    return names;
}

RandomPipelineOptions optionsFor(std::mt19937_64 &rng, int index)
{
    RandomPipelineOptions o;
    o.seed = 0x5eed0000ULL + static_cast<std::uint64_t>(index);
    const bool small = index % 10 < 7;
    o.units = small ? 1 + static_cast<int>(rng() % kBruteForceUnits) : 11 + static_cast<int>(rng() % 30);
    o.paramPool = 1 + static_cast<int>(rng() % (small ? 6 : 12));
    o.models = 1 + static_cast<int>(rng() % 3);
    o.modelProbability = 0.1 + 0.1 * static_cast<double>(rng() % 5);
    o.maxReads = 1 + static_cast<int>(rng() % 4);
    o.maxWrites = 1 + static_cast<int>(rng() % 3);
    o.stochasticProbability = 0.2;
    return o;
}

// What the importer might have read of the bodies: for some units, the inputs each
// output is computed from (an output now and then never returned, a key returned that
// is not declared), random draws in some of a stochastic unit's outputs, a model called
// without being declared; and params the loss writes before it reads them.
void addRandomFacts(Pipeline &p, std::mt19937_64 &rng, int models)
{
    for (Unit &u : p.units) {
        if (rng() % 3 == 0)
            continue;
        std::vector<BodyFact> returns;
        const std::vector<std::string> inputs = u.fetchInputParams();
        for (const std::string &x : u.outputParams) {
            if (rng() % 8 == 0)
                continue; // never returned
            BodyFact f{x, "r.py", 1, {}, u.isStochastic() && rng() % 2 == 0, {}};
            for (const std::string &q : inputs) {
                if (rng() % 2)
                    f.from.push_back(q);
            }
            returns.push_back(std::move(f));
        }
        if (rng() % 6 == 0)
            returns.push_back(BodyFact{"undeclared" + std::to_string(rng() % 3), "r.py", 2, {}, false, {}});
        u.returns = std::move(returns);
        if (rng() % 4 == 0)
            u.usesModels = std::vector<BodyFact>{BodyFact{"m" + std::to_string(rng() % models), "r.py", 3, {}, false, {}}};
    }
    if (p.loss && p.loss->inputParams && !p.loss->inputParams->empty() && rng() % 2)
        p.loss->outputParams = std::vector<std::string>{p.loss->inputParams->at(rng() % p.loss->inputParams->size())};
}

std::vector<std::string> modelsFor(std::mt19937_64 &rng, int models)
{
    std::vector<std::string> w;
    for (int m = 0; m < models; ++m) {
        if (rng() % 2)
            w.push_back("m" + std::to_string(m));
    }
    if (w.empty() && rng() % 4)
        w.push_back("m0");
    return w;
}

} // namespace

class TestSplitProperties : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void randomPipelines();
    void randomPipelinesWithBodyFacts();
    void unitLookupFromThreads();
    void inputsSortedByName();
};

void TestSplitProperties::randomPipelines()
{
    std::mt19937_64 rng(20261129);
    int bruteForced = 0;
    long loopholeSets = 0;
    int pipelinesWithLoophole = 0;
    int safeLarger = 0;
    int seedHazardous = 0;
    for (int index = 0; index < kPipelines; ++index) {
        const RandomPipelineOptions options = optionsFor(rng, index);
        const Pipeline pipeline = makeRandomPipeline(options);
        const PipelineGraph graph(pipeline);
        const std::vector<std::string> w = modelsFor(rng, options.models);
        const int n = graph.unitCount();

        // The graph reads each unit's params as fetch_input_params lists them.
        for (UnitId u = 0; u < n; ++u)
            QCOMPARE(namesOf(graph, graph.inputs(u)), pipeline.units[u].fetchInputParams());

        // Seed = literal pseudocode, step by step.
        const Split seed = computeSeedSplit(graph, w);
        const oracle::Result o = oracle::splitPipelineUnits(pipeline, w);
        QCOMPARE(seed.x0, std::vector<UnitId>(o.x0.begin(), o.x0.end()));
        QCOMPARE(seed.iterations.size(), o.iterations.size());
        for (std::size_t i = 0; i < o.iterations.size(); ++i) {
            QCOMPARE(seed.iterations[i].forward, o.iterations[i].first);
            QCOMPARE(seed.iterations[i].update, o.iterations[i].second);
        }
        QCOMPARE(seed.v1(), o.v1);
        const QString reasonProblem = forwardReasonProblem(graph, seed);
        QVERIFY2(reasonProblem.isEmpty(), qPrintable(QString("pipeline %1: %2").arg(index).arg(reasonProblem)));

        // C1 and C2 hold.
        const Verification vs = verifySplit(graph, seed);
        QVERIFY2(vs.satisfiesConditions(), qPrintable(QString::number(index)));
        seedHazardous += vs.hazardFree() ? 0 : 1;

        // Safe ⊇ seed, hazard-free, conditions hold.
        const Split safe = computeSafeSplit(graph, w);
        for (UnitId u = 0; u < n; ++u)
            QVERIFY(!seed.isTrained(u) || safe.isTrained(u));
        const Verification vsafe = verifySplit(graph, safe);
        QVERIFY(vsafe.hazardFree());
        QVERIFY(vsafe.satisfiesConditions());
        safeLarger += safe.trainedCount() > seed.trainedCount() ? 1 : 0;

        // The verifier and the cache set against literal execution.
        compareWithSimulation(pipeline, graph, seed.trained);
        std::vector<char> randomPartition(n);
        for (auto &t : randomPartition)
            t = static_cast<char>(rng() % 2);
        compareWithSimulation(pipeline, graph, randomPartition);

        if (n > kBruteForceUnits)
            continue;
        ++bruteForced;
        const Rules rules(graph);
        const Mask x0 = maskOf(membersAfterSteps(seed, 1, n));
        const Mask seedMask = maskOf(seed.trained);
        const Mask safeMask = maskOf(safe.trained);
        QVERIFY(rules.c1(seedMask) && rules.c2(seedMask));
        QVERIFY(rules.safeClosed(safeMask));
        const Mask free = ((n == 32) ? ~Mask(0) : (bit(n) - 1)) & ~x0;
        // Enumerate every Y with X0 ⊆ Y (subsets of the free units).
        bool loophole = false;
        for (Mask sub = free;; sub = (sub - 1) & free) {
            const Mask y = x0 | sub;
            const bool c1 = rules.c1(y);
            // Minimality (seedIsForced): every set containing X0 that satisfies C1 and C2'
            // contains the seed split.
            if (c1 && rules.c2Every(y))
                QVERIFY2((y & seedMask) == seedMask, qPrintable(QString::number(index)));
            // The literal reading "no smaller set satisfies C1 and C2" fails only through the
            // first-consumer loophole: such a set always breaks C2' (counted, not asserted).
            if (c1 && rules.c2(y) && __builtin_popcount(y) < __builtin_popcount(seedMask)) {
                QVERIFY(!rules.c2Every(y));
                ++loopholeSets;
                loophole = true;
            }
            // The safe split is the least set closed under C1, R1, R2 and the loss, and
            // every such set is hazard-free.
            if (rules.safeClosed(y)) {
                QVERIFY2((y & safeMask) == safeMask, qPrintable(QString::number(index)));
                QVERIFY(verifySplit(graph, trainedOf(y, n)).hazardFree());
            }
            if (sub == 0)
                break;
        }
        pipelinesWithLoophole += loophole ? 1 : 0;
    }
    qInfo("%d random pipelines; %d brute-forced (<= %d units); seed split hazardous in %d, safe split larger in %d;"
          " %d pipelines (%ld sets) where a smaller set satisfies C1 and C2 only through the first-consumer loophole",
        kPipelines, bruteForced, kBruteForceUnits, seedHazardous, safeLarger, pipelinesWithLoophole, loopholeSets);
    QVERIFY(bruteForced > kPipelines / 2);
    QVERIFY(seedHazardous > 0); // the generator does produce hazardous seed splits
}

// With what the importer reads of process() bodies: the frozen-draws check and the
// cache set still agree with literal execution (following each output's inputs), the
// seed split stays DiffSynth's (the oracle knows no facts), its lost gradients are
// exactly the stage-one units calling a trained model they do not declare, and the
// safe split contains those units and has no hazard of either kind.
void TestSplitProperties::randomPipelinesWithBodyFacts()
{
    std::mt19937_64 rng(20261201);
    int frozen = 0, unused = 0, lost = 0;
    for (int index = 0; index < kPipelines / 2; ++index) {
        const RandomPipelineOptions options = optionsFor(rng, index);
        Pipeline pipeline = makeRandomPipeline(options);
        addRandomFacts(pipeline, rng, options.models);
        const PipelineGraph graph(pipeline);
        const std::vector<std::string> w = modelsFor(rng, options.models);
        const int n = graph.unitCount();
        const Split seed = computeSeedSplit(graph, w);
        QCOMPARE(seed.v1(), oracle::splitPipelineUnits(pipeline, w).v1);
        const Verification vs = verifySplit(graph, seed);
        std::set<UnitId> expectedLost, undeclaredCallers;
        for (UnitId u = 0; u < n; ++u) {
            const Unit &unit = pipeline.units[u];
            for (const BodyFact &use : unit.usesModels.value_or(std::vector<BodyFact>{})) {
                if (!unit.callsModel(use.name) && std::find(w.begin(), w.end(), use.name) != w.end()) {
                    undeclaredCallers.insert(u);
                    if (!seed.isTrained(u))
                        expectedLost.insert(u);
                }
            }
        }
        std::set<UnitId> lostAt;
        for (const DeclarationFinding &f : vs.findings) {
            if (f.hazard)
                lostAt.insert(f.unit);
        }
        QCOMPARE(lostAt, expectedLost);
        lost += static_cast<int>(lostAt.size());
        const Split safe = computeSafeSplit(graph, w);
        for (UnitId u = 0; u < n; ++u)
            QVERIFY(!seed.isTrained(u) || safe.isTrained(u));
        for (const UnitId u : undeclaredCallers)
            QVERIFY(safe.isTrained(u));
        const Verification vsafe = verifySplit(graph, safe);
        QVERIFY2(vsafe.hazardFree(), qPrintable(QString::number(index)));
        compareWithSimulation(pipeline, graph, seed.trained);
        std::vector<char> randomPartition(n);
        for (auto &t : randomPartition)
            t = static_cast<char>(rng() % 2);
        compareWithSimulation(pipeline, graph, randomPartition);
        frozen += static_cast<int>(vs.frozenRandomness.size());
        unused += static_cast<int>(vs.unusedRandomness.size());
    }
    qInfo("%d random pipelines with body facts: %d frozen and %d unused stochastic units in seed splits, %d lost "
          "gradients", kPipelines / 2, frozen, unused, lost);
    QVERIFY(frozen > 0 && unused > 0 && lost > 0);
}

// The unit-name index is built by the first findUnit(), which may come from several
// threads at once (the graph is shared read-only): every thread must see every id.
void TestSplitProperties::unitLookupFromThreads()
{
    RandomPipelineOptions options;
    options.layered = true;
    options.units = 20000;
    options.seed = 7;
    Pipeline pipeline = makeRandomPipeline(options);
    pipeline.units[5].name = pipeline.units[2].name; // a repeated name resolves to its first unit
    const PipelineGraph graph(pipeline);
    const int n = graph.unitCount();
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&graph, &wrong, n, t] {
            for (int k = 0; k < n; ++k) {
                const UnitId u = (t % 2 == 0) ? k : n - 1 - k;
                const UnitId expected = (u == 5) ? 2 : u;
                if (graph.findUnit(graph.unitName(u)) != expected)
                    ++wrong[t];
            }
            if (graph.findUnit("no such unit") != kNoUnit || graph.findUnit(graph.unitName(graph.lossId())) != kNoUnit)
                ++wrong[t];
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    QCOMPARE(wrong, std::vector<int>(4, 0));
}

// Units' reads are sorted by a name's first 8 bytes where those differ, and by the
// whole name where they do not: names that share a long prefix, that are a prefix of
// another, that hold a NUL or bytes above 0x7f, more reads than the fast path takes,
// and repeats must all come out as fetch_input_params gives them.
void TestSplitProperties::inputsSortedByName()
{
    const std::string nul("a\0", 2);
    const std::string nulB("a\0b", 3);
    const std::string high8(8, '\xff');
    const std::vector<std::vector<std::string>> reads = {
        {"prompt_emb_posi", "prompt_emb_nega", "prompt_emb"},
        {"prompt_emb", "prompt_emb_posi", "prompt_emb", "prompt_emb_nega"},
        {"abcdefgh1", "abcdefgh", "abcdefg", "abcdefgi"},
        {nulB, "a", nul, "a"},
        {"\xc3\xa9", "z", "e", "\xc3\xa8"},
        {high8, "x"},
        {high8 + "y", high8, "x"},
        {"latents", "latents", "latents"},
        {"e", "d", "c", "b", "a"},
        {"noise", "latents", "timestep", "prompt_emb", "latents", "input_image", "height"},
        {""},
        {},
    };
    Pipeline pipeline;
    pipeline.name = "sorting";
    for (std::size_t i = 0; i < reads.size(); ++i) {
        Unit u;
        u.name = "unit" + std::to_string(i);
        u.inputParams = reads[i];
        if (i == 2)
            u.inputParamsPosi = ParamMap{{"prompt", "abcdefgh0"}};
        u.outputParams = {"out" + std::to_string(i)};
        pipeline.units.push_back(u);
    }
    const PipelineGraph graph(pipeline);
    for (UnitId u = 0; u < graph.unitCount(); ++u)
        QCOMPARE(namesOf(graph, graph.inputs(u)), pipeline.units[u].fetchInputParams());
}

QTEST_GUILESS_MAIN(TestSplitProperties)
#include "tst_splitproperties.moc"
