#include "hashtrace/critical_path/model.hpp"

#include <algorithm>
#include <limits>

namespace hashtrace::critpath {

std::string_view to_string(SegmentKind kind) {
    switch (kind) {
        case SegmentKind::local: return "local";
        case SegmentKind::queue: return "queue";
        case SegmentKind::message: return "message";
        case SegmentKind::thread: return "thread";
    }
    return "?";
}

DependenceModel::DependenceModel(const graph::SampleSet& samples, const graph::Graph& graph)
    : samples_(samples), graph_(graph), label_of_tracepoint_(samples.tracepoints.size()) {
    std::unordered_map<std::string, std::uint32_t> label_ids;
    for (std::size_t t = 0; t < samples.tracepoints.size(); ++t) {
        const auto& tp = samples.tracepoints[t];
        auto [it, added] = label_ids.try_emplace(tp.node_name + "/" + tp.tracepoint_name, std::uint32_t(labels_.size()));
        if (added) labels_.push_back(it->first);
        label_of_tracepoint_[t] = it->second;
    }

    // Program order: the previous sample of the same (node instance, thread).
    const std::size_t n = samples.size();
    thread_prev_.assign(n, kNone);
    thread_next_.assign(n, kNone);
    std::unordered_map<std::uint64_t, SampleIndex> last_of_thread;
    for (SampleIndex x = 0; x < n; ++x) {
        const std::uint64_t thread_key = (std::uint64_t{samples.tracepoint_of(x).instance_id} << 32) | samples.thread[x];
        auto [it, added] = last_of_thread.try_emplace(thread_key, x);
        if (!added) {
            thread_prev_[x] = it->second;
            thread_next_[it->second] = x;
            it->second = x;
        }
    }

    // The classes, and their floors: the shortest duration each took anywhere.
    const std::size_t tracepoints = samples.tracepoints.size();
    if (tracepoints <= kDenseTracepoints) dense_index_.assign(tracepoints * tracepoints * 4, kNone);
    for (SampleIndex x = 0; x < n; ++x)
        for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            const std::int64_t d = std::max<std::int64_t>(0, graph::elapsed_ns(samples.time_ns[y], samples.time_ns[x]));
            std::uint32_t c = class_index(y, x, kind);
            if (c == kNone) c = add_class(samples.tracepoint[y], samples.tracepoint[x], kind);
            floors_[c] = std::min(floors_[c], d);
        });

    // Which constraint determined each sample's time.
    determined_by_.assign(n, kNone);
    for (SampleIndex x = 0; x < n; ++x) {
        if (graph.in_degree(x) == 0) continue;  // started from outside the trace
        SampleIndex latest = kNone;
        SegmentKind latest_kind = SegmentKind::thread;
        for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            // Ties go to the later sample (in file order for equal times).
            if (latest == kNone || samples.time_ns[y] > samples.time_ns[latest] ||
                (samples.time_ns[y] == samples.time_ns[latest] && y > latest)) {
                latest = y;
                latest_kind = kind;
            }
        });
        if (latest_kind == SegmentKind::queue &&
            graph::elapsed_ns(samples.time_ns[latest], samples.time_ns[x]) > floors_[class_index(latest, x, latest_kind)] + kPollingSlackNs)
            continue;  // a polling consumer: its tick started it
        determined_by_[x] = latest;
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

std::int64_t DependenceModel::own_duration(SampleIndex y, SampleIndex x, SegmentKind kind) const {
    const std::int64_t recorded = std::max<std::int64_t>(0, graph::elapsed_ns(samples_.time_ns[y], samples_.time_ns[x]));
    if (determined_by_[x] == y) return recorded;
    // A sample started from outside waited for that, not for its thread: a
    // loop that overran its tick starts the next iteration at once (the
    // floor of that gap would be its shortest sleep).
    if (kind == SegmentKind::thread && external(x)) return 0;
    return std::min(recorded, floors_[class_index(y, x, kind)]);
}

}  // namespace hashtrace::critpath
