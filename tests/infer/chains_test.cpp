// The kept pairs as a system: sources, sinks, routes and the intervals along them.
#include "systems.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace hashtrace::infer::testing {
namespace {

std::vector<std::string> names(const Evidence& ev, const std::vector<ClassId>& ids) {
    std::vector<std::string> out;
    for (const auto c : ids) out.push_back(ev.classes[c].selector());
    return out;
}

// The run linked as its inferred spec links it (one thread).
graph::Graph linked_by_spec(const Inferred& r) {
    graph::LinkOptions one;
    one.threads = 1;
    return graph::link(r.samples, r.spec, one);
}

bool has_interval(const Inferred& r, const std::vector<ProposedInterval>& intervals, const char* from, const char* to) {
    return std::any_of(intervals.begin(), intervals.end(), [&](const ProposedInterval& i) {
        return r.evidence.classes[i.from].selector() == from && r.evidence.classes[i.to].selector() == to;
    });
}

TEST(InferChains, RouterPipelineHasOneSourceTwoSinksAndAFanOut) {
    const auto r = infer_from(router_pipeline(300));
    EXPECT_EQ(names(r.evidence, r.chains.sources), std::vector<std::string>{"Sender/Create"});
    EXPECT_EQ(names(r.evidence, r.chains.sinks), (std::vector<std::string>{"A/Apply", "B/Apply"}));
    EXPECT_EQ(names(r.evidence, r.chains.fan_out), std::vector<std::string>{"Router/Forward"});
    EXPECT_TRUE(r.chains.fan_in.empty());
    ASSERT_EQ(r.chains.routes.size(), 2u);
    EXPECT_EQ(names(r.evidence, r.chains.routes[0].path),
              (std::vector<std::string>{"Sender/Create", "Sender/Send", "Router/Receive", "Router/Forward", "A/Receive", "A/Apply"}));
    EXPECT_EQ(r.chains.routes[0].bottleneck, 300u);
}

TEST(InferChains, IntervalsAreTheLinksAndEndToEndOrEveryPairAlongARoute) {
    const auto consecutive = infer_from(router_pipeline(300));
    // 7 distinct links on the two routes, and one end-to-end interval per sink.
    ASSERT_EQ(consecutive.intervals.size(), 9u);
    EXPECT_EQ(consecutive.intervals[0].name, "Sender Create to Send");
    EXPECT_EQ(consecutive.intervals[0].kind, graph::IntervalKind::process);
    EXPECT_EQ(consecutive.intervals[1].name, "Sender/Send to Router/Receive");
    EXPECT_EQ(consecutive.intervals[1].kind, graph::IntervalKind::end_to_end);
    EXPECT_EQ(consecutive.intervals[7].why, "end to end");
    // Every ordered pair along the two routes of six, which share four: 15 + 15 - 6.
    const auto all = infer_from(router_pipeline(300), true);
    EXPECT_EQ(all.intervals.size(), 24u);
    EXPECT_EQ(all.spec.intervals.size(), 24u);
}

TEST(InferChains, EachBranchOfAFanOutGetsARouteAndItsIntervals) {
    const auto r = infer_from(fan_out_to_two_workers(600), true);
    EXPECT_EQ(names(r.evidence, r.chains.fan_out), std::vector<std::string>{"Detector/FrameQueued"});
    EXPECT_EQ(names(r.evidence, r.chains.fan_in), std::vector<std::string>{"Detector/ResultSent"});
    // The main route takes one worker; a branch route the other, from the same source to the same sink.
    ASSERT_EQ(r.chains.routes.size(), 2u);
    std::set<std::string> workers;
    for (const auto& route : r.chains.routes) {
        EXPECT_EQ(r.evidence.classes[route.source].selector(), "Camera/FrameSent");
        EXPECT_EQ(r.evidence.classes[route.sink].selector(), "Tracker/Tracked");
        for (const auto& name : names(r.evidence, route.path))
            if (name.find("Started") != std::string::npos) workers.insert(name);
    }
    EXPECT_EQ(workers, (std::set<std::string>{"Detector/Worker1Started", "Detector/Worker2Started"}));
    // Every kept pair is an interval, and each queue wait is one.
    auto has = [&](const char* from, const char* to) { return has_interval(r, r.intervals, from, to); };
    for (const auto i : r.evidence.kept()) {
        const auto& p = r.evidence.pairs[i];
        EXPECT_TRUE(has(r.evidence.classes[p.from].selector().c_str(), r.evidence.classes[p.to].selector().c_str()));
    }
    EXPECT_TRUE(has("Detector/FrameReceived", "Detector/Worker1Started"));
    EXPECT_TRUE(has("Detector/FrameReceived", "Detector/Worker2Started"));
    // Without --all-intervals, still one per kept pair, not only the main route's.
    const auto links_only = infer_from(fan_out_to_two_workers(600), false);
    EXPECT_EQ(links_only.intervals.size(), links_only.evidence.kept().size() + 1);  // and source to sink
}

TEST(InferChains, ALoopThatFeedsItselfIsStillASource) {
    SystemLogs logs;
    const Tp loop{"L", "1", "Loop", "loop", "loop"}, make{"L", "1", "Make", "loop", "msg"}, use{"M", "1", "Use", "msg", ""};
    for (int i = 0; i < 500; ++i) {
        const std::int64_t t = kStart + i * kMs;
        logs.add(loop, t, value(i % 50), value((i + 1) % 50));
        logs.add(make, t + 100'000, value((i + 1) % 50), value(i, 1));
        logs.add(use, t + 300'000, value(i, 1), "");
    }
    const auto r = infer_from(logs);
    EXPECT_EQ(find_pair(r.evidence, "L/Loop", "L/Loop")->verdict, Verdict::kept);
    EXPECT_EQ(names(r.evidence, r.chains.sources), std::vector<std::string>{"L/Loop"});
    EXPECT_EQ(names(r.evidence, r.chains.sinks), std::vector<std::string>{"M/Use"});
}

TEST(InferChains, IntervalsAlongRoutesNoSampleFollowsAreDropped) {
    // Two senders share a router; each one's messages go to its own receiver
    // only. Tracepoint by tracepoint, S1 reaches R2 through the router; no message does.
    SystemLogs logs;
    const Tp in{"Router", "1", "In", "msg", "msg"}, out{"Router", "1", "Out", "msg", "msg"};
    Jitter jitter;
    for (int i = 0; i < 300; ++i) {
        for (int k = 1; k <= 2; ++k) {
            const std::int64_t t = kStart + i * kMs + k * 300'000;
            const std::int64_t at_in = t + 50'000 + jitter(20'000), at_out = at_in + 40'000 + jitter(20'000);
            const auto m = value(i, k);
            const std::string me = std::to_string(k);
            logs.add({"S" + me, "1", "Send", "", "msg"}, t, "", m);
            logs.add(in, at_in, m, m);
            logs.add(out, at_out, m, m);
            logs.add({"R" + me, "1", "Receive", "msg", ""}, at_out + 60'000 + jitter(20'000), m, "");
        }
    }
    const auto r = infer_from(logs);
    const auto linked = linked_by_spec(r);
    auto intervals = r.intervals;
    auto has = [&](const char* from, const char* to) { return has_interval(r, intervals, from, to); };
    ASSERT_TRUE(has("S1/Send", "R2/Receive")) << write_report(r.evidence, r.chains);
    EXPECT_EQ(keep_followed_intervals(r.samples, linked, r.evidence, intervals), 2u);
    EXPECT_FALSE(has("S1/Send", "R2/Receive"));
    EXPECT_FALSE(has("S2/Send", "R1/Receive"));
    EXPECT_TRUE(has("S1/Send", "R1/Receive"));
    EXPECT_TRUE(has("Router/Out", "R2/Receive"));
}

