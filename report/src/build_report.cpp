// The measure-to-view stage: a linked, analysed run -> ReportData. Every
// per-sample quantity is reduced here (aggregate.hpp) so that the page stays
// small and responsive however long the run was.
#include "hashtrace/report/aggregate.hpp"
#include "hashtrace/report/build.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace hashtrace::report {

namespace {

using graph::SampleIndex;

double seconds_since(std::int64_t t0_ns, std::int64_t t_ns) { return double(t_ns - t0_ns) / 1e9; }

Statistics statistics_of(const metrics::Summary& s) {
    return {s.count, s.mean, s.sd, s.min, s.p50, s.p95, s.p99, s.max};
}

std::string instance_label(const graph::Instance& i) { return i.node_name + " " + i.instance; }

Health health_of(const graph::SampleSet& s, const graph::Graph& g, const metrics::AnalysisResult& r) {
    Health h{r.samples, r.edges, r.message_edges, r.dropped_samples, r.unlinked_inputs, r.unconsumed_outputs,
             r.bad_records, r.torn_files, {}, r.unclean_files};
    h.nodes.resize(s.instances.size());
    for (std::size_t i = 0; i < s.instances.size(); ++i) {
        h.nodes[i].node = s.instances[i].node_name;
        h.nodes[i].instance = s.instances[i].instance;
    }
    for (SampleIndex v = 0; v < s.size(); ++v) {
        auto& n = h.nodes[s.tracepoint_of(v).instance_id];
        ++n.samples;
        if (s.input[v] != graph::kNoHash && g.in_degree(v) == 0) ++n.unlinked_inputs;
    }
    // Per-file facts: a file's samples belong to the instance its tracepoints name.
    std::vector<std::optional<std::uint32_t>> instance_of_file(s.files.size());
    for (const auto& tp : s.tracepoints) instance_of_file[tp.file] = tp.instance_id;
    for (std::size_t f = 0; f < s.files.size(); ++f) {
        if (!instance_of_file[f]) continue;
        const auto& file = s.files[f];
        auto& n = h.nodes[*instance_of_file[f]];
        n.dropped += file.report.dropped_samples;
        if (auto it = file.header.find("host"); it != file.header.end()) n.host = it->second;
        if (auto it = file.header.find("clock_source"); it != file.header.end()) n.clock_source = it->second;
    }
    const auto clock_error = clock_error_ms_by_node(r);
    for (auto& n : h.nodes)
        if (auto it = clock_error.find(n.node); it != clock_error.end()) n.clock_error_ms = it->second;
    // Instance numbering follows the loader's threads: show them by name.
    std::sort(h.nodes.begin(), h.nodes.end(),
              [](const auto& a, const auto& b) { return std::tie(a.node, a.instance) < std::tie(b.node, b.instance); });
    return h;
}

// Keeps the samples and edges of a route that lie on a path from `from` to
// `to`: the route of one message, without the fan-out it shares with others.
void keep_paths_between(graph::Route& route, SampleIndex from, SampleIndex to) {
    auto reach = [&](SampleIndex start, bool forward) {
        std::vector<SampleIndex> seen{start}, stack{start};
        while (!stack.empty()) {
            const auto v = stack.back();
            stack.pop_back();
            for (const auto& e : route.edges) {
                const auto [a, b] = forward ? std::pair{e.from, e.to} : std::pair{e.to, e.from};
                if (a == v && std::find(seen.begin(), seen.end(), b) == seen.end()) {
                    seen.push_back(b);
                    stack.push_back(b);
                }
            }
        }
        std::sort(seen.begin(), seen.end());
        return seen;
    };
    const auto downstream = reach(from, true), upstream = reach(to, false);
    const auto on_path = [&](SampleIndex v) {
        return std::binary_search(downstream.begin(), downstream.end(), v) && std::binary_search(upstream.begin(), upstream.end(), v);
    };
    std::erase_if(route.samples, [&](SampleIndex v) { return !on_path(v); });
    std::erase_if(route.edges, [&](const graph::Edge& e) { return !on_path(e.from) || !on_path(e.to); });
}

RouteDrawing route_drawing(const graph::SampleSet& s, const Lanes& lanes, std::int64_t t0, const graph::Route& route,
                           std::string title) {
    RouteDrawing d;
    d.title = std::move(title);
    d.truncated = route.truncated;
    std::vector<std::pair<SampleIndex, std::uint32_t>> position;  // sample -> index in d.samples
    for (auto v : route.samples) {
        position.emplace_back(v, std::uint32_t(d.samples.size()));
        d.samples.push_back({s.label(v), s.tracepoint_of(v).tracepoint_name, lanes.of_sample[v], seconds_since(t0, s.time_ns[v])});
        if (v == route.origin) d.origin = position.back().second;
    }
    std::sort(position.begin(), position.end());
    auto index_of = [&](SampleIndex v) {
        return std::lower_bound(position.begin(), position.end(), std::pair{v, 0u})->second;
    };
    for (const auto& e : route.edges) d.edges.emplace_back(index_of(e.from), index_of(e.to));
    return d;
}

std::string format_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", ms);
    return buf;
}

