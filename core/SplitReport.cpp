// SPDX-License-Identifier: MIT
#include "SplitReport.h"

#include "CountText.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

namespace splitscope {

namespace {

using OrderedJson = nlohmann::ordered_json;

// "1 hazard", "2 hazards": a count with its noun, which takes an "s" in the plural.
OrderedJson unitList(const PipelineGraph &graph, const std::vector<UnitId> &units)
{
    OrderedJson list = OrderedJson::array();
    for (const UnitId u : units)
        list.push_back(graph.unitName(u));
    return list;
}

OrderedJson producerJson(const PipelineGraph &graph, UnitId unit)
{
    return unit == kNoUnit ? OrderedJson(nullptr) : OrderedJson(graph.unitName(unit));
}

const char *ruleName(Reason::Rule rule)
{
    switch (rule) {
    case Reason::Rule::None: return "none";
    case Reason::Rule::Model: return "x0";
    case Reason::Rule::Forward: return "forward";
    case Reason::Rule::Update: return "update";
    case Reason::Rule::LaterProducer: return "later-producer";
    case Reason::Rule::ReachingDefinition: return "reaching-definition";
    case Reason::Rule::Given: return "given";
    }
    return "none";
}

// A DOT string for text that Graphviz shows: `"` and `\` escaped, and each line break
// written as DOT's own `\n`. Graphviz reads a backslash as the start of its escapes
// (`\n`, `\l`, `\N`, ...), so a backslash of the text is doubled. Names reach here through
// printableName, which writes their control characters as the reports and the app
// show them (a newline as the two characters `\n`); the line breaks left are the label's.
std::string dotQuote(std::string_view text)
{
    std::string out = "\"";
    out.reserve(text.size() + 2);
    for (const char c : text) {
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    out += '"';
    return out;
}

// The node's label: its name, then its models and its stochastic mark on lines of their own.
std::string unitLabelForDot(const PipelineGraph &graph, UnitId u)
{
    std::string label = unitLabel(graph, u);
    const Span<ModelId> models = graph.unitModels(u);
    if (!models.empty()) {
        label += "\n[";
        for (std::size_t i = 0; i < models.size(); ++i)
            label += (i ? ", " : "") + modelLabel(graph, models[i]);
        label += "]";
    }
    if (graph.isStochastic(u))
        label += "\n(stochastic)";
    return label;
}

} // namespace

SplitAnalysis analyzeSplit(const PipelineGraph &graph, const std::vector<std::string> &models, SplitMode mode)
{
    return analyzeSplit(graph, computeSplit(graph, models, mode));
}

SplitAnalysis analyzeSplit(const PipelineGraph &graph, Split split)
{
    SplitAnalysis a;
    a.verification = verifySplit(graph, split);
    a.cacheSet = computeCacheSet(graph, split.trained);
    a.split = std::move(split);
    return a;
}

std::string splitToJson(const PipelineGraph &graph, const SplitAnalysis &analysis,
    const std::optional<Explanation> &explanation)
{
    const Split &s = analysis.split;
    OrderedJson doc = OrderedJson::object();
    doc["format"] = "splitscope.split/1";
    doc["pipeline"] = graph.pipelineName();
    doc["mode"] = splitModeName(s.mode);
    doc["models_require_backward"] = s.models;
    doc["x0"] = unitList(graph, s.x0);
    OrderedJson iterations = OrderedJson::array();
    for (const Iteration &it : s.iterations)
        iterations.push_back(OrderedJson{{"forward", unitList(graph, it.forward)}, {"update", unitList(graph, it.update)}});
    doc["iterations"] = std::move(iterations);
    doc["v1"] = unitList(graph, s.v1());
    doc["v2"] = unitList(graph, s.v2());
    OrderedJson reasons = OrderedJson::array();
    for (const UnitId u : s.v1()) {
        const Reason &r = s.reasons[u];
        OrderedJson entry = OrderedJson::object();
        entry["unit"] = graph.unitName(u);
        entry["rule"] = ruleName(r.rule);
        entry["cause"] = (r.cause == kNoUnit) ? OrderedJson(nullptr) : OrderedJson(graph.unitName(r.cause));
        entry["param"] = r.param >= 0 ? OrderedJson(graph.paramName(r.param)) : OrderedJson(nullptr);
        entry["model"] = r.model >= 0 ? OrderedJson(graph.modelName(r.model)) : OrderedJson(nullptr);
        if (r.other != kNoUnit)
            entry["other"] = graph.unitName(r.other);
        entry["text"] = describeReason(graph, s, u);
        reasons.push_back(std::move(entry));
    }
    doc["reasons"] = std::move(reasons);
    // The update chain of each param an update reason names, once. Members are appended
    // directly: OrderedJson's operator[] searches its keys linearly.
    OrderedJson chains = OrderedJson::object();
    auto &chainMembers = static_cast<OrderedJson::object_t::Container &>(chains.get_ref<OrderedJson::object_t &>());
    std::vector<char> listed(static_cast<std::size_t>(graph.paramCount()), 0);
    for (const UnitId u : s.v1()) {
        const Reason &r = s.reasons[u];
        if (r.rule != Reason::Rule::Update || listed[static_cast<std::size_t>(r.param)])
            continue;
        listed[static_cast<std::size_t>(r.param)] = 1;
        chainMembers.emplace_back(graph.paramName(r.param), unitList(graph, writersOf(graph, r.param)));
    }
    doc["update_chains"] = std::move(chains);
    OrderedJson violations = OrderedJson::array();
    for (const auto &v : analysis.verification.violations) {
        if (v.condition == ConditionViolation::Condition::X0) {
            violations.push_back(OrderedJson{{"condition", "X0"}, {"unit", graph.unitName(v.from)},
                {"model", graph.modelName(v.model)}});
            continue;
        }
        violations.push_back(OrderedJson{{"condition", conditionName(v.condition)}, {"from", graph.unitName(v.from)},
            {"to", graph.unitName(v.to)}, {"param", graph.paramName(v.param)}});
    }
    doc["violations"] = std::move(violations);
    OrderedJson hazards = OrderedJson::array();
    for (const Hazard &h : analysis.verification.hazards) {
        hazards.push_back(OrderedJson{{"kind", hazardKindName(h.kind)}, {"mechanism", hazardKindName(h.mechanism)},
            {"reader", graph.unitName(h.reader)},
            {"reader_is_loss", h.reader == graph.lossId()}, {"param", graph.paramName(h.param)},
            {"expected_producer", producerJson(graph, h.expected)}, {"actual_producer", producerJson(graph, h.actual)}});
    }
    doc["hazards"] = std::move(hazards);
    OrderedJson findings = OrderedJson::array();
    for (const DeclarationFinding &f : analysis.verification.findings) {
        const bool model = f.kind == DeclarationFinding::Kind::UndeclaredModel;
        OrderedJson finding = OrderedJson{{"kind", declarationFindingName(f.kind)}, {"unit", graph.unitName(f.unit)},
            {model ? "model" : "param", f.name}, {"file", f.file}, {"line", f.line}};
        if (model)
            finding["lost_gradients"] = f.hazard;
        findings.push_back(std::move(finding));
    }
    doc["declaration_findings"] = std::move(findings);
    doc["frozen_randomness"] = unitList(graph, analysis.verification.frozenRandomness);
    OrderedJson cache = OrderedJson::array();
    for (const CacheEntry &c : analysis.cacheSet) {
        OrderedJson readers = OrderedJson::array();
        for (const UnitId r : c.readers)
            readers.push_back(graph.unitName(r));
        const bool lossReads = !c.readers.empty() && c.readers.back() == graph.lossId();
        cache.push_back(OrderedJson{{"param", graph.paramName(c.param)}, {"producer", producerJson(graph, c.producer)},
            {"readers", std::move(readers)}, {"loss_reads", lossReads}});
    }
    doc["cache_set"] = std::move(cache);
    if (explanation) {
        doc["explain"] = OrderedJson{{"unit", graph.unitName(explanation->unit)},
            {"stage", explanation->trained ? "two" : "one"}, {"path", unitList(graph, explanation->path)},
            {"lines", explanation->lines}};
    }
    return doc.dump(1);
}

std::string verificationSummary(const Split &split, const Verification &verification)
{
    std::size_t x0 = 0, c1 = 0, c2 = 0;
    for (const auto &viol : verification.violations) {
        switch (viol.condition) {
        case ConditionViolation::Condition::X0: ++x0; break;
        case ConditionViolation::Condition::C1: ++c1; break;
        case ConditionViolation::Condition::C2: ++c2; break;
        }
    }
    std::string out;
    if (x0)
        out += "X0 " + countText(x0, "violation") + ", ";
    else if (split.mode == SplitMode::Given) // the seed and safe splits hold it by construction
        out += "X0 holds, ";
    out += "C1 " + (c1 ? countText(c1, "violation") : std::string("holds")) + ", C2 "
        + (c2 ? countText(c2, "violation") : std::string("holds")) + ", "
        + (verification.hazardFree() ? std::string("no hazards")
                                     : countText(verification.hazardCount(), "hazard"));
    return out;
}

std::vector<std::string> verificationFindings(const PipelineGraph &graph, const Verification &verification)
{
    std::vector<std::string> lines;
    for (const auto &viol : verification.violations) {
        if (viol.condition == ConditionViolation::Condition::X0)
            lines.push_back("X0: " + unitLabel(graph, viol.from) + " calls " + modelLabel(graph, viol.model)
                + ", which needs gradients, but is in stage one, which runs once without gradients");
        else if (viol.condition == ConditionViolation::Condition::C1)
            lines.push_back("C1: " + unitLabel(graph, viol.to) + " (stage one) reads " + paramLabel(graph, viol.param)
                + " from " + unitLabel(graph, viol.from) + " (stage two)");
        else
            lines.push_back("C2: " + paramLabel(graph, viol.param) + " is first read in stage two by "
                + unitLabel(graph, viol.from) + ", which rewrites it, but its later rewriter "
                + unitLabel(graph, viol.to) + " is in stage one");
    }
    for (const Hazard &h : verification.hazards) {
        const std::string reader = h.reader == graph.lossId() ? "the loss" : unitLabel(graph, h.reader);
        auto prod = [&](UnitId u) { return u == kNoUnit ? std::string("the external input") : unitLabel(graph, u); };
        std::string line = hazardKindName(h.kind);
        if (h.kind != h.mechanism)
            line += std::string(" (") + hazardKindName(h.mechanism) + ")";
        lines.push_back(line + ": " + reader + " reads " + paramLabel(graph, h.param) + "; one-stage training gives it "
            + prod(h.expected) + "'s value, two-stage gives it " + prod(h.actual) + "'s");
    }
    for (const DeclarationFinding &f : verification.findings) {
        if (f.hazard)
            lines.push_back(declarationFindingText(graph, f));
    }
    return lines;
}

std::string splitToText(const PipelineGraph &graph, const SplitAnalysis &analysis)
{
    const Split &s = analysis.split;
    const Verification &v = analysis.verification;
    std::ostringstream out;
    std::string models;
    for (const auto &m : s.models)
        models += (models.empty() ? "" : ", ") + printableName(m);
    out << "Pipeline " << printableName(graph.pipelineName()) << ": " << graph.unitCount() << (graph.unitCount() == 1 ? " unit, " : " units, ")
        << graph.paramCount() << (graph.paramCount() == 1 ? " param\n" : " params\n");
    out << "Models requiring backward: " << (models.empty() ? "none" : models);
    const std::vector<std::string> idle = modelsNoUnitCalls(graph, s.models);
    for (std::size_t i = 0; i < idle.size(); ++i)
        out << (i == 0 ? " (no unit calls " : " or ") << printableName(idle[i]);
    if (!idle.empty()) {
        const bool one = idle.size() == 1;
        out << "; only the loss runs " << (one ? "it, so it puts" : "them, so they put") << " no unit in stage two)";
    }
    out << "\n";
    out << "Split mode: " << splitModeName(s.mode);
    if (s.mode == SplitMode::Seed)
        out << " (DiffSynth's fixed point, " << s.iterations.size() << " iteration"
            << (s.iterations.size() == 1 ? "" : "s") << ")";
    else if (s.mode == SplitMode::Safe)
        out << " (the least hazard-free closure; docs/verification.md, \"The safe split\")";
    out << "\n\n";

    auto names = [&](const std::vector<UnitId> &units) {
        std::string list;
        for (const UnitId u : units)
            list += (list.empty() ? "" : ", ") + unitLabel(graph, u);
        return list.empty() ? std::string("nothing") : list;
    };
    if (s.mode == SplitMode::Seed) {
        out << "Tags: X0 = calls a model requiring backward; Fk = added in iteration k by the forward rule F\n"
               "(reads a param from a unit in X); Uk = added in iteration k by the update rule U (rewrites a\n"
               "param after its first reader in X, which rewrites it too).\n\n";
        out << "X0 (units calling a model requiring backward): " << names(s.x0) << "\n";
        for (std::size_t i = 0; i < s.iterations.size(); ++i) {
            out << "Iteration " << i + 1 << ": F adds " << names(s.iterations[i].forward) << "; U adds "
                << names(s.iterations[i].update) << "\n";
        }
        out << "\n";
    }

    if (s.mode == SplitMode::Safe) {
        out << "Tags: X0 = calls a model requiring backward; C1 = reads a param from a stage-two unit;\n"
               "R1 = writes a param after a stage-two read of it; R2 = writes the value a stage-two read must\n"
               "see, which another stage-two unit would otherwise shadow.\n\n";
    }
    const auto v1 = s.v1();
    const auto v2 = s.v2();
    out << "Stage two (V1, run at every training step): " << v1.size() << " unit" << (v1.size() == 1 ? "" : "s") << "\n";
    for (const UnitId u : v1)
        out << "  " << describeReason(graph, s, u) << "\n";
    out << "Stage one (V2, computed once and cached): " << v2.size() << " unit" << (v2.size() == 1 ? "" : "s") << "\n";
    for (const UnitId u : v2)
        out << "  " << unitLabel(graph, u) << "\n";

    out << "\nCache set (what stage two reads from stage one): " << analysis.cacheSet.size() << " param"
        << (analysis.cacheSet.size() == 1 ? "" : "s") << "\n";
    for (const CacheEntry &c : analysis.cacheSet) {
        out << "  " << paramLabel(graph, c.param) << " <- "
            << (c.producer == kNoUnit ? std::string("external input") : unitLabel(graph, c.producer)) << "\n";
    }

    out << "\nVerification: " << verificationSummary(s, v) << "\n";
    for (const std::string &line : verificationFindings(graph, v))
        out << "  " << line << "\n";
    if (!v.hazardFree() && s.mode != SplitMode::Safe)
        out << "  The safe split (--mode safe) removes these hazards.\n";
    const std::size_t other = v.findings.size() - v.lostGradients();
    if (other > 0) {
        out << "\nWhat process() does beyond its declaration (read from the source): " << countText(other, "finding")
            << "\n";
        for (const DeclarationFinding &f : v.findings) {
            if (!f.hazard)
                out << "  " << declarationFindingText(graph, f) << "\n";
        }
    }
    for (const FrozenDraws &d : v.frozenRoutes) {
        out << "Warning: " << unitLabel(graph, d.unit) << " is stochastic and runs in stage one, and its random draws "
            << "reach the cache (" << frozenRouteText(graph, d) << "): they are drawn once and repeat every epoch.\n";
    }
    for (const UnitId u : v.unusedRandomness) {
        out << "Note: " << unitLabel(graph, u) << " is stochastic and runs in stage one, but nothing it writes "
            << "reaches stage two: its random draws take no part in training.\n";
    }
    return out.str();
}

std::string splitToDot(const PipelineGraph &graph, const SplitAnalysis &analysis, const DotOptions &options)
{
    const Split &s = analysis.split;
    const int n = graph.unitCount();
    std::set<UnitId> hazardReaders;
    std::set<std::pair<UnitId, UnitId>> hazardEdges; // (producer, reader) drawn in red
    for (const Hazard &h : analysis.verification.hazards) {
        hazardReaders.insert(h.reader);
        if (h.expected != kNoUnit)
            hazardEdges.insert({h.expected, h.reader});
        if (h.actual != kNoUnit)
            hazardEdges.insert({h.actual, h.reader});
    }
    std::set<UnitId> x0(s.x0.begin(), s.x0.end());

    std::ostringstream out;
    auto id = [&](UnitId u) { return u == graph.lossId() ? std::string("loss") : "u" + std::to_string(u); };
    std::string models;
    for (const auto &m : s.models)
        models += (models.empty() ? "" : ", ") + printableName(m);
    const std::string pipelineName = printableName(graph.pipelineName());
    out << "digraph " << dotQuote(pipelineName) << " {\n";
    out << "  graph [rankdir=TB, fontname=\"Helvetica\", labelloc=t, label="
        << dotQuote(pipelineName + ": " + splitModeName(s.mode) + " split, training "
               + (models.empty() ? "nothing" : models))
        << "];\n";
    out << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n";
    out << "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#495057\"];\n";
    for (UnitId u = 0; u < n; ++u) {
        out << "  " << id(u) << " [label=" << dotQuote(unitLabelForDot(graph, u))
            << ", fillcolor=\"" << (s.isTrained(u) ? kStageTwoColor : kStageOneColor) << "\"";
        if (x0.count(u))
            out << ", peripheries=2";
        if (hazardReaders.count(u))
            out << ", color=\"" << kHazardColor << "\", penwidth=3";
        out << ", tooltip=" << dotQuote(s.isTrained(u) ? describeReason(graph, s, u) : "stage one (cached)") << "];\n";
    }
    if (options.showLoss) {
        out << "  loss [label=" << dotQuote("loss: " + unitLabel(graph, graph.lossId()))
            << ", shape=ellipse, fillcolor=\"" << kLossColor << "\"";
        if (hazardReaders.count(graph.lossId()))
            out << ", color=\"" << kHazardColor << "\", penwidth=3";
        out << "];\n";
    }
    // One drawn edge per (source, target) pair, labeled with every param it carries.
    const int last = options.showLoss ? n : n - 1;
    for (UnitId t = 0; t <= last; ++t) {
        std::map<UnitId, std::string> labels;
        for (const auto &e : graph.inEdges(t)) {
            std::string &label = labels[e.source];
            label += (label.empty() ? "" : "\n") + paramLabel(graph, e.param);
        }
        for (const auto &[src, label] : labels) {
            out << "  " << id(src) << " -> " << id(t) << " [";
            bool first = true;
            auto attr = [&](const std::string &a) {
                out << (first ? "" : ", ") << a;
                first = false;
            };
            if (options.edgeLabels)
                attr("label=" + dotQuote(label));
            if (t == graph.lossId())
                attr("style=dashed");
            if (hazardEdges.count({src, t}))
                attr(std::string("color=\"") + kHazardColor + "\", penwidth=2");
            else if (s.isTrained(src))
                attr("color=\"#e8590c\"");
            out << "];\n";
        }
    }
    if (options.legend) {
        out << "  subgraph cluster_legend {\n    label=\"Legend\"; fontsize=10; style=rounded; color=\"#adb5bd\";\n";
        out << "    legend_one [label=\"stage one (cached)\", fillcolor=\"" << kStageOneColor << "\"];\n";
        out << "    legend_two [label=\"stage two (every training step)\", fillcolor=\"" << kStageTwoColor << "\"];\n";
        out << "    legend_x0 [label=\"X0 (calls a model that needs gradients)\", fillcolor=\"" << kStageTwoColor
            << "\", peripheries=2];\n";
        out << "    legend_hazard [label=\"hazard reader\", fillcolor=\"white\", color=\"" << kHazardColor
            << "\", penwidth=3];\n";
        out << "    legend_one -> legend_two -> legend_x0 -> legend_hazard [style=invis];\n  }\n";
    }
    out << "}\n";
    return out.str();
}

} // namespace splitscope
