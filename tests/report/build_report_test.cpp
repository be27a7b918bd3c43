#include "demo_run.hpp"

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/system_picture.hpp"
#include "hashtrace/report/build.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace hashtrace::report {
namespace {

using test::demo_run;
using test::kDemoMessages;

constexpr int kSent = kDemoMessages - 5;

TEST(IntervalObservations, AgreeWithTheMetricsOfTheSameRun) {
    const auto run = demo_run();
    ASSERT_EQ(run.result.intervals.size(), 2u);
    for (std::size_t i = 0; i < run.spec.intervals.size(); ++i) {
        SCOPED_TRACE(run.spec.intervals[i].name);
        const auto obs = interval_observations(run.samples, run.graph, run.spec.intervals[i]);
        std::vector<double> ours, theirs = run.result.intervals[i].values_ms;
        for (const auto& o : obs) ours.push_back(o.ms);
        std::sort(ours.begin(), ours.end());
        std::sort(theirs.begin(), theirs.end());
        EXPECT_EQ(ours.size(), std::size_t(kSent));
        EXPECT_EQ(ours, theirs);
        for (const auto& o : obs) {
            EXPECT_EQ(run.samples.label(o.from), "Chai/ForceComputed");
            EXPECT_DOUBLE_EQ(o.ms, double(run.samples.time_ns[o.to] - run.samples.time_ns[o.from]) / 1e6);
        }
    }
}

TEST(AssignLanes, OneLanePerInstanceAndThread) {
    const auto run = demo_run();
    const auto lanes = assign_lanes(run.samples);
    ASSERT_EQ(lanes.lanes.size(), 3u);
    EXPECT_EQ(lanes.lanes[0].label, "Chai 1a t0");
    EXPECT_EQ(lanes.lanes[1].label, "Chai 1a t1");
    EXPECT_EQ(lanes.lanes[2].label, "Unity 2b t0");
    for (graph::SampleIndex v = 0; v < run.samples.size(); ++v) {
        const auto& lane = lanes.lanes[lanes.of_sample[v]];
        EXPECT_EQ(lane.node, run.samples.tracepoint_of(v).node_name);
        EXPECT_EQ(*lane.thread, run.samples.thread[v]);
    }
}

TEST(BuildReport, HealthCountsSamplesAndUnlinkedInputsPerInstance) {
    const auto run = demo_run();
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, {});
    EXPECT_EQ(d.health.samples, std::uint64_t(4 * kSent + 1));
    ASSERT_EQ(d.health.nodes.size(), 2u);
    EXPECT_EQ(d.health.nodes[0].node, "Chai");
    EXPECT_EQ(d.health.nodes[0].samples, std::uint64_t(2 * kSent));
    EXPECT_EQ(d.health.nodes[0].unlinked_inputs, std::uint64_t(kSent));  // ForceComputed's loop input has no producer
    EXPECT_EQ(d.health.nodes[1].unlinked_inputs, 1u);
    EXPECT_FALSE(d.health.nodes[1].clock_error_ms.has_value());
}

TEST(BuildReport, ShowsTheClockErrorOfNodesWhoseClockIsKnown) {
    auto run = demo_run();
    run.result.extra.push_back({"clock_sync", "Clock synchronisation", {},
                                R"({"corrected":false,"clocks":[],"nodes":[{"node":"Chai","error_bound_ns":null},)"
                                R"({"node":"Unity","error_bound_ns":250000}]})"});
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, {});
    EXPECT_FALSE(d.health.nodes[0].clock_error_ms.has_value());  // Chai: unknown
    EXPECT_EQ(d.health.nodes[1].clock_error_ms, 0.25);
}

TEST(ClockError, RejectsAMalformedClockSection) {
    metrics::AnalysisResult result;
    result.extra.push_back({"clock_sync", "", {}, R"({"nodes":[{"node":"A"}]})"});
    EXPECT_THROW(clock_error_ms_by_node(result), std::invalid_argument);
    result.extra.back().key = "something_else";  // other sections are not ours to read
    EXPECT_TRUE(clock_error_ms_by_node(result).empty());
}

TEST(BuildReport, IntervalChartsHoldEveryObservation) {
    const auto run = demo_run();
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, {});
    ASSERT_EQ(d.intervals.size(), 2u);
    const auto& e2e = d.intervals[0];
    EXPECT_EQ(e2e.kind, "end_to_end");
    EXPECT_EQ(e2e.summary.count, std::uint64_t(kSent));
    const auto& counts = e2e.histogram.counts;
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), std::uint64_t(kSent));
    std::uint64_t binned = 0;
    for (const auto& b : e2e.over_time.bins) binned += b.count;
    EXPECT_EQ(binned, std::uint64_t(kSent));
    EXPECT_DOUBLE_EQ(e2e.summary.max, 8.2);  // 0.2 + 5 + 3 ms
}

