// walk.hpp - the walk of an interval's instances over the dependence
// model, shared by the whole-run tables (critical_path.cpp) and the time
// shards' summaries (path_summary.cpp).
#pragma once

#include "hashtrace/critical_path/critical_path.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hashtrace::critical_path {

// One segment class's figures over a share of the instances.
struct Accumulator {
    std::int64_t sum_ns = 0;
    std::uint64_t on_path = 0;
    std::vector<float> slack_ms;
};

// Per class of the model, and the instances not followed.
struct Accumulators {
    std::vector<Accumulator> of_class;
    std::uint64_t not_followed = 0;
};

// Walks a range of an interval's instances into `acc`: per class, its
// contribution to each path it is on, and its least slack in each instance.
void walk_instances(const DependenceModel& model, std::span<const IntervalInstance> instances, PathFinder& finder, Accumulators& acc);

// A table's segments in the order the tables show them: by mean contribution, then least slack, then name.
void sort_segments(std::vector<SegmentSummary>& segments);

}  // namespace hashtrace::critical_path
