// Decodes the Perfetto export with `protoc --decode` against Perfetto's
// published perfetto_trace.proto and reads it back as the trace processor
// would (perfetto_read.hpp): every sample, every edge's flow and every
// critical-path slice must come back, and nothing a reader would drop.
#include "demo_run.hpp"
#include "perfetto_read.hpp"
#include "sample_trace.hpp"

#include "hashtrace/report/build.hpp"
#include "hashtrace/report/trace_export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace hashtrace::report {
namespace {

using test::ReadSample;
using test::ReadSlice;
using test::ReadTrace;
using test::sample_trace;

ReadTrace decode(const TraceModel& m, const TraceOptions& options = {}, std::string* bytes = nullptr) {
    test::TempDir dir;
    {
        std::ofstream out(dir / "trace.pftrace", std::ios::binary);
        write_perfetto_trace(m, out, options);
    }
    if (bytes) *bytes = test::read_file(dir / "trace.pftrace");
    auto t = test::read_perfetto(test::decode_perfetto(dir / "trace.pftrace"));
    EXPECT_THAT(t.errors, ::testing::IsEmpty());
    return t;
}

ReadSample expected(const TraceModel& m, std::uint32_t event) {
    const auto& e = m.events[event];
    const auto& p = m.processes[m.threads[e.thread].process];
    return {std::uint64_t(e.time_ns), p.node + " " + p.instance, m.threads[e.thread].name, m.names[e.name], nullptr};
}

// Every edge, as (earlier, later) sample: Perfetto draws a flow from the earlier event.
std::multiset<std::pair<std::size_t, std::size_t>> edges_of(const TraceModel& m) {
    std::multiset<std::pair<std::size_t, std::size_t>> out;
    for (const auto& f : m.flows) out.emplace(std::min(f.from, f.to), std::max(f.from, f.to));
    return out;
}

// Every critical-path slice the model's layout draws: per path its slice and
// its segments' inside, or the one segment's alone.
std::multiset<ReadSlice> slices_of(const TraceModel& m) {
    const auto layout = layout_critical_paths(m);
    std::multiset<ReadSlice> out;
    for (const auto& p : m.critical_paths) {
        const std::string interval = "critical path: " + m.critical_path_intervals[p.interval];
        const auto last = p.first + p.count - 1;
        const int depth = p.count > 1 ? 1 : 0;
        if (p.count > 1)
            out.insert({interval, "", m.critical_path_intervals[p.interval], std::uint64_t(layout.begin_ns[p.first]),
                        std::uint64_t(layout.end_ns[last]), 0});
        for (auto k = p.first; k <= last; ++k)
            out.insert({interval, "", m.segment_names[m.critical_segments[k].name], std::uint64_t(layout.begin_ns[k]),
                        std::uint64_t(layout.end_ns[k]), depth});
    }
    return out;
}

TEST(PerfettoTrace, EveryPacketIsOnOneSequenceWhoseStateIsDeclaredFresh) {
    const ReadTrace t = decode(sample_trace());
    ASSERT_FALSE(t.packets.empty());
    EXPECT_EQ(t.packets.front()->scalar("sequence_flags"), "1");
    EXPECT_EQ(t.incremental_clock, "64");  // a clock of the sequence (64..127), declared incremental
    for (const auto* p : t.packets) EXPECT_EQ(p->scalar("trusted_packet_sequence_id"), "1");
}

// Every name is sent once, however many events carry it, and an event is
// its delta, type, name and flows: the trace grows by the events alone.
TEST(PerfettoTrace, NamesAreInternedOnceAndTimesAreDeltas) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}};
    m.names = {"SomeLongTracepointName"};
    for (int i = 0; i < 1000; ++i) m.events.push_back({1'700'000'000'000'000'000 + i * 1000, 0, 0, {}, {}, false, false});
    std::string bytes;
    const ReadTrace t = decode(m, {}, &bytes);
    ASSERT_EQ(t.samples.size(), 1000u);
    for (std::size_t i = 0; i < m.events.size(); ++i) EXPECT_EQ(t.samples[i].timestamp, std::uint64_t(m.events[i].time_ns));
    std::size_t copies = 0;
    for (auto at = bytes.find("SomeLongTracepointName"); at != std::string::npos; at = bytes.find("SomeLongTracepointName", at + 1)) ++copies;
    EXPECT_EQ(copies, 1u);
    EXPECT_LT(bytes.size(), 1000u * 13 + 200);  // an instant: 2 framing, 3 delta, 2 sequence, 2 event framing, 2 type, 2 name
}

