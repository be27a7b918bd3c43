// Perfetto's protobuf trace format, written by hand (protobuf_wire.hpp), and
// written compact: a trace of a long run must still open in a browser tab.
//   - One packet sequence with interned strings: event names, categories and
//     annotation names are sent once (InternedData) and referred to by iid.
//   - Incremental timestamps: a sequence-scoped clock (id 64) whose packets
//     carry the delta from the previous packet (a few bytes, not eight),
//     declared by a ClockSnapshot against BOOTTIME at the first event, so the
//     times read back are the samples' own. Packets are written in time order.
//   - Small track uuids, flows as ids on the events.
// Field numbers follow protos/perfetto/trace/{trace,trace_packet,clock_snapshot,
// trace_packet_defaults}.proto, interned_data/ and track_event/;
// tests/report/perfetto_trace.proto mirrors them and the tests decode our
// output with protoc against it, resolving iids and deltas as Perfetto does.
#include "flow_index.hpp"
#include "protobuf_wire.hpp"

#include "hashtrace/report/trace_export.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace hashtrace::report {

namespace {

namespace field {
constexpr std::uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr std::uint32_t kClockSnapshot = 6;
constexpr std::uint32_t kTimestamp = 8;
constexpr std::uint32_t kSequenceId = 10;  // trusted_packet_sequence_id
constexpr std::uint32_t kTrackEvent = 11;
constexpr std::uint32_t kInternedData = 12;
constexpr std::uint32_t kSequenceFlags = 13;
constexpr std::uint32_t kTimestampClockId = 58;
constexpr std::uint32_t kTracePacketDefaults = 59;
constexpr std::uint32_t kTrackDescriptor = 60;
// ClockSnapshot, ClockSnapshot.Clock
constexpr std::uint32_t kClocks = 1;
constexpr std::uint32_t kClockId = 1;
constexpr std::uint32_t kClockTimestamp = 2;
constexpr std::uint32_t kIsIncremental = 3;
// InternedData; each entry is {iid = 1, name = 2}
constexpr std::uint32_t kEventCategories = 1;
constexpr std::uint32_t kEventNames = 2;
constexpr std::uint32_t kDebugAnnotationNames = 3;
constexpr std::uint32_t kIid = 1;
constexpr std::uint32_t kInternedName = 2;
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
constexpr std::uint32_t kCategoryIids = 3;
constexpr std::uint32_t kDebugAnnotations = 4;
constexpr std::uint32_t kType = 9;
constexpr std::uint32_t kNameIid = 10;
constexpr std::uint32_t kTrackUuid = 11;
constexpr std::uint32_t kFlowIds = 47;
constexpr std::uint32_t kTerminatingFlowIds = 48;
// DebugAnnotation
constexpr std::uint32_t kAnnotationNameIid = 1;
constexpr std::uint32_t kStringValue = 6;
}  // namespace field

enum EventType : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3 };
constexpr std::uint64_t kSequence = 1;
constexpr std::uint64_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
constexpr std::uint64_t kBoottime = 6, kIncrementalClock = 64;  // 64..127: clocks of the sequence

enum class Interned { category, name, annotation };

// The one packet sequence: its interning tables, its incremental clock, and
// the packets, each one Trace.packet field (a file of them is a Trace).
class Sequence {
public:
    explicit Sequence(std::ostream& out) : out_(out) {}

