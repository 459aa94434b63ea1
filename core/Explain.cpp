// SPDX-License-Identifier: MIT
#include "Explain.h"

#include "CountText.h"
#include "Verifier.h"

#include <algorithm>
#include <set>

namespace splitscope {

namespace {

std::string producerName(const PipelineGraph &graph, UnitId unit)
{
    return unit == kNoUnit ? std::string("the external input") : unitLabel(graph, unit);
}

std::string readerName(const PipelineGraph &graph, UnitId unit)
{
    return unit == graph.lossId() ? "the loss (" + unitLabel(graph, unit) + ")" : unitLabel(graph, unit);
}

std::string stepTag(const Split &split, const Reason &r)
{
    if (split.mode == SplitMode::Seed) {
        switch (r.rule) {
        case Reason::Rule::Model: return "X0";
        case Reason::Rule::Forward: return "F" + std::to_string(r.iteration);
        case Reason::Rule::Update: return "U" + std::to_string(r.iteration);
        default: break;
        }
    }
    switch (r.rule) {
    case Reason::Rule::Model: return "X0";
    case Reason::Rule::Forward: return "C1";
    case Reason::Rule::LaterProducer: return "R1";
    case Reason::Rule::ReachingDefinition: return "R2";
    case Reason::Rule::Given: return "given";
    default: return "";
    }
}

// "A, B, C, D" for people; long chains keep their ends and give the count.
std::string unitNames(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    constexpr std::size_t kHead = 4, kTail = 3;
    std::string out;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (units.size() > kHead + kTail + 1 && i == kHead) {
            out += ", ... (" + std::to_string(units.size()) + " in all)";
            i = units.size() - kTail - 1;
            continue;
        }
        out += (out.empty() ? "" : ", ") + unitLabel(graph, units[i]);
    }
    return out;
}

// Whether the loss reads `param`.
bool lossReads(const PipelineGraph &graph, ParamId param)
{
    const Span<ParamId> reads = graph.inputs(graph.lossId()); // sorted by name
    return std::binary_search(reads.begin(), reads.end(), param,
        [&graph](ParamId a, ParamId b) { return graph.paramName(a) < graph.paramName(b); });
}

// Where the value `unit` (in stage one) writes to `param` goes in two-stage training:
// which stage-two reads see it through the cache, which should see it and do not
// (hazards), or which later stage-one write replaces it in the cache.
std::string describeValueFlow(const PipelineGraph &graph, const Split &split, UnitId unit, ParamId param)
{
    const Span<UnitId> chain = graph.chain(param);
    UnitId cached = kNoUnit; // the last stage-one writer: its value is what the cache holds
    for (const UnitId w : chain) {
        if (!split.isTrained(w))
            cached = w;
    }
    // Stage-two reads of `param`: stage-two readers in order, then the loss.
    std::vector<UnitId> reads;
    for (const UnitId r : graph.readers(param)) {
        if (split.isTrained(r))
            reads.push_back(r);
    }
    if (lossReads(graph, param))
        reads.push_back(graph.lossId());
    std::vector<UnitId> seen, seenWrong, seenWrongExpects, missed, missedSees;
    std::size_t k = 0;                   // chain entries before the current read
    UnitId lastStageTwoWriter = kNoUnit; // among them
    UnitId lastWriter = kNoUnit;
    for (const UnitId r : reads) {
        // A unit reads before it writes, so the writes a read can see are strictly before it.
        for (; k < chain.size() && chain[k] < r; ++k) {
            lastWriter = chain[k];
            if (split.isTrained(chain[k]))
                lastStageTwoWriter = chain[k];
        }
        // A read sees the cache unless a stage-two unit wrote the param before it.
        const UnitId twoStage = lastStageTwoWriter != kNoUnit ? lastStageTwoWriter : cached;
        const UnitId oneStage = lastWriter;
        if (twoStage == unit && oneStage == unit) {
            seen.push_back(r);
        } else if (twoStage == unit) {
            seenWrong.push_back(r);
            seenWrongExpects.push_back(oneStage);
        } else if (oneStage == unit) {
            missed.push_back(r);
            missedSees.push_back(twoStage);
        }
    }
    std::string out;
    auto append = [&out](const std::string &part) { out += (out.empty() ? "" : "; ") + part; };
    if (!seen.empty()) {
        std::string names;
        for (std::size_t i = 0; i < seen.size(); ++i)
            names += (i == 0 ? "" : i + 1 == seen.size() ? " and " : ", ") + readerName(graph, seen[i]);
        append(names + (seen.size() == 1 ? " reads" : " read") + " this value from the cache");
    }
    for (std::size_t i = 0; i < seenWrong.size(); ++i) {
        append(readerName(graph, seenWrong[i]) + " reads this value from the cache, but in one-stage training it sees "
            + producerName(graph, seenWrongExpects[i]) + "'s: a hazard, see the verifier");
    }
    for (std::size_t i = 0; i < missed.size(); ++i) {
        append(readerName(graph, missed[i]) + " should see this value but sees " + producerName(graph, missedSees[i])
            + "'s in two-stage training: a hazard, see the verifier");
    }
    if (out.empty()) {
        if (cached != unit)
            append(unitLabel(graph, cached) + " writes " + paramLabel(graph, param)
                + " again later in stage one and replaces this value");
        else if (!reads.empty())
            append("every stage-two read of " + paramLabel(graph, param) + " sees a stage-two write, not this value");
        else
            append("nothing in stage two reads " + paramLabel(graph, param));
    }
    return out;
}

// The hazards at the reads of `unit` (in stage two): each input whose producer in
// two-stage training differs from the one in one-stage training, as the verifier finds
// them (a write of the unit itself comes after its reads).
std::vector<std::string> readHazards(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    std::vector<std::string> lines;
    for (const ParamId p : graph.inputs(unit)) {
        UnitId lastStageTwo = kNoUnit; // before the read
        UnitId cached = kNoUnit;       // the last stage-one writer: what the cache holds
        for (const UnitId w : graph.chain(p)) {
            if (!split.isTrained(w))
                cached = w;
            else if (w < unit)
                lastStageTwo = w;
        }
        const UnitId actual = lastStageTwo != kNoUnit ? lastStageTwo : cached;
        const UnitId expected = graph.producerBefore(p, unit);
        if (actual == expected)
            continue;
        const bool afterTheRead = actual != kNoUnit && actual > unit;
        lines.push_back("- a hazard (" + std::string(afterTheRead ? "write-after-read" : "write-after-write")
            + "): it reads " + paramLabel(graph, p) + "; one-stage training gives it " + producerName(graph, expected)
            + "'s value, two-stage gives it " + producerName(graph, actual) + "'s;");
    }
    return lines;
}

// A given partition's broken conditions C1 and C2 that involve `unit`, one line each
// ("- ...;"): the seed and safe splits never break them.
std::vector<std::string> brokenConditions(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    std::vector<std::string> lines;
    if (split.mode != SplitMode::Given)
        return lines;
    const std::string &name = unitLabel(graph, unit);
    for (const ConditionViolation &v : verifySplit(graph, split).violations) {
        if (v.condition == ConditionViolation::Condition::C1 && v.to == unit) {
            lines.push_back("- it reads " + paramLabel(graph, v.param) + " from " + unitLabel(graph, v.from)
                + ", which the partition puts in stage two: that breaks C1 (stage one runs first, so " + name
                + " would not get that value);");
        } else if (v.condition == ConditionViolation::Condition::C1 && v.from == unit) {
            lines.push_back("- it writes " + paramLabel(graph, v.param) + ", which " + unitLabel(graph, v.to)
                + " reads in stage one: that breaks C1 (stage one runs first, so " + unitLabel(graph, v.to)
                + " would not get this value);");
        } else if (v.condition == ConditionViolation::Condition::C2 && v.to == unit) {
            lines.push_back("- it rewrites " + paramLabel(graph, v.param) + " after " + unitLabel(graph, v.from)
                + ", which reads it first in stage two and rewrites it: that breaks C2 (DiffSynth's update rule "
                  "puts every later rewriter in stage two);");
        } else if (v.condition == ConditionViolation::Condition::C2 && v.from == unit) {
            lines.push_back("- it is the first stage-two reader of " + paramLabel(graph, v.param)
                + " and rewrites it, but the later rewriter " + unitLabel(graph, v.to)
                + " is in stage one: that breaks C2;");
        }
    }
    return lines;
}

// DiffSynth's list ("text_encoder, dit"), or `lastJoin` before the last name in a
// sentence ("text_encoder and dit").
std::string trainedModels(const Split &split, const char *lastJoin = ", ")
{
    std::string out;
    for (std::size_t i = 0; i < split.models.size(); ++i)
        out += (i == 0 ? "" : i + 1 == split.models.size() ? lastJoin : ", ") + split.models[i];
    return out.empty() ? std::string("none") : out;
}

} // namespace

