// Perfetto's protobuf trace format, written by hand (protobuf_wire.hpp).
// Field numbers follow protos/perfetto/trace/{trace,trace_packet}.proto and
// track_event/{track_event,track_descriptor,...}.proto; tests/report/perfetto_trace.proto
// mirrors them and the tests decode our output with protoc against it.
#include "flow_index.hpp"
#include "protobuf_wire.hpp"

#include "hashtrace/report/trace_export.hpp"

namespace hashtrace::report {

namespace {

namespace field {
constexpr std::uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr std::uint32_t kTimestamp = 8;
constexpr std::uint32_t kSequenceId = 10;  // trusted_packet_sequence_id
constexpr std::uint32_t kTrackEvent = 11;
constexpr std::uint32_t kSequenceFlags = 13;
constexpr std::uint32_t kTrackDescriptor = 60;
// TrackDescriptor
constexpr std::uint32_t kUuid = 1;
constexpr std::uint32_t kTrackName = 2;
constexpr std::uint32_t kProcess = 3;
constexpr std::uint32_t kThread = 4;
constexpr std::uint32_t kParentUuid = 5;
// ProcessDescriptor / ThreadDescriptor
constexpr std::uint32_t kPid = 1;
constexpr std::uint32_t kTid = 2;
constexpr std::uint32_t kThreadName = 5;
constexpr std::uint32_t kProcessName = 6;
// TrackEvent
constexpr std::uint32_t kDebugAnnotations = 4;
constexpr std::uint32_t kType = 9;
constexpr std::uint32_t kTrackUuid = 11;
constexpr std::uint32_t kCategories = 22;
constexpr std::uint32_t kName = 23;
constexpr std::uint32_t kFlowIds = 47;
constexpr std::uint32_t kTerminatingFlowIds = 48;
// DebugAnnotation
constexpr std::uint32_t kStringValue = 6;
constexpr std::uint32_t kAnnotationName = 10;
}  // namespace field

enum EventType : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3 };
constexpr std::uint64_t kSequence = 1;
constexpr std::uint64_t kIncrementalStateCleared = 1;

// Process tracks take uuids 1..P; thread tracks are offset past any pid,
// the critical paths' interval and lane tracks past those.
std::uint64_t process_uuid(std::uint32_t process) { return process + 1; }
std::uint64_t thread_uuid(std::uint32_t thread) { return (std::uint64_t{1} << 32) + thread + 1; }
std::uint64_t interval_uuid(std::size_t interval) { return (std::uint64_t{2} << 32) + interval + 1; }
std::uint64_t lane_uuid(std::size_t lane) { return (std::uint64_t{3} << 32) + lane + 1; }

class PacketStream {
public:
    explicit PacketStream(std::ostream& out) : out_(out) {}
    // Each packet is one Trace.packet field; a file of them is a Trace.
    void emit(const proto::Message& packet) {
        trace_.clear();
        trace_.message(field::kTracePacket, packet);
        out_.write(trace_.data().data(), static_cast<std::streamsize>(trace_.data().size()));
    }

private:
    std::ostream& out_;
    proto::Message trace_;
};

void write_tracks(PacketStream& stream, const TraceModel& model) {
    proto::Message packet, descriptor, process;
    for (std::uint32_t p = 0; p < model.processes.size(); ++p) {
        process.clear();
        process.varint(field::kPid, p + 1);
        process.bytes(field::kProcessName, model.processes[p].node + " " + model.processes[p].instance);
        descriptor.clear();
        descriptor.varint(field::kUuid, process_uuid(p));
        descriptor.message(field::kProcess, process);
        packet.clear();
        packet.varint(field::kSequenceId, kSequence);
        if (p == 0) packet.varint(field::kSequenceFlags, kIncrementalStateCleared);
        packet.message(field::kTrackDescriptor, descriptor);
        stream.emit(packet);
    }
    proto::Message thread;
    for (std::uint32_t t = 0; t < model.threads.size(); ++t) {
        thread.clear();
        thread.varint(field::kPid, model.threads[t].process + 1);
        thread.varint(field::kTid, t + 1);
        thread.bytes(field::kThreadName, model.threads[t].name);
        descriptor.clear();
        descriptor.varint(field::kUuid, thread_uuid(t));
        descriptor.message(field::kThread, thread);
        packet.clear();
        packet.varint(field::kSequenceId, kSequence);
        packet.message(field::kTrackDescriptor, descriptor);
        stream.emit(packet);
    }
}

// The critical paths stand out as tracks of their own (tracks of no process,
// beside the node instances'): an instance's path there is visible along the
// whole run at a glance, while flows are drawn only for a selected slice. Each interval's track is a parent of its lanes (instances overlap in
// time; CriticalPathLayout), so it opens and closes as one.
std::vector<std::size_t> write_critical_path_tracks(PacketStream& stream, const TraceModel& model, const CriticalPathLayout& layout) {
    std::vector<std::size_t> first_lane(model.critical_path_intervals.size());
    proto::Message packet, descriptor;
    for (std::size_t k = 0, lane = 0; k < model.critical_path_intervals.size(); ++k) {
        descriptor.clear();
        descriptor.varint(field::kUuid, interval_uuid(k));
        descriptor.bytes(field::kTrackName, "critical path: " + model.critical_path_intervals[k]);
        packet.clear();
        packet.varint(field::kSequenceId, kSequence);
        packet.message(field::kTrackDescriptor, descriptor);
        stream.emit(packet);
        first_lane[k] = lane;
        for (std::uint32_t l = 0; l < layout.lanes[k]; ++l, ++lane) {
            descriptor.clear();
            descriptor.varint(field::kUuid, lane_uuid(lane));
            descriptor.bytes(field::kTrackName, "lane " + std::to_string(l + 1));
            descriptor.varint(field::kParentUuid, interval_uuid(k));
            packet.clear();
            packet.varint(field::kSequenceId, kSequence);
            packet.message(field::kTrackDescriptor, descriptor);
            stream.emit(packet);
        }
    }
    return first_lane;
}

void write_critical_path_slices(PacketStream& stream, const TraceModel& model, const CriticalPathLayout& layout,
                                const std::vector<std::size_t>& first_lane) {
    proto::Message packet, event;
    const auto emit = [&](std::uint64_t track, std::int64_t time_ns, EventType type, std::string_view name) {
        event.clear();
        event.varint(field::kType, type);
        event.varint(field::kTrackUuid, track);
        if (type == kSliceBegin) {
            event.bytes(field::kCategories, "critical_path");
            event.bytes(field::kName, name);
        }
        packet.clear();
        packet.varint(field::kTimestamp, static_cast<std::uint64_t>(time_ns));
        packet.varint(field::kSequenceId, kSequence);
        packet.message(field::kTrackEvent, event);
        stream.emit(packet);
    };
    for (std::size_t i = 0; i < model.critical_paths.size(); ++i) {
        const auto& p = model.critical_paths[i];
        const auto track = lane_uuid(first_lane[p.interval] + layout.lane[i]);
        const auto last = p.first + p.count - 1;
        emit(track, layout.begin_ns[p.first], kSliceBegin, model.critical_path_intervals[p.interval]);
        for (std::uint32_t k = p.first; k <= last; ++k) {
            emit(track, layout.begin_ns[k], kSliceBegin, model.segment_names[model.critical_segments[k].name]);
            emit(track, layout.end_ns[k], kSliceEnd, {});
        }
        emit(track, layout.end_ns[last], kSliceEnd, {});
    }
}

void add_hash_annotation(proto::Message& event, std::string_view name, const Hash128& hash) {
    proto::Message annotation;
    annotation.bytes(field::kAnnotationName, name);
    annotation.bytes(field::kStringValue, std::string_view(to_hex(hash).data(), 32));
    event.message(field::kDebugAnnotations, annotation);
}

}  // namespace

