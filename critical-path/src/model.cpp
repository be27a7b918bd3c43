#include "hashtrace/critical_path/model.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace hashtrace::critical_path {

std::string_view to_string(SegmentKind kind) {
    switch (kind) {
        case SegmentKind::local: return "local";
        case SegmentKind::queue: return "queue";
        case SegmentKind::message: return "message";
        case SegmentKind::thread: return "thread";
    }
    return "?";
}

namespace {

// The least duration per (from tracepoint, to tracepoint, kind) key seen
// by one chunk: a table where the keys are few enough, a map beyond.
class LeastPerKey {
public:
    LeastPerKey(std::size_t keys, bool dense) {
        if (dense) table_.assign(keys, kNever);
    }
    void add(std::uint64_t key, std::int64_t d) {
        if (!table_.empty()) table_[key] = std::min(table_[key], d);
        else if (auto [it, added] = map_.try_emplace(key, d); !added) it->second = std::min(it->second, d);
    }
    template <typename F> void for_each(F&& f) const {
        for (std::size_t key = 0; key < table_.size(); ++key)
            if (table_[key] != kNever) f(std::uint64_t(key), table_[key]);
        for (const auto& [key, d] : map_) f(key, d);
    }

private:
    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
    std::vector<std::int64_t> table_;
    std::unordered_map<std::uint64_t, std::int64_t> map_;
};

// The first and last sample of each thread a chunk has seen, by (node
// instance, thread): open addressing in a table that stays small (a run has
// tens of threads) and is probed once per sample, where a node-based map
// cost a cache miss and a hash of its own each time.
class ThreadEnds {
public:
    struct Entry {
        std::uint64_t key;
        SampleIndex first, last;
    };
    Entry& of(std::uint64_t key) {
        if (2 * (used_ + 1) > slots_.size()) grow();
        Entry& e = find(slots_, key);
        if (e.key == kEmpty) {
            e = {key, kNone, kNone};
            ++used_;
        }
        return e;
    }
    template <typename F> void for_each(F&& f) const {
        for (const Entry& e : slots_)
            if (e.key != kEmpty) f(e);
    }

private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // no instance has id 2^32 - 1
    static Entry& find(std::vector<Entry>& slots, std::uint64_t key) {
        const std::size_t mask = slots.size() - 1;
        std::size_t i = (key * 0x9E3779B97F4A7C15u) >> 40 & mask;
        while (slots[i].key != key && slots[i].key != kEmpty) i = (i + 1) & mask;
        return slots[i];
    }
    void grow() {
        std::vector<Entry> bigger(std::max<std::size_t>(64, 2 * slots_.size()), Entry{kEmpty, kNone, kNone});
        for (const Entry& e : slots_)
            if (e.key != kEmpty) find(bigger, e.key) = e;
        slots_ = std::move(bigger);
    }
    std::vector<Entry> slots_;
    std::size_t used_ = 0;
};

}  // namespace

DependenceModel::DependenceModel(const graph::SampleSet& samples, const graph::Graph& graph, unsigned threads)
    : samples_(samples), graph_(graph), label_of_tracepoint_(samples.tracepoints.size()) {
    std::unordered_map<std::string, std::uint32_t> label_ids;
    for (std::size_t t = 0; t < samples.tracepoints.size(); ++t) {
        const auto& tp = samples.tracepoints[t];
        auto [it, added] = label_ids.try_emplace(tp.node_name + "/" + tp.tracepoint_name, std::uint32_t(labels_.size()));
        if (added) labels_.push_back(it->first);
        label_of_tracepoint_[t] = it->second;
    }
    threads = graph::parallel::thread_count(threads);
    link_threads(threads);
    find_floors_and_determining(threads);
}

// Program order: the previous sample of the same (node instance, thread).
// Each chunk links its own samples; the chunks' ends are then joined in order.
void DependenceModel::link_threads(unsigned threads) {
    const std::size_t n = samples_.size();
    thread_prev_.resize(n);  // every entry is written below
    thread_next_.resize(n);
    // thread_key(x), its node instance's half read from a table per tracepoint in this loop over every sample.
    std::vector<std::uint64_t> instance_of(samples_.tracepoints.size());
    for (std::size_t t = 0; t < instance_of.size(); ++t) instance_of[t] = std::uint64_t{samples_.tracepoints[t].instance_id} << 32;
    std::vector<ThreadEnds> ends(threads);
    graph::parallel::for_each(threads, threads, [&](std::size_t c, unsigned) {
        const auto [begin, end] = graph::parallel::chunk<SampleIndex>(n, c, threads);
        for (SampleIndex x = begin; x < end; ++x) {
            ThreadEnds::Entry& e = ends[c].of(instance_of[samples_.tracepoint[x]] | samples_.thread[x]);
            thread_prev_[x] = e.last;
            if (e.last == kNone) e.first = x;
            else thread_next_[e.last] = x;
            e.last = x;
        }
        ends[c].for_each([&](const ThreadEnds::Entry& e) { thread_next_[e.last] = kNone; });
    });
    ThreadEnds last_of_thread;
    for (const ThreadEnds& chunk : ends)
        chunk.for_each([&](const ThreadEnds::Entry& e) {
            ThreadEnds::Entry& joined = last_of_thread.of(e.key);
            if (joined.last != kNone) {
                thread_prev_[e.first] = joined.last;
                thread_next_[joined.last] = e.first;
            }
            joined.last = e.last;
        });
}

