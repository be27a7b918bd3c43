#include "hashtrace/critical_path/instances.hpp"

#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/reach.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <tuple>

namespace hashtrace::critical_path {

using metrics::TracepointSet;
constexpr graph::SampleIndex kNoSample = 0xFFFFFFFFu;

// Kept across intervals: each worker's search scratch (its marks the size of
// the run), and the fallback passes with the run's tracepoint graph (made on
// first use).
struct InstanceFinder::Passes {
    std::vector<metrics::SearchScratch> scratch;  // per worker
    std::optional<metrics::TracepointGraph> tracepoints;
    std::optional<metrics::EarliestReach> reach;
};

InstanceFinder::InstanceFinder(const graph::SampleSet& samples, const graph::Graph& graph, unsigned threads)
    : samples_(samples), graph_(graph), threads_(graph::parallel::thread_count(threads)), passes_(std::make_unique<Passes>()) {
    // The forward searches are exact unless some edge runs back in time.
    const std::size_t chunks = 4 * std::size_t{threads_};
    std::vector<std::uint8_t> backward(chunks, 0);
    graph::parallel::for_each(chunks, threads_, [&](std::size_t c, unsigned) {
        for (auto [e, end] = graph::parallel::chunk(graph.edges.size(), c, chunks); e < end && !backward[c]; ++e)
            backward[c] = samples.time_ns[graph.edges[e].from] > samples.time_ns[graph.edges[e].to];
    });
    runs_backward_in_time_ = std::find(backward.begin(), backward.end(), 1) != backward.end();
}
InstanceFinder::~InstanceFinder() = default;

namespace {

// The searches of a chunk of the starts into `found`; false where they
// visited more than `budget` samples (beyond that the passes are cheaper).
bool search_chunk(const graph::SampleSet& s, const graph::Graph& g, std::span<const graph::SampleIndex> starts,
                  const metrics::TargetClasses& classes, std::size_t budget, metrics::SearchScratch& scratch,
                  std::vector<metrics::Reached>& found) {
    found.clear();
    found.reserve(starts.size() * classes.count);
    return metrics::search_earliest(s, g, starts, classes, budget, scratch, metrics::AppendReached{found});
}

}  // namespace

IntervalInstances InstanceFinder::find(const graph::IntervalSpec& interval) { return std::move(find({&interval}).front()); }

std::vector<IntervalInstances> InstanceFinder::find(const std::vector<const graph::IntervalSpec*>& intervals) {
    return find(intervals, 0, static_cast<graph::SampleIndex>(samples_.size()));
}

std::vector<IntervalInstances> InstanceFinder::find(const std::vector<const graph::IntervalSpec*>& intervals, graph::SampleIndex begin,
                                                    graph::SampleIndex end) {
    const graph::SampleSet& s = samples_;
    end = std::min(end, static_cast<graph::SampleIndex>(s.size()));
    begin = std::min(begin, end);
    const std::size_t tracepoints = s.tracepoints.size();
    std::vector<IntervalInstances> out(intervals.size());
    std::vector<TracepointSet> from(intervals.size(), TracepointSet(tracepoints)), to(intervals.size(), TracepointSet(tracepoints));
    for (std::size_t i = 0; i < intervals.size(); ++i)
        for (std::size_t t = 0; t < tracepoints; ++t) {
            from[i][t] = intervals[i]->from.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
            to[i][t] = intervals[i]->to.matches(s.tracepoints[t].node_name, s.tracepoints[t].tracepoint_name);
        }
    // Intervals with the same `from` tracepoints are answered by one search
    // per start (as analyze groups them): it goes as far as the farthest
    // target, where a search per interval would walk the nearer ones again.
    std::vector<std::uint8_t> answered(intervals.size(), 0);
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        if (answered[i]) continue;
        std::vector<std::size_t> group;
        for (std::size_t j = i; j < intervals.size(); ++j)
            if (!answered[j] && from[j] == from[i]) {
                group.push_back(j);
                answered[j] = 1;
            }
        find_group(from[i], group, to, begin, end, out);
    }
    return out;
}

