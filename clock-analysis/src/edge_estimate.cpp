#include "hashtrace/clock_analysis/edge_estimate.hpp"

#include "instance_files.hpp"
#include "json_values.hpp"
#include "hashtrace/text/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace hashtrace::clock_analysis {
namespace {

using clock_analysis::detail::instance_of_files;
using detail::json;

// Guaranteed bounds round outwards.
json json_lo(const std::optional<long double>& v) { return v ? json(static_cast<long long>(std::floor(*v))) : json(nullptr); }
json json_hi(const std::optional<long double>& v) { return v ? json(static_cast<long long>(std::ceil(*v))) : json(nullptr); }
json json_ns(const std::optional<long double>& v) { return v ? json(std::llround(*v)) : json(nullptr); }
json json_ppm(const std::optional<long double>& v) { return v ? json(detail::decimal(*v, 4)) : json(nullptr); }

std::string duration(long double ns) { return clocksync::format_duration_ns(static_cast<double>(ns)); }
std::string signed_duration(long double ns) { return (ns < 0 ? "-" : "+") + duration(std::fabs(ns)); }

std::string seconds(std::int64_t ns) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%lld.%09lld", static_cast<long long>(ns / 1'000'000'000), static_cast<long long>(ns % 1'000'000'000));
    return buffer;
}

std::string offset_text(long double ns) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%+.6Lf ms", ns * 1e-6L);
    return buffer;
}

std::string bounds_text(const InstanceClock& c) {
    const auto side = [&](const std::optional<long double>& b) {
        if (!b) return std::string("unbounded");
        return c.offset_ns ? signed_duration(*b - *c.offset_ns) : signed_duration(*b) + " (absolute)";
    };
    return "[" + side(c.bounds.lo) + ", " + side(c.bounds.hi) + "]";
}

std::vector<std::string> instance_names(const graph::SampleSet& samples) {
    std::vector<std::string> names;
    for (std::uint32_t i = 0; i < samples.instances.size(); ++i) names.push_back(instance_name(samples, i));
    return names;
}

}  // namespace

std::string instance_name(const graph::SampleSet& samples, std::uint32_t instance) {
    const auto& i = samples.instances.at(instance);
    return i.node_name + "/" + i.instance;
}

std::uint32_t resolve_reference(const graph::SampleSet& samples, const std::vector<InstanceMessages>& messages, const std::string& reference) {
    std::vector<std::size_t> links(samples.instances.size(), 0);
    for (const auto& m : messages) links[m.from] += m.messages.size(), links[m.to] += m.messages.size();
    std::optional<std::uint32_t> best;
    for (std::uint32_t i = 0; i < samples.instances.size(); ++i) {
        const auto& inst = samples.instances[i];
        if (inst.node_name != reference && instance_name(samples, i) != reference) continue;
        if (!best || links[i] > links[*best]) best = i;
    }
    if (!best) throw std::invalid_argument("--reference: no node or node/instance '" + reference + "' in the logs");
    return *best;
}

TimeBase estimate_from_graph(const graph::SampleSet& samples, const graph::Graph& graph, const std::optional<std::string>& reference,
                             const graph::Graph* confirmed_by, const FitOptions& fit) {
    const auto messages = message_times(samples, graph, confirmed_by);
    EstimateOptions options;
    options.fit = fit;
    if (reference) options.reference = resolve_reference(samples, messages, *reference);
    return estimate_time_base(messages, first_sample_ns(samples), instance_names(samples), options);
}

