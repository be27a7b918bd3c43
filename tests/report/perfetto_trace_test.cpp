// Decodes the Perfetto export with `protoc --decode` against
// perfetto_trace.proto (Perfetto's field numbers) and checks the tracks, the
// slices and that every edge became a flow with the right ends.
#include "proto_text.hpp"
#include "run_command.hpp"
#include "sample_trace.hpp"

#include "hashtrace/report/trace_export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace hashtrace::report {
namespace {

using test::ProtoNode;
using test::sample_trace;

ProtoNode decode(const TraceModel& m, const TraceOptions& options = {}, std::string* bytes = nullptr) {
    test::TempDir dir;
    {
        std::ofstream out(dir / "trace.pftrace", std::ios::binary);
        write_perfetto_trace(m, out, options);
    }
    if (bytes) *bytes = test::read_file(dir / "trace.pftrace");
    const std::filesystem::path proto = HASHTRACE_TEST_PERFETTO_PROTO;
    // --decode prints fields it does not know by number: fail on any.
    const auto result = test::run_command(std::string(HASHTRACE_TEST_PROTOC) + " --decode=perfetto.protos.Trace -I" +
                                          test::shell_quote(proto.parent_path().string()) + " " +
                                          test::shell_quote(proto.filename().string()) + " < " +
                                          test::shell_quote((dir / "trace.pftrace").string()) + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.out;
    EXPECT_THAT(result.out, ::testing::Not(::testing::ContainsRegex("(^|\\s)[0-9]+: ")));
    return test::parse_proto_text(result.out);
}

struct Track {
    std::string process, thread;
};

struct Shown {
    std::uint64_t timestamp;
    std::string process, thread, name;
    bool operator==(const Shown&) const = default;
};

// An event as a reader of the trace sees it: its time and names resolved.
struct Seen {
    std::uint64_t timestamp;
    std::string type, name, category;
    const ProtoNode* event;
};

// The trace read as Perfetto reads it: interned names looked up by iid, the
// packets' times summed from the deltas on the sequence's incremental clock.
struct DecodedTrace {
    ProtoNode root;  // the rest point into it
    std::map<std::string, Track> tracks;  // uuid -> names
    std::map<std::string, const ProtoNode*> named_tracks;  // uuid -> descriptor of a track of no process or thread
    std::map<std::string, std::vector<Seen>> on_named_track;  // uuid -> events in order
    std::vector<std::pair<Shown, const ProtoNode*>> begins;  // SLICE_BEGIN and INSTANT events
    std::map<std::string, std::vector<std::uint64_t>> ends;  // uuid -> SLICE_END timestamps
    std::vector<const ProtoNode*> packets;
    std::map<std::string, std::string> names, categories, annotation_names;  // iid -> text
    std::string incremental_clock;  // its id, from the sequence's defaults

    explicit DecodedTrace(ProtoNode trace) : root(std::move(trace)) {
        std::map<std::string, std::string> process_names;  // pid -> name
        packets = root.children("packet");
        for (const auto* p : packets) {
            for (const auto* d : p->children("track_descriptor")) {
                for (const auto* proc : d->children("process"))
                    process_names[proc->scalar("pid")] = proc->scalar("process_name");
                for (const auto* thr : d->children("thread"))
                    tracks[d->scalar("uuid")] = {process_names.at(thr->scalar("pid")), thr->scalar("thread_name")};
                if (d->has("name")) named_tracks[d->scalar("uuid")] = d;
            }
        }
        std::uint64_t now = 0;
        for (const auto* p : packets) {
            for (const auto* d : p->children("trace_packet_defaults")) incremental_clock = d->scalar("timestamp_clock_id");
            for (const auto* snapshot : p->children("clock_snapshot"))
                for (const auto* clock : snapshot->children("clocks"))
                    if (clock->scalar("clock_id") == incremental_clock) now = std::stoull(clock->scalar("timestamp"));
            intern(*p);
            for (const auto* e : p->children("track_event")) {
                now += std::stoull(p->scalar("timestamp"));  // the delta from the packet before
                const Seen seen = see(now, *e);
                if (named_tracks.count(e->scalar("track_uuid"))) {
                    on_named_track[e->scalar("track_uuid")].push_back(seen);
                    continue;
                }
                const auto& track = tracks.at(e->scalar("track_uuid"));
                if (seen.type == "TYPE_SLICE_END") ends[e->scalar("track_uuid")].push_back(now);
                else begins.push_back({{now, track.process, track.thread, seen.name}, e});
            }
        }
    }

    void intern(const ProtoNode& packet) {
        for (const auto* d : packet.children("interned_data")) {
            for (const auto* n : d->children("event_names")) add(names, *n);
            for (const auto* n : d->children("event_categories")) add(categories, *n);
            for (const auto* n : d->children("debug_annotation_names")) add(annotation_names, *n);
        }
    }
    static void add(std::map<std::string, std::string>& table, const ProtoNode& entry) {
        EXPECT_TRUE(table.emplace(entry.scalar("iid"), entry.scalar("name")).second) << "iid " << entry.scalar("iid") << " interned twice";
    }
    Seen see(std::uint64_t now, const ProtoNode& e) const {
        Seen seen{now, e.scalar("type"), {}, {}, &e};
        if (e.has("name_iid")) seen.name = names.at(e.scalar("name_iid"));
        if (e.has("category_iids")) seen.category = categories.at(e.scalar("category_iids"));
        return seen;
    }
    std::string uuid_of(const std::string& process, const std::string& thread) const {
        for (const auto& [uuid, track] : tracks)
            if (track.process == process && track.thread == thread) return uuid;
        ADD_FAILURE() << "no track " << process << "/" << thread;
        return {};
    }

    // The one event listing `id` in `field`; fails the test unless exactly one.
    Shown holder(const std::string& field, std::uint64_t id) const {
        std::vector<Shown> found;
        for (const auto& [shown, event] : begins)
            for (const auto& v : event->all(field))
                if (std::stoull(v) == id) found.push_back(shown);
        EXPECT_EQ(found.size(), 1u) << field << " " << id;
        return found.empty() ? Shown{} : found.front();
    }
};

Shown expected(const TraceModel& m, std::uint32_t event) {
    const auto& e = m.events[event];
    const auto& p = m.processes[m.threads[e.thread].process];
    return {std::uint64_t(e.time_ns), p.node + " " + p.instance, m.threads[e.thread].name, m.names[e.name]};
}

TEST(PerfettoTrace, EveryPacketIsOnOneSequenceWhoseStateIsDeclaredFreshThenUsed) {
    DecodedTrace t(decode(sample_trace()));
    ASSERT_FALSE(t.packets.empty());
    EXPECT_EQ(t.packets.front()->scalar("sequence_flags"), "1");
    EXPECT_EQ(t.incremental_clock, "64");  // a clock of the sequence (64..127), declared incremental
    for (const auto* p : t.packets) {
        EXPECT_EQ(p->scalar("trusted_packet_sequence_id"), "1");
        if (p->has("track_event")) {
            EXPECT_EQ(p->scalar("sequence_flags"), "2");  // reads the interned names
        }
    }
}

// Every name is sent once, however many events carry it: the trace grows
// by the events, not by their names.
TEST(PerfettoTrace, NamesAreInternedOnceAndTimesAreDeltas) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}};
    m.names = {"SomeLongTracepointName"};
    for (int i = 0; i < 1000; ++i) m.events.push_back({1'700'000'000'000'000'000 + i * 1000, 0, 0, {}, {}, false, false});
    std::string bytes;
    DecodedTrace t(decode(m, {}, &bytes));
    ASSERT_EQ(t.begins.size(), 1000u);
    for (std::size_t i = 0; i < m.events.size(); ++i) EXPECT_EQ(t.begins[i].first.timestamp, std::uint64_t(m.events[i].time_ns));
    std::size_t copies = 0;
    for (auto at = bytes.find("SomeLongTracepointName"); at != std::string::npos; at = bytes.find("SomeLongTracepointName", at + 1)) ++copies;
    EXPECT_EQ(copies, 1u);
    EXPECT_LT(bytes.size(), 1000u * 36);  // a slice: its begin (19 bytes) and end (15), no name
}

