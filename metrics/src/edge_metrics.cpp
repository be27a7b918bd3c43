// M3 is a sweep over the message edges' start and end times. Samples are in
// time order, so edges sorted by producer give sorted start times and the
// incoming rows (sorted by consumer) give sorted end times: no sorting and no
// copies, the sweep reads both straight from the graph.
#include "edge_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace hashtrace::metrics::detail {
namespace {

// In flight at time t means start <= t < end (SPEC 5, M3): at equal times
// ends are applied before starts. `next_start` / `next_end` yield the times in
// ascending order, or nullopt when exhausted.
template <typename Starts, typename Ends>
ParallelismResult sweep_in_flight(Starts&& next_start, Ends&& next_end, std::int64_t first, std::int64_t last, const MetricOptions& options) {
    ParallelismResult r;
    const double window = double(graph::elapsed_ns(first, last));
    double integral = 0, integral_sq = 0;
    std::int64_t count = 0, max = 0, now = first;
    // At most kMaxGridSamples observations: a run spanning days (or a damaged
    // timestamp) must not allocate one per millisecond.
    constexpr double kMaxGridSamples = 1e6;
    const auto period = static_cast<std::int64_t>(std::max(options.m3_sample_period_s * 1e9, window / kMaxGridSamples));
    std::int64_t next_grid = first;
    auto advance_to = [&](std::int64_t t) {
        if (options.keep_values && period > 0)
            while (next_grid < t && next_grid < last) {
                r.samples.push_back(double(count));
                next_grid = graph::elapsed_ns(next_grid, last) <= period ? last : next_grid + period;
            }
        const double span = double(graph::elapsed_ns(now, t));
        integral += double(count) * span;
        integral_sq += double(count) * double(count) * span;
        now = t;
    };
    std::optional<std::int64_t> start = next_start(), end = next_end();
    while (start || end) {
        if (end && (!start || *end <= *start)) {
            advance_to(*end);
            --count;
            end = next_end();
        } else {
            const std::int64_t t = *start;
            advance_to(t);
            ++count;
            start = next_start();
            // Several starts at one instant: the maximum is taken after all of
            // them and after the ends at that instant (which sort first).
            if (!start || *start != t) max = std::max(max, count);
        }
    }
    advance_to(last);
    if (window > 0) {
        r.mean = integral / window;
        r.sd = std::sqrt(std::max(0.0, integral_sq / window - r.mean * r.mean));
    }
    r.max = double(max);
    return r;
}

}  // namespace

void measure_edges(const graph::SampleSet& s, const graph::Graph& g, const MetricOptions& options, AnalysisResult& out) {
    // graph::is_local with the instance of each tracepoint in one flat array.
    std::vector<std::uint32_t> instance_of(s.tracepoints.size());
    for (std::size_t t = 0; t < instance_of.size(); ++t) instance_of[t] = s.tracepoints[t].instance_id;
    auto is_local = [&](const graph::Edge& e) {
        return instance_of[s.tracepoint[e.from]] == instance_of[s.tracepoint[e.to]] && s.thread[e.from] == s.thread[e.to];
    };
    std::vector<double> waits_ms;
    waits_ms.reserve(g.edges.size());
    double local_sum = 0, message_sum = 0;
    for (const graph::Edge& e : g.edges) {
        const std::int64_t dt = graph::elapsed_ns(s.time_ns[e.from], s.time_ns[e.to]);
        if (is_local(e)) {
            ++out.local_edges;
            local_sum += double(dt);
        } else {
            ++out.message_edges;
            message_sum += double(dt);
            waits_ms.push_back(double(dt) / 1e6);
        }
    }
    out.edges = g.edges.size();
    // A zero or (clock-error) negative wait is never in flight.
    auto in_flight = [&](const graph::Edge& e) { return s.time_ns[e.to] > s.time_ns[e.from] && !is_local(e); };
    std::size_t next_edge = 0;
    auto next_start = [&]() -> std::optional<std::int64_t> {
        for (; next_edge < g.edges.size(); ++next_edge)
            if (in_flight(g.edges[next_edge])) return s.time_ns[g.edges[next_edge++].from];
        return std::nullopt;
    };
    std::size_t next_in = 0;
    auto next_end = [&]() -> std::optional<std::int64_t> {
        for (; next_in < g.in_edges.size(); ++next_in)
            if (const graph::Edge& e = g.edges[g.in_edges[next_in]]; in_flight(e)) {
                ++next_in;
                return s.time_ns[e.to];
            }
        return std::nullopt;
    };
    out.m3 = sweep_in_flight(next_start, next_end, out.first_time_ns, out.last_time_ns, options);
    out.m8 = out.window_s > 0 ? double(out.message_edges) / out.window_s : 0;
    out.m12 = message_sum != 0 ? local_sum / message_sum : 0;
    out.m11_ms = summarize(waits_ms);
    if (options.keep_values) out.m11_values_ms = std::move(waits_ms);
}

}  // namespace hashtrace::metrics::detail