namespace {

// Per interval of a group, one class per node instance of its `to`
// tracepoints, in instance order (as analyze); the group's classes are the
// intervals' one after another.
struct GroupClasses {
    std::vector<std::vector<std::uint32_t>> class_of_instance;  // [interval of the group][instance]
    std::vector<std::uint32_t> interval_of_class;
    metrics::TargetClasses classes;
};

GroupClasses group_classes(const graph::SampleSet& s, const std::vector<std::size_t>& group, const std::vector<TracepointSet>& to) {
    const std::size_t tracepoints = s.tracepoints.size();
    GroupClasses out;
    out.class_of_instance.assign(group.size(), std::vector<std::uint32_t>(s.instances.size(), metrics::kNoClass));
    std::vector<std::vector<std::uint32_t>> classes_of_tracepoint(tracepoints);
    for (std::size_t g = 0; g < group.size(); ++g) {
        auto& of_instance = out.class_of_instance[g];
        for (std::size_t t = 0; t < tracepoints; ++t)
            if (to[group[g]][t]) of_instance[s.tracepoints[t].instance_id] = 0;
        for (auto& c : of_instance)
            if (c == 0) {
                c = static_cast<std::uint32_t>(out.interval_of_class.size());
                out.interval_of_class.push_back(static_cast<std::uint32_t>(g));
            }
        for (std::size_t t = 0; t < tracepoints; ++t)
            if (to[group[g]][t]) classes_of_tracepoint[t].push_back(of_instance[s.tracepoints[t].instance_id]);
    }
    out.classes = metrics::TargetClasses::from_lists(classes_of_tracepoint, static_cast<std::uint32_t>(out.interval_of_class.size()));
    return out;
}

// The samples of `from`'s tracepoints in [begin, end), in sample order: a
// scan of the run per group costs less than sorting the run by tracepoint once.
std::vector<graph::SampleIndex> starts_of(const graph::SampleSet& s, const TracepointSet& from, graph::SampleIndex begin,
                                          graph::SampleIndex end, unsigned threads) {
    std::vector<std::uint8_t> is_start(s.tracepoints.size());
    for (std::size_t t = 0; t < is_start.size(); ++t) is_start[t] = from[t];
    const std::size_t chunks = 4 * std::size_t{threads};
    std::vector<std::vector<graph::SampleIndex>> found(chunks);
    graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        for (auto [v, last] = graph::parallel::chunk<graph::SampleIndex>(end - begin, c, chunks); v < last; ++v)
            if (is_start[s.tracepoint[begin + v]]) found[c].push_back(begin + v);
    });
    std::vector<graph::SampleIndex> starts;
    std::size_t total = 0;
    for (const auto& f : found) total += f.size();
    starts.reserve(total);
    for (const auto& f : found) starts.insert(starts.end(), f.begin(), f.end());
    return starts;
}

// Each answer to its interval, in (start, class) order, and the starts that
// reach none of it.
void hand_out(const std::vector<std::vector<metrics::Reached>>& parts, const GroupClasses& c, const std::vector<std::size_t>& group,
              std::size_t starts, std::vector<IntervalInstances>& out) {
    std::vector<std::size_t> count(group.size(), 0);
    for (const auto& part : parts)
        for (const auto& x : part) ++count[c.interval_of_class[x.target_class]];
    for (std::size_t g = 0; g < group.size(); ++g) out[group[g]].list.reserve(count[g]);
    std::vector<graph::SampleIndex> previous(group.size(), kNoSample);
    std::vector<std::uint64_t> reaching(group.size(), 0);
    for (const auto& part : parts)
        for (const auto& x : part) {
            const std::uint32_t g = c.interval_of_class[x.target_class];
            out[group[g]].list.push_back({x.from, x.to});
            reaching[g] += x.from != previous[g];
            previous[g] = x.from;
        }
    for (std::size_t g = 0; g < group.size(); ++g) out[group[g]].unreached_starts = starts - reaching[g];
}

}  // namespace