    // The first packet: the sequence's state is fresh, its packets' times are
    // on the incremental clock, which starts at t0 (BOOTTIME t0).
    void start(std::int64_t t0) {
        proto::Message packet, defaults, snapshot, clock;
        defaults.varint(field::kTimestampClockId, kIncrementalClock);
        for (const auto& [id, incremental] : {std::pair{kBoottime, false}, std::pair{kIncrementalClock, true}}) {
            clock.clear();
            clock.varint(field::kClockId, id);
            clock.varint(field::kClockTimestamp, static_cast<std::uint64_t>(t0));
            if (incremental) clock.varint(field::kIsIncremental, 1);
            snapshot.message(field::kClocks, clock);
        }
        packet.varint(field::kTimestamp, static_cast<std::uint64_t>(t0));
        packet.varint(field::kTimestampClockId, kBoottime);
        packet.varint(field::kSequenceId, kSequence);
        packet.varint(field::kSequenceFlags, kIncrementalStateCleared);
        packet.message(field::kTracePacketDefaults, defaults);
        packet.message(field::kClockSnapshot, snapshot);
        emit(packet);
        last_ns_ = t0;
    }
    void descriptor(const proto::Message& descriptor) {
        packet_.clear();
        packet_.varint(field::kSequenceId, kSequence);
        packet_.message(field::kTrackDescriptor, descriptor);
        emit(packet_);
    }
    // The iid of `text`, interned with the next event when new.
    std::uint64_t iid(Interned kind, std::string_view text) {
        auto& table = tables_[static_cast<int>(kind)];
        const auto [it, fresh] = table.try_emplace(std::string(text), table.size() + 1);
        if (fresh) {
            entry_.clear();
            entry_.varint(field::kIid, it->second);
            entry_.bytes(field::kInternedName, text);
            static constexpr std::uint32_t kField[] = {field::kEventCategories, field::kEventNames, field::kDebugAnnotationNames};
            interned_.message(kField[static_cast<int>(kind)], entry_);
        }
        return it->second;
    }
    // Events come in time order: each carries the delta from the one before.
    void event(std::int64_t time_ns, const proto::Message& event) {
        packet_.clear();
        packet_.varint(field::kTimestamp, static_cast<std::uint64_t>(time_ns - last_ns_));
        last_ns_ = time_ns;
        packet_.varint(field::kSequenceId, kSequence);
        packet_.varint(field::kSequenceFlags, kNeedsIncrementalState);
        if (!interned_.data().empty()) {
            packet_.message(field::kInternedData, interned_);
            interned_.clear();
        }
        packet_.message(field::kTrackEvent, event);
        emit(packet_);
    }
    void emit(const proto::Message& packet) {
        trace_.clear();
        trace_.message(field::kTracePacket, packet);
        out_.write(trace_.data().data(), static_cast<std::streamsize>(trace_.data().size()));
    }

private:
    std::ostream& out_;
    std::unordered_map<std::string, std::uint64_t> tables_[3];
    proto::Message packet_, trace_, interned_, entry_;
    std::int64_t last_ns_ = 0;
};

// Small uuids, one range after the other: processes, threads, the critical
// paths' interval tracks, their lanes (small varints on every event).
struct Uuids {
    std::uint64_t threads = 0, intervals = 0, lanes = 0;  // the first of each, less one
    explicit Uuids(const TraceModel& m)
        : threads(m.processes.size()), intervals(threads + m.threads.size()), lanes(intervals + m.critical_path_intervals.size()) {}
    static std::uint64_t process(std::uint32_t p) { return p + 1; }
    std::uint64_t thread(std::uint32_t t) const { return threads + t + 1; }
    std::uint64_t interval(std::size_t k) const { return intervals + k + 1; }
    std::uint64_t lane(std::size_t l) const { return lanes + l + 1; }
};

void write_tracks(Sequence& sequence, const TraceModel& model, const Uuids& uuids) {
    proto::Message descriptor, process;
    for (std::uint32_t p = 0; p < model.processes.size(); ++p) {
        process.clear();
        process.varint(field::kPid, p + 1);
        process.bytes(field::kProcessName, model.processes[p].node + " " + model.processes[p].instance);
        descriptor.clear();
        descriptor.varint(field::kUuid, Uuids::process(p));
        descriptor.message(field::kProcess, process);
        sequence.descriptor(descriptor);
    }
    proto::Message thread;
    for (std::uint32_t t = 0; t < model.threads.size(); ++t) {
        thread.clear();
        thread.varint(field::kPid, model.threads[t].process + 1);
        thread.varint(field::kTid, t + 1);
        thread.bytes(field::kThreadName, model.threads[t].name);
        descriptor.clear();
        descriptor.varint(field::kUuid, uuids.thread(t));
        descriptor.message(field::kThread, thread);
        sequence.descriptor(descriptor);
    }
}

