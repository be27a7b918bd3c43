// docs/spec.md section 5 metrics on a hand-made two-message run whose answers are
// worked out in the comments.
#include "../graph/test_logs.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hashtrace::metrics {
namespace {

using graph::testing::CsvLog;

// Per message i (t = 100 s + 10 ms i), times in ms after t:
//   0 Chai/Force (thread 1)  -> 1 Chai/Send (thread 1)       local   1 ms
//   1 Chai/Send              -> 2 Router/Forward             message 1 ms
//   2 Router/Forward         -> 4 Unity/Receive              message 2 ms
//   2 Router/Forward         -> 5 Bullet/Receive             message 3 ms
//   4 Unity/Receive          -> 6 Unity/Apply                local   2 ms
// Window: 100.000 .. 100.016 = 16 ms.
class TwoMessages : public ::testing::Test {
protected:
    void SetUp() override {
        CsvLog chai, router, unity, bullet;
        for (int i = 0; i < 2; ++i) {
            const double t = 100 + i * 0.010;
            const std::string f = "f" + std::to_string(i), m = "m" + std::to_string(i), u = "u" + std::to_string(i);
            chai.row("Chai", "1", "Force", t, "", f, 1);
            chai.row("Chai", "1", "Send", t + 0.001, f, m, 1);
            router.row("Router", "9", "Forward", t + 0.002, m, m, 1);
            unity.row("Unity", "2", "Receive", t + 0.004, m, u, 1);
            unity.row("Unity", "2", "Apply", t + 0.006, u, "", 1);
            bullet.row("Bullet", "3", "Receive", t + 0.005, m, "", 1);
        }
        samples = graph::testing::load({{"chai.csv", chai.text()}, {"router.csv", router.text()}, {"unity.csv", unity.text()},
                                        {"bullet.csv", bullet.text()}});
        spec = graph::parse_spec(R"(
[[pair]]
from = "Chai/Force"
to = "Chai/Send"
[[pair]]
from = "Chai/Send"
to = "Router/Forward"
[[pair]]
from = "Router/Forward"
to = "*/Receive"
[[pair]]
from = "Unity/Receive"
to = "Unity/Apply"

[[interval]]
name = "force to send"
from = "Chai/Force"
to = "Chai/Send"

[[interval]]
name = "force to receive"
from = "Chai/Force"
to = "*/Receive"
kind = "end_to_end"
)",
                                 "run.toml");
        g = graph::link(samples, spec);
    }
    graph::SampleSet samples;
    graph::AnalysisSpec spec;
    graph::Graph g;
};

TEST_F(TwoMessages, Counts) {
    const auto r = analyze(samples, g, spec);
    EXPECT_EQ(r.samples, 12u);
    EXPECT_EQ(r.edges, 10u);
    EXPECT_EQ(r.message_edges, 6u);
    EXPECT_EQ(r.local_edges, 4u);
    EXPECT_DOUBLE_EQ(r.window_s, 0.016);
    EXPECT_EQ(r.unlinked_inputs, 0u);
    EXPECT_EQ(r.unconsumed_outputs, 0u);
}

// In flight per message: 1 on [1,2), 2 on [2,4), 1 on [4,5) ms: integral 6,
// integral of squares 10; over 2 messages and 16 ms: mean 12/16, E[c^2] 20/16.
TEST_F(TwoMessages, M3Parallelism) {
    const auto r = analyze(samples, g, spec);
    EXPECT_DOUBLE_EQ(r.m3.mean, 0.75);
    EXPECT_NEAR(r.m3.sd, std::sqrt(1.25 - 0.75 * 0.75), 1e-12);
    EXPECT_EQ(r.m3.max, 2);
}

TEST_F(TwoMessages, M8M11M12) {
    const auto r = analyze(samples, g, spec);
    EXPECT_DOUBLE_EQ(r.m8, 6 / 0.016);
    EXPECT_EQ(r.m11_ms.count, 6u);  // waits 1 2 3 1 2 3 ms
    EXPECT_NEAR(r.m11_ms.mean, 2, 1e-12);
    EXPECT_NEAR(r.m11_ms.sd, std::sqrt(2.0 / 3), 1e-12);
    EXPECT_NEAR(r.m11_ms.p50, 2, 1e-12);
    EXPECT_NEAR(r.m11_ms.p95, 3, 1e-12);
    EXPECT_NEAR(r.m11_ms.min, 1, 1e-12);
    EXPECT_NEAR(r.m12, 6.0 / 12.0, 1e-12);  // local 1+2 per message, message 1+2+3
}

// "force to receive" reaches two instances with a Receive: one latency each
// (4 and 5 ms), in from-sample order: 4 5 4 5.
TEST_F(TwoMessages, IntervalsEarliestPerInstance) {
    MetricOptions keep;
    keep.keep_values = true;
    const auto r = analyze(samples, g, spec, keep);
    ASSERT_EQ(r.intervals.size(), 2u);
    EXPECT_EQ(r.intervals[0].name, "force to send");
    EXPECT_EQ(r.intervals[0].latency_ms.count, 2u);
    EXPECT_NEAR(r.intervals[0].latency_ms.mean, 1, 1e-9);
    EXPECT_EQ(r.intervals[1].kind, graph::IntervalKind::end_to_end);
    ASSERT_EQ(r.intervals[1].values_ms.size(), 4u);
    const std::vector<double> expected{4, 5, 4, 5};
    for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(r.intervals[1].values_ms[i], expected[i], 1e-9);
    EXPECT_NEAR(r.intervals[1].latency_ms.sd, 0.5, 1e-9);
    // Successive differences 1 -1 1: mean 1/3, population variance 24/27.
    EXPECT_NEAR(r.intervals[1].latency_ms.jitter, std::sqrt(24.0 / 27), 1e-9);
}

