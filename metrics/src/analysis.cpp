// The measure stage: edge metrics, then intervals and the node latency matrix
// through EarliestReach passes spread over the cores.
#include "hashtrace/metrics/analysis.hpp"

#include "edge_metrics.hpp"
#include "reach.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <tuple>

namespace hashtrace::metrics {
namespace {

using graph::SampleIndex;
using graph::SampleSet;

detail::TargetSet tracepoints_matching(const SampleSet& s, const graph::Selector& selector) {
    detail::TargetSet set(s.tracepoints.size());
    for (std::size_t t = 0; t < set.size(); ++t) set[t] = selector.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
    return set;
}

// For each tracepoint set, its samples in index order: one pass over the samples for all sets.
std::vector<std::vector<SampleIndex>> samples_of(const SampleSet& s, const std::vector<detail::TargetSet>& sets) {
    std::vector<std::vector<std::uint32_t>> sets_of_tracepoint(s.tracepoints.size());
    for (std::uint32_t k = 0; k < sets.size(); ++k)
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t)
            if (sets[k][t]) sets_of_tracepoint[t].push_back(k);
    std::vector<std::vector<SampleIndex>> out(sets.size());
    for (SampleIndex i = 0; i < s.size(); ++i)
        for (std::uint32_t k : sets_of_tracepoint[s.tracepoint[i]]) out[k].push_back(i);
    return out;
}

double ms_between(const SampleSet& s, SampleIndex a, SampleIndex b) { return double(graph::elapsed_ns(s.time_ns[a], s.time_ns[b])) / 1e6; }

// One question for EarliestReach and where its answers go.
struct Target {
    detail::TargetSet set;
    bool is_interval = true;
    std::size_t interval = 0;     // is_interval: index into spec.intervals
    std::uint32_t node = 0;       // !is_interval: the node Y of the matrix column
    // Results, written only by the thread that ran this target.
    std::vector<std::pair<SampleIndex, double>> latencies;  // interval: (from sample, ms)
    std::vector<Moments> per_source_node;                    // matrix: per node X
    std::vector<double> max_per_source_node;
};

void harvest(const SampleSet& s, const graph::Graph& g, const detail::EarliestReach& reach, std::size_t k,
             const std::vector<SampleIndex>& from_samples, Target& t) {
    if (t.is_interval) {
        for (SampleIndex v : from_samples)
            if (SampleIndex to = reach.earliest(v, k); to != detail::kUnreached) t.latencies.emplace_back(v, ms_between(s, v, to));
        return;
    }
    t.per_source_node.assign(s.node_names.size(), {});
    t.max_per_source_node.assign(s.node_names.size(), 0);
    for (SampleIndex v = 0; v < s.size(); ++v) {
        if (g.in_degree(v) != 0) continue;
        const std::uint32_t x = s.tracepoint_of(v).node_id;
        if (x == t.node) continue;
        if (SampleIndex to = reach.earliest(v, k); to != detail::kUnreached) {
            const double ms = ms_between(s, v, to);
            t.per_source_node[x].add(ms);
            t.max_per_source_node[x] = t.per_source_node[x].n == 1 ? ms : std::max(t.max_per_source_node[x], ms);
        }
    }
}

// Keep-all mode: every `to` sample reachable from each `from` sample without
// passing through another `to` sample (a path ends at its first `to`).
std::vector<double> all_reachable_latencies(const SampleSet& s, const graph::Graph& g, const std::vector<SampleIndex>& from_samples,
                                            const detail::TargetSet& to) {
    std::vector<double> values;
    std::vector<std::uint32_t> stamp(s.size(), 0);
    std::vector<SampleIndex> stack;
    std::uint32_t generation = 0;
    for (SampleIndex v : from_samples) {
        ++generation;
        stack.assign(1, v);
        while (!stack.empty()) {
            const SampleIndex u = stack.back();
            stack.pop_back();
            for (const graph::Edge& e : g.out(u)) {
                if (stamp[e.to] == generation) continue;
                stamp[e.to] = generation;
                if (to[s.tracepoint[e.to]]) values.push_back(ms_between(s, v, e.to));
                else stack.push_back(e.to);
            }
        }
    }
    return values;
}

}  // namespace

