#include "replay.hpp"

#include "change_table.hpp"
#include "polling_loops.hpp"
#include "sample_bits.hpp"
#include "slots.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <latch>
#include <limits>
#include <queue>
#include <unordered_map>

namespace hashtrace::critical_path {
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
    std::uint32_t edge;  // producer -> its slot (an index into the graph's edges): which input this is
    bool operator>(const Queued& o) const { return enqueued != o.enqueued ? enqueued > o.enqueued : producer > o.producer; }
};
// The replay's passes over the run, in recorded order, into `r`.
//
// Each pass starts from the one before it and recomputes only what moves:
// the first from the recording (with every time as recorded, every sample's
// constraints give it its recorded time: the model's own durations are made
// so), the second, after the polling loops' simulation, from the first, with
// the loops' samples placed by it. A sample's new time depends on its
// constraints' times, its queue's service and the recording alone, so a
// sample none of whose constraints moved or changed, and (a slot) that is
// served the input the pass before served it, from a producer that did not
// move, keeps its time: its constraints are not read again. A queue serves
// its slots as the pass before did until a producer that moved queues an
// input in it (or, in the first pass, until a slot tied with the next of its
// queue: slots.hpp); from there it is served again, from the inputs the pass
// before had in it then, until it is empty where that pass's was. The counts
// of what is found again are taken back and taken again.
class Replayer {
public:
    // The recording's state, laid out on `threads` threads: its pages are
    // new to the process, and the kernel's first touch of each is much of
    // what a pass over a large run costs when one thread does it.
    Replayer(const DependenceModel& model, const ChangeTable& table, const Slots& slots, std::size_t changes, unsigned threads, Replay& r)
        : model_(model), s_(model.samples()), g_(model.graph()), table_(table), slots_(slots), r_(r), pending_(slots.queues().size()),
          ignored_changes_(changes, 0) {
        r.changed_segments.assign(changes, 0);
        r.queues = slots.queues();
        r.reorderings = r.delayed_external = r.backward_constraints = 0;
        const std::size_t n = s_.size();
        // Samples a change applies to: those of the tracepoints changed segments end at.
        std::vector<char> changed_end(s_.tracepoints.size(), 0);
        for (std::size_t c = 0; c < model.classes().size(); ++c)
            if (!table.of_class(std::uint32_t(c)).empty())
                for (std::size_t t = 0; t < changed_end.size(); ++t)
                    changed_end[t] |= model.label_of_tracepoint(graph::TracepointId(t)) == model.classes()[c].to_label;
        r.time_ns.resize(n);
        served_edge_.resize(slots.count());
        again_ = moved_ = starved_ = SampleBits(n);
        emptied_ = slots.emptied_as_recorded();
        const std::size_t chunks = 4 * std::size_t{threads};
        std::vector<std::uint64_t> backward(chunks, 0);
        graph::parallel::for_each(chunks, threads, [&](std::size_t c, unsigned) {
            const auto [first_word, end_word] = graph::parallel::chunk(again_.words(), c, chunks);
            for (std::size_t w = first_word; w < end_word; ++w)
                for (auto x = SampleIndex(w * 64); x < std::min(n, (w + 1) * 64); ++x) {
                    r.time_ns[x] = s_.time_ns[x];
                    // Found again: where a change applies, and where the constraint
                    // that gave the recorded time is not one the replay reads (recorded after it).
                    const SampleIndex by = model.determined_by(x);
                    if (changed_end[s_.tracepoint[x]] || (by != kNone && by >= x)) again_.word(w) |= SampleBits::bit(x);
                }
            const auto [first, last] = graph::parallel::chunk(served_edge_.size(), c, chunks);
            std::copy(slots.input_edges().begin() + std::ptrdiff_t(first), slots.input_edges().begin() + std::ptrdiff_t(last),
                      served_edge_.begin() + std::ptrdiff_t(first));
            for (auto [e, end] = graph::parallel::chunk(g_.edges.size(), c, chunks); e < end; ++e) backward[c] += g_.edges[e].from >= g_.edges[e].to;
        });
        for (const std::uint64_t b : backward) r.backward_constraints += b;
        served_again_.assign(pending_.size(), false);
    }

    // Every sample at the latest of its constraints' new times plus its own
    // durations, slots at their inputs' turns.
    void first_pass() { pass(nullptr); }

