// hashtrace/critical_path/instances.hpp - the instances of an interval, as
// `analyze` counts them (docs/spec.md section 5, docs/analysis.md "Intervals"): for each
// sample matching `from`, and each node instance holding a `to` sample
// reachable from it, the earliest such sample. Answered by the metrics
// library's EarliestReach passes, so the instances are analyze's exactly.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace hashtrace::critpath {

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
    InstanceFinder(const graph::SampleSet& samples, const graph::Graph& graph);
    ~InstanceFinder();
    IntervalInstances find(const graph::IntervalSpec& interval);

private:
    struct Passes;
    const graph::SampleSet& samples_;
    std::unique_ptr<Passes> passes_;
};

}  // namespace hashtrace::critpath
