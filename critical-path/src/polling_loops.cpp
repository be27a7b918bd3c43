#include "polling_loops.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace hashtrace::critpath {
namespace {

constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

}  // namespace

PollingLoops::PollingLoops(const DependenceModel& model, const std::vector<SampleIndex>& slot_input) : model_(model) {
    const auto& s = model.samples();
    const std::size_t n = s.size();
    // One sample of each thread that has a take started by its tick.
    std::unordered_map<std::uint64_t, SampleIndex> candidates;
    for (SampleIndex x = 0; x < n; ++x)
        if (slot_input[x] != kNone && model.external(x))
            candidates.try_emplace((std::uint64_t{s.tracepoint_of(x).instance_id} << 32) | s.thread[x], x);
    if (candidates.empty()) return;
    loop_of_.assign(n, kNone);
    position_.assign(n, kNone);
    for (const auto& [key, sample] : candidates) {
        Loop loop;
        SampleIndex first = sample;
        while (model.thread_predecessor(first) != kNone) first = model.thread_predecessor(first);
        for (SampleIndex x = first; x != kNone; x = model.thread_successor(x)) {
            position_[x] = static_cast<std::uint32_t>(loop.order.size());
            loop.order.push_back(x);
        }
        if (read_structure(loop, slot_input)) {
            for (const SampleIndex x : loop.order) loop_of_[x] = static_cast<std::uint32_t>(loops_.size());
            loops_.push_back(std::move(loop));
        }
    }
    if (loops_.empty()) {
        loop_of_.clear();
        position_.clear();
    }
}

bool PollingLoops::read_structure(Loop& loop, const std::vector<SampleIndex>& slot_input) const {
    const auto& s = model_.samples();
    const auto& time = s.time_ns;
    const auto& order = loop.order;
    const auto count = static_cast<std::uint32_t>(order.size());
    loop.gap.assign(count, 0);
    loop.kind.assign(count, SegmentKind::thread);
    loop.take_of.assign(count, kNone);

    // The tracepoints a message carries: one sample per take (each update
    // applied). The loop's own work (a frame drawn, a force computed) comes
    // once per tick, however many messages the tick took.
    std::uint64_t takes = 0;
    std::unordered_map<graph::TracepointId, std::uint64_t> samples_of;
    for (const SampleIndex x : order) {
        if (slot_input[x] != kNone) ++takes;
        else ++samples_of[s.tracepoint[x]];
    }
    std::vector<std::uint8_t> per_message(s.tracepoints.size(), 0);
    for (const auto& [t, c] : samples_of) per_message[t] = c * 100 >= takes * 99 && c * 100 <= takes * 101;

    bool in_chain = false;
    std::uint32_t first_tail = kNone;
    std::vector<graph::TracepointId> own_work;  // the current iteration's own tracepoints
    std::int64_t batch_end = kNoTime, previous_batch_end = kNoTime;
    std::uint64_t first_takes = 0, left_behind = 0;
    auto close_iteration = [&](std::uint32_t end) {
        Iteration& it = loop.iterations.back();
        it.end = end;
        it.tail_begin = first_tail == kNone ? end : first_tail;
        if (in_chain) loop.messages.back().chain_end = end;
        previous_batch_end = it.tail_begin == it.begin ? time[order[it.begin]] : batch_end;
    };
    for (std::uint32_t p = 0; p < count; ++p) {
        const SampleIndex x = order[p];
        const bool take = slot_input[x] != kNone;
        bool other_queue_input = false;
        model_.for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            if (p > 0 && y == order[p - 1]) loop.kind[p] = kind;
            if (kind == SegmentKind::queue && y < x && y != slot_input[x]) other_queue_input = true;
        });
        if (other_queue_input) return false;  // a take the replay does not serve as a slot (a changed queue)
        if (p > 0) loop.gap[p] = graph::elapsed_ns(time[order[p - 1]], time[x]);

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
        }
        if (take) {
            if (in_chain) loop.messages.back().chain_end = p;
            Message m{x, slot_input[x], p + 1, static_cast<std::uint32_t>(loop.iterations.size() - 1), 0, 0};
            const std::int64_t handed = time[m.input] + model_.own_duration(m.input, x, SegmentKind::queue);
            if (p == loop.iterations.back().begin) {
                // The tick's first take: its input was not there when the
                // previous batch ended (or the loop does not drain its inbox).
                ++first_takes;
                if (previous_batch_end != kNoTime && handed + kPollingSlackNs < previous_batch_end) ++left_behind;
                m.arrival = std::min(time[x], previous_batch_end == kNoTime ? handed : std::max(handed, previous_batch_end + 1));
            } else {
                // Taken as soon as its thread was free: it was there by then.
                m.arrival = std::min(handed, time[order[p - 1]]);
                m.take_gap = loop.gap[p];
            }
            loop.take_of[p] = static_cast<std::uint32_t>(loop.messages.size());
            loop.messages.push_back(m);
            in_chain = true;
            batch_end = time[x];
        } else if (!own) {
            loop.messages.back().chain_end = p + 1;
            batch_end = time[x];
        } else {
            if (in_chain) loop.messages.back().chain_end = p;
            if (first_tail == kNone) first_tail = p;
            in_chain = false;
            own_work.push_back(s.tracepoint[x]);
        }
    }
    if (count > 0) close_iteration(count);
    // A loop that leaves inputs in its inbox at the end of a batch takes a
    // bounded number per tick: not one this simulation is right for.
    if (loop.messages.empty() || left_behind * 100 > first_takes) return false;
    // A loop that polls at its own ticks takes its first input of a tick
    // whenever the tick comes, a good part of a period after it arrived; a
    // consumer woken by its input (a socket's sender) takes it after the
    // wake-up alone, however late that is on a busy machine. Ticks: the
    // iterations' first takes waited at least a quarter of the median time
    // between iterations, in the median.
    std::vector<std::int64_t> waits, periods;
    for (std::size_t k = 0; k < loop.iterations.size(); ++k) {
        const Iteration& it = loop.iterations[k];
        if (k > 0) periods.push_back(graph::elapsed_ns(time[order[loop.iterations[k - 1].begin]], time[order[it.begin]]));
        if (const SampleIndex first = order[it.begin]; slot_input[first] != kNone)
            waits.push_back(graph::elapsed_ns(time[slot_input[first]], time[first]));
    }
    if (waits.empty() || periods.empty()) return false;
    const auto median = [](std::vector<std::int64_t>& v) {
        std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    return 4 * median(waits) >= median(periods);
}

