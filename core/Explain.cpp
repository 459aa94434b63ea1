// SPDX-License-Identifier: MIT
#include "Explain.h"

#include <algorithm>

namespace splitscope {

namespace {

std::string producerName(const PipelineGraph &graph, UnitId unit)
{
    return unit == kNoUnit ? std::string("the external input") : graph.unitName(unit);
}

std::string readerName(const PipelineGraph &graph, UnitId unit)
{
    return unit == graph.lossId() ? "the loss (" + graph.unitName(unit) + ")" : graph.unitName(unit);
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

std::string trainedModels(const Split &split)
{
    std::string out;
    for (const auto &m : split.models)
        out += (out.empty() ? "" : ", ") + m;
    return out.empty() ? std::string("none") : out;
}

} // namespace

std::string describeReason(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    const Reason &r = split.reasons[unit];
    const std::string &name = graph.unitName(unit);
    const std::string tag = stepTag(split, r);
    switch (r.rule) {
    case Reason::Rule::None:
        return name + " runs in stage one (cached).";
    case Reason::Rule::Model:
        return tag + ": " + name + " calls " + graph.modelName(r.model)
            + ", which needs gradients, so it runs in stage two.";
    case Reason::Rule::Forward:
        return tag + ": " + name + " reads " + graph.paramName(r.param) + " from " + graph.unitName(r.cause)
            + ", which runs in stage two, so it must run in stage two too.";
    case Reason::Rule::Update:
        return tag + ": " + graph.paramName(r.param) + " is first read inside X by " + graph.unitName(r.cause)
            + ", which rewrites it, so its later rewriter " + name + " must also run in stage two.";
    case Reason::Rule::LaterProducer:
        return tag + ": " + readerName(graph, r.cause) + " reads " + graph.paramName(r.param)
            + " in stage two and " + name + " writes it afterwards; left in stage one, " + name
            + "'s write would reach the cache before that read, so it runs in stage two.";
    case Reason::Rule::ReachingDefinition:
        return tag + ": " + readerName(graph, r.cause) + " reads " + graph.paramName(r.param)
            + " in stage two, where " + graph.unitName(r.other) + " also writes it; the value the read must see is "
            + name + "'s, so " + name + " has to run in stage two after " + graph.unitName(r.other) + ".";
    case Reason::Rule::Given:
        return name + " is listed in stage two by the given partition.";
    }
    return name;
}

Explanation explainUnit(const PipelineGraph &graph, const Split &split, UnitId unit)
{
    Explanation e;
    e.unit = unit;
    e.trained = split.isTrained(unit);
    const std::string &name = graph.unitName(unit);
    if (e.trained) {
        // Follow causes back to X0 (or to the loss / a given unit, which need no cause).
        UnitId u = unit;
        while (true) {
            e.path.push_back(u);
            const Reason &r = split.reasons[u];
            const bool hasUnitCause = (r.rule == Reason::Rule::Forward || r.rule == Reason::Rule::Update
                                          || r.rule == Reason::Rule::LaterProducer
                                          || r.rule == Reason::Rule::ReachingDefinition)
                && r.cause != kNoUnit && r.cause != graph.lossId();
            if (!hasUnitCause || e.path.size() > static_cast<std::size_t>(graph.unitCount()))
                break;
            u = r.cause;
        }
        std::reverse(e.path.begin(), e.path.end());
        e.lines.push_back(name + " runs in stage two (trained every step). Chain of reasons:");
        for (std::size_t i = 0; i < e.path.size(); ++i)
            e.lines.push_back(std::to_string(i + 1) + ". " + describeReason(graph, split, e.path[i]));
        return e;
    }

    e.lines.push_back(name + " runs in stage one (computed once and cached), because:");
    if (split.mode == SplitMode::Given) {
        e.lines.push_back("- the given partition puts it there.");
        return e;
    }
    // Models.
    const Span<ModelId> models = graph.unitModels(unit);
    if (models.empty()) {
        e.lines.push_back("- it calls no model, so it is not in X0;");
    } else {
        std::string list;
        for (const ModelId m : models)
            list += (list.empty() ? "" : ", ") + graph.modelName(m);
        e.lines.push_back("- it calls " + list + (models.size() == 1 ? ", which does not need" : ", none of which needs")
            + " gradients (models requiring backward: " + trainedModels(split) + "), so it is not in X0;");
    }
    // Inputs.
    if (graph.inputs(unit).empty()) {
        e.lines.push_back("- it reads nothing, so no data edge reaches it;");
    } else {
        std::string reads;
        for (const ParamId p : graph.inputs(unit)) {
            const UnitId producer = graph.producerBefore(p, unit);
            reads += (reads.empty() ? "" : "; ") + graph.paramName(p) + " from " + producerName(graph, producer)
                + (producer == kNoUnit ? "" : " (stage one)");
        }
        e.lines.push_back("- no input comes from stage two: " + reads + ";");
    }
    // Outputs: why no update-chain rule pulls it in.
    bool anyOutput = false;
    for (const ParamId p : graph.outputs(unit)) {
        UnitId first = kNoUnit;
        for (const UnitId r : graph.readers(p)) {
            if (split.isTrained(r)) {
                first = r;
                break;
            }
        }
        anyOutput = true;
        const std::string &pn = graph.paramName(p);
        if (first == kNoUnit) {
            e.lines.push_back("- it writes " + pn + ", which no stage-two unit reads;");
        } else if (first > unit) {
            e.lines.push_back("- it writes " + pn + " before " + graph.unitName(first)
                + ", the first stage-two reader, so its value reaches that reader through the cache;");
        } else if (split.mode == SplitMode::Seed && graph.chainIndex(p, first) < 0) {
            e.lines.push_back("- it writes " + pn + " after " + graph.unitName(first) + " reads it, but "
                + graph.unitName(first) + " does not rewrite " + pn
                + ", so DiffSynth's update rule U does not pull it in (the safe split would; see the verifier);");
        } else {
            e.lines.push_back("- it writes " + pn + "; its first stage-two reader is " + graph.unitName(first) + ";");
        }
    }
    if (!anyOutput)
        e.lines.push_back("- it writes nothing.");
    return e;
}

std::vector<std::string> describeStep(const PipelineGraph &graph, const Split &split, const TraceStep &step)
{
    std::vector<std::string> lines;
    switch (step.kind) {
    case TraceStep::Kind::Initial:
        lines.push_back("X0: the units that call a model requiring backward (" + trainedModels(split) + ").");
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
                ? std::string("No unit calls these models: stage two runs only the loss.")
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