// In one pass over the constraints: the classes and their floors (the
// shortest duration each took anywhere), and which constraint determined
// each sample's time (the latest; ties go to the later sample, in file order
// for equal times). A sample determined by a queue input that waited longer
// than the floor of its class plus kPollingSlackNs is a polling take,
// started by its tick: told once the floors are known.
void DependenceModel::find_floors_and_determining(unsigned threads) {
    const std::size_t n = samples_.size();
    const auto& time = samples_.time_ns;
    const std::size_t tracepoints = samples_.tracepoints.size();
    const bool dense = tracepoints <= kDenseTracepoints;
    const std::size_t keys = tracepoints * tracepoints * 4;
    if (dense) dense_index_.assign(keys, kNone);
    determined_by_.resize(n);  // every entry is written below
    // The kind of every hash edge, read on every walk over the model: found
    // here, as each sample's inputs are, each edge by the chunk of its `to`.
    edge_kind_.resize(graph_.edges.size());
    std::vector<LeastPerKey> least;
    for (unsigned c = 0; c < threads; ++c) least.emplace_back(keys, dense);
    std::vector<std::vector<SampleIndex>> by_queue(threads);  // samples a queue input determined, per chunk
    graph::parallel::for_each(threads, threads, [&](std::size_t c, unsigned) {
        const auto [begin, end] = graph::parallel::chunk<SampleIndex>(n, c, threads);
        for (SampleIndex x = begin; x < end; ++x) {
            for (std::uint32_t i = graph_.in_offset[x]; i < graph_.in_offset[x + 1]; ++i)
                edge_kind_[graph_.in_edges[i]] = kind_of_hash_edge(graph_.edges[graph_.in_edges[i]].from, x);
            SampleIndex latest = kNone;
            SegmentKind latest_kind = SegmentKind::thread;
            for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
                const std::uint64_t key = (std::uint64_t{samples_.tracepoint[y]} * tracepoints + samples_.tracepoint[x]) * 4 + std::uint64_t(kind);
                least[c].add(key, std::max<std::int64_t>(0, graph::elapsed_ns(time[y], time[x])));
                if (latest == kNone || time[y] > time[latest] || (time[y] == time[latest] && y > latest)) {
                    latest = y;
                    latest_kind = kind;
                }
            });
            determined_by_[x] = graph_.in_degree(x) == 0 ? kNone : latest;  // none: started from outside the trace
            if (latest_kind == SegmentKind::queue) by_queue[c].push_back(x);  // a hash input, so never of those
        }
    });
    for (const LeastPerKey& chunk : least)
        chunk.for_each([&](std::uint64_t key, std::int64_t d) {
            const auto from = graph::TracepointId(key / 4 / tracepoints), to = graph::TracepointId(key / 4 % tracepoints);
            const auto kind = SegmentKind(key % 4);
            std::uint32_t c = class_index_of(from, to, kind);
            if (c == kNone) c = add_class(from, to, kind);
            floors_[c] = std::min(floors_[c], d);
        });
    for (const auto& chunk : by_queue)
        for (const SampleIndex x : chunk) {
            const SampleIndex y = determined_by_[x];
            if (graph::elapsed_ns(time[y], time[x]) > floors_[class_index(y, x, SegmentKind::queue)] + kPollingSlackNs)
                determined_by_[x] = kNone;  // a polling consumer: its tick started it
        }
}

std::uint32_t DependenceModel::add_class(graph::TracepointId from, graph::TracepointId to, SegmentKind kind) {
    const SegmentClass c{label_of_tracepoint_[from], label_of_tracepoint_[to], kind};
    auto [it, added] = class_of_key_.try_emplace(c.key(), std::uint32_t(classes_.size()));
    if (added) {
        classes_.push_back(c);
        floors_.push_back(std::numeric_limits<std::int64_t>::max());
    }
    const std::uint64_t key = (std::uint64_t{from} * samples_.tracepoints.size() + to) * 4 + std::uint64_t(kind);
    if (!dense_index_.empty()) dense_index_[key] = it->second;
    else sparse_index_.emplace(key, it->second);
    return it->second;
}

SegmentKind DependenceModel::kind_of_hash_edge(SampleIndex y, SampleIndex x) const {
    const auto& a = samples_.tracepoint_of(y);
    const auto& b = samples_.tracepoint_of(x);
    if (a.instance_id != b.instance_id) return SegmentKind::message;
    return samples_.thread[y] == samples_.thread[x] ? SegmentKind::local : SegmentKind::queue;
}

}  // namespace hashtrace::critical_path