PollingLoops::Outcome PollingLoops::simulate(std::vector<std::int64_t>& time_ns, ChangeTable& changes, std::vector<std::uint64_t>& changed) const {
    const auto& recorded = model_.samples().time_ns;
    Outcome out;
    for (const Loop& loop : loops_) {
        LoopNote note{loop.messages.front().take, loop.messages.size(), 0, 0};
        const std::size_t count = loop.messages.size();
        // Each input's recorded place in the inbox and arrival, moved by as
        // much as its producer moved.
        std::vector<std::int64_t> key(count), ready(count);
        for (std::size_t i = 0; i < count; ++i) {
            const Message& m = loop.messages[i];
            const std::int64_t shift = time_ns[m.input] - recorded[m.input];
            key[i] = recorded[m.take] + shift;
            ready[i] = m.arrival + shift;
        }
        std::vector<std::uint32_t> by_key(count);
        std::iota(by_key.begin(), by_key.end(), 0u);
        std::stable_sort(by_key.begin(), by_key.end(), [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });

        auto after_previous = [&](std::uint32_t p, std::int64_t t) {
            return t + changes.apply(loop.order[p - 1], loop.order[p], loop.kind[p], loop.gap[p], changed);
        };
        std::size_t next = 0;
        std::int64_t free_at = kNoTime;
        auto take_next = [&](std::int64_t t, std::uint32_t iteration) {
            const Message& m = loop.messages[by_key[next++]];
            std::uint32_t p = position_[m.take];
            t += m.take_gap;
            time_ns[m.take] = t;
            for (++p; p < m.chain_end; ++p) time_ns[loop.order[p]] = t = after_previous(p, t);
            note.moved += m.iteration != iteration;
            return t;
        };
        for (std::uint32_t k = 0; k < loop.iterations.size(); ++k) {
            const Iteration& it = loop.iterations[k];
            const std::int64_t tick = recorded[loop.order[it.begin]];
            const std::int64_t start = free_at == kNoTime ? tick : std::max(tick, free_at);
            out.delayed_ticks += free_at != kNoTime && free_at > tick;
            std::int64_t t = start;
            auto run_range = [&](std::uint32_t begin, std::uint32_t end) {
                for (std::uint32_t p = begin; p < end; ++p) time_ns[loop.order[p]] = t = p == it.begin ? t : after_previous(p, t);
            };
            while (next < count && ready[by_key[next]] <= t) t = take_next(t, k);
            run_range(it.tail_begin, it.end);
            free_at = t;
        }
        // Inputs that come after the recording's last tick: taken as they come.
        for (; next < count; ++note.after_end) free_at = take_next(std::max(free_at, ready[by_key[next]]), kNone);
        out.notes.push_back(std::move(note));
    }
    return out;
}

}  // namespace hashtrace::critpath