std::string printableName(const std::string &name)
{
    const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
    if (std::none_of(name.begin(), name.end(), control))
        return name;
    static const char *const kHex = "0123456789abcdef";
    std::string out;
    for (const char c : name) {
        switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (control(c)) {
                const auto byte = static_cast<unsigned char>(c);
                out += "\\u00";
                out += kHex[byte >> 4];
                out += kHex[byte & 15];
            } else {
                out += c;
            }
        }
    }
    return out;
}

std::string unitLabel(const PipelineGraph &graph, UnitId unit)
{
    return printableName(graph.unitName(unit));
}

std::string paramLabel(const PipelineGraph &graph, ParamId param)
{
    return printableName(graph.paramName(param));
}

std::string modelLabel(const PipelineGraph &graph, ModelId model)
{
    return printableName(graph.modelName(model));
}

std::vector<UnitId> writersOf(const PipelineGraph &graph, ParamId param)
{
    std::vector<UnitId> writers;
    for (const UnitId w : graph.chain(param)) {
        if (writers.empty() || writers.back() != w) // a unit's repeats are adjacent in the chain
            writers.push_back(w);
    }
    return writers;
}

std::string describeReason(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    const Reason &r = split.reasons[unit];
    const std::string &name = unitLabel(graph, unit);
    const std::string tag = stepTag(split, r);
    switch (r.rule) {
    case Reason::Rule::None:
        return name + " runs in stage one (cached).";
    case Reason::Rule::Model:
        if (r.undeclared) {
            std::string where;
            for (const DeclarationFinding &f : graph.declarationFindings()) {
                if (f.unit == unit && f.kind == DeclarationFinding::Kind::UndeclaredModel && f.name == graph.modelName(r.model))
                    where = f.file + ":" + std::to_string(f.line);
            }
            return tag + ": " + name + "'s process() calls " + modelLabel(graph, r.model) + (where.empty() ? "" : " (" + where + ")")
                + ", which needs gradients, though its onload_model_names does not declare it; the safe split counts "
                  "the call, so it runs in stage two (DiffSynth's split would cache it).";
        }
        return tag + ": " + name + " calls " + modelLabel(graph, r.model)
            + ", which needs gradients, so it runs in stage two.";
    case Reason::Rule::Forward:
        return tag + ": " + name + " reads " + paramLabel(graph, r.param) + " from " + unitLabel(graph, r.cause)
            + ", which runs in stage two, so it must run in stage two too.";
    case Reason::Rule::Update:
        return tag + ": " + paramLabel(graph, r.param) + " is first read inside X by " + unitLabel(graph, r.cause)
            + ", which rewrites it, so its later rewriter " + name + " must also run in stage two (update chain of "
            + paramLabel(graph, r.param) + ": " + unitNames(graph, writersOf(graph, r.param)) + ").";
    case Reason::Rule::LaterProducer:
        return tag + ": " + readerName(graph, r.cause) + " reads " + paramLabel(graph, r.param)
            + " in stage two and " + name + " writes it afterwards; left in stage one, " + name
            + "'s write would reach the cache before that read, so it runs in stage two.";
    case Reason::Rule::ReachingDefinition:
        return tag + ": " + readerName(graph, r.cause) + " reads " + paramLabel(graph, r.param)
            + " in stage two, where " + unitLabel(graph, r.other) + " also writes it; the value the read must see is "
            + name + "'s, so " + name + " has to run in stage two after " + unitLabel(graph, r.other) + ".";
    case Reason::Rule::Given:
        return name + " is listed in stage two by the given partition.";
    }
    return name;
}

