// Interval observations with the samples at both ends, which the report needs
// (latency over time, slowest messages with routes) and AnalysisResult does
// not keep. The reachability pass is metrics' own (EarliestReach), so both
// agree by construction; report_build_test checks it against analyze().
#include "hashtrace/report/build.hpp"

#include "hashtrace/metrics/reach.hpp"

#include <algorithm>
#include <map>

namespace hashtrace::report {

std::vector<IntervalObservation> interval_observations(const graph::SampleSet& s, const graph::Graph& g,
                                                       const graph::IntervalSpec& interval) {
    std::vector<graph::SampleIndex> from;
    std::vector<bool> from_tracepoint(s.tracepoints.size());
    // docs/spec.md section 5: the earliest `to` per node instance reached, so one target set per instance.
    std::map<std::uint32_t, metrics::TracepointSet> to_by_instance;
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) {
        const auto& tp = s.tracepoints[t];
        from_tracepoint[t] = interval.from.matches(tp.node_name, tp.tracepoint_name);
        if (interval.to.matches(tp.node_name, tp.tracepoint_name))
            to_by_instance.try_emplace(tp.instance_id, s.tracepoints.size()).first->second[t] = true;
    }
    for (graph::SampleIndex v = 0; v < s.size(); ++v)
        if (from_tracepoint[s.tracepoint[v]]) from.push_back(v);

    std::vector<IntervalObservation> out;
    const metrics::TracepointGraph tracepoints(s, g);
    metrics::EarliestReach reach(s, g, tracepoints);
    for (const auto& [instance, set] : to_by_instance) {
        reach.run(from_tracepoint, set);
        for (auto v : from)
            if (const auto to = reach.earliest(v); to != metrics::kUnreached)
                out.push_back({v, to, double(s.time_ns[to] - s.time_ns[v]) / 1e6});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
    return out;
}

}  // namespace hashtrace::report