TEST(PerfettoTrace, OneProcessTrackPerInstanceAndOneThreadTrackPerThread) {
    DecodedTrace t(decode(sample_trace()));
    ASSERT_EQ(t.tracks.size(), 3u);
    std::vector<std::string> names;
    for (const auto& [uuid, track] : t.tracks) names.push_back(track.process + "/" + track.thread);
    EXPECT_THAT(names, ::testing::UnorderedElementsAre("Chai 1a2b/main", "Chai 1a2b/net", "Unity 3c4d/render"));
}

TEST(PerfettoTrace, EverySampleIsASliceEndingBeforeTheThreadsNextSample) {
    const auto m = sample_trace();
    DecodedTrace t(decode(m));
    ASSERT_EQ(t.begins.size(), m.events.size());
    for (std::size_t i = 0; i < m.events.size(); ++i) EXPECT_EQ(t.begins[i].first, expected(m, i));
    std::size_t ends = 0;
    for (const auto& [uuid, list] : t.ends) ends += list.size();
    EXPECT_EQ(ends, m.events.size());
    const auto& net = t.ends.at(t.uuid_of("Chai 1a2b", "net"));
    EXPECT_THAT(net, ::testing::ElementsAre(m.events[1].time_ns + 300, m.events[2].time_ns + 1000));
    EXPECT_TRUE(t.begins[1].second->children("debug_annotations").empty());  // hashes only when asked for
}

TEST(PerfettoTrace, HashesAreAnnotationsWhenAskedFor) {
    const auto m = sample_trace();
    DecodedTrace t(decode(m, {.hashes = true}));
    const auto annotations = t.begins[1].second->children("debug_annotations");
    ASSERT_EQ(annotations.size(), 2u);
    EXPECT_EQ(t.annotation_names.at(annotations[0]->scalar("name_iid")), "input_hash");
    EXPECT_EQ(annotations[0]->scalar("string_value"), "01010101010101010101010101010101");
    EXPECT_EQ(t.annotation_names.at(annotations[1]->scalar("name_iid")), "output_hash");
}

