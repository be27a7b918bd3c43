#include "hashtrace/critical_path/whatif.hpp"

#include "change_table.hpp"
#include "polling_loops.hpp"

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace hashtrace::critpath {
namespace {

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

// An input in a queue, served in its new arrival order: its recorded place
// in the queue's order (the time of the slot that took it) moved by as much
// as its producer moved, so an unchanged run keeps its recorded order (a
// queue with several producers need not be first-in first-out by time) and
// an input that now comes later overtakes those it then follows. Ready for
// its consumer after its own recorded hand-off.
struct Queued {
    std::int64_t enqueued;
    std::int64_t ready;
    SampleIndex producer;
    bool operator>(const Queued& o) const { return enqueued != o.enqueued ? enqueued > o.enqueued : producer > o.producer; }
};

RunFigures figures_of(std::vector<double> latencies_ms, std::uint64_t message_edges, std::int64_t window_ns) {
    const metrics::Summary s = metrics::summarize(latencies_ms);
    return {s.count, s.mean, s.p50, s.p95, s.p99, window_ns > 0 ? double(message_edges) / (double(window_ns) / 1e9) : 0};
}

// The samples taking exactly one input from a queue: the slots. A queue is
// (consumer tracepoint, consumer thread). Samples whose queue input a change
// matches are not slots: their wait is set.
struct Slots {
    graph::Column<std::uint32_t> queue_of;  // per sample: its queue, or kNone
    graph::Column<SampleIndex> input;       // per sample: the input it takes, or kNone
    std::vector<QueueNote> queues;          // in the order of their first slots
    // The first slot started by its tick (a polling take) of each thread
    // that has one, in sample order: the threads that may poll (polling_loops.hpp).
    std::vector<SampleIndex> first_polling_takes;
    // A bit per sample: some slot takes its output (the others have none to queue).
    std::vector<std::uint64_t> feeds_slot_bits;
    bool feeds_slot(SampleIndex x) const { return (feeds_slot_bits[x / 64] >> (x % 64)) & 1; }

    Slots(const DependenceModel& model, const ChangeTable& table, unsigned threads) : feeds_slot_bits((model.samples().size() + 63) / 64, 0) {
        const auto& s = model.samples();
        const auto& g = model.graph();
        const std::size_t n = s.size();
        queue_of.resize(n);  // every entry is written below
        input.resize(n);
        // Found in chunks on all cores, each numbering the queues it meets
        // in order; then numbered across the chunks in their order.
        struct ChunkQueues {
            std::unordered_map<std::uint64_t, std::uint32_t> id_of_key;
            std::vector<std::uint64_t> key;
            std::vector<SampleIndex> first_slot;
            std::vector<std::uint64_t> slots;
            std::unordered_map<std::uint64_t, SampleIndex> first_polling_take;  // per thread
            std::vector<std::pair<std::uint64_t, SampleIndex>> polling_threads;    // as met
        };
        const std::size_t chunks = 4 * std::size_t{threads};
        std::vector<ChunkQueues> found(chunks);
        parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
            ChunkQueues& q = found[c];
            for (auto [x, end] = parallel::chunk<SampleIndex>(n, c, chunks); x < end; ++x) {
                queue_of[x] = kNone;
                input[x] = kNone;
                SampleIndex taken = kNone;
                int queue_inputs = 0;
                for (std::uint32_t i = g.in_offset[x]; i < g.in_offset[x + 1]; ++i) {
                    const std::uint32_t e = g.in_edges[i];
                    if (g.edges[e].from < x && model.kind_of_edge(e) == SegmentKind::queue) {
                        taken = g.edges[e].from;
                        ++queue_inputs;
                    }
                }
                if (queue_inputs != 1 || !table.of(taken, x, SegmentKind::queue).empty()) continue;
                const std::uint64_t key = (std::uint64_t{s.tracepoint[x]} << 32) | s.thread[x];
                auto [it, added] = q.id_of_key.try_emplace(key, std::uint32_t(q.key.size()));
                if (added) {
                    q.key.push_back(key);
                    q.first_slot.push_back(x);
                    q.slots.push_back(0);
                }
                queue_of[x] = it->second;
                input[x] = taken;
                std::atomic_ref(feeds_slot_bits[taken / 64]).fetch_or(std::uint64_t{1} << (taken % 64), std::memory_order_relaxed);
                ++q.slots[it->second];
                if (model.external(x))
                    if (const std::uint64_t thread = model.thread_key(x); q.first_polling_take.try_emplace(thread, x).second)
                        q.polling_threads.emplace_back(thread, x);
            }
        });
        std::unordered_map<std::uint64_t, std::uint32_t> queue_ids;
        std::vector<std::vector<std::uint32_t>> id_in_run(chunks);
        for (std::size_t c = 0; c < chunks; ++c)
            for (std::size_t k = 0; k < found[c].key.size(); ++k) {
                auto [it, added] = queue_ids.try_emplace(found[c].key[k], std::uint32_t(queues.size()));
                if (added) queues.push_back({model.labels()[model.label_of(found[c].first_slot[k])], 0, 0, 0, 0, 0});
                queues[it->second].slots += found[c].slots[k];
                id_in_run[c].push_back(it->second);
            }
        parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
            for (auto [x, end] = parallel::chunk<SampleIndex>(n, c, chunks); x < end; ++x)
                if (queue_of[x] != kNone) queue_of[x] = id_in_run[c][queue_of[x]];
        });
        std::unordered_set<std::uint64_t> polling_threads;
        for (const ChunkQueues& q : found)
            for (const auto& [thread, take] : q.polling_threads)
                if (polling_threads.insert(thread).second) first_polling_takes.push_back(take);
    }
};

