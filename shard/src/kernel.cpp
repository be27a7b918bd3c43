#include "hashtrace/shard/kernel.hpp"

#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace hashtrace::shard {
namespace {

using graph::SampleIndex;

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t out;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

// The values the metrics kept (milliseconds, exactly ns / 1e6) back to
// whole nanoseconds: exact below 2^53 / 1e6 ms (104 days). Rounded inline:
// a call to llround per value showed in the kernel's profile.
std::int64_t ns_of(double ms) {
    const double ns = ms * 1e6;
    return static_cast<std::int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

// Values are converted a batch at a time, into a buffer that stays in
// cache: a shard's values all at once were 8 bytes a value of fresh memory,
// written and read again.
constexpr std::size_t kConverted = 2048;
using Converted = std::array<std::int64_t, kConverted>;

// A batch converted, and its extremes, found as it is (a pass fewer for the distribution).
struct ConvertedBatch {
    std::span<const std::int64_t> values;
    std::int64_t low, high;
};

ConvertedBatch ns_of(std::span<const double> values_ms, Converted& into) {
    std::int64_t low = std::numeric_limits<std::int64_t>::max(), high = std::numeric_limits<std::int64_t>::min();
#pragma GCC unroll 4
    for (std::size_t k = 0; k < values_ms.size(); ++k) {
        into[k] = ns_of(values_ms[k]);
        low = std::min(low, into[k]);
        high = std::max(high, into[k]);
    }
    return {std::span(into).first(values_ms.size()), low, high};
}

// `take(k, batch)` for each batch of `values_ms` converted, k its first value's place.
template <class Take>
void for_each_converted(std::span<const double> values_ms, const Take& take) {
    Converted ns;
    for (std::size_t k = 0; k < values_ms.size(); k += kConverted)
        take(k, ns_of(values_ms.subspan(k, std::min(kConverted, values_ms.size() - k)), ns));
}

Distribution distribution_of(std::span<const double> values_ms) {
    Distribution d;
    for_each_converted(values_ms, [&](std::size_t, const ConvertedBatch& batch) { d.add_all(batch.values, batch.low, batch.high); });
    return d;
}

// The times bin `b` holds, [from, to): the first and last bins hold those before and after the run too.
std::pair<std::int64_t, std::int64_t> times_of(const TimeBins& bins, std::uint32_t b) {
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    // Below the run's last sample time: no overflow (TimeBins::over).
    return {b == 0 ? kMin : bins.origin_ns + std::int64_t(b) * bins.width_ns,
            b + 1 >= bins.count ? kMax : bins.origin_ns + std::int64_t(b + 1) * bins.width_ns};
}

// An interval's values by the time bin of their `from` sample (in time
// order, so each bin's values are one run of them: a bin is found, by a
// division, once a run).
void add_binned(std::span<const std::int64_t> values_ns, std::span<const std::int64_t> from_ns, const TimeBins& bins, BinnedValues& out) {
    const std::size_t n = std::min(values_ns.size(), from_ns.size());
    for (std::size_t k = 0; k < n;) {
        const std::uint32_t b = bins.bin_of(from_ns[k]);
        const auto [from, to] = times_of(bins, b);
        std::size_t end = k + 1;
        while (end < n && from_ns[end] >= from && from_ns[end] < to) ++end;
        out[b].add_all(values_ns.subspan(k, end - k));
        k = end;
    }
}

// An interval's values (each beside its `from` time), into its distribution and time bins.
void add_interval_values(std::span<const double> values_ms, std::span<const std::int64_t> from_ns, const TimeBins& bins, IntervalSummary& out) {
    for_each_converted(values_ms, [&](std::size_t k, const ConvertedBatch& batch) {
        out.latency.add_all(batch.values, batch.low, batch.high);
        if (k < from_ns.size()) add_binned(batch.values, from_ns.subspan(k), bins, out.over_time);
    });
}

std::string label(const graph::Tracepoint& t) { return t.node_name + "/" + t.tracepoint_name; }

// The links of one pair of tracepoint ids: their latency, its values
// gathered a batch at a time (in link order: the jitter follows it) in a
// buffer of their own, and a count per bin of the run (a vector: bins are
// few, and a link's bin is an index).
struct LinksOfPair {
    std::uint64_t ids = 0;  // producer's tracepoint id << 32 | consumer's
    Distribution latency;
    std::unique_ptr<std::int64_t[]> batch;  // holds a whole batch: PairLinks flushes every pair at once
    std::uint64_t binned = 0;               // links counted into per_bin so far
    std::vector<std::uint64_t> per_bin;
};

// The links of each pair of tracepoint ids the shard's edges join, a batch
// of links at a time: a link's latency is stored where its pair's cursor
// points (no per-link count, extremes or bin: those are a batch's, or a
// bin's, once a pair). A pair is found by an index into a table of
// tracepoints x tracepoints where that is small (the usual case: tens of
// tracepoints; a producer's row once a producer), else in a hash map.
class PairLinks {
public:
    static constexpr std::size_t kBatch = 1024;        // links between flushes: 8 KiB a pair, in cache
    static constexpr std::size_t kMostIndexed = 1024;  // tracepoints: a table of 4 MiB
    static constexpr std::uint32_t kNone = ~std::uint32_t{0};
    PairLinks(std::size_t tracepoints, std::uint32_t bins) : tracepoints_(tracepoints), bins_(std::max<std::uint32_t>(bins, 1)) {
        if (tracepoints <= kMostIndexed) slot_.assign(tracepoints * tracepoints, kNone);
        else no_table_.assign(tracepoints, kNone);
    }
    // The slots of producer tracepoint `from`'s pairs, by consumer tracepoint (kNone: ask slot_of; always, without a table).
    const std::uint32_t* row(std::uint32_t from) const { return slot_.empty() ? no_table_.data() : slot_.data() + std::size_t(from) * tracepoints_; }
    std::uint32_t slot_of(std::uint32_t from, std::uint32_t to) {
        std::uint32_t& slot = slot_.empty() ? by_key_.try_emplace(std::uint64_t(from) << 32 | to, kNone).first->second
                                            : slot_[std::size_t(from) * tracepoints_ + to];
        if (slot == kNone) {
            slot = static_cast<std::uint32_t>(links_.size());
            LinksOfPair& added = links_.emplace_back();
            added.ids = std::uint64_t(from) << 32 | to;
            added.batch = std::make_unique<std::int64_t[]>(kBatch);
            added.per_bin.assign(bins_, 0);
            cursor_.push_back(added.batch.get());
        }
        return slot;
    }
    // Where each pair's next latency goes (moves when a pair is added).
    std::int64_t** cursors() { return cursor_.data(); }
    // The links gathered since the last call, into bin `bin` of their pairs.
    void close_bin(std::uint32_t bin) {
        for (std::size_t k = 0; k < links_.size(); ++k) {
            const std::uint64_t seen = links_[k].latency.count + std::uint64_t(cursor_[k] - links_[k].batch.get());
            links_[k].per_bin[bin] += seen - links_[k].binned;
            links_[k].binned = seen;
        }
    }
    // Every pair's gathered latencies into its distribution, in one pass a pair.
    void flush() {
        for (std::size_t k = 0; k < links_.size(); ++k) {
            links_[k].latency.add_all(std::span<const std::int64_t>(links_[k].batch.get(), cursor_[k]));
            cursor_[k] = links_[k].batch.get();
        }
    }
    std::vector<LinksOfPair>& all() { return links_; }

private:
    std::size_t tracepoints_;
    std::uint32_t bins_;
    std::vector<std::uint32_t> slot_;                          // by from * tracepoints + to
    std::vector<std::uint32_t> no_table_;                      // a row of kNone, where there is no table
    std::unordered_map<std::uint64_t, std::uint32_t> by_key_;  // where the table would be too large
    std::vector<LinksOfPair> links_;
    std::vector<std::int64_t*> cursor_;  // by slot: the next free place in its batch
};

// splitmix64's finaliser, in two parts: its increment, and the rest, for a
// caller that adds the increment once for many values (a producer's links).
constexpr std::uint64_t kMixIncrement = 0x9E3779B97F4A7C15ull;
std::uint64_t mix_incremented(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t mix(std::uint64_t z) { return mix_incremented(z + kMixIncrement); }

// FNV-1a of the text: the same on every machine and build (std::hash need not be).
std::uint64_t text_hash(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
    return h;
}

// What the shard learns from its edges, in one pass over the owned ones (a
// consumer's tracepoint and time are a read from anywhere in the window: read
// once, for all three) and one over the margins' for the longest links.
struct EdgeFacts {
    PairLinks by_ids;  // tracepoint ids in this window: cheap to look up
    // The digest of the links the shard owns (SampleSet ids differ between
    // shards: each end is known by its names and time).
    std::uint64_t digest = 0;
    std::vector<std::int64_t> longest_into;  // by the consumer's tracepoint id, the whole window's: -1 none
};

// A sample as the link digest knows it: its tracepoint's hash ^ its time,
// which for one tracepoint already differs with the time (a bijection of it
// adds nothing: two samples collide here exactly when they would after one).
std::uint64_t end_of(const std::uint64_t* of_tracepoint, std::uint32_t tracepoint, std::int64_t time_ns) {
    return of_tracepoint[tracepoint] ^ static_cast<std::uint64_t>(time_ns);
}

// A producer as its links need it: found once a producer, not once a link.
struct Producer {
    SampleIndex sample = ~SampleIndex{0};
    std::int64_t time_ns = 0;
    std::uint32_t tracepoint = 0;
    std::uint64_t mixed_end = 0;        // 3 x its end mixed, + kMixIncrement: a link adds mix_incremented(this + the consumer's end)
    const std::uint32_t* row = nullptr;  // its pairs' slots by consumer tracepoint
};

// The columns a link is read from, through raw pointers.
struct LinkColumns {
    const std::uint32_t* tracepoint;
    const std::int64_t* time;
    const graph::Edge* edges;
    const std::uint64_t* of_tracepoint;  // by tracepoint: its hash, for end_of
    const TimeBins& bins;
};

// What the pass over the owned links carries from one batch to the next.
// Producers come in time order: their bin only grows, found again (a
// division) when a bin ends, and the pairs' links counted into it then.
struct LinkWalk {
    Producer producer;
    std::uint32_t bin = 0;
    std::int64_t bin_end_ns = std::numeric_limits<std::int64_t>::min();
    std::uint64_t digest = 0;
};

// A link's consumer is read from anywhere in the window (its tracepoint and
// time: two loads that missed the cache, and the pass waited on them); the
// consumer this many links ahead is asked for early.
constexpr std::uint32_t kPrefetchAhead = 16;

// The links of edges [first, last), a batch: each latency stored where its
// pair's cursor points, each link hashed into the digest. The walk's state
// in locals: stores of the latencies (64-bit integers) may alias a member,
// which the compiler would then load and store again each link.
void gather_links(const LinkColumns& c, std::uint32_t first, std::uint32_t last, PairLinks& pairs, LinkWalk& walk) {
    Producer p = walk.producer;
    std::uint64_t digest = walk.digest;
    std::int64_t** cursor = pairs.cursors();
    for (std::uint32_t i = first; i < last; ++i) {
        const graph::Edge e = c.edges[i];
        if (i + kPrefetchAhead < last) {
            const graph::SampleIndex ahead = c.edges[i + kPrefetchAhead].to;
            __builtin_prefetch(c.tracepoint + ahead);
            __builtin_prefetch(c.time + ahead);
        }
        if (e.from != p.sample) {
            p = {e.from, c.time[e.from], c.tracepoint[e.from], 0, pairs.row(c.tracepoint[e.from])};
            p.mixed_end = mix(end_of(c.of_tracepoint, p.tracepoint, p.time_ns)) * 3 + kMixIncrement;
            if (p.time_ns >= walk.bin_end_ns) [[unlikely]] {
                pairs.close_bin(walk.bin);
                walk.bin = c.bins.bin_of(p.time_ns);
                walk.bin_end_ns = times_of(c.bins, walk.bin).second;
            }
        }
        const std::uint32_t to_tracepoint = c.tracepoint[e.to];
        const std::int64_t to_ns = c.time[e.to];
        std::uint32_t slot = p.row[to_tracepoint];
        if (slot == PairLinks::kNone) [[unlikely]] {
            slot = pairs.slot_of(p.tracepoint, to_tracepoint);
            cursor = pairs.cursors();
        }
        *cursor[slot]++ = graph::elapsed_ns(p.time_ns, to_ns);
        digest += mix_incremented(p.mixed_end + end_of(c.of_tracepoint, to_tracepoint, to_ns));  // mix(3 x mix(from) + to)
    }
    walk.producer = p;
    walk.digest = digest;
}

// The owned links (those of the producers in [begin, end)), in one pass
// over their edges a batch at a time: per pair of tracepoint ids their
// latencies (PairLinks) and count per bin, the digest, the longest link
// into each tracepoint.
void owned_edges(const graph::SampleSet& s, const graph::Graph& g, const TimeBins& bins, SampleIndex begin, SampleIndex end, EdgeFacts& out) {
    std::vector<std::uint64_t> of_tracepoint;
    for (const graph::Tracepoint& t : s.tracepoints) of_tracepoint.push_back(text_hash(t.node_name + '\0' + t.instance + '\0' + t.tracepoint_name));
    const LinkColumns columns{s.tracepoint.data(), s.time_ns.data(), g.edges.data(), of_tracepoint.data(), bins};
    PairLinks& pairs = out.by_ids;
    LinkWalk walk;
    for (std::uint32_t i = g.out_offset[begin], last = g.out_offset[end]; i < last;) {
        const auto batch_end = static_cast<std::uint32_t>(std::min<std::uint64_t>(last, std::uint64_t{i} + PairLinks::kBatch));
        gather_links(columns, i, batch_end, pairs, walk);
        pairs.flush();
        i = batch_end;
    }
    pairs.close_bin(walk.bin);
    out.digest += walk.digest;
    // The longest link into a tracepoint is its pairs' longest: taken once a pair, not compared once a link.
    for (LinksOfPair& links : pairs.all()) {
        std::int64_t& into = out.longest_into[links.ids & 0xffffffffu];
        into = std::max(into, links.latency.max);
    }
}

// The longest link into each tracepoint among those of the margins' producers.
void margin_edges(const graph::SampleSet& s, const graph::Graph& g, SampleIndex begin, SampleIndex end, EdgeFacts& out) {
    const auto longest = [&](std::uint32_t first, std::uint32_t last) {
        for (std::uint32_t i = first; i < last; ++i) {
            const graph::Edge& e = g.edges[i];
            std::int64_t& into = out.longest_into[s.tracepoint[e.to]];
            into = std::max(into, graph::elapsed_ns(s.time_ns[e.from], s.time_ns[e.to]));
        }
    };
    longest(0, g.out_offset[begin]);
    longest(g.out_offset[end], static_cast<std::uint32_t>(g.edges.size()));
}

// The owned links per pair of tracepoints named as the spec names them
// ("node/tracepoint"): instances of a node add up.
std::map<std::pair<std::string, std::string>, LinkSummary> link_summaries(const graph::SampleSet& s, EdgeFacts& facts) {
    std::map<std::pair<std::string, std::string>, LinkSummary> out;
    for (LinksOfPair& links : facts.by_ids.all()) {
        const std::uint64_t ids = links.ids;
        LinkSummary& into = out[{label(s.tracepoints[ids >> 32]), label(s.tracepoints[ids & 0xffffffffu])}];
        // A name's first pair taken whole: appending to an empty one would copy its histogram bucket by bucket.
        if (into.latency.count == 0) into.latency = std::move(links.latency);
        else into.latency.append(links.latency);
        for (std::uint32_t b = 0; b < links.per_bin.size(); ++b)
            if (links.per_bin[b]) into.per_bin[b] += links.per_bin[b];
    }
    return out;
}

// The owned samples' leftovers (docs/spec.md section 4): inputs without a
// producer, outputs no one consumed; per node instance (every instance of
// the window, as the whole run lists them) its samples and inputs without
// producer. Counted per tracepoint (a flat array, no look-up of the
// tracepoint's instance a sample), then added up per instance. Returns the
// inputs without producer, in time order: few, and the margin check's.
std::vector<SampleIndex> count_leftovers(const graph::SampleSet& s, const graph::Graph& g, SampleIndex begin, SampleIndex end, ShardSummary& out) {
    const graph::HashId* const input = s.input.data();
    const graph::HashId* const output = s.output.data();
    const std::uint32_t* const tracepoint = s.tracepoint.data();
    const std::uint32_t* const in_offset = g.in_offset.data();
    const std::uint32_t* const out_offset = g.out_offset.data();
    std::vector<std::uint64_t> samples_of(s.tracepoints.size(), 0);
    std::vector<SampleIndex> unlinked;
    std::uint64_t unconsumed = 0;
    for (SampleIndex v = begin; v < end; ++v) {
        ++samples_of[tracepoint[v]];
        unconsumed += output[v] != graph::kNoHash && out_offset[v] == out_offset[v + 1];
        if (input[v] != graph::kNoHash && in_offset[v] == in_offset[v + 1]) [[unlikely]]
            unlinked.push_back(v);
    }
    std::vector<InstanceCounts> by_id(s.instances.size());
    for (std::size_t t = 0; t < samples_of.size(); ++t) by_id[s.tracepoints[t].instance_id].samples += samples_of[t];
    for (const SampleIndex v : unlinked) ++by_id[s.tracepoint_of(v).instance_id].unlinked_inputs;
    for (std::size_t i = 0; i < s.instances.size(); ++i) {
        InstanceCounts& c = out.instances[{s.instances[i].node_name, s.instances[i].instance}];
        c.samples += by_id[i].samples;
        c.unlinked_inputs += by_id[i].unlinked_inputs;
    }
    out.unlinked_inputs += unlinked.size();
    out.unconsumed_outputs += unconsumed;
    return unlinked;
}

// What MarginReport needs of a shard: the longest link into each
// tracepoint in the whole window, and the owned inputs without producer by
// their time since the window's start (none in the run's first shard: no
// producer lies before it). Histograms at 1 %: a count near a boundary, not a latency.
void add_longest_links(const graph::SampleSet& s, const ShardWindow& w, const std::vector<std::int64_t>& longest_into, MarginReport& out) {
    out.margin_ns = w.margin_ns;
    for (std::size_t t = 0; t < longest_into.size(); ++t)
        if (longest_into[t] >= 0) out.add_link_into(label(s.tracepoints[t]), longest_into[t]);
}

void add_unlinked(const graph::SampleSet& s, const ShardWindow& w, const std::vector<SampleIndex>& unlinked_inputs, MarginReport& out) {
    if (w.own_from_ns <= w.run_first_ns) return;
    std::vector<std::optional<LogHistogram>> unlinked(s.tracepoints.size());
    for (const SampleIndex v : unlinked_inputs) {
        auto& h = unlinked[s.tracepoint[v]];
        if (!h) h.emplace(0.01);
        h->add(graph::elapsed_ns(w.read_from_ns(), s.time_ns[v]));
    }
    for (std::size_t t = 0; t < unlinked.size(); ++t)
        if (unlinked[t]) out.add_unlinked(label(s.tracepoints[t]), *unlinked[t]);
}

// The metrics asked of a shard: its share of the run, and the intervals'
// and M11's values summarised where the metrics find them, on their
// threads, each into its own summary of `out` (its bins set, its intervals
// one a spec interval): no copies of them.
metrics::MetricOptions shard_options(const metrics::MetricOptions& measure, const ShardWindow& w, SampleIndex begin, SampleIndex end,
                                     ShardSummary& out) {
    metrics::MetricOptions options = measure;
    options.keep_value_times = true;
    options.summarize_values = false;
    options.take_values = [&out](std::size_t i, std::span<const double> values_ms, std::span<const std::int64_t> from_ns) {
        if (i == metrics::MetricOptions::kM11Values) out.m11 = distribution_of(values_ms);
        else add_interval_values(values_ms, from_ns, out.bins, out.intervals.at(i));
    };
    options.share = metrics::Share{begin, end, std::max(w.own_from_ns, w.run_first_ns), std::min(w.own_to_ns, w.run_last_ns),
                                   w.own_from_ns <= w.run_last_ns && w.run_last_ns < w.own_to_ns};
    return options;
}

void name_intervals(const metrics::AnalysisResult& r, ShardSummary& out) {
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
        IntervalSummary& into = out.intervals.at(i);
        into.name = r.intervals[i].name;
        into.from = r.intervals[i].from;
        into.to = r.intervals[i].to;
        into.kind = r.intervals[i].kind;
    }
}

}  // namespace

std::int64_t ShardWindow::read_from_ns() const noexcept { return saturating_add(own_from_ns, -margin_ns); }
std::int64_t ShardWindow::read_to_ns(std::int64_t tolerance_ns) const noexcept {
    return saturating_add(saturating_add(own_to_ns, margin_ns), tolerance_ns);
}

ShardSummary summarize(const graph::SampleSet& s, const graph::Graph& g, const graph::AnalysisSpec& spec, const ShardWindow& w,
                       const metrics::MetricOptions& measure) {
    const SampleIndex begin = graph::first_at_or_after(s, w.own_from_ns), end = graph::first_at_or_after(s, w.own_to_ns);
    ShardSummary out;
    out.bins = TimeBins::over(w.run_first_ns, w.run_last_ns, kTimeBins);
    out.intervals.resize(spec.intervals.size());
    const metrics::AnalysisResult r = metrics::analyze(s, g, spec, shard_options(measure, w, begin, end, out));
    name_intervals(r, out);
    out.own_from_ns = w.own_from_ns;
    out.own_to_ns = w.own_to_ns;
    out.samples = end - begin;
    if (end > begin) {
        out.first_time_ns = s.time_ns[begin];
        out.last_time_ns = s.time_ns[end - 1];
    }
    out.edges = r.edges;
    out.message_edges = r.message_edges;
    out.local_edges = r.local_edges;
    out.local_ns = r.exact.local_ns;
    out.message_ns = r.exact.message_ns;
    out.in_flight_ns = r.exact.in_flight_ns;
    out.in_flight_sq_ns = r.exact.in_flight_sq_ns;
    out.in_flight_max = r.exact.in_flight_max;
    out.nodes.insert(s.node_names.begin(), s.node_names.end());
    for (const metrics::NodeLatency& cell : r.node_latency) out.matrix[{cell.from, cell.to}] = {cell.count, cell.sum_ns, cell.max_ns};
    // Two halves with nothing in common (the kernel's own loops are serial): the links, and the samples' leftovers.
    std::vector<SampleIndex> unlinked;
    graph::parallel::for_each(2, graph::parallel::thread_count(measure.threads), [&](std::size_t half, unsigned) {
        if (half == 0) {
            EdgeFacts facts{PairLinks(s.tracepoints.size(), out.bins.count), 0, std::vector<std::int64_t>(s.tracepoints.size(), -1)};
            owned_edges(s, g, out.bins, begin, end, facts);
            margin_edges(s, g, begin, end, facts);
            out.links = link_summaries(s, facts);
            out.link_digest = facts.digest;
            add_longest_links(s, w, facts.longest_into, out.margin);
            return;
        }
        unlinked = count_leftovers(s, g, begin, end, out);
    });
    add_unlinked(s, w, unlinked, out.margin);
    for (const IntervalSummary& i : out.intervals) out.margin.longest_interval_ns = std::max(out.margin.longest_interval_ns, i.latency.max);
    for (const metrics::NodeLatency& cell : r.node_latency) out.margin.longest_interval_ns = std::max(out.margin.longest_interval_ns, cell.max_ns);
    return out;
}

}  // namespace hashtrace::shard
