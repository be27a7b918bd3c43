// The sharded kernel against the whole run: a run cut into 1, 2 and 7 time
// shards at awkward boundaries (odd nanoseconds, a tie of sample times, a
// boundary inside a burst) gives exactly the whole run's link set, counts,
// sums, minima and maxima, and percentiles within the histograms' error of
// the in-memory analysis; a link longer than the margin is reported, named.
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/shard/kernel.hpp"
#include "hashtrace/shard/result.hpp"
#include "system.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <span>

namespace hashtrace::shard {
namespace {

using Logs = std::vector<std::pair<std::string, std::string>>;
constexpr std::int64_t kMarginNs = 100'000'000;  // 100 ms: the system's tail waits up to 40 ms

struct Linked {
    graph::SampleSet samples;
    graph::Graph graph;
};

Linked load_and_link(const Logs& logs, const graph::AnalysisSpec& spec, std::int64_t from = std::numeric_limits<std::int64_t>::min(),
                     std::int64_t to = std::numeric_limits<std::int64_t>::max()) {
    graph::LoadOptions load;
    load.from_ns = from;
    load.to_ns = to;
    Linked l{graph::load_samples_from_memory(logs, load), {}};
    l.graph = graph::link(l.samples, spec);
    return l;
}

std::size_t s_whole_size(const Logs& logs) {
    std::size_t rows = 0;
    for (const auto& [name, text] : logs) rows += std::count(text.begin(), text.end(), '\n') - 1;
    return rows;
}

// The run cut at `cuts` (times, ascending), each shard loaded only over its window.
ShardSummary sharded(const Logs& logs, const graph::AnalysisSpec& spec, std::int64_t first, std::int64_t last,
                     const std::vector<std::int64_t>& cuts, std::int64_t margin = kMarginNs) {
    std::vector<std::int64_t> bounds{first};
    bounds.insert(bounds.end(), cuts.begin(), cuts.end());
    bounds.push_back(last + 1);
    ShardSummary merged;
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
        const ShardWindow w{bounds[k], bounds[k + 1], first, last, margin};
        const Linked l = load_and_link(logs, spec, w.read_from_ns(), w.read_to_ns(0));
        if (cuts.size() >= 2) {  // a shard of many reads well under the whole run
            EXPECT_LT(l.samples.size(), s_whole_size(logs) * 3 / 4) << "a shard read (nearly) the whole run";
        }
        ShardSummary s = summarize(l.samples, l.graph, spec, w);
        if (k == 0) merged = std::move(s);
        else merged.append(s);
    }
    return merged;
}

// What does not depend on the order the values came in (a link's jitter
// fields follow the order in which a shard met its tracepoints).
void expect_same_values(const Distribution& a, const Distribution& b, const std::string& what) {
    EXPECT_EQ(a.count, b.count) << what;
    EXPECT_TRUE(a.sum == b.sum) << what;
    EXPECT_TRUE(a.sum_sq == b.sum_sq) << what;
    EXPECT_EQ(a.min, b.min) << what;
    EXPECT_EQ(a.max, b.max) << what;
    EXPECT_EQ(a.histogram, b.histogram) << what;
}

// All of it, the jitter's boundary values and sums too.
void expect_same_distribution(const Distribution& a, const Distribution& b, const std::string& what) {
    expect_same_values(a, b, what);
    EXPECT_EQ(a.first, b.first) << what;
    EXPECT_EQ(a.last, b.last) << what;
    EXPECT_TRUE(a.diff_sum == b.diff_sum) << what;
    EXPECT_TRUE(a.diff_sum_sq == b.diff_sum_sq) << what;
}

void expect_same_bins(const BinnedValues& a, const BinnedValues& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (const auto& [bin, stats] : a) {
        ASSERT_TRUE(b.contains(bin)) << what << " bin " << bin;
        const BinStats& other = b.at(bin);
        EXPECT_EQ(stats.count, other.count) << what << " bin " << bin;
        EXPECT_EQ(stats.min, other.min) << what << " bin " << bin;
        EXPECT_EQ(stats.max, other.max) << what << " bin " << bin;
        EXPECT_EQ(stats.histogram, other.histogram) << what << " bin " << bin;
    }
}

void expect_same_links(const ShardSummary& a, const ShardSummary& b) {
    ASSERT_EQ(a.links.size(), b.links.size());
    for (const auto& [key, link] : a.links) {
        const std::string what = key.first + " -> " + key.second;
        ASSERT_TRUE(b.links.contains(key)) << what;
        expect_same_values(link.latency, b.links.at(key).latency, what);
        EXPECT_EQ(link.per_bin, b.links.at(key).per_bin) << what;
    }
}

void expect_same(const ShardSummary& a, const ShardSummary& b) {
    EXPECT_EQ(a.samples, b.samples);
    EXPECT_EQ(a.edges, b.edges);
    EXPECT_EQ(a.message_edges, b.message_edges);
    EXPECT_EQ(a.local_edges, b.local_edges);
    EXPECT_EQ(a.link_digest, b.link_digest);
    EXPECT_EQ(a.unlinked_inputs, b.unlinked_inputs);
    EXPECT_EQ(a.unconsumed_outputs, b.unconsumed_outputs);
    EXPECT_EQ(a.first_time_ns, b.first_time_ns);
    EXPECT_EQ(a.last_time_ns, b.last_time_ns);
    EXPECT_TRUE(a.local_ns == b.local_ns);
    EXPECT_TRUE(a.message_ns == b.message_ns);
    EXPECT_TRUE(a.in_flight_ns == b.in_flight_ns);
    EXPECT_TRUE(a.in_flight_sq_ns == b.in_flight_sq_ns);
    EXPECT_EQ(a.in_flight_max, b.in_flight_max);
    ASSERT_EQ(a.intervals.size(), b.intervals.size());
    EXPECT_EQ(a.bins, b.bins);
    for (std::size_t i = 0; i < a.intervals.size(); ++i) {
        expect_same_distribution(a.intervals[i].latency, b.intervals[i].latency, a.intervals[i].name);
        expect_same_bins(a.intervals[i].over_time, b.intervals[i].over_time, a.intervals[i].name);
    }
    expect_same_links(a, b);
    expect_same_distribution(a.m11, b.m11, "M11");
    ASSERT_EQ(a.matrix.size(), b.matrix.size());
    for (const auto& [key, cell] : a.matrix) {
        const MatrixCell& other = b.matrix.at(key);
        EXPECT_EQ(cell.count, other.count) << key.first << "->" << key.second;
        EXPECT_TRUE(cell.sum_ns == other.sum_ns) << key.first << "->" << key.second;
        EXPECT_EQ(cell.max_ns, other.max_ns) << key.first << "->" << key.second;
    }
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.instances, b.instances);
}

