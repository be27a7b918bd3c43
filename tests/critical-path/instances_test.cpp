// The instance search (InstanceFinder) on a hand-made run whose answers are
// worked out here: for each `from` sample and each node instance holding a
// reachable `to` sample, the earliest such sample; starts that reach none
// counted; the same answers where an edge runs back in time (the fallback
// passes), for several intervals at once, and on several threads.
#include "../graph/test_logs.hpp"
#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/graph/link.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace hashtrace::critical_path {
namespace {

using graph::testing::CsvLog;
constexpr double ms = 1e-3;

// A/1 starts message k at 1 s + k ms (k = 0..10); B/2 passes it on 0.2 ms
// later; C/3 ends each 0.5 ms after its start, C/4 (a second instance of
// node C) only the even ones, 0.7 ms after. Message 3 ends twice on C/3
// (0.5 and 0.9 ms): the earlier counts. Message 10 goes nowhere. C/3's clock
// is `c3_skew` seconds off (behind: its ends stamped before B passes them on).
struct HandRun {
    graph::SampleSet samples;
    graph::Graph graph;
    explicit HandRun(double c3_skew = 0, std::int64_t tolerance_ns = 0) : samples(make(c3_skew)), graph(link(tolerance_ns)) {}

    static graph::SampleSet make(double c3_skew) {
        CsvLog a, b, c3, c4;
        for (int k = 0; k <= 10; ++k) {
            const double t = 1 + k * ms;
            const std::string s = "s" + std::to_string(k), m = "m" + std::to_string(k);
            a.row("A", "1", "Start", t, "", s);
            if (k == 10) continue;
            b.row("B", "2", "Mid", t + 0.2 * ms, s, m);
            c3.row("C", "3", "End", t + 0.5 * ms + c3_skew, m, "");
            if (k == 3) c3.row("C", "3", "End", t + 0.9 * ms + c3_skew, m, "");
            if (k % 2 == 0) c4.row("C", "4", "End", t + 0.7 * ms, m, "");
        }
        return graph::testing::load({{"a.csv", a.text()}, {"b.csv", b.text()}, {"c3.csv", c3.text()}, {"c4.csv", c4.text()}});
    }
    graph::Graph link(std::int64_t tolerance_ns) const {
        graph::LinkOptions o;
        o.tolerance_ns = tolerance_ns;
        return graph::link(samples, graph::parse_spec("", "run.toml"), o);
    }
    graph::SampleIndex at(const std::string& node, const std::string& tp, double seconds) const {
        const long v = graph::testing::find(samples, node, tp, seconds);
        EXPECT_GE(v, 0) << node << "/" << tp << " at " << seconds;
        return static_cast<graph::SampleIndex>(v);
    }
    // The worked answer: (start, end) per instance, by start then node instance.
    std::vector<std::tuple<graph::SampleIndex, graph::SampleIndex>> expected(double c3_skew) const {
        std::vector<std::tuple<graph::SampleIndex, graph::SampleIndex>> out;
        for (int k = 0; k < 10; ++k) {
            const double t = 1 + k * ms;
            out.emplace_back(at("A", "Start", t), at("C", "End", t + 0.5 * ms + c3_skew));
            if (k % 2 == 0) out.emplace_back(at("A", "Start", t), at("C", "End", t + 0.7 * ms));
        }
        return out;
    }
};

graph::IntervalSpec interval(const std::string& from, const std::string& to) {
    graph::IntervalSpec i;
    i.name = from + " to " + to;
    i.from = graph::Selector::parse(from);
    i.to = graph::Selector::parse(to);
    return i;
}

std::vector<std::tuple<graph::SampleIndex, graph::SampleIndex>> pairs(const IntervalInstances& found) {
    std::vector<std::tuple<graph::SampleIndex, graph::SampleIndex>> out;
    for (const auto& i : found.list) out.emplace_back(i.from, i.to);
    return out;
}

class Instances : public ::testing::TestWithParam<unsigned> {};

TEST_P(Instances, TheEarliestReachableEndPerNodeInstanceAndTheStartsThatReachNone) {
    const HandRun run;
    InstanceFinder finder(run.samples, run.graph, GetParam());
    const auto found = finder.find(interval("A/Start", "C/End"));
    EXPECT_EQ(pairs(found), run.expected(0));  // 15: 10 on C/3, 5 on C/4
    EXPECT_EQ(found.unreached_starts, 1u);     // message 10
    const auto mid = finder.find(interval("A/Start", "B/Mid"));
    EXPECT_EQ(mid.list.size(), 10u);
    EXPECT_EQ(mid.unreached_starts, 1u);
    const auto none = finder.find(interval("C/End", "A/Start"));  // against the flow: nothing
    EXPECT_TRUE(none.list.empty());
    EXPECT_EQ(none.unreached_starts, 16u);  // every end: C/3's 11 (message 3's two), C/4's 5
}

// C/3's clock 0.4 ms behind: its ends are stamped before B passes them on,
// the links (admitted with a tolerance) run back in time, and the search
// takes the passes instead; the answers are the same samples.
TEST_P(Instances, AnEdgeBackInTimeGivesTheSameInstances) {
    const double skew = -0.4 * ms;
    const HandRun run(skew, 1'000'000);
    std::size_t backward = 0;
    for (const auto& e : run.graph.edges) backward += run.samples.time_ns[e.from] > run.samples.time_ns[e.to];
    ASSERT_EQ(backward, 10u);  // B -> C/3's first end of each message
    InstanceFinder finder(run.samples, run.graph, GetParam());
    const auto found = finder.find(interval("A/Start", "C/End"));
    EXPECT_EQ(pairs(found), run.expected(skew));
    EXPECT_EQ(found.unreached_starts, 1u);
}

// Several intervals at once (those from the same tracepoints share a search
// per start) answer as each alone does.
TEST_P(Instances, SeveralIntervalsAtOnceAsEachAlone) {
    const HandRun run;
    InstanceFinder together(run.samples, run.graph, GetParam()), alone(run.samples, run.graph, GetParam());
    const std::vector<graph::IntervalSpec> intervals = {interval("A/Start", "C/End"), interval("A/Start", "B/Mid"),
                                                        interval("B/Mid", "C/End"), interval("A/*", "C/End")};
    std::vector<const graph::IntervalSpec*> all;
    for (const auto& i : intervals) all.push_back(&i);
    const auto found = together.find(all);
    ASSERT_EQ(found.size(), intervals.size());
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        const auto one = alone.find(intervals[i]);
        EXPECT_EQ(pairs(found[i]), pairs(one)) << intervals[i].name;
        EXPECT_EQ(found[i].unreached_starts, one.unreached_starts) << intervals[i].name;
    }
    EXPECT_EQ(pairs(found[3]), pairs(found[0]));  // A/* is A/Start here
}