    // The counts the first pass took of the loops' samples, which the second
    // pass places by their simulation: before the simulation moves them.
    struct Counts {
        std::vector<std::uint64_t> changed;
        std::uint64_t backward = 0, delayed = 0;
    };
    Counts counts_of(const PollingLoops& loops) const {
        Counts c{std::vector<std::uint64_t>(r_.changed_segments.size(), 0)};
        loops.for_each_simulated([&](SampleIndex x) {
            latest_constraint(x, c.changed, c.backward);
            c.delayed += delayed(x, r_.time_ns[x]);
        });
        return c;
    }

    // Again, with the loops' samples where their simulation placed them in
    // r.time_ns (`moved`: those it moved; `placed`: what the first pass
    // counted of them).
    void second_pass(const PollingLoops& loops, SampleBits moved, const Counts& placed) {
        for (std::size_t c = 0; c < placed.changed.size(); ++c) r_.changed_segments[c] -= placed.changed[c];
        r_.backward_constraints -= placed.backward;
        r_.delayed_external -= placed.delayed;
        loops.for_each_simulated([&](SampleIndex x) {
            if (slots_.is_slot(x)) uncount_service(x, slots_.queue_of(x), slots_.rank(x));
        });
        for (auto& queue : pending_) queue = {};
        served_again_.assign(pending_.size(), false);
        queues_served_again_ = 0;
        moved_ = std::move(moved);
        again_ = SampleBits(s_.size());
        pass(&loops);
    }

private:
    // One pass (the second: with the samples `placed` places), word by word,
    // visiting the samples with something to do: those whose time is to be
    // found again, those that moved, tied slots (in the first pass) and,
    // while some queue is served again, every slot (not placed ones) and
    // every sample that queues inputs. A visit may set bits of later samples
    // of its word. The first pass notes what the
    // second needs: the inputs its slots were served, which found none yet,
    // which left their queue empty.
    void pass(const PollingLoops* placed) {
        first_ = placed == nullptr;
        auto& changed_counts = first_ ? r_.changed_segments : ignored_changes_;
        for (std::size_t w = 0; w < moved_.words(); ++w) {
            const std::uint64_t pinned = placed != nullptr ? placed->simulated_word(w) : 0;
            const std::uint64_t slots = slots_.slot_word(w) & ~pinned, feeds = slots_.feeds_word(w);
            const std::uint64_t tied = first_ ? slots_.tied_word(w) : 0;
            for (std::uint64_t visited = 0;;) {
                const std::uint64_t some_served_again = queues_served_again_ > 0 ? ~std::uint64_t{0} : 0;
                const std::uint64_t visit =
                    (again_.word(w) | moved_.word(w) | tied | ((slots | feeds) & some_served_again)) &
                    ~visited;
                if (visit == 0) break;
                const int b = std::countr_zero(visit);
                const std::uint64_t bit = std::uint64_t{1} << b;
                visited = (bit << 1) - 1;  // 0 - 1 for the last bit: all
                const auto x = SampleIndex(w * 64 + std::size_t(b));
                std::int64_t t = r_.time_ns[x];
                if (pinned & bit) {
                    if (moved_.test(x)) mark_dependents(x);
                } else if (slots & bit) {
                    t = serve_again(x, t, changed_counts);
                } else if (again_.test(x)) {
                    t = changed(x, unserved_time(x, latest_constraint(x, changed_counts, ignored_backward_)));
                }
                if ((feeds & bit) && (moved_.test(x) || queues_served_again_ > 0))
                    for_each_slot_input(x, placed, [&](std::uint32_t e, std::uint32_t q) {
                        if (!served_again_[q]) {
                            if (!moved_.test(x)) return;  // the input the pass before queued
                            serve_again_from(q, x + 1, x, e);
                        }
                        pending_[q].push(queued(e, t));
                    });
            }
        }
    }

