#include "hashtrace/critical_path/instances.hpp"

#include "hashtrace/metrics/reach.hpp"

#include <algorithm>

namespace hashtrace::critpath {

struct InstanceFinder::Passes {
    metrics::detail::TracepointGraph tracepoints;
    metrics::detail::EarliestReach reach;
    Passes(const graph::SampleSet& s, const graph::Graph& g) : tracepoints(s, g), reach(s, g, tracepoints) {}
};

InstanceFinder::InstanceFinder(const graph::SampleSet& samples, const graph::Graph& graph)
    : samples_(samples), passes_(std::make_unique<Passes>(samples, graph)) {}
InstanceFinder::~InstanceFinder() = default;

IntervalInstances InstanceFinder::find(const graph::IntervalSpec& interval) {
    const graph::SampleSet& s = samples_;
    using metrics::detail::TracepointSet;
    TracepointSet from(s.tracepoints.size()), to(s.tracepoints.size());
    std::vector<bool> target_instance(s.instances.size(), false);
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) {
        const auto& tp = s.tracepoints[t];
        from[t] = interval.from.matches(tp.node_name, tp.tracepoint_name);
        to[t] = interval.to.matches(tp.node_name, tp.tracepoint_name);
        if (to[t]) target_instance[tp.instance_id] = true;
    }
    std::vector<graph::SampleIndex> starts;
    for (graph::SampleIndex v = 0; v < s.size(); ++v)
        if (from[s.tracepoint[v]]) starts.push_back(v);

    IntervalInstances out;
    std::vector<std::uint8_t> reached_any(starts.size(), 0);
    metrics::detail::EarliestReach& reach = passes_->reach;
    // One class per node instance of the `to` tracepoints, in instance order (as analyze).
    for (std::uint32_t instance = 0; instance < s.instances.size(); ++instance) {
        if (!target_instance[instance]) continue;
        TracepointSet to_here(s.tracepoints.size());
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t) to_here[t] = to[t] && s.tracepoints[t].instance_id == instance;
        reach.run(from, to_here);
        for (std::size_t k = 0; k < starts.size(); ++k)
            if (const graph::SampleIndex target = reach.earliest(starts[k]); target != metrics::detail::kUnreached) {
                out.list.push_back({starts[k], target});
                reached_any[k] = 1;
            }
    }
    std::stable_sort(out.list.begin(), out.list.end(), [](const IntervalInstance& a, const IntervalInstance& b) { return a.from < b.from; });
    out.unreached_starts = static_cast<std::uint64_t>(std::count(reached_any.begin(), reached_any.end(), 0));
    return out;
}

}  // namespace hashtrace::critpath
