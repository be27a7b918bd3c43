// hashtrace/critical_path/whatif.hpp - what an interval's latency would be
// with some segments faster or slower: the recorded run re-simulated.
//
// Every sample is replayed in recorded order at the latest of its
// constraints' new times plus its own durations (model.hpp), with the
// changes applied to the own durations of the constraints they match. So
// program order and fan-in hold: a slower stage makes its thread's next
// samples wait (a backlog builds), a faster one lets them start as soon as
// their inputs are there (a backlog drains); samples started from outside
// the trace (timer ticks, devices) keep their recorded time unless their
// thread is still busy then.
//
// Queues: a sample taking one input from a queue (another thread of its node
// instance) is a slot of that queue; slots serve the queued inputs in their
// new arrival order, as the consumer thread would, so a change can reorder
// them. An input served by another slot than recorded moves the latency of
// the instances it carries by the difference of the two slots' new times.
// Where a slot's input now arrives after the thread was ready for it, the
// real thread would have found its queue empty and done something else,
// which the trace does not say (starved, counted): the model makes the take
// wait for it. A loop that polls its inbox once per tick and takes what is
// there until it is empty is simulated tick by tick instead
// (src/polling_loops.hpp): its batches end sooner or run on, and an input
// that misses a batch waits for the next tick. A change on a queue segment
// itself changes the wait in that queue: the consumer is then assumed to
// keep up (its thread order no longer holds those samples back).
#pragma once

#include "hashtrace/critical_path/change.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "hashtrace/graph/column.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hashtrace::critical_path {

struct RunFigures {
    std::size_t count = 0;  // interval instances
    double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0;
    double m8 = 0;  // message edges per second of the (predicted) window
};

// Where the model had to assume something, per queue (its consumer's
// "node/tracepoint").
struct QueueNote {
    std::string consumer;
    std::uint64_t slots = 0;      // samples taking from the queue
    std::uint64_t reordered = 0;  // inputs served by another slot than recorded
    std::uint64_t starved = 0;    // slots whose input came after the thread was ready
    // A polling loop simulated take by take (polling_loops.hpp): inputs taken
    // at another tick than recorded, and after the recording's last tick.
    std::uint64_t moved = 0, after_end = 0;
    bool simulated = false;
};

struct WhatIfResult {
    std::string interval;
    std::vector<std::string> changes;
    std::vector<std::uint64_t> changed_segments;  // per change: constraints it matched
    RunFigures baseline, predicted;
    std::uint64_t reorderings = 0;
    std::vector<QueueNote> queues;          // queues with reorderings or starved slots
    std::uint64_t delayed_external = 0;     // samples started from outside the trace, now later (their thread was busy)
    std::uint64_t backward_constraints = 0; // inputs recorded after their consumer (ignored by the replay)
    std::uint64_t unreached_starts = 0;     // `from` samples reaching no `to`
};

// Throws std::invalid_argument naming the change when it matches no
// constraint of the run (a segment that never occurs).
WhatIfResult what_if(const DependenceModel& model, const graph::IntervalSpec& interval, const std::vector<Change>& changes);

// The replay alone: every sample's new time (ns), for tests and exports.
struct Replay {
    graph::Column<std::int64_t> time_ns;
    // The queue inputs served by another slot than recorded: the slot that
    // served each, by the input (served_key(producer, the slot that took it
    // in the recording)). Few: a map, not a column.
    std::unordered_map<std::uint64_t, SampleIndex> served_slot;
    static std::uint64_t served_key(SampleIndex producer, SampleIndex recorded_slot) {
        return (std::uint64_t{producer} << 32) | recorded_slot;
    }
    std::vector<std::uint64_t> changed_segments;
    std::vector<QueueNote> queues;
    std::uint64_t reorderings = 0, delayed_external = 0, backward_constraints = 0;
};
Replay replay(const DependenceModel& model, const std::vector<Change>& changes);

}  // namespace hashtrace::critical_path