    // Slot x (its time in the pass before: `t`): its new time.
    std::int64_t serve_again(SampleIndex x, std::int64_t t, std::vector<std::uint64_t>& changed_counts) {
        const std::uint32_t rank = slots_.rank(x);
        const std::uint32_t q = slots_.queue_of(x);
        uncount_service(x, q, rank);
        bool starved = starved_.test(x);
        // The recording's order need not serve a tied slot its own input.
        if (first_ && !served_again_[q] && slots_.tied(x)) serve_again_from(q, x, x, 0);  // from x: its own pop
        if (served_again_[q]) {
            const Queued served = serve(x, q, slots_.input_of(x));
            if (again_.test(x) || served.edge != served_edge_[rank] || moved_.test(served.producer))
                t = changed(x, served_time(x, latest_constraint(x, changed_counts, ignored_backward_), served, starved));
            const bool emptied = pending_[q].empty();
            if (emptied && emptied_.test(x)) {  // as the pass before left it: served as there from here
                served_again_[q] = false;
                --queues_served_again_;
            }
            if (first_) {
                served_edge_[rank] = served.edge;
                if (emptied) emptied_.set(x);
                else emptied_.clear(x);
            }
        } else {
            // The input the pass before served it, from a producer that did not move.
            const std::uint32_t e = served_edge_[rank];
            const SampleIndex producer = g_.edges[e].from;
            count_reordering(x, q, e, slots_.input_of(x));
            if (again_.test(x))
                t = changed(x, served_time(x, latest_constraint(x, changed_counts, ignored_backward_), queued(e, r_.time_ns[producer]), starved));
        }
        if (first_) {
            if (starved) starved_.set(x);
            else starved_.clear(x);
        }
        r_.queues[q].starved += starved;
        return t;
    }

    // Takes back what the pass before counted of slot x's service (it is
    // counted again, or not at all where the loops' simulation places x).
    void uncount_service(SampleIndex x, std::uint32_t q, std::uint32_t rank) {
        const graph::Edge& served = g_.edges[served_edge_[rank]];
        if (served.from != slots_.input_of(x)) {
            --r_.queues[q].reordered;
            --r_.reorderings;
            // Unless this pass served that input already, to another slot.
            if (const auto it = r_.served_slot.find(Replay::served_key(served.from, served.to)); it != r_.served_slot.end() && it->second == x)
                r_.served_slot.erase(it);
        }
        r_.queues[q].starved -= starved_.test(x);
    }

    // Queue q to be served again, from slot `from` on, from the pass
    // before's inputs in it then: those queued before (by producers before
    // `producer`, or by it before `edge`) that slots from `from` on took.
    // Each was taken by the time that pass's queue was next empty.
    void serve_again_from(std::uint32_t q, SampleIndex from, SampleIndex producer, std::uint32_t edge) {
        served_again_[q] = true;
        ++queues_served_again_;
        const std::size_t n = s_.size();
        for (SampleIndex z = from; z < n; ++z) {
            if (!slots_.is_slot(z) || slots_.queue_of(z) != q) continue;
            const std::uint32_t taken = served_edge_[slots_.rank(z)];
            const SampleIndex by = g_.edges[taken].from;
            if (by < producer || (by == producer && taken < edge)) pending_[q].push(queued(taken, r_.time_ns[by]));
            if (emptied_.test(z)) break;
        }
    }

    // x's new time t, found again: noted where it moved.
    std::int64_t changed(SampleIndex x, std::int64_t t) {
        const std::int64_t before = r_.time_ns[x];
        if (t == before) return t;
        r_.delayed_external += delayed(x, t);
        r_.delayed_external -= delayed(x, before);
        r_.time_ns[x] = t;
        moved_.set(x);
        mark_dependents(x);
        return t;
    }