// The instances of stretches of the run (their `from` sample in [begin,
// end)), one after another, are the run's: with the searches, and with the
// passes an edge back in time takes; stretches that cut a message's samples
// apart, of one sample, and empty or past the run's end.
TEST_P(Instances, StretchesOfTheRunAddUpToTheRun) {
    for (const double skew : {0.0, -0.4 * ms}) {
        const HandRun run(skew, 1'000'000);
        InstanceFinder whole(run.samples, run.graph, GetParam()), stretches(run.samples, run.graph, GetParam());
        const std::vector<graph::IntervalSpec> intervals = {interval("A/Start", "C/End"), interval("A/Start", "B/Mid"), interval("B/Mid", "C/End")};
        std::vector<const graph::IntervalSpec*> all;
        for (const auto& i : intervals) all.push_back(&i);
        const auto expected = whole.find(all);
        const auto n = static_cast<graph::SampleIndex>(run.samples.size());
        for (const graph::SampleIndex step : {graph::SampleIndex{1}, graph::SampleIndex{7}, n / 3 + 1, n}) {
            std::vector<IntervalInstances> joined(intervals.size());
            for (graph::SampleIndex begin = 0; begin <= n; begin += step) {
                const auto part = stretches.find(all, begin, begin + step);
                ASSERT_EQ(part.size(), intervals.size());
                for (std::size_t i = 0; i < part.size(); ++i) {
                    for (const auto& x : part[i].list) EXPECT_TRUE(x.from >= begin && x.from < begin + step);
                    joined[i].list.insert(joined[i].list.end(), part[i].list.begin(), part[i].list.end());
                    joined[i].unreached_starts += part[i].unreached_starts;
                }
            }
            for (std::size_t i = 0; i < intervals.size(); ++i) {
                EXPECT_EQ(pairs(joined[i]), pairs(expected[i])) << intervals[i].name << ", skew " << skew << ", step " << step;
                EXPECT_EQ(joined[i].unreached_starts, expected[i].unreached_starts) << intervals[i].name;
            }
        }
        EXPECT_TRUE(stretches.find(all, n, n + 5)[0].list.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(Threads, Instances, ::testing::Values(1u, 2u));

}  // namespace
}  // namespace hashtrace::critical_path