std::vector<std::string> modelsNoUnitCalls(const PipelineGraph &graph, const std::vector<std::string> &models)
{
    std::vector<char> called(static_cast<std::size_t>(graph.modelCount()), 0);
    for (UnitId u = 0; u < graph.unitCount(); ++u) {
        for (const ModelId m : graph.unitModels(u))
            called[static_cast<std::size_t>(m)] = 1;
        for (const ModelId m : graph.undeclaredModels(u)) // called in process(), though not declared
            called[static_cast<std::size_t>(m)] = 1;
    }
    std::vector<std::string> idle;
    for (const std::string &name : models) {
        const ModelId m = graph.findModel(name);
        if (m < 0 || !called[static_cast<std::size_t>(m)])
            idle.push_back(name);
    }
    return idle;
}

std::string findingPlace(const DeclarationFinding &finding)
{
    if (finding.file.empty() && finding.line == 0)
        return {};
    return finding.file + (finding.line > 0 ? ":" + std::to_string(finding.line) : std::string());
}

std::string declarationFindingText(const PipelineGraph &graph, const DeclarationFinding &f)
{
    const std::string unit = unitLabel(graph, f.unit);
    const std::string name = printableName(f.name);
    const std::string place = findingPlace(f);
    const std::string at = place.empty() ? std::string() : " (" + place + ")";
    std::string line = declarationFindingName(f.kind) + std::string(f.hazard ? " (hazard): " : ": ");
    switch (f.kind) {
    case DeclarationFinding::Kind::UndeclaredModel:
        if (f.hazard)
            return line + unit + " calls " + name + " in process()" + at + " without declaring it in onload_model_names; "
                + name + " needs gradients and " + unit + " runs in stage one, so DiffSynth caches it and the gradients of "
                + name + " through " + unit + " are lost";
        return line + unit + " calls " + name + " in process()" + at + ", which its onload_model_names does not declare: "
            + "training " + name + " would not put it in stage two, and whichever stage runs it must load " + name;
    case DeclarationFinding::Kind::UndeclaredOutput:
        return line + unit + " returns " + name + at + ", which its output_params does not declare: DiffSynth writes it into "
            + "the inputs anyway, so readers of " + name + " get it without a data edge and the cache set misses it";
    case DeclarationFinding::Kind::UnreturnedOutput:
        return line + unit + " declares the output " + name + ", but no return of its process() gives it: the split "
            + "takes " + unit + " for a producer of " + name + " that never writes it";
    case DeclarationFinding::Kind::UndeclaredRead:
        return line + unit + " reads " + name + " in process()" + at + " without declaring it as an input: the split "
            + "sees no data edge into " + unit + " for " + name;
    }
    return line + unit;
}