// One pass over the run in recorded order. With `placed` loops, the samples
// of simulated polling loops keep the times the simulation left in r.time_ns
// (their inputs are then not queued for slots).
void replay_pass(const DependenceModel& model, const std::vector<Change>& changes, const ChangeTable& table, const Slots& slots,
                 const PollingLoops* placed, Replay& r) {
    const auto& s = model.samples();
    const auto& g = model.graph();
    const std::size_t n = s.size();
    r.changed_segments.assign(changes.size(), 0);
    r.time_ns.resize(n);  // every sample's is written before any later one reads it
    r.served_slot.clear();
    r.queues = slots.queues;
    r.reorderings = r.delayed_external = r.backward_constraints = 0;
    const auto& queue_of = slots.queue_of;
    const auto& slot_input = slots.input;
    const auto is_pinned = [&](SampleIndex x) { return placed != nullptr && placed->simulated(x); };
    std::vector<std::priority_queue<Queued, std::vector<Queued>, std::greater<>>> pending(r.queues.size());

    // x's outputs that slots take, queued at x's new time t.
    auto queue_outputs = [&](SampleIndex x, std::int64_t t) {
        if (!slots.feeds_slot(x)) return;
        for (const graph::Edge& e : g.out(x))
            if (slot_input[e.to] == x && !is_pinned(e.to))
                pending[queue_of[e.to]].push({s.time_ns[e.to] + (t - s.time_ns[x]), t + model.own_duration(x, e.to, SegmentKind::queue), x});
    };
    for (SampleIndex x = 0; x < n; ++x) {
        if (is_pinned(x)) {
            queue_outputs(x, r.time_ns[x]);
            continue;
        }
        std::int64_t started = model.external(x) ? s.time_ns[x] : kNoTime;  // by its tick or device
        std::int64_t t = kNoTime;
        bool wait_set = false;
        model.for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            if (y >= x) {
                ++r.backward_constraints;
                return;
            }
            if (y == slot_input[x]) return;  // served from its queue below
            const std::uint32_t segment_class = model.class_index(y, x, kind);
            const auto& matching = table.of_class(segment_class);
            if (kind == SegmentKind::queue && !matching.empty()) {
                // The wait in this queue is what changes.
                t = r.time_ns[y] + table.apply(matching, std::max<std::int64_t>(0, graph::elapsed_ns(s.time_ns[y], s.time_ns[x])), r.changed_segments);
                started = kNoTime;
                wait_set = true;
                return;
            }
            if (!wait_set) t = std::max(t, r.time_ns[y] + table.apply(matching, model.own_duration(y, x, kind, segment_class), r.changed_segments));
        });
        if (queue_of[x] != kNone) {
            const std::uint32_t q = queue_of[x];
            QueueNote& note = r.queues[q];
            const Queued served = pending[q].top();  // never empty: x's own input was queued before x
            pending[q].pop();
            // A polling take whose input is now queued before its thread
            // finished the work before it (it came while the thread was
            // still busy, in the recording after) would have been taken
            // then, in that batch, not at the next tick.
            if (const SampleIndex pred = model.thread_predecessor(x); started != kNoTime && pred != kNone && pred < x) {
                const std::int64_t recorded_ready = served.ready - (r.time_ns[served.producer] - s.time_ns[served.producer]);
                if (served.ready <= r.time_ns[pred] && recorded_ready > s.time_ns[pred]) started = kNoTime;
            }
            t = std::max(t, started);
            const bool blocking = model.determined_by(x) == slot_input[x];  // the recorded take waited for its input
            if (!blocking && served.ready > t) {
                ++note.starved;
                t = served.ready;
            } else {
                t = std::max(t, served.ready);
            }
            if (served.producer != slot_input[x]) {
                ++note.reordered;
                ++r.reorderings;
                r.served_slot[served.producer] = x;
            }
        } else {
            t = std::max(t, started);
        }
        if (t == kNoTime) t = s.time_ns[x];  // every input recorded after it
        if (model.external(x) && t > s.time_ns[x]) ++r.delayed_external;
        r.time_ns[x] = t;
        queue_outputs(x, t);
    }
}