class ShardedKernel : public ::testing::Test {
protected:
    void SetUp() override {
        logs = testing::system_logs({});
        spec = graph::parse_spec(testing::kSystemSpec, "system.toml");
        whole = load_and_link(logs, spec);
        first = whole.samples.time_ns.front();
        last = whole.samples.time_ns.back();
        whole_summary = summarize(whole.samples, whole.graph, spec, {first, last + 1, first, last, kMarginNs});
    }
    // Awkward boundaries: odd nanoseconds, one at a sample's own time (its ties stay together), one in a burst.
    std::vector<std::int64_t> cuts(int count) const {
        std::vector<std::int64_t> out;
        for (int k = 1; k < count; ++k) out.push_back(first + (last - first) * k / count + 7919 * k);
        if (count > 2) out[1] = whole.samples.time_ns[whole.samples.size() / 3];
        return out;
    }

    Logs logs;
    graph::AnalysisSpec spec;
    Linked whole;
    std::int64_t first = 0, last = 0;
    ShardSummary whole_summary;
};

TEST_F(ShardedKernel, TheSystemIsNotTrivial) {
    EXPECT_GT(whole_summary.samples, 40000u);
    EXPECT_GT(whole_summary.message_edges, 20000u);
    EXPECT_GT(whole_summary.local_edges, 10000u);
    for (const auto& i : whole_summary.intervals) EXPECT_GT(i.latency.count, 7000u) << i.name;
    EXPECT_EQ(whole_summary.matrix.size(), 3u);  // from the source's roots (its notes, its first tick) to each other node
    EXPECT_TRUE(whole_summary.margin.held());
}