std::string frozenRouteText(const PipelineGraph &graph, const FrozenDraws &draws)
{
    std::string text;
    for (const PipelineGraph::Edge &e : draws.route)
        text += paramLabel(graph, e.param) + " → " + unitLabel(graph, e.target) + " → ";
    return text + paramLabel(graph, draws.cached) + ", which stage two reads from the cache";
}

namespace {

Explanation explainLoss(const PipelineGraph &graph, const Split &split)
{
    Explanation e;
    e.unit = graph.lossId();
    e.trained = true;
    const Span<ParamId> reads = graph.inputs(graph.lossId());
    e.lines.push_back("The loss (" + unitLabel(graph, graph.lossId()) + ") runs last, in stage two, at every training step; "
        + (reads.empty() ? std::string("it reads nothing.")
                         : "it reads " + countText(reads.size(), "param") + " (one-stage training gives each the "
                             "value of its last writer):"));
    for (const ParamId p : reads) {
        // In two-stage training: the last stage-two writer, else the cache (the last stage-one writer's value).
        UnitId stageTwo = kNoUnit, stageOne = kNoUnit;
        for (const UnitId w : graph.chain(p))
            (split.isTrained(w) ? stageTwo : stageOne) = w;
        const UnitId expected = graph.producerBefore(p, graph.lossId());
        const UnitId actual = stageTwo != kNoUnit ? stageTwo : stageOne;
        std::string line = "- " + paramLabel(graph, p) + ": ";
        if (stageTwo != kNoUnit)
            line += "from " + unitLabel(graph, stageTwo) + " (stage two)";
        else if (stageOne != kNoUnit)
            line += "from the cache (" + unitLabel(graph, stageOne) + ", stage one)";
        else
            line += "from the cache (the external input)";
        if (actual != expected)
            line += "; one-stage training gives it " + producerName(graph, expected) + "'s value: a hazard, see the verifier";
        e.lines.push_back(line + (p == reads[reads.size() - 1] ? "." : ";"));
    }
    return e;
}

} // namespace

