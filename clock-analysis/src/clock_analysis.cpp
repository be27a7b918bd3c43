#include "hashtrace/clock_analysis/clock_analysis.hpp"

#include "json_values.hpp"

#include <algorithm>
#include <cstdio>

namespace hashtrace::clock_analysis {

using namespace clocksync;  // the records this reads: RunClocks, SyncErrorReport, ...
namespace {

using detail::json;

template <typename T>
json json_optional(const std::optional<T>& v) {
    if (!v) return nullptr;
    if constexpr (std::is_floating_point_v<T>) return detail::decimal(*v, 3);  // ns to the picosecond, as before
    else return *v;
}

json report_json(const SyncErrorReport& r) {
    json j;
    j["host"] = r.host;
    j["file"] = r.file.string();
    j["source"] = std::string(to_string(r.source));
    j["records"] = r.records;
    j["reference"] = r.is_reference;
    j["locked"] = r.locked;
    j["measuring"] = r.measuring;
    j["unknown"] = r.unknown;
    j["offset_rms_ns"] = json_optional(r.rms_offset_ns);
    j["offset_max_abs_ns"] = json_optional(r.max_abs_offset_ns);
    j["error_bound_ns"] = json_optional(r.error_bound_ns);
    j["corrected_error_bound_ns"] = json_optional(r.corrected_error_bound_ns);
    if (r.correction)
        j["correction"] = json{{"t0_ns", r.correction->t0_ns},
                               {"offset_ns", json_optional(std::optional<double>(r.correction->offset_ns))},
                               {"drift_ppb", json_optional(std::optional<double>(r.correction->drift_ppb))}};
    j["unsynchronised"] = json::array();
    for (const auto& [from, to] : r.unsynchronised) j["unsynchronised"].push_back(json::array({from, to}));
    return j;
}

}  // namespace

ClockAnalysis load_clock_analysis(const graph::SampleSet& samples) {
    std::vector<std::filesystem::path> files;
    for (const auto& f : samples.files) files.emplace_back(f.path);
    // A SampleSet is in time order: its span is its first and last time (a
    // search of 4M times here was a serial 4-5 ms between loading and linking).
    const std::int64_t first = samples.size() ? samples.time_ns.front() : 0, last = samples.size() ? samples.time_ns.back() : 0;
    return {load_run_clocks(files, first, last)};
}

graph::TimeCorrection time_correction(const ClockAnalysis& analysis) {
    return [&analysis](std::size_t file, std::int64_t t) {
        const auto& report = analysis.clocks.report_of_log.at(file);
        if (!report) return t;
        const auto& correction = analysis.clocks.reports[*report].correction;
        return correction ? correction->corrected(t) : t;
    };
}

std::map<std::string, NodeClock> node_clocks(const ClockAnalysis& analysis, const graph::SampleSet& samples, bool corrected) {
    std::map<std::string, std::vector<std::size_t>> files_of_node;
    for (const auto& tp : samples.tracepoints) {
        auto& files = files_of_node[tp.node_name];
        if (std::find(files.begin(), files.end(), tp.file) == files.end()) files.push_back(tp.file);
    }
    std::map<std::string, NodeClock> nodes;
    for (const auto& [node, files] : files_of_node) {
        NodeClock clock;
        std::int64_t bound = 0;
        bool known = true;
        for (const std::size_t file : files) {
            const auto& report = analysis.clocks.report_of_log.at(file);
            if (!report) {
                known = false;
                continue;
            }
            if (std::find(clock.reports.begin(), clock.reports.end(), *report) == clock.reports.end()) clock.reports.push_back(*report);
            const auto& r = analysis.clocks.reports[*report];
            const auto& b = corrected ? r.corrected_error_bound_ns : r.error_bound_ns;
            if (b) bound = std::max(bound, *b);
            else known = false;
        }
        if (known) clock.bound_ns = bound;
        nodes.emplace(node, std::move(clock));
    }
    return nodes;
}

std::vector<std::string> latency_warnings(const std::vector<metrics::NodeLatency>& latencies,
                                          const std::map<std::string, NodeClock>& nodes) {
    std::vector<std::string> warnings;
    for (const auto& l : latencies) {
        const auto from = nodes.find(l.from), to = nodes.find(l.to);
        if (from == nodes.end() || to == nodes.end()) continue;
        // Two nodes stamped by the one clock cannot disagree about time.
        const bool same_clock = from->second.reports.size() == 1 && from->second.reports == to->second.reports;
        if (same_clock) continue;
        if (!from->second.bound_ns || !to->second.bound_ns) continue;  // reported once per node, below
        const double combined_ns = static_cast<double>(*from->second.bound_ns + *to->second.bound_ns);
        if (l.mean_ms * 1e6 <= combined_ns)
            warnings.push_back("cross-node latency " + l.from + " -> " + l.to + " (mean " + format_duration_ns(l.mean_ms * 1e6) +
                               ") is not larger than the clocks' combined error bound (" + format_duration_ns(combined_ns) +
                               "): it cannot be trusted");
    }
    return warnings;
}

void add_clock_report(const ClockAnalysis& analysis, const graph::SampleSet& samples, bool corrected,
                      metrics::AnalysisResult& result) {
    const auto& clocks = analysis.clocks;
    for (const auto& p : clocks.problems) result.warnings.push_back("clock records: " + p);
    if (clocks.reports.empty()) {
        if (corrected) result.warnings.push_back("--clock-correct: no clock-quality records (clock-*.htclock) next to the logs; nothing corrected");
        return;
    }
    metrics::ExtraSection section;
    section.key = "clock_sync";
    section.title = corrected ? "Clock synchronisation (times corrected by each clock's offset and drift)"
                              : "Clock synchronisation (times as recorded; --clock-correct applies the fitted corrections)";
    json j{{"corrected", corrected}, {"clocks", json::array()}, {"nodes", json::array()}};
    for (const auto& report : clocks.reports) {
        section.text_lines.push_back(describe_report(report, corrected));
        j["clocks"].push_back(report_json(report));
    }
    const auto nodes = node_clocks(analysis, samples, corrected);
    for (const auto& [name, clock] : nodes) {
        j["nodes"].push_back(json{{"node", name}, {"error_bound_ns", json_optional(clock.bound_ns)}});
        if (!clock.bound_ns)
            result.warnings.push_back("node " + name + ": some of its logs have no measured clock (no clock-quality records "
                                      "in their directory, or none with an offset): its cross-node latencies have unknown clock error");
    }
    section.json = detail::dump(j);
    result.extra.push_back(std::move(section));
    for (auto& w : latency_warnings(result.node_latency, nodes)) result.warnings.push_back(std::move(w));
}

}  // namespace hashtrace::clock_analysis