    // x's constraints but a slot's queue input: the latest of their new
    // times plus their own durations, changed where changes match (counted in
    // `changed`); `started`: x's own start, where outside the trace.
    struct Latest {
        std::int64_t t = kNoTime, started = kNoTime;
        SampleIndex slot_input = kNone;
    };
    Latest latest_constraint(SampleIndex x, std::vector<std::uint64_t>& changed, std::uint64_t& backward) const {
        Latest latest;
        latest.started = model_.external(x) ? s_.time_ns[x] : kNoTime;  // by its tick or device
        bool wait_set = false;
        const bool slot = slots_.is_slot(x);
        model_.for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            if (y >= x) {
                ++backward;
                return;
            }
            if (slot && kind == SegmentKind::queue) {  // its one queue input: served from its queue
                latest.slot_input = y;
                return;
            }
            const std::uint32_t segment_class = model_.class_index(y, x, kind);
            const auto& matching = table_.of_class(segment_class);
            if (kind == SegmentKind::queue && !matching.empty()) {
                // The wait in this queue is what changes.
                latest.t = r_.time_ns[y] + table_.apply(matching, std::max<std::int64_t>(0, graph::elapsed_ns(s_.time_ns[y], s_.time_ns[x])), changed);
                latest.started = kNoTime;
                wait_set = true;
                return;
            }
            if (!wait_set) latest.t = std::max(latest.t, r_.time_ns[y] + table_.apply(matching, model_.own_duration(y, x, kind, segment_class), changed));
        });
        return latest;
    }

    std::int64_t unserved_time(SampleIndex x, const Latest& latest) const {
        const std::int64_t t = std::max(latest.t, latest.started);
        return t == kNoTime ? s_.time_ns[x] : t;  // every input recorded after it
    }

    // Slot x's time, `served` from its queue; `starved`: it found the input
    // not there yet.
    std::int64_t served_time(SampleIndex x, const Latest& latest, const Queued& served, bool& starved) const {
        std::int64_t started = latest.started;
        // A polling take whose input is now queued before its thread
        // finished the work before it (it came while the thread was
        // still busy, in the recording after) would have been taken
        // then, in that batch, not at the next tick.
        if (const SampleIndex pred = model_.thread_predecessor(x); started != kNoTime && pred != kNone && pred < x) {
            const std::int64_t recorded_ready = served.ready - (r_.time_ns[served.producer] - s_.time_ns[served.producer]);
            if (served.ready <= r_.time_ns[pred] && recorded_ready > s_.time_ns[pred]) started = kNoTime;
        }
        const std::int64_t t = std::max(latest.t, started);
        const bool blocking = model_.determined_by(x) == latest.slot_input;  // the recorded take waited for its input
        starved = !blocking && served.ready > t;
        return std::max(t, served.ready);
    }

    // The next input of queue q, for slot x whose recorded input is `input`.
    Queued serve(SampleIndex x, std::uint32_t q, SampleIndex input) {
        const Queued served = pending_[q].top();  // never empty: x's own input was queued before x
        pending_[q].pop();
        count_reordering(x, q, served.edge, input);
        return served;
    }
    // Slot x of queue q served the input edge e brings, where its recorded input is `input`.
    void count_reordering(SampleIndex x, std::uint32_t q, std::uint32_t e, SampleIndex input) {
        const graph::Edge& served = g_.edges[e];
        if (served.from == input) return;
        ++r_.queues[q].reordered;
        ++r_.reorderings;
        r_.served_slot[Replay::served_key(served.from, served.to)] = x;
    }

    // Calls f(e, q) for each edge e by which x's output goes to a slot (not
    // one `placed` places), q being that slot's queue.
    template <typename F> void for_each_slot_input(SampleIndex x, const PollingLoops* placed, F&& f) const {
        for (std::uint32_t e = g_.out_offset[x]; e < g_.out_offset[x + 1]; ++e)
            if (const SampleIndex to = g_.edges[e].to; slots_.is_slot_input_edge(e) && !(placed != nullptr && placed->simulated(to)))
                f(e, slots_.queue_of(to));
    }
    // The input edge e queues, its producer at new time t.
    Queued queued(std::uint32_t e, std::int64_t t) const {
        const graph::Edge& edge = g_.edges[e];
        return {s_.time_ns[edge.to] + (t - s_.time_ns[edge.from]), t + model_.own_duration(edge.from, edge.to, SegmentKind::queue), edge.from, e};
    }

    bool delayed(SampleIndex x, std::int64_t t) const { return model_.external(x) && t > s_.time_ns[x]; }
    void mark_dependents(SampleIndex x) {
        model_.for_each_dependent(x, [&](SampleIndex z, SegmentKind) {
            if (z > x) again_.set(z);
        });
    }

    const DependenceModel& model_;
    const graph::SampleSet& s_;
    const graph::Graph& g_;
    const ChangeTable& table_;
    const Slots& slots_;
    Replay& r_;
    std::vector<std::priority_queue<Queued, std::vector<Queued>, std::greater<>>> pending_;  // per queue
    // The pass before's (the recording's, then the first pass's): per slot
    // (by rank) the edge of the input it was served; the slots that found
    // none, and those that left their queue empty.
    graph::Column<std::uint32_t> served_edge_;
    SampleBits starved_, emptied_;
    bool first_ = true;  // the pass is the first: it notes these for the second
    // The pass's: the samples whose time moved; those whose time is to be
    // found again (a constraint moved or changed). Per queue: served again
    // (else as in the pass before).
    SampleBits moved_, again_;
    std::vector<bool> served_again_;
    std::size_t queues_served_again_ = 0;
    // What the second pass counts again of samples the first counted already.
    std::vector<std::uint64_t> ignored_changes_;
    std::uint64_t ignored_backward_ = 0;
};

