// perfetto_read.hpp - a Perfetto trace read back the way Perfetto's trace
// processor reads it, for the tests: decoded by `protoc --decode` against
// Perfetto's published perfetto_trace.proto (vendored beside this file),
// then its packets walked in order: times summed from the deltas of the
// sequence's incremental clock, iids resolved, each event on its track (or
// the sequence's default track), flow ids paired as the trace processor's
// flow tracker pairs them (an id listed again continues its flow: a step; a
// terminating id ends it), and slices closed by their track's END.
#pragma once

#include "proto_text.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <tuple>
#include <map>
#include <string>
#include <vector>

namespace hashtrace::report::test {

inline std::string decode_perfetto(const std::filesystem::path& trace) {
    const std::filesystem::path proto = HASHTRACE_TEST_PERFETTO_PROTO;
    const auto result = run_command(std::string(HASHTRACE_TEST_PROTOC) + " --decode=perfetto.protos.Trace -I" +
                                    shell_quote(proto.parent_path().string()) + " " + shell_quote(proto.filename().string()) + " < " +
                                    shell_quote(trace.string()) + " 2>&1");
    EXPECT_EQ(result.status, 0) << result.out.substr(0, 2000);
    // --decode prints fields the schema does not know by number: there must be none.
    for (std::size_t at = 0; (at = result.out.find('\n', at)) != std::string::npos; ++at) {
        std::size_t c = at + 1;
        while (c < result.out.size() && result.out[c] == ' ') ++c;
        if (c < result.out.size() && std::isdigit(static_cast<unsigned char>(result.out[c]))) {
            ADD_FAILURE() << "a field unknown to perfetto_trace.proto: " << result.out.substr(c, 40);
            break;
        }
    }
    return result.out;
}

struct ReadSample {
    std::uint64_t timestamp;
    std::string process, thread, name;
    const ProtoNode* event;
    bool operator==(const ReadSample& o) const {
        return timestamp == o.timestamp && process == o.process && thread == o.thread && name == o.name;
    }
};

struct ReadSlice {
    std::string interval, lane, name;
    std::uint64_t begin, end;
    int depth;
    auto key() const { return std::tie(interval, begin, end, name, depth); }
    bool operator<(const ReadSlice& o) const { return key() < o.key(); }
    bool operator==(const ReadSlice& o) const { return key() == o.key(); }
};

struct ReadTrace {
    ProtoNode root;  // the rest point into it
    std::vector<const ProtoNode*> packets;
    std::vector<ReadSample> samples;                          // instants on thread tracks, in order
    std::vector<std::pair<std::size_t, std::size_t>> flows;   // (earlier, later) indices into samples
    std::vector<ReadSlice> slices;                            // on the critical-path lanes, as they close
    std::map<std::string, std::string> names, annotation_names;  // iid -> text
    std::map<std::string, std::vector<std::string>> lanes;    // interval track name -> its lanes' names
    std::string default_track, incremental_clock;
    std::vector<std::string> errors;                          // what a reader would drop or refuse
};

namespace detail {

struct Reader {
    explicit Reader(ReadTrace& trace) : t(trace) {}
    ReadTrace& t;
    std::map<std::string, std::string> process_of_pid;
    std::map<std::string, std::pair<std::string, std::string>> thread_tracks;  // uuid -> (process, thread)
    std::map<std::string, std::pair<std::string, std::string>> lane_tracks;    // uuid -> (interval track, lane)
    std::map<std::string, std::string> named_tracks;                           // uuid -> name
    std::map<std::string, std::size_t> active_flows;                           // id -> sample
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> open;  // lane uuid -> (begin, name)
    std::uint64_t now = 0;

