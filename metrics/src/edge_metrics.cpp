// One pass over the edges gives M8, M11, M12, whether some edge runs back in
// time (the forward searches' exactness, reach.hpp) and, per sample, by how
// much the number of message edges in flight (M3) changes there; M3 is then
// one sweep over the samples in time order. Both loops are free of
// data-dependent branches: whether an edge is local, or a sample starts or
// ends edges, is as good as random, and mispredicted branches cost more than
// everything else these loops do.
#include "edge_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace hashtrace::metrics::detail {
namespace {

// keep_values: the count of edges in flight on a grid of `period` from the
// first sample's time, each observed just before the changes at a sample's time.
std::vector<double> in_flight_on_grid(std::span<const std::int64_t> time, const std::int32_t* change, std::int64_t period) {
    std::vector<double> samples;
    const std::int64_t last = time.back();
    std::int64_t next_grid = time.front(), count = 0;
    for (std::size_t v = 0; v < time.size(); ++v) {
        for (; next_grid < time[v] && next_grid < last; next_grid = graph::elapsed_ns(next_grid, last) <= period ? last : next_grid + period)
            samples.push_back(double(count));
        count += change[v];
    }
    return samples;
}

// What M3 integrates over: the run's window, or a shard's part of it.
struct Clip {
    std::int64_t from, to;
    bool ends_run;
};

// In flight at time t means start <= t < end (docs/spec.md section 5, M3). `change[v]` is
// the number of edges starting at sample v minus those ending there;
// samples are in time order. The integrals of the count and its square are
// summed exactly in integers (the count only changes at samples, and spans
// are whole nanoseconds), so samples without a change cost no rounding.
// Each sample's span runs to the next sample's time (the last's to the
// clip's end), cut to the clip: the shards of a run cut it into parts that
// add up to the whole run's integrals.
// Fills `exact`'s integrals and maximum; with keep_values, returns the grid's observations.
std::vector<double> sweep_in_flight(std::span<const std::int64_t> time, const std::int32_t* change, const MetricOptions& options, Clip clip,
                                    AnalysisResult::ExactSums& exact) {
    std::vector<double> grid;
    if (time.empty()) return grid;
    const std::int64_t first = time.front(), last = time.back();
    const double window = double(graph::elapsed_ns(first, last));
    // At most kMaxGridSamples observations: a run spanning days (or a damaged
    // timestamp) must not allocate one per millisecond.
    constexpr double kMaxGridSamples = 1e6;
    const auto period = static_cast<std::int64_t>(std::max(options.m3_sample_period_s * 1e9, window / kMaxGridSamples));
    if (options.keep_values && options.m3_sample_period_s > 0 && period > 0) grid = in_flight_on_grid(time, change, period);
    unsigned __int128 integral = 0, integral_sq = 0;
    std::int64_t count = 0, max = 0;
    // Each sample but the last starts a span to the next one; the last adds only its changes.
    for (std::size_t v = 0; v < time.size(); ++v) {
        count += change[v];
        // A select, not a branch: spans outside the clip are few, but ties (spans of 0) are as good as random.
        const std::int64_t begin = std::max(time[v], clip.from), end = std::min(v + 1 < time.size() ? time[v + 1] : clip.to, clip.to);
        const auto span = end > begin ? static_cast<std::uint64_t>(graph::elapsed_ns(begin, end)) : 0;
        // Unsigned 64-bit factors, so that each product is one 64 x 64 ->
        // 128-bit multiply (a signed count took three, and sign extensions):
        // the count is never negative (an edge in flight ends at a later
        // sample than it starts at) and below 2^32 (the edges' indices are
        // 32-bit), so its square fits too.
        const auto in_flight = static_cast<std::uint64_t>(count);
        integral += static_cast<unsigned __int128>(in_flight) * span;
        integral_sq += static_cast<unsigned __int128>(in_flight * in_flight) * span;
        // The maximum counts all changes at one time: ends before starts.
        max = span != 0 && count > max ? count : max;
    }
    if (clip.ends_run) max = std::max(max, count);
    exact.in_flight_ns = integral;
    exact.in_flight_sq_ns = integral_sq;
    exact.in_flight_max = static_cast<std::uint64_t>(max);
    return grid;
}

// The edges a shard links but does not own still count in M3 where they
// are in flight over its part of the run, and in whether an edge runs back
// in time (the searches cross them too).
void add_in_flight(const graph::SampleSet& s, std::span<const graph::Edge> edges, const std::vector<std::uint32_t>& instance_of,
                   std::int32_t* change_at, bool& backward) {
    for (const graph::Edge& e : edges) {
        const std::int64_t dt = graph::elapsed_ns(s.time_ns[e.from], s.time_ns[e.to]);
        backward |= dt < 0;
        const bool message = instance_of[s.tracepoint[e.from]] != instance_of[s.tracepoint[e.to]] || s.thread[e.from] != s.thread[e.to];
        const std::int32_t in_flight = message && dt > 0;
        change_at[e.from] += in_flight;
        change_at[e.to] -= in_flight;
    }
}

}  // namespace

