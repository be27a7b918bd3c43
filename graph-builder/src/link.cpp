// Linking (SPEC.md section 4) as a partitioned hash join, per partition of
// the hash ids (a few per core, joined in parallel):
//   1. gather producers (samples with an output hash) and consumers (samples
//      with an input hash) into compact records {time, sample, source},
//      grouped by hash id with a stable counting sort of the time-ordered
//      samples; producers of one hash are then ordered by source, so each
//      (hash, source) run is in time order;
//   2. per hash, for each of its consumers visit the producer runs; per
//      allowed run, binary-search the latest producer at or before the
//      consumer's time (+ tolerance), skipping itself and other threads where
//      the scope requires one thread;
//   3. turn the edge list into compressed rows in both directions.
// Step 2 reads both sides sequentially (the records of one hash are
// contiguous), where probing by consumer in time order would miss the cache
// several times per consumer.
#include "hashtrace/graph/link.hpp"

#include "pair_table.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

namespace hashtrace::graph {
namespace {

struct Endpoint {
    std::int64_t time;
    SampleIndex sample;
    std::uint32_t source;
};

// Per hash id, where its group starts among all samples with that hash
// column set (size hash_count+1).
std::vector<std::uint32_t> hash_offsets(const SampleSet& s, const std::vector<HashId>& hash) {
    std::vector<std::uint32_t> offsets(s.hash_count + 1, 0);
    for (HashId h : hash)
        if (h != kNoHash) ++offsets[h + 1];
    for (std::size_t h = 0; h < s.hash_count; ++h) offsets[h + 1] += offsets[h];
    return offsets;
}

struct JoinPlan {
    std::vector<std::uint32_t> producer_offset, consumer_offset;  // hash_offsets of output and input
    std::vector<std::uint32_t> instance_of_source;
    std::vector<std::size_t> bounds;  // partition k joins hashes [bounds[k], bounds[k+1])
};

// Partitions of the hash ids with about equal numbers of consumers. Only a
// few are gathered at a time (one per worker), so the join's records take a
// fraction of the samples' size.
JoinPlan plan_join(const SampleSet& s, std::size_t partitions) {
    JoinPlan plan{hash_offsets(s, s.output), hash_offsets(s, s.input), std::vector<std::uint32_t>(s.source_count), {0}};
    for (const Tracepoint& tp : s.tracepoints) plan.instance_of_source[tp.source_id] = tp.instance_id;
    const std::size_t consumers = plan.consumer_offset.back();
    for (std::size_t k = 1; k < partitions; ++k) {
        const auto at = std::lower_bound(plan.consumer_offset.begin(), plan.consumer_offset.end(),
                                         static_cast<std::uint32_t>(consumers * k / partitions));
        plan.bounds.push_back(std::clamp<std::size_t>(static_cast<std::size_t>(at - plan.consumer_offset.begin()), plan.bounds.back(), s.hash_count));
    }
    plan.bounds.push_back(s.hash_count);
    return plan;
}

// The samples whose `hash` is in [first_hash, last_hash), grouped by hash
// (stable, so in time order within a hash), at offsets[h] - offsets[first_hash].
std::vector<Endpoint> gather(const SampleSet& s, const std::vector<HashId>& hash, const std::vector<std::uint32_t>& offsets,
                             std::size_t first_hash, std::size_t last_hash) {
    const std::uint32_t base = offsets[first_hash];
    std::vector<Endpoint> out(offsets[last_hash] - base);
    std::vector<std::uint32_t> cursor(offsets.begin() + static_cast<std::ptrdiff_t>(first_hash),
                                      offsets.begin() + static_cast<std::ptrdiff_t>(last_hash));
    const std::uint32_t width = static_cast<std::uint32_t>(last_hash - first_hash);
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (const std::uint32_t h = hash[i] - static_cast<std::uint32_t>(first_hash); h < width)  // kNoHash wraps out of range
            out[cursor[h]++ - base] = {s.time_ns[i], i, s.tracepoints[s.tracepoint[i]].source_id};
    return out;
}

struct LinkRange {
    std::vector<Edge> edges;
    std::uint64_t unlinked = 0;
};

// Gathers and links the consumers of the hashes of partition k.
void link_partition(const SampleSet& s, const JoinPlan& plan, const detail::PairTable& pairs, const LinkOptions& options,
                    std::size_t k, LinkRange& out, std::atomic<std::uint64_t>& done, std::atomic<std::uint64_t>& edges_found,
                    bool reports) {
    const std::size_t first_hash = plan.bounds[k], last_hash = plan.bounds[k + 1];
    std::vector<Endpoint> producers = gather(s, s.output, plan.producer_offset, first_hash, last_hash);
    const std::vector<Endpoint> consumers = gather(s, s.input, plan.consumer_offset, first_hash, last_hash);
    const std::uint32_t producer_base = plan.producer_offset[first_hash], consumer_base = plan.consumer_offset[first_hash];
    out.edges.reserve(consumers.size());  // about one edge per consumer: no doubling of the largest list
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::vector<std::uint32_t> runs;  // starts of the current hash's source runs, plus its end
    std::uint64_t consumers_done = 0;
    std::size_t reported_edges = 0;
    for (std::size_t h = first_hash; h < last_hash; ++h) {
        const Endpoint* consumer = consumers.data() + (plan.consumer_offset[h] - consumer_base);
        const Endpoint* const consumers_end = consumers.data() + (plan.consumer_offset[h + 1] - consumer_base);
        if (consumer == consumers_end) continue;
        // Runs of one source; a stable sort keeps each run in time order.
        const auto p_first = producers.begin() + (plan.producer_offset[h] - producer_base);
        const auto p_last = producers.begin() + (plan.producer_offset[h + 1] - producer_base);
        auto by_source = [](const Endpoint& a, const Endpoint& b) { return a.source < b.source; };
        if (!std::is_sorted(p_first, p_last, by_source)) std::stable_sort(p_first, p_last, by_source);
        runs.clear();
        for (auto p = p_first; p != p_last; ++p)
            if (p == p_first || p->source != (p - 1)->source) runs.push_back(static_cast<std::uint32_t>(p - producers.begin()));
        runs.push_back(static_cast<std::uint32_t>(p_last - producers.begin()));
        for (; consumer != consumers_end; ++consumer) {
            const Endpoint& b = *consumer;
            const std::int64_t limit = b.time > kMax - options.tolerance_ns ? kMax : b.time + options.tolerance_ns;
            bool linked = false;
            for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
                const Endpoint* first = producers.data() + runs[r];
                const Endpoint* last = producers.data() + runs[r + 1];
                const auto scope = pairs.scope(first->source, b.source);
                if (!scope) continue;
                if (*scope != PairScope::any && plan.instance_of_source[first->source] != plan.instance_of_source[b.source]) continue;
                const Endpoint* p = std::upper_bound(first, last, limit, [](std::int64_t v, const Endpoint& a) { return v < a.time; });
                while (p != first) {
                    const SampleIndex a = (--p)->sample;
                    if (a == b.sample) continue;
                    if (*scope == PairScope::thread && s.thread[a] != s.thread[b.sample]) continue;
                    out.edges.push_back({a, b.sample});
                    linked = true;
                    if (!options.keep_all) break;
                }
            }
            out.unlinked += !linked;
        }
        consumers_done += plan.consumer_offset[h + 1] - plan.consumer_offset[h];
        if (consumers_done >= 0x10000) {
            done.fetch_add(consumers_done, std::memory_order_relaxed);
            edges_found.fetch_add(out.edges.size() - reported_edges, std::memory_order_relaxed);
            consumers_done = 0;
            reported_edges = out.edges.size();
            if (reports && options.progress) options.progress(done.load(), edges_found.load());
        }
    }
    done.fetch_add(consumers_done, std::memory_order_relaxed);
    edges_found.fetch_add(out.edges.size() - reported_edges, std::memory_order_relaxed);
}

// The workers' edges (grouped by hash) -> both CSR directions, each sorted.
// Each worker's list is released once placed: the edges exist twice at most.
void build_rows(std::size_t n, std::vector<LinkRange>& ranges, Graph& g) {
    std::size_t total = 0;
    for (const auto& r : ranges) total += r.edges.size();
    if (total >= 0xFFFFFFFFull) throw std::length_error("more than 4294967294 edges in one graph");
    g.out_offset.assign(n + 1, 0);
    for (const auto& r : ranges)
        for (const Edge& e : r.edges) ++g.out_offset[e.from + 1];
    for (std::size_t i = 0; i < n; ++i) g.out_offset[i + 1] += g.out_offset[i];
    g.edges.resize(total);
    {
        std::vector<std::uint32_t> cursor(g.out_offset.begin(), g.out_offset.end() - 1);
        for (auto& r : ranges) {
            for (const Edge& e : r.edges) g.edges[cursor[e.from]++] = e;
            r.edges = {};
        }
    }
    // A producer's edges all belong to its output hash, whose consumers are
    // joined in time order: its row is sorted already, except where equal
    // times or keep-all put consumers out of index order.
    for (std::size_t i = 0; i < n; ++i)
        if (!std::is_sorted(g.edges.begin() + g.out_offset[i], g.edges.begin() + g.out_offset[i + 1],
                            [](const Edge& x, const Edge& y) { return x.to < y.to; }))
            std::sort(g.edges.begin() + g.out_offset[i], g.edges.begin() + g.out_offset[i + 1],
                      [](const Edge& x, const Edge& y) { return x.to < y.to; });
    g.in_offset.assign(n + 1, 0);
    for (const Edge& e : g.edges) ++g.in_offset[e.to + 1];
    for (std::size_t i = 0; i < n; ++i) g.in_offset[i + 1] += g.in_offset[i];
    g.in_edges.resize(g.edges.size());
    std::vector<std::uint32_t> cursor(g.in_offset.begin(), g.in_offset.end() - 1);
    for (std::uint32_t e = 0; e < g.edges.size(); ++e) g.in_edges[cursor[g.edges[e].to]++] = e;
}

}  // namespace

