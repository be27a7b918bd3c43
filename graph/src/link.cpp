// Linking (docs/spec.md section 4) as a partitioned hash join, per unit of the
// hash ids (units sized for a core's L2 cache, joined in parallel, largest
// first):
//   1. gather producers (samples with an output hash) and consumers (samples
//      with an input hash) into compact records {time, sample, source},
//      grouped by hash id with a stable counting sort of the time-ordered
//      samples, reading only the stretch of samples where the unit's hashes
//      occur; producers of one hash are then ordered by source, so each
//      (hash, source) run is in time order;
//   2. per hash, for each of its consumers visit the producer runs of the
//      sources allowed to link to it (looked up from the pair table's list
//      for the consumer's source, or by trying each run, whichever is
//      shorter); per allowed run, the latest producer at or before the
//      consumer's time (+ tolerance), skipping itself and other threads where
//      the scope requires one thread (a hash with few producers, such as a
//      message id, is not ordered by source: each consumer walks back from
//      its latest producer, taking the first acceptable one of each source);
//   3. count each producer's and consumer's edges (a unit spanning much of
//      the run first groups its edges by block of consumers);
//   4. once every unit has counted, place its edges into the compressed rows
//      of both directions (again per unit, in parallel).
// Step 2 reads both sides sequentially (the records of one hash are
// contiguous), where probing by consumer in time order would miss the cache
// several times per consumer. Step 4 sorts nothing but each consumer's few
// in-edges: a sample's output hash, and so all its out-edges, belongs to one
// unit, which lists them in consumer (index) order; likewise a consumer's
// in-edges come from one unit, next to each other.
#include "hashtrace/graph/link.hpp"

