// hashtrace/metrics/reach.hpp - earliest reachable target samples, for every sample at once.
//
// Intervals (M4/M5) and the node latency matrix both ask "from sample v,
// following edges downstream, what is the earliest sample of target set T?".
// Walking from each start sample is quadratic when loop-counter chains make
// the rest of the run reachable; instead one backward pass over the samples
// computes the answer for all of them (dynamic programming over the DAG):
//   best[v] = min over edges v->c of min(c if c is in T, best[c]).
// Samples are in time order, so "earliest" is the smallest index, and edges
// almost always go to larger indices; the few that do not (equal times,
// tolerated clock error) are handled by repeating the pass until nothing changes.
//
// Most questions are answered faster by searching forward from each start
// (search_earliest below): the earliest target is usually a few hops and a
// few milliseconds away. The pass is the fallback where that search would not
// be exact (backward edges) or would wander too far (a target class that loop
// chains never reach).
//
// A pass only computes the samples that can matter: those whose tracepoint
// lies, in the tracepoint graph, downstream of a start tracepoint and upstream
// of a target one. An interval like "Bullet receipt to processed" then touches
// the Bullet receipts only, not the millions of samples around them.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hashtrace::metrics {

inline constexpr graph::SampleIndex kUnreached = 0xFFFFFFFFu;

// A set of tracepoints, indexed by TracepointId.
using TracepointSet = std::vector<bool>;

// Which tracepoints have an edge between their samples: the graph of the
// run's tracepoints (tens to thousands of nodes), computed with a pass over
// the edges where the EarliestReach passes need it.
class TracepointGraph {
public:
    TracepointGraph(const graph::SampleSet& samples, const graph::Graph& graph);

    // Tracepoints whose samples may lie on a path from a `from` sample to a
    // `to` sample: reachable from `from` (or in it), and with a path of at
    // least one edge to `to`.
    std::vector<std::uint8_t> between(const TracepointSet& from, const TracepointSet& to) const;
    // Some edge does not go to a larger sample index.
    bool has_backward_edges() const noexcept { return backward_edges_; }
    // Some edge goes to an earlier time (a tolerated clock error).
    bool runs_backward_in_time() const noexcept { return backward_in_time_; }

private:
    std::vector<std::vector<graph::TracepointId>> successors_, predecessors_;
    bool backward_edges_ = false;
    bool backward_in_time_ = false;
};

class EarliestReach {
public:
    EarliestReach(const graph::SampleSet& samples, const graph::Graph& graph, const TracepointGraph& tracepoints);

    // Computes, for every sample downstream of a `from` tracepoint, the
    // earliest reachable sample of a `to` tracepoint; read with earliest().
    void run(const TracepointSet& from, const TracepointSet& to);
    graph::SampleIndex earliest(graph::SampleIndex v) const { return best_[v]; }

private:
    const graph::SampleSet& samples_;
    const graph::Graph& graph_;
    const TracepointGraph& tracepoints_;
    std::vector<graph::SampleIndex> best_;
};

// Target samples grouped into classes (node instances for intervals, nodes
// for the matrix): the search reports the earliest sample of each class. A
// tracepoint may be in several classes (intervals that share their start
// samples are answered by one search).
inline constexpr std::uint32_t kNoClass = 0xFFFFFFFFu;
struct TargetClasses {
    std::vector<std::uint32_t> first;  // classes of tracepoint t: ids[first[t] .. first[t+1])
    std::vector<std::uint32_t> ids;
    std::uint32_t count = 0;
    bool skip_start_class = false;  // ignore the (first) class of the start sample's own tracepoint (matrix: X != Y)
    // The same as bits, 64 classes a word (a search takes one word at a
    // time): word w of tracepoint t is words[w * tracepoints + t]; the
    // class a start of tracepoint t skips likewise in skipped.
    std::vector<std::uint64_t> words, skipped;

    std::span<const std::uint32_t> of(graph::TracepointId t) const { return {ids.data() + first[t], ids.data() + first[t + 1]}; }
    std::size_t word_count() const { return (count + 63) / 64; }
    // From a list of classes per tracepoint.
    static TargetClasses from_lists(const std::vector<std::vector<std::uint32_t>>& per_tracepoint, std::uint32_t count,
                                    bool skip_start_class = false);
};

struct Reached {
    graph::SampleIndex from;
    std::uint32_t target_class;
    graph::SampleIndex to;  // the earliest sample of the class
};

// Where the searches' answers go, one call per (start, class, earliest
// sample), in start then class order. As they are (the matrix, the
// critical path's interval instances):
struct AppendReached {
    std::vector<Reached>& out;
    void operator()(graph::SampleIndex from, std::uint32_t target_class, graph::SampleIndex to) const { out.push_back({from, target_class, to}); }
};
// Latencies appended to room laid out for all they can be.
struct LatencyBlock {
    double* data = nullptr;
    std::size_t size = 0;
    std::int64_t* from_ns = nullptr;  // beside each latency its `from` sample's time, when kept (time shards bin them)
    void push_back(double x, std::int64_t from_time_ns) {
        data[size] = x;
        if (from_ns) from_ns[size] = from_time_ns;
        ++size;
    }
};
// Or as latencies in ms, each to the block of its class's part of the
// question (the intervals), with no list of answers between the search and
// the blocks.
struct AppendLatency {
    LatencyBlock* blocks;                 // per part
    const std::uint32_t* part_of_class;   // per class
    const std::int64_t* time_ns;          // of every sample
    void operator()(graph::SampleIndex from, std::uint32_t target_class, graph::SampleIndex to) const {
        blocks[part_of_class[target_class]].push_back(double(graph::elapsed_ns(time_ns[from], time_ns[to])) / 1e6, time_ns[from]);
    }
};

// Reused across searches: visited marks (one bit per sample, so they stay
// in cache; all clear between searches: each search clears the marks it set,
// through the list of marked samples, so a call costs nothing per sample),
// the frontier, and the answers of a question of several words of classes.
struct SearchScratch {
    std::vector<std::uint64_t> visited;
    std::vector<graph::SampleIndex> marked;
    std::vector<graph::SampleIndex> frontier;
    std::vector<Reached> by_word;
};

// For each start (ascending), the earliest reachable sample of each class,
// given to `sink` (AppendReached or AppendLatency) as (start, class,
// earliest sample) in start then class order: a best-first search in time order per
// start and word of 64 classes, which stops once every class of the word is
// found. Exact only when no edge goes back in time (the caller checks that
// none does: measure_edges tells). False once the searches have visited
// more than `budget` samples (counted down across calls); the caller then
// runs EarliestReach passes, and `sink` has had a part of the answer.
template <typename Sink>
bool search_earliest(const graph::SampleSet& samples, const graph::Graph& graph, std::span<const graph::SampleIndex> starts,
                     const TargetClasses& classes, std::size_t& budget, SearchScratch& scratch, Sink sink);

}  // namespace hashtrace::metrics
