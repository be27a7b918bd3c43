#include "hashtrace/critical_path/instances.hpp"

#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/reach.hpp"

#include <algorithm>
#include <optional>

namespace hashtrace::critpath {

using metrics::detail::TracepointSet;
constexpr graph::SampleIndex kNoSample = 0xFFFFFFFFu;

// Kept across intervals: each worker's search scratch (its marks the size of
// the run), and the fallback passes with the run's tracepoint graph (made on
// first use).
struct InstanceFinder::Passes {
    std::vector<metrics::detail::SearchScratch> scratch;  // per worker
    std::optional<metrics::detail::TracepointGraph> tracepoints;
    std::optional<metrics::detail::EarliestReach> reach;
};

InstanceFinder::InstanceFinder(const graph::SampleSet& samples, const graph::Graph& graph, unsigned threads)
    : samples_(samples), graph_(graph), threads_(parallel::thread_count(threads)), passes_(std::make_unique<Passes>()) {
    // The forward searches are exact unless some edge runs back in time.
    const std::size_t chunks = 4 * std::size_t{threads_};
    std::vector<std::uint8_t> backward(chunks, 0);
    parallel::for_each(chunks, threads_, [&](std::size_t c, unsigned) {
        for (std::size_t e = graph.edges.size() * c / chunks, end = graph.edges.size() * (c + 1) / chunks; e < end && !backward[c]; ++e)
            backward[c] = samples.time_ns[graph.edges[e].from] > samples.time_ns[graph.edges[e].to];
    });
    runs_backward_in_time_ = std::find(backward.begin(), backward.end(), 1) != backward.end();
    // Each tracepoint's samples in order (a counting sort): an interval's
    // starts are then gathered without a scan of the run per interval.
    first_of_tracepoint_.assign(samples.tracepoints.size() + 1, 0);
    for (const graph::TracepointId t : samples.tracepoint) ++first_of_tracepoint_[t + 1];
    for (std::size_t t = 0; t < samples.tracepoints.size(); ++t) first_of_tracepoint_[t + 1] += first_of_tracepoint_[t];
    by_tracepoint_.resize(samples.size());
    std::vector<std::uint32_t> next(first_of_tracepoint_.begin(), first_of_tracepoint_.end() - 1);
    for (graph::SampleIndex v = 0; v < samples.size(); ++v) by_tracepoint_[next[samples.tracepoint[v]]++] = v;
}
InstanceFinder::~InstanceFinder() = default;

namespace {

// The searches of a chunk of the starts into `found`; false where they
// visited more than `budget` samples (beyond that the passes are cheaper).
bool search_chunk(const graph::SampleSet& s, const graph::Graph& g, std::span<const graph::SampleIndex> starts,
                  const metrics::detail::TargetClasses& classes, std::size_t budget, metrics::detail::SearchScratch& scratch,
                  std::vector<metrics::detail::Reached>& found) {
    found.clear();
    found.reserve(starts.size() * classes.count);
    return metrics::detail::search_earliest(s, g, starts, classes, budget, scratch, metrics::detail::AppendReached{found});
}

}  // namespace

IntervalInstances InstanceFinder::find(const graph::IntervalSpec& interval) {
    const graph::SampleSet& s = samples_;
    TracepointSet from(s.tracepoints.size()), to(s.tracepoints.size());
    // One class per node instance of the `to` tracepoints, in instance order (as analyze).
    std::vector<std::uint32_t> class_of_instance(s.instances.size(), metrics::detail::kNoClass);
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t) {
        const auto& tp = s.tracepoints[t];
        from[t] = interval.from.matches(tp.node_name, tp.tracepoint_name);
        to[t] = interval.to.matches(tp.node_name, tp.tracepoint_name);
        if (to[t]) class_of_instance[tp.instance_id] = 0;
    }
    std::uint32_t class_count = 0;
    for (auto& c : class_of_instance)
        if (c == 0) c = class_count++;
    std::vector<std::vector<std::uint32_t>> classes_of_tracepoint(s.tracepoints.size());
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t)
        if (to[t]) classes_of_tracepoint[t] = {class_of_instance[s.tracepoints[t].instance_id]};
    const auto classes = metrics::detail::TargetClasses::from_lists(classes_of_tracepoint, class_count);

    std::vector<graph::SampleIndex> starts;
    for (std::size_t t = 0; t < s.tracepoints.size(); ++t)
        if (from[t]) starts.insert(starts.end(), samples_of_tracepoint(t).begin(), samples_of_tracepoint(t).end());
    std::sort(starts.begin(), starts.end());

    // Forward searches from the starts, a chunk per task, as analyze
    // answers its intervals; exact unless an edge runs back in time.
    bool searched = !runs_backward_in_time_;
    std::vector<std::vector<metrics::detail::Reached>> parts;
    if (searched) {
        const std::size_t chunks = std::min<std::size_t>(4 * threads_, std::max<std::size_t>(1, starts.size() / 4096));
        // analyze's budget (two passes' worth of visits), each chunk its share.
        const std::size_t budget = std::max<std::size_t>(2 * s.size(), 1u << 16);
        parts.resize(chunks);
        std::vector<std::uint8_t> complete(chunks);
        if (passes_->scratch.size() < threads_) passes_->scratch.resize(threads_);
        parallel::for_each(chunks, threads_, [&](std::size_t c, unsigned worker) {
            const std::size_t begin = starts.size() * c / chunks, end = starts.size() * (c + 1) / chunks;
            complete[c] = search_chunk(s, graph_, std::span(starts).subspan(begin, end - begin), classes,
                                       budget * (end - begin) / std::max<std::size_t>(starts.size(), 1) + 1, passes_->scratch[worker], parts[c]);
        });
        searched = std::all_of(complete.begin(), complete.end(), [](std::uint8_t c) { return c != 0; });
    }
    if (!searched) {
        // The exact passes: one per class, merged into (start, class) order.
        parts.assign(1, {});
        auto& reached = parts[0];
        if (!passes_->reach) {
            passes_->tracepoints.emplace(s, graph_);
            passes_->reach.emplace(s, graph_, *passes_->tracepoints);
        }
        for (std::uint32_t instance = 0; instance < s.instances.size(); ++instance) {
            if (class_of_instance[instance] == metrics::detail::kNoClass) continue;
            TracepointSet to_here(s.tracepoints.size());
            for (std::size_t t = 0; t < s.tracepoints.size(); ++t) to_here[t] = to[t] && s.tracepoints[t].instance_id == instance;
            passes_->reach->run(from, to_here);
            for (const graph::SampleIndex v : starts)
                if (const graph::SampleIndex target = passes_->reach->earliest(v); target != metrics::detail::kUnreached)
                    reached.push_back({v, class_of_instance[instance], target});
        }
        std::stable_sort(reached.begin(), reached.end(), [](const auto& a, const auto& b) { return a.from < b.from; });
    }

    IntervalInstances out;
    std::size_t total = 0;
    for (const auto& part : parts) total += part.size();
    out.list.reserve(total);
    std::uint64_t reaching = 0;
    graph::SampleIndex previous = kNoSample;
    for (const auto& part : parts)
        for (const auto& x : part) {
            out.list.push_back({x.from, x.to});
            reaching += x.from != previous;
            previous = x.from;
        }
    out.unreached_starts = starts.size() - reaching;
    return out;
}

}  // namespace hashtrace::critpath