TEST(PerfettoTrace, OneProcessPerInstanceAndOneThreadTrackPerThread) {
    const ReadTrace t = decode(sample_trace());
    std::set<std::string> tracks;
    for (const auto& s : t.samples) tracks.insert(s.process + "/" + s.thread);
    EXPECT_THAT(tracks, ::testing::ElementsAre("Chai 1a2b/main", "Chai 1a2b/net", "Unity 3c4d/render"));
}

TEST(PerfettoTrace, EverySampleIsAnInstantOnItsThreadsTrackInTimeOrder) {
    const auto m = sample_trace();
    const ReadTrace t = decode(m);
    ASSERT_EQ(t.samples.size(), m.events.size());
    for (std::size_t i = 0; i < m.events.size(); ++i) EXPECT_EQ(t.samples[i], expected(m, i)) << i;
    EXPECT_TRUE(t.samples[1].event->children("debug_annotations").empty());  // hashes only when asked for
}

TEST(PerfettoTrace, EventsOnTheBusiestThreadLeaveTheirTrackToTheDefault) {
    const auto m = sample_trace();
    const ReadTrace t = decode(m);
    EXPECT_EQ(t.default_track, "1");  // Chai main and net have two samples each: the first of them
    std::size_t without = 0;
    for (const auto& s : t.samples) without += !s.event->has("track_uuid");
    EXPECT_EQ(without, 2u);
}

TEST(PerfettoTrace, TheOutputHashAndAnInputHashNoFlowBringsAreAnnotations) {
    auto m = sample_trace();
    m.events.push_back({m.events.back().time_ns + 10, 2, 3, test::hash_of_byte(9), {}, true, false});  // 6: an input that linked nothing
    m.events.push_back({m.events.back().time_ns + 10, 2, 2, test::hash_of_byte(8), {}, true, false});  // 7: consumer of 8,
    m.events.push_back({m.events.back().time_ns + 10, 0, 1, test::hash_of_byte(7), test::hash_of_byte(8), true, true});  // recorded before it
    m.flows.push_back({8, 7});  // an edge back in time: 8's own input came by no flow
    const ReadTrace t = decode(m, {.hashes = true});
    const auto annotations = [&](std::size_t i) {
        std::map<std::string, std::string> out;
        for (const auto* a : t.samples[i].event->children("debug_annotations"))
            out[t.annotation_names.at(a->scalar("name_iid"))] = a->scalar("string_value");
        return out;
    };
    using Map = std::map<std::string, std::string>;
    EXPECT_EQ(annotations(0), (Map{{"output_hash", "01010101010101010101010101010101"}}));
    EXPECT_EQ(annotations(1), (Map{{"output_hash", "02020202020202020202020202020202"}}));  // its input is sample 0's output
    EXPECT_EQ(annotations(5), Map{});
    EXPECT_EQ(annotations(6), (Map{{"input_hash", "09090909090909090909090909090909"}}));
    EXPECT_EQ(annotations(7), Map{});
    EXPECT_EQ(annotations(8), (Map{{"input_hash", "07070707070707070707070707070707"}, {"output_hash", "08080808080808080808080808080808"}}));
}

TEST(PerfettoTrace, EveryEdgeIsAFlowFromProducerToConsumer) {
    const auto m = sample_trace();  // fan-out from 0, fan-in at 5, cross-thread and cross-process
    const ReadTrace t = decode(m);
    EXPECT_EQ(std::multiset(t.flows.begin(), t.flows.end()), edges_of(m));
    EXPECT_EQ(t.flows.size(), m.flows.size());
}

// A chain of samples lists one flow id each (the incoming flow continues as
// the outgoing one), and ids are reused once their flows end.
TEST(PerfettoTrace, FlowIdsStaySmallAndAChainListsOneIdASample) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}, {0, "u"}};
    m.names = {"x"};
    for (std::uint32_t i = 0; i < 400; ++i) m.events.push_back({1000 + i * 10, i % 2, 0, {}, {}, false, false});
    for (std::uint32_t i = 0; i + 1 < 200; ++i) m.flows.push_back({i, i + 1});              // one chain
    for (std::uint32_t i = 200; i + 2 < 400; i += 3) m.flows.push_back({i, i + 2});          // short flows, one after the other
    const ReadTrace t = decode(m);
    EXPECT_EQ(std::multiset(t.flows.begin(), t.flows.end()), edges_of(m));
    std::set<std::string> ids;
    for (std::size_t i = 0; i < t.samples.size(); ++i) {
        const auto* e = t.samples[i].event;
        for (const auto& id : e->all("flow_ids_old")) ids.insert(id);
        if (i > 0 && i + 1 < 200) {
            EXPECT_EQ(e->all("flow_ids_old").size() + e->all("terminating_flow_ids_old").size(), 1u) << i;
        }
    }
    EXPECT_EQ(ids, (std::set<std::string>{"1"}));
}