#include "consumer_blocks.hpp"
#include "hashtrace/graph/detail/huge_pages.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "pair_table.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace hashtrace::graph {
namespace {

struct Endpoint {
    std::int64_t time;
    SampleIndex sample;
    std::uint32_t source;
};

// Where each hash id's group starts among all samples with that hash column
// set (size hash_count+1), and per block of 2^kBlockShift ids the first and
// last sample using one of them.
struct HashCounts {
    static constexpr unsigned kBlockShift = 10;
    Column<std::uint32_t> offsets;
    Column<SampleIndex> block_first, block_last;
};

HashCounts count_hashes(const SampleSet& s, std::span<const HashId> hash) {
    HashCounts c;
    c.offsets.assign(s.hash_count + 1, 0);
    const std::size_t blocks = (s.hash_count >> HashCounts::kBlockShift) + 1;
    constexpr SampleIndex kUnused = std::numeric_limits<SampleIndex>::max();
    c.block_first.assign(blocks, kUnused);
    c.block_last.assign(blocks, 0);
    for (SampleIndex i = 0; i < hash.size(); ++i) {
        const HashId h = hash[i];
        if (h == kNoHash) continue;
        ++c.offsets[h + 1];
        const std::size_t b = h >> HashCounts::kBlockShift;
        if (c.block_first[b] == kUnused) c.block_first[b] = i;  // (not min(): a load-store chain from one sample to the next)
        c.block_last[b] = i;
    }
    for (std::size_t h = 0; h < s.hash_count; ++h) c.offsets[h + 1] += c.offsets[h];
    return c;
}

// A unit of the join: the hashes [first_hash, last_hash), whose producers
// and consumers all are among samples [sample_first, sample_end).
struct JoinUnit {
    std::size_t first_hash, last_hash;
    SampleIndex sample_first, sample_end;
};

struct JoinPlan {
    Column<std::uint32_t> producer_offset, consumer_offset;  // HashCounts::offsets of output and input
    std::vector<std::uint32_t> source_of_tracepoint, instance_of_source;
    std::vector<JoinUnit> units;
};

// Units of whole blocks of hash ids, each with about kUnitRecords producers
// and consumers, so that its records are gathered into and joined in a
// worker's L2 cache instead of main memory. The loader numbers hashes in
// order of first use within a log, so a block's samples usually lie in a
// short stretch of the run, which is all a unit's gathering reads. Blocks of
// hashes used all over the run (counters that wrap) are joined in larger
// units, so that reading their stretch costs at most kMaxReadPerRecord
// samples a record. A unit never takes more than 1 / (4 x threads) of all
// records, so that the workers' records stay a small fraction of the
// samples' size (the run's peak) whatever the hashes' layout.
void plan_units(JoinPlan& plan, const HashCounts (&counts)[2], std::size_t hash_count, unsigned threads) {
    constexpr std::size_t kUnitRecords = std::size_t{1} << 16, kMaxReadPerRecord = 2;
    const std::size_t all_records = std::size_t{plan.producer_offset.back()} + plan.consumer_offset.back();
    const std::size_t most_records = std::max<std::size_t>(kUnitRecords, all_records / (4 * std::size_t{threads}));
    auto records_of = [&](std::size_t first, std::size_t last) {
        return std::size_t{plan.producer_offset[last] - plan.producer_offset[first]} + (plan.consumer_offset[last] - plan.consumer_offset[first]);
    };
    JoinUnit unit{0, 0, std::numeric_limits<SampleIndex>::max(), 0};
    SampleIndex last_sample = 0;
    for (std::size_t b = 0; b < counts[0].block_first.size(); ++b) {
        unit.last_hash = std::min(hash_count, (b + 1) << HashCounts::kBlockShift);
        for (const HashCounts& c : counts) {
            unit.sample_first = std::min(unit.sample_first, c.block_first[b]);
            last_sample = std::max(last_sample, c.block_last[b]);
        }
        const std::size_t records = records_of(unit.first_hash, unit.last_hash);
        const std::size_t read = unit.sample_first <= last_sample ? std::size_t{last_sample} - unit.sample_first + 1 : 0;
        if (b + 1 < counts[0].block_first.size() && records < most_records && (records < kUnitRecords || read > kMaxReadPerRecord * records))
            continue;
        unit.sample_end = read ? last_sample + 1 : unit.sample_first;
        plan.units.push_back(unit);
        unit = {unit.last_hash, unit.last_hash, std::numeric_limits<SampleIndex>::max(), 0};
        last_sample = 0;
    }
}

// counts: of the output and the input column (moved from).
JoinPlan plan_join(const SampleSet& s, HashCounts (&counts)[2], unsigned threads) {
    JoinPlan plan;
    plan.producer_offset = std::move(counts[0].offsets);
    plan.consumer_offset = std::move(counts[1].offsets);
    plan.instance_of_source.resize(s.source_count);
    for (const Tracepoint& tp : s.tracepoints) {
        plan.source_of_tracepoint.push_back(tp.source_id);
        plan.instance_of_source[tp.source_id] = tp.instance_id;
    }
    plan_units(plan, counts, s.hash_count, threads);
    // Largest first: the workers take units as they finish, so a large one
    // left to the end would keep one worker busy while the others wait.
    std::stable_sort(plan.units.begin(), plan.units.end(), [&](const JoinUnit& a, const JoinUnit& b) {
        return plan.consumer_offset[a.last_hash] - plan.consumer_offset[a.first_hash] >
               plan.consumer_offset[b.last_hash] - plan.consumer_offset[b.first_hash];
    });
    return plan;
}

struct RunOfSource {
    std::uint32_t hash = kNoHash, run = 0;  // valid while `hash` is the hash being joined
};

// A worker's records, reused from one unit to the next.
struct Gathered {
    std::vector<RunOfSource> run_of_source;  // per source, when the pair table has lists
    Column<Endpoint> producers, consumers;
    Column<Edge> sorted;                      // group_by_consumer_block's copy
    std::vector<std::uint32_t> block_start;  // and its counters
    std::vector<std::uint32_t> cursor;       // per hash of the unit: the next producer slot, then consumer slot
    // link_few_producers: per source, the last consumer (serial number) it linked to
    std::vector<std::uint32_t> linked_serial;
    std::uint32_t consumer_serial = 0;
    // link_many_producers: the current hash's source runs (see split_into_runs)
    std::vector<std::uint32_t> runs, run_reached;
};

// The producers and consumers of a unit, each grouped by hash (stable, so in
// time order within a hash), at offset[h] - offset[first_hash], in one pass
// over the samples that may hold them.
void gather(const SampleSet& s, const JoinPlan& plan, const JoinUnit& unit, Gathered& out) {
    const std::size_t first_hash = unit.first_hash, last_hash = unit.last_hash;
    const std::size_t width = last_hash - first_hash;
    const std::uint32_t producer_base = plan.producer_offset[first_hash], consumer_base = plan.consumer_offset[first_hash];
    // Cleared first, so that growing copies nothing (every slot is written
    // below). Units come largest first: a worker's first sets the capacity.
    out.producers.clear();
    out.producers.resize(plan.producer_offset[last_hash] - producer_base);
    out.consumers.clear();
    out.consumers.resize(plan.consumer_offset[last_hash] - consumer_base);
    out.cursor.resize(2 * width);
    for (std::size_t h = 0; h < width; ++h) {
        out.cursor[2 * h] = plan.producer_offset[first_hash + h] - producer_base;
        out.cursor[2 * h + 1] = plan.consumer_offset[first_hash + h] - consumer_base;
    }
    const std::uint32_t first = static_cast<std::uint32_t>(first_hash);
    for (SampleIndex i = unit.sample_first; i < unit.sample_end; ++i) {
        const std::uint32_t o = s.output[i] - first, in = s.input[i] - first;  // kNoHash wraps out of range
        if (o >= width && in >= width) continue;
        const Endpoint e{s.time_ns[i], i, plan.source_of_tracepoint[s.tracepoint[i]]};
        if (o < width) out.producers[out.cursor[2 * o]++] = e;
        if (in < width) out.consumers[out.cursor[2 * in + 1]++] = e;
    }
}

// The latest time a producer of a consumer at `time` may have (rule 3),
// saturated rather than overflowing (tolerance >= 0).
std::int64_t latest_producer_time(std::int64_t time, std::int64_t tolerance) {
    std::int64_t limit;
    return __builtin_add_overflow(time, tolerance, &limit) ? std::numeric_limits<std::int64_t>::max() : limit;
}

// The walk of a hash with few producers: for each of its consumers, in time
// order, link(consumer, reached) with `reached` the first producer later than
// the consumer's latest producer time (it only moves forward); returns how
// many consumers link added no edge to `edges` for.
template <typename Link>
[[gnu::always_inline]] inline std::uint64_t walk_consumers(const Endpoint* p_first, const Endpoint* p_last, const Endpoint* consumer,
                                                           const Endpoint* consumers_end, std::int64_t tolerance,
                                                           const Column<Edge>& edges, Link&& link) {
    std::uint64_t unlinked = 0;
    const Endpoint* reached = p_first;
    for (; consumer != consumers_end; ++consumer) {
        const std::int64_t limit = latest_producer_time(consumer->time, tolerance);
        while (reached != p_last && reached->time <= limit) ++reached;
        const std::size_t edges_before = edges.size();
        link(*consumer, reached);
        unlinked += edges.size() == edges_before;
    }
    return unlinked;
}

// Orders one hash's producers by source, keeping time order within a source.
// Most hashes have a handful of producers: insertion sort, no buffer.
void sort_by_source(Endpoint* first, Endpoint* last) {
    if (last - first < 2) return;  // (also: a hash without producers may have null pointers here)
    auto by_source = [](const Endpoint& a, const Endpoint& b) { return a.source < b.source; };
    // (Hashes with many producers mostly have one source, a loop counter's:
    // a check is cheaper than merge sorting sorted runs through a buffer.)
    if (last - first > 32) {
        if (!std::is_sorted(first, last, by_source)) std::stable_sort(first, last, by_source);
        return;
    }
    for (Endpoint* p = first + 1; p < last; ++p) {
        const Endpoint e = *p;
        Endpoint* q = p;
        for (; q != first && e.source < (q - 1)->source; --q) *q = *(q - 1);
        *q = e;
    }
}

// Links the consumers of a hash with few producers (message ids), returning how many it left unlinked. Per consumer its
// producers at or before the limit are walked back from the latest, and the
// first acceptable one of each allowed source is linked (every acceptable
// one with keep-all), itself and other threads skipped where the scope says
// so: the same edges as the runs by source, without sorting the producers by
// source and making the runs, which cost more than the join itself here.
// The walk stops once every allowed source has its edge.
std::uint64_t link_few_producers(const SampleSet& s, const JoinPlan& plan, const detail::PairTable& pairs, const LinkOptions& options,
                                 const Endpoint* p_first, const Endpoint* p_last, const Endpoint* consumer, const Endpoint* consumers_end,
                                 Gathered& records, Column<Edge>& edges) {
    const bool keep_all = options.keep_all, listed = pairs.has_lists();
    return walk_consumers(p_first, p_last, consumer, consumers_end, options.tolerance_ns, edges, [&](const Endpoint& b, const Endpoint* reached) {
        std::size_t unlinked_sources = keep_all || !listed ? std::numeric_limits<std::size_t>::max() : pairs.producers_for(b.source).size();
        if (++records.consumer_serial == 0) {  // (wrapped: no stamp may match a later consumer by chance)
            std::fill(records.linked_serial.begin(), records.linked_serial.end(), 0);
            records.consumer_serial = 1;
        }
        for (const Endpoint* p = reached; p != p_first && unlinked_sources > 0;) {
            const Endpoint& a = *--p;
            if (a.sample == b.sample || records.linked_serial[a.source] == records.consumer_serial) continue;
            const auto scope = pairs.scope(a.source, b.source);
            if (!scope) continue;
            if (*scope != PairScope::any && plan.instance_of_source[a.source] != plan.instance_of_source[b.source]) continue;
            if (*scope == PairScope::thread && s.thread[a.sample] != s.thread[b.sample]) continue;
            edges.push_back({a.sample, b.sample});
            if (!keep_all) {
                records.linked_serial[a.source] = records.consumer_serial;
                --unlinked_sources;
            }
        }
    });
}

// link_few_producers for a run of at most 64 sources (the pair table's
// masks): the sources a consumer still needs are one word in a register, so
// a candidate producer costs a bit test (and a thread compare where the
// scope says so) instead of a stamp, the pair's scope and both instances
// loaded from memory. The same walk, so the same edges in the same order.
std::uint64_t link_few_producers_masked(const SampleSet& s, const detail::PairTable& pairs, const LinkOptions& options, const Endpoint* p_first,
                                        const Endpoint* p_last, const Endpoint* consumer, const Endpoint* consumers_end, Column<Edge>& edges) {
    const bool keep_all = options.keep_all;
    return walk_consumers(p_first, p_last, consumer, consumers_end, options.tolerance_ns, edges, [&](const Endpoint& b, const Endpoint* reached) {
        const detail::PairTable::SourceMasks masks = pairs.masks_for(b.source);
        // The allowed sources not linked yet (with keep-all, every one stays:
        // the walk goes on to the first producer).
        std::uint64_t open = masks.allowed;
        for (const Endpoint* p = reached; p != p_first && open != 0;) {
            const Endpoint& a = *--p;
            const std::uint64_t bit = std::uint64_t{1} << a.source;
            if ((open & bit) == 0 || a.sample == b.sample) continue;
            if ((masks.same_thread & bit) != 0 && s.thread[a.sample] != s.thread[b.sample]) continue;
            edges.push_back({a.sample, b.sample});
            if (!keep_all) open &= ~bit;
        }
    });
}

// A unit's edges: [begin, end) of one of its worker's edge lists, grouped
// by consumer, a producer's edges in consumer order.
struct LinkRange {
    unsigned worker = 0;
    std::size_t list = 0;
    std::size_t begin = 0, end = 0;
    std::uint64_t unlinked = 0, unconsumed = 0;
};

// A worker's edge lists, few and large so that they sit on the page pool's
// huge pages (a list per unit would mostly be under 2 MiB, on 4 KiB pages).
// A unit's edges go to the last list, or to a new one when the last has no
// room left for an edge per consumer and an eighth more: a full list that
// grew would hold its old and new buffers at once, at the run's peak.
// Where fan-in or keep-all need more, a list still grows as any Column does.
class WorkerEdges {
public:
    // `first_room`: the first list's capacity (pages an earlier stage used
    // may be resident whether or not they are filled); `least_room`: the
    // least capacity of a later one.
    WorkerEdges(std::size_t first_room, std::size_t least_room) : first_room_(first_room), least_room_(least_room) {}

