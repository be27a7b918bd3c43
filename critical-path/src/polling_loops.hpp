// polling_loops.hpp - threads that poll their inbox once per tick and take
// what is there until it is empty (a render loop applying every update that
// arrived since the last frame), re-simulated message by message.
//
// Replayed sample by sample such a loop keeps its recorded batches: a take
// serves the next input whenever it arrives. The real loop does not: with
// faster work its batch ends sooner and an input arriving after that waits
// for the next tick; with slower work the batch runs on and takes inputs
// that arrived meanwhile. So these loops are simulated as they run: at each
// tick the loop takes the inputs there, each with the samples its message
// carries on the thread (its chain, with their recorded durations, changed
// where a change matches), until none is there, then does its own work (the
// frame drawn, with its recorded durations). A take's samples move with its
// message to whatever tick takes it; the loop's own samples stay with their
// tick.
//
// Among the inputs there, the next taken is the first in the inbox's
// recorded order (each moved by as much as its producer moved): an inbox
// with several producers need not hand them out first-in first-out (a
// lock-free queue serves one producer's run, then another's), and an input
// that is not there yet does not hold back those behind it.
//
// The ticks follow the loop's schedule, as a loop sleeping until deadlines a
// period apart runs: a tick comes at its deadline, a step after the one
// before (the recorded step), unless the previous iteration overran it; then
// it comes as soon as that one ends, and the deadlines after it count from
// there (the schedule restarts). A tick the recording shows starting right
// after the previous iteration (an overrun there) had its deadline at most a
// period after the tick before, so with less work it comes then. Unchanged,
// this gives the recorded ticks. A loop whose trace splits ticks into
// several iterations (more than 1 % start within half a period of the one
// before) keeps its recorded ticks, each later if the thread is still busy.
//
// A thread is such a loop when some take of it was started by its tick (the
// model's polling takes), every queue input it takes is a slot of the
// replay, no input was left in its inbox at the end of a batch (a loop that
// takes one message per tick is replayed by its slots instead), and its
// ticks' first inputs waited for the tick: a quarter of its period or more
// in the median (a consumer woken by its input waits for the wake-up alone,
// however late that is on a busy machine, and is replayed by its slots), and
// its own work takes no other thread's or node's output (a thread that also
// receives from a socket serves events, however its takes waited).
// Its structure is read off the recording. A message's samples are those of
// tracepoints with one sample per take (each update applied); the others are
// the loop's own work, once per tick. A tick starts at a sample started from
// outside, at a take that follows the loop's own work, and at own work seen
// already in the tick (a tick that took nothing, whose start the trace does
// not tell otherwise).
#pragma once

#include "change_table.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "sample_bits.hpp"
#include "slots.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::critical_path {

class PollingLoops {
public:
    // The candidates: the threads of the slots' first polling takes. Each is
    // read by read(k), on any thread (each once, any two at once); then
    // keep() keeps those that are such loops.
    PollingLoops(const DependenceModel& model, const Slots& slots);
    std::size_t candidates() const { return candidates_.size(); }
    void read(std::size_t k);
    void keep();

    bool empty() const { return loops_.empty(); }
    // Sample x belongs to a simulated loop (its time comes from simulate()).
    bool simulated(SampleIndex x) const { return !simulated_.empty() && simulated_.test(x); }
    // The same for samples 64 w .. 64 w + 63, a bit each.
    std::uint64_t simulated_word(std::size_t w) const { return simulated_.empty() ? 0 : simulated_.word(w); }

    struct LoopNote {
        SampleIndex take;            // the loop's first take
        std::uint64_t takes = 0;
        std::uint64_t moved = 0;      // inputs taken at another tick than recorded
        std::uint64_t after_end = 0;  // inputs taken after the recording's last tick
    };
    struct Outcome {
        std::vector<LoopNote> notes;  // per loop
        std::uint64_t delayed_ticks = 0;  // ticks that found their thread still busy
        bool moved = false;               // some sample's time is not the one it had
    };
    // The loops' samples' new times into `time_ns`, in place, from their
    // inputs' new times there (the rest of the replay's); changes counted per
    // change in `changed`; set in `moved` for each sample whose time it changed.
    Outcome simulate(graph::Column<std::int64_t>& time_ns, const ChangeTable& changes, std::vector<std::uint64_t>& changed, SampleBits& moved) const;
    // Calls f(x) for every sample x of a simulated loop, in sample order.
    template <typename F> void for_each_simulated(F&& f) const { simulated_.for_each(f); }

private:
    struct Message {
        SampleIndex input;        // what the take took
        std::uint32_t position;   // of the take in the loop's order
        std::uint32_t chain_end;  // position one past its chain
        std::uint32_t iteration;  // recorded
        std::int64_t arrival;     // recorded: when its input was there to take
        std::int64_t take_gap;    // the take's time after its thread was free (0 for a tick's first take)
    };
    struct Iteration {
        std::uint32_t begin, tail_begin, end;  // positions: its takes (and their chains) come first, then its own work
    };
    // An iteration's tick on the schedule: its deadline `after_tick` after
    // the previous tick, and not before `after_end` after the previous
    // iteration's end; `restarted`: the recording's tick came right after
    // that end (an overrun). Kept apart from the iterations, which every
    // candidate thread has split into and most are ruled out with.
    struct Tick {
        std::int64_t after_tick = 0, after_end = 0;
        bool restarted = false;
    };
    struct Loop {
        std::vector<SampleIndex> order;        // the thread's samples, recorded order
        std::vector<std::int64_t> time;        // per position: its recorded time, for the simulation (read off the run once)
        std::vector<SegmentKind> kind;         // per position: the segment from the previous one
        std::vector<Message> messages;         // recorded take order
        std::vector<Iteration> iterations;
        std::vector<Tick> ticks;               // per iteration, where `scheduled`
        bool scheduled = false;  // its iterations are its ticks: they follow its schedule
    };
    class LoopSimulation;  // simulate()'s work on one loop

    // Reads a candidate thread as a loop, phase by phase (the comments
    // above); false as soon as a phase shows it is not one.
    bool read_structure(Loop& loop, const Slots& slots) const;
    std::vector<std::uint8_t> per_message_tracepoints(const Loop& loop, const Slots& slots, std::uint64_t& takes) const;
    bool find_ticks(Loop& loop, const Slots& slots, const std::vector<std::uint8_t>& per_message, std::uint64_t takes) const;
    bool answers_others(SampleIndex x) const;
    std::uint32_t batch_last(const Loop& loop, const Iteration& it) const;
    std::int64_t batch_end(const Loop& loop, const Iteration& it) const;
    bool waits_for_its_ticks(const Loop& loop, const Slots& slots) const;
    bool read_segment_kinds(Loop& loop, const Slots& slots) const;
    void read_messages(Loop& loop, const Slots& slots, std::uint64_t takes) const;
    void read_schedule(Loop& loop) const;

    const DependenceModel& model_;
    const Slots& slots_;
    // The first polling take of each candidate thread, in the order their
    // loops are simulated in (it matters where one loop feeds another), and
    // what read(k) made of each.
    std::vector<SampleIndex> candidates_;
    std::vector<std::optional<Loop>> read_;
    std::vector<Loop> loops_;
    SampleBits simulated_;  // the samples of the simulated loops
};

}  // namespace hashtrace::critical_path
