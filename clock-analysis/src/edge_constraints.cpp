#include "hashtrace/clock_analysis/edge_constraints.hpp"

#include <algorithm>

namespace hashtrace::clock_analysis {
namespace {

bool by_x(const Point& a, const Point& b) { return a.x < b.x; }

}  // namespace

std::vector<InstanceMessages> message_times(const graph::SampleSet& samples, const graph::Graph& graph) {
    const std::size_t n = samples.instances.size();
    std::vector<std::uint32_t> instance_of(samples.tracepoints.size());
    for (std::size_t i = 0; i < samples.tracepoints.size(); ++i) instance_of[i] = samples.tracepoints[i].instance_id;
    // A dense table of lists: runs have a handful of instances (n^2 slots
    // are cheap), and each edge then costs one index, not a map lookup.
    std::vector<std::vector<Message>> lists(n * n);
    for (std::size_t e = 0; e < graph.edges.size(); ++e) {
        const graph::Edge edge = graph.edges[e];
        const std::uint32_t from = instance_of[samples.tracepoint[edge.from]], to = instance_of[samples.tracepoint[edge.to]];
        if (from == to) continue;
        lists[from * n + to].push_back({samples.time_ns[edge.from], samples.time_ns[edge.to]});
    }
    std::vector<InstanceMessages> out;
    for (std::size_t i = 0; i < lists.size(); ++i)
        if (!lists[i].empty())
            out.push_back({static_cast<std::uint32_t>(i / n), static_cast<std::uint32_t>(i % n), std::move(lists[i])});
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