Explanation explainUnit(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    if (unit == graph.lossId())
        return explainLoss(graph, split);
    Explanation e;
    e.unit = unit;
    e.trained = split.isTrained(unit);
    const std::string &name = unitLabel(graph, unit);
    if (e.trained) {
        // Follow causes back to X0 (or to the loss / a given unit, which need no cause).
        // R2 triggered by the loss continues at the other stage-two writer, whose own
        // reasons lead back to X0 (the loss itself needs none).
        UnitId u = unit;
        while (true) {
            e.path.push_back(u);
            const Reason &r = split.reasons[u];
            const bool causedByRule = r.rule == Reason::Rule::Forward || r.rule == Reason::Rule::Update
                || r.rule == Reason::Rule::LaterProducer || r.rule == Reason::Rule::ReachingDefinition;
            UnitId next = r.cause;
            if (r.rule == Reason::Rule::ReachingDefinition && r.cause == graph.lossId())
                next = r.other;
            if (!causedByRule || next == kNoUnit || next == graph.lossId()
                || e.path.size() > static_cast<std::size_t>(graph.unitCount()))
                break;
            u = next;
        }
        std::reverse(e.path.begin(), e.path.end());
        e.lines.push_back(name + " runs in stage two (at every training step). Chain of reasons:");
        for (std::size_t i = 0; i < e.path.size(); ++i)
            e.lines.push_back(std::to_string(i + 1) + ". " + describeReason(graph, split, e.path[i]));
        // What the verifier finds at this unit: the explanation must not read as "all is well".
        std::vector<std::string> problems = brokenConditions(graph, split, unit);
        const std::vector<std::string> hazards = readHazards(graph, split, unit);
        problems.insert(problems.end(), hazards.begin(), hazards.end());
        if (!problems.empty()) {
            e.lines.push_back("What the verifier reports at " + name + ":");
            e.lines.insert(e.lines.end(), problems.begin(), problems.end());
            e.lines.back().back() = '.';
        }
        return e;
    }

    e.lines.push_back(name + " runs in stage one (computed once and cached), because:");
    // Each param the unit writes, once, in declared order.
    std::vector<ParamId> order;
    std::set<ParamId> listed;
    for (const ParamId p : graph.outputs(unit)) {
        if (listed.insert(p).second)
            order.push_back(p);
    }
    if (split.mode == SplitMode::Given) {
        const ModelId trainedModel = modelRequiringBackward(graph, graph.resolveModels(split.models), unit);
        e.lines.push_back(trainedModel >= 0 ? "- the given partition puts it there, although it calls "
                    + modelLabel(graph, trainedModel) + ", which needs gradients: that breaks X0, see the verifier;"
                                            : std::string("- the given partition puts it there;"));
        const std::vector<std::string> broken = brokenConditions(graph, split, unit);
        e.lines.insert(e.lines.end(), broken.begin(), broken.end());
        for (const ParamId p : order)
            e.lines.push_back(
                "- it writes " + paramLabel(graph, p) + "; " + describeValueFlow(graph, split, unit, p) + ";");
        e.lines.back().back() = '.';
        return e;
    }
    // Models.
    const Span<ModelId> models = graph.unitModels(unit);
    if (models.empty()) {
        e.lines.push_back("- it calls no model, so it is not in X0;");
    } else {
        std::string list;
        for (const ModelId m : models)
            list += (list.empty() ? "" : ", ") + modelLabel(graph, m);
        e.lines.push_back("- it calls " + list + (models.size() == 1 ? ", which does not need" : ", none of which needs")
            + " gradients ("
            + (split.models.empty() ? std::string("no model does")
                                    : "only " + trainedModels(split, " and ") + (split.models.size() == 1 ? " does" : " do"))
            + "), so it is not in X0;");
    }
    // Inputs.
    if (graph.inputs(unit).empty()) {
        e.lines.push_back("- it reads nothing, so no data edge reaches it;");
    } else {
        std::string reads;
        for (const ParamId p : graph.inputs(unit)) {
            const UnitId producer = graph.producerBefore(p, unit);
            reads += (reads.empty() ? "" : "; ") + paramLabel(graph, p) + " from " + producerName(graph, producer)
                + (producer == kNoUnit ? "" : " (stage one)");
        }
        e.lines.push_back("- no input comes from stage two: " + reads + ";");
    }
    // Outputs, once per param: why no rule pulls the unit in, and where its value goes.
    for (const ParamId p : order) {
        const std::string &pn = paramLabel(graph, p);
        UnitId first = kNoUnit; // first stage-two unit that reads p
        for (const UnitId r : graph.readers(p)) {
            if (split.isTrained(r)) {
                first = r;
                break;
            }
        }
        std::string line = "- it writes " + pn;
        if (first == kNoUnit && lossReads(graph, p)) {
            line += ", which no stage-two unit reads"; // then: what the loss reads
        } else if (first == kNoUnit) {
            // describeValueFlow says that nothing in stage two reads it.
        } else if (first > unit) {
            line += " before " + unitLabel(graph, first) + ", the first stage-two unit to read it";
        } else if (split.mode == SplitMode::Seed && graph.chainIndex(p, first) < 0) {
            line += " after " + unitLabel(graph, first) + " reads it, but " + unitLabel(graph, first)
                + " does not rewrite "
                + pn + ", so DiffSynth's update rule U does not pull it in (the safe split would; see the verifier)";
        } else {
            line += "; its first stage-two reader is " + unitLabel(graph, first);
        }
        line += "; " + describeValueFlow(graph, split, unit, p) + ".";
        e.lines.push_back(std::move(line));
    }
    if (order.empty())
        e.lines.push_back("- it writes nothing.");
    if (split.mode == SplitMode::Safe && !order.empty()) {
        // What the lines above show, in the safe split's own terms (it is closed under both).
        e.lines.push_back("- neither safe rule pulls it in: no stage-two unit reads one of these params before this "
                          "unit writes it (R1), and no stage-two unit writes one before a stage-two reader that should "
                          "see this unit's value (R2).");
    }
    if (graph.isStochastic(unit)) {
        const Verification v = verifySplit(graph, split.trained);
        const auto frozen = std::find(v.frozenRandomness.begin(), v.frozenRandomness.end(), unit);
        e.lines.push_back(frozen == v.frozenRandomness.end()
                ? std::string("- it is stochastic, but nothing it writes reaches stage two: its random draws take no "
                              "part in training.")
                : "- it is stochastic, and its random draws reach the cache (" + frozenRouteText(graph,
                      v.frozenRoutes[static_cast<std::size_t>(frozen - v.frozenRandomness.begin())])
                    + "): they are drawn once and every epoch sees the same ones.");
    }
    return e;
}

