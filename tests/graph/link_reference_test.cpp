// The whole Graph of link() - both CSR directions, their order and the
// leftover counts - against a brute-force reading of docs/spec.md section 4 on random runs
// large enough to be joined in several units (105k samples; a unit holds
// about 64k records): several node instances and threads, [[pair]] rules
// with wildcards and every scope, hash values reused by many sources (so the
// join both looks up the allowed runs and tries every run), equal times,
// keep-all and tolerance, 1-3 threads. One run draws hashes from all over
// the run (join units reading the whole run, their edges sorted by consumer),
// the other mostly from a window sliding with time (units reading a stretch
// of it), plus a few used throughout; a third has hashes of every producer
// count from 1 to 40 (both ways of joining a hash).
#include "hashtrace/graph/link.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

namespace hashtrace::graph {
namespace {

using testing::CsvLog;
using testing::load;

// The scope under which a may link to b by the rules (the most permissive
// of those matching), or nullopt.
std::optional<PairScope> rule_scope(const AnalysisSpec& spec, const Tracepoint& a, const Tracepoint& b) {
    if (spec.pairs.empty()) return PairScope::any;
    std::optional<PairScope> best;
    auto rank = [](PairScope p) { return p == PairScope::any ? 2 : p == PairScope::instance ? 1 : 0; };
    for (const PairRule& rule : spec.pairs)
        if (rule.from.matches(a.node_name, a.tracepoint_name) && rule.to.matches(b.node_name, b.tracepoint_name) &&
            (!best || rank(rule.scope) > rank(*best)))
            best = rule.scope;
    return best;
}

Graph reference_link(const SampleSet& s, const AnalysisSpec& spec, const LinkOptions& options) {
    std::vector<std::vector<SampleIndex>> producers_of(s.hash_count);  // index order = time order
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (s.output[i] != kNoHash) producers_of[s.output[i]].push_back(i);
    std::vector<const Tracepoint*> of_source(s.source_count);
    for (const Tracepoint& tp : s.tracepoints) of_source[tp.source_id] = &tp;
    std::vector<std::optional<PairScope>> scope(std::size_t{s.source_count} * s.source_count);  // [from * sources + to]
    for (std::uint32_t a = 0; a < s.source_count; ++a)
        for (std::uint32_t b = 0; b < s.source_count; ++b) scope[std::size_t{a} * s.source_count + b] = rule_scope(spec, *of_source[a], *of_source[b]);
    std::vector<Edge> edges;
    Graph g;
    for (SampleIndex b = 0; b < s.size(); ++b) {
        if (s.input[b] == kNoHash) continue;
        std::vector<std::vector<SampleIndex>> by_source(s.source_count);
        for (SampleIndex a : producers_of[s.input[b]]) {
            if (a == b || s.time_ns[a] > s.time_ns[b] + options.tolerance_ns) continue;
            const Tracepoint &ta = s.tracepoint_of(a), &tb = s.tracepoint_of(b);
            const auto allowed = scope[std::size_t{ta.source_id} * s.source_count + tb.source_id];
            if (!allowed) continue;
            if (*allowed != PairScope::any && ta.instance_id != tb.instance_id) continue;
            if (*allowed == PairScope::thread && s.thread[a] != s.thread[b]) continue;
            by_source[ta.source_id].push_back(a);
        }
        const std::size_t before = edges.size();
        for (const auto& candidates : by_source) {
            if (candidates.empty()) continue;
            if (options.keep_all)
                for (SampleIndex a : candidates) edges.push_back({a, b});
            else
                edges.push_back({candidates.back(), b});
        }
        g.unlinked_inputs += edges.size() == before;
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return std::pair(x.from, x.to) < std::pair(y.from, y.to); });
    g.edges.assign(edges.begin(), edges.end());
    g.out_offset.assign(s.size() + 1, 0);
    g.in_offset.assign(s.size() + 1, 0);
    for (const Edge& e : edges) {
        ++g.out_offset[e.from + 1];
        ++g.in_offset[e.to + 1];
    }
    std::partial_sum(g.out_offset.begin(), g.out_offset.end(), g.out_offset.begin());
    std::partial_sum(g.in_offset.begin(), g.in_offset.end(), g.in_offset.begin());
    g.in_edges.resize(edges.size());
    std::iota(g.in_edges.begin(), g.in_edges.end(), 0u);
    std::stable_sort(g.in_edges.begin(), g.in_edges.end(), [&](std::uint32_t x, std::uint32_t y) { return edges[x].to < edges[y].to; });
    for (SampleIndex i = 0; i < s.size(); ++i)
        g.unconsumed_outputs += s.output[i] != kNoHash && g.out_offset[i] == g.out_offset[i + 1];
    return g;
}

void expect_same_graph(const Graph& got, const Graph& want, const std::string& what) {
    ASSERT_EQ(got.edges.size(), want.edges.size()) << what;
    for (std::size_t i = 0; i < want.edges.size(); ++i)
        ASSERT_EQ(std::pair(got.edges[i].from, got.edges[i].to), std::pair(want.edges[i].from, want.edges[i].to)) << what << " edge " << i;
    EXPECT_EQ(got.out_offset, want.out_offset) << what;
    EXPECT_EQ(got.in_offset, want.in_offset) << what;
    EXPECT_EQ(got.in_edges, want.in_edges) << what;
    EXPECT_EQ(got.unlinked_inputs, want.unlinked_inputs) << what;
    EXPECT_EQ(got.unconsumed_outputs, want.unconsumed_outputs) << what;
}

// Hash ids in order of first use, as the binary loader numbers most of a
// run's hashes (the CSV loader of these tests does not), so that a sliding
// window of hashes is a sliding window of ids. The values are dropped.
void number_by_first_use(SampleSet& s) {
    std::vector<HashId> renumbered(s.hash_count, kNoHash);
    HashId next = 0;
    for (SampleIndex i = 0; i < s.size(); ++i)
        for (HashId* h : {&s.input[i], &s.output[i]})
            if (*h != kNoHash) *h = renumbered[*h] == kNoHash ? renumbered[*h] = next++ : renumbered[*h];
    s.hash_values.clear();
    s.hash_functions.clear();
}

// 3 nodes x 2 instances x 4 tracepoints = 24 sources, 3 threads each; a
// hash is drawn from a few values (reused by many sources) or many: any of
// them, or with `sliding`, those of the samples' time.
SampleSet random_run(std::uint64_t seed, bool sliding = false) {
    std::mt19937_64 rng(seed);
    std::vector<CsvLog> logs(6);
    const char* tracepoints[] = {"P", "Q", "R", "S"};
    std::uint64_t now = 0;  // in 10 us steps
    auto hash = [&] {
        if (rng() % 4 == 0) return std::string();
        if (rng() % 16 == 0) return "c" + std::to_string(rng() % 50);
        return "m" + std::to_string(sliding ? now / 8 + rng() % 16 : rng() % 40000);
    };
    for (int k = 0; k < 105000; ++k) {
        const std::size_t log = rng() % 6;
        now = sliding ? k * 3 + rng() % 8 : rng() % 300000;
        const double t = 100 + static_cast<double>(now) * 1e-5;  // equal times happen
        const std::string in = hash(), out = hash();
        logs[log].row("N" + std::to_string(log / 2), std::to_string(log % 2), tracepoints[rng() % 4], t, in, out, static_cast<int>(rng() % 3));
    }
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < logs.size(); ++i) files.emplace_back("n" + std::to_string(i) + ".csv", logs[i].text());
    SampleSet s = load(files);
    if (sliding) number_by_first_use(s);
    return s;
}