// Counts a latch down when it goes out of scope, a failure too (so that no
// task waits for it forever; `failed` tells those waiting).
class CountDown {
public:
    CountDown(std::latch& latch, std::atomic<bool>& failed) : latch_(latch), failed_(failed), exceptions_(std::uncaught_exceptions()) {}
    ~CountDown() {
        if (std::uncaught_exceptions() > exceptions_) failed_ = true;
        latch_.count_down();
    }
    CountDown(const CountDown&) = delete;
    CountDown& operator=(const CountDown&) = delete;

private:
    std::latch& latch_;
    std::atomic<bool>& failed_;
    int exceptions_;
};

}  // namespace

// The replay, as tasks on all cores, taken in this order by whichever
// thread is free: the first pass; each polling loop candidate's reading;
// beside.find; the loops' simulation and the second pass (once the first
// pass and the readings are done); beside's walks (once find is done, and
// the second pass has begun, where there is one, or the first pass has told
// whether any input was served by another slot).
Replay replay_with(const DependenceModel& model, const std::vector<Change>& changes, const Beside& beside) {
    const unsigned threads = graph::parallel::thread_count(0);
    const ChangeTable table(model, changes);
    const Slots slots(model, table, threads);
    PollingLoops loops(model, slots);
    Replay r;
    Replayer replayer(model, table, slots, changes.size(), threads, r);
    const std::size_t reads = loops.candidates(), find = 1 + reads, again = find + 1, walks = again + 1;
    std::latch replayed(std::ptrdiff_t(1 + reads)), found(1), decided(1);
    std::atomic<bool> failed = false;
    bool paths_needed = false;
    std::vector<std::uint64_t> loop_changes(changes.size(), 0);
    PollingLoops::Outcome outcome;
    graph::parallel::for_each(walks + beside.parts, threads, [&](std::size_t k, unsigned) {
        if (k < find) {
            const CountDown done(replayed, failed);
            if (k == 0) replayer.first_pass();
            else loops.read(k - 1);  // the polling loops are read off the recording
        } else if (k == find) {
            const CountDown done(found, failed);
            if (beside.find) beside.find();
        } else if (k == again) {
            {
                const CountDown done(decided, failed);
                replayed.wait();
                if (failed) return;
                loops.keep();
                paths_needed = !loops.empty() || r.reorderings > 0;
            }
            if (loops.empty()) return;
            // The loops simulated from their inputs' new times, and the run
            // replayed again with the loops' times, once: what feeds a loop may
            // depend on it (haptics and physics feed each other), but through
            // threads the replay keeps in their recorded order (a socket's
            // thread that sends and receives), which would amplify a delay
            // round after round that the real thread, serving whichever comes
            // first, does not have.
            const Replayer::Counts placed = replayer.counts_of(loops);
            SampleBits moved(model.samples().size());
            outcome = loops.simulate(r.time_ns, table, loop_changes, moved);
            // Else the replay's own batches are the loops' (an unchanged run).
            if (outcome.moved) replayer.second_pass(loops, std::move(moved), placed);
        } else {
            found.wait();
            decided.wait();
            if (!failed && paths_needed) beside.walk(k - walks);
        }
    });
    if (outcome.moved) {
        for (std::size_t c = 0; c < changes.size(); ++c) r.changed_segments[c] += loop_changes[c];
        r.delayed_external += outcome.delayed_ticks;
        for (const auto& note : outcome.notes) {
            QueueNote& q = r.queues[slots.queue_of(note.take)];
            q.moved = note.moved;
            q.after_end = note.after_end;
            q.simulated = true;
        }
    }
    std::erase_if(r.queues, [](const QueueNote& q) { return q.reordered == 0 && q.starved == 0 && q.moved == 0 && q.after_end == 0; });
    return r;
}

Replay replay(const DependenceModel& model, const std::vector<Change>& changes) {
    return replay_with(model, changes, Beside{});
}

}  // namespace hashtrace::critical_path