Graph link(const SampleSet& s, const AnalysisSpec& spec, const LinkOptions& options) {
    const unsigned threads = std::clamp<unsigned>(options.threads ? options.threads : std::thread::hardware_concurrency(), 1, 64);
    const JoinPlan plan = plan_join(s, s.size() < 100000 ? 1 : 2 * std::size_t{threads});
    const std::size_t partitions = plan.bounds.size() - 1;
    std::vector<LinkRange> ranges(partitions);
    {
        const detail::PairTable pairs(s, spec);
        std::atomic<std::size_t> next{0};
        std::atomic<std::uint64_t> done{0}, edges_found{0};
        auto worker = [&](bool reports) {
            for (std::size_t k; (k = next.fetch_add(1)) < partitions;)
                link_partition(s, plan, pairs, options, k, ranges[k], done, edges_found, reports);
        };
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < std::min<std::size_t>(threads, partitions); ++t) pool.emplace_back(worker, false);
        worker(true);
    }
    Graph g;
    for (const auto& r : ranges) g.unlinked_inputs += r.unlinked;
    build_rows(s.size(), ranges, g);
    if (options.progress) options.progress(s.size(), g.edges.size());
    for (SampleIndex i = 0; i < s.size(); ++i)
        g.unconsumed_outputs += s.output[i] != kNoHash && g.out_offset[i] == g.out_offset[i + 1];
    return g;
}

}  // namespace hashtrace::graph