MessageWaits measure_edges(const graph::SampleSet& s, const graph::Graph& g, const MetricOptions& options, AnalysisResult& out,
                           bool& backward_in_time) {
    // graph::is_local with the instance of each tracepoint in one flat array.
    std::vector<std::uint32_t> instance_of(s.tracepoints.size());
    for (std::size_t t = 0; t < instance_of.size(); ++t) instance_of[t] = s.tracepoints[t].instance_id;
    // Every edge's wait is written (the next slot advances only past a message edge): no zeros needed.
    MessageWaits waits{ZeroedBuffer<double>(g.edges.size(), Fill::overwritten), 0};
    const ZeroedBuffer<std::int32_t> change(s.size());
    std::int32_t* const change_at = change.data();
    double* const wait_ms = waits.ms.data();
    std::size_t messages = 0;
    // The durations are whole nanoseconds: summed exactly in integers, not
    // in a chain of floating-point additions that waits ~4 cycles per edge.
    // Equal to the floating-point sum whenever that was exact (partial sums
    // below 2^53 ns, 104 days), and more accurate beyond. The message edges'
    // sum takes a masked duration and the local sum is the rest of all
    // edges' (a select between the two sums compiles to a branch on whether
    // the edge is local). No duration exceeds the run's window (both ends
    // lie in it), so a block of edges sums in 64 bits without overflow and
    // only the blocks' sums are 128-bit additions (costly in the edge loop,
    // which is short of registers).
    const auto window = static_cast<std::uint64_t>(graph::elapsed_ns(out.first_time_ns, out.last_time_ns));
    const std::size_t block = window < (std::uint64_t{1} << 62) ? static_cast<std::size_t>((std::uint64_t{1} << 62) / (window + 1)) : 1;
    __int128 all_sum = 0, message_sum = 0;
    bool backward = false;  // a local: a flag through the reference would be stored on every edge
    // The edges produced by the samples owned (options.share): edges are in producer order.
    const std::size_t owned_begin = options.share ? g.out_offset[options.share->begin] : 0;
    const std::size_t owned_end = options.share ? g.out_offset[options.share->end] : g.edges.size();
    add_in_flight(s, std::span(g.edges).first(owned_begin), instance_of, change_at, backward);
    add_in_flight(s, std::span(g.edges).subspan(owned_end), instance_of, change_at, backward);
    for (std::size_t begin = owned_begin; begin < owned_end; begin += std::min(block, owned_end - begin)) {
        std::int64_t block_sum = 0, block_message_sum = 0;
        for (const graph::Edge& e : std::span(g.edges).subspan(begin, std::min(block, owned_end - begin))) {
            const std::int64_t from_time = s.time_ns[e.from], to_time = s.time_ns[e.to];
            const graph::TracepointId from_tracepoint = s.tracepoint[e.from], to_tracepoint = s.tracepoint[e.to];
            backward |= from_time > to_time;
            const std::int64_t dt = graph::elapsed_ns(from_time, to_time);
            // Differences or'ed as integers, not `||`: a short circuit is a branch on whether the edge is local.
            const bool message = ((instance_of[from_tracepoint] ^ instance_of[to_tracepoint]) | (s.thread[e.from] ^ s.thread[e.to])) != 0;
            block_sum += dt;
            block_message_sum += dt & -std::int64_t{message};
            wait_ms[messages] = double(dt) / 1e6;
            messages += message;
            // A zero or (clock-error) negative wait is never in flight.
            const std::int32_t in_flight = message & (dt > 0);
            change_at[e.from] += in_flight;
            change_at[e.to] -= in_flight;
        }
        all_sum += block_sum;
        message_sum += block_message_sum;
    }
    backward_in_time = backward;
    waits.count = messages;
    out.edges = owned_end - owned_begin;
    out.message_edges = messages;
    out.local_edges = out.edges - messages;
    out.exact.local_ns = all_sum - message_sum;
    out.exact.message_ns = message_sum;
    const Clip clip = options.share ? Clip{options.share->m3_from_ns, options.share->m3_to_ns, options.share->ends_run}
                                    : Clip{out.first_time_ns, out.last_time_ns, true};
    out.m3.samples = sweep_in_flight(s.time_ns, change_at, options, clip, out.exact);
    finish_edge_metrics(out);
    return waits;
}

}  // namespace hashtrace::metrics::detail

namespace hashtrace::metrics {

void finish_edge_metrics(AnalysisResult& r) {
    const double window = double(graph::elapsed_ns(r.first_time_ns, r.last_time_ns));
    r.m3.mean = r.m3.sd = 0;
    if (window > 0) {
        r.m3.mean = double(r.exact.in_flight_ns) / window;
        r.m3.sd = std::sqrt(std::max(0.0, double(r.exact.in_flight_sq_ns) / window - r.m3.mean * r.m3.mean));
    }
    r.m3.max = double(r.exact.in_flight_max);
    r.m8 = r.window_s > 0 ? double(r.message_edges) / r.window_s : 0;
    r.m12 = r.exact.message_ns != 0 ? double(r.exact.local_ns) / double(r.exact.message_ns) : 0;
}

}  // namespace hashtrace::metrics
