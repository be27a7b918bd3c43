// edge_metrics.hpp - the metrics that only need the edges: M3, M8, M11, M12.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "reach.hpp"

#include <vector>

namespace hashtrace::metrics::detail {

// Fills edges, message_edges, local_edges, m3, m8, m12 of `out` and returns
// M11's observations (message edge durations in ms, in edge order) for the
// caller to summarize; needs out.window_s and out.first/last_time_ns set.
// Along the way, gives every edge to `tracepoint_pairs`.
std::vector<double> measure_edges(const graph::SampleSet& samples, const graph::Graph& graph, const MetricOptions& options, AnalysisResult& out,
                                  TracepointGraph::Collector& tracepoint_pairs);

}  // namespace hashtrace::metrics::detail
