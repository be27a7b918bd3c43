// edge_metrics.hpp - the metrics that only need the edges: M3, M8, M11, M12.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "zeroed_buffer.hpp"

#include <span>

namespace hashtrace::metrics::detail {

// M11's observations: message edge durations in ms, in edge order.
struct MessageWaits {
    ZeroedBuffer<double> ms;  // room for one per edge
    std::size_t count = 0;
    std::span<const double> values() const { return ms.span().first(count); }
};

// Fills edges, message_edges, local_edges, m3, m8, m12 of `out` and returns
// M11's observations for the caller to summarize; needs out.window_s and
// out.first/last_time_ns set. Sets `backward_in_time` where some edge goes
// to an earlier time (a tolerated clock error: the forward searches are then
// not exact).
MessageWaits measure_edges(const graph::SampleSet& samples, const graph::Graph& graph, const MetricOptions& options, AnalysisResult& out,
                           bool& backward_in_time);

}  // namespace hashtrace::metrics::detail