    // The list a unit of `consumers` consumers appends to, and its index.
    std::pair<Column<Edge>&, std::size_t> for_unit(std::size_t consumers) {
        const std::size_t expected = consumers + consumers / 8;
        if (lists_.empty() || lists_.back().capacity() - lists_.back().size() < expected) {
            const std::size_t room = std::max(lists_.empty() ? first_room_ : least_room_, expected);
            lists_.emplace_back().reserve(room);
        }
        return {lists_.back(), lists_.size() - 1};
    }
    const Column<Edge>& list(std::size_t k) const { return lists_[k]; }

private:
    std::size_t first_room_, least_room_;
    std::vector<Column<Edge>> lists_;
};

// What every unit of a join shares: the run, the plan, the pairs allowed,
// the degree columns the units count into, and the progress counters.
struct JoinContext {
    const SampleSet& s;
    const JoinPlan& plan;
    const detail::PairTable& pairs;
    const LinkOptions& options;
    std::uint32_t* out_degree;
    std::uint32_t* in_degree;
    std::atomic<std::uint64_t>& done;
    std::atomic<std::uint64_t>& edges_found;
};

// A unit's edges into the degree columns, grouped first where the unit
// spans more samples than the cache holds counters and rows for (hashes used
// all over the run would scatter the degrees' and later the rows' writes by
// hash; grouped by block of consumers they go a block at a time in sample
// order, as the producer of almost every edge is a recent sample; the other
// units' samples are close together anyway). Returns the producers with no edge.
std::size_t count_degrees(const JoinContext& ctx, const JoinUnit& unit, std::span<Edge> unit_edges, Gathered& records) {
    constexpr SampleIndex kGroupedSpan = SampleIndex{1} << 16;
    if (unit.sample_end - unit.sample_first > kGroupedSpan)
        detail::group_by_consumer_block(unit_edges, unit.sample_first, unit.sample_end - unit.sample_first, records.sorted, records.block_start);
    std::size_t consumed = 0;  // producers with an edge
    for (const Edge& e : unit_edges) {
        ++ctx.in_degree[e.to];
        consumed += ctx.out_degree[e.from]++ == 0;
    }
    return records.producers.size() - consumed;
}

// A hash with many producers: its producers sorted by source into runs;
// records.runs gets each run's start (an index into records.producers) and
// then the hash's end, run_reached each run's start, and, when the pair
// table has lists, run_of_source each source's run.
void split_into_runs(std::size_t h, Endpoint* p_first, Endpoint* p_last, bool listed, Gathered& records) {
    const Endpoint* const base = records.producers.data();
    std::vector<std::uint32_t>& runs = records.runs;
    sort_by_source(p_first, p_last);
    runs.clear();
    for (const Endpoint* p = p_first; p != p_last; ++p)
        if (p == p_first || p->source != (p - 1)->source) {
            if (listed) records.run_of_source[p->source] = {static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(runs.size())};
            runs.push_back(static_cast<std::uint32_t>(p - base));
        }
    records.run_reached.assign(runs.begin(), runs.end());
    runs.push_back(static_cast<std::uint32_t>(p_last - base));
}

// Links the consumers [consumer, consumers_end) of hash h, whose producers
// split_into_runs has grouped, appending the edges to `edges`. Returns the
// consumers left with no edge.
std::uint64_t link_many_producers(const JoinContext& ctx, std::size_t h, const Endpoint* consumer, const Endpoint* consumers_end,
                                  Gathered& records, Column<Edge>& edges) {
    const SampleSet& s = ctx.s;
    const detail::PairTable& pairs = ctx.pairs;
    const bool listed = pairs.has_lists();
    const std::int64_t tolerance = ctx.options.tolerance_ns;
    const bool keep_all = ctx.options.keep_all;
    const Column<Endpoint>& producers = records.producers;
    const std::vector<std::uint32_t>& runs = records.runs;
    // Per run, the first producer later than the limit of the consumers seen
    // so far: consumers come in time order, so it only moves forward, and a
    // hash's runs are walked once in all (no binary search per consumer).
    std::vector<std::uint32_t>& run_reached = records.run_reached;
    std::uint64_t unlinked = 0;
    for (; consumer != consumers_end; ++consumer) {
        const Endpoint& b = *consumer;
        const std::int64_t limit = latest_producer_time(b.time, tolerance);
        const std::size_t edges_before = edges.size();
        // Run r's latest producer(s) at or before the limit, itself and
        // other threads skipped where the scope says so.
        // Inlined: called once or twice per consumer, it is the join's inner loop.
        auto link_run = [&](std::size_t r, PairScope scope) __attribute__((always_inline)) {
            std::uint32_t& reached = run_reached[r];
            while (reached < runs[r + 1] && producers[reached].time <= limit) ++reached;
            const Endpoint* first = producers.data() + runs[r];
            const Endpoint* p = producers.data() + reached;
            while (p != first) {
                const SampleIndex a = (--p)->sample;
                if (a == b.sample) continue;
                if (scope == PairScope::thread && s.thread[a] != s.thread[b.sample]) continue;
                edges.push_back({a, b.sample});
                if (!keep_all) break;
            }
        };
        // Whichever is shorter: the sources allowed to link to b, or the
        // hash's producer runs. Both visit every allowed run.
        const auto allowed = listed ? pairs.producers_for(b.source) : std::span<const detail::PairTable::Allowed>{};
        if (listed && allowed.size() + 1 < runs.size()) {
            for (const auto& [source, scope] : allowed)
                if (const RunOfSource& at = records.run_of_source[source]; at.hash == h) link_run(at.run, scope);
        } else {
            for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
                const std::uint32_t source = producers[runs[r]].source;
                const auto scope = pairs.scope(source, b.source);
                if (!scope) continue;
                if (*scope != PairScope::any && ctx.plan.instance_of_source[source] != ctx.plan.instance_of_source[b.source]) continue;
                link_run(r, *scope);
            }
        }
        unlinked += edges.size() == edges_before;
    }
    return unlinked;
}