std::string render_estimate_text(const TimeBase& base, const graph::SampleSet& samples) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "reference: %s; offsets at its first sample (%s), bounds guaranteed if every link is right\n",
                  instance_name(samples, base.reference).c_str(), seconds(base.origin_ns).c_str());
    out += line;
    std::snprintf(line, sizeof line, "%-24s %16s %14s %36s %10s %9s %6s\n", "instance", "offset", "drift", "bounds (from the offset)",
                  "width", "messages", "pieces");
    out += line;
    for (const InstanceClock& c : base.clocks) {
        const std::string width = c.bounds.lo && c.bounds.hi ? duration(*c.bounds.hi - *c.bounds.lo) : "-";
        char drift[32] = "-";
        if (c.drift_ppm) std::snprintf(drift, sizeof drift, "%+.3Lf ppm", *c.drift_ppm);
        std::snprintf(line, sizeof line, "%-24s %16s %14s %36s %10s %9zu %6zu\n", instance_name(samples, c.instance).c_str(),
                      c.offset_ns ? offset_text(*c.offset_ns).c_str() : "not placed", drift, bounds_text(c).c_str(), width.c_str(),
                      c.messages_used, c.pieces.size());
        out += line;
        if (c.pieces.size() > 1)
            for (const ClockPiece& p : c.pieces) {
                std::snprintf(line, sizeof line, "    piece from %+.6f s: offset %s, drift %+.3Lf ppm, bounds [%s, %s]\n",
                              static_cast<double>(p.from_ns - base.origin_ns) * 1e-9, offset_text(p.offset_ns).c_str(), p.drift_ppm,
                              p.bounds.lo ? signed_duration(*p.bounds.lo - p.offset_ns).c_str() : "unbounded",
                              p.bounds.hi ? signed_duration(*p.bounds.hi - p.offset_ns).c_str() : "unbounded");
                out += line;
            }
    }
    if (base.relinked_edges)
        out += "re-linked per piece with the bounds' tolerance: " + std::to_string(*base.relinked_edges) + " message edges changed (" +
               std::to_string(base.relink_rounds) + (base.relink_rounds == 1 ? " linking)\n" : " linkings)\n");
    for (const auto& w : base.warnings) out += "warning: " + w + "\n";
    return out;
}

namespace {

json piece_json(const ClockPiece& piece) {
    return json{{"from_ns", piece.from_ns}, {"offset_ns", json_ns(piece.offset_ns)}, {"drift_ppm", json_ppm(piece.drift_ppm)},
                {"offset_lo_ns", json_lo(piece.bounds.lo)}, {"offset_hi_ns", json_hi(piece.bounds.hi)}};
}

json estimate_json(const TimeBase& base, const graph::SampleSet& samples) {
    const std::string reference = instance_name(samples, base.reference);
    json j{{"reference", reference}, {"origin_ns", base.origin_ns}, {"clock_estimates", json::array()}};
    for (const InstanceClock& c : base.clocks) {
        const auto& inst = samples.instances[c.instance];
        json clock{{"node", inst.node_name}, {"instance", inst.instance}, {"reference", reference}, {"offset_ns", json_ns(c.offset_ns)},
                   {"drift_ppm", json_ppm(c.drift_ppm)}, {"offset_lo_ns", json_lo(c.bounds.lo)}, {"offset_hi_ns", json_hi(c.bounds.hi)},
                   {"messages_used", c.messages_used}, {"pieces", json::array()}};
        for (const ClockPiece& piece : c.pieces) clock["pieces"].push_back(piece_json(piece));
        if (!c.placed) clock["note"] = c.note;
        j["clock_estimates"].push_back(std::move(clock));
    }
    j["warnings"] = base.warnings;
    if (base.relinked_edges) j["relinked_edges"] = *base.relinked_edges;  // only where re-linking ran
    return j;
}

}  // namespace

std::string render_estimate_json(const TimeBase& base, const graph::SampleSet& samples) { return detail::dump(estimate_json(base, samples)); }

graph::TimeCorrection edge_time_correction(const TimeBase& base, const graph::SampleSet& samples, std::vector<std::string>& warnings) {
    const auto of = instance_of_files(samples);
    for (std::size_t f = 0; f < of.size(); ++f) {
        if (!of[f]) warnings.push_back("--clock-correct edges: " + samples.files[f].path + " holds several instances; its times are not corrected");
        else if (!base.clocks[*of[f]].placed)
            warnings.push_back("--clock-correct edges: " + samples.files[f].path + " (" + instance_name(samples, *of[f]) +
                               ") is not placed on the reference's clock; its times are not corrected");
    }
    return [&base, of](std::size_t file, std::int64_t t) {
        const auto& instance = of[file];
        if (!instance) return t;
        return base.to_reference(*instance, t).value_or(t);
    };
}