// Hashes with every number of producers from 1 to 40, on both sides of the
// join's bound between walking a hash's few producers back per consumer and
// building its runs by source: each hash's samples lie in a short stretch
// (equal times, samples consuming their own output), from random sources and
// threads. `many_sources`: 12 instances x 6 tracepoints = 72 sources, more
// than the pair table's masks hold (the join's walk then stamps sources).
SampleSet run_of_every_producer_count(std::uint64_t seed, bool many_sources = false) {
    std::mt19937_64 rng(seed);
    std::vector<CsvLog> logs(many_sources ? 12 : 6);
    const char* tracepoints[] = {"P", "Q", "R", "S", "T", "U"};
    const std::size_t tracepoint_count = many_sources ? 6 : 4;
    std::uint64_t now = 0;  // in 10 us steps
    for (int round = 0; round < 30; ++round)
        for (int producers = 1; producers <= 40; ++producers) {
            const std::string value = "k" + std::to_string(round) + "_" + std::to_string(producers);
            const int consumers = 1 + static_cast<int>(rng() % 12);
            for (int k = 0; k < producers + consumers; ++k) {
                const std::size_t log = rng() % logs.size();
                now += rng() % 3;
                const bool produces = k < producers, consumes = k >= producers || rng() % 4 == 0;
                logs[log].row("N" + std::to_string(log / 2), std::to_string(log % 2), tracepoints[rng() % tracepoint_count], 100 + static_cast<double>(now) * 1e-5,
                              consumes ? value : "", produces ? value : "", static_cast<int>(rng() % 3));
            }
        }
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < logs.size(); ++i) files.emplace_back("n" + std::to_string(i) + ".csv", logs[i].text());
    return load(files);
}

TEST(LinkReference, WholeGraphMatchesBruteForceOnRandomRuns) {
    const AnalysisSpec rules = parse_spec(R"(
[[pair]]
from = "*/P"
to = "*/Q"
[[pair]]
from = "N0/*"
to = "N0/*"
scope = "instance"
[[pair]]
from = "*/R"
to = "*/R"
scope = "thread"
[[pair]]
from = "N1/S"
to = "*/P"
scope = "thread"
[[pair]]
from = "N1/S"
to = "N2/P"
scope = "instance"
[[pair]]
from = "N2/*"
to = "N1/Q"
)", "reference.toml");
    for (const std::string run : {"random", "sliding", "every producer count", "every producer count, 72 sources"}) {
        const SampleSet s = run == "every producer count"              ? run_of_every_producer_count(5)
                            : run == "every producer count, 72 sources" ? run_of_every_producer_count(7, true)
                                                                          : random_run(11, run == "sliding");
        for (const AnalysisSpec* spec : {&rules, static_cast<const AnalysisSpec*>(nullptr)})
            for (const bool keep_all : {false, true})
                for (const std::int64_t tolerance : {std::int64_t{0}, std::int64_t{40000}}) {
                    LinkOptions options;
                    options.keep_all = keep_all;
                    options.tolerance_ns = tolerance;
                    const AnalysisSpec no_rules;
                    const AnalysisSpec& used = spec ? *spec : no_rules;
                    const Graph want = reference_link(s, used, options);
                    for (unsigned threads : {1u, 2u, 3u}) {
                        options.threads = threads;
                        expect_same_graph(link(s, used, options), want,
                                          run + (spec ? " rules" : " no rules") + (keep_all ? " keep-all" : "") + " tolerance " +
                                              std::to_string(tolerance) + " threads " + std::to_string(threads));
                    }
                }
    }
}

}  // namespace
}  // namespace hashtrace::graph
