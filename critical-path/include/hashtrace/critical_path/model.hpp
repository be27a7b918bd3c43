// hashtrace/critical_path/model.hpp - the dependence model of a recorded run:
// the causality graph's hash edges plus the resource constraint that makes
// queues, program order (a thread does one thing at a time).
//
// Every sample x has constraints: its hash inputs (edges y -> x of the graph)
// and its thread predecessor p (the previous sample of its node instance and
// thread). A sample with no hash input was started by something outside the
// trace (a timer, a device): its own recorded time is a constraint too (the
// "external" one). The constraint with the latest recorded time is the one
// that determined x's time; x's own duration after it is t(x) - t(that
// constraint). For every other constraint c the model keeps the smallest
// duration its segment class ever took in the run (its floor: the hand-off
// alone, without waiting), capped at t(x) - t(c); an external sample's
// thread predecessor keeps none (the thread was idle until the tick). So the recorded run is
// reproduced exactly by
//     t(x) = max over constraints c of (t(c) + own_duration(c -> x)),
// and a change to a segment moves everything downstream of it as the
// constraints allow (whatif.hpp).
//
// A queue consumer that polls (a loop taking its inbox once per tick) shows
// a long wait on its queue edge while its thread sat idle: the wait is for
// the tick, not for the message. Such a sample (its queue edge determined it,
// and took longer than the edge's floor plus kPollingSlackNs) is taken as
// started by its tick: an external constraint at its recorded time, and the
// queue edge keeps its floor.
#pragma once

#include "hashtrace/graph/column.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hashtrace::critical_path {

using graph::SampleIndex;
inline constexpr SampleIndex kNone = 0xFFFFFFFFu;

// What a segment of a path is (docs/critical-path.md):
//   local:   a hash edge within one thread;
//   queue:   a hash edge between two threads of one node instance (an inbox,
//            a hand-over queue): its duration is the wait in that queue;
//   message: a hash edge between node instances (the network);
//   thread:  program order, the previous sample of the same thread.
enum class SegmentKind : std::uint8_t { local, queue, message, thread };
std::string_view to_string(SegmentKind kind);

inline constexpr std::int64_t kPollingSlackNs = 50'000;

// A segment class: from "node/tracepoint" -> to "node/tracepoint", of a kind.
// Labels are numbered per distinct "node/tracepoint" text (DependenceModel::labels).
struct SegmentClass {
    std::uint32_t from_label, to_label;
    SegmentKind kind;
    bool operator==(const SegmentClass&) const = default;
    std::uint64_t key() const { return (std::uint64_t{from_label} << 34) | (std::uint64_t{to_label} << 4) | std::uint64_t(kind); }
};

class DependenceModel {
public:
    // Built on `threads` threads (0: one per core).
    DependenceModel(const graph::SampleSet& samples, const graph::Graph& graph, unsigned threads = 0);

    const graph::SampleSet& samples() const { return samples_; }
    const graph::Graph& graph() const { return graph_; }

    SampleIndex thread_predecessor(SampleIndex x) const { return thread_prev_[x]; }
    SampleIndex thread_successor(SampleIndex x) const { return thread_next_[x]; }
    // x's thread across the run: (node instance, thread) as one key.
    std::uint64_t thread_key(SampleIndex x) const { return (std::uint64_t{samples_.tracepoint_of(x).instance_id} << 32) | samples_.thread[x]; }
    // The constraint that determined x's time: a sample, or kNone when x was
    // started from outside the trace (no hash input, or a polling consumer).
    SampleIndex determined_by(SampleIndex x) const { return determined_by_[x]; }
    bool external(SampleIndex x) const { return determined_by_[x] == kNone; }

    // x's own duration after constraint y (see above), in ns.
    std::int64_t own_duration(SampleIndex y, SampleIndex x, SegmentKind kind) const { return own_duration(y, x, kind, class_index(y, x, kind)); }
    // The same, given the constraint's class (class_index(y, x, kind)).
    std::int64_t own_duration(SampleIndex y, SampleIndex x, SegmentKind kind, std::uint32_t segment_class) const {
        const std::int64_t recorded = std::max<std::int64_t>(0, graph::elapsed_ns(samples_.time_ns[y], samples_.time_ns[x]));
        if (determined_by_[x] == y) return recorded;
        // A sample started from outside waited for that, not for its thread: a
        // loop that overran its tick starts the next iteration at once (the
        // floor of that gap would be its shortest sleep).
        if (kind == SegmentKind::thread && external(x)) return 0;
        return std::min(recorded, floors_[segment_class]);
    }