// The per-link and per-bin summaries against the graph and the metrics'
// own values, counted here directly.
TEST_F(ShardedKernel, LinksBinsAndInstancesAddUpToTheRun) {
    const auto& s = whole.samples;
    const auto& g = whole.graph;
    std::map<std::pair<std::string, std::string>, std::uint64_t> links;
    for (const graph::Edge& e : g.edges) {
        const auto& from = s.tracepoints[s.tracepoint[e.from]];
        const auto& to = s.tracepoints[s.tracepoint[e.to]];
        ++links[{from.node_name + "/" + from.tracepoint_name, to.node_name + "/" + to.tracepoint_name}];
    }
    ASSERT_EQ(whole_summary.links.size(), links.size());
    for (const auto& [key, n] : links) {
        const LinkSummary& link = whole_summary.links.at(key);
        EXPECT_EQ(link.latency.count, n) << key.first << " -> " << key.second;
        std::uint64_t binned = 0;
        for (const auto& [bin, count] : link.per_bin) {
            binned += count;
            EXPECT_LT(bin, kTimeBins);
        }
        EXPECT_EQ(binned, n) << key.first << " -> " << key.second;
    }
    EXPECT_EQ(whole_summary.bins.count, kTimeBins);
    EXPECT_EQ(whole_summary.bins.bin_of(last), kTimeBins - 1);
    for (const auto& i : whole_summary.intervals) {
        std::uint64_t binned = 0;
        for (const auto& [bin, stats] : i.over_time) {
            binned += stats.count;
            EXPECT_GE(stats.min, i.latency.min) << i.name;
            EXPECT_LE(stats.max, i.latency.max) << i.name;
        }
        EXPECT_EQ(binned, i.latency.count) << i.name;
        EXPECT_GT(i.over_time.size(), kTimeBins / 2) << i.name;  // the intervals run all along the run
    }
    std::uint64_t samples = 0, unlinked = 0;
    for (const auto& [key, c] : whole_summary.instances) {
        samples += c.samples;
        unlinked += c.unlinked_inputs;
    }
    EXPECT_EQ(samples, whole_summary.samples);
    EXPECT_EQ(unlinked, whole_summary.unlinked_inputs);
    EXPECT_EQ(whole_summary.instances.size(), s.instances.size());
}

// The link digest's definition (summary.hpp), spelt out: a sample's end is
// the FNV-1a hash of "node\0instance\0tracepoint" xor its time; a link adds
// splitmix64(3 x splitmix64(producer's end) + consumer's end).
std::uint64_t splitmix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t end_hash(const graph::SampleSet& s, graph::SampleIndex v) {
    const graph::Tracepoint& t = s.tracepoints[s.tracepoint[v]];
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : t.node_name + '\0' + t.instance + '\0' + t.tracepoint_name) h = (h ^ c) * 0x100000001b3ull;
    return h ^ static_cast<std::uint64_t>(s.time_ns[v]);
}