// A worker's progress, added to the join's shared counters every 64 Ki
// consumers and at the end of a unit, so that the workers seldom share a
// cache line; the worker that reports calls options.progress then.
class ProgressShare {
public:
    ProgressShare(const JoinContext& ctx, std::size_t edges_now, bool reports) : ctx_(ctx), reported_edges_(edges_now), reports_(reports) {}

    void add(std::uint64_t consumers, std::size_t edges_now) {
        consumers_done_ += consumers;
        if (consumers_done_ < 0x10000) return;
        flush(edges_now);
        if (reports_ && ctx_.options.progress) ctx_.options.progress(ctx_.done.load(), ctx_.edges_found.load());
    }
    void flush(std::size_t edges_now) {
        ctx_.done.fetch_add(consumers_done_, std::memory_order_relaxed);
        ctx_.edges_found.fetch_add(edges_now - reported_edges_, std::memory_order_relaxed);
        consumers_done_ = 0;
        reported_edges_ = edges_now;
    }

private:
    const JoinContext& ctx_;
    std::uint64_t consumers_done_ = 0;
    std::size_t reported_edges_;
    bool reports_;
};

// Links the consumers of a unit's hashes, appending the edges to the
// worker's list `edges`; counts each sample's edges into the out- and
// in-degree columns (only the unit's producers and consumers are written).
// The unit's edges stay grouped by consumer, each producer's in consumer
// order.
void link_unit(const JoinContext& ctx, const JoinUnit& unit, Gathered& records, Column<Edge>& edges, LinkRange& out, bool reports) {
    const SampleSet& s = ctx.s;
    const JoinPlan& plan = ctx.plan;
    const detail::PairTable& pairs = ctx.pairs;
    const std::size_t first_hash = unit.first_hash, last_hash = unit.last_hash;
    gather(s, plan, unit, records);
    Column<Endpoint>& producers = records.producers;
    const Column<Endpoint>& consumers = records.consumers;
    const bool listed = pairs.has_lists();
    if (listed) records.run_of_source.resize(s.source_count);
    records.linked_serial.resize(s.source_count);
    // (hashes with more producers mostly have one source, a loop counter's,
    // whose walk back would pass every producer of a source not allowed)
    constexpr std::ptrdiff_t kFewProducers = 16;
    const std::uint32_t producer_base = plan.producer_offset[first_hash], consumer_base = plan.consumer_offset[first_hash];
    out.begin = edges.size();
    ProgressShare progress(ctx, out.begin, reports);
    for (std::size_t h = first_hash; h < last_hash; ++h) {
        const Endpoint* consumer = consumers.data() + (plan.consumer_offset[h] - consumer_base);
        const Endpoint* const consumers_end = consumers.data() + (plan.consumer_offset[h + 1] - consumer_base);
        if (consumer == consumers_end) continue;
        Endpoint* const p_first = producers.data() + (plan.producer_offset[h] - producer_base);
        Endpoint* const p_last = producers.data() + (plan.producer_offset[h + 1] - producer_base);
        if (p_last - p_first <= kFewProducers) {
            out.unlinked += pairs.has_masks()
                                ? link_few_producers_masked(s, pairs, ctx.options, p_first, p_last, consumer, consumers_end, edges)
                                : link_few_producers(s, plan, pairs, ctx.options, p_first, p_last, consumer, consumers_end, records, edges);
        } else {
            split_into_runs(h, p_first, p_last, listed, records);
            out.unlinked += link_many_producers(ctx, h, consumer, consumers_end, records, edges);
        }
        progress.add(plan.consumer_offset[h + 1] - plan.consumer_offset[h], edges.size());
    }
    out.end = edges.size();
    out.unconsumed = count_degrees(ctx, unit, std::span<Edge>(edges.data() + out.begin, edges.data() + out.end), records);
    progress.flush(edges.size());
}