// The top-K slowest interval observations, or, for a spec without intervals,
// the K longest message edges: either way each comes with its route.
void add_slowest(ReportData& d, const graph::SampleSet& s, const graph::Graph& g, const Lanes& lanes,
                 const std::vector<std::pair<std::string, std::vector<IntervalObservation>>>& observations,
                 const ReportOptions& options) {
    struct Candidate {
        double ms;
        std::size_t interval;  // index into observations, or npos for a message edge
        SampleIndex from, to;
    };
    constexpr auto kEdge = static_cast<std::size_t>(-1);
    std::vector<Candidate> all;
    for (std::size_t i = 0; i < observations.size(); ++i)
        for (const auto& o : observations[i].second) all.push_back({o.ms, i, o.from, o.to});
    if (all.empty())
        for (const auto& e : g.edges)
            if (!graph::is_local(s, e)) all.push_back({double(s.time_ns[e.to] - s.time_ns[e.from]) / 1e6, kEdge, e.from, e.to});
    const auto k = std::min(options.top_k, all.size());
    std::partial_sort(all.begin(), all.begin() + k, all.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
    for (std::size_t i = 0; i < k; ++i) {
        const auto& c = all[i];
        const std::string name = c.interval == kEdge ? "message edge" : observations[c.interval].first;
        d.slowest.push_back({name, s.label(c.from), s.label(c.to), c.ms, seconds_since(d.t0_ns, s.time_ns[c.from]),
                             std::uint32_t(d.routes.size())});
        auto route = graph::trace_route(s, g, c.from, options.route);
        keep_paths_between(route, c.from, c.to);
        d.routes.push_back(route_drawing(s, lanes, d.t0_ns, route,
                                         "#" + std::to_string(i + 1) + " " + name + ": " + s.label(c.from) + " -> " +
                                             s.label(c.to) + ", " + format_ms(c.ms)));
    }
}

// A window around `center` holding about `samples` samples: where the page
// opens its space-time diagram when no window was asked for.
std::pair<std::int64_t, std::int64_t> window_around(const graph::SampleSet& s, std::int64_t center, std::size_t samples) {
    const auto c = std::size_t(std::lower_bound(s.time_ns.begin(), s.time_ns.end(), center) - s.time_ns.begin());
    samples = std::max<std::size_t>(samples, 1);
    const auto lo = c > samples / 2 ? c - samples / 2 : 0;
    const auto hi = std::min(s.size() - 1, lo + samples - 1);
    return {s.time_ns[lo], s.time_ns[hi]};
}

SpaceTime space_time_of(const graph::SampleSet& s, const graph::Graph& g, const Lanes& lanes, std::int64_t t0,
                        std::int64_t t1, std::optional<std::pair<std::int64_t, std::int64_t>> window,
                        const ReportOptions& options) {
    SpaceTime st;
    st.duration_s = seconds_since(t0, t1);
    st.lanes = lanes.lanes;
    st.density_bins = std::uint32_t(options.density_bins);
    st.density = density(lanes.of_sample, s.time_ns, lanes.lanes.size(), t0, t1 - t0, options.density_bins);
    st.ticks_total = s.size();

    // Ticks: every sample of the run if they fit, else every sample of the
    // detail window (the page shows density elsewhere).
    std::size_t lo = 0, hi = s.size();
    if (s.size() > options.max_ticks && window) {
        lo = std::lower_bound(s.time_ns.begin(), s.time_ns.end(), window->first) - s.time_ns.begin();
        hi = std::upper_bound(s.time_ns.begin(), s.time_ns.end(), window->second) - s.time_ns.begin();
        if (hi - lo <= options.max_ticks)
            st.detail_window = std::pair{seconds_since(t0, window->first), seconds_since(t0, window->second)};
        else
            lo = 0, hi = s.size();
    }
    for (auto i : even_sample(hi - lo, options.max_ticks))
        st.ticks.emplace_back(lanes.of_sample[lo + i], seconds_since(t0, s.time_ns[lo + i]));

    // Message edges: those of the detail window first, then an even sample of the rest.
    std::vector<std::uint32_t> in_window, elsewhere;
    for (std::uint32_t e = 0; e < g.edges.size(); ++e) {
        const auto& edge = g.edges[e];
        if (graph::is_local(s, edge)) continue;
        ++st.edges_total;
        (st.detail_window && edge.from >= lo && edge.to < hi ? in_window : elsewhere).push_back(e);
    }
    const auto add_edge = [&](std::uint32_t e) {
        const auto& edge = g.edges[e];
        st.edges.push_back({lanes.of_sample[edge.from], seconds_since(t0, s.time_ns[edge.from]), lanes.of_sample[edge.to],
                            seconds_since(t0, s.time_ns[edge.to])});
    };
    for (auto i : even_sample(in_window.size(), options.max_edges)) add_edge(in_window[i]);
    for (auto i : even_sample(elsewhere.size(), options.max_edges - st.edges.size())) add_edge(elsewhere[i]);
    return st;
}

// The window asked for; else the slowest message with as much context before
// and twice as much after, inside the detail window if there is one.
std::optional<std::pair<double, double>> open_window(const ReportData& d, const ReportOptions& options) {
    if (options.detail_window_ns)
        return std::pair{seconds_since(d.t0_ns, options.detail_window_ns->first),
                         seconds_since(d.t0_ns, options.detail_window_ns->second)};
    if (d.slowest.empty()) return std::nullopt;
    const auto& slow = d.slowest.front();
    const double span = std::max(slow.latency_ms / 1e3, 1e-6);
    const auto bounds = d.space_time.detail_window.value_or(std::pair{0.0, d.space_time.duration_s});
    return std::pair{std::max(bounds.first, slow.t_s - span), std::min(bounds.second, slow.t_s + 2 * span)};
}

IdleGaps idle_gaps_of(const graph::SampleSet& s, std::int64_t t0, const ReportOptions& options) {
    std::vector<std::vector<std::int64_t>> times(s.instances.size());
    for (SampleIndex v = 0; v < s.size(); ++v) times[s.tracepoint_of(v).instance_id].push_back(s.time_ns[v]);
    auto gaps = find_idle_gaps(times, std::int64_t(options.idle_threshold_ms * 1e6));
    IdleGaps out{options.idle_threshold_ms, options.flag_concurrent, {}, gaps.size()};
    const auto keep = std::min(options.max_gaps, gaps.size());
    std::partial_sort(gaps.begin(), gaps.begin() + keep, gaps.end(),
                      [](const auto& a, const auto& b) { return a.end_ns - a.start_ns > b.end_ns - b.start_ns; });
    gaps.resize(keep);
    std::sort(gaps.begin(), gaps.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    for (const auto& gap : gaps)
        out.gaps.push_back({instance_label(s.instances[gap.lane]), seconds_since(t0, gap.start_ns),
                            seconds_since(t0, gap.end_ns), double(gap.end_ns - gap.start_ns) / 1e6, gap.concurrent});
    return out;
}

}  // namespace

RunMetrics run_metrics(const std::string& name, const metrics::AnalysisResult& r) {
    RunMetrics run{name, {}, {}};
    auto row = [&](std::string metric, std::string unit, std::string better, std::optional<double> v) {
        run.metrics.push_back({std::move(metric), std::move(unit), std::move(better), v});
    };
    row("samples", "", "", double(r.samples));
    row("edges", "", "", double(r.edges));
    row("message edges", "", "", double(r.message_edges));
    row("window", "s", "", r.window_s);
    for (const auto& iv : r.intervals)
        run.intervals.push_back({iv.name, std::string(graph::to_string(iv.kind)), statistics_of(iv.latency_ms)});
    row("M3 parallelism mean", "", "", r.m3.mean);
    row("M3 parallelism max", "", "", r.m3.max);
    row("M8 messages per second", "1/s", "higher", r.m8);
    const auto m11 = [&](double v) { return r.m11_ms.count ? std::optional(v) : std::nullopt; };
    row("M11 waiting time mean", "ms", "lower", m11(r.m11_ms.mean));
    row("M11 waiting time p99", "ms", "lower", m11(r.m11_ms.p99));
    row("M12 simulation overhead", "", "lower", r.m12);
    row("unlinked inputs", "", "lower", double(r.unlinked_inputs));
    row("dropped samples", "", "lower", double(r.dropped_samples));
    row("lost samples (disk full)", "", "lower", double(r.lost_samples));
    return run;
}

ReportData build_report(const graph::SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec,
                        const metrics::AnalysisResult& result, const ReportOptions& options) {
    ReportData d;
    d.title = options.title;
    d.generated_by = "hashtrace analyze";
    d.t0_ns = options.run_first_ns.value_or(s.size() ? s.time_ns.front() : 0);
    const std::int64_t t1 = s.size() ? s.time_ns.back() : 0;
    d.window_s = seconds_since(d.t0_ns, t1);
    d.runs.push_back(run_metrics(options.run_name, result));
    d.health = health_of(s, g, result);

    const auto lanes = assign_lanes(s);
    std::vector<std::pair<std::string, std::vector<IntervalObservation>>> observations;
    for (std::size_t i = 0; i < spec.intervals.size(); ++i) {
        const auto& iv = spec.intervals[i];
        auto obs = interval_observations(s, g, iv);
        std::vector<double> t_s, ms;
        for (const auto& o : obs) {
            t_s.push_back(seconds_since(d.t0_ns, s.time_ns[o.from]));
            ms.push_back(o.ms);
        }
        IntervalChart chart;
        chart.name = iv.name;
        chart.kind = std::string(graph::to_string(iv.kind));
        chart.summary = i < result.intervals.size() ? statistics_of(result.intervals[i].latency_ms) : Statistics{};
        chart.histogram = make_histogram(ms, options.histogram_bins);
        chart.over_time = latency_over_time(t_s, ms, d.window_s, options.time_bins, options.max_points);
        d.intervals.push_back(std::move(chart));
        observations.emplace_back(iv.name, std::move(obs));
    }

    d.node_matrix.nodes = s.node_names;
    std::sort(d.node_matrix.nodes.begin(), d.node_matrix.nodes.end());
    for (const auto& c : result.node_latency) d.node_matrix.cells.push_back({c.from, c.to, c.count, c.mean_ms, c.max_ms});

    add_slowest(d, s, g, lanes, observations, options);
    // Without a window asked for, the diagram opens in full detail around the slowest message.
    auto window = options.detail_window_ns;
    if (!window && !d.slowest.empty())
        window = window_around(s, d.t0_ns + std::llround(d.slowest.front().t_s * 1e9), options.max_ticks / 4);
    d.space_time = space_time_of(s, g, lanes, d.t0_ns, t1, window, options);
    d.space_time.open_window = open_window(d, options);
    d.idle_gaps = idle_gaps_of(s, d.t0_ns, options);
    return d;
}

ReportData comparison_report(const std::string& title, std::span<const metrics::NamedRun> runs) {
    ReportData d;
    d.title = title;
    d.generated_by = "hashtrace compare";
    d.comparison = true;
    for (const auto& run : runs) d.runs.push_back(run_metrics(run.name, run.result));
    return d;
}

}  // namespace hashtrace::report
