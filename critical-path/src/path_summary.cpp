// The critical paths of a run in time shards: each shard's instances walked
// as the whole run's are (walk.hpp), their sums kept by segment name, the
// slacks as histograms, one representative path per latency bucket.
#include "hashtrace/critical_path/path_summary.hpp"

#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/statistics.hpp"
#include "walk.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace hashtrace::critical_path {
namespace {

SegmentKey key_of(const DependenceModel& model, std::uint32_t c) {
    const SegmentClass& k = model.classes()[c];
    return {model.labels()[k.from_label], model.labels()[k.to_label], k.kind};
}

// The instances whose `from` sample lies in [begin, end): the list is by `from`.
std::span<const IntervalInstance> owned(const IntervalInstances& all, SampleIndex begin, SampleIndex end) {
    const auto by_from = [](const IntervalInstance& i, SampleIndex v) { return i.from < v; };
    const auto first = std::lower_bound(all.list.begin(), all.list.end(), begin, by_from);
    const auto last = std::lower_bound(first, all.list.end(), end, by_from);
    return {first, last};
}

// The interval's `from` samples in [begin, end) that reach no `to`: those
// there, less the distinct `from` samples of its instances.
std::uint64_t unreached_in(const graph::SampleSet& s, const graph::IntervalSpec& interval, std::span<const IntervalInstance> instances,
                           SampleIndex begin, SampleIndex end) {
    std::vector<bool> is_start(s.tracepoints.size());
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) is_start[t] = interval.from.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
    std::uint64_t starts = 0, reaching = 0;
    for (SampleIndex v = begin; v < end; ++v) starts += is_start[s.tracepoint[v]];
    for (std::size_t k = 0; k < instances.size(); ++k) reaching += k == 0 || instances[k].from != instances[k - 1].from;
    return starts - reaching;
}

void add_walks(const DependenceModel& model, const Accumulators& acc, IntervalPathSummary& out) {
    out.not_followed += acc.not_followed;
    for (std::uint32_t c = 0; c < acc.of_class.size(); ++c) {
        const Accumulator& a = acc.of_class[c];
        if (a.on_path == 0 && a.slack_ms.empty()) continue;
        SegmentSums& into = out.segments[key_of(model, c)];
        into.sum_ns += a.sum_ns;
        into.on_path += a.on_path;
        for (const float slack : a.slack_ms) into.slack.add(std::llround(double(slack) * 1e6));
    }
}

// The first instance of each latency bucket, with its path's contributions.
void add_representatives(const DependenceModel& model, std::span<const IntervalInstance> instances, PathFinder& finder,
                         IntervalPathSummary& out) {
    const auto& time = model.samples().time_ns;
    std::vector<PathStep> path;
    for (const IntervalInstance& instance : instances) {
        const std::int64_t bucket = out.latency.histogram.bucket_of(graph::elapsed_ns(time[instance.from], time[instance.to]));
        auto [it, fresh] = out.by_latency_bucket.try_emplace(bucket);
        if (!fresh) continue;
        it->second.from_ns = time[instance.from];
        if (!finder.critical_path(instance, path)) continue;
        std::map<SegmentKey, std::int64_t> sums;
        for (const PathStep& step : path)
            sums[key_of(model, model.class_index(step.from, step.to, step.kind))] += graph::elapsed_ns(time[step.from], time[step.to]);
        it->second.contributions.assign(sums.begin(), sums.end());
    }
}

}  // namespace

void IntervalPathSummary::append(const IntervalPathSummary& later) {
    if (later.name != name) throw std::invalid_argument("critical-path summaries of different intervals cannot be merged");
    latency.append(later.latency);
    unreached_starts += later.unreached_starts;
    not_followed += later.not_followed;
    for (const auto& [key, sums] : later.segments) {
        SegmentSums& into = segments[key];
        into.sum_ns += sums.sum_ns;
        into.on_path += sums.on_path;
        into.slack.merge(sums.slack);
    }
    for (const auto& [bucket, path] : later.by_latency_bucket) {
        auto [it, fresh] = by_latency_bucket.try_emplace(bucket, path);
        if (!fresh && path.from_ns < it->second.from_ns) it->second = path;
    }
}

