#include "hashtrace/clock_analysis/edge_constraints.hpp"

#include <algorithm>
#include <thread>
#include <utility>

namespace hashtrace::clock_analysis {
namespace {

bool by_x(const Point& a, const Point& b) { return a.x < b.x; }

// A message sent to several receivers, one send each (a router or broker
// forwarding it to every subscriber), is one hash put out by one source
// several times in a row. The linking takes the latest of them before a
// receive, which by clocks apart by more than the sends' spacing may be a
// send made after that receive: a constraint too tight, bounds that miss the
// truth or contradict. The first of the run precedes every receive of the
// message: it is the send time (never too tight, looser by the run's
// length). Empty without the hash ids.
std::vector<graph::SampleIndex> first_copies(const graph::SampleSet& s) {
    if (s.output.size() != s.size()) return {};
    constexpr graph::SampleIndex kNone = ~graph::SampleIndex{0};
    std::vector<graph::SampleIndex> first(s.size()), last(s.source_count, kNone);
    for (graph::SampleIndex i = 0; i < s.size(); ++i) {
        const graph::SampleIndex previous = std::exchange(last[s.tracepoint_of(i).source_id], i);
        const bool copy = previous != kNone && s.output[i] != graph::kNoHash && s.output[previous] == s.output[i];
        first[i] = copy ? first[previous] : i;
    }
    return first;
}

}  // namespace

std::vector<InstanceMessages> message_times(const graph::SampleSet& samples, const graph::Graph& graph, const graph::Graph* confirmed_by,
                                            unsigned threads) {
    const std::size_t n = samples.instances.size();
    std::vector<std::uint32_t> instance_of(samples.tracepoints.size());
    for (std::size_t i = 0; i < samples.tracepoints.size(); ++i) instance_of[i] = samples.tracepoints[i].instance_id;
    // Dense tables per pair: runs have a handful of instances (n^2 slots are
    // cheap), and each edge then costs one index, not a map lookup. Each
    // worker takes a contiguous range of edges (in send order) and counts,
    // then writes its messages at its offset in each pair's list: the lists
    // come out in send order, written once, never regrown or joined.
    const std::size_t edges = graph.edges.size();
    const unsigned workers = static_cast<unsigned>(
        std::clamp<std::size_t>(threads ? threads : std::max(1u, std::thread::hardware_concurrency()), 1, edges / 65536 + 1));
    const auto for_each_message = [&](unsigned w, auto&& f) {
        for (std::size_t e = edges * w / workers, end = edges * (w + 1) / workers; e < end; ++e) {
            const graph::Edge edge = graph.edges[e];
            const std::uint32_t from = instance_of[samples.tracepoint[edge.from]], to = instance_of[samples.tracepoint[edge.to]];
            if (from == to) continue;
            if (confirmed_by) {
                bool contradicted = false;
                confirmed_by->for_each_in(edge.to, [&](const graph::Edge& c) {
                    contradicted = contradicted || (c.from != edge.from && instance_of[samples.tracepoint[c.from]] == from);
                });
                if (contradicted) continue;
            }
            f(from * n + to, edge);
        }
    };
    const auto in_parallel = [&](auto&& work) {
        std::vector<std::thread> pool;
        for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
        work(0);
        for (auto& t : pool) t.join();
    };
    const std::vector<graph::SampleIndex> first = first_copies(samples);
    std::vector<std::vector<std::size_t>> at(workers, std::vector<std::size_t>(n * n, 0));  // counts, then offsets
    in_parallel([&](unsigned w) { for_each_message(w, [&](std::size_t pair, const graph::Edge&) { ++at[w][pair]; }); });
    std::vector<std::vector<Message>> lists(n * n);
    for (std::size_t pair = 0; pair < n * n; ++pair) {
        std::size_t total = 0;
        for (unsigned w = 0; w < workers; ++w) total += std::exchange(at[w][pair], total);
        lists[pair].resize(total);
    }
    in_parallel([&](unsigned w) {
        for_each_message(w, [&](std::size_t pair, const graph::Edge& edge) {
            const graph::SampleIndex sent = first.empty() ? edge.from : first[edge.from];
            lists[pair][at[w][pair]++] = {samples.time_ns[sent], samples.time_ns[edge.to]};
        });
    });
    std::vector<InstanceMessages> out;
    for (std::size_t pair = 0; pair < n * n; ++pair)
        if (!lists[pair].empty())
            out.push_back({static_cast<std::uint32_t>(pair / n), static_cast<std::uint32_t>(pair % n), std::move(lists[pair])});
    return out;
}

std::vector<Point> upper_points(const std::vector<Message>& axis_to_other) {
    std::vector<Point> points;
    points.reserve(axis_to_other.size());
    for (const Message& m : axis_to_other) points.push_back({m.send_ns, m.receive_ns - m.send_ns});
    if (!std::is_sorted(points.begin(), points.end(), by_x)) std::stable_sort(points.begin(), points.end(), by_x);
    return points;
}

std::vector<Point> lower_points(const std::vector<Message>& other_to_axis) {
    std::vector<Point> points;
    points.reserve(other_to_axis.size());
    for (const Message& m : other_to_axis) points.push_back({m.receive_ns, m.send_ns - m.receive_ns});
    // Receives of messages in send order are nearly in order already.
    if (!std::is_sorted(points.begin(), points.end(), by_x)) std::stable_sort(points.begin(), points.end(), by_x);
    return points;
}

}  // namespace hashtrace::clock_analysis