    void descriptor(const ProtoNode& d) {
        for (const auto* p : d.children("process")) process_of_pid[p->scalar("pid")] = p->scalar("process_name");
        for (const auto* th : d.children("thread"))
            thread_tracks[d.scalar("uuid")] = {process_of_pid.at(th->scalar("pid")), th->scalar("thread_name")};
        if (d.has("name")) named_tracks[d.scalar("uuid")] = d.scalar("name");
        if (d.has("parent_uuid")) {
            const auto interval = named_tracks.at(d.scalar("parent_uuid"));
            lane_tracks[d.scalar("uuid")] = {interval, d.scalar("name")};
            t.lanes[interval].push_back(d.scalar("name"));
        }
    }
    void intern(const ProtoNode& packet) {
        for (const auto* d : packet.children("interned_data")) {
            for (const auto* n : d->children("event_names")) add(t.names, *n);
            for (const auto* n : d->children("debug_annotation_names")) add(t.annotation_names, *n);
        }
    }
    void add(std::map<std::string, std::string>& table, const ProtoNode& entry) {
        if (!table.emplace(entry.scalar("iid"), entry.scalar("name")).second) t.errors.push_back("iid " + entry.scalar("iid") + " interned twice");
    }
    std::string name_of(const ProtoNode& e) {
        if (!e.has("name_iid")) return {};
        const auto it = t.names.find(e.scalar("name_iid"));
        if (it == t.names.end()) t.errors.push_back("name iid " + e.scalar("name_iid") + " not interned");
        return it == t.names.end() ? std::string() : it->second;
    }
    void sample(const ProtoNode& e, const std::pair<std::string, std::string>& track) {
        const std::size_t i = t.samples.size();
        if (e.scalar("type") != "TYPE_INSTANT") t.errors.push_back("a sample event of type " + e.scalar("type"));
        t.samples.push_back({now, track.first, track.second, name_of(e), &e});
        for (const auto& id : e.all("flow_ids_old")) {
            if (const auto it = active_flows.find(id); it != active_flows.end()) t.flows.emplace_back(it->second, i);
            active_flows[id] = i;
        }
        for (const auto& id : e.all("terminating_flow_ids_old")) {
            const auto it = active_flows.find(id);
            if (it == active_flows.end()) {
                t.errors.push_back("flow id " + id + " ends at sample " + std::to_string(i) + " without having begun");
                continue;
            }
            t.flows.emplace_back(it->second, i);
            active_flows.erase(it);
        }
        if (!e.all("flow_ids").empty() || !e.all("terminating_flow_ids").empty()) t.errors.push_back("fixed64 flow ids beside the varint ones");
    }
    void slice(const ProtoNode& e, const std::string& uuid) {
        const auto& [interval, lane] = lane_tracks.at(uuid);
        auto& stack = open[uuid];
        if (e.scalar("type") == "TYPE_SLICE_BEGIN") {
            stack.emplace_back(now, name_of(e));
        } else if (e.scalar("type") != "TYPE_SLICE_END") {
            t.errors.push_back("a critical-path event of type " + e.scalar("type"));
        } else if (stack.empty()) {
            t.errors.push_back("an END on " + interval + "/" + lane + " with no slice open");
        } else {
            t.slices.push_back({interval, lane, stack.back().second, stack.back().first, now, int(stack.size()) - 1});
            stack.pop_back();
        }
    }
    void packet(const ProtoNode& p) {
        if (!p.has("trusted_packet_sequence_id")) t.errors.push_back("a packet of no sequence");
        for (const auto* d : p.children("trace_packet_defaults")) {
            t.incremental_clock = d->scalar("timestamp_clock_id");
            for (const auto* e : d->children("track_event_defaults")) t.default_track = e->scalar("track_uuid");
        }
        for (const auto* snapshot : p.children("clock_snapshot"))
            for (const auto* clock : snapshot->children("clocks"))
                if (clock->scalar("clock_id") == t.incremental_clock) now = std::stoull(clock->scalar("timestamp"));
        for (const auto* d : p.children("track_descriptor")) descriptor(*d);
        intern(p);
        for (const auto* e : p.children("track_event")) {
            if (!p.has("timestamp")) t.errors.push_back("a track event without a timestamp");
            else now += std::stoull(p.scalar("timestamp"));  // the delta from the packet before
            const std::string uuid = e->has("track_uuid") ? e->scalar("track_uuid") : t.default_track;
            if (thread_tracks.count(uuid)) sample(*e, thread_tracks.at(uuid));
            else if (lane_tracks.count(uuid)) slice(*e, uuid);
            else t.errors.push_back("an event on track " + uuid + ", not described");
        }
    }
};

}  // namespace detail

inline ReadTrace read_perfetto(const std::string& decoded) {
    ReadTrace t;
    t.root = parse_proto_text(decoded);
    t.packets = t.root.children("packet");
    detail::Reader reader(t);
    for (const auto* p : t.packets) reader.packet(*p);
    for (const auto& [id, sample] : reader.active_flows) t.errors.push_back("flow id " + id + " never ends (from sample " + std::to_string(sample) + ")");
    for (const auto& [uuid, stack] : reader.open)
        if (!stack.empty()) t.errors.push_back("a slice left open on " + uuid);
    return t;
}

}  // namespace hashtrace::report::test