AnalysisResult analyze(const SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec, const MetricOptions& options) {
    AnalysisResult r;
    r.samples = s.size();
    r.files = s.files.size();
    r.nodes = s.node_names.size();
    r.instances = s.instances.size();
    r.unlinked_inputs = g.unlinked_inputs;
    r.unconsumed_outputs = g.unconsumed_outputs;
    r.dropped_samples = s.dropped_samples;
    for (const auto& f : s.files) {
        r.bad_records += f.report.bad_records;
        r.torn_files += f.report.torn;
    }
    if (s.size() > 0) {
        r.first_time_ns = s.time_ns.front();
        r.last_time_ns = s.time_ns.back();
        r.window_s = double(graph::elapsed_ns(r.first_time_ns, r.last_time_ns)) / 1e9;
    }
    detail::measure_edges(s, g, options, r);

    // The questions: per interval, one target set per node instance holding
    // `to` tracepoints (SPEC 5: the earliest per instance reached); per node Y,
    // the matrix column.
    std::vector<Target> targets;
    std::vector<detail::TargetSet> from_sets, to_sets;
    for (const auto& interval : spec.intervals) {
        from_sets.push_back(tracepoints_matching(s, interval.from));
        to_sets.push_back(tracepoints_matching(s, interval.to));
    }
    const auto from_samples = samples_of(s, from_sets);
    for (std::size_t i = 0; i < spec.intervals.size(); ++i) {
        if (options.keep_all_targets) continue;
        std::map<std::uint32_t, detail::TargetSet> by_instance;
        for (std::size_t t = 0; t < s.tracepoints.size(); ++t) {
            if (!to_sets[i][t]) continue;
            auto& set = by_instance.try_emplace(s.tracepoints[t].instance_id, s.tracepoints.size()).first->second;
            set[t] = true;
        }
        for (auto& [instance, set] : by_instance) targets.push_back(Target{std::move(set), true, i, 0, {}, {}, {}});
    }
    if (s.node_names.size() > 1)
        for (std::uint32_t y = 0; y < s.node_names.size(); ++y) {
            detail::TargetSet set(s.tracepoints.size());
            for (std::size_t t = 0; t < set.size(); ++t) set[t] = s.tracepoints[t].node_id == y;
            targets.push_back(Target{std::move(set), false, 0, y, {}, {}, {}});
        }

    const std::size_t batches = (targets.size() + detail::EarliestReach::kWidth - 1) / detail::EarliestReach::kWidth;
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, batches));
    std::atomic<std::size_t> next_batch{0};
    const std::vector<SampleIndex> no_samples;
    auto worker = [&] {
        detail::EarliestReach reach(s, g);
        for (std::size_t b; (b = next_batch.fetch_add(1)) < batches;) {
            const std::size_t first = b * detail::EarliestReach::kWidth;
            const std::size_t count = std::min(detail::EarliestReach::kWidth, targets.size() - first);
            std::vector<const detail::TargetSet*> sets;
            for (std::size_t k = 0; k < count; ++k) sets.push_back(&targets[first + k].set);
            reach.run(sets);
            for (std::size_t k = 0; k < count; ++k) {
                Target& t = targets[first + k];
                harvest(s, g, reach, k, t.is_interval ? from_samples[t.interval] : no_samples, t);
            }
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
        if (threads > 0) worker();
    }

    for (std::size_t i = 0; i < spec.intervals.size(); ++i) {
        IntervalResult ir{spec.intervals[i].name, spec.intervals[i].kind, {}, {}};
        std::vector<double> values;
        if (options.keep_all_targets) {
            values = all_reachable_latencies(s, g, from_samples[i], to_sets[i]);
        } else {
            // Targets of one interval are in instance order: sort by (from sample, instance).
            std::vector<Target*> mine;
            for (Target& t : targets)
                if (t.is_interval && t.interval == i) mine.push_back(&t);
            if (mine.size() == 1) {  // one instance reached: already in from-sample order
                for (auto [v, ms] : mine[0]->latencies) values.push_back(ms);
            } else {
                std::vector<std::tuple<SampleIndex, std::size_t, double>> merged;
                for (std::size_t k = 0; k < mine.size(); ++k)
                    for (auto [v, ms] : mine[k]->latencies) merged.emplace_back(v, k, ms);
                std::sort(merged.begin(), merged.end());
                for (const auto& m : merged) values.push_back(std::get<2>(m));
            }
        }
        if (options.keep_values) {
            ir.latency_ms = summarize(std::span<const double>(values));
            ir.values_ms = std::move(values);
        } else {
            ir.latency_ms = summarize(std::move(values));
        }
        r.intervals.push_back(std::move(ir));
    }
    for (const Target& t : targets) {
        if (t.is_interval) continue;
        for (std::uint32_t x = 0; x < t.per_source_node.size(); ++x)
            if (t.per_source_node[x].n > 0)
                r.node_latency.push_back({s.node_names[x], s.node_names[t.node], t.per_source_node[x].n, t.per_source_node[x].mean,
                                          t.max_per_source_node[x]});
    }
    std::sort(r.node_latency.begin(), r.node_latency.end(),
              [](const NodeLatency& a, const NodeLatency& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
    return r;
}

}  // namespace hashtrace::metrics
