// reach.hpp - earliest reachable target samples, for every sample at once.
//
// Intervals (M4/M5) and the node latency matrix both ask "from sample v,
// following edges downstream, what is the earliest sample of target set k?".
// Walking from each start sample is quadratic when loop-counter chains make
// the rest of the run reachable; instead one backward pass over the samples
// computes the answer for all of them (dynamic programming over the DAG):
//   best[v][k] = min over edges v->c of min(c if c is in set k, best[c][k]).
// Samples are in time order, so "earliest" is the smallest index, and edges
// almost always go to larger indices; the few that do not (equal times,
// tolerated clock error) are handled by repeating the pass until nothing changes.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hashtrace::metrics::detail {

inline constexpr graph::SampleIndex kUnreached = 0xFFFFFFFFu;

// One target set: the tracepoints whose samples are targets.
using TargetSet = std::vector<bool>;  // indexed by TracepointId

class EarliestReach {
public:
    static constexpr std::size_t kWidth = 4;  // target sets per pass: 4 bytes per sample each

    EarliestReach(const graph::SampleSet& samples, const graph::Graph& graph);

    // Computes best[v][k] for up to kWidth target sets; read with earliest().
    void run(std::span<const TargetSet* const> targets);
    graph::SampleIndex earliest(graph::SampleIndex v, std::size_t k) const { return best_[std::size_t{v} * width_ + k]; }

private:
    const graph::SampleSet& samples_;
    const graph::Graph& graph_;
    bool backward_edges_ = false;
    std::size_t width_ = 0;
    std::vector<graph::SampleIndex> best_;
};

}  // namespace hashtrace::metrics::detail
