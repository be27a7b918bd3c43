// docs/spec.md section 4, rule by rule, on hand-made logs. Each test states the
// expected edges worked out by hand from the rows above it.
#include "hashtrace/graph/link.hpp"
#include "test_logs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace hashtrace::graph {
namespace {

using testing::CsvLog;
using testing::find;
using testing::load;

// Edges as "Node/Tp@ms -> Node/Tp@ms" (ms after t = 100 s), for readable expectations.
std::set<std::string> edge_names(const SampleSet& s, const Graph& g) {
    auto name = [&](SampleIndex i) {
        return s.label(i) + "@" + std::to_string(static_cast<long long>((s.time_ns[i] - 100'000'000'000LL) / 1'000'000));
    };
    std::set<std::string> out;
    for (const Edge& e : g.edges) out.insert(name(e.from) + " -> " + name(e.to));
    return out;
}

AnalysisSpec spec_of(const std::string& toml) { return parse_spec(toml, "test.toml"); }

TEST(Link, HashEqualityLinksProducerToConsumerAcrossNodes) {
    CsvLog chai, unity;
    chai.row("Chai", "1", "Send", 100.000, "", "m1");
    chai.row("Chai", "1", "Send", 100.001, "", "m2");
    unity.row("Unity", "2", "Receive", 100.002, "m1", "");
    unity.row("Unity", "2", "Receive", 100.003, "m2", "");
    const auto s = load({{"chai.csv", chai.text()}, {"unity.csv", unity.text()}});
    const auto g = link(s, {});
    EXPECT_EQ(edge_names(s, g), (std::set<std::string>{"Chai/Send@0 -> Unity/Receive@2", "Chai/Send@1 -> Unity/Receive@3"}));
    EXPECT_EQ(g.unlinked_inputs, 0u);
    EXPECT_EQ(g.unconsumed_outputs, 0u);
}

// Inputs whose hashes no sample produces: nothing links, every input is
// counted. (The path of a fuzz_analyze_csv finding: with no producer at all
// the join's producer records were empty and the per-hash sort stepped off a
// null pointer, which clang's UBSan reports and GCC's does not; the input is
// kept as corpus/analyze_csv/link-no-producers-null.csv.)
TEST(Link, ConsumersWithoutAnyProducer) {
    CsvLog display;
    display.row("Display", "camera0", "QrFrame", 100.000, "f1", "");
    display.row("Display", "camera0", "QrFrame", 100.001, "f2", "");
    display.row("Display", "camera0", "QrFrame", 100.002, "f1", "");
    const auto s = load({{"display.csv", display.text()}});
    for (const bool keep_all : {false, true}) {
        LinkOptions options;
        options.keep_all = keep_all;
        const auto g = link(s, {}, options);
        EXPECT_TRUE(g.edges.empty());
        EXPECT_EQ(g.unlinked_inputs, 3u);
        EXPECT_EQ(g.unconsumed_outputs, 0u);
    }
}

// A loop counter wrapping every 4 iterations: producer P emits counter k % 4
// at 100 + k ms; consumer C reads it 0.5 ms later. Rule 5: C must link to the
// latest P with that hash (k), not to the one 4 iterations earlier (k - 4).
TEST(Link, WrappingCounterLinksToLatestProducerOnly) {
    CsvLog log;
    for (int k = 0; k < 8; ++k) {
        log.row("Sim", "1", "P", 100.000 + k * 0.001, "", "c" + std::to_string(k % 4));
        log.row("Sim", "1", "C", 100.0005 + k * 0.001, "c" + std::to_string(k % 4), "");
    }
    const auto s = load({{"sim.csv", log.text()}});
    const auto g = link(s, {});
    ASSERT_EQ(g.edges.size(), 8u);
    for (const Edge& e : g.edges) EXPECT_EQ(s.time_ns[e.to] - s.time_ns[e.from], 500'000) << s.label(e.from) << " -> " << s.label(e.to);

    // Keep-all mode: iterations 4..7 also see the producer 4 iterations back.
    LinkOptions keep_all;
    keep_all.keep_all = true;
    const auto all = link(s, {}, keep_all);
    EXPECT_EQ(all.edges.size(), 12u);
    EXPECT_EQ(all.in_degree(static_cast<SampleIndex>(find(s, "Sim", "C", 100.0075))), 2u);
    EXPECT_EQ(all.in_degree(static_cast<SampleIndex>(find(s, "Sim", "C", 100.0005))), 1u);
}

TEST(Link, HappenedBeforeWithTolerance) {
    CsvLog a, b;
    a.row("A", "1", "Send", 100.010, "", "m1");        // stamped 2 ms after the receipt (clock error)
    b.row("B", "2", "Receive", 100.008, "m1", "");
    const auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    EXPECT_TRUE(link(s, {}).edges.empty());
    EXPECT_EQ(link(s, {}).unlinked_inputs, 1u);
    EXPECT_EQ(link(s, {}).unconsumed_outputs, 1u);
    LinkOptions tolerant;
    tolerant.tolerance_ns = 1'999'999;
    EXPECT_TRUE(link(s, {}, tolerant).edges.empty()) << "1.999999 ms does not cover a 2 ms gap";
    tolerant.tolerance_ns = 2'000'000;
    EXPECT_EQ(link(s, {}, tolerant).edges.size(), 1u);
    tolerant.tolerance_ns = -1;
    EXPECT_THROW(link(s, {}, tolerant), std::invalid_argument) << "a negative tolerance has no meaning in docs/spec.md section 4";
}

// The largest tolerance admits every producer, however late: the consumer's
// limit saturates instead of overflowing, on both ways of joining a hash (a
// few producers walked back, or many in runs by source).
TEST(Link, LargestToleranceSaturates) {
    for (const int producers : {1, 20}) {
        CsvLog a, b;
        for (int k = 0; k < producers; ++k) a.row("A", "1", "Send", 100.010 + 0.001 * k, "", "m1");
        b.row("B", "2", "Receive", 100.008, "m1", "");
        const auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
        LinkOptions tolerant;
        tolerant.tolerance_ns = std::numeric_limits<std::int64_t>::max();
        const Graph g = link(s, {}, tolerant);
        ASSERT_EQ(g.edges.size(), 1u) << producers << " producers";
        EXPECT_EQ(g.edges[0].to, 0u) << "the receipt is the earliest sample";
        EXPECT_EQ(g.edges[0].from, static_cast<SampleIndex>(producers)) << "the latest send";
        EXPECT_EQ(g.unconsumed_outputs, static_cast<std::uint64_t>(producers - 1));
    }
}

TEST(Link, EqualTimesLink) {
    CsvLog a;
    a.row("A", "1", "Send", 100.000, "", "m1");
    a.row("A", "1", "Recv", 100.000, "m1", "");
    const auto s = load({{"a.csv", a.text()}});
    EXPECT_EQ(link(s, {}).edges.size(), 1u);
}

// A pass-through tracepoint (input = output = message id) must not link to
// itself (rule 4); with every pair allowed, it links to the earlier
// pass-through of the same id, which is why real specs name their pairs.
TEST(Link, SampleNeverLinksToItself) {
    CsvLog a;
    a.row("A", "1", "Forward", 100.000, "m1", "m1");
    a.row("A", "1", "Forward", 100.001, "m1", "m1");
    const auto s = load({{"a.csv", a.text()}});
    const auto g = link(s, {});
    EXPECT_EQ(edge_names(s, g), (std::set<std::string>{"A/Forward@0 -> A/Forward@1"}));
    EXPECT_EQ(g.unlinked_inputs, 1u);
    const auto constrained = link(s, spec_of("[[pair]]\nfrom = \"A/Send\"\nto = \"A/Forward\"\n"));
    EXPECT_TRUE(constrained.edges.empty());
}

// The router fans one message out to two receivers; a third tracepoint that
// also sees the id is not an allowed downstream of the router and stays unlinked.
TEST(Link, RouterFanOutWithDisallowedPair) {
    CsvLog chai, router, unity, bullet;
    chai.row("Chai", "1", "Send", 100.000, "", "m1");
    router.row("Router", "9", "Forward", 100.001, "m1", "m1");
    unity.row("Unity", "2", "Receive", 100.003, "m1", "");
    bullet.row("Bullet", "3", "Receive", 100.004, "m1", "");
    bullet.row("Bullet", "3", "Audit", 100.005, "m1", "");
    const auto spec = spec_of(R"(
[[pair]]
from = "Chai/Send"
to = "Router/Forward"
[[pair]]
from = "Router/Forward"
to = "*/Receive"
)");
    const auto s = load({{"chai.csv", chai.text()}, {"router.csv", router.text()}, {"unity.csv", unity.text()}, {"bullet.csv", bullet.text()}});
    const auto g = link(s, spec);
    EXPECT_EQ(edge_names(s, g), (std::set<std::string>{"Chai/Send@0 -> Router/Forward@1", "Router/Forward@1 -> Unity/Receive@3",
                                                      "Router/Forward@1 -> Bullet/Receive@4"}));
    const auto forward = static_cast<SampleIndex>(find(s, "Router", "Forward", 100.001));
    EXPECT_EQ(g.out(forward).size(), 2u);
    EXPECT_EQ(g.unlinked_inputs, 1u) << "Bullet/Audit";
    EXPECT_EQ(g.unconsumed_outputs, 0u);
}

// Fan-in: the physics step consumes a force from the haptics node and a
// transform from the graphics node (different sources, same state hash).
TEST(Link, FanInFromTwoSources) {
    CsvLog chai, unity, bullet;
    chai.row("Chai", "1", "Force", 100.000, "", "s1");
    unity.row("Unity", "2", "Transform", 100.001, "", "s1");
    bullet.row("Bullet", "3", "Step", 100.002, "s1", "");
    const auto s = load({{"chai.csv", chai.text()}, {"unity.csv", unity.text()}, {"bullet.csv", bullet.text()}});
    const auto g = link(s, {});
    const auto step = static_cast<SampleIndex>(find(s, "Bullet", "Step", 100.002));
    EXPECT_EQ(g.in_degree(step), 2u);
}

// Two instances of one program both emit id m1; rule 5 picks the latest per
// source, and a source is (node, instance, tracepoint): so scope "any" links
// the consumer to both instances, scope "instance" only to its own.
TEST(Link, InstanceScope) {
    CsvLog a1, a2;
    a1.row("A", "1", "Send", 100.000, "", "m1");
    a1.row("A", "1", "Recv", 100.005, "m1", "");
    a2.row("A", "2", "Send", 100.003, "", "m1");
    const auto s = load({{"a1.csv", a1.text()}, {"a2.csv", a2.text()}});
    EXPECT_EQ(link(s, spec_of("[[pair]]\nfrom = \"A/Send\"\nto = \"A/Recv\"\n")).edges.size(), 2u);
    const auto g = link(s, spec_of("[[pair]]\nfrom = \"A/Send\"\nto = \"A/Recv\"\nscope = \"instance\"\n"));
    EXPECT_EQ(edge_names(s, g), (std::set<std::string>{"A/Send@0 -> A/Recv@5"}));
    EXPECT_EQ(g.unconsumed_outputs, 1u);
}

// Thread scope: the latest producer of the source is on another thread, so
// the consumer links to the latest one on its own thread instead.
TEST(Link, ThreadScopeSkipsOtherThreads) {
    CsvLog a;
    a.row("A", "1", "Send", 100.000, "", "m1", 1);
    a.row("A", "1", "Send", 100.002, "", "m1", 2);
    a.row("A", "1", "Recv", 100.004, "m1", "", 1);
    const auto s = load({{"a.csv", a.text()}});
    EXPECT_EQ(edge_names(s, link(s, spec_of("[[pair]]\nfrom = \"A/Send\"\nto = \"A/Recv\"\n"))),
              (std::set<std::string>{"A/Send@2 -> A/Recv@4"}));
    EXPECT_EQ(edge_names(s, link(s, spec_of("[[pair]]\nfrom = \"A/Send\"\nto = \"A/Recv\"\nscope = \"thread\"\n"))),
              (std::set<std::string>{"A/Send@0 -> A/Recv@4"}));
}

// Several rules allowing one pair: the most permissive scope wins (rules grant, never forbid).
TEST(Link, OverlappingRulesCombineToMostPermissive) {
    CsvLog a1, a2;
    a2.row("A", "2", "Send", 100.000, "", "m1");
    a1.row("A", "1", "Recv", 100.001, "m1", "");
    const auto s = load({{"a1.csv", a1.text()}, {"a2.csv", a2.text()}});
    const auto g = link(s, spec_of(R"(
[[pair]]
from = "A/Send"
to = "A/Recv"
scope = "instance"
[[pair]]
from = "*/Se*"
to = "A/*"
)"));
    EXPECT_EQ(g.edges.size(), 1u);
}

TEST(Link, DifferentHashFunctionsNeverLink) {
    CsvLog a(true, true);
    a.row("A", "1", "Send", 100.000, "", "m1", 0, "xxh3_128");
    a.row("A", "1", "Recv", 100.001, "m1", "", 0, "md5");
    const auto s = load({{"a.csv", a.text()}});
    EXPECT_TRUE(link(s, {}).edges.empty());
}

// Logs without a thread column: local means same instance (docs/spec.md section 5).
TEST(Link, LocalAndMessageEdges) {
    CsvLog a, b(false);
    a.row("A", "1", "Send", 100.000, "", "m1", 1);
    a.row("A", "1", "Queue", 100.001, "m1", "m1", 1);
    a.row("A", "1", "Net", 100.002, "m1", "m1", 2);
    b.row("B", "2", "Recv", 100.003, "m1", "m1");
    b.row("B", "2", "Apply", 100.004, "m1", "");
    const auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    const auto g = link(s, spec_of(R"(
[[pair]]
from = "A/Send"
to = "A/Queue"
[[pair]]
from = "A/Queue"
to = "A/Net"
[[pair]]
from = "A/Net"
to = "B/Recv"
[[pair]]
from = "B/Recv"
to = "B/Apply"
)"));
    ASSERT_EQ(g.edges.size(), 4u);
    std::vector<bool> local;
    for (const Edge& e : g.edges) local.push_back(is_local(s, e));
    EXPECT_EQ(local, (std::vector<bool>{true, false, false, true}));  // edges sorted by producer = time order
}

// Clock correction (the hook): shifting file b 5 ms earlier puts its
// producer before the consumer, and samples stay in time order.
TEST(Link, CorrectTimesBeforeLinking) {
    CsvLog a, b;
    a.row("A", "1", "Recv", 100.003, "m1", "");
    b.row("B", "2", "Send", 100.006, "", "m1");
    auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    EXPECT_TRUE(link(s, {}).edges.empty());
    correct_times(s, [](std::size_t file, std::int64_t t) { return file == 1 ? t - 5'000'000 : t; });
    EXPECT_TRUE(std::is_sorted(s.time_ns.begin(), s.time_ns.end()));
    EXPECT_EQ(s.label(0), "B/Send");
    EXPECT_EQ(s.file_of(0), 1u);
    EXPECT_EQ(link(s, {}).edges.size(), 1u);
}

TEST(Link, CsrDirectionsAgree) {
    CsvLog a;
    for (int k = 0; k < 50; ++k) {
        a.row("A", "1", "P", 100 + k * 0.001, "", "x" + std::to_string(k % 3), k % 2);
        a.row("A", "1", "Q", 100.0004 + k * 0.001, "x" + std::to_string(k % 3), "", k % 2);
    }
    const auto s = load({{"a.csv", a.text()}});
    LinkOptions keep_all;
    keep_all.keep_all = true;
    const auto g = link(s, {}, keep_all);
    keep_all.threads = 1;
    const auto single = link(s, {}, keep_all);
    ASSERT_EQ(single.edges.size(), g.edges.size());
    for (std::size_t i = 0; i < g.edges.size(); ++i) EXPECT_EQ(std::pair(g.edges[i].from, g.edges[i].to), std::pair(single.edges[i].from, single.edges[i].to));
    std::size_t in_total = 0;
    for (SampleIndex v = 0; v < s.size(); ++v) {
        g.for_each_in(v, [&](const Edge& e) {
            EXPECT_EQ(e.to, v);
            ++in_total;
        });
        for (const Edge& e : g.out(v)) EXPECT_EQ(e.from, v);
    }
    EXPECT_EQ(in_total, g.edges.size());
    EXPECT_TRUE(std::is_sorted(g.edges.begin(), g.edges.end(), [](const Edge& x, const Edge& y) {
        return std::pair(x.from, x.to) < std::pair(y.from, y.to);
    }));
}

// Large enough (> 100k samples) that the consumer loop is split over threads:
// the result must not depend on the split.
TEST(Link, ParallelLinkingEqualsSerial) {
    CsvLog a, b;
    for (int k = 0; k < 60000; ++k) {
        a.row("A", "1", "Send", 100 + k * 1e-5, "", "c" + std::to_string(k % 1000), k % 3);
        b.row("B", "2", "Recv", 100.000005 + k * 1e-5, "c" + std::to_string(k % 1000), "", 0);
    }
    const auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    LinkOptions serial, parallel;
    serial.threads = 1;
    parallel.threads = 2;
    const auto g1 = link(s, {}, serial), g2 = link(s, {}, parallel);
    EXPECT_EQ(g1.edges.size(), 60000u);
    ASSERT_EQ(g1.edges.size(), g2.edges.size());
    for (std::size_t i = 0; i < g1.edges.size(); ++i) ASSERT_EQ(std::pair(g1.edges[i].from, g1.edges[i].to), std::pair(g2.edges[i].from, g2.edges[i].to));
    EXPECT_EQ(g1.unlinked_inputs, g2.unlinked_inputs);
}

// analyze links in two steps and frees the hash ids in between: place()
// must give link()'s graph from the join's lists alone, on one thread or two.
TEST(Link, PlacingAfterTheHashIdsAreDroppedGivesLinksGraph) {
    CsvLog a, b;
    for (int k = 0; k < 60000; ++k) {
        a.row("A", "1", "Send", 100 + k * 1e-5, "", "c" + std::to_string(k % 1000), k % 3);
        b.row("B", "2", "Recv", 100.000005 + k * 1e-5, "c" + std::to_string(k % 1000), "m" + std::to_string(k), 0);
        b.row("B", "2", "Use", 100.000007 + k * 1e-5, "m" + std::to_string(k), "", 1);
    }
    b.row("B", "2", "Recv", 101, "never-sent", "");
    for (unsigned threads : {1u, 2u}) {
        auto s = load({{"a.csv", a.text()}, {"b.csv", b.text()}});
        LinkOptions options;
        options.threads = threads;
        const Graph whole = link(s, {}, options);
        JoinedEdges joined = join(s, {}, options);
        s.drop_hash_ids();
        const Graph placed = place(std::move(joined));
        EXPECT_EQ(whole.edges.size(), 120000u);
        ASSERT_EQ(placed.edges.size(), whole.edges.size());
        for (std::size_t i = 0; i < whole.edges.size(); ++i)
            ASSERT_EQ(std::pair(placed.edges[i].from, placed.edges[i].to), std::pair(whole.edges[i].from, whole.edges[i].to));
        EXPECT_TRUE(std::equal(placed.out_offset.begin(), placed.out_offset.end(), whole.out_offset.begin(), whole.out_offset.end()));
        EXPECT_TRUE(std::equal(placed.in_offset.begin(), placed.in_offset.end(), whole.in_offset.begin(), whole.in_offset.end()));
        EXPECT_TRUE(std::equal(placed.in_edges.begin(), placed.in_edges.end(), whole.in_edges.begin(), whole.in_edges.end()));
        EXPECT_EQ(placed.unlinked_inputs, 1u);
        EXPECT_EQ(placed.unconsumed_outputs, whole.unconsumed_outputs);
    }
}

// The partitioned join on a random run large enough to be split (>= 100k
// samples), against docs/spec.md section 4 checked directly for a sample of consumers: per
// source, the latest producer with the consumer's hash at or before its time
// (+ tolerance), itself excluded; keep-all: every such producer.
TEST(Link, PartitionedJoinMatchesTheRulesOnARandomRun) {
    std::mt19937_64 rng(7);
    std::vector<CsvLog> logs(3);
    const char* tracepoints[] = {"P", "Q", "R"};
    for (int k = 0; k < 110000; ++k) {
        const int node = static_cast<int>(rng() % 3);
        const double t = 100 + static_cast<double>(rng() % 2000000) * 1e-6;  // equal times happen
        const std::string in = rng() % 4 ? "h" + std::to_string(rng() % 5000) : "";
        const std::string out = rng() % 4 ? "h" + std::to_string(rng() % 5000) : "";
        logs[node].row("N" + std::to_string(node), "1", tracepoints[rng() % 3], t, in, out, 0);
    }
    const auto s = load({{"n0.csv", logs[0].text()}, {"n1.csv", logs[1].text()}, {"n2.csv", logs[2].text()}});
    std::vector<std::vector<SampleIndex>> producers_of(s.hash_count);  // per hash id, in index order
    for (SampleIndex i = 0; i < s.size(); ++i)
        if (s.output[i] != kNoHash) producers_of[s.output[i]].push_back(i);
    for (const bool keep_all : {false, true})
        for (const std::int64_t tolerance : {std::int64_t{0}, std::int64_t{3000}}) {
            std::vector<Graph> graphs;
            for (unsigned threads : {1u, 2u, 3u}) {
                LinkOptions options;
                options.threads = threads;
                options.keep_all = keep_all;
                options.tolerance_ns = tolerance;
                graphs.push_back(link(s, {}, options));
            }
            for (const Graph& g : graphs) {
                ASSERT_EQ(g.edges.size(), graphs[0].edges.size());
                EXPECT_TRUE(std::equal(g.edges.begin(), g.edges.end(), graphs[0].edges.begin(),
                                       [](const Edge& a, const Edge& b) { return a.from == b.from && a.to == b.to; }));
                EXPECT_EQ(g.unlinked_inputs, graphs[0].unlinked_inputs);
            }
            const Graph& g = graphs[0];
            for (SampleIndex b = 0; b < s.size(); b += 37) {
                std::set<SampleIndex> want, got;
                if (s.input[b] != kNoHash) {
                    std::map<std::uint32_t, std::vector<SampleIndex>> by_source;  // candidates, index order = time order
                    for (SampleIndex a : producers_of[s.input[b]])
                        if (a != b && s.time_ns[a] <= s.time_ns[b] + tolerance) by_source[s.tracepoint_of(a).source_id].push_back(a);
                    for (const auto& [source, candidates] : by_source) {
                        if (keep_all) want.insert(candidates.begin(), candidates.end());
                        else want.insert(candidates.back());
                    }
                }
                g.for_each_in(b, [&](const Edge& e) { got.insert(e.from); });
                ASSERT_EQ(want, got) << "consumer " << b << (keep_all ? " keep-all" : "") << " tolerance " << tolerance;
            }
        }
}

}  // namespace
}  // namespace hashtrace::graph
