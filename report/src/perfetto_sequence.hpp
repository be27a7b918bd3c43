// perfetto_sequence.hpp - one Perfetto packet sequence, written by hand
// (protobuf_wire.hpp) into a stream: its interning tables, its incremental
// clock, its packets.
//
// Field numbers follow Perfetto's published protos/perfetto/trace/
// perfetto_trace.proto (vendored as tests/report/perfetto_trace.proto: the
// tests decode every trace with protoc against it).
#pragma once

#include "protobuf_wire.hpp"

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace hashtrace::report::perfetto {

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
constexpr std::uint32_t kTrackEventDefaults = 11;  // TracePacketDefaults
constexpr std::uint32_t kTrackDescriptor = 60;
// ClockSnapshot, ClockSnapshot.Clock
constexpr std::uint32_t kClocks = 1;
constexpr std::uint32_t kClockId = 1;
constexpr std::uint32_t kClockTimestamp = 2;
constexpr std::uint32_t kIsIncremental = 3;
// InternedData; each entry is {iid = 1, name (or str) = 2}
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
constexpr std::uint32_t kDebugAnnotations = 4;
constexpr std::uint32_t kType = 9;
constexpr std::uint32_t kNameIid = 10;
constexpr std::uint32_t kTrackUuid = 11;
// The flow ids as varints (a byte or two for the small ids the writer
// reuses) where flow_ids = 47 and terminating_flow_ids = 48 are fixed64
// (eight bytes each). Perfetto marks these older fields deprecated and still
// reads them: trace processor takes them when an event has none of the newer.
constexpr std::uint32_t kFlowIdsOld = 36;
constexpr std::uint32_t kTerminatingFlowIdsOld = 42;
// DebugAnnotation
constexpr std::uint32_t kAnnotationNameIid = 1;
constexpr std::uint32_t kStringValue = 6;
}  // namespace field

enum EventType : std::uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3 };
enum class Interned { name, annotation };

// The one packet sequence of a trace. Its first packet declares its state
// fresh, its events' default track, and its default clock: a clock of the sequence (ids 64..127) that
// is incremental, so each packet's timestamp is the delta from the packet
// before (a byte or three, not eight), declared by a ClockSnapshot against
// BOOTTIME at the first event: the times read back are the samples' own.
// Packets are buffered and written in blocks.
class Sequence {
public:
    explicit Sequence(std::ostream& out) : out_(out) { buffer_.reserve(kBlock + 4096); }
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;

    // Events on `default_track` may leave their track out.
    void start(std::int64_t t0, std::uint64_t default_track) {
        proto::Message packet, defaults, event_defaults, snapshot, clock;
        defaults.varint(field::kTimestampClockId, kIncrementalClock);
        event_defaults.varint(field::kTrackUuid, default_track);
        defaults.message(field::kTrackEventDefaults, event_defaults);
        for (const auto& [id, incremental] : {std::pair{kBoottime, false}, std::pair{kIncrementalClock, true}}) {
            clock.clear();
            clock.varint(field::kClockId, id);
            clock.varint(field::kClockTimestamp, static_cast<std::uint64_t>(t0));
            if (incremental) clock.varint(field::kIsIncremental, 1);
            snapshot.message(field::kClocks, clock);
        }
        packet.varint(field::kTimestamp, static_cast<std::uint64_t>(t0));
        packet.varint(field::kTimestampClockId, kBoottime);
        packet.varint(field::kSequenceId, kSequenceId);
        packet.varint(field::kSequenceFlags, kIncrementalStateCleared);
        packet.message(field::kTracePacketDefaults, defaults);
        packet.message(field::kClockSnapshot, snapshot);
        emit(packet);
        last_ns_ = t0;
    }
    void descriptor(const proto::Message& descriptor) {
        packet_.clear();
        packet_.varint(field::kSequenceId, kSequenceId);
        packet_.message(field::kTrackDescriptor, descriptor);
        emit(packet_);
    }
    // The iid of `text`, interned with the next event when new. Callers
    // cache it per name: this looks the text up.
    std::uint64_t iid(Interned kind, std::string_view text) {
        auto& table = tables_[static_cast<int>(kind)];
        const auto [it, fresh] = table.try_emplace(std::string(text), table.size() + 1);
        if (fresh) {
            entry_.clear();
            entry_.varint(field::kIid, it->second);
            entry_.bytes(field::kInternedName, text);
            interned_.message(kind == Interned::name ? field::kEventNames : field::kDebugAnnotationNames, entry_);
        }
        return it->second;
    }
    // Events come in time order: each carries the delta from the one before.
    // The sequence flags are left out (a reader resolves iids without them).
    // The packet is written straight into the buffer, its length counted first.
    void event(std::int64_t time_ns, const proto::Message& event) {
        if (time_ns < last_ns_) throw std::logic_error("perfetto trace: an event earlier than the one before");
        const auto delta = static_cast<std::uint64_t>(time_ns - last_ns_);
        last_ns_ = time_ns;
        const std::string& interned = interned_.data();
        const std::string& body = event.data();
        std::size_t length = 1 + proto::varint_size(delta) + 2 + 1 + proto::varint_size(body.size()) + body.size();
        if (!interned.empty()) length += 1 + proto::varint_size(interned.size()) + interned.size();
        buffer_.push_back(char(field::kTracePacket << 3 | proto::kLengthDelimited));
        proto::append_varint(buffer_, length);
        buffer_.push_back(char(field::kTimestamp << 3 | proto::kVarint));
        proto::append_varint(buffer_, delta);
        buffer_.push_back(char(field::kSequenceId << 3 | proto::kVarint));
        buffer_.push_back(char(kSequenceId));
        if (!interned.empty()) {
            proto::append_field(buffer_, field::kInternedData, interned);
            interned_.clear();
        }
        proto::append_field(buffer_, field::kTrackEvent, body);
        if (buffer_.size() >= kBlock) finish();
    }
    void finish() {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }

private:
    static constexpr std::uint64_t kSequenceId = 1;
    static constexpr std::uint64_t kIncrementalStateCleared = 1;
    static constexpr std::uint64_t kBoottime = 6, kIncrementalClock = 64;  // 64..127: clocks of the sequence
    static constexpr std::size_t kBlock = 1 << 16;

    // Each packet is one Trace.packet field: a file of them is a Trace.
    void emit(const proto::Message& packet) {
        proto::append_field(buffer_, field::kTracePacket, packet.data());
        if (buffer_.size() >= kBlock) finish();
    }

    std::ostream& out_;
    std::string buffer_;
    std::unordered_map<std::string, std::uint64_t> tables_[2];
    proto::Message packet_, interned_, entry_;
    std::int64_t last_ns_ = 0;
};

}  // namespace hashtrace::report::perfetto