// An edge that ends before it starts (clock error) still joins its two samples.
TEST(PerfettoTrace, ABackwardEdgeIsAFlowBetweenTheSameSamples) {
    TraceModel m;
    m.processes = {{"A", "1"}, {"B", "1"}};
    m.threads = {{0, "t"}, {1, "t"}};
    m.names = {"x"};
    m.events = {{10, 0, 0, {}, {}, false, false}, {20, 1, 0, {}, {}, false, false}, {30, 0, 0, {}, {}, false, false}};
    m.flows = {{2, 1}, {0, 1}};
    const ReadTrace t = decode(m);
    EXPECT_EQ(std::multiset(t.flows.begin(), t.flows.end()), edges_of(m));
}

TEST(PerfettoTrace, SamplesAtOneTimeOnOneThreadKeepTheirFlows) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}};
    m.names = {"x"};
    m.events = {{10, 0, 0, {}, {}, false, false}, {10, 0, 0, {}, {}, false, false}};
    m.flows = {{0, 1}};
    const ReadTrace t = decode(m);
    ASSERT_EQ(t.samples.size(), 2u);
    EXPECT_EQ(t.flows, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}}));
}

TEST(PerfettoTrace, EveryCriticalPathIsASliceOnALaneOfItsIntervalsTrack) {
    const auto m = test::sample_trace_with_critical_paths();
    const ReadTrace t = decode(m);
    EXPECT_EQ(t.samples.size(), m.events.size());  // the samples' tracks are unchanged
    std::multiset<ReadSlice> read(t.slices.begin(), t.slices.end());
    EXPECT_EQ(read, slices_of(m));
    // Instances of one interval that overlap in time go on lanes of its track.
    EXPECT_EQ(t.lanes.at("critical path: end to end"), (std::vector<std::string>{"lane 1", "lane 2"}));
    EXPECT_EQ(t.lanes.at("critical path: send"), (std::vector<std::string>{"lane 1", "lane 2"}));
    for (const auto& s : t.slices) EXPECT_LE(s.begin, s.end);
}

// The three ways to the same trace: from a model, from the run with its
// paths found first, from the run with each path found as the writing reaches it.
TEST(PerfettoTrace, AModelAndTheRunItWasBuiltFromWriteTheSameTrace) {
    const auto run = test::demo_run();
    TraceCriticalPaths paths;
    const auto marked = find_trace_critical_paths(run.samples, run.graph, run.spec, paths);
    ASSERT_FALSE(paths.paths.empty());
    auto model = build_trace_model(run.samples, run.graph);
    add_critical_paths(model, run.samples, run.graph, run.spec);
    std::ostringstream from_model, from_run;
    write_perfetto_trace(model, from_model, {.hashes = true});
    const auto tracks = write_perfetto_trace(run.samples, run.graph, &paths, from_run, {.hashes = true});
    EXPECT_EQ(from_model.str(), from_run.str());
    EXPECT_EQ(tracks.processes, model.processes.size());
    EXPECT_EQ(tracks.threads, model.threads.size());

    // The instances found a stretch of the run at a time: the whole run, and stretches of a few samples.
    for (const std::size_t stretch : {CriticalPathStream::kStretch, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
        std::ostringstream streamed;
        CriticalPathStream found(run.samples, run.graph, run.spec, stretch);
        write_perfetto_trace(run.samples, run.graph, found, streamed, {.hashes = true});
        EXPECT_EQ(streamed.str(), from_run.str()) << "stretches of " << stretch;
        EXPECT_EQ(found.marked().instances, marked.instances);
        EXPECT_EQ(found.marked().segments, marked.segments);
        EXPECT_EQ(found.marked().intervals, marked.intervals);
        EXPECT_EQ(found.marked().not_followed, marked.not_followed);
    }
}

TEST(PerfettoTrace, EmptyModelDecodesAsATraceWithoutEvents) {
    const ReadTrace t = decode(TraceModel{});
    EXPECT_EQ(t.packets.size(), 1u);  // the sequence's first packet: its state and clocks
    EXPECT_TRUE(t.samples.empty());
}

TEST(PerfettoTrace, ATraceTooLargeForABrowserIsToldWithARangeThatFits) {
    EXPECT_EQ(too_large_for_a_browser("t.pftrace", 900'000'000, 100), "");
    const auto warning = too_large_for_a_browser("t.pftrace", 3'000'000'000, 600);
    EXPECT_THAT(warning, ::testing::HasSubstr("t.pftrace is 3.0 GB"));
    EXPECT_THAT(warning, ::testing::HasSubstr("about 180 s of the run's 600 s"));  // a tenth short of 1 GB's 200 s
    EXPECT_THAT(warning, ::testing::HasSubstr("--since T --until T+180"));
}

}  // namespace
}  // namespace hashtrace::report