// A queue hands frames to two workers strictly in turn (as a slow build of
// the combined system's detector did). Starts taken at a fixed stride (every
// 16th of 1024 frames for 64 starts) would all be one worker's, and the other
// worker's intervals would be dropped as followed by no sample.
TEST(InferChains, TheStartsSearchedDoNotAliasWithAStrictAlternation) {
    SystemLogs logs;
    const Tp sent{"Camera", "c1", "Sent", "", "frame"}, queued{"Detector", "d1", "Queued", "frame", "frame"};
    const Tp started[] = {{"Detector", "d1", "Worker1Started", "frame", "frame"}, {"Detector", "d1", "Worker2Started", "frame", "frame"}};
    const Tp done[] = {{"Detector", "d1", "Worker1Done", "frame", ""}, {"Detector", "d1", "Worker2Done", "frame", ""}};
    for (int i = 0; i < 1024; ++i) {
        const auto f = value(static_cast<std::uint64_t>(i), 1);
        const std::int64_t t = kStart + i * kMs;
        const int w = i % 2;
        logs.add(sent, t, "", f, 0);
        logs.add(queued, t + 100'000, f, f, 1);
        logs.add(started[w], t + 200'000, f, f, 2 + w);
        logs.add(done[w], t + 1'200'000, f, "", 2 + w);
    }
    const auto r = infer_from(logs, true);
    const auto linked = linked_by_spec(r);
    auto intervals = r.intervals;
    auto has = [&](const char* from, const char* to) { return has_interval(r, intervals, from, to); };
    ASSERT_TRUE(has("Detector/Queued", "Detector/Worker1Started") && has("Detector/Queued", "Detector/Worker2Started"));
    EXPECT_EQ(keep_followed_intervals(r.samples, linked, r.evidence, intervals), 0u);
    for (const char* worker : {"Detector/Worker1Started", "Detector/Worker2Started"}) {
        EXPECT_TRUE(has("Detector/Queued", worker)) << worker;
        EXPECT_TRUE(has("Camera/Sent", worker)) << worker;
    }
}

}  // namespace
}  // namespace hashtrace::infer::testing
