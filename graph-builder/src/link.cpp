// Linking (SPEC.md section 4) as a partitioned hash join:
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
// several times per consumer; it runs on all cores over ranges of hashes.
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

// The samples whose `hash` column is set, grouped by hash id (stable, so in
// time order within a hash); offsets[h] .. offsets[h+1] is hash h's group.
std::vector<Endpoint> group_by_hash(const SampleSet& s, const std::vector<HashId>& hash, std::vector<std::uint32_t>& offsets) {
    offsets.assign(s.hash_count + 1, 0);
    for (HashId h : hash)
        if (h != kNoHash) ++offsets[h + 1];
    for (std::size_t h = 0; h < s.hash_count; ++h) offsets[h + 1] += offsets[h];
    std::vector<Endpoint> out(offsets[s.hash_count]);
    std::vector<std::uint32_t> cursor(offsets.begin(), offsets.end() - 1);
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (const HashId h = hash[i]; h != kNoHash) out[cursor[h]++] = {s.time_ns[i], i, s.tracepoints[s.tracepoint[i]].source_id};
    return out;
}

struct Join {
    std::vector<Endpoint> producers, consumers;
    std::vector<std::uint32_t> producer_offset, consumer_offset;  // per hash, size hash_count+1
    std::vector<std::uint32_t> instance_of_source;
};

Join prepare_join(const SampleSet& s) {
    Join j;
    j.producers = group_by_hash(s, s.output, j.producer_offset);
    j.consumers = group_by_hash(s, s.input, j.consumer_offset);
    // Runs of one source per hash; a stable sort keeps each run in time order.
    for (std::size_t h = 0; h < s.hash_count; ++h) {
        const auto first = j.producers.begin() + j.producer_offset[h], last = j.producers.begin() + j.producer_offset[h + 1];
        auto by_source = [](const Endpoint& a, const Endpoint& b) { return a.source < b.source; };
        if (!std::is_sorted(first, last, by_source)) std::stable_sort(first, last, by_source);
    }
    j.instance_of_source.resize(s.source_count);
    for (const Tracepoint& tp : s.tracepoints) j.instance_of_source[tp.source_id] = tp.instance_id;
    return j;
}

struct LinkRange {
    std::vector<Edge> edges;
    std::uint64_t unlinked = 0;
};

// Links the consumers of hashes [first_hash, last_hash).
void link_hashes(const SampleSet& s, const Join& j, const detail::PairTable& pairs, const LinkOptions& options, std::size_t first_hash,
                 std::size_t last_hash, LinkRange& out, std::atomic<std::uint64_t>& done, std::atomic<std::uint64_t>& edges_found,
                 bool reports) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::vector<std::uint32_t> runs;  // starts of the current hash's source runs, plus its end
    std::uint64_t consumers_done = 0;
    std::size_t reported_edges = 0;
    for (std::size_t h = first_hash; h < last_hash; ++h) {
        const Endpoint* consumer = j.consumers.data() + j.consumer_offset[h];
        const Endpoint* const consumers_end = j.consumers.data() + j.consumer_offset[h + 1];
        if (consumer == consumers_end) continue;
        const Endpoint* producers = j.producers.data();
        runs.clear();
        for (std::uint32_t p = j.producer_offset[h]; p < j.producer_offset[h + 1]; ++p)
            if (p == j.producer_offset[h] || producers[p].source != producers[p - 1].source) runs.push_back(p);
        runs.push_back(j.producer_offset[h + 1]);
        for (; consumer != consumers_end; ++consumer) {
            const Endpoint& b = *consumer;
            const std::int64_t limit = b.time > kMax - options.tolerance_ns ? kMax : b.time + options.tolerance_ns;
            bool linked = false;
            for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
                const Endpoint* first = producers + runs[r];
                const Endpoint* last = producers + runs[r + 1];
                const auto scope = pairs.scope(first->source, b.source);
                if (!scope) continue;
                if (*scope != PairScope::any && j.instance_of_source[first->source] != j.instance_of_source[b.source]) continue;
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
        consumers_done += static_cast<std::uint64_t>(consumers_end - (j.consumers.data() + j.consumer_offset[h]));
        if (consumers_done >= 0x10000) {
            done.fetch_add(consumers_done, std::memory_order_relaxed);
            edges_found.fetch_add(out.edges.size() - reported_edges, std::memory_order_relaxed);
            consumers_done = 0;
            reported_edges = out.edges.size();
            if (reports && options.progress) options.progress(done.load(), edges_found.load());
        }
    }
}

// Edges (grouped by hash) -> both CSR directions, each sorted.
void build_rows(std::size_t n, std::vector<Edge>&& by_hash, Graph& g) {
    g.out_offset.assign(n + 1, 0);
    for (const Edge& e : by_hash) ++g.out_offset[e.from + 1];
    for (std::size_t i = 0; i < n; ++i) g.out_offset[i + 1] += g.out_offset[i];
    g.edges.resize(by_hash.size());
    {
        std::vector<std::uint32_t> cursor(g.out_offset.begin(), g.out_offset.end() - 1);
        for (const Edge& e : by_hash) g.edges[cursor[e.from]++] = e;
    }
    by_hash = {};
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
    Graph g;
    std::vector<Edge> edges;
    std::uint64_t unlinked = 0;
    {
        const Join join = prepare_join(s);
        const detail::PairTable pairs(s, spec);
        const unsigned threads = std::clamp<unsigned>(options.threads ? options.threads : std::thread::hardware_concurrency(), 1, 64);
        const std::size_t consumers = join.consumers.size();
        std::vector<LinkRange> ranges(consumers < 100000 ? 1 : threads);
        // Hash ranges with about equal numbers of consumers.
        std::vector<std::size_t> bounds{0};
        for (std::size_t k = 1; k < ranges.size(); ++k)
            bounds.push_back(static_cast<std::size_t>(std::lower_bound(join.consumer_offset.begin(), join.consumer_offset.end(),
                                                                       static_cast<std::uint32_t>(consumers * k / ranges.size())) -
                                                      join.consumer_offset.begin()));
        bounds.push_back(s.hash_count);
        for (std::size_t k = 1; k < bounds.size(); ++k) bounds[k] = std::clamp(bounds[k], bounds[k - 1], s.hash_count);
        std::atomic<std::uint64_t> done{0}, edges_found{0};
        auto range = [&](std::size_t k) {
            link_hashes(s, join, pairs, options, bounds[k], bounds[k + 1], ranges[k], done, edges_found, k == 0);
        };
        {
            std::vector<std::jthread> pool;
            for (std::size_t k = 1; k < ranges.size(); ++k) pool.emplace_back(range, k);
            range(0);
        }
        std::size_t total = 0;
        for (const auto& r : ranges) total += r.edges.size();
        if (total >= 0xFFFFFFFFull) throw std::length_error("more than 4294967294 edges in one graph");
        edges.reserve(total);
        for (auto& r : ranges) {
            edges.insert(edges.end(), r.edges.begin(), r.edges.end());
            unlinked += r.unlinked;
            r.edges = {};
        }
        if (options.progress) options.progress(s.size(), edges.size());
    }
    build_rows(s.size(), std::move(edges), g);
    g.unlinked_inputs = unlinked;
    for (SampleIndex i = 0; i < s.size(); ++i)
        g.unconsumed_outputs += s.output[i] != kNoHash && g.out_offset[i] == g.out_offset[i + 1];
    return g;
}

}  // namespace hashtrace::graph
