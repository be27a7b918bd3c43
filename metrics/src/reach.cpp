#include "hashtrace/metrics/reach.hpp"

#include "frontier.hpp"

#include <algorithm>
#include <bit>

namespace hashtrace::metrics {

using detail::Frontier;  // the search's queue (frontier.hpp)
namespace {

// Tracepoints reachable from `seeds` through `next` (the seeds included only
// where some path leads back to them).
std::vector<std::uint8_t> closure(const std::vector<std::vector<graph::TracepointId>>& next, const TracepointSet& seeds) {
    std::vector<std::uint8_t> reached(next.size(), 0);
    std::vector<graph::TracepointId> stack;
    for (graph::TracepointId t = 0; t < seeds.size(); ++t)
        if (seeds[t]) stack.push_back(t);
    while (!stack.empty()) {
        const graph::TracepointId t = stack.back();
        stack.pop_back();
        for (graph::TracepointId u : next[t])
            if (!reached[u]) {
                reached[u] = 1;
                stack.push_back(u);
            }
    }
    return reached;
}

// All visited marks clear again, through the list of marked samples.
void clear_marks(SearchScratch& scratch) {
    for (graph::SampleIndex u : scratch.marked) scratch.visited[u / 64] = 0;
    scratch.marked.clear();
}

}  // namespace

TracepointGraph::TracepointGraph(const graph::SampleSet& s, const graph::Graph& g)
    : successors_(s.tracepoints.size()), predecessors_(s.tracepoints.size()) {
    // The distinct tracepoint pairs of the edges. Consecutive edges mostly
    // repeat a few pairs: a small direct-mapped filter keeps the list short
    // before it is sorted.
    const std::uint64_t tracepoints = s.tracepoints.size();
    constexpr std::size_t kFilter = 4096;  // the hash's top 12 bits
    std::vector<std::uint64_t> filter(kFilter, ~std::uint64_t{0}), pairs;
    for (const graph::Edge& e : g.edges) {
        const std::uint64_t key = s.tracepoint[e.from] * tracepoints + s.tracepoint[e.to];
        std::uint64_t& slot = filter[(key * 0x9E3779B97F4A7C15ull) >> 52];
        if (slot != key) {
            slot = key;
            pairs.push_back(key);
        }
        backward_edges_ |= e.from >= e.to;
        backward_in_time_ |= s.time_ns[e.from] > s.time_ns[e.to];
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    for (std::uint64_t key : pairs) {
        const auto from = static_cast<graph::TracepointId>(key / tracepoints), to = static_cast<graph::TracepointId>(key % tracepoints);
        successors_[from].push_back(to);
        predecessors_[to].push_back(from);
    }
}

std::vector<std::uint8_t> TracepointGraph::between(const TracepointSet& from, const TracepointSet& to) const {
    std::vector<std::uint8_t> downstream = closure(successors_, from);
    const std::vector<std::uint8_t> upstream = closure(predecessors_, to);
    for (std::size_t t = 0; t < downstream.size(); ++t) downstream[t] = (downstream[t] || from[t]) && upstream[t];
    return downstream;
}

EarliestReach::EarliestReach(const graph::SampleSet& samples, const graph::Graph& graph, const TracepointGraph& tracepoints)
    : samples_(samples), graph_(graph), tracepoints_(tracepoints) {}

void EarliestReach::run(const TracepointSet& from, const TracepointSet& to) {
    const std::vector<std::uint8_t> relevant = tracepoints_.between(from, to);
    const std::vector<std::uint8_t> target(to.begin(), to.end());
    const std::size_t n = samples_.size();
    best_.assign(n, kUnreached);  // samples outside `relevant` reach no target, or are never asked
    if (std::find(relevant.begin(), relevant.end(), 1) == relevant.end()) return;
    const graph::TracepointId* tracepoint = samples_.tracepoint.data();
    const std::uint32_t* offset = graph_.out_offset.data();
    const graph::Edge* edges = graph_.edges.data();
    graph::SampleIndex* best = best_.data();
    // Without backward edges one pass in reverse index order is exact.
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t v = n; v-- > 0;) {
            if (!relevant[tracepoint[v]]) continue;
            graph::SampleIndex mine = best[v];
            for (std::uint32_t e = offset[v], end = offset[v + 1]; e < end; ++e) {
                const graph::SampleIndex c = edges[e].to;
                mine = std::min({mine, target[tracepoint[c]] ? c : kUnreached, best[c]});
            }
            changed |= mine != best[v];
            best[v] = mine;
        }
        changed &= tracepoints_.has_backward_edges();
    }
}