TEST(BuildReport, SlowestMessagesComeWithRoutesFromSourceToTarget) {
    const auto run = demo_run();
    ReportOptions options;
    options.top_k = 3;
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    ASSERT_EQ(d.slowest.size(), 3u);
    for (const auto& m : d.slowest) {
        EXPECT_EQ(m.interval, "force to render");
        EXPECT_DOUBLE_EQ(m.latency_ms, 8.2);
        const auto& route = d.routes.at(m.route);
        ASSERT_EQ(route.samples.size(), 4u);  // ForceComputed -> MessageSent -> MessageReceived -> Rendered
        EXPECT_EQ(route.samples[route.origin].label, "Chai/ForceComputed");
        EXPECT_DOUBLE_EQ(route.samples[route.origin].t_s, m.t_s);
        EXPECT_EQ(route.edges.size(), 3u);
        EXPECT_EQ(route.samples.back().label, "Unity/Rendered");
    }
}

TEST(BuildReport, ARouteLeavesOutBranchesThatDoNotReachTheSlowSample) {
    // A logger also receives every message: the routes of the slowest messages
    // must still be the 4-sample chain, without the branch to the logger.
    auto logs = test::demo_logs();
    std::string logger = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n";
    for (int i = 0; i < kDemoMessages; ++i)
        if (!test::demo_paused(i))
            logger += "Logger,3c,Logged,messageid,," + test::time_text(test::kDemoStart + i * test::kDemoPeriod + 300'000) + "," +
                      test::hex_id(3, i) + ",\n";
    logs.emplace_back("logger.csv", logger);
    graph::LoadOptions load;
    load.keep_hash_values = true;
    const auto samples = graph::load_samples_from_memory(logs, load);
    const auto spec = graph::parse_spec(test::kDemoSpec, "demo.toml");
    const auto g = graph::link(samples, spec);
    const auto result = metrics::analyze(samples, g, spec);
    ReportOptions options;
    options.top_k = 2;
    const auto d = build_report(samples, g, spec, result, options);
    ASSERT_EQ(d.slowest.size(), 2u);
    for (const auto& m : d.slowest) {
        const auto& route = d.routes.at(m.route);
        EXPECT_EQ(route.samples.size(), 4u);
        for (const auto& sample : route.samples) EXPECT_NE(sample.label, "Logger/Logged");
    }
    // The whole route of a sample would include it.
    const auto full = graph::trace_route(samples, g, graph::SampleIndex(0));
    bool logged = false;
    for (auto v : full.samples) logged |= samples.label(v) == "Logger/Logged";
    EXPECT_TRUE(logged);
}

TEST(BuildReport, WithoutIntervalsTheLongestMessageEdgesAreListed) {
    auto run = demo_run();
    run.spec.intervals.clear();
    run.result = metrics::analyze(run.samples, run.graph, run.spec);
    ReportOptions options;
    options.top_k = 2;
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    ASSERT_EQ(d.slowest.size(), 2u);
    EXPECT_EQ(d.slowest[0].interval, "message edge");
    EXPECT_EQ(d.slowest[0].from, "Chai/MessageSent");
    EXPECT_DOUBLE_EQ(d.slowest[0].latency_ms, 5.0);
}

TEST(BuildReport, SpaceTimeOpensInFullDetailAroundTheSlowestMessage) {
    const auto run = demo_run();
    ReportOptions options;
    options.max_ticks = 100;
    options.max_edges = 20;
    options.density_bins = 50;
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    const auto& st = d.space_time;
    ASSERT_TRUE(st.detail_window.has_value());
    EXPECT_LE(st.detail_window->first, d.slowest.front().t_s);
    EXPECT_GE(st.detail_window->second, d.slowest.front().t_s);
    EXPECT_EQ(st.ticks.size(), 25u);  // max_ticks / 4 samples around it, all of them
    ASSERT_TRUE(st.open_window.has_value());  // opens on the message, inside the detail window
    EXPECT_DOUBLE_EQ(st.open_window->first, std::max(st.detail_window->first, d.slowest.front().t_s - 0.0082));
    EXPECT_LE(st.open_window->second, st.detail_window->second);
    for (const auto& [lane, t] : st.ticks) {
        EXPECT_GE(t, st.detail_window->first);
        EXPECT_LE(t, st.detail_window->second);
    }
    EXPECT_EQ(st.ticks_total, run.samples.size());
    EXPECT_EQ(st.edges.size(), 20u);
    EXPECT_EQ(st.edges_total, run.result.message_edges);
    std::uint64_t dense = 0;
    for (const auto& lane : st.density) dense += std::accumulate(lane.begin(), lane.end(), std::uint64_t{0});
    EXPECT_EQ(dense, run.samples.size());
    for (const auto& e : st.edges) EXPECT_LE(e.from_s, e.to_s);
}

TEST(BuildReport, WithoutAWindowTicksAreAnEvenSampleOfTheRun) {
    const auto run = demo_run();
    ReportOptions options;
    options.max_ticks = 100;
    options.top_k = 0;  // no slowest message to open on
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    EXPECT_FALSE(d.space_time.detail_window.has_value());
    EXPECT_EQ(d.space_time.ticks.size(), 100u);
    EXPECT_DOUBLE_EQ(d.space_time.ticks.front().second, 0.0);
}

TEST(BuildReport, ADetailWindowEmbedsAllOfItsSamples) {
    const auto run = demo_run();
    ReportOptions options;
    options.max_ticks = 100;
    options.detail_window_ns = std::pair{test::kDemoStart + 50 * test::kDemoPeriod, test::kDemoStart + 60 * test::kDemoPeriod - 1};
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    ASSERT_TRUE(d.space_time.detail_window.has_value());
    EXPECT_EQ(d.space_time.ticks.size(), 40u);  // 10 messages x 4 samples
    EXPECT_DOUBLE_EQ(d.space_time.detail_window->first, 0.5);
    EXPECT_EQ(d.space_time.open_window, d.space_time.detail_window);
    // A window holding more than the cap falls back to the whole run.
    options.max_ticks = 10;
    EXPECT_FALSE(build_report(run.samples, run.graph, run.spec, run.result, options).space_time.detail_window);
}

TEST(BuildReport, IdleGapsFlagNodesPausingTogether) {
    const auto run = demo_run();
    ReportOptions options;
    options.idle_threshold_ms = 30;
    const auto d = build_report(run.samples, run.graph, run.spec, run.result, options);
    ASSERT_EQ(d.idle_gaps.gaps.size(), 2u);  // Chai and Unity, during messages 100..104
    for (const auto& g : d.idle_gaps.gaps) {
        EXPECT_EQ(g.concurrent, 2u);
        EXPECT_GT(g.duration_ms, 50);
        EXPECT_LT(g.duration_ms, 61);
    }
}

TEST(ComparisonReport, PutsEachRunsTablesSideBySide) {
    const auto a = demo_run();
    auto b = demo_run();
    b.spec.intervals.pop_back();  // run B lacks the "send" interval
    b.result = metrics::analyze(b.samples, b.graph, b.spec);
    const std::vector<metrics::NamedRun> runs = {{"A", a.result}, {"B", b.result}};
    const auto d = comparison_report("A vs B", runs);
    EXPECT_TRUE(d.comparison);
    ASSERT_EQ(d.runs.size(), 2u);
    EXPECT_EQ(d.runs[0].name, "A");
    EXPECT_EQ(d.runs[0].intervals.size(), 2u);
    EXPECT_EQ(d.runs[1].intervals.size(), 1u);
    EXPECT_EQ(d.runs[1].intervals[0].latency.count, std::uint64_t(kSent));
    EXPECT_TRUE(d.space_time.lanes.empty());
}

TEST(CriticalPathSection, HoldsTheCriticalPathLibrarysFiguresForEveryInterval) {
    const auto run = demo_run();
    const auto section = critical_path_section(run.samples, run.graph, run.spec, 1);
    const critical_path::DependenceModel model(run.samples, run.graph);
    const auto paths = critical_path::critical_paths(model, critical_path::select_intervals(run.spec, {}), {1});
    ASSERT_EQ(section.size(), 2u);
    ASSERT_EQ(paths.size(), 2u);
    for (std::size_t i = 0; i < paths.size(); ++i) {
        SCOPED_TRACE(paths[i].name);
        EXPECT_EQ(section[i].interval, paths[i].name);
        EXPECT_EQ(section[i].count, paths[i].count);
        EXPECT_EQ(section[i].mean_ms, paths[i].mean_ms);
        EXPECT_EQ(section[i].p99_ms, paths[i].p99_ms);
        ASSERT_EQ(section[i].segments.size(), paths[i].segments.size());
        for (std::size_t k = 0; k < paths[i].segments.size(); ++k) {
            const auto& ours = section[i].segments[k];
            const auto& theirs = paths[i].segments[k];
            EXPECT_EQ(ours.from + ours.to + ours.kind, theirs.from + theirs.to + std::string(critical_path::to_string(theirs.kind)));
            EXPECT_EQ(ours.share, theirs.share);
            EXPECT_EQ(ours.p95_ms, theirs.p95_ms);
            EXPECT_EQ(ours.slack_ms, theirs.slack_ms);
        }
    }
    // Force to render: Chai's queue to its network thread (0.2 ms), the
    // message (1 ms, every 10th 5 ms), Unity's rendering (3 ms); the p99
    // instance is one of the slow messages, the median one is not.
    const auto& render = section[0];
    EXPECT_EQ(render.count, std::uint64_t(kSent));
    ASSERT_EQ(render.segments.size(), 3u);
    EXPECT_EQ(render.segments[0].from + " " + render.segments[0].kind, "Unity/MessageReceived local");
    EXPECT_NEAR(render.segments[0].mean_ms, 3.0, 1e-9);
    const auto& message = render.segments[1];
    EXPECT_EQ(message.kind, "message");
    EXPECT_NEAR(message.p50_ms, 1.0, 1e-9);
    EXPECT_NEAR(message.p99_ms, 5.0, 1e-9);
    EXPECT_NEAR(message.on_path_fraction, 1.0, 1e-12);
    EXPECT_EQ(render.segments[2].kind, "queue");
    EXPECT_NEAR(render.segments[2].mean_ms, 0.2, 1e-9);
}

TEST(CriticalPathSection, IsEmptyWithoutIntervals) {
    auto run = demo_run();
    run.spec.intervals.clear();
    EXPECT_TRUE(critical_path_section(run.samples, run.graph, run.spec).empty());
}

TEST(SystemSection, DrawsTheInferredSystemFromSourceToSink) {
    const auto run = demo_run();
    const auto specless = graph::link(run.samples, graph::AnalysisSpec{});
    const auto evidence = infer::gather_evidence(run.samples, specless);
    const auto d = system_section(evidence);
    const auto picture = infer::system_picture(evidence, infer::recover_chains(evidence));
    ASSERT_EQ(d.nodes.size(), 2u);
    EXPECT_EQ(d.nodes[0].name, "Chai");
    std::vector<std::pair<std::string, std::uint32_t>> depths;
    for (const auto& node : d.nodes)
        for (const auto& tp : node.tracepoints) depths.emplace_back(tp.selector, tp.depth);
    EXPECT_EQ(depths, (std::vector<std::pair<std::string, std::uint32_t>>{
                          {"Chai/ForceComputed", 0}, {"Chai/MessageSent", 1}, {"Unity/MessageReceived", 2}, {"Unity/Rendered", 3}}));
    EXPECT_TRUE(d.nodes[0].tracepoints[0].source);
    EXPECT_TRUE(d.nodes[1].tracepoints[1].sink);
    EXPECT_EQ(d.depths, 4u);
    ASSERT_EQ(d.edges.size(), picture.edges.size());
    ASSERT_EQ(d.edges.size(), 3u);
    for (std::size_t i = 0; i < d.edges.size(); ++i) {
        EXPECT_EQ(d.edges[i].from, picture.edges[i].from);
        EXPECT_EQ(d.edges[i].to, picture.edges[i].to);
        EXPECT_EQ(d.edges[i].rate_per_s, picture.edges[i].rate_per_s);
        EXPECT_FALSE(d.edges[i].suspect);
        EXPECT_EQ(d.edges[i].verdict, "kept");
    }
    EXPECT_EQ(d.links, evidence.links);
    EXPECT_EQ(d.links_a_spec_removes, evidence.links_a_spec_removes());
}

TEST(BuildTraceModel, EveryEdgeBecomesAFlowBetweenItsSamples) {
    const auto run = demo_run();
    const auto m = build_trace_model(run.samples, run.graph);
    EXPECT_NO_THROW(check_trace_model(m));
    ASSERT_EQ(m.processes.size(), 2u);
    EXPECT_EQ(m.processes[1].node, "Unity");
    ASSERT_EQ(m.threads.size(), 3u);
    EXPECT_EQ(m.threads[1].process, 0u);
    EXPECT_EQ(m.threads[1].name, "thread 1");
    ASSERT_EQ(m.events.size(), run.samples.size());
    ASSERT_EQ(m.flows.size(), run.graph.edges.size());
    EXPECT_EQ(count_backward_flows(m), 0u);
    for (std::size_t i = 0; i < m.flows.size(); ++i) {
        EXPECT_EQ(m.flows[i].from, run.graph.edges[i].from);
        EXPECT_EQ(m.flows[i].to, run.graph.edges[i].to);
    }
    // Hashes come through as the logs wrote them.
    const auto& first = m.events[0];
    EXPECT_EQ(m.names[first.name], "ForceComputed");
    ASSERT_TRUE(first.has_output);
    EXPECT_EQ(std::string(to_hex(first.output_hash).data(), 32), test::hex_id(2, 0));
}

}  // namespace
}  // namespace hashtrace::report
