// polling_loops.hpp - threads that poll their inbox once per tick and take
// what is there until it is empty (a render loop applying every update that
// arrived since the last frame), re-simulated message by message.
//
// Replayed sample by sample such a loop keeps its recorded batches: a take
// serves the next input whenever it arrives. The real loop does not: with
// faster work its batch ends sooner and an input arriving after that waits
// for the next tick; with slower work the batch runs on and takes inputs
// that arrived meanwhile. So these loops are simulated as they run: at each
// tick (its recorded time, later if the thread is still busy) the loop takes
// the inputs there in their new arrival order, each with the samples its
// message carries on the thread (its chain, with their recorded durations,
// changed where a change matches), until none is there, then does its own
// work (the frame drawn, with its recorded durations). A take's samples move
// with its message to whatever tick takes it; the loop's own samples stay
// with their tick.
//
// A thread is such a loop when some take of it was started by its tick (the
// model's polling takes), every queue input it takes is a slot of the
// replay, no input was left in its inbox at the end of a batch (a loop that
// takes one message per tick is replayed by its slots instead), and its
// ticks' first inputs waited for the tick: a quarter of its period or more
// in the median (a consumer woken by its input waits for the wake-up alone,
// however late that is on a busy machine, and is replayed by its slots).
// Its structure is read off the recording. A message's samples are those of
// tracepoints with one sample per take (each update applied); the others are
// the loop's own work, once per tick. A tick starts at a sample started from
// outside, at a take that follows the loop's own work, and at own work seen
// already in the tick (a tick that took nothing, whose start the trace does
// not tell otherwise).
#pragma once

#include "change_table.hpp"
#include "hashtrace/critical_path/model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::critpath {

class PollingLoops {
public:
    // slot_input[x]: the queue input that slot x takes (kNone for other samples).
    PollingLoops(const DependenceModel& model, const std::vector<SampleIndex>& slot_input);

    bool empty() const { return loops_.empty(); }
    // Sample x belongs to a simulated loop (its time comes from simulate()).
    bool simulated(SampleIndex x) const { return !simulated_.empty() && (simulated_[x / 64] >> (x % 64)) & 1; }

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
    // change in `changed`.
    Outcome simulate(std::vector<std::int64_t>& time_ns, ChangeTable& changes, std::vector<std::uint64_t>& changed) const;

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
    struct Loop {
        std::vector<SampleIndex> order;        // the thread's samples, recorded order
        std::vector<SegmentKind> kind;         // per position: the segment from the previous one
        std::vector<Message> messages;         // recorded take order
        std::vector<Iteration> iterations;
    };

    bool read_structure(Loop& loop, const std::vector<SampleIndex>& slot_input) const;

    const DependenceModel& model_;
    std::vector<Loop> loops_;
    std::vector<std::uint64_t> simulated_;  // a bit per sample of the run: it belongs to a simulated loop
};

}  // namespace hashtrace::critpath