TargetClasses TargetClasses::from_lists(const std::vector<std::vector<std::uint32_t>>& per_tracepoint, std::uint32_t count,
                                        bool skip_start_class) {
    TargetClasses c;
    c.count = count;
    c.skip_start_class = skip_start_class;
    c.first.push_back(0);
    for (const auto& list : per_tracepoint) {
        c.ids.insert(c.ids.end(), list.begin(), list.end());
        c.first.push_back(static_cast<std::uint32_t>(c.ids.size()));
    }
    const std::size_t tracepoints = per_tracepoint.size();
    auto bit = [&](std::vector<std::uint64_t>& words, std::size_t t, std::uint32_t id) { words[id / 64 * tracepoints + t] |= std::uint64_t{1} << (id % 64); };
    c.words.assign(c.word_count() * tracepoints, 0);
    c.skipped.assign(c.word_count() * tracepoints, 0);
    for (std::size_t t = 0; t < tracepoints; ++t) {
        for (const std::uint32_t id : per_tracepoint[t]) bit(c.words, t, id);
        if (skip_start_class && !per_tracepoint[t].empty()) bit(c.skipped, t, per_tracepoint[t].front());
    }
    return c;
}

namespace {

// The searches of search_earliest for word w of the classes: the columns
// they read and the word's classes, one start at a time.
struct WordSearch {
    const graph::TracepointId* tracepoint;
    const std::uint32_t* out_offset;
    const std::uint32_t* in_offset;
    const graph::Edge* edges;
    std::uint64_t* visited;
    const std::uint64_t* classes_of;  // per tracepoint, the word's classes its samples are of
    const std::uint64_t* skipped_by;  // per tracepoint, its start class (not reported)
    std::uint32_t first_class;
    std::uint64_t all;  // the word's classes
    SearchScratch& scratch;

    WordSearch(const graph::SampleSet& samples, const graph::Graph& graph, const TargetClasses& classes, std::size_t w,
               SearchScratch& scratch_)
        : tracepoint(samples.tracepoint.data()), out_offset(graph.out_offset.data()), in_offset(graph.in_offset.data()),
          edges(graph.edges.data()), visited(scratch_.visited.data()), classes_of(classes.words.data() + w * (classes.first.size() - 1)),
          skipped_by(classes.skipped.data() + w * (classes.first.size() - 1)), first_class(static_cast<std::uint32_t>(64 * w)),
          scratch(scratch_) {
        const std::uint32_t in_word = std::min<std::uint32_t>(64, classes.count - first_class);
        all = in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
    }