// Each pair's summary as the kernel makes it (its links gathered a batch at
// a time, their rate bins counted when a bin ends) against its links added
// one by one, in edge order, each counted in the bin of its producer's time:
// value for value, bin for bin, in the whole run and in every shard of
// seven; and the shard's link digest as its definition gives it.
TEST_F(ShardedKernel, EachLinkSummaryIsItsLinksAddedOneByOne) {
    const auto& s = whole.samples;
    const auto label = [&](graph::SampleIndex v) { return s.tracepoints[s.tracepoint[v]].node_name + "/" + s.tracepoints[s.tracepoint[v]].tracepoint_name; };
    std::vector<std::int64_t> bounds{first};
    for (const std::int64_t cut : cuts(7)) bounds.push_back(cut);
    bounds.push_back(last + 1);
    ASSERT_GT(whole.graph.edges.size(), 4 * 1024u) << "several batches of links";
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
        const ShardWindow w{bounds[k], bounds[k + 1], first, last, kMarginNs};
        const ShardSummary shard = summarize(s, whole.graph, spec, w);
        std::map<std::pair<std::string, std::string>, LinkSummary> expected;
        std::uint64_t digest = 0;
        for (const graph::Edge& e : whole.graph.edges) {
            if (s.time_ns[e.from] < w.own_from_ns || s.time_ns[e.from] >= w.own_to_ns) continue;
            digest += splitmix(splitmix(end_hash(s, e.from)) * 3 + end_hash(s, e.to));
            LinkSummary& link = expected[{label(e.from), label(e.to)}];
            link.latency.add(graph::elapsed_ns(s.time_ns[e.from], s.time_ns[e.to]));
            ++link.per_bin[shard.bins.bin_of(s.time_ns[e.from])];
        }
        EXPECT_EQ(shard.link_digest, digest) << "shard " << k;
        ASSERT_EQ(shard.links.size(), expected.size()) << "shard " << k;
        for (const auto& [key, link] : expected) {
            const std::string what = key.first + " -> " + key.second + " in shard " + std::to_string(k);
            ASSERT_TRUE(shard.links.contains(key)) << what;
            expect_same_values(shard.links.at(key).latency, link.latency, what);
            EXPECT_EQ(shard.links.at(key).per_bin, link.per_bin) << what;
        }
    }
}

TEST_F(ShardedKernel, OneTwoAndSevenShardsGiveTheWholeRunExactly) {
    for (int count : {1, 2, 7}) {
        SCOPED_TRACE(count);
        const ShardSummary merged = sharded(logs, spec, first, last, cuts(count));
        EXPECT_EQ(merged.shards, std::uint64_t(count));
        expect_same(merged, whole_summary);
        EXPECT_TRUE(merged.margin.held());
        EXPECT_EQ(merged.margin.inputs_beyond_margin(), 0u);
    }
}

TEST_F(ShardedKernel, MergingInATreeEqualsAChain) {
    const auto bounds = cuts(4);
    std::vector<ShardSummary> parts;
    std::vector<std::int64_t> all{first};
    all.insert(all.end(), bounds.begin(), bounds.end());
    all.push_back(last + 1);
    for (std::size_t k = 0; k + 1 < all.size(); ++k) {
        const ShardWindow w{all[k], all[k + 1], first, last, kMarginNs};
        const Linked l = load_and_link(logs, spec, w.read_from_ns(), w.read_to_ns(0));
        parts.push_back(summarize(l.samples, l.graph, spec, w));
    }
    ShardSummary left = parts[0], right = parts[2];
    left.append(parts[1]);
    right.append(parts[3]);
    left.append(right);
    expect_same(left, whole_summary);
}