std::vector<std::string> describeStep(const PipelineGraph &graph, const Split &split, const TraceStep &step)
{
    std::vector<std::string> lines;
    switch (step.kind) {
    case TraceStep::Kind::Initial:
        // DiffSynth's name for the models, once, for the engineers who know its code.
        lines.push_back("X0: every unit that calls a model that needs gradients joins X (DiffSynth's "
                        "models_require_backward: " + trainedModels(split) + ").");
        break;
    case TraceStep::Kind::Forward:
        lines.push_back("F" + std::to_string(step.iteration)
            + ": everything reachable from X along data edges joins X.");
        break;
    case TraceStep::Kind::Update:
        lines.push_back("U" + std::to_string(step.iteration)
            + ": for each param, if its first reader in X rewrites it, its later rewriters join X.");
        break;
    }
    if (step.added.empty()) {
        lines.push_back(step.kind == TraceStep::Kind::Initial
                ? std::string("No unit calls a model that needs gradients: stage two runs only the loss.")
                : std::string("Nothing new joins X at this step."));
        return lines;
    }
    for (const UnitId u : step.added)
        lines.push_back(describeReason(graph, split, u));
    return lines;
}

SplitDiff diffSplits(const PipelineGraph &graph, const Split &a, const Split &b)
{
    SplitDiff diff;
    for (UnitId u = 0; u < graph.unitCount(); ++u) {
        const bool ta = a.isTrained(u), tb = b.isTrained(u);
        if (ta == tb) {
            (ta ? diff.sameTrained : diff.sameCached) += 1;
            continue;
        }
        MovedUnit moved{u, tb, {}};
        const Split &has = tb ? b : a;
        const Split &lacks = tb ? a : b;
        moved.why = explainUnit(graph, has, u).lines;
        // And why the other split leaves it in stage one.
        const auto other = explainUnit(graph, lacks, u).lines;
        moved.why.push_back("In the other split (" + std::string(splitModeName(lacks.mode)) + ", "
            + (lacks.models.empty() ? std::string("no models") : lacks.models.front()
                + (lacks.models.size() > 1 ? " ..." : ""))
            + ") it stays in stage one:");
        moved.why.insert(moved.why.end(), other.begin() + 1, other.end());
        diff.moved.push_back(std::move(moved));
    }
    return diff;
}

} // namespace splitscope