TEST(PerfettoTrace, EveryEdgeIsAFlowFromProducerToConsumer) {
    const auto m = sample_trace();
    DecodedTrace t(decode(m));
    for (std::size_t i = 0; i < m.flows.size(); ++i) {
        SCOPED_TRACE("flow " + std::to_string(i));
        EXPECT_EQ(t.holder("flow_ids", flow_id(i)), expected(m, m.flows[i].from));
        EXPECT_EQ(t.holder("terminating_flow_ids", flow_id(i)), expected(m, m.flows[i].to));
    }
    // No flow id beyond the edges.
    std::size_t listed = 0;
    for (const auto& [shown, event] : t.begins)
        listed += event->all("flow_ids").size() + event->all("terminating_flow_ids").size();
    EXPECT_EQ(listed, 2 * m.flows.size());
}

TEST(PerfettoTrace, ZeroLengthSamplesBecomeInstantsThatStillCarryFlows) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}};
    m.names = {"x"};
    m.events = {{10, 0, 0, {}, {}, false, false}, {10, 0, 0, {}, {}, false, false}};
    m.flows = {{0, 1}};
    DecodedTrace t(decode(m));
    ASSERT_EQ(t.begins.size(), 2u);
    EXPECT_EQ(t.begins[0].second->scalar("type"), "TYPE_INSTANT");
    EXPECT_EQ(t.begins[1].second->scalar("type"), "TYPE_SLICE_BEGIN");
    EXPECT_EQ(t.begins[0].second->scalar("flow_ids"), "1");
    EXPECT_EQ(t.begins[1].second->scalar("terminating_flow_ids"), "1");
}

TEST(PerfettoTrace, CriticalPathsAreNestedSlicesOnLaneTracksUnderATrackPerInterval) {
    const auto m = test::sample_trace_with_critical_paths();
    DecodedTrace t(decode(m));
    EXPECT_EQ(t.begins.size(), m.events.size());  // the samples' tracks are unchanged
    std::map<std::string, std::string> parent_of_lane;  // lane uuid -> its interval's track name
    std::map<std::string, std::string> name_of;
    for (const auto& [uuid, d] : t.named_tracks) name_of[uuid] = d->scalar("name");
    for (const auto& [uuid, d] : t.named_tracks)
        if (d->has("parent_uuid")) parent_of_lane[uuid] = name_of.at(d->scalar("parent_uuid"));
    ASSERT_EQ(parent_of_lane.size(), 4u);
    std::map<std::string, int> lanes;
    for (const auto& [lane, parent] : parent_of_lane) ++lanes[parent];
    EXPECT_EQ(lanes, (std::map<std::string, int>{{"critical path: end to end", 2}, {"critical path: send", 2}}));

    // Each lane's events nest: begins and ends balance, never below zero, in time order.
    std::size_t slices = 0;
    for (const auto& [lane, events] : t.on_named_track) {
        SCOPED_TRACE(lane);
        ASSERT_TRUE(parent_of_lane.count(lane));
        int depth = 0;
        std::uint64_t last = 0;
        for (const Seen& e : events) {
            EXPECT_GE(e.timestamp, last);
            last = e.timestamp;
            if (e.type == "TYPE_SLICE_BEGIN") {
                EXPECT_EQ(e.category, "critical_path");
                if (depth == 0) {
                    EXPECT_EQ("critical path: " + e.name, parent_of_lane.at(lane));
                }
                ++depth, ++slices;
            } else {
                ASSERT_EQ(e.type, "TYPE_SLICE_END");
                --depth;
            }
            EXPECT_GE(depth, 0);
            EXPECT_LE(depth, 2);
        }
        EXPECT_EQ(depth, 0);
    }
    EXPECT_EQ(slices, m.critical_paths.size() + m.critical_segments.size());
    // The first instance: its slice from ForceComputed to Rendered, the message segment inside it.
    std::string first_lane;  // lane 1 of "end to end"
    for (const auto& [lane, parent] : parent_of_lane)
        if (parent == "critical path: end to end" && name_of.at(lane) == "lane 1") first_lane = lane;
    const auto& first = t.on_named_track.at(first_lane);
    EXPECT_EQ(first[0].name, "end to end");
    EXPECT_EQ(first[0].timestamp, std::uint64_t(m.events[0].time_ns));
    EXPECT_EQ(first[3].name, "Chai/MessageSent -> Unity/MessageReceived (message)");
    EXPECT_EQ(first[3].timestamp, std::uint64_t(m.events[1].time_ns));
    EXPECT_EQ(first[4].timestamp, std::uint64_t(m.events[3].time_ns));
    EXPECT_EQ(first[7].timestamp, std::uint64_t(m.events[5].time_ns));
}

TEST(PerfettoTrace, EmptyModelDecodesAsATraceWithoutEvents) {
    DecodedTrace t(decode(TraceModel{}));
    EXPECT_EQ(t.packets.size(), 1u);  // the sequence's first packet: its state and clocks
    EXPECT_TRUE(t.begins.empty());
}

}  // namespace
}  // namespace hashtrace::report