TEST_F(ShardedKernel, TheWholeRunSummaryIsTheInMemoryAnalysis) {
    metrics::MetricOptions options;
    options.keep_values = true;
    const metrics::AnalysisResult memory = metrics::analyze(whole.samples, whole.graph, spec, options);
    const metrics::AnalysisResult merged = to_result(sharded(logs, spec, first, last, cuts(7)), RunIndex{});
    EXPECT_EQ(merged.samples, memory.samples);
    EXPECT_EQ(merged.edges, memory.edges);
    EXPECT_EQ(merged.message_edges, memory.message_edges);
    EXPECT_EQ(merged.unlinked_inputs, memory.unlinked_inputs);
    EXPECT_EQ(merged.unconsumed_outputs, memory.unconsumed_outputs);
    EXPECT_EQ(merged.window_s, memory.window_s);
    // M3, M8 and M12 come from the same exact integers by the same formulas.
    EXPECT_EQ(merged.m3.mean, memory.m3.mean);
    EXPECT_EQ(merged.m3.sd, memory.m3.sd);
    EXPECT_EQ(merged.m3.max, memory.m3.max);
    EXPECT_EQ(merged.m8, memory.m8);
    EXPECT_EQ(merged.m12, memory.m12);
    const double error = whole_summary.m11.histogram.relative_error();
    auto expect_close = [&](const metrics::Summary& got, const metrics::Summary& exact, std::span<const double> values, const std::string& what) {
        EXPECT_EQ(got.count, exact.count) << what;
        EXPECT_EQ(got.min, exact.min) << what;
        EXPECT_EQ(got.max, exact.max) << what;
        double sum = 0;  // the exact sum of the whole nanoseconds, against the shards' integers
        for (double v : values) sum += double(std::llround(v * 1e6));
        EXPECT_NEAR(got.mean, sum / double(values.size()) / 1e6, 1e-12) << what;
        EXPECT_NEAR(got.mean, exact.mean, 1e-9 * std::abs(exact.mean)) << what;
        EXPECT_NEAR(got.sd, exact.sd, 1e-9 * exact.sd + 1e-12) << what;
        EXPECT_NEAR(got.jitter, exact.jitter, 1e-9 * exact.jitter + 1e-12) << what;
        EXPECT_LE(std::abs(got.p50 - exact.p50), error * std::abs(exact.p50)) << what;
        EXPECT_LE(std::abs(got.p95 - exact.p95), error * std::abs(exact.p95)) << what;
        EXPECT_LE(std::abs(got.p99 - exact.p99), error * std::abs(exact.p99)) << what;
    };
    expect_close(merged.m11_ms, memory.m11_ms, memory.m11_values_ms, "M11");
    ASSERT_EQ(merged.intervals.size(), memory.intervals.size());
    for (std::size_t i = 0; i < merged.intervals.size(); ++i)
        expect_close(merged.intervals[i].latency_ms, memory.intervals[i].latency_ms, memory.intervals[i].values_ms, memory.intervals[i].name);
    ASSERT_EQ(merged.node_latency.size(), memory.node_latency.size());
    for (std::size_t i = 0; i < merged.node_latency.size(); ++i) {
        EXPECT_EQ(merged.node_latency[i].from, memory.node_latency[i].from);
        EXPECT_EQ(merged.node_latency[i].to, memory.node_latency[i].to);
        EXPECT_EQ(merged.node_latency[i].count, memory.node_latency[i].count);
        EXPECT_EQ(merged.node_latency[i].max_ms, memory.node_latency[i].max_ms);
        EXPECT_NEAR(merged.node_latency[i].mean_ms, memory.node_latency[i].mean_ms, 1e-9 * memory.node_latency[i].mean_ms);
    }
}

std::uint64_t whole_unlinked(const Linked& l) {
    std::uint64_t n = 0;
    for (graph::SampleIndex v = 0; v < l.samples.size(); ++v) n += l.samples.input[v] != graph::kNoHash && l.graph.in_degree(v) == 0;
    return n;
}

TEST(ShardedKernelMargin, ALinkLongerThanTheMarginIsReportedWithItsTracepoint) {
    const Logs logs = testing::system_logs({.long_links = 2, .long_link_s = 0.3});
    const auto spec = graph::parse_spec(testing::kSystemSpec, "system.toml");
    const Linked whole = load_and_link(logs, spec);
    const std::int64_t first = whole.samples.time_ns.front(), last = whole.samples.time_ns.back();
    // A cut 0.25 s after the first long message was sent: its producer lies
    // before the next shard's margin, its consumer 0.05 s into that shard.
    std::int64_t sent = 0;
    for (graph::SampleIndex v = 0; v < whole.samples.size(); ++v)
        for (const graph::Edge& e : whole.graph.out(v))
            if (!sent && whole.samples.label(e.to) == "Router/Forward" && whole.samples.time_ns[e.to] - whole.samples.time_ns[v] > 200'000'000)
                sent = whole.samples.time_ns[v];
    ASSERT_NE(sent, 0);
    const ShardSummary merged = sharded(logs, spec, first, last, {sent + 250'000'000});
    EXPECT_FALSE(merged.margin.held());
    EXPECT_GE(merged.margin.longest_link_ns, 300'000'000);
    // The cut's unlinked input is counted (and nothing whose producer is in reach: the whole run has 0 of them unlinked).
    EXPECT_GE(merged.margin.inputs_beyond_margin(), 1u);
    EXPECT_EQ(merged.margin.beyond_by_tracepoint().count("Router/Forward"), 1u);
    EXPECT_EQ(merged.unlinked_inputs - whole_unlinked(whole), merged.margin.beyond_by_tracepoint().at("Router/Forward"));
    const auto warnings = margin_warnings(merged);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("Router/Forward"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("would have covered them"), std::string::npos) << warnings[0];
    // With a margin that covers it, the same cut is exact again.
    const ShardSummary wide = sharded(logs, spec, first, last, {sent + 250'000'000}, 400'000'000);
    const ShardSummary reference = summarize(whole.samples, whole.graph, spec, {first, last + 1, first, last, 400'000'000});
    EXPECT_TRUE(wide.margin.held());
    expect_same(wide, reference);
}