// The critical paths stand out as tracks of their own (tracks of no process,
// beside the node instances'): an instance's path there is visible along the
// whole run at a glance, while flows are drawn only for a selected slice.
// Each interval's track is a parent of its lanes (instances overlap in time;
// CriticalPathLayout), so it opens and closes as one. Returns each interval's first lane.
std::vector<std::size_t> write_critical_path_tracks(Sequence& sequence, const TraceModel& model, const CriticalPathLayout& layout,
                                                    const Uuids& uuids) {
    std::vector<std::size_t> first_lane(model.critical_path_intervals.size());
    proto::Message descriptor;
    for (std::size_t k = 0, lane = 0; k < model.critical_path_intervals.size(); ++k) {
        descriptor.clear();
        descriptor.varint(field::kUuid, uuids.interval(k));
        descriptor.bytes(field::kTrackName, "critical path: " + model.critical_path_intervals[k]);
        sequence.descriptor(descriptor);
        first_lane[k] = lane;
        for (std::uint32_t l = 0; l < layout.lanes[k]; ++l, ++lane) {
            descriptor.clear();
            descriptor.varint(field::kUuid, uuids.lane(lane));
            descriptor.bytes(field::kTrackName, "lane " + std::to_string(l + 1));
            descriptor.varint(field::kParentUuid, uuids.interval(k));
            sequence.descriptor(descriptor);
        }
    }
    return first_lane;
}

// Everything drawn at a time, to be written in time order: a sample's slice
// begin (or instant) and end, a critical path's begin and end, a segment's.
struct Moment {
    enum Kind : std::uint32_t { sample, sample_end, path, path_end, segment, segment_end };
    std::int64_t time_ns;
    Kind kind;
    std::uint32_t index;  // of the event, critical path or segment
};

// Each track's moments in its own order, so that a sort by time alone that
// keeps equal times in place (stable) keeps every track's slices nested.
std::vector<Moment> moments(const TraceModel& model, const std::vector<std::int64_t>& durations, const CriticalPathLayout& layout) {
    std::vector<Moment> out;
    out.reserve(2 * (model.events.size() + model.critical_paths.size() + model.critical_segments.size()));
    for (std::uint32_t i = 0; i < model.events.size(); ++i) {
        out.push_back({model.events[i].time_ns, Moment::sample, i});
        if (durations[i] > 0) out.push_back({model.events[i].time_ns + durations[i], Moment::sample_end, i});
    }
    for (std::uint32_t p = 0; p < model.critical_paths.size(); ++p) {
        const auto& path = model.critical_paths[p];
        const std::uint32_t last = path.first + path.count - 1;
        out.push_back({layout.begin_ns[path.first], Moment::path, p});
        for (std::uint32_t k = path.first; k <= last; ++k) {
            out.push_back({layout.begin_ns[k], Moment::segment, k});
            out.push_back({layout.end_ns[k], Moment::segment_end, k});
        }
        out.push_back({layout.end_ns[last], Moment::path_end, p});
    }
    std::stable_sort(out.begin(), out.end(), [](const Moment& a, const Moment& b) { return a.time_ns < b.time_ns; });
    return out;
}

class EventWriter {
public:
    EventWriter(Sequence& sequence, const TraceModel& model, const TraceOptions& options, const Uuids& uuids,
                const std::vector<std::int64_t>& durations, std::vector<std::uint64_t> lane_of_segment)
        : sequence_(sequence), model_(model), options_(options), uuids_(uuids), durations_(durations), flows_(model),
          lane_of_segment_(std::move(lane_of_segment)) {}