std::vector<IntervalPathSummary> summarize_paths(const DependenceModel& model, const std::vector<IntervalInstances>& instances,
                                                 const std::vector<const graph::IntervalSpec*>& intervals, SampleIndex begin, SampleIndex end,
                                                 const CriticalPathOptions& options) {
    const unsigned threads = graph::parallel::thread_count(options.threads);
    std::vector<PathFinder> finders;
    for (unsigned k = 0; k < threads; ++k) finders.emplace_back(model);
    std::vector<IntervalPathSummary> out(intervals.size());
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        const auto mine = owned(instances[i], begin, end);
        IntervalPathSummary& summary = out[i];
        summary.name = intervals[i]->name;
        summary.unreached_starts = unreached_in(model.samples(), *intervals[i], mine, begin, end);
        for (const IntervalInstance& instance : mine)
            summary.latency.add(graph::elapsed_ns(model.samples().time_ns[instance.from], model.samples().time_ns[instance.to]));
        const std::size_t count = std::clamp<std::size_t>(mine.size() / 4096, 1, 4 * std::size_t{threads});
        std::vector<Accumulators> parts(count);
        graph::parallel::for_each(count, threads, [&](std::size_t c, unsigned worker) {
            const auto [from, to] = graph::parallel::chunk(mine.size(), c, count);
            walk_instances(model, mine.subspan(from, to - from), finders[worker], parts[c]);
        });
        for (const Accumulators& part : parts) add_walks(model, part, summary);
        add_representatives(model, mine, finders.front(), summary);
    }
    return out;
}

namespace {

IntervalCriticalPath table_of(const IntervalPathSummary& s) {
    IntervalCriticalPath out;
    out.name = s.name;
    out.count = s.latency.count;
    out.unreached_starts = s.unreached_starts;
    out.not_followed = s.not_followed;
    const metrics::Summary latency = s.latency.summary_ms();
    std::tie(out.mean_ms, out.p50_ms, out.p95_ms, out.p99_ms) = std::tuple{latency.mean, latency.p50, latency.p95, latency.p99};
    const RepresentativePath* at_rank[3] = {nullptr, nullptr, nullptr};
    if (out.count)
        for (int r = 0; r < 3; ++r) {
            const auto index = metrics::nearest_rank_index(r == 0 ? 50 : r == 1 ? 95 : 99, out.count);
            at_rank[r] = &s.by_latency_bucket.at(s.latency.histogram.bucket_at_index(index));
        }
    const double followed = double(out.count - out.not_followed);
    for (const auto& [key, sums] : s.segments) {
        SegmentSummary seg{key.from, key.to, key.kind};
        if (followed > 0) {
            seg.on_path_fraction = double(sums.on_path) / followed;
            seg.mean_ms = double(static_cast<long double>(sums.sum_ns) / 1e6L / static_cast<long double>(followed));
        }
        seg.share = out.mean_ms > 0 ? seg.mean_ms / out.mean_ms : 0;
        double* const contribution[3] = {&seg.p50_ms, &seg.p95_ms, &seg.p99_ms};
        for (int r = 0; r < 3; ++r)
            if (at_rank[r])
                for (const auto& [k, ns] : at_rank[r]->contributions)
                    if (k == key) *contribution[r] = double(ns) / 1e6;
        if (sums.slack.count()) seg.slack_ms = sums.slack.at_index(sums.slack.count() / 2) / 1e6;
        out.segments.push_back(std::move(seg));
    }
    sort_segments(out.segments);
    return out;
}

}  // namespace

std::vector<IntervalCriticalPath> path_tables(const std::vector<IntervalPathSummary>& merged) {
    std::vector<IntervalCriticalPath> out;
    for (const IntervalPathSummary& s : merged) out.push_back(table_of(s));
    return out;
}

std::vector<IntervalPathSummary> summarize_window_paths(const graph::SampleSet& samples, const graph::Graph& graph,
                                                        const std::vector<const graph::IntervalSpec*>& intervals, std::int64_t own_from_ns,
                                                        std::int64_t own_to_ns, unsigned threads) {
    const DependenceModel model(samples, graph, threads);
    const auto instances = InstanceFinder(samples, graph, threads).find(intervals);
    return summarize_paths(model, instances, intervals, graph::first_at_or_after(samples, own_from_ns),
                           graph::first_at_or_after(samples, own_to_ns), {threads});
}

void append_paths(std::vector<IntervalPathSummary>& merged, const std::vector<IntervalPathSummary>& later) {
    for (std::size_t i = 0; i < merged.size(); ++i) merged[i].append(later[i]);
}

}  // namespace hashtrace::critical_path