    // The segment classes that occur in the run, numbered (dense, for
    // tables indexed by class); class_index of a constraint of the run.
    const std::vector<SegmentClass>& classes() const { return classes_; }
    std::uint32_t class_index(SampleIndex y, SampleIndex x, SegmentKind kind) const {
        return class_index_of(samples_.tracepoint[y], samples_.tracepoint[x], kind);
    }

    std::uint32_t label_of(SampleIndex x) const { return label_of_tracepoint_[samples_.tracepoint[x]]; }
    const std::vector<std::string>& labels() const { return labels_; }
    std::uint32_t label_of_tracepoint(graph::TracepointId t) const { return label_of_tracepoint_[t]; }

    // Calls f(y, kind) for every constraint of x that is a sample: hash
    // inputs, then the thread predecessor unless it is also a hash input.
    template <typename F> void for_each_constraint(SampleIndex x, F&& f) const;
    // Calls f(x, kind) for every sample x that y is a constraint of: hash
    // outputs, then the thread successor unless it is also one of them.
    template <typename F> void for_each_dependent(SampleIndex y, F&& f) const;
    // The kind of hash edge e of the graph (its index in graph().edges).
    SegmentKind kind_of_edge(std::uint32_t e) const { return edge_kind_[e]; }

private:
    SegmentKind kind_of_hash_edge(SampleIndex y, SampleIndex x) const;  // read once per edge into edge_kind_
    std::uint32_t class_index_of(graph::TracepointId from, graph::TracepointId to, SegmentKind kind) const {
        const std::uint64_t key = (std::uint64_t{from} * samples_.tracepoints.size() + to) * 4 + std::uint64_t(kind);
        if (!dense_index_.empty()) return dense_index_[key];
        const auto it = sparse_index_.find(key);
        return it == sparse_index_.end() ? kNone : it->second;
    }
    std::uint32_t add_class(graph::TracepointId from, graph::TracepointId to, SegmentKind kind);
    void link_threads(unsigned threads);
    void find_floors_and_determining(unsigned threads);

    const graph::SampleSet& samples_;
    const graph::Graph& graph_;
    std::vector<std::string> labels_;
    std::vector<std::uint32_t> label_of_tracepoint_;
    // Per sample and per edge: the run's size, on the columns' page pool.
    graph::Column<SampleIndex> thread_prev_, thread_next_, determined_by_;
    graph::Column<SegmentKind> edge_kind_;  // per edge of the graph
    // Class of each (from tracepoint, to tracepoint, kind): a table when
    // the run has at most kDenseTracepoints tracepoints, a hash map beyond.
    static constexpr std::size_t kDenseTracepoints = 256;
    std::vector<std::uint32_t> dense_index_;
    std::unordered_map<std::uint64_t, std::uint32_t> sparse_index_;
    std::unordered_map<std::uint64_t, std::uint32_t> class_of_key_;  // SegmentClass::key() -> index
    std::vector<SegmentClass> classes_;
    std::vector<std::int64_t> floors_;  // per class
};

template <typename F> void DependenceModel::for_each_constraint(SampleIndex x, F&& f) const {
    const SampleIndex p = thread_prev_[x];
    bool p_is_input = false;
    for (std::uint32_t i = graph_.in_offset[x], end = graph_.in_offset[x + 1]; i < end; ++i) {
        const std::uint32_t e = graph_.in_edges[i];
        const SampleIndex y = graph_.edges[e].from;
        p_is_input |= y == p;
        f(y, edge_kind_[e]);
    }
    if (p != kNone && !p_is_input) f(p, SegmentKind::thread);
}

template <typename F> void DependenceModel::for_each_dependent(SampleIndex y, F&& f) const {
    const SampleIndex next = thread_next_[y];
    bool next_is_output = false;
    for (std::uint32_t e = graph_.out_offset[y], end = graph_.out_offset[y + 1]; e < end; ++e) {
        const SampleIndex x = graph_.edges[e].to;
        next_is_output |= x == next;
        f(x, edge_kind_[e]);
    }
    if (next != kNone && !next_is_output) f(next, SegmentKind::thread);
}

}  // namespace hashtrace::critical_path
