#include "polling_loops.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace hashtrace::critical_path {
namespace {

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

// The upper median of a non-empty list, reordering it.
std::int64_t median(std::vector<std::int64_t>& v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace

PollingLoops::PollingLoops(const DependenceModel& model, const Slots& slots) : model_(model), slots_(slots) {
    // The candidate threads, keyed by (node instance, thread), in the map's order.
    std::unordered_map<std::uint64_t, SampleIndex> candidates;
    for (const SampleIndex x : slots.first_polling_takes()) candidates.try_emplace(model.thread_key(x), x);
    for (const auto& [key, sample] : candidates) candidates_.push_back(sample);
    read_.resize(candidates_.size());
}

void PollingLoops::read(std::size_t k) {
    Loop loop;
    SampleIndex first = candidates_[k];
    while (model_.thread_predecessor(first) != kNone) first = model_.thread_predecessor(first);
    for (SampleIndex x = first; x != kNone; x = model_.thread_successor(x)) loop.order.push_back(x);
    if (read_structure(loop, slots_)) read_[k] = std::move(loop);
}

void PollingLoops::keep() {
    for (std::optional<Loop>& loop : read_)
        if (loop) {
            if (simulated_.empty()) simulated_ = SampleBits(model_.samples().size());
            for (const SampleIndex x : loop->order) simulated_.set(x);
            loops_.push_back(std::move(*loop));
        }
    read_.clear();
}

// The tracepoints a message carries: one sample per take (each update
// applied). The loop's own work (a frame drawn, a force computed) comes
// once per tick, however many messages the tick took.
std::vector<std::uint8_t> PollingLoops::per_message_tracepoints(const Loop& loop, const Slots& slots, std::uint64_t& takes) const {
    const auto& s = model_.samples();
    takes = 0;
    std::vector<std::uint64_t> samples_of(s.tracepoints.size(), 0);
    for (const SampleIndex x : loop.order) {
        if (slots.is_slot(x)) ++takes;
        else ++samples_of[s.tracepoint[x]];
    }
    std::vector<std::uint8_t> per_message(s.tracepoints.size(), 0);
    for (std::size_t t = 0; t < samples_of.size(); ++t)
        per_message[t] = samples_of[t] > 0 && samples_of[t] * 100 >= takes * 99 && samples_of[t] * 100 <= takes * 101;
    return per_message;
}

// The ticks, from the order of takes, message samples and own work alone.
// False when the thread is not such a loop: it left inputs in its inbox at
// the end of a batch (it takes a bounded number per tick: counted as the
// ticks are found, it is ruled out as soon as more than 1 % of all its takes,
// at least its ticks' first takes, were left behind), or its own work takes
// other threads' and nodes' outputs (it serves events).
bool PollingLoops::find_ticks(Loop& loop, const Slots& slots, const std::vector<std::uint8_t>& per_message, std::uint64_t takes) const {
    const auto& s = model_.samples();
    const auto& order = loop.order;
    const auto count = static_cast<std::uint32_t>(order.size());
    const auto handed = [&](SampleIndex take) {
        const SampleIndex input = slots.input_of(take);
        return s.time_ns[input] + model_.own_duration(input, take, SegmentKind::queue);
    };
    std::uint64_t first_takes = 0, left_behind = 0;
    bool in_chain = false;
    std::uint32_t first_tail = kNone;
    std::vector<graph::TracepointId> own_work;  // the current tick's own tracepoints
    auto close_iteration = [&](std::uint32_t end) {
        loop.iterations.back().end = end;
        loop.iterations.back().tail_begin = first_tail == kNone ? end : first_tail;
    };
    for (std::uint32_t p = 0; p < count; ++p) {
        const SampleIndex x = order[p];
        const bool take = slots.is_slot(x);
        // A tick starts at a sample started from outside, at a take after
        // the loop's own work, and at own work seen already in this tick
        // (a tick that took nothing, its start not told by the trace).
        const bool own = !take && !(in_chain && per_message[s.tracepoint[x]]);
        const bool repeated = own && std::find(own_work.begin(), own_work.end(), s.tracepoint[x]) != own_work.end();
        if (p == 0 || model_.external(x) || (take && !in_chain) || repeated) {
            if (p > 0) close_iteration(p);
            loop.iterations.push_back({p, p, p});
            in_chain = false;
            first_tail = kNone;
            own_work.clear();
            if (take) {
                ++first_takes;
                left_behind += p > 0 && handed(x) + kPollingSlackNs < batch_end(loop, loop.iterations[loop.iterations.size() - 2]);
                if (left_behind * 100 > takes) return false;
            }
        }
        if (take) {
            in_chain = true;
            continue;
        }
        if (answers_others(x)) return false;
        if (own) {
            if (first_tail == kNone) first_tail = p;
            in_chain = false;
            own_work.push_back(s.tracepoint[x]);
        }
    }
    if (count > 0) close_iteration(count);
    return first_takes > 0 && left_behind * 100 <= first_takes;
}

// A loop takes other threads' and nodes' outputs through its takes alone; a
// sample that takes one otherwise is the thread serving events (a socket's
// receive): its times follow them, not a tick.
bool PollingLoops::answers_others(SampleIndex x) const {
    bool answers = false;
    model_.for_each_constraint(x, [&](SampleIndex, SegmentKind kind) { answers |= kind == SegmentKind::queue || kind == SegmentKind::message; });
    return answers;
}

// Where an iteration's batch ended: the last sample of its takes' chains
// (else its first sample).
std::uint32_t PollingLoops::batch_last(const Loop& loop, const Iteration& it) const {
    return slots_.is_slot(loop.order[it.begin]) ? it.tail_begin - 1 : it.begin;
}
std::int64_t PollingLoops::batch_end(const Loop& loop, const Iteration& it) const {
    return model_.samples().time_ns[loop.order[batch_last(loop, it)]];
}

// A loop that polls at its own ticks takes its first input of a tick
// whenever the tick comes, a good part of a period after it arrived; a
// consumer woken by its input (a socket's sender) takes it after the
// wake-up alone, however late that is on a busy machine. Ticks: the
// iterations' first takes waited at least a quarter of the median time
// between iterations, in the median.
bool PollingLoops::waits_for_its_ticks(const Loop& loop, const Slots& slots) const {
    const auto& time = model_.samples().time_ns;
    const auto& order = loop.order;
    std::vector<std::int64_t> waits, periods;
    for (std::size_t k = 0; k < loop.iterations.size(); ++k) {
        const Iteration& it = loop.iterations[k];
        if (k > 0) periods.push_back(graph::elapsed_ns(time[order[loop.iterations[k - 1].begin]], time[order[it.begin]]));
        if (slots.is_slot(order[it.begin])) waits.push_back(graph::elapsed_ns(time[slots.input_of(order[it.begin])], time[order[it.begin]]));
    }
    return !periods.empty() && 4 * median(waits) >= median(periods);
}

// Each sample's segment from the one before it; false when a sample takes a
// queue input the replay does not serve as a slot (a changed queue).
bool PollingLoops::read_segment_kinds(Loop& loop, const Slots& slots) const {
    const auto& order = loop.order;
    loop.kind.assign(order.size(), SegmentKind::thread);
    for (std::uint32_t p = 0; p < order.size(); ++p) {
        bool other_queue_input = false;
        model_.for_each_constraint(order[p], [&](SampleIndex y, SegmentKind kind) {
            if (p > 0 && y == order[p - 1]) loop.kind[p] = kind;
            // A slot's one queue input from an earlier sample is its take.
            if (kind == SegmentKind::queue && y < order[p] && !slots.is_slot(order[p])) other_queue_input = true;
        });
        if (other_queue_input) return false;
    }
    return true;
}

// The messages, in recorded take order, with when each was there to take.
void PollingLoops::read_messages(Loop& loop, const Slots& slots, std::uint64_t takes) const {
    const auto& time = model_.samples().time_ns;
    const auto& at = loop.time;
    loop.messages.reserve(takes);
    for (std::uint32_t k = 0; k < loop.iterations.size(); ++k) {
        const Iteration& it = loop.iterations[k];
        for (std::uint32_t p = it.begin; p < it.tail_begin; ++p) {
            const SampleIndex x = loop.order[p];
            if (!slots.is_slot(x)) continue;
            if (p > it.begin) loop.messages.back().chain_end = p;
            const SampleIndex input = slots.input_of(x);
            Message m{input, p, it.tail_begin, k, 0, 0};
            // Taken at once when its thread was free (a tick's first take: at
            // the tick), so there by then; and not there yet when the
            // previous batch ended, or that batch would have taken it.
            const std::int64_t there_by = p == it.begin ? at[p] : at[p - 1];
            const std::int64_t handed = time[input] + model_.own_duration(input, x, SegmentKind::queue);
            m.arrival = std::min(there_by, k == 0 ? handed : std::max(handed, at[batch_last(loop, loop.iterations[k - 1])] + 1));
            if (p > it.begin) m.take_gap = graph::elapsed_ns(at[p - 1], at[p]);
            loop.messages.push_back(m);
        }
    }
}

bool PollingLoops::read_structure(Loop& loop, const Slots& slots) const {
    std::uint64_t takes = 0;
    const auto per_message = per_message_tracepoints(loop, slots, takes);
    if (!find_ticks(loop, slots, per_message, takes) || !waits_for_its_ticks(loop, slots) || !read_segment_kinds(loop, slots)) return false;
    // A loop then. Its recorded times, gathered once: read again and again
    // from here on, and by the simulation.
    loop.time.reserve(loop.order.size());
    for (const SampleIndex x : loop.order) loop.time.push_back(model_.samples().time_ns[x]);
    read_schedule(loop);
    read_messages(loop, slots, takes);
    return true;
}

// A tick that began within kPollingSlackNs of the previous iteration's end
// did not sleep: an overrun restarted the schedule there, and the gap is the
// loop's own between its last sample and the next tick (none where the
// recording has no overrun). Others slept until their deadline; the period
// is the median step between such ticks.
void PollingLoops::read_schedule(Loop& loop) const {
    const auto& at = loop.time;
    const auto& its = loop.iterations;
    const auto step = [&](std::size_t k) { return graph::elapsed_ns(at[its[k - 1].begin], at[its[k].begin]); };
    const auto gap = [&](std::size_t k) { return graph::elapsed_ns(at[its[k - 1].end - 1], at[its[k].begin]); };
    std::vector<std::int64_t> steps, restart_gaps;
    for (std::size_t k = 1; k < its.size(); ++k) {
        if (gap(k) >= kPollingSlackNs) steps.push_back(step(k));
        else restart_gaps.push_back(gap(k));
    }
    if (steps.empty()) return;
    const std::int64_t period = median(steps), restart_gap = restart_gaps.empty() ? 0 : median(restart_gaps);
    std::size_t split = 0;
    for (std::size_t k = 1; k < its.size(); ++k) split += 2 * step(k) < period;
    loop.scheduled = split * 100 <= its.size();
    if (!loop.scheduled) return;
    loop.ticks.resize(its.size());
    for (std::size_t k = 1; k < its.size(); ++k) {
        Tick& tick = loop.ticks[k];
        tick.restarted = gap(k) < kPollingSlackNs;
        tick.after_tick = tick.restarted ? std::min(period, step(k)) : step(k);
        tick.after_end = tick.restarted ? gap(k) : restart_gap;
    }
}

// One loop's simulation: its inputs in an inbox they enter when ready (at
// their new times) and leave in their recorded take order, and the loop's
// samples placed tick by tick.
class PollingLoops::LoopSimulation {
public:
    LoopSimulation(const Loop& loop, const graph::Column<std::int64_t>& recorded, graph::Column<std::int64_t>& time_ns, const ChangeTable& changes,
                   std::vector<std::uint64_t>& changed, SampleBits& moved, Outcome& out)
        : loop_(loop), time_ns_(time_ns), changes_(changes), changed_(changed), moved_(moved), out_(out),
          note_{loop.order[loop.messages.front().position], loop.messages.size(), 0, 0}, count_(loop.messages.size()), key_(count_),
          ready_(count_), by_ready_(count_), inbox_(LaterInInbox{&key_}) {
        // Each input's recorded place in the inbox and arrival, moved by as
        // much as its producer moved.
        for (std::size_t i = 0; i < count_; ++i) {
            const Message& m = loop.messages[i];
            const std::int64_t shift = time_ns[m.input] - recorded[m.input];
            key_[i] = loop.time[m.position] + shift;
            ready_[i] = m.arrival + shift;
        }
        std::iota(by_ready_.begin(), by_ready_.end(), 0u);
        std::stable_sort(by_ready_.begin(), by_ready_.end(), [&](std::uint32_t a, std::uint32_t b) { return ready_[a] < ready_[b]; });
    }

    // The loop's iterations, each at its tick taking the inputs in the inbox
    // and then doing its own work; then the inputs that come after the
    // recording's last tick, taken as they come.
    LoopNote run() {
        std::int64_t tick = kNoTime, free_at = kNoTime;
        for (std::uint32_t k = 0; k < loop_.iterations.size(); ++k) {
            const Iteration& it = loop_.iterations[k];
            tick = next_tick(k, tick, free_at);
            std::int64_t t = tick;
            for (enter_until(t); !inbox_.empty(); enter_until(t)) t = take(t, k);
            for (std::uint32_t p = it.tail_begin; p < it.end; ++p) place(loop_.order[p], t = p == it.begin ? t : after_previous(p, t));
            free_at = t;
        }
        while (entered_ < count_ || !inbox_.empty()) {
            if (inbox_.empty()) free_at = std::max(free_at, ready_[by_ready_[entered_]]);
            enter_until(free_at);
            free_at = take(free_at, kNone);
            ++note_.after_end;
        }
        return std::move(note_);
    }

private:
    // The inbox's order: by key, then by recorded take order.
    struct LaterInInbox {
        const std::vector<std::int64_t>* key;
        bool operator()(std::uint32_t a, std::uint32_t b) const { return (*key)[a] != (*key)[b] ? (*key)[a] > (*key)[b] : a > b; }
    };

    // Iteration k's tick: the recorded one for the first; on the schedule
    // (not before the thread is free) for a scheduled loop; else the recorded
    // one, or later when the thread is still busy.
    std::int64_t next_tick(std::uint32_t k, std::int64_t tick, std::int64_t free_at) {
        const std::int64_t recorded_tick = loop_.time[loop_.iterations[k].begin];
        if (k == 0) return recorded_tick;
        if (loop_.scheduled) {
            const Tick& scheduled = loop_.ticks[k];
            const std::int64_t deadline = tick + scheduled.after_tick, after_work = free_at + scheduled.after_end;
            out_.delayed_ticks += after_work > deadline && !scheduled.restarted;  // overran where the recording did not
            return std::max(deadline, after_work);
        }
        out_.delayed_ticks += free_at > recorded_tick;
        return std::max(recorded_tick, free_at);
    }
    void enter_until(std::int64_t t) {
        for (; entered_ < count_ && ready_[by_ready_[entered_]] <= t; ++entered_) inbox_.push(by_ready_[entered_]);
    }
    void place(SampleIndex x, std::int64_t t) {
        if (time_ns_[x] == t) return;
        out_.moved = true;
        moved_.set(x);
        time_ns_[x] = t;
    }
    std::int64_t after_previous(std::uint32_t p, std::int64_t t) const {
        const std::int64_t gap = graph::elapsed_ns(loop_.time[p - 1], loop_.time[p]);
        return t + changes_.apply(loop_.order[p - 1], loop_.order[p], loop_.kind[p], gap, changed_);
    }
    // The first input in the inbox, taken at t: the time its chain ends.
    std::int64_t take(std::int64_t t, std::uint32_t iteration) {
        const Message& m = loop_.messages[inbox_.top()];
        inbox_.pop();
        std::uint32_t p = m.position;
        t += m.take_gap;
        place(loop_.order[m.position], t);
        for (++p; p < m.chain_end; ++p) place(loop_.order[p], t = after_previous(p, t));
        note_.moved += m.iteration != iteration;
        return t;
    }

    const Loop& loop_;
    graph::Column<std::int64_t>& time_ns_;
    const ChangeTable& changes_;
    std::vector<std::uint64_t>& changed_;
    SampleBits& moved_;
    Outcome& out_;
    LoopNote note_;
    std::size_t count_;
    std::vector<std::int64_t> key_, ready_;
    std::vector<std::uint32_t> by_ready_;  // the inputs in the order they enter the inbox
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, LaterInInbox> inbox_;
    std::size_t entered_ = 0;
};

PollingLoops::Outcome PollingLoops::simulate(graph::Column<std::int64_t>& time_ns, const ChangeTable& changes, std::vector<std::uint64_t>& changed,
                                             SampleBits& moved) const {
    Outcome out;
    for (const Loop& loop : loops_) out.notes.push_back(LoopSimulation(loop, model_.samples().time_ns, time_ns, changes, changed, moved, out).run());
    return out;
}

}  // namespace hashtrace::critical_path