// Roots are the Chai/Force samples: Router first reached after 2 ms, Unity 4, Bullet 5.
TEST_F(TwoMessages, NodeLatencyMatrix) {
    const auto r = analyze(samples, g, spec);
    ASSERT_EQ(r.node_latency.size(), 3u);
    EXPECT_EQ(r.node_latency[0].from, "Chai");
    EXPECT_EQ(r.node_latency[0].to, "Bullet");
    EXPECT_EQ(r.node_latency[0].count, 2u);
    EXPECT_NEAR(r.node_latency[0].mean_ms, 5, 1e-9);
    EXPECT_EQ(r.node_latency[1].to, "Router");
    EXPECT_NEAR(r.node_latency[1].max_ms, 2, 1e-9);
    EXPECT_EQ(r.node_latency[2].to, "Unity");
    EXPECT_NEAR(r.node_latency[2].mean_ms, 4, 1e-9);
}

TEST_F(TwoMessages, SingleThreadedGivesSameAnswers) {
    MetricOptions one;
    one.threads = 1;
    const auto a = analyze(samples, g, spec, one), b = analyze(samples, g, spec);
    EXPECT_EQ(a.intervals[1].latency_ms.mean, b.intervals[1].latency_ms.mean);
    EXPECT_EQ(a.node_latency.size(), b.node_latency.size());
}

// Display persistence (the paper's Case Study 3): one processed frame shown
// three times. Default: the earliest display per instance (1 ms); keep-all:
// every display reachable (1, 2, 3 ms).
TEST(Intervals, KeepAllTargets) {
    CsvLog unity;
    unity.row("Unity", "2", "Processed", 100.000, "", "q1");
    for (int k = 1; k <= 3; ++k) unity.row("Unity", "2", "Display", 100 + k * 0.001, "q1", "");
    const auto s = graph::testing::load({{"unity.csv", unity.text()}});
    const auto spec = graph::parse_spec("[[interval]]\nname = \"to display\"\nfrom = \"Unity/Processed\"\nto = \"Unity/Display\"\n", "d.toml");
    const auto g = graph::link(s, spec);
    EXPECT_EQ(analyze(s, g, spec).intervals[0].latency_ms.count, 1u);
    MetricOptions all;
    all.keep_all_targets = true;
    const auto r = analyze(s, g, spec, all);
    EXPECT_EQ(r.intervals[0].latency_ms.count, 3u);
    EXPECT_NEAR(r.intervals[0].latency_ms.mean, 2, 1e-9);
    EXPECT_NEAR(r.intervals[0].latency_ms.max, 3, 1e-9);
}

// A tolerated clock error makes an edge run backwards in time (and index):
// A/Send stamped 1 ms after B/Recv. The interval Send -> Apply must still be
// found (1 ms), and the negative wait counts in M11 but never as in flight.
TEST(Intervals, BackwardEdgeWithinTolerance) {
    CsvLog a, b;
    a.row("A", "1", "Send", 100.002, "", "m1");
    b.row("B", "2", "Recv", 100.001, "m1", "r1");
    b.row("B", "2", "Apply", 100.003, "r1", "");
    const auto s = graph::testing::load({{"a.csv", a.text()}, {"b.csv", b.text()}});
    const auto spec = graph::parse_spec("[[interval]]\nname = \"send to apply\"\nfrom = \"A/Send\"\nto = \"B/Apply\"\n", "t.toml");
    graph::LinkOptions tolerant;
    tolerant.tolerance_ns = 2'000'000;
    const auto g = graph::link(s, spec, tolerant);
    ASSERT_EQ(g.edges.size(), 2u);
    const auto r = analyze(s, g, spec);
    ASSERT_EQ(r.intervals[0].latency_ms.count, 1u);
    EXPECT_NEAR(r.intervals[0].latency_ms.mean, 1, 1e-9);
    EXPECT_NEAR(r.m11_ms.mean, -1, 1e-9);
    EXPECT_EQ(r.m3.max, 0);
}

TEST(Intervals, NoSamplesNoCrash) {
    const graph::SampleSet empty;
    const auto g = graph::link(empty, {});
    const auto spec = graph::parse_spec("[[interval]]\nname = \"x\"\nfrom = \"A/a\"\nto = \"B/b\"\n", "e.toml");
    const auto r = analyze(empty, g, spec);
    EXPECT_EQ(r.samples, 0u);
    EXPECT_EQ(r.window_s, 0);
    EXPECT_EQ(r.intervals[0].latency_ms.count, 0u);
}

}  // namespace
}  // namespace hashtrace::metrics
