#include "hashtrace/critical_path/whatif.hpp"

#include "replay.hpp"

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace hashtrace::critical_path {
namespace {

RunFigures figures_of(std::vector<double> latencies_ms, std::uint64_t message_edges, std::int64_t window_ns) {
    const metrics::Summary s = metrics::summarize(latencies_ms);
    return {s.count, s.mean, s.p50, s.p95, s.p99, window_ns > 0 ? double(message_edges) / (double(window_ns) / 1e9) : 0};
}

// The queue steps (from, to) on the critical paths of part `part` of
// `parts` of the instances (graph::parallel::chunk's), from the recording alone:
// those of the part's k-th instance are steps[first[k] .. first[k + 1]).
struct QueueStepsOnPaths {
    std::vector<std::uint32_t> first;
    std::vector<std::pair<SampleIndex, SampleIndex>> steps;
};
QueueStepsOnPaths queue_steps_on_paths(const DependenceModel& model, const std::vector<IntervalInstance>& list, std::size_t part, std::size_t parts) {
    PathFinder finder(model);
    std::vector<PathStep> path;
    QueueStepsOnPaths out;
    const auto [begin, end] = graph::parallel::chunk(list.size(), part, parts);
    out.first.reserve(end - begin + 1);
    for (std::size_t k = begin; k < end; ++k) {
        out.first.push_back(std::uint32_t(out.steps.size()));
        if (finder.critical_path(list[k], path))
            for (const PathStep& step : path)
                if (step.kind == SegmentKind::queue) out.steps.emplace_back(step.from, step.to);
    }
    out.first.push_back(std::uint32_t(out.steps.size()));
    return out;
}

// Every change's selectors match a tracepoint of the run.
void check_selectors(const graph::SampleSet& s, const std::vector<Change>& changes) {
    for (const Change& c : changes)
        for (const graph::Selector* selector : {&c.from, &c.to}) {
            const bool any = std::any_of(s.tracepoints.begin(), s.tracepoints.end(),
                                         [&](const graph::Tracepoint& t) { return selector->matches(t.node_name, t.tracepoint_name); });
            if (!any) throw std::invalid_argument("'" + c.text + "': selector '" + selector->text() + "' matches no tracepoint");
        }
}

// Every change changed a segment of the replay.
void check_changes_applied(const Replay& rep, const std::vector<Change>& changes) {
    for (std::size_t c = 0; c < changes.size(); ++c)
        if (rep.changed_segments[c] == 0)
            throw std::invalid_argument("'" + changes[c].text + "': no segment of the run goes from '" + changes[c].from.text() + "' to '" +
                                        changes[c].to.text() + "'");
}

// The instances' latencies, recorded and predicted (ms), the run's message
// edges, and the replayed span [first, last].
struct Latencies {
    std::vector<double> recorded, predicted;
    std::uint64_t message_edges = 0;
    std::int64_t first = 0, last = 0;
};

// An instance's latency in the replay (ns); an input served by another
// slot: the instance continues from there.
std::int64_t predicted_latency_ns(const Replay& rep, const IntervalInstance& i, const QueueStepsOnPaths& on_paths, std::size_t k) {
    std::int64_t latency = rep.time_ns[i.to] - rep.time_ns[i.from];
    if (rep.reorderings > 0)
        for (std::uint32_t q = on_paths.first[k]; q < on_paths.first[k + 1]; ++q) {
            const auto [from, to] = on_paths.steps[q];
            if (const auto served = rep.served_slot.find(Replay::served_key(from, to)); served != rep.served_slot.end())
                latency += rep.time_ns[served->second] - rep.time_ns[to];
        }
    return latency;
}

// The latencies, in chunks on all cores (the walks' parts): and the run's
// message edges and replayed span with them.
Latencies measure_latencies(const DependenceModel& model, const std::vector<IntervalInstance>& list, const std::vector<QueueStepsOnPaths>& parts,
                            const Replay& rep) {
    const auto& s = model.samples();
    const unsigned threads = graph::parallel::thread_count(0);
    const std::size_t chunks = parts.size();
    Latencies out;
    out.recorded.resize(list.size());
    out.predicted.resize(list.size());
    struct ChunkFigures {
        std::uint64_t message_edges = 0;
        std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    };
    std::vector<ChunkFigures> figures(chunks);
    const auto& edges = model.graph().edges;
    graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        const auto [begin, end] = graph::parallel::chunk(list.size(), c, chunks);
        for (std::size_t k = begin; k < end; ++k) {
            const IntervalInstance& i = list[k];
            out.recorded[k] = double(graph::elapsed_ns(s.time_ns[i.from], s.time_ns[i.to])) / 1e6;
            out.predicted[k] = double(predicted_latency_ns(rep, i, parts[c], k - begin)) / 1e6;
        }
        ChunkFigures& f = figures[c];
        // Not local: between threads or node instances (the model's kinds tell).
        for (auto [e, end] = graph::parallel::chunk(edges.size(), c, chunks); e < end; ++e)
            f.message_edges += model.kind_of_edge(std::uint32_t(e)) != SegmentKind::local;
        for (auto [x, end] = graph::parallel::chunk(s.size(), c, chunks); x < end; ++x) {
            f.first = std::min(f.first, rep.time_ns[x]);
            f.last = std::max(f.last, rep.time_ns[x]);
        }
    });
    for (const ChunkFigures& f : figures) out.message_edges += f.message_edges;
    if (s.size() > 0) {
        out.first = std::min_element(figures.begin(), figures.end(), [](const auto& a, const auto& b) { return a.first < b.first; })->first;
        out.last = std::max_element(figures.begin(), figures.end(), [](const auto& a, const auto& b) { return a.last < b.last; })->last;
    }
    return out;
}

}  // namespace

WhatIfResult what_if(const DependenceModel& model, const graph::IntervalSpec& interval, const std::vector<Change>& changes) {
    const auto& s = model.samples();
    check_selectors(s, changes);
    // The interval's instances, and their paths (for inputs served by
    // another slot), from the recording alone: found beside the replay.
    IntervalInstances instances;
    std::vector<QueueStepsOnPaths> parts(4 * std::size_t{graph::parallel::thread_count(0)});
    const Replay rep = replay_with(model, changes,
                                   {[&] { instances = InstanceFinder(s, model.graph(), 1).find(interval); }, parts.size(),
                                    [&](std::size_t part) { parts[part] = queue_steps_on_paths(model, instances.list, part, parts.size()); }});
    check_changes_applied(rep, changes);

    WhatIfResult out;
    out.interval = interval.name;
    for (const Change& c : changes) out.changes.push_back(c.text);
    out.changed_segments = rep.changed_segments;
    out.reorderings = rep.reorderings;
    out.queues = rep.queues;
    out.delayed_external = rep.delayed_external;
    out.backward_constraints = rep.backward_constraints;
    out.unreached_starts = instances.unreached_starts;

    Latencies latencies = measure_latencies(model, instances.list, parts, rep);
    const std::int64_t recorded_span = s.size() ? graph::elapsed_ns(s.time_ns.front(), s.time_ns.back()) : 0;
    out.baseline = figures_of(std::move(latencies.recorded), latencies.message_edges, recorded_span);
    out.predicted = figures_of(std::move(latencies.predicted), latencies.message_edges, latencies.last - latencies.first);
    return out;
}

}  // namespace hashtrace::critical_path
