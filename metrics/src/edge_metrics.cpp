// One pass over the edges gives M8, M11, M12, the tracepoint graph's pairs
// (reach.hpp; the same columns are read) and, per sample, by how much the
// number of message edges in flight (M3) changes there; M3 is then one
// sweep over the samples in time order. Both loops are free of
// data-dependent branches but the pair filter's (consecutive edges mostly
// repeat a pair): whether an edge is local, or a sample starts or ends
// edges, is as good as random, and mispredicted branches cost more than
// everything else these loops do.
#include "edge_metrics.hpp"

#include "hashtrace/graph/detail/huge_pages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hashtrace::metrics::detail {
namespace {

// In flight at time t means start <= t < end (SPEC 5, M3). `change[v]` is
// the number of edges starting at sample v minus those ending there;
// samples are in time order. The integrals of the count and its square are
// summed exactly in integers (the count only changes at samples, and spans
// are whole nanoseconds), so samples without a change cost no rounding.
ParallelismResult sweep_in_flight(const std::vector<std::int64_t>& time, const std::vector<std::int32_t>& change, const MetricOptions& options) {
    ParallelismResult r;
    if (time.empty()) return r;
    const std::int64_t first = time.front(), last = time.back();
    const double window = double(graph::elapsed_ns(first, last));
    // At most kMaxGridSamples observations: a run spanning days (or a damaged
    // timestamp) must not allocate one per millisecond.
    constexpr double kMaxGridSamples = 1e6;
    const auto period = static_cast<std::int64_t>(std::max(options.m3_sample_period_s * 1e9, window / kMaxGridSamples));
    // The grid observes the count just before the changes at a sample's time.
    std::int64_t next_grid = options.keep_values && period > 0 ? first : std::numeric_limits<std::int64_t>::max();
    unsigned __int128 integral = 0, integral_sq = 0;
    std::int64_t count = 0, max = 0;
    for (std::size_t v = 0; v < time.size(); ++v) {
        for (; next_grid < time[v] && next_grid < last; next_grid = graph::elapsed_ns(next_grid, last) <= period ? last : next_grid + period)
            r.samples.push_back(double(count));
        count += change[v];
        const std::int64_t span = v + 1 < time.size() ? graph::elapsed_ns(time[v], time[v + 1]) : 0;
        integral += static_cast<unsigned __int128>(count) * static_cast<std::uint64_t>(span);
        integral_sq += static_cast<unsigned __int128>(count * count) * static_cast<std::uint64_t>(span);
        // The maximum counts all changes at one time: ends before starts.
        max = span != 0 && count > max ? count : max;
    }
    max = std::max(max, count);
    if (window > 0) {
        r.mean = double(integral) / window;
        r.sd = std::sqrt(std::max(0.0, double(integral_sq) / window - r.mean * r.mean));
    }
    r.max = double(max);
    return r;
}

}  // namespace

std::vector<double> measure_edges(const graph::SampleSet& s, const graph::Graph& g, const MetricOptions& options, AnalysisResult& out,
                                  TracepointGraph::Collector& tracepoint_pairs) {
    // graph::is_local with the instance of each tracepoint in one flat array.
    std::vector<std::uint32_t> instance_of(s.tracepoints.size());
    for (std::size_t t = 0; t < instance_of.size(); ++t) instance_of[t] = s.tracepoints[t].instance_id;
    // Fresh blocks of 4M+ values: on 2 MiB pages, a page fault per 2 MiB instead of per 4 KiB.
    std::vector<double> waits_ms = graph::detail::vector_on_huge_pages<double>(g.edges.size());
    std::vector<std::int32_t> change = graph::detail::vector_on_huge_pages<std::int32_t>(s.size(), 0);
    std::size_t messages = 0;
    // The durations are whole nanoseconds: summed exactly in integers (each
    // edge adds to both sums; the non-matching one gets 0), not in a chain of
    // floating-point additions that waits ~4 cycles per edge. Equal to the
    // floating-point sum whenever that was exact (partial sums below 2^53 ns,
    // 104 days), and more accurate beyond.
    __int128 local_sum = 0, message_sum = 0;
    for (const graph::Edge& e : g.edges) {
        const std::int64_t from_time = s.time_ns[e.from], to_time = s.time_ns[e.to];
        const graph::TracepointId from_tracepoint = s.tracepoint[e.from], to_tracepoint = s.tracepoint[e.to];
        tracepoint_pairs.add(e.from, e.to, from_tracepoint, to_tracepoint, from_time, to_time);
        const std::int64_t dt = graph::elapsed_ns(from_time, to_time);
        // Differences or'ed as integers, not `||`: a short circuit is a branch on whether the edge is local.
        const bool message = ((instance_of[from_tracepoint] ^ instance_of[to_tracepoint]) | (s.thread[e.from] ^ s.thread[e.to])) != 0;
        local_sum += message ? 0 : dt;
        message_sum += message ? dt : 0;
        waits_ms[messages] = double(dt) / 1e6;
        messages += message;
        // A zero or (clock-error) negative wait is never in flight.
        const std::int32_t in_flight = message & (dt > 0);
        change[e.from] += in_flight;
        change[e.to] -= in_flight;
    }
    waits_ms.resize(messages);
    out.edges = g.edges.size();
    out.message_edges = messages;
    out.local_edges = g.edges.size() - messages;
    out.m3 = sweep_in_flight(s.time_ns, change, options);
    out.m8 = out.window_s > 0 ? double(out.message_edges) / out.window_s : 0;
    out.m12 = message_sum != 0 ? double(local_sum) / double(message_sum) : 0;
    return waits_ms;
}

}  // namespace hashtrace::metrics::detail
