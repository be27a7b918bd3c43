// hashtrace/logio/sample_log.hpp - the in-memory model of a node's sample log,
// shared by the readers, the writers, the graph builder and the collectors.
//
// A log holds, for one node instance (usually; a CSV may mix instances):
//   a header       key/value facts about the run (node, instance, clock source, host, ...)
//   tracepoints    the paper's Table 1, each defined once and referred to by index
//   samples        the paper's Table 2: time, input and output hash, thread, seq
//   drops          how many samples of a tracepoint a full queue dropped, and when
//   losses         how many samples of a tracepoint the writer could not save (a full disk), and when
//   threads        names of the recording threads
#pragma once

#include "hashtrace/hash128.hpp"
#include "hashtrace/log_format.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hashtrace::logio {

struct TracepointInfo {
    std::string node_name;
    std::string instance;
    std::string tracepoint_name;
    std::string input_hash_type;
    std::string output_hash_type;
    HashFunction hash_function = HashFunction::md5;
    bool typed_hashing = false;  // each label's canonical bytes were hashed before the state (docs/sdk.md)

    friend bool operator==(const TracepointInfo&, const TracepointInfo&) = default;
    friend auto operator<=>(const TracepointInfo&, const TracepointInfo&) = default;
};

struct SampleRecord {
    enum Flags : std::uint8_t {
        kHasInput = 1,   // input_hash holds a value (an empty CSV field otherwise)
        kHasOutput = 2,  // output_hash holds a value
        kHasThread = 4,  // the log recorded the thread
        kHasSeq = 8,     // the log recorded the per-thread sequence number
    };
    std::int64_t time_ns = 0;  // UTC nanoseconds since the Unix epoch
    Hash128 input_hash;
    Hash128 output_hash;
    std::uint64_t seq = 0;
    std::uint32_t tracepoint = 0;  // index into SampleLog::tracepoints
    std::uint32_t thread = 0;
    std::uint8_t flags = 0;
    // Where the binary reader found each hash in its block's ring of recent
    // hashes (docs/log-formats.md), so that a consumer can reuse what it made
    // of the same hash a few records earlier instead of looking it up again:
    // kRingSlot + p (a hash written out in full, now in ring slot p), k below
    // kRingSlot (equal to the hash in slot k: a ring reference, or an output
    // "same as input"), or kRingNone (no hash; or the CSV reader, which keeps
    // no ring). Writers ignore them.
    static constexpr std::uint16_t kRingSlot = 0x100, kRingNone = 0xFFFF;
    // Whether a ring position says "written out in full" (kRingSlot + p).
    static constexpr bool written_in_full(std::uint16_t ring) noexcept { return ring >= kRingSlot && ring != kRingNone; }
    std::uint16_t input_ring = kRingNone;
    std::uint16_t output_ring = kRingNone;

    bool has_input() const noexcept { return flags & kHasInput; }
    bool has_output() const noexcept { return flags & kHasOutput; }
    bool has_thread() const noexcept { return flags & kHasThread; }
    bool has_seq() const noexcept { return flags & kHasSeq; }
};

struct DropRecord {
    std::int64_t time_ns = 0;  // when the writer noticed (drops happened since the previous record)
    std::uint32_t tracepoint = 0;
    std::uint64_t count = 0;
};

// Samples the writer could not save (binary logs; a CSV log has drop rows instead).
struct LossRecord {
    std::uint32_t tracepoint = 0;
    std::int64_t first_time_ns = 0;  // the first and last of the lost samples' times
    std::int64_t last_time_ns = 0;
    std::uint64_t count = 0;
};

struct ThreadInfo {
    std::uint32_t thread = 0;
    std::int64_t os_tid = 0;
    std::string name;
};

// Well-known header keys: node, instance, host, pid, clock_source, format_version, writer.
using LogHeader = std::map<std::string, std::string>;

// A damaged end of file: what a SIGKILL or a full disk leaves.
struct TornTail {
    std::uint64_t offset = 0;          // byte offset of the first byte not accepted
    std::uint64_t bytes_ignored = 0;   // bytes from there to the end of the file
    std::string reason;
};

struct ReadReport {
    std::string file;
    std::uint64_t samples = 0;
    std::uint64_t drop_records = 0;
    std::uint64_t dropped_samples = 0;  // sum of the drop records' counts: samples the node lost (stream drops apart)
    std::uint64_t stream_dropped = 0;   // drops of kStreamDropsTracepoint: samples the log holds that the node's stream dropped
    std::uint64_t loss_records = 0;
    std::uint64_t lost_samples = 0;     // sum of the loss records' counts: samples a full disk cost
    std::uint64_t bad_records = 0;      // skipped in lenient mode
    std::vector<std::string> bad_record_messages;  // the first few, "file:line: reason"
    bool torn = false;
    TornTail torn_tail;
    bool clean_close = false;           // binary logs: the writer's end marker was found
    LogFormat format = LogFormat::csv;  // set by the reader
    // A binary log without the end marker its writer adds on closing: the
    // process was killed or crashed (SIGKILL mostly lands between blocks, so
    // there need be no torn tail), and samples it still held in memory, at
    // most its last flush interval's, may be missing. A CSV log has no end
    // marker: its end cannot be told.
    bool closed_uncleanly() const noexcept { return format == LogFormat::binary && !clean_close; }
};

// What closed_uncleanly() means, for messages.
inline constexpr const char* kUncleanCloseMeaning =
    "no end marker: the writing process was killed or crashed before closing the log, so samples it still held "
    "in memory (at most its last flush interval's, 100 ms by default) may be missing";

struct SampleLog {
    std::string path;
    LogHeader header;
    std::vector<TracepointInfo> tracepoints;
    std::vector<SampleRecord> samples;
    std::vector<DropRecord> drops;
    std::vector<LossRecord> losses;
    std::vector<ThreadInfo> threads;
    ReadReport report;
};

}  // namespace hashtrace::logio
