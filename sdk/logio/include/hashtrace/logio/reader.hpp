// hashtrace/logio/reader.hpp - reading sample logs of either format.
//
//   auto log = hashtrace::logio::load_log("logs/Physics-1a2b.htlog");   // whole file
//   hashtrace::logio::read_log(path, visitor);                          // streaming
//
// The format is detected from the file's first bytes, not its name. Errors are
// thrown as LogError naming the file, the line (CSV) or byte offset (binary)
// and the reason. A torn tail (a crash mid-write) is not an error: everything
// up to the last complete record is delivered and the tail is reported.
#pragma once

#include "hashtrace/log_format.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashtrace::logio {

using hashtrace::LogFormat;

// what() is "file:line: reason", "file:line:column: reason" when the column
// is known, "file: reason" for line 0 (a fault of the whole file).
class LogError : public std::runtime_error {
public:
    LogError(std::string file, std::uint64_t line, std::string reason);
    LogError(std::string file, std::uint64_t line, std::uint64_t column, std::string reason);
    const std::string& file() const noexcept { return file_; }
    std::uint64_t line() const noexcept { return line_; }  // CSV: 1-based line; binary: byte offset
    std::uint64_t column() const noexcept { return column_; }  // CSV: 1-based byte in the line; 0: not known
    const std::string& reason() const noexcept { return reason_; }

private:
    std::string file_;
    std::uint64_t line_;
    std::uint64_t column_;
    std::string reason_;
};

// A stretch [at, to) of a binary log's bytes that holds only blocks of
// samples a range read would pass over, found by its index (log_index.hpp,
// jumps_outside): the read goes from `at` to `to` without looking at the
// blocks' headers in between, so that a window of a long log maps only its
// own pages.
struct ByteJump {
    std::uint64_t at = 0, to = 0;
};

struct ReadOptions {
    bool lenient = false;  // skip malformed records and count them instead of throwing
    // Only the samples of [from_ns, to_ns) are delivered (a time shard), and
    // counted in ReadReport::samples; tracepoints, threads, drops and losses
    // always are. A binary log of version 3 is read only where its blocks'
    // time index reaches into the range (docs/log-formats.md, "Reading a
    // time range"): the blocks passed over are neither decoded nor checked
    // against their checksums, which index_log (log_index.hpp) does for the
    // whole log.
    std::int64_t from_ns = INT64_MIN, to_ns = INT64_MAX;
    // For a range read: stretches to jump over, in file order. A jump is
    // taken only from a block boundary the read reached, to a block marker
    // (or the end), so a stale index costs the jump, not a wrong read.
    std::span<const ByteJump> jumps{};

    bool wants(std::int64_t time_ns) const noexcept { return time_ns >= from_ns && time_ns < to_ns; }
    bool whole_range() const noexcept { return from_ns == INT64_MIN && to_ns == INT64_MAX; }
};

// A batch of a binary log's samples as columns, for a visitor that reads
// each field in a pass of its own: the reader writes ~20 bytes a sample
// instead of a 64-byte SampleRecord, and a hash repeated from the block's
// ring of recent hashes is not copied at all. Sample i has time_ns[i], ...;
// its hashes are references (input_ref[i] / output_ref[i]) into a table the
// visitor keeps of what it made of each hash: kFirstLiteral + k for the k-th
// hash written out in full in the batch (literals[k]), r < kRingSize for the
// hash that ring slot r held when the batch began, kNoHash for none. So a
// repeat costs the visitor one table read, whichever batch its hash came in:
// once a batch is done, ring slot r holds the hash of reference ring_end[r]
// (r itself or a literal of the batch), which becomes entry r of the table
// for the next batch. The sequence numbers are checked but not delivered.
struct SampleColumns {
    static constexpr std::size_t kCapacity = 4096;
    static constexpr std::uint32_t kNoThread = 0xFFFFFFFFu;  // the log did not record the thread
    static constexpr std::size_t kRingSize = 256;
    static constexpr std::uint16_t kFirstLiteral = kRingSize;
    static constexpr std::uint16_t kNoHash = kFirstLiteral + 2 * kCapacity;
    static constexpr std::size_t kReferences = kNoHash + 1;  // the size of the visitor's table
    std::size_t size = 0;
    std::size_t literal_count = 0;
    std::array<std::int64_t, kCapacity> time_ns;
    std::array<std::uint32_t, kCapacity> tracepoint;
    std::array<std::uint32_t, kCapacity> thread;
    std::array<std::uint16_t, kCapacity> input_ref, output_ref;
    std::array<Hash128, 2 * kCapacity> literals;
    std::array<std::uint16_t, kRingSize> ring_end;
};

// Streaming reception of a log. Samples arrive in batches (so a reader of
// millions of samples pays one virtual call per batch, not per sample);
// a sample's tracepoint index is always announced by on_tracepoint first.
class LogVisitor {
public:
    virtual ~LogVisitor() = default;
    virtual void on_header(const LogHeader&) {}
    virtual void on_tracepoint(std::uint32_t /*index*/, const TracepointInfo&) {}
    virtual void on_thread(const ThreadInfo&) {}
    virtual void on_samples(std::span<const SampleRecord> batch) = 0;
    // The binary reader delivers samples to on_sample_columns instead of
    // on_samples when this says so (the CSV reader always calls on_samples).
    virtual bool wants_columns() const { return false; }
    virtual void on_sample_columns(const SampleColumns&) {}
    virtual void on_drop(const DropRecord&) {}
    virtual void on_loss(const LossRecord&) {}
};

LogFormat detect_format(const std::filesystem::path& file);  // throws LogError if neither
ReadReport read_log(const std::filesystem::path& file, LogVisitor& visitor, const ReadOptions& options = {});
SampleLog load_log(const std::filesystem::path& file, const ReadOptions& options = {});

// Parsing from memory (the fuzzers and tests use these; `name` is used in errors):
// the format told by the bytes as for a file, or given.
ReadReport read_log(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions& = {});
ReadReport read_csv(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions& = {});
ReadReport read_binary(std::string_view data, const std::string& name, LogVisitor&, const ReadOptions& = {});

// Expands files and directories (recursively) into the log files they hold:
// `*.htlog`, and `*.csv` whose header names at least half of the required
// columns (a log with a broken header, or one that cannot be read, is listed
// for its reader to say what is wrong; other CSV is passed over), sorted by
// path. A file named directly is always listed. Throws LogError for a
// missing input, and when the inputs hold no log at all (naming the
// directories searched).
std::vector<std::filesystem::path> find_logs(const std::vector<std::filesystem::path>& inputs);

// Exact decimal seconds <-> integer nanoseconds (never through a double).
bool parse_time_ns(std::string_view text, std::int64_t& out) noexcept;
std::string format_time_ns(std::int64_t ns);

}  // namespace hashtrace::logio
