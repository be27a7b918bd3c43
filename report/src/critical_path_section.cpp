// The report's critical-path section: the critical-path library's figures
// per interval, as the page draws them.
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/report/build.hpp"

namespace hashtrace::report {

std::vector<CriticalPathChart> critical_path_section(const graph::SampleSet& samples, const graph::Graph& graph,
                                                     const graph::AnalysisSpec& spec, unsigned threads) {
    std::vector<CriticalPathChart> out;
    if (spec.intervals.empty()) return out;
    const critical_path::DependenceModel model(samples, graph);
    for (const auto& p : critical_path::critical_paths(model, critical_path::select_intervals(spec, {}), {threads})) {
        CriticalPathChart& chart = out.emplace_back();
        chart.interval = p.name;
        chart.count = p.count;
        chart.unreached_starts = p.unreached_starts;
        chart.not_followed = p.not_followed;
        chart.mean_ms = p.mean_ms;
        chart.p50_ms = p.p50_ms;
        chart.p95_ms = p.p95_ms;
        chart.p99_ms = p.p99_ms;
        for (const auto& s : p.segments)
            chart.segments.push_back({s.from, s.to, std::string(critical_path::to_string(s.kind)), s.on_path_fraction, s.mean_ms, s.share,
                                      s.p50_ms, s.p95_ms, s.p99_ms, s.slack_ms});
    }
    return out;
}

}  // namespace hashtrace::report