// Degrees -> the end of each row (inclusive prefix sums); placing a row's
// elements from its end backwards leaves the column holding the row starts.
void row_ends(std::span<std::uint32_t> degree_then_offset) {
    std::uint32_t sum = 0;
    for (std::uint32_t& v : degree_then_offset) v = sum += v;
}

// Places one unit's edges: each edge at the end of its producer's row,
// its index at the end of its consumer's in-row. Walking the list backwards
// keeps each producer's row in consumer order; a consumer's in-edges are
// next to each other in the list, so its in-row is complete when the walk
// leaves them, and sorted (by producer) if it holds more than one.
void place_edges(std::span<const Edge> edges, Graph& g) {
    std::size_t group_end = edges.size();  // one past the current consumer's last edge
    for (std::size_t e = edges.size(); e-- > 0;) {
        const Edge edge = edges[e];
        const std::uint32_t at = --g.out_offset[edge.from];
        g.edges[at] = edge;
        const std::uint32_t in_at = --g.in_offset[edge.to];
        g.in_edges[in_at] = at;
        if (e > 0 && edges[e - 1].to == edge.to) continue;
        if (group_end - e > 1) std::sort(g.in_edges.begin() + in_at, g.in_edges.begin() + in_at + static_cast<std::ptrdiff_t>(group_end - e));
        group_end = e;
    }
}

}  // namespace

