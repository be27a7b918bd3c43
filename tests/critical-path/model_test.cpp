// The dependence model, critical paths and the what-if replay on hand-made
// runs whose answers are worked out in the comments (times in ms).
#include "../graph/test_logs.hpp"
#include "hashtrace/critical_path/change.hpp"
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/whatif.hpp"
#include "hashtrace/graph/link.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>

namespace hashtrace::critical_path {
namespace {

using graph::testing::CsvLog;

constexpr double ms = 1e-3;

struct RecordedRun {
    graph::SampleSet samples;
    graph::AnalysisSpec spec;
    graph::Graph graph;

    RecordedRun(const std::vector<std::pair<std::string, std::string>>& logs, const std::string& spec_text)
        : samples(graph::testing::load(logs)), spec(graph::parse_spec(spec_text, "run.toml")), graph(graph::link(samples, spec)) {}
    SampleIndex at(const std::string& node, const std::string& tracepoint, double seconds) const {
        const long s = graph::testing::find(samples, node, tracepoint, seconds);
        EXPECT_GE(s, 0) << node << "/" << tracepoint << " at " << seconds;
        return static_cast<SampleIndex>(s);
    }
    const graph::IntervalSpec& interval(const std::string& name) const { return *select_intervals(spec, {name}).front(); }
};

const SegmentSummary* segment(const IntervalCriticalPath& p, const std::string& from, const std::string& to) {
    for (const auto& s : p.segments)
        if (s.from == from && s.to == to) return &s;
    return nullptr;
}

// Fan-in: S/Start (node S) feeds A/Make and B/Make (other nodes); both make
// hash x, which C/Use takes (two incoming edges, one per source).
//   round 1 (t = 0):   Start 0, A/Make 1, B/Make 3, C/Use 4   -> latency 4, B arrives last
//   round 2 (t = 100): Start 100, A/Make 101, B/Make 102, C/Use 102.5 -> 2.5, B last
// The critical path is Start -> B/Make -> C/Use in both.
class FanIn : public ::testing::Test {
protected:
    static RecordedRun make() {
        CsvLog s, a, b, c;
        for (double t0 : {0.0, 0.100}) {
            const bool first = t0 == 0;
            s.row("S", "1", "Start", 1 + t0, "", first ? "s1" : "s2");
            a.row("A", "2", "Make", 1 + t0 + 1 * ms, first ? "s1" : "s2", first ? "x1" : "x2");
            b.row("B", "3", "Make", 1 + t0 + (first ? 3 : 2) * ms, first ? "s1" : "s2", first ? "x1" : "x2");
            c.row("C", "4", "Use", 1 + t0 + (first ? 4 : 2.5) * ms, first ? "x1" : "x2", "");
        }
        return RecordedRun({{"s.csv", s.text()}, {"a.csv", a.text()}, {"b.csv", b.text()}, {"c.csv", c.text()}}, R"(
[[interval]]
name = "start to use"
from = "S/Start"
to = "C/Use"
)");
    }
    RecordedRun run = make();
    DependenceModel model{run.samples, run.graph};
};

TEST_F(FanIn, TheCriticalPathTakesTheInputThatArrivedLast) {
    PathFinder finder(model);
    std::vector<PathStep> path;
    const IntervalInstance first{run.at("S", "Start", 1), run.at("C", "Use", 1.004)};
    ASSERT_TRUE(finder.critical_path(first, path));
    ASSERT_EQ(path.size(), 2u);
    EXPECT_EQ(path[0].from, first.from);
    EXPECT_EQ(path[0].to, run.at("B", "Make", 1.003));
    EXPECT_EQ(path[0].kind, SegmentKind::message);
    EXPECT_EQ(path[1].to, first.to);
}

// The shortcut for an instance whose `from` leads straight to `to` and to
// nothing before it finds the step the full walk finds, and declines the
// rest: S/Start (1.0) feeds M/Mid (1.001) and E/End (1.002).
TEST(PathFinder, TheSingleStepShortcutAgreesWithTheWalk) {
    CsvLog s, m, e;
    s.row("S", "1", "Start", 1, "", "s1");
    m.row("M", "2", "Mid", 1.001, "s1", "");
    e.row("E", "3", "End", 1.002, "s1", "");
    RecordedRun run({{"s.csv", s.text()}, {"m.csv", m.text()}, {"e.csv", e.text()}}, "");
    DependenceModel model(run.samples, run.graph);
    PathFinder finder(model);
    std::vector<PathStep> path;
    PathStep step{};
    std::int64_t slack = -1;
    const IntervalInstance to_mid{run.at("S", "Start", 1), run.at("M", "Mid", 1.001)};
    ASSERT_TRUE(finder.single_step(to_mid, step, slack));
    ASSERT_TRUE(finder.critical_path(to_mid, path));
    ASSERT_EQ(path.size(), 1u);
    EXPECT_EQ(std::tie(step.from, step.to, step.kind), std::tie(path[0].from, path[0].to, path[0].kind));
    EXPECT_EQ(step.kind, SegmentKind::message);
    std::int64_t walked_slack = -1;
    finder.for_each_slack(to_mid, [&](const PathStep& s, std::uint32_t, std::int64_t ns) {
        if (s.from == step.from && s.to == step.to) walked_slack = ns;
    });
    EXPECT_EQ(slack, walked_slack);
    const IntervalInstance to_end{run.at("S", "Start", 1), run.at("E", "End", 1.002)};
    EXPECT_FALSE(finder.single_step(to_end, step, slack));  // Start also leads to Mid, before End
    ASSERT_TRUE(finder.critical_path(to_end, path));
    ASSERT_EQ(path.size(), 1u);
    EXPECT_EQ(path[0].to, to_end.to);
}

TEST_F(FanIn, AggregatesShareAndSlackPerSegment) {
    const IntervalCriticalPath p = critical_paths(model, {&run.interval("start to use")}, {1}).front();
    EXPECT_EQ(p.count, 2u);
    EXPECT_DOUBLE_EQ(p.mean_ms, 3.25);
    const auto* to_b = segment(p, "S/Start", "B/Make");
    const auto* b_to_c = segment(p, "B/Make", "C/Use");
    const auto* a_to_c = segment(p, "A/Make", "C/Use");
    ASSERT_TRUE(to_b && b_to_c && a_to_c);
    EXPECT_DOUBLE_EQ(to_b->on_path_fraction, 1.0);
    EXPECT_NEAR(to_b->mean_ms, 2.5, 1e-9);   // (3 + 2) / 2
    EXPECT_NEAR(b_to_c->mean_ms, 0.75, 1e-9);  // (1 + 0.5) / 2
    EXPECT_NEAR(to_b->share + b_to_c->share, 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(a_to_c->on_path_fraction, 0.0);
    EXPECT_DOUBLE_EQ(a_to_c->mean_ms, 0.0);
    // p50 instance (nearest rank 1 of 2) is round 2 (2.5 ms), p95/p99 round 1 (4 ms).
    EXPECT_NEAR(to_b->p50_ms, 2.0, 1e-9);
    EXPECT_NEAR(to_b->p95_ms, 3.0, 1e-9);
    // A -> C's floor is 1.5 (round 2). Its slack: round 1 4 - 1.5 - 1 = 1.5,
    // round 2 102.5 - 1.5 - 101 = 0; the median of two is the upper one.
    EXPECT_NEAR(a_to_c->slack_ms, 1.5, 1e-6);
    EXPECT_NEAR(b_to_c->slack_ms, 0.0, 1e-9);
}

TEST_F(FanIn, SlowingTheEarlierInputPastTheLaterMovesTheEnd) {
    // A/Make -> C/Use own duration is its floor, 1.5: +2 ms makes it 3.5.
    // Round 1: A arrives 1 + 3.5 = 4.5 > 4: latency 4.5. Round 2: 101 + 3.5 = 104.5: 4.5.
    const WhatIfResult r = what_if(model, run.interval("start to use"), {parse_change("A/Make->C/Use+2ms")});
    EXPECT_DOUBLE_EQ(r.baseline.mean_ms, 3.25);
    EXPECT_NEAR(r.predicted.mean_ms, 4.5, 1e-9);
    // Slowing it less than its slack changes nothing in round 1: +1 ms -> 2.5 (< 3), round 2: 3.5 > 2.5.
    const WhatIfResult small = what_if(model, run.interval("start to use"), {parse_change("A/Make->C/Use+1ms")});
    EXPECT_NEAR(small.predicted.mean_ms, (4.0 + 3.5) / 2, 1e-9);
}

// A queue in one node instance: Q/Put on thread 1, Q/Take on thread 2 (the
// consumer), then Q/Apply (1 ms of work) on thread 2. Puts at 0, 0.1, 0.2;
// the consumer is busy, so a backlog forms:
//   Take 0.01 Apply 1.01 | Take 1.02 Apply 2.02 | Take 2.03 Apply 3.03
// Put -> Apply latencies 1.01, 1.92, 2.83 (mean 1.92).
class Backlog : public ::testing::Test {
protected:
    static RecordedRun make() {
        CsvLog q;
        const double put[] = {0, 0.1, 0.2}, take[] = {0.01, 1.02, 2.03};
        for (int i = 0; i < 3; ++i) {
            const std::string m = "m" + std::to_string(i), p = "p" + std::to_string(i);
            q.row("Q", "1", "Put", 1 + put[i] * ms, "", m, 1);
            q.row("Q", "1", "Take", 1 + take[i] * ms, m, p, 2);
            q.row("Q", "1", "Apply", 1 + (take[i] + 1) * ms, p, "", 2);
        }
        return RecordedRun({{"q.csv", q.text()}}, R"(
[[interval]]
name = "put to apply"
from = "Q/Put"
to = "Q/Apply"
)");
    }
    RecordedRun run = make();
    DependenceModel model{run.samples, run.graph};
};

TEST_F(Backlog, TheWaitInTheQueueIsItsOwnSegmentNotTheOtherWork) {
    const IntervalCriticalPath p = critical_paths(model, {&run.interval("put to apply")}, {1}).front();
    ASSERT_EQ(p.count, 3u);
    const auto* queue = segment(p, "Q/Put", "Q/Take");
    const auto* apply = segment(p, "Q/Take", "Q/Apply");
    ASSERT_TRUE(queue && apply);
    EXPECT_EQ(queue->kind, SegmentKind::queue);
    EXPECT_EQ(apply->kind, SegmentKind::local);
    EXPECT_NEAR(queue->mean_ms, (0.01 + 0.92 + 1.83) / 3, 1e-9);
    EXPECT_NEAR(apply->mean_ms, 1.0, 1e-9);
    EXPECT_EQ(p.segments.size(), 2u);  // the previous Apply (program order) is not part of any instance
    EXPECT_EQ(model.determined_by(run.at("Q", "Take", 1.00102)), run.at("Q", "Apply", 1.00101));
}

// Each instance's path is a chain (every sample on it has one input among
// the instance's samples). A backlogged Take could have been handed its
// input later by all the wait but the queue's floor (0.01 ms) without
// moving its Apply: 1.02 - 0.01 - 0.1 = 0.91 ms in round 2, 1.82 in round 3,
// none in round 1 (median 0.91). The Apply after it has none.
TEST_F(Backlog, AQueueWaitsSlackIsTheBacklogAheadOfIt) {
    const IntervalCriticalPath p = critical_paths(model, {&run.interval("put to apply")}, {1}).front();
    const auto* queue = segment(p, "Q/Put", "Q/Take");
    const auto* apply = segment(p, "Q/Take", "Q/Apply");
    ASSERT_TRUE(queue && apply);
    EXPECT_NEAR(queue->slack_ms, 0.91, 1e-6);
    EXPECT_NEAR(apply->slack_ms, 0.0, 1e-9);
    PathFinder finder(model);
    std::vector<PathStep> path;
    const IntervalInstance third{run.at("Q", "Put", 1.0002), run.at("Q", "Apply", 1.00303)};
    ASSERT_TRUE(finder.critical_path(third, path));
    ASSERT_EQ(path.size(), 2u);
    std::vector<std::pair<SegmentKind, std::int64_t>> slacks;
    finder.for_each_slack(third, [&](const PathStep& step, std::uint32_t, std::int64_t ns) { slacks.emplace_back(step.kind, ns); });
    ASSERT_EQ(slacks.size(), 2u);  // from `to` back
    EXPECT_EQ(slacks[0], std::pair(SegmentKind::local, std::int64_t{0}));
    EXPECT_EQ(slacks[1].first, SegmentKind::queue);
    EXPECT_NEAR(double(slacks[1].second), 1.82e6, 1.0);
}

TEST_F(Backlog, UnchangedReplayReproducesTheRun) {
    const Replay r = replay(model, {});
    for (SampleIndex x = 0; x < run.samples.size(); ++x) EXPECT_EQ(r.time_ns[x], run.samples.time_ns[x]) << x;
    EXPECT_EQ(r.reorderings, 0u);
}

TEST_F(Backlog, AFasterConsumerDrainsTheBacklog) {
    // Apply halved to 0.5: Take 0.01 Apply 0.51 | Take 0.52 Apply 1.02 | Take 1.03 Apply 1.53
    // -> 0.51, 0.92, 1.33: mean 0.92, not the naive 1.92 - 0.5 = 1.42.
    const WhatIfResult r = what_if(model, run.interval("put to apply"), {parse_change("Q/Take->Q/Apply*0.5")});
    EXPECT_NEAR(r.baseline.mean_ms, 1.92, 1e-9);
    EXPECT_NEAR(r.predicted.mean_ms, 0.92, 1e-9);
    EXPECT_NEAR(r.predicted.p99_ms, 1.33, 1e-9);
    EXPECT_EQ(r.changed_segments, std::vector<std::uint64_t>{3});
}

TEST_F(Backlog, ASlowerConsumerBuildsIt) {
    // Apply doubled: Take 0.01 Apply 2.01 | Take 2.02 Apply 4.02 | Take 4.03 Apply 6.03 -> 2.01, 3.92, 5.83.
    const WhatIfResult r = what_if(model, run.interval("put to apply"), {parse_change("Q/Take->Q/Apply+1ms")});
    EXPECT_NEAR(r.predicted.mean_ms, (2.01 + 3.92 + 5.83) / 3, 1e-9);
}

TEST_F(Backlog, AConsumerFasterThanItsInputsWaitsAndSaysSo) {
    // Apply 0.05: Take 0.01 Apply 0.06; the next Take's thread is ready at
    // 0.07 but its input was put at 0.1 (ready 0.11): the real thread would
    // have found the queue empty; the model waits for it, and counts it.
    const WhatIfResult r = what_if(model, run.interval("put to apply"), {parse_change("Q/Take->Q/Apply*0.05")});
    EXPECT_NEAR(r.predicted.mean_ms, 0.06, 1e-9);
    ASSERT_EQ(r.queues.size(), 1u);
    EXPECT_EQ(r.queues[0].consumer, "Q/Take");
    EXPECT_EQ(r.queues[0].starved, 2u);
}

TEST_F(Backlog, AChangedQueueWaitFreesTheConsumer) {
    // The wait itself scaled: Take = Put + 0.1 x recorded wait (0.001, 0.092, 0.183).
    const WhatIfResult r = what_if(model, run.interval("put to apply"), {parse_change("Q/Put->Q/Take*0.1")});
    EXPECT_NEAR(r.predicted.mean_ms, 1 + (0.001 + 0.092 + 0.183) / 3, 1e-9);
}

// Program order: L/Tick is a timer (no input) at 0, 1, 2; L/Work 0.2 after
// each on the same thread. Work +1.5 ms overruns the tick: the next tick
// starts when the thread is free, and so on.
TEST(ThreadOrder, ATimerSampleWaitsForItsBusyThread) {
    CsvLog l;
    for (int i = 0; i < 3; ++i) {
        const std::string k = "k" + std::to_string(i);
        l.row("L", "1", "Tick", 1 + i * ms, "", k, 1);
        l.row("L", "1", "Work", 1 + (i + 0.2) * ms, k, "", 1);
    }
    RecordedRun run({{"l.csv", l.text()}}, "[[interval]]\nname = \"tick\"\nfrom = \"L/Tick\"\nto = \"L/Work\"\n");
    DependenceModel model(run.samples, run.graph);
    EXPECT_TRUE(model.external(run.at("L", "Tick", 1.001)));
    // Work 1.7 | Tick max(1, 1.7) = 1.7, Work 3.4 | Tick 3.4, Work 5.1: every latency 1.7.
    const WhatIfResult r = what_if(model, run.interval("tick"), {parse_change("L/Tick->L/Work+1500us")});
    EXPECT_NEAR(r.predicted.mean_ms, 1.7, 1e-9);
    EXPECT_NEAR(r.predicted.p99_ms, 1.7, 1e-9);
    EXPECT_EQ(r.delayed_external, 2u);
    const Replay replayed = replay(model, {parse_change("L/Tick->L/Work+1500us")});
    EXPECT_EQ(replayed.time_ns[run.at("L", "Tick", 1.002)], 1'000'000'000 + 3'400'000);
}

// Program order inside an instance: S/Start's hash feeds S/First and
// S/Second on the same thread; Second waits for First (its thread) more
// than for Start, so the path runs Start -> First -> Second.
TEST(ThreadOrder, AThreadSegmentOnThePath) {
    CsvLog s;
    s.row("S", "1", "Start", 1, "", "s", 1);
    s.row("S", "1", "First", 1 + 1 * ms, "s", "", 1);
    s.row("S", "1", "Second", 1 + 3 * ms, "s", "", 1);
    RecordedRun run({{"s.csv", s.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"S/Start\"\nto = \"S/Second\"\n");
    DependenceModel model(run.samples, run.graph);
    PathFinder finder(model);
    std::vector<PathStep> path;
    ASSERT_TRUE(finder.critical_path({run.at("S", "Start", 1), run.at("S", "Second", 1.003)}, path));
    ASSERT_EQ(path.size(), 2u);
    EXPECT_EQ(path[0].kind, SegmentKind::local);
    EXPECT_EQ(path[1].kind, SegmentKind::thread);
    EXPECT_EQ(path[1].from, run.at("S", "First", 1.001));
}

// Two producer threads feed one consumer (thread 3) of instance N:
//   StartA 0 -> PutA 1.0 (thread 1); StartB 0 -> PutB 1.5 (thread 2)
//   Take 1.6 (a), Done 1.7, Take 1.8 (b), Done 1.9 (thread 3)
// Delaying A by 1 ms (PutA 2.0) makes b arrive first: the consumer serves b
// at the first take (1.8, when b is ready), Done 1.9; then a at 2.6, Done 2.7.
// Keeping the recorded order would give b 2.9.
CsvLog two_producers_one_consumer() {
    CsvLog n;
    n.row("N", "1", "StartA", 1, "", "sa", 1);
    n.row("N", "1", "StartB", 1, "", "sb", 2);
    n.row("N", "1", "PutA", 1 + 1.0 * ms, "sa", "a", 1);
    n.row("N", "1", "PutB", 1 + 1.5 * ms, "sb", "b", 2);
    n.row("N", "1", "Take", 1 + 1.6 * ms, "a", "ta", 3);
    n.row("N", "1", "Done", 1 + 1.7 * ms, "ta", "", 3);
    n.row("N", "1", "Take", 1 + 1.8 * ms, "b", "tb", 3);
    n.row("N", "1", "Done", 1 + 1.9 * ms, "tb", "", 3);
    return n;
}

TEST(Reordering, QueuedInputsAreServedInTheirNewArrivalOrder) {
    RecordedRun run({{"n.csv", two_producers_one_consumer().text()}}, R"(
[[interval]]
name = "b"
from = "N/StartB"
to = "N/Done"
[[interval]]
name = "a"
from = "N/StartA"
to = "N/Done"
)");
    DependenceModel model(run.samples, run.graph);
    const std::vector<Change> later_a{parse_change("N/StartA->N/PutA+1ms")};
    const WhatIfResult b = what_if(model, run.interval("b"), later_a);
    EXPECT_NEAR(b.baseline.mean_ms, 1.9, 1e-9);
    EXPECT_NEAR(b.predicted.mean_ms, 1.9, 1e-9);
    EXPECT_EQ(b.reorderings, 2u);
    ASSERT_EQ(b.queues.size(), 1u);
    EXPECT_EQ(b.queues[0].reordered, 2u);
    const WhatIfResult a = what_if(model, run.interval("a"), later_a);
    EXPECT_NEAR(a.baseline.mean_ms, 1.7, 1e-9);
    EXPECT_NEAR(a.predicted.mean_ms, 2.7, 1e-9);
}

// The run above with a second consumer of both inputs (thread 4, each take
// 0.1 ms after thread 3's): Take a 1.7, End 1.8, Take b 1.9, End 2.0. A
// single input goes to two queues. With A later by 1 ms each consumer
// serves b first: thread 3 as above (a done at 2.7); thread 4 takes b at
// 1.9 (1.5 + its 0.4 hand-off), End 2.0, then a at 2.7 (2.0 + 0.7), End
// 2.8. Each instance continues from the slot of its own queue that served
// a, not from the other queue's.
TEST(Reordering, AnInputQueuedForTwoConsumersContinuesFromEachOnesSlot) {
    CsvLog m;  // the second consumer
    m.row("N", "1", "TakeToo", 1 + 1.7 * ms, "a", "xa", 4);
    m.row("N", "1", "End", 1 + 1.8 * ms, "xa", "", 4);
    m.row("N", "1", "TakeToo", 1 + 1.9 * ms, "b", "xb", 4);
    m.row("N", "1", "End", 1 + 2.0 * ms, "xb", "", 4);
    const std::string spec = "[[interval]]\nname = \"a, first consumer\"\nfrom = \"N/StartA\"\nto = \"N/Done\"\n"
                             "[[interval]]\nname = \"a, second consumer\"\nfrom = \"N/StartA\"\nto = \"N/End\"\n";
    RecordedRun run({{"n.csv", two_producers_one_consumer().text()}, {"m.csv", m.text()}}, spec);
    DependenceModel model(run.samples, run.graph);
    const WhatIfResult first = what_if(model, run.interval("a, first consumer"), {parse_change("N/StartA->N/PutA+1ms")});
    EXPECT_EQ(first.reorderings, 4u);
    EXPECT_NEAR(first.baseline.mean_ms, 1.7, 1e-9);
    EXPECT_NEAR(first.predicted.mean_ms, 2.7, 1e-9);
    const WhatIfResult second = what_if(model, run.interval("a, second consumer"), {parse_change("N/StartA->N/PutA+1ms")});
    EXPECT_NEAR(second.baseline.mean_ms, 1.8, 1e-9);
    EXPECT_NEAR(second.predicted.mean_ms, 2.8, 1e-9);
}

// A consumer polling its queue once per tick (thread 2, ticks at 1.0 and
// 2.0) takes what is there and applies each in 0.2 ms:
//   Put 0.0 -> Take 1.0 (tick), Apply 1.2; Put 1.19 -> Take 1.21, Apply 1.41
//   Put 1.45 (after the batch ended) -> Take 2.0 (next tick), Apply 2.2
// With Apply 0.1 ms slower the batch runs to 1.61: the third input (1.45 +
// the 0.02 hand-off) is there before the thread is done, so it is taken at
// once (1.61, Apply 1.91), not held until the tick at 2.0.
TEST(Polling, AnInputArrivingDuringALongerBatchIsTakenInIt) {
    CsvLog q;
    const double put[] = {0, 1.19, 1.45}, take[] = {1.0, 1.21, 2.0};
    for (int i = 0; i < 3; ++i) {
        const std::string m = "m" + std::to_string(i), p = "p" + std::to_string(i);
        q.row("Q", "1", "Put", 1 + put[i] * ms, "", m, 1);
        q.row("Q", "1", "Take", 1 + take[i] * ms, m, p, 2);
        q.row("Q", "1", "Apply", 1 + (take[i] + 0.2) * ms, p, "", 2);
    }
    RecordedRun run({{"q.csv", q.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n");
    DependenceModel model(run.samples, run.graph);
    EXPECT_TRUE(model.external(run.at("Q", "Take", 1.001)));
    EXPECT_TRUE(model.external(run.at("Q", "Take", 1.002)));
    EXPECT_FALSE(model.external(run.at("Q", "Take", 1.00121)));
    const Replay unchanged = replay(model, {});
    for (SampleIndex x = 0; x < run.samples.size(); ++x) EXPECT_EQ(unchanged.time_ns[x], run.samples.time_ns[x]) << x;
    const WhatIfResult r = what_if(model, run.interval("i"), {parse_change("Q/Take->Q/Apply+0.1ms")});
    EXPECT_NEAR(r.predicted.mean_ms, (1.3 + 0.42 + 0.46) / 3, 1e-9);
}

// The render loop of the two tests below (their comments give its times).
CsvLog render_loop_log() {
    CsvLog q;
    const double put[] = {0, 1.15, 1.5}, take[] = {1.0, 1.21, 2.0};
    const char* frame_of[] = {"f1", "f1", "f2"};
    for (int i = 0; i < 3; ++i) {
        const std::string m = "m" + std::to_string(i), p = "p" + std::to_string(i);
        q.row("Q", "1", "Put", 1 + put[i] * ms, "", m, 1);
        q.row("Q", "1", "Take", 1 + take[i] * ms, m, p, 2);
        q.row("Q", "1", "Apply", 1 + (take[i] + 0.2) * ms, p, frame_of[i], 2);
    }
    q.row("Q", "1", "Frame", 1 + 1.46 * ms, "f1", "", 2);
    q.row("Q", "1", "Frame", 1 + 2.25 * ms, "f2", "", 2);
    return q;
}

// A render loop (thread 2) polls its inbox at ticks 1.0 and 2.0, applies
// each input in 0.2 ms (Apply gives the frame's hash) and then draws the
// frame (Frame, 0.05 ms after the batch):
//   tick 1: Take m0 1.0, Apply 1.2; Take m1 1.21 (put 1.15), Apply 1.41; Frame 1.46
//   tick 2: Take m2 2.0 (put 1.5), Apply 2.2; Frame 2.25
// With Apply halved the first batch ends at 1.1, before m1 is there (1.2):
// m1 waits for the second tick (Take 2.0 + its 0.01 take, Apply 2.11), and
// m2 follows (Apply 2.21); the first frame is drawn at 1.15, the second at
// 2.26. Latencies 1.1, 0.96, 0.71: the mean rises from 0.72 to 0.923,
// where keeping the recorded batches would predict a fall (to 0.62).
TEST(Polling, AFasterBatchEndsSoonerAndALateInputWaitsForTheNextTick) {
    const CsvLog q = render_loop_log();
    RecordedRun run({{"q.csv", q.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n");
    DependenceModel model(run.samples, run.graph);
    ASSERT_TRUE(model.external(run.at("Q", "Take", 1.001)));
    ASSERT_TRUE(model.external(run.at("Q", "Take", 1.002)));
    const Replay unchanged = replay(model, {});
    for (SampleIndex x = 0; x < run.samples.size(); ++x) EXPECT_EQ(unchanged.time_ns[x], run.samples.time_ns[x]) << x;

    const std::vector<Change> faster{parse_change("Q/Take->Q/Apply*0.5")};
    const WhatIfResult r = what_if(model, run.interval("i"), faster);
    EXPECT_NEAR(r.baseline.mean_ms, (1.2 + 0.26 + 0.7) / 3, 1e-9);
    EXPECT_NEAR(r.predicted.mean_ms, (1.1 + 0.96 + 0.71) / 3, 1e-9);
    EXPECT_EQ(r.changed_segments, std::vector<std::uint64_t>{3});
    ASSERT_EQ(r.queues.size(), 1u);
    EXPECT_TRUE(r.queues[0].simulated);
    EXPECT_EQ(r.queues[0].moved, 1u);
    const Replay replayed = replay(model, faster);
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Frame", 1.00146)], 1'000'000'000 + 1'150'000);
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Frame", 1.00225)], 1'000'000'000 + 2'260'000);
}

// A render loop (thread 2) with deadlines a period (1 ms) apart takes its
// inbox at each tick, applies each input in 0.2 ms, then draws its frame
// (0.05 ms):
//   tick 1: Take m0 1.0 (put 0.5), Apply 1.2; Take m0b 1.21 (put 0.6), Apply 1.41; Frame 1.46
//   tick 2: Take m1 2.0 (put 1.6), Apply 2.2; Frame 2.25
//   tick 3: Take m2 3.0 (put 2.5), Apply 3.2; Frame 3.25
//   tick 4: Take m3 4.0 (put 3.3), Apply 4.2; Frame 4.25
// With Apply 0.4 ms slower the first batch runs to 2.21 and takes m1 too
// (there at 2.0: Apply 2.81), Frame 2.86: tick 2's deadline passed, so it
// comes at once (2.86, nothing there, Frame 2.91) and the schedule restarts
// from there: tick 3 at 3.86, not 3.0 (m2: Apply 4.46; m3, there at 3.7, in
// the same batch: Apply 5.06). Latencies 1.1, 1.61, 1.21, 1.96, 1.76: mean
// 1.528; keeping the recorded ticks would give 1.264.
TEST(Polling, AnOverrunRestartsTheLoopsScheduleFromItsEnd) {
    CsvLog q;
    const std::pair<const char*, double> puts[] = {{"m0", 0.5}, {"m0b", 0.6}, {"m1", 1.6}, {"m2", 2.5}, {"m3", 3.3}};
    for (const auto& [m, t] : puts) q.row("Q", "1", "Put", 1 + t * ms, "", m, 1);
    struct Take {
        const char* message;
        double at;
        const char* frame;
    };
    const Take takes[] = {{"m0", 1.0, "f1"}, {"m0b", 1.21, "f1"}, {"m1", 2.0, "f2"}, {"m2", 3.0, "f3"}, {"m3", 4.0, "f4"}};
    for (const Take& t : takes) {
        q.row("Q", "1", "Take", 1 + t.at * ms, t.message, std::string("p") + t.message, 2);
        q.row("Q", "1", "Apply", 1 + (t.at + 0.2) * ms, std::string("p") + t.message, t.frame, 2);
    }
    const std::pair<const char*, double> frames[] = {{"f1", 1.46}, {"f2", 2.25}, {"f3", 3.25}, {"f4", 4.25}};
    for (const auto& [f, t] : frames) q.row("Q", "1", "Frame", 1 + t * ms, f, "", 2);
    RecordedRun run({{"q.csv", q.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n");
    DependenceModel model(run.samples, run.graph);
    const Replay unchanged = replay(model, {});
    for (SampleIndex x = 0; x < run.samples.size(); ++x) EXPECT_EQ(unchanged.time_ns[x], run.samples.time_ns[x]) << x;

    const std::vector<Change> slower{parse_change("Q/Take->Q/Apply+0.4ms")};
    const WhatIfResult r = what_if(model, run.interval("i"), slower);
    EXPECT_NEAR(r.baseline.mean_ms, (0.7 + 0.81 + 0.6 + 0.7 + 0.9) / 5, 1e-9);
    EXPECT_NEAR(r.predicted.mean_ms, (1.1 + 1.61 + 1.21 + 1.96 + 1.76) / 5, 1e-9);
    ASSERT_EQ(r.queues.size(), 1u);
    EXPECT_TRUE(r.queues[0].simulated);
    EXPECT_EQ(r.queues[0].moved, 2u);  // m1 and m3 taken a tick early
    const Replay replayed = replay(model, slower);
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Frame", 1.00225)], 1'000'000'000 + 2'910'000);
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Take", 1.003)], 1'000'000'000 + 3'860'000);
}

// A render loop (thread 3) polls at ticks 1.0 and 2.0; its inbox has two
// producers (threads 1 and 2) and serves them in its own order, not by time:
//   tick 1: Take x1 1.0 (put 0.5), Apply 1.2; Take a 1.21 (put 1.15 by thread 2),
//           Apply 1.41; Take b 1.42 (put 1.0, there long before a), Apply 1.62; Frame 1.66
//   tick 2: Take y 2.0 (put 1.8), Apply 2.2; Frame 2.25
// With Apply halved, x1's Apply ends at 1.1, before a is there (1.2; the
// hand-off floor is 0.06): b, there since 1.06, is taken at once (1.11,
// Apply 1.21), then a (1.22, Apply 1.32), all in tick 1. Latencies 0.6,
// 0.17, 0.21, 0.3: mean 0.32. Serving strictly in the recorded order would
// hold b behind a past the end of the batch, to tick 2 (mean 0.8275).
TEST(Polling, AnInputNotThereYetDoesNotHoldBackTheOnesBehindIt) {
    CsvLog q;
    q.row("Q", "1", "Put", 1 + 0.5 * ms, "", "x1", 1);
    q.row("Q", "1", "Put", 1 + 1.0 * ms, "", "b", 1);
    q.row("Q", "1", "Put", 1 + 1.15 * ms, "", "a", 2);
    q.row("Q", "1", "Put", 1 + 1.8 * ms, "", "y", 1);
    const std::pair<const char*, double> takes[] = {{"x1", 1.0}, {"a", 1.21}, {"b", 1.42}, {"y", 2.0}};
    for (const auto& [m, t] : takes) {
        q.row("Q", "1", "Take", 1 + t * ms, m, std::string("p") + m, 3);
        q.row("Q", "1", "Apply", 1 + (t + 0.2) * ms, std::string("p") + m, t < 2 ? "f1" : "f2", 3);
    }
    q.row("Q", "1", "Frame", 1 + 1.66 * ms, "f1", "", 3);
    q.row("Q", "1", "Frame", 1 + 2.25 * ms, "f2", "", 3);
    RecordedRun run({{"q.csv", q.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n");
    DependenceModel model(run.samples, run.graph);
    const Replay unchanged = replay(model, {});
    for (SampleIndex x = 0; x < run.samples.size(); ++x) EXPECT_EQ(unchanged.time_ns[x], run.samples.time_ns[x]) << x;

    const WhatIfResult r = what_if(model, run.interval("i"), {parse_change("Q/Take->Q/Apply*0.5")});
    EXPECT_NEAR(r.baseline.mean_ms, (0.7 + 0.26 + 0.62 + 0.4) / 4, 1e-9);
    EXPECT_NEAR(r.predicted.mean_ms, (0.6 + 0.17 + 0.21 + 0.3) / 4, 1e-9);
    EXPECT_TRUE(r.queues.empty());  // every input taken at its recorded tick
    const Replay replayed = replay(model, {parse_change("Q/Take->Q/Apply*0.5")});
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Take", 1.00142)], 1'000'000'000 + 1'110'000);  // b, before a
    EXPECT_EQ(replayed.time_ns[run.at("Q", "Take", 1.00121)], 1'000'000'000 + 1'220'000);
}

// The render loop of AFasterBatchEndsSoonerAndALateInputWaitsForTheNextTick,
// but its thread also receives another node's messages after each frame (a
// socket thread that sends and receives): its times follow those events,
// not a tick, so it is replayed take by take, keeping its recorded batches:
// m1 is taken at once after m0 (1.21, Apply 1.31) instead of at the next
// tick. Latencies 1.1, 0.16, 0.6: mean 0.62, where the loop gave 0.923.
TEST(Polling, AThreadThatAlsoServesAnotherNodesMessagesIsNotALoop) {
    CsvLog q = render_loop_log(), d;
    q.row("Q", "1", "Received", 1 + 1.48 * ms, "w1", "", 2);
    q.row("Q", "1", "Received", 1 + 2.3 * ms, "w2", "", 2);
    d.row("D", "2", "Send", 1 + 1.47 * ms, "", "w1", 1);
    d.row("D", "2", "Send", 1 + 2.28 * ms, "", "w2", 1);
    RecordedRun run({{"q.csv", q.text()}, {"d.csv", d.text()}}, "[[interval]]\nname = \"i\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n");
    DependenceModel model(run.samples, run.graph);
    ASSERT_TRUE(model.external(run.at("Q", "Take", 1.001)));
    const WhatIfResult r = what_if(model, run.interval("i"), {parse_change("Q/Take->Q/Apply*0.5")});
    for (const QueueNote& note : r.queues) EXPECT_FALSE(note.simulated) << note.consumer;
    EXPECT_NEAR(r.predicted.mean_ms, (1.1 + 0.16 + 0.6) / 3, 1e-9);
}

TEST(Changes, ParseScaleAddAndRemove) {
    const Change scale = parse_change("Haptics/Message*->Haptics/Scene**0.5");
    EXPECT_EQ(scale.from.text(), "Haptics/Message*");
    EXPECT_EQ(scale.to.text(), "Haptics/Scene*");
    EXPECT_DOUBLE_EQ(scale.factor, 0.5);
    EXPECT_EQ(scale.apply(1000), 500);
    const Change add = parse_change("a/b->c/d+2ms");
    EXPECT_EQ(add.delta_ns, 2'000'000);
    const Change remove = parse_change("a/b->c-d/e-300us");
    EXPECT_EQ(remove.to.text(), "c-d/e");
    EXPECT_EQ(remove.delta_ns, -300'000);
    EXPECT_EQ(remove.apply(100'000), 0);  // never below zero
    EXPECT_EQ(parse_change("a/b->c/d-1s").delta_ns, -1'000'000'000);
}

TEST(Changes, MalformedChangesAreRejectedWithTheReason) {
    auto reason = [](const char* text) {
        try {
            parse_change(text);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(reason("a/b*2").find("FROM->TO"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d*0").find("must be > 0"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d*-1").find("must be > 0"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d+2").find("unit"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d*2ms").find("no unit"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d").find("FROM->TO"), std::string::npos);
    EXPECT_NE(reason("ab->c/d+1ms").find("'ab->c/d+1ms'"), std::string::npos);
    EXPECT_NE(reason("a/b->c/d/1.2.3ms").find("number"), std::string::npos);
}

TEST_F(Backlog, ChangesOnAbsentSegmentsOrTracepointsAreErrors) {
    auto reason = [&](const char* text) {
        try {
            what_if(model, run.interval("put to apply"), {parse_change(text)});
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(reason("Q/Nope->Q/Apply+1ms").find("'Q/Nope' matches no tracepoint"), std::string::npos);
    EXPECT_NE(reason("Q/Apply->Q/Put+1ms").find("no segment of the run"), std::string::npos);
    EXPECT_THROW(select_intervals(run.spec, {"nope"}), std::invalid_argument);
}

}  // namespace
}  // namespace hashtrace::critical_path