std::int64_t corrected_link_tolerance_ns(const TimeBase& base, std::int64_t first_ns, std::int64_t last_ns) {
    long double largest = -1, second = -1;
    for (std::uint32_t i = 0; i < base.clocks.size(); ++i) {
        auto bound = base.error_bound(i, first_ns, last_ns);
        if (!bound) continue;
        // A later piece's start: a sample stamped near a step may be taken
        // by the wrong side of it, off by the step's size besides the bounds.
        const auto& pieces = base.clocks[i].pieces;
        for (std::size_t k = 1; k < pieces.size(); ++k) {
            const ClockPiece &p = pieces[k], &before = pieces[k - 1];
            const long double jump = std::fabs(p.offset_ns - (before.offset_ns + before.drift_ppm * 1e-6L * static_cast<long double>(p.from_ns - before.from_ns)));
            if (const auto b = base.error_bound(i, p.from_ns, p.from_ns)) bound = std::max(*bound, *b + jump);
        }
        if (*bound > largest) second = largest, largest = *bound;
        else if (*bound > second) second = *bound;
    }
    return second < 0 ? 0 : static_cast<std::int64_t>(std::ceil(largest + second));
}

CorrectedLinks count_corrected_links(const graph::SampleSet& samples, const graph::Graph& graph, std::int64_t tolerance_ns) {
    CorrectedLinks links;
    links.tolerance_ns = tolerance_ns;
    for (const graph::Edge& e : graph.edges) {
        const std::int64_t gap = samples.time_ns[e.to] - samples.time_ns[e.from];
        if (gap >= 0) continue;
        ++links.admitted;
        links.most_negative_ns = std::min(links.most_negative_ns, gap);
    }
    return links;
}

std::vector<ClockFault> check_recorded_clocks(const TimeBase& base, const graph::SampleSet& samples, const clock_analysis::ClockAnalysis& records,
                                              std::int64_t first_ns, std::int64_t last_ns, std::int64_t step_ns) {
    const auto of = instance_of_files(samples);
    // The recorded correction of each instance: its files' track (one track for all of them, else none).
    std::vector<std::optional<std::size_t>> track(samples.instances.size());
    std::vector<bool> known(samples.instances.size(), true);
    for (std::size_t f = 0; f < of.size(); ++f) {
        if (!of[f]) continue;
        const auto& r = records.clocks.report_of_log.at(f);
        if (!r || (track[*of[f]] && *track[*of[f]] != *r)) known[*of[f]] = false;
        else track[*of[f]] = r;
    }
    const auto recorded = [&](std::uint32_t i, std::int64_t t) -> std::optional<double> {
        if (!known[i] || !track[i]) return std::nullopt;
        const auto& report = records.clocks.reports[*track[i]];
        if (report.is_reference) return 0.0;
        if (!report.correction) return std::nullopt;
        return report.correction->offset_at(t);
    };
    std::vector<ClockFault> faults;
    for (std::uint32_t i = 0; i < base.clocks.size(); ++i) {
        if (i == base.reference || !base.clocks[i].placed) continue;
        std::optional<ClockFault> open;
        for (std::int64_t t = first_ns; t <= last_ns; t += step_ns) {
            const auto mine = recorded(i, t), theirs = recorded(base.reference, t);
            const ClockAt at = base.at(i, t);
            long double outside = 0;
            if (mine && theirs && at.bounds.lo && at.bounds.hi) {
                const long double d = *mine - *theirs;
                outside = std::max(*at.bounds.lo - d, d - *at.bounds.hi);
            }
            if (outside > 0) {
                if (!open) open = ClockFault{i, t, t, 0};
                open->last_ns = t;
                open->worst_outside_ns = std::max(open->worst_outside_ns, outside);
            } else if (open) {
                faults.push_back(*open);
                open.reset();
            }
            if (last_ns - t < step_ns && t != last_ns) t = last_ns - step_ns;  // always check the end
        }
        if (open) faults.push_back(*open);
    }
    return faults;
}