// The replay, and `beside(threads, paths_needed)` called once where the
// caller's work from the recording alone costs least: on one thread beside
// the loops' simulation and the second pass, on the core they leave idle;
// else after the replay, on all cores. `paths_needed`: some input may have
// been served by another slot (beside the second pass, which decides that,
// it may have).
Replay replay_with(const DependenceModel& model, const std::vector<Change>& changes, const std::function<void(unsigned, bool)>& beside) {
    const ChangeTable table(model, changes);
    const Slots slots(model, table, parallel::thread_count(0));
    // The polling loops are read off the run while the first pass replays it,
    // which keeps every thread's recorded batches and needs them not.
    std::optional<PollingLoops> read;
    Replay r;
    parallel::both([&] { read.emplace(model, slots.input, slots.first_polling_takes); }, [&] { replay_pass(model, changes, table, slots, nullptr, r); });
    const PollingLoops& loops = *read;
    if (loops.empty()) {
        beside(parallel::thread_count(0), r.reorderings > 0);
    } else {
        // The loops simulated from their inputs' new times, and the run
        // replayed again with the loops' times, once: what feeds a loop may
        // depend on it (haptics and physics feed each other), but through
        // threads the replay keeps in their recorded order (a socket's
        // thread that sends and receives), which would amplify a delay
        // round after round that the real thread, serving whichever comes
        // first, does not have.
        std::vector<std::uint64_t> loop_changes(changes.size(), 0);
        PollingLoops::Outcome outcome;
        parallel::both(
            [&] {
                outcome = loops.simulate(r.time_ns, table, loop_changes);
                // Else the replay's own batches are the loops' (an unchanged run).
                if (outcome.moved) replay_pass(model, changes, table, slots, &loops, r);
            },
            [&] { beside(1, true); });
        if (outcome.moved) {
            for (std::size_t c = 0; c < changes.size(); ++c) r.changed_segments[c] += loop_changes[c];
            r.delayed_external += outcome.delayed_ticks;
            for (const auto& note : outcome.notes) {
                QueueNote& q = r.queues[slots.queue_of[note.take]];
                q.moved = note.moved;
                q.after_end = note.after_end;
                q.simulated = true;
            }
        }
    }
    std::erase_if(r.queues, [](const QueueNote& q) { return q.reordered == 0 && q.starved == 0 && q.moved == 0 && q.after_end == 0; });
    return r;
}

// The queue steps (from, to) on each instance's critical path, from the
// recording alone: instance k's are steps[first[k] .. first[k + 1]).
struct QueueStepsOnPaths {
    std::vector<std::uint32_t> first;
    std::vector<std::pair<SampleIndex, SampleIndex>> steps;
};

QueueStepsOnPaths queue_steps_on_paths(const DependenceModel& model, const std::vector<IntervalInstance>& list, unsigned threads) {
    const std::size_t chunks = threads == 1 ? 1 : 4 * std::size_t{threads};
    std::vector<QueueStepsOnPaths> parts(chunks);
    parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        PathFinder finder(model);
        std::vector<PathStep> path;
        QueueStepsOnPaths& part = parts[c];
        const auto [begin, end] = parallel::chunk(list.size(), c, chunks);
        part.first.reserve(end - begin + 1);
        for (std::size_t k = begin; k < end; ++k) {
            part.first.push_back(std::uint32_t(part.steps.size()));
            if (finder.critical_path(list[k], path))
                for (const PathStep& step : path)
                    if (step.kind == SegmentKind::queue) part.steps.emplace_back(step.from, step.to);
        }
    });
    QueueStepsOnPaths out = std::move(parts[0]);
    for (std::size_t c = 1; c < chunks; ++c) {
        for (const std::uint32_t f : parts[c].first) out.first.push_back(std::uint32_t(out.steps.size()) + f);
        out.steps.insert(out.steps.end(), parts[c].steps.begin(), parts[c].steps.end());
    }
    out.first.push_back(std::uint32_t(out.steps.size()));
    return out;
}

}  // namespace