// More tracepoints than the kernel's table of pairs indexes (1024: then
// the pairs are found in a hash map): every pair's links counted, with
// their latency, in shards as in the whole run.
TEST(ShardedKernelPairs, ARunOfManyTracepointsCountsEveryPair) {
    using graph::testing::CsvLog;
    constexpr int kTracepoints = 1100, kRounds = 3;
    CsvLog many, sink;
    for (int round = 0; round < kRounds; ++round)
        for (int t = 0; t < kTracepoints; ++t) {
            const int k = round * kTracepoints + t;
            const double sent = 1000.0 + 0.001 * k;
            many.row("Many", "1", "T" + std::to_string(t), sent, "", "h" + std::to_string(k));
            sink.row("Sink", "2", "Take", sent + 0.0005 + 0.000001 * t, "h" + std::to_string(k), "");
        }
    const Logs logs{{"many.csv", many.text()}, {"sink.csv", sink.text()}};
    const auto spec = graph::parse_spec("[[pair]]\nfrom = \"Many/*\"\nto = \"Sink/Take\"\n", "many.toml");
    const Linked whole = load_and_link(logs, spec);
    const std::int64_t first = whole.samples.time_ns.front(), last = whole.samples.time_ns.back();
    const ShardSummary all = summarize(whole.samples, whole.graph, spec, {first, last + 1, first, last, kMarginNs});
    ASSERT_EQ(all.links.size(), std::size_t{kTracepoints});
    for (int t = 0; t < kTracepoints; ++t) {
        const std::string what = "Many/T" + std::to_string(t);
        const LinkSummary& link = all.links.at({what, "Sink/Take"});
        const std::int64_t latency = 500'000 + 1'000 * t;
        EXPECT_EQ(link.latency.count, std::uint64_t{kRounds}) << what;
        EXPECT_EQ(link.latency.min, latency) << what;
        EXPECT_EQ(link.latency.max, latency) << what;
        EXPECT_TRUE(link.latency.sum == kRounds * latency) << what;
    }
    expect_same(sharded(logs, spec, first, last, {first + 1'234'567'891, first + 2'345'678'901}), all);
}

TEST(ShardSummaryJson, RoundTripsAndRefusesWhatItCannotRead) {
    const Logs logs = testing::system_logs({.ticks = 500});
    const auto spec = graph::parse_spec(testing::kSystemSpec, "system.toml");
    const Linked whole = load_and_link(logs, spec);
    const std::int64_t first = whole.samples.time_ns.front(), last = whole.samples.time_ns.back();
    const ShardSummary s = summarize(whole.samples, whole.graph, spec, {first, last + 1, first, last, kMarginNs});
    const ShardSummary back = from_json(to_json(s));
    expect_same(back, s);
    EXPECT_EQ(to_json(back), to_json(s));
    EXPECT_THROW(from_json("{}"), std::invalid_argument);
    EXPECT_THROW(from_json("not json"), std::invalid_argument);
    std::string other_version = to_json(s);
    other_version.replace(other_version.find("\"hashtrace_shard_summary\":3"), 27, "\"hashtrace_shard_summary\":9");
    try {
        from_json(other_version);
        FAIL() << "a summary of another format was read";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("another version"), std::string::npos) << e.what();
    }
    // Histograms travel as runs of counts: one that runs past the last bucket is refused.
    std::string bad_run = to_json(s);
    const std::size_t run = bad_run.find("\"runs\":[[");
    ASSERT_NE(run, std::string::npos);
    bad_run.insert(run + 9, "9223372036854775807,[1,1]],[");
    EXPECT_THROW(from_json(bad_run), std::invalid_argument);
}

