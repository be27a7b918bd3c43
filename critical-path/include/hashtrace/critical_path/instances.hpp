// hashtrace/critical_path/instances.hpp - the instances of an interval, as
// `analyze` counts them (docs/spec.md section 5, docs/analysis.md "Intervals"): for each
// sample matching `from`, and each node instance holding a `to` sample
// reachable from it, the earliest such sample. Answered as analyze answers
// them (the metrics library's forward searches, or its EarliestReach passes
// where an edge runs back in time or the searches wander too far), so the
// instances are analyze's exactly.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/metrics/reach.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace hashtrace::critical_path {

struct IntervalInstance {
    graph::SampleIndex from, to;
};

struct IntervalInstances {
    std::vector<IntervalInstance> list;   // by `from` sample, then node instance
    std::uint64_t unreached_starts = 0;   // `from` samples that reach no `to` sample at all
};

// Answers for several intervals of one run: the tracepoint graph and the
// passes' buffers (the size of the run) are made once.
class InstanceFinder {
public:
    InstanceFinder(const graph::SampleSet& samples, const graph::Graph& graph, unsigned threads = 0);  // 0: one per core
    ~InstanceFinder();
    IntervalInstances find(const graph::IntervalSpec& interval);
    // Several at once, in their order: those with the same `from`
    // tracepoints share one search per start.
    std::vector<IntervalInstances> find(const std::vector<const graph::IntervalSpec*>& intervals);
    // Only the instances whose `from` sample is in [begin, end): those of a
    // stretch of the run (a writer that holds only what it is drawing), the
    // same as the run's.
    std::vector<IntervalInstances> find(const std::vector<const graph::IntervalSpec*>& intervals, graph::SampleIndex begin,
                                        graph::SampleIndex end);

private:
    void find_group(const std::vector<bool>& from, const std::vector<std::size_t>& group, const std::vector<std::vector<bool>>& to,
                    graph::SampleIndex begin, graph::SampleIndex end, std::vector<IntervalInstances>& out);
    bool search_forward(const std::vector<graph::SampleIndex>& starts, const metrics::TargetClasses& classes,
                        std::vector<std::vector<metrics::Reached>>& parts);
    std::vector<metrics::Reached> search_by_passes(const std::vector<bool>& from, const std::vector<std::size_t>& group,
                                                   const std::vector<std::vector<bool>>& to,
                                                   const std::vector<std::vector<std::uint32_t>>& class_of_instance,
                                                   const std::vector<graph::SampleIndex>& starts);

    struct Passes;  // the searches' scratch and the fallback passes
    const graph::SampleSet& samples_;
    const graph::Graph& graph_;
    unsigned threads_;
    bool runs_backward_in_time_ = false;
    std::unique_ptr<Passes> passes_;
};

}  // namespace hashtrace::critical_path
