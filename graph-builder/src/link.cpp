// Linking (SPEC.md section 4) as a hash join:
//   1. index the producers (samples with an output hash) by (output hash,
//      source, time): two stable counting sorts of the time-ordered samples,
//      so each hash bucket holds runs of one source each, in time order;
//   2. for each consumer (sample with an input hash), visit the runs of its
//      hash; per allowed run, binary-search the latest producer at or before
//      the consumer's time (+ tolerance), skipping itself and other threads
//      where the scope requires one thread;
//   3. turn the edge list into compressed rows in both directions.
// Every step is linear or n log(run), and the consumer loop runs on all cores.
#include "hashtrace/graph/link.hpp"

#include "pair_table.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

namespace hashtrace::graph {
namespace {

struct ProducerIndex {
    std::vector<SampleIndex> producers;  // grouped by output hash, then source, then time
    std::vector<std::uint32_t> runs;     // start of each (hash, source) run in producers, plus a final sentinel
    std::vector<std::uint32_t> run_offset;  // per hash: its runs are runs[run_offset[h] .. run_offset[h+1])
};

// Counting sort by key, stable; `offsets` ends as the bucket starts (size buckets+1).
template <typename Key>
std::vector<SampleIndex> counting_sort(const std::vector<SampleIndex>& items, std::size_t buckets, Key&& key,
                                       std::vector<std::uint32_t>& offsets) {
    offsets.assign(buckets + 1, 0);
    for (SampleIndex s : items) ++offsets[key(s) + 1];
    for (std::size_t b = 0; b < buckets; ++b) offsets[b + 1] += offsets[b];
    std::vector<SampleIndex> sorted(items.size());
    for (SampleIndex s : items) sorted[offsets[key(s)]++] = s;
    // The fill advanced each start to the next bucket's start: shift back.
    for (std::size_t b = buckets; b > 0; --b) offsets[b] = offsets[b - 1];
    offsets[0] = 0;
    return sorted;
}

ProducerIndex index_producers(const SampleSet& s) {
    auto source = [&](SampleIndex i) { return s.tracepoints[s.tracepoint[i]].source_id; };
    std::vector<SampleIndex> producers;
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (s.output[i] != kNoHash) producers.push_back(i);

    // Samples are in time order, and both sorts are stable: each (hash,
    // source) run ends up in time order.
    std::vector<std::uint32_t> offsets;
    producers = counting_sort(producers, s.source_count, source, offsets);
    producers = counting_sort(producers, s.hash_count, [&](SampleIndex i) { return s.output[i]; }, offsets);

    ProducerIndex index;
    index.run_offset.resize(s.hash_count + 1);
    for (std::size_t h = 0; h < s.hash_count; ++h) {
        index.run_offset[h] = static_cast<std::uint32_t>(index.runs.size());
        for (std::uint32_t p = offsets[h]; p < offsets[h + 1]; ++p)
            if (p == offsets[h] || source(producers[p]) != source(producers[p - 1])) index.runs.push_back(p);
    }
    index.run_offset[s.hash_count] = static_cast<std::uint32_t>(index.runs.size());
    index.runs.push_back(static_cast<std::uint32_t>(producers.size()));
    index.producers = std::move(producers);
    return index;
}

struct LinkRange {
    std::vector<Edge> edges;  // grouped by consumer, consumers ascending
    std::uint64_t unlinked = 0;
};

void link_range(const SampleSet& s, const ProducerIndex& index, const detail::PairTable& pairs, const LinkOptions& options,
                SampleIndex begin, SampleIndex end, LinkRange& out, std::atomic<std::uint64_t>& done,
                std::atomic<std::uint64_t>& edges_found, bool reports) {
    const auto& tps = s.tracepoints;
    const SampleIndex* producers = index.producers.data();
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::size_t reported_edges = 0;
    for (SampleIndex b = begin; b < end; ++b) {
        if (((b - begin) & 0xFFFF) == 0 && b != begin) {
            done.fetch_add(0x10000, std::memory_order_relaxed);
            edges_found.fetch_add(out.edges.size() - reported_edges, std::memory_order_relaxed);
            reported_edges = out.edges.size();
            if (reports && options.progress) options.progress(done.load(), edges_found.load());
        }
        const HashId h = s.input[b];
        if (h == kNoHash) continue;
        const std::int64_t t = s.time_ns[b];
        const std::int64_t limit = t > kMax - options.tolerance_ns ? kMax : t + options.tolerance_ns;
        const Tracepoint& tb = tps[s.tracepoint[b]];
        bool linked = false;
        for (std::uint32_t r = index.run_offset[h]; r < index.run_offset[h + 1]; ++r) {
            const std::uint32_t first = index.runs[r], last = index.runs[r + 1];
            const Tracepoint& ta = tps[s.tracepoint[producers[first]]];
            const auto scope = pairs.scope(ta.source_id, tb.source_id);
            if (!scope) continue;
            if (*scope != PairScope::any && ta.instance_id != tb.instance_id) continue;
            const SampleIndex* p = std::upper_bound(producers + first, producers + last, limit,
                                                    [&](std::int64_t v, SampleIndex a) { return v < s.time_ns[a]; });
            while (p != producers + first) {
                const SampleIndex a = *--p;
                if (a == b) continue;
                if (*scope == PairScope::thread && s.thread[a] != s.thread[b]) continue;
                out.edges.push_back({a, b});
                linked = true;
                if (!options.keep_all) break;
            }
        }
        out.unlinked += !linked;
    }
}

// Edges grouped by consumer (ascending) -> both CSR directions, each sorted.
void build_rows(std::size_t n, std::vector<Edge>&& by_consumer, Graph& g) {
    g.out_offset.assign(n + 1, 0);
    for (const Edge& e : by_consumer) ++g.out_offset[e.from + 1];
    for (std::size_t i = 0; i < n; ++i) g.out_offset[i + 1] += g.out_offset[i];
    g.edges.resize(by_consumer.size());
    {
        std::vector<std::uint32_t> cursor(g.out_offset.begin(), g.out_offset.end() - 1);
        for (const Edge& e : by_consumer) g.edges[cursor[e.from]++] = e;
    }
    by_consumer = {};
    // Within one producer, edges already come in consumer order, except where
    // keep-all or several runs emit one consumer's edges out of producer order.
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
        const ProducerIndex index = index_producers(s);
        const detail::PairTable pairs(s, spec);
        const unsigned threads = std::clamp<unsigned>(options.threads ? options.threads : std::thread::hardware_concurrency(), 1, 64);
        const std::size_t n = s.size();
        std::vector<LinkRange> ranges(n < 100000 ? 1 : threads);
        std::atomic<std::uint64_t> done{0}, edges_found{0};
        auto range = [&](std::size_t k) {
            link_range(s, index, pairs, options, static_cast<SampleIndex>(n * k / ranges.size()),
                       static_cast<SampleIndex>(n * (k + 1) / ranges.size()), ranges[k], done, edges_found, k == 0);
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
        if (options.progress) options.progress(n, edges.size());
    }
    build_rows(s.size(), std::move(edges), g);
    g.unlinked_inputs = unlinked;
    for (SampleIndex i = 0; i < s.size(); ++i)
        g.unconsumed_outputs += s.output[i] != kNoHash && g.out_offset[i] == g.out_offset[i + 1];
    return g;
}

}  // namespace hashtrace::graph