TEST(ShardSummaryAppend, RefusesShardsOfAnotherSpec) {
    ShardSummary a, b;
    a.intervals.push_back({"x", "A/a", "B/b", graph::IntervalKind::process, Distribution(), {}});
    EXPECT_THROW(a.append(b), std::invalid_argument);
}

TEST(ShardSummaryAppend, RefusesShardsBinnedOverAnotherRun) {
    ShardSummary a, b;
    a.bins = TimeBins::over(0, 1'000'000'000, kTimeBins);
    b.bins = TimeBins::over(0, 2'000'000'000, kTimeBins);
    EXPECT_THROW(a.append(b), std::invalid_argument);
}

// The kernel adds a shard's values in one pass: exactly what adding them
// one by one gives, from empty and after earlier values, with negative ones
// and magnitudes whose squares and differences need more than 64 bits.
TEST(DistributionAddAll, EqualsAddingEachValueInTurn) {
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::int64_t> small(-2'000'000, 900'000'000);
    std::vector<std::int64_t> values(5000);
    for (auto& v : values) v = small(random);
    values[17] = std::numeric_limits<std::int64_t>::max();
    values[18] = std::numeric_limits<std::int64_t>::min() + 1;
    for (const std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{2500}}) {
        Distribution one_by_one, batched;
        for (const std::int64_t v : values) one_by_one.add(v);
        for (std::size_t k = 0; k < split; ++k) batched.add(values[k]);
        batched.add_all(std::span(values).subspan(split));
        batched.add_all({});
        expect_same_distribution(one_by_one, batched, "split at " + std::to_string(split));
        BinStats each, all;
        for (const std::int64_t v : values) each.add(v);
        all.add_all(std::span(values).first(split));
        all.add_all(std::span(values).subspan(split));
        expect_same_bins({{0, each}}, {{0, all}}, "bins split at " + std::to_string(split));
        EXPECT_EQ(each.histogram, all.histogram);
    }
}

// Latencies below 2^31 ns sum in 64 bits, in runs that cannot overflow:
// the same sums as one by one, for values near that bound (runs of a few
// values), far below it, and with one large value among them.
TEST(DistributionAddAll, SumsIn64BitsEqualAddingEachValue) {
    std::mt19937_64 random(9);
    for (const std::int64_t top : {std::int64_t{1} << 30, std::int64_t{20'000'000}, std::int64_t{3'000}}) {
        std::uniform_int_distribution<std::int64_t> value(-top / 2, top - 1);
        std::vector<std::int64_t> values(20000);
        for (auto& v : values) v = value(random);
        for (const bool with_large : {false, true}) {
            if (with_large) values[12345] = std::int64_t{1} << 40;
            Distribution one_by_one, batched;
            for (const std::int64_t v : values) one_by_one.add(v);
            batched.add_all(std::span(values).first(7));
            batched.add_all(std::span(values).subspan(7));
            expect_same_distribution(one_by_one, batched, "values below " + std::to_string(top) + (with_large ? ", one large" : ""));
        }
    }
}

TEST(TimeBins, CoverTheRunWithTheLastSampleInTheLastBin) {
    const TimeBins bins = TimeBins::over(100, 100 + 119, kTimeBins);
    EXPECT_EQ(bins.width_ns, 1);
    EXPECT_EQ(bins.bin_of(100), 0u);
    EXPECT_EQ(bins.bin_of(219), 119u);
    EXPECT_EQ(bins.bin_of(50), 0u);     // before the run: clamped
    EXPECT_EQ(bins.bin_of(10000), 119u);
    const TimeBins wide = TimeBins::over(0, 1'000'000'000, 3);
    EXPECT_EQ(wide.bin_of(333'333'334), 1u);
    EXPECT_EQ(wide.bin_of(1'000'000'000), 2u);
    EXPECT_EQ(TimeBins::over(5, 4, 3).count, 0u);  // no run
}

}  // namespace
}  // namespace hashtrace::shard