Replay replay(const DependenceModel& model, const std::vector<Change>& changes) {
    return replay_with(model, changes, [](unsigned, bool) {});
}

WhatIfResult what_if(const DependenceModel& model, const graph::IntervalSpec& interval, const std::vector<Change>& changes) {
    const auto& s = model.samples();
    for (const Change& c : changes)
        for (const graph::Selector* selector : {&c.from, &c.to}) {
            const bool any = std::any_of(s.tracepoints.begin(), s.tracepoints.end(),
                                         [&](const graph::Tracepoint& t) { return selector->matches(t.node_name, t.tracepoint_name); });
            if (!any) throw std::invalid_argument("'" + c.text + "': selector '" + selector->text() + "' matches no tracepoint");
        }
    // The interval's instances, and their paths (for inputs served by
    // another slot), from the recording alone: found beside the replay's
    // second pass.
    IntervalInstances instances;
    QueueStepsOnPaths on_paths;
    const Replay rep = replay_with(model, changes, [&](unsigned threads, bool paths_needed) {
        instances = InstanceFinder(s, model.graph(), threads).find(interval);
        if (paths_needed) on_paths = queue_steps_on_paths(model, instances.list, threads);
    });
    for (std::size_t c = 0; c < changes.size(); ++c)
        if (rep.changed_segments[c] == 0)
            throw std::invalid_argument("'" + changes[c].text + "': no segment of the run goes from '" + changes[c].from.text() + "' to '" +
                                        changes[c].to.text() + "'");

    WhatIfResult out;
    out.interval = interval.name;
    for (const Change& c : changes) out.changes.push_back(c.text);
    out.changed_segments = rep.changed_segments;
    out.reorderings = rep.reorderings;
    out.queues = rep.queues;
    out.delayed_external = rep.delayed_external;
    out.backward_constraints = rep.backward_constraints;

    out.unreached_starts = instances.unreached_starts;
    // The instances' latencies, recorded and predicted, in chunks on all
    // cores: and the run's message edges and replayed span with them.
    const auto& list = instances.list;
    const unsigned threads = parallel::thread_count(0);
    const std::size_t chunks = 4 * std::size_t{threads};
    std::vector<double> recorded(list.size()), predicted(list.size());
    struct ChunkFigures {
        std::uint64_t message_edges = 0;
        std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    };
    std::vector<ChunkFigures> figures(chunks);
    const auto& edges = model.graph().edges;
    parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
        for (auto [k, end] = parallel::chunk(list.size(), c, chunks); k < end; ++k) {
            const IntervalInstance& i = list[k];
            recorded[k] = double(graph::elapsed_ns(s.time_ns[i.from], s.time_ns[i.to])) / 1e6;
            std::int64_t latency = rep.time_ns[i.to] - rep.time_ns[i.from];
            // An input served by another slot: the instance continues from there.
            if (rep.reorderings > 0)
                for (std::uint32_t q = on_paths.first[k]; q < on_paths.first[k + 1]; ++q) {
                    const auto [from, to] = on_paths.steps[q];
                    if (const auto served = rep.served_slot.find(from); served != rep.served_slot.end())
                        latency += rep.time_ns[served->second] - rep.time_ns[to];
                }
            predicted[k] = double(latency) / 1e6;
        }
        ChunkFigures& f = figures[c];
        // Not local: between threads or node instances (the model's kinds tell).
        for (auto [e, end] = parallel::chunk(edges.size(), c, chunks); e < end; ++e)
            f.message_edges += model.kind_of_edge(std::uint32_t(e)) != SegmentKind::local;
        for (auto [x, end] = parallel::chunk(s.size(), c, chunks); x < end; ++x) {
            f.first = std::min(f.first, rep.time_ns[x]);
            f.last = std::max(f.last, rep.time_ns[x]);
        }
    });
    std::uint64_t message_edges = 0;
    std::int64_t first = 0, last = 0;
    for (const ChunkFigures& f : figures) message_edges += f.message_edges;
    if (s.size() > 0) {
        first = std::min_element(figures.begin(), figures.end(), [](const auto& a, const auto& b) { return a.first < b.first; })->first;
        last = std::max_element(figures.begin(), figures.end(), [](const auto& a, const auto& b) { return a.last < b.last; })->last;
    }
    out.baseline = figures_of(std::move(recorded), message_edges, s.size() ? graph::elapsed_ns(s.time_ns.front(), s.time_ns.back()) : 0);
    out.predicted = figures_of(std::move(predicted), message_edges, last - first);
    return out;
}

}  // namespace hashtrace::critpath