// Forward searches from the starts, a chunk per task, as analyze answers its
// intervals; false where a chunk went over its budget (or an edge runs back
// in time: then they are not exact).
bool InstanceFinder::search_forward(const std::vector<graph::SampleIndex>& starts, const metrics::TargetClasses& classes,
                                    std::vector<std::vector<metrics::Reached>>& parts) {
    if (runs_backward_in_time_) return false;
    const std::size_t chunks = std::min<std::size_t>(4 * threads_, std::max<std::size_t>(1, starts.size() / 4096));
    // analyze's budget (two passes' worth of visits), each chunk its share.
    const std::size_t budget = std::max<std::size_t>(2 * samples_.size(), 1u << 16);
    parts.resize(chunks);
    std::vector<std::uint8_t> complete(chunks);
    if (passes_->scratch.size() < threads_) passes_->scratch.resize(threads_);
    graph::parallel::for_each(chunks, threads_, [&](std::size_t c, unsigned worker) {
        const auto [begin, end] = graph::parallel::chunk(starts.size(), c, chunks);
        complete[c] = search_chunk(samples_, graph_, std::span(starts).subspan(begin, end - begin), classes,
                                   budget * (end - begin) / std::max<std::size_t>(starts.size(), 1) + 1, passes_->scratch[worker], parts[c]);
    });
    return std::all_of(complete.begin(), complete.end(), [](std::uint8_t c) { return c != 0; });
}

// The exact passes: one per class, merged into (start, class) order.
std::vector<metrics::Reached> InstanceFinder::search_by_passes(const TracepointSet& from, const std::vector<std::size_t>& group,
                                                               const std::vector<TracepointSet>& to,
                                                               const std::vector<std::vector<std::uint32_t>>& class_of_instance,
                                                               const std::vector<graph::SampleIndex>& starts) {
    const graph::SampleSet& s = samples_;
    std::vector<metrics::Reached> reached;
    if (!passes_->reach) {
        passes_->tracepoints.emplace(s, graph_);
        passes_->reach.emplace(s, graph_, *passes_->tracepoints);
    }
    for (std::size_t g = 0; g < group.size(); ++g)
        for (std::uint32_t instance = 0; instance < s.instances.size(); ++instance) {
            if (class_of_instance[g][instance] == metrics::kNoClass) continue;
            TracepointSet to_here(s.tracepoints.size());
            for (std::size_t t = 0; t < to_here.size(); ++t) to_here[t] = to[group[g]][t] && s.tracepoints[t].instance_id == instance;
            passes_->reach->run(from, to_here);
            for (const graph::SampleIndex v : starts)
                if (const graph::SampleIndex target = passes_->reach->earliest(v); target != metrics::kUnreached)
                    reached.push_back({v, class_of_instance[g][instance], target});
        }
    std::sort(reached.begin(), reached.end(), [](const auto& a, const auto& b) { return std::tie(a.from, a.target_class) < std::tie(b.from, b.target_class); });
    return reached;
}

void InstanceFinder::find_group(const TracepointSet& from, const std::vector<std::size_t>& group, const std::vector<TracepointSet>& to,
                                graph::SampleIndex begin, graph::SampleIndex end, std::vector<IntervalInstances>& out) {
    const GroupClasses classes = group_classes(samples_, group, to);
    const std::vector<graph::SampleIndex> starts = starts_of(samples_, from, begin, end, threads_);
    std::vector<std::vector<metrics::Reached>> parts;
    if (!search_forward(starts, classes.classes, parts)) parts.assign(1, search_by_passes(from, group, to, classes.class_of_instance, starts));
    hand_out(parts, classes, group, starts.size(), out);
}

}  // namespace hashtrace::critical_path
