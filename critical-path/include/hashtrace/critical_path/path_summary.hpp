// hashtrace/critical_path/path_summary.hpp - the critical paths of a run
// too long to hold, in time shards (docs/sharding.md): each shard walks the
// interval instances it owns (by their `from` sample) and keeps per segment
// what the tables need, as integers and histograms that merge by addition.
//
//   auto part = summarize_paths(model, instances, intervals, begin, end);  // per shard
//   for (i...) merged[i].append(part[i]);                                  // in time order
//   auto tables = path_tables(merged);                                     // -> render.hpp
#pragma once

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/shard/summary.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::critical_path {

struct SegmentKey {  // "node/tracepoint" -> "node/tracepoint", of a kind: as the tables name a segment
    std::string from, to;
    SegmentKind kind = SegmentKind::local;
    auto operator<=>(const SegmentKey&) const = default;
};

struct SegmentSums {
    __int128 sum_ns = 0;          // its contributions to the paths it is on
    std::uint64_t on_path = 0;    // instances whose path holds it
    shard::LogHistogram slack;    // per instance with a constraint of it: the least slack there (ns)
};

// The contributions on one instance's path. One is kept per bucket of the
// interval's latency histogram, the earliest instance's: after merging, the
// instance at a percentile's rank is represented by the earliest of its
// bucket, whose latency is within the histogram's error of its own.
struct RepresentativePath {
    std::int64_t from_ns = 0;
    std::vector<std::pair<SegmentKey, std::int64_t>> contributions;
};

struct IntervalPathSummary {
    std::string name;
    std::uint64_t unreached_starts = 0, not_followed = 0;
    shard::Distribution latency;  // of the instances owned
    std::map<SegmentKey, SegmentSums> segments;
    std::map<std::int64_t, RepresentativePath> by_latency_bucket;  // bucket key (shard::LogHistogram::bucket_of) -> path
    // Adds a shard's summary of the same interval (std::invalid_argument otherwise).
    void append(const IntervalPathSummary& later);
};

// The instances whose `from` sample lies in [begin, end) (the shard's own;
// instances found over its whole window, margins included), in the order
// of `intervals`. The intervals' `from` samples in the range that reach no
// `to` are counted as unreached.
std::vector<IntervalPathSummary> summarize_paths(const DependenceModel& model, const std::vector<IntervalInstances>& instances,
                                                 const std::vector<const graph::IntervalSpec*>& intervals, graph::SampleIndex begin,
                                                 graph::SampleIndex end, const CriticalPathOptions& options = {});

// summarize_paths over the samples loaded for a time window (its margins
// included): their model and instances, the instances owned being those whose
// `from` sample lies in [own_from_ns, own_to_ns). The sharded critical-path
// and the live view call it per window.
std::vector<IntervalPathSummary> summarize_window_paths(const graph::SampleSet& samples, const graph::Graph& graph,
                                                        const std::vector<const graph::IntervalSpec*>& intervals, std::int64_t own_from_ns,
                                                        std::int64_t own_to_ns, unsigned threads);

// Appends the next window's summaries to `merged`, interval by interval (both
// in the order of the intervals summarised).
void append_paths(std::vector<IntervalPathSummary>& merged, const std::vector<IntervalPathSummary>& later);

// The tables of critical_paths(), from merged summaries: counts, means,
// on-path fractions and shares exact; the interval's percentiles and the
// slack medians within the histograms' error; a segment's contribution in
// the p50/p95/p99 instance that of the representative of that rank's bucket.
std::vector<IntervalCriticalPath> path_tables(const std::vector<IntervalPathSummary>& merged);

}  // namespace hashtrace::critical_path