void add_edge_clock_report(const TimeBase& base, const graph::SampleSet& samples, const std::vector<ClockFault>& faults,
                           const CorrectedLinks& links, metrics::AnalysisResult& result) {
    metrics::ExtraSection section;
    section.key = "clock_edges";
    section.title = "Clocks estimated from the messages (times corrected onto " + instance_name(samples, base.reference) + "'s clock)";
    const std::string estimate = render_estimate_text(base, samples);
    for (const std::string_view line : text::lines(estimate)) section.text_lines.emplace_back(line);
    json j = estimate_json(base, samples);
    // A node's clock error over the run: its worst instance.
    std::map<std::string, std::optional<long double>> node_bound;
    for (std::uint32_t i = 0; i < base.clocks.size(); ++i) {
        const std::string& node = samples.instances[i].node_name;
        const auto bound = base.error_bound(i, result.first_time_ns, result.last_time_ns);
        auto [it, fresh] = node_bound.emplace(node, bound);
        if (!fresh) it->second = it->second && bound ? std::optional<long double>(std::max(*it->second, *bound)) : std::nullopt;
    }
    section.text_lines.push_back("linked with receives admitted up to " + duration(links.tolerance_ns) +
                                 " before their sends (the clocks' bounds): " + std::to_string(links.admitted) +
                                 " links so admitted" + (links.admitted ? ", the largest gap " + signed_duration(links.most_negative_ns) : ""));
    j["link_tolerance_ns"] = links.tolerance_ns;
    j["links_admitted_within_bounds"] = links.admitted;
    j["most_negative_gap_ns"] = links.most_negative_ns;
    j["latencies"] = json::array();
    section.text_lines.push_back("cross-node latencies (node latency matrix) with their clock error bound:");
    for (const auto& l : result.node_latency) {
        const auto a = node_bound[l.from], b = node_bound[l.to];
        const bool known = a && b;
        const long double sum = known ? *a + *b : 0;
        char line[256];
        std::snprintf(line, sizeof line, "  %s -> %s: mean %.3f ms +- %s", l.from.c_str(), l.to.c_str(), l.mean_ms,
                      known ? duration(sum).c_str() : "unknown (an instance is not placed)");
        section.text_lines.push_back(line);
        j["latencies"].push_back(json{{"from", l.from}, {"to", l.to}, {"mean_ms", detail::decimal(l.mean_ms, 6)},
                                      {"clock_error_bound_ns", known ? json_hi(sum) : json(nullptr)}});
        if (known && l.mean_ms * 1e6 <= static_cast<double>(sum))
            result.warnings.push_back("cross-node latency " + l.from + " -> " + l.to + " (mean " + duration(l.mean_ms * 1e6L) +
                                      ") is not larger than its clock error bound from the messages (" + duration(sum) + ")");
    }
    j["faults"] = json::array();
    for (const ClockFault& fault : faults) {
        const std::string name = instance_name(samples, fault.instance);
        const std::string text = "clock fault: the recorded (PTP/PPS) correction of " + name + " lies up to " +
                                 duration(fault.worst_outside_ns) + " outside the bounds its messages allow (it would put receives before sends) from " +
                                 seconds(fault.first_ns) + " to " + seconds(fault.last_ns);
        result.warnings.push_back(text);
        section.text_lines.push_back(text);
        j["faults"].push_back(json{{"node", samples.instances[fault.instance].node_name},
                                   {"instance", samples.instances[fault.instance].instance}, {"from_ns", fault.first_ns},
                                   {"to_ns", fault.last_ns}, {"worst_outside_ns", json_hi(fault.worst_outside_ns)}});
    }
    section.json = detail::dump(j);
    for (const auto& w : base.warnings) result.warnings.push_back("clock estimate: " + w);
    result.extra.push_back(std::move(section));
}

}  // namespace hashtrace::clock_analysis
