// Each interval instance's critical path into the trace model, so the
// viewers show which steps decided its latency.
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/report/build.hpp"

#include <stdexcept>
#include <unordered_map>

namespace hashtrace::report {

MarkedCriticalPaths find_trace_critical_paths(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                                              TraceCriticalPaths& out) {
    MarkedCriticalPaths marked;
    if (spec.intervals.empty()) return marked;
    const critical_path::DependenceModel dependence(samples, graph);
    critical_path::InstanceFinder instances(samples, graph);
    critical_path::PathFinder finder(dependence);
    std::unordered_map<std::uint64_t, std::uint32_t> name_of_segment;  // SegmentClass::key() -> index into segment_names
    const auto& labels = dependence.labels();
    std::vector<critical_path::PathStep> path;
    for (const auto& interval : spec.intervals) {
        const auto k = std::uint32_t(out.intervals.size());
        out.intervals.push_back(interval.name);
        ++marked.intervals;
        for (const auto& instance : instances.find(interval).list) {
            if (!finder.critical_path(instance, path)) {
                ++marked.not_followed;
                continue;
            }
            if (path.empty()) continue;  // `from` is `to`: nothing to mark
            out.paths.push_back({k, std::uint32_t(out.segments.size()), std::uint32_t(path.size())});
            for (const auto& step : path) {
                const critical_path::SegmentClass segment{dependence.label_of(step.from), dependence.label_of(step.to), step.kind};
                const auto [it, added] = name_of_segment.try_emplace(segment.key(), std::uint32_t(out.segment_names.size()));
                if (added)
                    out.segment_names.push_back(labels[segment.from_label] + " -> " + labels[segment.to_label] + " (" +
                                                std::string(critical_path::to_string(step.kind)) + ")");
                out.segments.push_back({step.from, step.to, it->second});
            }
            ++marked.instances;
            marked.segments += path.size();
        }
    }
    return marked;
}

MarkedCriticalPaths add_critical_paths(TraceModel& model, const graph::SampleSet& samples, const graph::Graph& graph,
                                       const graph::AnalysisSpec& spec) {
    if (model.events.size() != samples.size())
        throw std::invalid_argument("add_critical_paths: the trace model holds " + std::to_string(model.events.size()) + " events, the run " +
                                    std::to_string(samples.size()) + " samples");
    TraceCriticalPaths found;
    const auto marked = find_trace_critical_paths(samples, graph, spec, found);
    model.critical_path_intervals = std::move(found.intervals);
    model.segment_names = std::move(found.segment_names);
    model.critical_paths = std::move(found.paths);
    model.critical_segments = std::move(found.segments);
    return marked;
}

}  // namespace hashtrace::report