// What join() hands to place(): the graph with its degree counts (in the
// offset columns), the workers' edge lists, and where each unit's edges lie.
struct JoinedEdges::Lists {
    Graph graph;
    std::vector<LinkRange> ranges;
    std::vector<WorkerEdges> edges_of_worker;
    unsigned threads = 1;
    std::function<void(std::uint64_t, std::uint64_t)> progress;
};

JoinedEdges::JoinedEdges() = default;
JoinedEdges::JoinedEdges(JoinedEdges&&) noexcept = default;
JoinedEdges& JoinedEdges::operator=(JoinedEdges&&) noexcept = default;
JoinedEdges::~JoinedEdges() = default;

JoinedEdges join(const SampleSet& s, const AnalysisSpec& spec, const LinkOptions& options) {
    // A negative tolerance would demand producers strictly before their
    // consumers by some margin: not what docs/spec.md section 4's tolerance means (and the
    // join's limit arithmetic assumes >= 0).
    if (options.tolerance_ns < 0) throw std::invalid_argument("link: tolerance_ns must be >= 0, not " + std::to_string(options.tolerance_ns));
    const unsigned threads = std::min(graph::parallel::thread_count(options.threads), 64u);
    const std::size_t n = s.size();
    JoinedEdges joined;
    joined.lists = std::make_unique<JoinedEdges::Lists>();
    JoinedEdges::Lists& out = *joined.lists;
    out.threads = threads;
    out.progress = options.progress;
    Graph& g = out.graph;
    // Degrees are counted into the offset columns (each sample written by the
    // one unit owning its hash, or left 0), later turned into row ends; the
    // last entry stays the total. Each counting task also zeroes one of them,
    // so that neither core waits while the other clears a column. The graph's
    // columns, the join's records and edge lists are written in scattered
    // order: on huge pages they take fewer faults and TLB misses.
    HashCounts counts[2];  // output, input
    graph::parallel::for_each(2, threads, [&](std::size_t k, unsigned) {
        counts[k] = count_hashes(s, k == 0 ? s.output : s.input);
        (k == 0 ? g.out_offset : g.in_offset).assign(n + 1, 0);
    });
    const JoinPlan plan = plan_join(s, counts, threads);
    const std::size_t units = plan.units.size();
    out.ranges.resize(units);
    // Each worker's first list has room for its share of one edge per
    // consumer and an eighth more (the workers take units as they finish, so
    // their shares differ a little); a later one for at least 1/16 of that.
    const std::size_t workers = std::min<std::size_t>(threads, units), consumers = plan.consumer_offset.back();
    const std::size_t first_room = consumers / std::max<std::size_t>(workers, 1) + consumers / 8;
    out.edges_of_worker.assign(workers, WorkerEdges(first_room, first_room / 16));
    const detail::PairTable pairs(s, spec);
    std::vector<Gathered> records(workers);
    std::atomic<std::uint64_t> done{0}, edges_found{0};
    const JoinContext context{s, plan, pairs, options, g.out_offset.data(), g.in_offset.data(), done, edges_found};
    graph::parallel::for_each(units, threads, [&](std::size_t k, unsigned w) {
        const JoinUnit& unit = plan.units[k];
        const auto [edges, list] = out.edges_of_worker[w].for_unit(plan.consumer_offset[unit.last_hash] - plan.consumer_offset[unit.first_hash]);
        out.ranges[k].worker = w;
        out.ranges[k].list = list;
        link_unit(context, unit, records[w], edges, out.ranges[k], w == 0);
    });
    return joined;
}