    // The search from start v: adds the classes found to `found` (which
    // holds the start's own class) and, for each new one, where it was
    // found to `earliest`. False when the budget in `left` ran out.
    // Inlined: it is the body of the loop over the starts.
    [[gnu::always_inline]] bool from(graph::SampleIndex v, std::uint64_t& found, graph::SampleIndex (&earliest)[64], std::size_t& left) const {
        const std::uint32_t first_edge = out_offset[v], end_edge = out_offset[v + 1];
        if (first_edge == end_edge || found == all) return true;
        // Times never decrease along a path, so samples are popped in time
        // order (smallest index first, the samples being in time order) and
        // the first sample popped of a class is at its earliest time: the
        // search ends as soon as every class is found. (Samples of equal
        // time can come out of index order, where an edge goes to a smaller
        // index at the same time; the sample reported may then be another of
        // the same time, at the same latency.)
        auto classify = [&](graph::SampleIndex u) {
            const std::uint64_t of_u = classes_of[tracepoint[u]];
            for (std::uint64_t fresh = of_u & ~found; fresh != 0; fresh &= fresh - 1) earliest[std::countr_zero(fresh)] = u;
            found |= of_u;
            return found == all;
        };
        // The first sample popped is the start's earliest successor. Where
        // it completes the answer (an interval to the next step, as a
        // receipt to its processing), no marks or frontier are needed.
        graph::SampleIndex first = edges[first_edge].to;
        for (std::uint32_t e = first_edge + 1; e < end_edge; ++e) first = std::min(first, edges[e].to);
        if (left-- == 0) return false;
        if (classify(first)) return true;
        // A sample with one incoming edge is reached only from the one
        // sample before it, which is expanded once: it needs no mark.
        // The start is marked when reached again (edges between samples
        // of equal time can close a cycle), so that it is expanded at
        // most twice.
        auto newly_reached = [&](graph::SampleIndex c) {
            if (c != v && in_offset[c + 1] - in_offset[c] <= 1) return true;
            std::uint64_t& word = visited[c / 64];
            const std::uint64_t bit = std::uint64_t{1} << (c % 64);
            if (word & bit) return false;
            word |= bit;
            scratch.marked.push_back(c);
            return true;
        };
        // The start's other successors wait; `first` is expanded next.
        Frontier frontier(scratch.frontier);
        for (std::uint32_t e = first_edge; e < end_edge; ++e)
            if (const graph::SampleIndex c = edges[e].to; newly_reached(c) && c != first) frontier.push(c);
        for (graph::SampleIndex u = first;;) {
            for (std::uint32_t e = out_offset[u], end = out_offset[u + 1]; e < end; ++e)
                if (const graph::SampleIndex c = edges[e].to; newly_reached(c)) frontier.push(c);
            if (frontier.empty()) break;
            u = frontier.pop();
            if (left-- == 0) return false;
            if (classify(u)) break;
        }
        clear_marks(scratch);
        return true;
    }
};

// One pass of search_earliest over the starts, for word w of the classes,
// the budget counted down in `left`.
template <typename Sink>
bool search_word(const graph::SampleSet& samples, const graph::Graph& graph, std::span<const graph::SampleIndex> starts,
                 const TargetClasses& classes, std::size_t w, std::size_t& left, SearchScratch& scratch, Sink sink) {
    const WordSearch search(samples, graph, classes, w, scratch);
    graph::SampleIndex earliest[64];  // per class of the word: where it was found
    for (std::size_t i = 0; i < starts.size(); ++i) {
        // The searches touch the samples and edges right after their start:
        // fetch those of a start a few ahead while this one runs.
        constexpr std::size_t kAhead = 8;
        if (i + kAhead < starts.size()) {
            const graph::SampleIndex ahead = starts[i + kAhead];
            __builtin_prefetch(&search.out_offset[ahead]);
            __builtin_prefetch(&search.tracepoint[ahead]);
            __builtin_prefetch(&search.edges[search.out_offset[starts[i + kAhead / 2]]]);
        }
        const graph::SampleIndex v = starts[i];
        // The start's own class (the matrix's) counts as found from the start, and is not reported.
        const std::uint64_t skipped = search.skipped_by[search.tracepoint[v]];
        std::uint64_t found = skipped;
        if (!search.from(v, found, earliest, left)) return false;
        for (std::uint64_t reported = found & ~skipped; reported != 0; reported &= reported - 1) {
            const int c = std::countr_zero(reported);
            sink(v, search.first_class + static_cast<std::uint32_t>(c), earliest[c]);
        }
    }
    return true;
}

}  // namespace

template <typename Sink>
bool search_earliest(const graph::SampleSet& samples, const graph::Graph& graph, std::span<const graph::SampleIndex> starts,
                     const TargetClasses& classes, std::size_t& budget, SearchScratch& scratch, Sink sink) {
    if (classes.count == 0) return true;
    if (scratch.visited.size() != (samples.size() + 63) / 64) scratch.visited.assign((samples.size() + 63) / 64, 0);
    // The budget in a local: through the reference it would be loaded and stored on every visit.
    std::size_t left = budget;
    bool complete = true;
    if (classes.word_count() == 1) {
        complete = search_word(samples, graph, starts, classes, 0, left, scratch, sink);
    } else {
        // A pass over the starts per word of classes (the rare question of
        // more than 64), each search stopping once the word's classes are
        // all found; the words' answers, each in start order, merged into
        // start order (and so class order within a start, the words being
        // in class order).
        scratch.by_word.clear();
        for (std::size_t w = 0; w < classes.word_count() && complete; ++w)
            complete = search_word(samples, graph, starts, classes, w, left, scratch, AppendReached{scratch.by_word});
        std::stable_sort(scratch.by_word.begin(), scratch.by_word.end(), [](const Reached& a, const Reached& b) { return a.from < b.from; });
        for (const Reached& x : scratch.by_word) sink(x.from, x.target_class, x.to);
    }
    if (!complete) {
        clear_marks(scratch);
        left = 0;
    }
    budget = left;
    return complete;
}

template bool search_earliest(const graph::SampleSet&, const graph::Graph&, std::span<const graph::SampleIndex>, const TargetClasses&, std::size_t&,
                              SearchScratch&, AppendReached);
template bool search_earliest(const graph::SampleSet&, const graph::Graph&, std::span<const graph::SampleIndex>, const TargetClasses&, std::size_t&,
                              SearchScratch&, AppendLatency);

}  // namespace hashtrace::metrics