void write_perfetto_trace(const TraceModel& model, std::ostream& out) {
    check_trace_model(model);
    const auto durations = slice_durations(model);
    const FlowIndex flows(model);
    PacketStream stream(out);
    if (model.processes.empty()) {
        // Perfetto needs a sequence to exist even for an empty trace.
        proto::Message packet;
        packet.varint(field::kSequenceId, kSequence);
        packet.varint(field::kSequenceFlags, kIncrementalStateCleared);
        stream.emit(packet);
    }
    write_tracks(stream, model);
    const auto layout = layout_critical_paths(model);
    const auto first_lane = write_critical_path_tracks(stream, model, layout);

    proto::Message packet, event;
    for (std::uint32_t i = 0; i < model.events.size(); ++i) {
        const auto& e = model.events[i];
        event.clear();
        event.varint(field::kType, durations[i] > 0 ? kSliceBegin : kInstant);
        event.varint(field::kTrackUuid, thread_uuid(e.thread));
        event.bytes(field::kCategories, "hashtrace.sample");
        event.bytes(field::kName, model.names[e.name]);
        if (e.has_input) add_hash_annotation(event, "input_hash", e.input_hash);
        if (e.has_output) add_hash_annotation(event, "output_hash", e.output_hash);
        for (auto f : flows.outgoing(i)) event.fixed64(field::kFlowIds, flow_id(f));
        for (auto f : flows.incoming(i)) event.fixed64(field::kTerminatingFlowIds, flow_id(f));
        packet.clear();
        packet.varint(field::kTimestamp, static_cast<std::uint64_t>(e.time_ns));
        packet.varint(field::kSequenceId, kSequence);
        packet.message(field::kTrackEvent, event);
        stream.emit(packet);
        if (durations[i] > 0) {
            event.clear();
            event.varint(field::kType, kSliceEnd);
            event.varint(field::kTrackUuid, thread_uuid(e.thread));
            packet.clear();
            packet.varint(field::kTimestamp, static_cast<std::uint64_t>(e.time_ns + durations[i]));
            packet.varint(field::kSequenceId, kSequence);
            packet.message(field::kTrackEvent, event);
            stream.emit(packet);
        }
    }
    write_critical_path_slices(stream, model, layout, first_lane);
}

}  // namespace hashtrace::report