Graph place(JoinedEdges joined) {
    JoinedEdges::Lists& in = *joined.lists;
    Graph& g = in.graph;
    std::size_t total = 0;
    for (const LinkRange& r : in.ranges) {
        total += r.end - r.begin;
        g.unlinked_inputs += r.unlinked;
        g.unconsumed_outputs += r.unconsumed;
    }
    if (total >= 0xFFFFFFFFull) throw std::length_error("more than 4294967294 edges in one graph");
    // The edge columns are not filled first: placement writes every slot.
    g.edges.resize(total);
    g.in_edges.resize(total);
    graph::parallel::for_each(2, in.threads, [&](std::size_t k, unsigned) { row_ends(k == 0 ? g.out_offset : g.in_offset); });
    graph::parallel::for_each(in.ranges.size(), in.threads, [&](std::size_t k, unsigned) {
        const LinkRange& r = in.ranges[k];
        const Column<Edge>& list = in.edges_of_worker[r.worker].list(r.list);
        place_edges({list.data() + r.begin, list.data() + r.end}, g);
    });
    if (in.progress) in.progress(g.out_offset.size() - 1, g.edges.size());  // every sample
    return std::move(g);
}

Graph link(const SampleSet& s, const AnalysisSpec& spec, const LinkOptions& options) { return place(join(s, spec, options)); }

}  // namespace hashtrace::graph