    void write(const Moment& m) {
        event_.clear();
        switch (m.kind) {
            case Moment::sample: return sample(m.index);
            case Moment::sample_end: return end(m.time_ns, uuids_.thread(model_.events[m.index].thread));
            case Moment::path: {
                const auto& path = model_.critical_paths[m.index];
                return begin(m.time_ns, lane_of_segment_[path.first], name_iid(interval_iids_, model_.critical_path_intervals, path.interval));
            }
            case Moment::path_end: return end(m.time_ns, lane_of_segment_[model_.critical_paths[m.index].first]);
            case Moment::segment:
                return begin(m.time_ns, lane_of_segment_[m.index], name_iid(segment_iids_, model_.segment_names, model_.critical_segments[m.index].name));
            case Moment::segment_end: return end(m.time_ns, lane_of_segment_[m.index]);
        }
    }

private:
    // A name's iid, looked up once per name (the sequence interns it on first use).
    std::uint64_t name_iid(std::vector<std::uint64_t>& cache, const std::vector<std::string>& names, std::uint32_t index) {
        if (cache.empty()) cache.assign(names.size(), 0);
        if (cache[index] == 0) cache[index] = sequence_.iid(Interned::name, names[index]);
        return cache[index];
    }
    void sample(std::uint32_t i) {
        const auto& e = model_.events[i];
        event_.varint(field::kType, durations_[i] > 0 ? kSliceBegin : kInstant);
        event_.varint(field::kTrackUuid, uuids_.thread(e.thread));
        event_.varint(field::kCategoryIids, sample_category_ ? sample_category_ : sample_category_ = sequence_.iid(Interned::category, "hashtrace.sample"));
        event_.varint(field::kNameIid, name_iid(tracepoint_iids_, model_.names, e.name));
        if (options_.hashes && e.has_input) hash_annotation("input_hash", e.input_hash);
        if (options_.hashes && e.has_output) hash_annotation("output_hash", e.output_hash);
        for (auto f : flows_.outgoing(i)) event_.fixed64(field::kFlowIds, flow_id(f));
        for (auto f : flows_.incoming(i)) event_.fixed64(field::kTerminatingFlowIds, flow_id(f));
        sequence_.event(e.time_ns, event_);
    }
    void begin(std::int64_t time_ns, std::uint64_t track, std::uint64_t name_iid) {
        event_.varint(field::kType, kSliceBegin);
        event_.varint(field::kTrackUuid, track);
        event_.varint(field::kCategoryIids, path_category_ ? path_category_ : path_category_ = sequence_.iid(Interned::category, "critical_path"));
        event_.varint(field::kNameIid, name_iid);
        sequence_.event(time_ns, event_);
    }
    void end(std::int64_t time_ns, std::uint64_t track) {
        event_.varint(field::kType, kSliceEnd);
        event_.varint(field::kTrackUuid, track);
        sequence_.event(time_ns, event_);
    }
    void hash_annotation(std::string_view name, const Hash128& hash) {
        annotation_.clear();
        annotation_.varint(field::kAnnotationNameIid, sequence_.iid(Interned::annotation, name));
        annotation_.bytes(field::kStringValue, std::string_view(to_hex(hash).data(), 32));
        event_.message(field::kDebugAnnotations, annotation_);
    }

    Sequence& sequence_;
    const TraceModel& model_;
    const TraceOptions& options_;
    const Uuids& uuids_;
    const std::vector<std::int64_t>& durations_;
    const FlowIndex flows_;
    const std::vector<std::uint64_t> lane_of_segment_;  // each segment's lane track (its path's)
    proto::Message event_, annotation_;
    std::vector<std::uint64_t> tracepoint_iids_, interval_iids_, segment_iids_;  // by index in the model's names; 0: not yet
    std::uint64_t sample_category_ = 0, path_category_ = 0;
};

std::vector<std::uint64_t> lane_of_segments(const TraceModel& model, const CriticalPathLayout& layout, const std::vector<std::size_t>& first_lane,
                                            const Uuids& uuids) {
    std::vector<std::uint64_t> out(model.critical_segments.size());
    for (std::size_t p = 0; p < model.critical_paths.size(); ++p) {
        const auto& path = model.critical_paths[p];
        for (std::uint32_t k = path.first; k < path.first + path.count; ++k) out[k] = uuids.lane(first_lane[path.interval] + layout.lane[p]);
    }
    return out;
}

}  // namespace

void write_perfetto_trace(const TraceModel& model, std::ostream& out, const TraceOptions& options) {
    check_trace_model(model);
    const auto durations = slice_durations(model);
    const auto layout = layout_critical_paths(model);
    const Uuids uuids(model);
    Sequence sequence(out);
    const auto order = moments(model, durations, layout);
    sequence.start(order.empty() ? 0 : order.front().time_ns);
    write_tracks(sequence, model, uuids);
    const auto first_lane = write_critical_path_tracks(sequence, model, layout, uuids);
    EventWriter writer(sequence, model, options, uuids, durations, lane_of_segments(model, layout, first_lane, uuids));
    for (const Moment& m : order) writer.write(m);
}

}  // namespace hashtrace::report
